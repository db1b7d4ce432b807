"""The correction detector: the original rule, what real people type, the
agent's previous reply as context, quoted text, config patterns, the
labelled set's precision/recall, and speed."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.detect.correction import (
    CorrectionPatterns,
    CorrectionVerdict,
    compile_patterns,
    default_patterns,
    detect_correction,
    detect_correction_original,
    looks_like_agent_prompt,
    patterns_from_config,
    strip_quoted,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "corrections.jsonl"


def is_corr(text: str, prev: str | None = None, **kw) -> bool:
    return detect_correction(text, prev, **kw).is_correction


# ---------------------------------------------------------------------------
# The issue's examples, one by one
# ---------------------------------------------------------------------------
ISSUE_CORRECTIONS = [
    ("dont add another utils file, we have helpers.py for that",
     "I've created src/utils/format.py with the date helpers."),
    ("why did you touch the auth middleware? the bug was in the form",
     "I updated middleware/auth.ts to skip the token check for /signup."),
    ("thats not the layout i asked for, cards go in a grid", "Here's the new product list as a table."),
    ("the port is 5173 not 3000", "The dev server is running at http://localhost:3000."),
    ("I wanted the colors changed, not the fonts", "I switched the headings to Inter."),
    ("you can skip the docker part, it already runs locally",
     "Next I'll write a Dockerfile and a docker-compose.yml."),
]


@pytest.mark.parametrize("text,prev", ISSUE_CORRECTIONS)
def test_issue_corrections_with_the_agents_reply(text, prev):
    verdict = detect_correction(text, prev)
    assert verdict.is_correction, verdict


@pytest.mark.parametrize("text", [t for t, _ in ISSUE_CORRECTIONS])
def test_issue_corrections_without_the_agents_reply(text):
    assert is_corr(text), detect_correction(text)


@pytest.mark.parametrize("text,kind", [
    ("no the page is still empty", "bug report"),
    ("actually, also add a test", "new request"),
    ("stop the server and restart it", "operational"),
    ("perfect, thanks", "approval"),
    ("add a dark mode toggle to the settings page", "request"),
    ("can you write a migration for the new column", "request"),
])
def test_issue_non_corrections(text, kind):
    verdict = detect_correction(text)
    assert not verdict.is_correction, (kind, verdict)


def test_bug_report_after_a_fix_is_not_a_correction():
    prev = "I fixed the data fetching in Dashboard.tsx, the page should render the list now."
    assert not is_corr("no the page is still empty", prev)
    assert not is_corr("nope, same 500 error", prev)


# ---------------------------------------------------------------------------
# The original design's rule and lists
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "don't do that", "Not like that.", "I said tabs", "I told you the tests live in tests/unit",
    "we already discussed this", "please don't touch the lockfile", "that's not what I meant",
])
def test_original_strong_patterns(text):
    verdict = detect_correction(text)
    assert verdict.is_correction and verdict.rule == "strong", verdict
    assert detect_correction_original(text).is_correction


@pytest.mark.parametrize("text", [
    "no, use pnpm", "wrong, it should be tabs", "actually, use tabs instead", "stop, don't touch that file",
])
def test_original_weak_plus_directive(text):
    verdict = detect_correction(text)
    assert verdict.is_correction and verdict.rule == "weak+directive", verdict
    assert detect_correction_original(text).rule == "weak+directive"


@pytest.mark.parametrize("text", ["no", "actually", "stop", "no, the build is green"])
def test_weak_opener_without_directive_is_not_the_original_rule(text):
    assert detect_correction_original(text).is_correction is False
    assert detect_correction(text).rule != "weak+directive"


@pytest.mark.parametrize("text", [
    "no worries", "No problem!", "no thanks", "no need", "no need to apologize",
    "actually that looks great", "actually, perfect", "actually it's correct",
    "stop there", "stop here, thanks", "stop for now",
])
def test_original_negative_patterns(text):
    verdict = detect_correction(text)
    assert not verdict.is_correction and verdict.rule == "negative", verdict


def test_negative_then_but_judges_the_rest():
    assert is_corr("no worries, but I said tabs")
    assert not is_corr("no worries, but can you also add a test?")


def test_no_need_for_x_is_a_correction_not_an_approval():
    # deliberate narrowing of the original "^no need" negative (docs/corrections.md)
    assert is_corr("no need for a new class, a function is enough", "I wrapped it in a new PriceCalculator class.")


def test_please_dont_hesitate_is_not_a_correction():
    assert not is_corr("please don't hesitate to ask if anything is unclear")


def test_original_rule_fires_on_weak_directive_that_the_new_detector_vetoes():
    # why the vetoes exist: the original rule calls this a correction
    text = "no, it still crashes, should I restart?"
    assert detect_correction_original(text).is_correction
    assert not is_corr(text)


# ---------------------------------------------------------------------------
# What real people type
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "dont use print for logging, use the logger",
    "thats wrong, the endpoint is /api/v2/users",
    "i siad dont use jquery",                       # typo
    "teh tests shoudl be in pytest style, not unittest classes",
    "u changed the wrong function lol, its parse_row not parse_line",
    "we use tabs here",
    "stop adding comments to every line",
    "why are you editing the generated files? those come from protoc",
    "I never said to remove the cache",
    "hey I asked for typescript, this is plain js",
    "who told you to delete the cache dir??",
    "It's not a React app, it's Svelte",
    "THATS NOT THE LAYOUT I ASKED FOR",
    "that\u2019s not what I meant",                 # typographic apostrophe
    "good but you used single quotes, we use double quotes",
])
def test_real_corrections(text):
    assert is_corr(text), detect_correction(text)


@pytest.mark.parametrize("text,prev", [
    ("no, not yet", "Should I commit the changes?"),
    ("no need, it already runs locally", "Should I also add a Dockerfile?"),
    ("we use postgres in prod and sqlite locally", "What database does the project use?"),
    ("why did you choose redis over memcached? just curious", "I added Redis for caching."),
    ("you used zod here, is that already a dependency?", None),
    ("wrong password error even with the right password", None),
    ("stop button doesn't work on the player", None),
    ("undo my last commit, I committed to main by mistake", None),
    ("don't forget to update the changelog", None),
    ("never mind, I found it", None),
    ("that's exactly what I wanted", None),
    ("great, now add the same for tablet", "The grid is responsive on desktop now."),
])
def test_hard_negatives(text, prev):
    assert not is_corr(text, prev), detect_correction(text, prev)


# ---------------------------------------------------------------------------
# The agent's previous reply as context
# ---------------------------------------------------------------------------
def test_rejecting_what_the_agent_said_strengthens_a_contrast():
    text = "the port is 5173 not 3000"
    with_reply = detect_correction(text, "The dev server is running at http://localhost:3000.")
    without = detect_correction(text)
    assert with_reply.score > without.score
    assert "mentions" in with_reply.reason


def test_a_contrast_without_a_reply_is_weak():
    text = "sort the list by date, not by name"
    assert not is_corr(text)
    assert is_corr(text, "I sorted the list by name so it's easier to scan.")


def test_an_answer_to_the_agents_question_is_not_a_correction():
    assert not is_corr("no, use pnpm", "Which package manager should I use, npm or pnpm?")
    assert is_corr("no, use pnpm", "Running `npm install` to add the dependency.")


def test_yeah_no_after_an_action():
    assert is_corr("yeah no, that's not gonna work with SSR, keep it client side",
                   "I moved the chart rendering to the server component.")


def test_bare_no_counts_only_after_an_action():
    assert not is_corr("no", "Should I commit?")
    assert not is_corr("no")
    assert is_corr("no", "I deleted the old migrations.")


# ---------------------------------------------------------------------------
# Quoted text, child prompts, long pastes
# ---------------------------------------------------------------------------
def test_strip_quoted_removes_fences_quotes_roles_and_tags():
    text = ("look:\n```\n// don't do that\n```\n> I said no\nuser: not like that\n"
            "<system-reminder>I told you</system-reminder>\nit should say \"Sign in\" and 'Log out'")
    stripped = strip_quoted(text)
    for gone in ("don't do that", "I said no", "not like that", "I told you"):
        assert gone not in stripped
    assert "look:" in stripped and "Sign in" in stripped and "Log out" in stripped


def test_strip_quoted_keeps_names_but_drops_quoted_speech():
    assert strip_quoted("its `cargo nextest run` not `cargo test`") == "its cargo nextest run not cargo test"
    assert "don't" not in strip_quoted("the PR says 'please don't merge yet' - ok?")
    assert "I said" not in strip_quoted('he wrote "I said don\'t use the cache" in the commit')


@pytest.mark.parametrize("text", [
    "my teammate wrote:\n> no, don't do that. we already discussed it\ncan you take a look?",
    "```\n// don't do that: mutating props\nprops.value = 1\n```\nwhat does this lint warning mean?",
    'the commit message says "revert: I said don\'t use the cache" - what was that about?',
    "<system-reminder>The user said: \"I told you to use tabs\"</system-reminder>\nrun the tests",
    "here's the transcript:\nuser: no, use pnpm not npm\nassistant: ok\nwhat do you make of it?",
])
def test_quoted_text_does_not_trigger(text):
    verdict = detect_correction(text)
    assert not verdict.is_correction, verdict


CHILD_PROMPT = """You are the memory curator for a coding agent. Read the conversation below and save one lesson.

Rules:
- Don't save secrets.
- Don't do that for one-off instructions.
- Stop after one save.

## Conversation
user: no, use pnpm not npm
assistant: Sorry, switching.
user: I said no new dependencies
"""


def test_child_agent_prompt_never_triggers():
    assert looks_like_agent_prompt(CHILD_PROMPT)
    verdict = detect_correction(CHILD_PROMPT)
    assert not verdict.is_correction and verdict.rule == "agent-prompt"
    marked = "<!-- tacit:child -->\nI said don't do that"
    assert detect_correction(marked).rule == "agent-prompt"


def test_short_user_message_starting_you_are_is_not_a_prompt():
    assert not looks_like_agent_prompt("you are overcomplicating it, a dict is fine")
    assert is_corr("you are overcomplicating it, a dict is fine")


def _pasted_log(lines: int = 40) -> str:
    rows = []
    for i in range(lines):
        rows.append(f"2024-05-02T10:{i % 60:02d}:0{i % 10}.123Z worker-3 ERROR job={1000 + i} failed: timeout")
        if i == lines // 2:
            rows.append("> I said don't do that")
            rows.append("ERROR stop using the cache, not like that")
            rows.append("user: no, use pnpm")
    return "\n".join(rows)


def test_long_pasted_log_with_quoted_lines_does_not_fire():
    log = _pasted_log()
    assert len(log) > 2000
    text = "CI is red again, here's the log:\n" + log + "\nany idea what's going on?"
    verdict = detect_correction(text)
    assert not verdict.is_correction, verdict


def test_correction_around_a_long_paste_still_fires():
    log = _pasted_log()
    assert is_corr("no, you're looking at the wrong service, it's the worker:\n" + log)
    assert is_corr(log + "\n\nthat's the worker log. I told you the api is fine, stop editing it")


def test_long_spec_with_rules_in_the_middle_does_not_fire():
    spec = ("Here's the spec for the export feature:\n\n"
            + "\n".join(f"- Rule {i}: don't include deleted rows, not like the old report, stop at 100k rows."
                        for i in range(12))
            + "\n\nWe already have the job queue from the invoices feature. Can you start with the backend?")
    assert len(spec) > 1000
    assert not is_corr(spec)


# ---------------------------------------------------------------------------
# Patterns from config
# ---------------------------------------------------------------------------
def test_default_patterns_from_real_config(cfg):
    patterns = patterns_from_config(cfg)
    assert isinstance(patterns, CorrectionPatterns)
    assert patterns.problems == ()
    assert patterns == default_patterns()


def test_invalid_regex_in_config_is_reported_and_ignored(cfg):
    cfg2 = cfg.with_settings(correction_strong_patterns=["(", r"\bbanana split\b"])
    patterns = patterns_from_config(cfg2)
    assert len(patterns.strong) == 1
    assert any(p.startswith("invalid regex in correction_strong_patterns: '('") for p in patterns.problems)
    verdict = detect_correction("Banana split, as always", patterns=patterns)
    assert verdict.is_correction and verdict.rule == "strong"
    # the detector still works on everything else, and never raises
    assert not detect_correction("perfect, thanks", patterns=patterns).is_correction


def test_all_invalid_falls_back_to_defaults_and_says_so():
    patterns = compile_patterns(strong=["(", "[a-"])
    assert len(patterns.strong) == len(default_patterns().strong)
    assert sum("invalid regex" in p for p in patterns.problems) == 2
    assert any("using the built-in list" in p for p in patterns.problems)


def test_configured_lists_replace_the_defaults():
    patterns = compile_patterns(negative=[r"^nah\b"], weak=[r"^hmm\b"], directive_words=["swap"])
    # "no worries" is no longer a negative, "nah" is
    assert detect_correction("nah it's fine", patterns=patterns).rule == "negative"
    assert detect_correction("hmm, swap the two columns", patterns=patterns).rule == "weak+directive"
    assert detect_correction_original("no, use pnpm", patterns=patterns).rule == "none"


def test_config_patterns_match_with_and_without_apostrophes():
    patterns = compile_patterns(strong=[r"^that's overkill"])
    assert detect_correction("thats overkill tbh", patterns=patterns).rule == "strong"
    assert detect_correction("That\u2019s overkill", patterns=patterns).rule == "strong"


def test_patterns_from_a_plain_mapping_and_bad_types():
    patterns = patterns_from_config({"correction_weak_patterns": r"^hmm\b",  # one string: one pattern
                                     "correction_strong_patterns": 5,
                                     "correction_directive_words": ["use", 3]})
    assert [p.pattern for p in patterns.weak] == [r"^hmm\b"]
    assert any("5 is not a string" in p for p in patterns.problems)
    assert len(patterns.strong) == len(default_patterns().strong)  # fell back, reported
    assert any("3" in p and "directive" in p for p in patterns.problems)
    assert patterns.directive_words == ("use",)


# ---------------------------------------------------------------------------
# Never raises; verdict shape
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [None, "", "   \n ", 42, b"no, use pnpm", ["I said"]])
def test_bad_input_is_a_plain_no(bad):
    verdict = detect_correction(bad, prev_assistant=bad)  # type: ignore[arg-type]
    assert isinstance(verdict, CorrectionVerdict)
    assert verdict.is_correction is False


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400), st.one_of(st.none(), st.text(max_size=200)))
def test_never_raises_on_any_text(text, prev):
    verdict = detect_correction(text, prev)
    assert verdict.rule != "none" or not verdict.reason.startswith("detector error"), verdict
    assert 0.0 <= verdict.score <= 1.0


def test_verdict_as_dict_is_the_cli_shape():
    data = detect_correction("I said tabs").as_dict()
    assert data["correction"] is True and data["rule"] == "strong"
    assert set(data) == {"correction", "rule", "score", "matched", "reason"}
    json.dumps(data)


# ---------------------------------------------------------------------------
# The labelled set
# ---------------------------------------------------------------------------
def load_set() -> list[dict]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_labelled_set_is_well_formed():
    rows = load_set()
    assert len(rows) >= 250
    for row in rows:
        assert set(row) == {"text", "prev_assistant", "label", "kind", "split"}, row
        assert isinstance(row["text"], str) and row["text"].strip()
        assert row["prev_assistant"] is None or isinstance(row["prev_assistant"], str)
        assert isinstance(row["label"], bool)
        assert row["label"] == (row["kind"] == "correction"), row
    labels = Counter(row["label"] for row in rows)
    assert labels[True] >= 90
    kinds = Counter(row["kind"] for row in rows if not row["label"])
    for kind in ("bug_report", "request", "approval", "operational", "question", "answer", "quoted"):
        assert kinds[kind] >= 5, kinds
    assert {row["split"] for row in rows} == {"tune", "heldout", "fresh1", "fresh2", "fresh3"}
    assert len({row["text"] for row in rows}) == len(rows), "duplicate texts"


def precision_recall(rows: list[dict], detect) -> tuple[float, float, int]:
    tp = fp = fn = 0
    for row in rows:
        predicted = detect(row)
        tp += predicted and row["label"]
        fp += predicted and not row["label"]
        fn += (not predicted) and row["label"]
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return precision, recall, len(rows)


def test_precision_and_recall_on_the_labelled_set():
    rows = load_set()
    detect = lambda row: detect_correction(row["text"], row["prev_assistant"]).is_correction  # noqa: E731
    original = lambda row: detect_correction_original(row["text"]).is_correction  # noqa: E731
    print()
    for split in ("tune", "heldout", "fresh1", "fresh2", "fresh3", None):
        subset = [r for r in rows if split is None or r["split"] == split]
        p, r, n = precision_recall(subset, detect)
        po, ro, _ = precision_recall(subset, original)
        print(f"  {split or 'all':8} n={n:3}  precision={p:.3f} recall={r:.3f}   "
              f"(original rule: precision={po:.3f} recall={ro:.3f})")
        assert p >= 0.8 and r >= 0.8, (split, p, r)
    p, r, _ = precision_recall(rows, detect)
    assert p >= 0.8 and r >= 0.8


# ---------------------------------------------------------------------------
# Speed
# ---------------------------------------------------------------------------
def test_throughput():
    rows = load_set()
    pairs = [(r["text"], r["prev_assistant"]) for r in rows]
    detect_correction("warm up the caches")
    start = time.perf_counter()
    for text, prev in pairs:
        detect_correction(text, prev)
    elapsed = time.perf_counter() - start
    baseline_re = re.compile(r"don'?t do that|not like that|^i said", re.I)
    start = time.perf_counter()
    for text, _ in pairs:
        baseline_re.search(text)
    baseline = time.perf_counter() - start
    per_message_ms = elapsed / len(pairs) * 1000
    print(f"\n  {len(pairs) / elapsed:.0f} messages/s, {per_message_ms:.3f} ms/message, "
          f"{elapsed / max(baseline, 1e-9):.0f}x a bare regex search")
    # generous for a shared 2-core machine; measured 0.12-0.27 ms/message
    assert per_message_ms < 2.0


def test_huge_message_is_bounded():
    huge = ("2024-05-02T10:00:00Z INFO request ok path=/api/items status=200\n" * 20000) + "I said don't"
    start = time.perf_counter()
    verdict = detect_correction(huge)
    assert time.perf_counter() - start < 0.5
    assert verdict.is_correction  # the user's own trailing line still counts
