"""The correction detector: real phrasing (terse, lowercase, typos), the agent's
previous reply as context, the configured pattern lists, the original rule,
quoted text, and bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.detect.analysis import analyse
from tacit.detect.correction import CorrectionVerdict, detect_correction
from tacit.detect.patterns import (
    CorrectionPatterns, compile_patterns, default_patterns, original_rule, patterns_from_config,
)
from tacit.detect.text import looks_like_agent_prompt, strip_quoted


def is_corr(text: str, prev: str | None = None, **kw) -> bool:
    return detect_correction(text, prev, **kw).is_correction


# ---------------------------------------------------------------------------
# Real phrasing, with the agent's reply as context
# ---------------------------------------------------------------------------
CORRECTIONS = [
    # the terse forms
    ("pnpm not npm here", "I ran `npm install` and the build passes now."),
    ("5173 not 3000", "The dev server is running at http://localhost:3000."),
    ("no, use pnpm", "I'll install the dependencies with npm install."),
    ("This isn't exactly what I wanted", "Done! I rebuilt the landing page with a hero section and three cards."),
    ("This isnt exactly what I wanted", "Done! I rebuilt the landing page with a hero section and three cards."),
    # pushback on what the agent just did
    ("why did you add another utils file, helpers.ts exists", "I created src/utils/date.ts with the two helpers."),
    ("dont add another utils file, we have helpers.py for that", "I've created src/utils/format.py."),
    ("thats not the layout i asked for, cards go in a grid", "Here's the new product list as a table."),
    ("i siad dont touch the auth middleware", "I updated middleware/auth.ts to skip the token check."),
    ("you did not follow my instruction, I only wanted the first row", "I added two new rows of text boxes."),
    ("revert that", "I renamed every handler to the new convention."),
]


@pytest.mark.parametrize("text,prev", CORRECTIONS)
def test_corrections_with_the_agents_reply(text, prev):
    verdict = detect_correction(text, prev)
    assert verdict.is_correction, verdict
    assert 0.0 <= verdict.score <= 1.0


NOT_CORRECTIONS = [
    ("perfect, thanks", "I fixed the login redirect."),
    ("yes go ahead", "Shall I commit these changes?"),
    ("add a dark mode toggle to the settings page", None),
    ("can you write a migration for the new column", None),
    ("how do I run this container?", None),
    ("continue", "Phase 2 is done. Ready for Phase 3?"),
    ("looks good, ship it", "All tests pass."),
]


@pytest.mark.parametrize("text,prev", NOT_CORRECTIONS)
def test_plain_requests_approvals_and_questions_are_not_corrections(text, prev):
    verdict = detect_correction(text, prev)
    assert not verdict.is_correction, verdict


def test_the_agents_reply_is_context_for_a_terse_contrast():
    # "A not B" rejects what the agent just used; without that reply it is not a correction of anything
    assert detect_correction("pnpm not npm here", "I ran npm install.").is_correction
    assert detect_correction("5173 not 3000", "Server listening on port 3000").is_correction
    assert not detect_correction("5173 not 3000", None).is_correction


def test_a_rejecting_opener_makes_an_exact_rule_a_correction_without_context():
    verdict = detect_correction("no, use pnpm")
    assert verdict.is_correction and verdict.rule in ("model", "phrased-rule")


def test_the_verdict_is_the_analysis_verdict():
    for text, prev in CORRECTIONS + NOT_CORRECTIONS:
        assert detect_correction(text, prev) == analyse(text, prev).correction


def test_matched_names_what_weighed_most():
    verdict = detect_correction("why did you add another utils file, helpers.ts exists", "I created utils/date.ts")
    assert verdict.matched and "why" in verdict.matched
    assert "score" in verdict.reason


def test_as_dict_shape():
    data = detect_correction("revert that", "I renamed every handler.").as_dict()
    assert set(data) == {"correction", "rule", "score", "matched", "reason"}
    assert isinstance(data["correction"], bool) and isinstance(data["score"], float)


# ---------------------------------------------------------------------------
# Quoted text, prompts, logs
# ---------------------------------------------------------------------------
def test_quoted_text_never_triggers():
    assert strip_quoted('> no, use pnpm\nlooks fine') == "looks fine"
    assert strip_quoted("```\nI said dont do that\n```") == ""
    text = 'the docs say "I said don\'t do that" somewhere'
    assert "said" not in strip_quoted(text)
    # a short quoted name stays as a word
    assert "pnpm" in strip_quoted("use `pnpm`")


def test_a_message_that_is_only_a_paste_is_quoted_only():
    verdict = detect_correction("```\nTraceback (most recent call last):\n  File \"x.py\"\n```")
    assert verdict.rule == "quoted-only" and not verdict.is_correction


def test_agent_prompts_are_not_user_corrections():
    prompt = "You are a memory reviewer.\nRead the transcript.\nNo, do not invent facts.\n" + "x " * 120
    assert looks_like_agent_prompt(prompt)
    assert detect_correction(prompt).rule == "agent-prompt"
    assert not looks_like_agent_prompt("you are overcomplicating it")


def test_chinese_correction_phrases():
    verdict = detect_correction("不对，我说的是用 pnpm")
    assert verdict.is_correction and verdict.rule == "zh-phrase"


# ---------------------------------------------------------------------------
# The configured pattern lists
# ---------------------------------------------------------------------------
def test_default_patterns_are_compiled_once_and_cached():
    assert default_patterns() is default_patterns()
    assert patterns_from_config({}) is default_patterns()
    assert isinstance(default_patterns(), CorrectionPatterns)


def test_a_configured_strong_pattern_decides():
    patterns = compile_patterns(strong=[r"\bbanana\b"])
    verdict = detect_correction("banana", None, patterns)
    assert verdict.is_correction and verdict.rule == "strong" and verdict.score >= 0.9
    assert not detect_correction("banana").is_correction


def test_a_configured_negative_pattern_vetoes_a_short_message():
    patterns = compile_patterns(negative=[r"^revert that\b"])
    assert detect_correction("revert that", "I renamed the handlers.", patterns).rule == "negative"


def test_bad_config_is_reported_not_fatal():
    patterns = compile_patterns(strong=["(unclosed", 42], weak="not a list")
    assert any("invalid regex" in p for p in patterns.problems)
    assert any("not a string" in p for p in patterns.problems)
    assert any("expected a list" in p for p in patterns.problems)
    assert patterns.strong  # fell back to the built-in list
    assert isinstance(detect_correction("no, use pnpm", None, patterns), CorrectionVerdict)


def test_patterns_from_a_config_object():
    class Cfg:
        correction_strong_patterns = [r"\bkiwi\b"]
        correction_weak_patterns = None
        correction_negative_patterns = None
        correction_directive_words = ["use"]

    patterns = patterns_from_config(Cfg())
    assert patterns.directive_words == ("use",)
    assert detect_correction("kiwi", None, patterns).rule == "strong"


# ---------------------------------------------------------------------------
# The original rule, for comparison
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("no, use pnpm", ("weak+directive", True)),
    ("I said don't do that", ("strong", True)),
    ("no worries", ("negative", False)),
    ("add a test", ("none", False)),
    ("", ("none", False)),
])
def test_original_rule(text, expected):
    hit = original_rule(text.lower(), default_patterns())
    assert (hit.kind if hit else "none", hit is not None and hit.kind != "negative") == expected


# ---------------------------------------------------------------------------
# Bad input never raises; work stays bounded
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [None, 42, b"no, use pnpm", ["x"], "", "   ", "\ud800 no, use pnpm \udfff"])
def test_bad_input(bad):
    verdict = detect_correction(bad, bad)
    assert isinstance(verdict, CorrectionVerdict)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400), st.one_of(st.none(), st.text(max_size=200)))
def test_never_raises_on_any_text(text, prev):
    verdict = detect_correction(text, prev)
    assert 0.0 <= verdict.score <= 1.0


def test_huge_input_is_bounded():
    import time

    text = ("no, use pnpm. " * 20_000) + "why did you do that"
    started = time.perf_counter()
    verdict = detect_correction(text, "x" * 200_000)
    assert time.perf_counter() - started < 2.0
    assert isinstance(verdict, CorrectionVerdict)
