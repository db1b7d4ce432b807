"""One analysis per user message: the value it returns, its verdicts agreeing
with each other, the review trigger, bad input, and its cost."""

from __future__ import annotations

import dataclasses
import json
import statistics
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.detect.analysis import REVIEW_BUDGET, MessageAnalysis, analyse, lesson_threshold, review_due
from tacit.detect.correction import detect_correction
from tacit.detect.importance import importance_from, score_importance
from tacit.detect.model import Logistic, load_models


def test_the_analysis_is_a_frozen_dataclass_with_every_verdict():
    analysis = analyse("why did you add another utils file, helpers.ts exists", "I created src/utils/date.ts")
    assert isinstance(analysis, MessageAnalysis) and dataclasses.is_dataclass(analysis)
    with pytest.raises(dataclasses.FrozenInstanceError):
        analysis.category = "fact"  # type: ignore[misc]
    assert analysis.is_correction is analysis.correction.is_correction
    assert analysis.category in ("preference", "decision", "goal", "fact", "none")
    for score in (analysis.correction.score, analysis.failure_score, analysis.durable_score, analysis.lesson_score):
        assert 0.0 <= score <= 1.0
    data = analysis.as_dict()
    assert json.loads(json.dumps(data))["correction"]["correction"] is True
    assert set(data) >= {"correction", "failure_report", "category", "durable_score", "forget", "wants_review",
                         "lesson_score", "rule", "highlight"}


def test_a_failure_report_is_not_a_correction():
    analysis = analyse("still not working, same error", "I fixed the import; it should work now.")
    assert analysis.failure_report and not analysis.is_correction


def test_commands():
    assert analyse("review").wants_review
    assert analyse("forget that the staging db is on port 5433").forget == "the staging db is on port 5433"


def test_correction_and_importance_read_the_same_analysis():
    for text, prev in (("revert that", "I renamed the handlers."), ("always use TypeScript", None),
                       ("perfect, thanks", "Done."), ("pnpm not npm here", "npm install")):
        analysis = analyse(text, prev)
        assert detect_correction(text, prev) == analysis.correction
        if prev is None:
            assert score_importance(text) == importance_from(analysis)


def test_detected_lessons_are_always_highlighted():
    for text, prev in (("why did you add another utils file, helpers.ts exists", "I created utils/date.ts"),
                       ("always use TypeScript", None)):
        analysis = analyse(text, prev)
        assert analysis.highlight and analysis.lesson_score >= lesson_threshold()
    assert not analyse("thanks!", "Done.").highlight


def test_review_trigger_adds_up_highlighted_lesson_scores():
    high = max(lesson_threshold(), 0.6)
    assert not review_due([])
    assert not review_due([lesson_threshold() / 2] * 50)  # never highlighted: never a review
    assert review_due([high] * (int(REVIEW_BUDGET / high) + 1))


def test_weights_are_shipped_small_and_complete():
    models = load_models("user_model.json")
    assert set(models) >= {"correction", "failure", "durable", "lesson", "preference", "decision", "goal", "fact"}
    assert all(isinstance(m, Logistic) and m.weights and 0.0 < m.threshold < 1.0 for m in models.values())
    assert load_models("fix_model.json")["fix"].weights
    from pathlib import Path

    import tacit.detect as pkg

    folder = Path(pkg.__file__).parent
    assert (folder / "user_model.json").stat().st_size < 1_000_000
    assert (folder / "fix_model.json").stat().st_size < 1_000_000


def test_a_missing_weight_file_scores_zero_and_does_not_raise():
    assert load_models("no-such-file.json") == {}
    assert Logistic("empty").score({"w=pnpm": 1.0}) == 0.0


@pytest.mark.parametrize("bad", [None, 0, 3.5, b"no, use pnpm", ["no"], {"text": "x"}, "", " \n\t ",
                                 "\ud800\udfff", "\x00" * 100])
def test_bad_input_never_raises(bad):
    analysis = analyse(bad, bad)
    assert isinstance(analysis, MessageAnalysis)
    assert not analysis.is_correction and analysis.rule is None


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=500), st.one_of(st.none(), st.text(max_size=300)))
def test_any_text(text, prev):
    analysis = analyse(text, prev)
    assert analysis.correction.reason and not analysis.correction.reason.startswith("detector error"), analysis


def test_linear_time_on_huge_input():
    timings = []  # the best of three runs each: a shared machine's pauses are no work
    for size in (50_000, 500_000):
        text = ("why did you do that? " + "lorem ipsum dolor " * 10) * (size // 200)
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            analyse(text, text)
            best = min(best, time.perf_counter() - started)
        timings.append(best)
    assert timings[1] < 1.0  # capped: ten times the input, not ten times the work
    assert timings[1] < 5 * timings[0] + 0.05


TYPICAL = [
    ("pnpm not npm here", "I ran npm install."),
    ("why did you add another utils file, helpers.ts exists", "I created src/utils/date.ts with the helpers."),
    ("add a dark mode toggle to the settings page", None),
    ("still not working, I get a 500 when I submit the form", "I fixed the handler; it should work now."),
    ("looks good, thanks", "Done. All tests pass."),
    ("can you explain how the cache invalidation works in this module?", None),
]


def test_analyse_is_cheap():
    for text, prev in TYPICAL:
        analyse(text, prev)  # warm
    timings = []
    for _ in range(20):
        for text, prev in TYPICAL:
            started = time.perf_counter()
            analyse(text, prev)
            timings.append(time.perf_counter() - started)
    # about half a millisecond on a quiet machine; generous for a loaded CI box
    assert statistics.median(timings) < 0.005


def test_a_memory_input_is_the_users_words_and_a_durable_statement():
    # Cursor's memory input wraps what the user asked it to remember: not a quoted block to drop
    wrapped = ("<user-memory-input>In Markdown and Quarto documents, make sure to add a line between "
               "headers and body</user-memory-input>")
    analysis = analyse(wrapped, "Committed and tagged as v1.0-specs. Ready for the next section?")
    assert analysis.category != "none" and analysis.highlight and not analysis.is_correction
    plain = analyse("<transcript>In Markdown documents, add a line between headers and body</transcript> ok")
    assert plain.category == "none" and not plain.highlight  # another tag's block is still dropped
