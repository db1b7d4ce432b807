"""The terse and non-English forms issue 22 found missed or misread: each decided as a user means it."""

from __future__ import annotations

import pytest

from tacit.detect.analysis import analyse

NPM_REPLY = "I ran `npm install` and the build passes."


@pytest.mark.parametrize("text, prev, rule", [
    ("pnpm pls", NPM_REPLY, "Use pnpm."),
    ("single quotes pls", "I switched the strings to double quotes.", "Use single quotes."),
    ("use pnpm, not npm", None, "Use pnpm, not npm."),  # cold: no agent reply before it
    ("stop, fix the test first", "I'll now update the docs for the new flag.", None),
    ("actually, fix the test first", "I'll now update the docs for the new flag.", None),
    ("Stop creating a new connection per request; the pool exists", "I added a new db connection in the handler.",
     None),
])
def test_terse_corrections_are_corrections_and_highlighted(text, prev, rule):
    analysis = analyse(text, prev)
    assert analysis.is_correction, analysis.correction
    assert analysis.highlight
    assert analysis.rule == rule


def test_a_tool_asked_for_with_nothing_to_reject_is_a_preference_not_a_correction():
    analysis = analyse("pnpm pls")
    assert not analysis.is_correction
    assert analysis.rule == "Use pnpm." and analysis.category == "preference" and analysis.highlight


def test_we_use_yarn_here_is_a_highlighted_fact_with_its_rule():
    analysis = analyse("we use yarn here")
    assert analysis.category == "fact" and analysis.rule == "This project uses yarn." and analysis.highlight


@pytest.mark.parametrize("text, prev", [
    ("no need to change that", "Should I also update the config file?"),
    ("Did you say the tenant id is 42?", "The tenant id is 42 in staging."),
    ("actually, also add a test", "Done: the parser handles empty input."),
    ("stop the server and restart it", "The server is running on port 3000."),
])
def test_waivers_questions_and_additions_are_not_corrections(text, prev):
    analysis = analyse(text, prev)
    assert not analysis.is_correction, analysis.correction


@pytest.mark.parametrize("text", ["no need to change that", "Did you say the tenant id is 42?"])
def test_waivers_and_clarifying_questions_are_not_highlighted(text):
    analysis = analyse(text, "Should I also update the config file?")
    assert not analysis.highlight and analysis.category == "none"


@pytest.mark.parametrize("text", [
    "Nein, das ist falsch. Benutze pnpm statt npm.",  # de
    "Non, ce n'est pas ça. Utilise pnpm.",  # fr
    "No, eso está mal. Usa pnpm.",  # es
    "Нет, это неправильно. Используй pnpm.",  # ru
    "違います。pnpmを使ってください",  # ja
    "Não, isso está errado. Use pnpm.",  # pt
    "아니요, 틀렸어요. pnpm을 사용하세요",  # ko
    "不对，用pnpm",  # zh
    "你别老是在聊天框运行命令，直接用终端",  # zh: "stop always running commands in the chat box"
    "停止修改",  # zh: "stop editing"
    "改回去吧，不如刚才那个好看",  # zh: "change it back"
    "不是让你删掉测试",  # zh: "I did not ask you to delete the tests"
    "不對，應該用 pnpm",  # zh (traditional)
])
def test_corrections_in_other_languages(text):
    analysis = analyse(text, NPM_REPLY)
    assert analysis.is_correction, analysis.correction
    assert analysis.highlight


@pytest.mark.parametrize("text", [
    "Non merci, c'est parfait.",
    "Danke, das ist gut so.",
    "Спасибо, всё работает.",
    "ありがとう、完璧です",
    "Gracias, funciona.",
    "好的，请继续",  # zh: "ok, go on"
    "帮我看下这个项目还有什么可以改进的地方",  # zh: a request, not a correction
])
def test_thanks_in_other_languages_are_not_corrections(text):
    assert not analyse(text, NPM_REPLY).is_correction


def test_a_stated_convention_after_an_acknowledgement_is_a_lesson_not_a_correction():
    """The reply did nothing the rule rejects: the review keeps it, no correction save."""
    said = analyse("we use yarn here", "Understood.")
    assert not said.is_correction and said.correction.rule == "stated-rule", said.correction
    assert said.category != "none" and said.highlight and said.rule
    after_npm = analyse("we use yarn here", "I ran npm install and the build passes.")
    assert after_npm.is_correction, after_npm.correction


def test_a_short_x_not_y_against_what_the_reply_said_is_a_correction():
    verdict = analyse("the port is 5173 not 3000", "Started on port 3000.").correction
    assert verdict.is_correction and verdict.rule == "contrast" and "3000" in verdict.reason, verdict
    assert analyse("the port is 5173 not 3000").correction.rule != "contrast"  # nothing said it
    long = ("so the app shows the loading message and not the projects page after I open it from the menu "
            "on the left side")
    assert analyse(long, "The projects page now loads.").correction.rule != "contrast"
