"""Importance: the durable-statement view of the one analysis (category,
importance inside its range, emphasis, deadline hint), the caller's
correction verdict, and the two prose memory commands."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.detect.analysis import analyse
from tacit.detect.commands import wants_forget, wants_review
from tacit.detect.importance import (
    CATEGORIES,
    CATEGORY_RANGES,
    TENTATIVE_RANGE,
    Importance,
    importance_from,
    score_importance,
)


def _in_range(scored: Importance) -> bool:
    low, high = CATEGORY_RANGES[scored.category]
    if scored.category in ("preference", "decision", "goal", "fact") and \
            TENTATIVE_RANGE[0] <= scored.importance <= TENTATIVE_RANGE[1]:
        return True  # a tentative durable statement
    return low <= scored.importance <= high


@pytest.mark.parametrize("text,category", [
    ("always use TypeScript", "preference"),
    ("I prefer tabs over spaces in Go files.", "preference"),
    ("Never include a Co-Authored-By in your commits", "preference"),
    ("let's use Postgres for the main database", "decision"),
    ("I'm on Windows", "fact"),
])
def test_durable_statements(text, category):
    scored = score_importance(text)
    assert scored.category == category, scored
    assert _in_range(scored)
    assert scored.importance >= 0.7  # clears the default importance_threshold


@pytest.mark.parametrize("text", [
    "make the sign up form look better on mobile",
    "perfect, thanks",
    "continue",
    "what does this function return?",
    "run the tests again",
])
def test_one_off_requests_and_chit_chat_are_not_captured(text):
    scored = score_importance(text)
    assert scored.importance < 0.7, scored  # below the default capture threshold
    assert scored.category == "none" or TENTATIVE_RANGE[0] <= scored.importance <= TENTATIVE_RANGE[1]


def test_the_correction_verdict_comes_from_the_analysis():
    text, prev = "why did you add another utils file, helpers.ts exists", "I created src/utils/date.ts"
    analysis = analyse(text, prev)
    assert analysis.is_correction
    scored = importance_from(analysis)
    assert scored.category == "correction" and _in_range(scored)


def test_the_callers_correction_verdict_is_final():
    assert score_importance("revert that", is_correction=True).category == "correction"
    assert score_importance("why did you add another utils file", is_correction=False).category != "correction"


def test_emphasis_moves_to_the_top_of_the_range():
    scored = score_importance("important: always run ruff before committing")
    assert scored.emphasis
    assert scored.importance == CATEGORY_RANGES[scored.category][1]


def test_every_category_is_known():
    for text in ("always use pnpm", "hello", "let's go with option 2", "I need this deployed by Friday"):
        scored = score_importance(text)
        assert scored.category in CATEGORIES and _in_range(scored)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300), st.one_of(st.none(), st.booleans()))
def test_importance_always_inside_its_category_range(text, is_correction):
    scored = score_importance(text, is_correction)
    assert scored.category in CATEGORIES and _in_range(scored)


@pytest.mark.parametrize("bad", [None, 3, b"always use pnpm", ["a"], "", "\udc80"])
def test_bad_input_scores_none(bad):
    scored = score_importance(bad)
    assert isinstance(scored, Importance) and scored.category in CATEGORIES


# ---------------------------------------------------------------------------
# memory commands said in prose
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("review", True),
    ("let's review today's memories", True),
    ("复盘", True),
    ("/memory-review", True),
    ("please review the PR", False),
    ("review the code in auth.py", False),
    (None, False),
])
def test_wants_review(text, expected):
    assert wants_review(text) is expected


@pytest.mark.parametrize("text,expected", [
    ("forget that I use vim", "I use vim"),
    ("please forget about the staging server", "the staging server"),
    ("don't forget to run the tests", None),
    ("forget it", None),
    ("忘掉我用 vim", "我用 vim"),
    # "delete the archivable files" is a task: tombstoning the words refused later saves that said them
    ("删除可归档文件", None),
    ("删掉测试", None),
    ("删除关于 pnpm 的记忆", "pnpm"),
    ("删除记忆：我用 vim", "我用 vim"),
    # the phrase around the subject was kept: nothing said "what I said about yarn", nothing was removed
    ("forget what I said about yarn", "yarn"),
    ("please forget what I told you about the staging server", "the staging server"),
    ("forget everything about yarn", "yarn"),
    (42, None),
])
def test_wants_forget(text, expected):
    assert wants_forget(text) == expected


def test_commands_are_not_durable_statements():
    analysis = analyse("forget that I use vim")
    assert analysis.forget == "I use vim"
    assert analysis.category == "none" and analysis.rule is None and analysis.lesson_score == 0.0
