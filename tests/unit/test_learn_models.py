"""The learners' pure models on any input: no exception for non-strings,
lone surrogates or megabytes of text, and bounded results (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.detect.analysis import analyse
from tacit.learn import captures, fix_patterns, habits, observe, patterns
from tacit.learn.patterns import ObservationError

ANYTHING = st.one_of(st.none(), st.integers(), st.floats(allow_nan=True), st.booleans(),
                     st.lists(st.text(max_size=5), max_size=3), st.dictionaries(st.text(max_size=3), st.integers()),
                     st.text(), st.text(alphabet=st.characters(blacklist_categories=())))
HUGE = "x " * 300_000 + "\ud800 tail"


@settings(max_examples=200, deadline=None)
@given(ANYTHING)
def test_text_models_never_raise(value):
    assert isinstance(fix_patterns.index_terms(value), list)
    assert len(fix_patterns.query_terms(value)) <= fix_patterns.MAX_QUERY_TERMS
    assert fix_patterns.classify_outcome(value) in (None, "success", "failure")
    assert len(fix_patterns.title_from(value, value)) <= fix_patterns.MAX_TITLE + 1
    assert captures.resolve_expiry(value, 1_750_000_000.0) is None or isinstance(
        captures.resolve_expiry(value, 1_750_000_000.0), float)
    program = habits.shell_program(value)
    assert program is None or (isinstance(program, str) and len(program) <= 60)
    assert observe.installed_package(value) is None or isinstance(observe.installed_package(value), str)
    assert isinstance(habits.action_for_tool(value, value), str)
    assert habits.action_for_command(value).startswith("/")


def test_huge_and_broken_text_is_bounded():
    assert len(fix_patterns.query_terms(HUGE)) <= fix_patterns.MAX_QUERY_TERMS
    assert fix_patterns.classify_outcome(HUGE) is None
    assert len(captures.summarise(HUGE, ("x",))) <= captures.MAX_CONTENT + 1
    assert fix_patterns.pattern_key(HUGE[:2000], "\udcff fix") == fix_patterns.pattern_key(HUGE[:2000], "\udcff fix")
    assert len(fix_patterns.tags_for(HUGE, HUGE, cwd="/p/proj")) <= 7
    assert habits.shell_program("pip install " + "a" * 5_000_000) == "pip"


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=400), st.one_of(st.none(), st.text(max_size=200)))
def test_assess_takes_any_message_and_its_analysis(text, prev):
    result = captures.assess(text, analyse(text, prev), {"fact": 0.6})
    assert result.action in ("capture", "forget", "review", "skip", "refuse")
    if result.action == "capture":
        assert result.content and len(result.content) <= captures.MAX_CONTENT + 1
    assert captures.assess(text, None, {}).action == "skip"


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(["company", "category", "user_edited", "run_hour", "entity_value",
                                        "edit_description", "priority", "other"]), ANYTHING, max_size=5))
def test_observations_are_built_or_refused_clearly(context):
    try:
        obs = patterns.make_observation("P01", "run", context, now=1_750_000_000.0)
    except ObservationError as exc:
        assert str(exc)
        return
    assert 0 <= obs.run_hour <= 23 and isinstance(obs.user_edited, bool)
    assert obs.entity is None or (obs.entity and len(obs.entity) <= 40)


def test_the_habit_rule_on_plain_values():
    a, b, c = habits.Step("A", 0.0), habits.Step("B", 5.0), habits.Step("C", 9.0)
    assert [o.pattern for o in habits.completed([a, b], c, 30)] == ["B → C", "A → B → C"]
    assert habits.completed([a, b], habits.Step("A", 9.0), 30)[1:] == []  # A → B → A is a back-and-forth
    assert habits.completed([b], habits.Step("C", 40.0), 30) == []  # outside the window
    assert habits.completed([b], habits.Step("C", 1.0), 30) == []  # out of order
    assert habits.completed([], a, 30) == []


def test_a_capture_is_never_cut_after_a_list_number():
    # a real message: the capture kept "… the two federal leagues 1." and lost what the 1. was
    text = "basically you are right, but you miss the two federal leagues 1. BL and 2. BL. They are not in the data."
    assert captures.summarise(text, ("you miss",)) == (
        "basically you are right, but you miss the two federal leagues 1. BL and 2. BL.")
    assert captures.summarise("1. Put the text under the problem body. 2. Preview shows both.", ()) == (
        "1. Put the text under the problem body.")
    assert captures.summarise("Use a bundler, e.g. vite. Keep it small.", ("bundler",)) == (
        "Use a bundler, e.g. vite.")
    assert captures.summarise("We use pnpm. Tests run with vitest.", ("pnpm",)) == "We use pnpm."
