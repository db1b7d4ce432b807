"""Fix-statement detection and extraction, measured on tests/data/fixes.jsonl.

The labelled set is hand-written (never mined from public chat logs, which are
kept for independent evaluation).  Splits:

* ``dev``        — written before the detector; tuned on.
* ``test``       — written with ``dev``, held out while tuning on ``dev``.
* ``challenge``, ``challenge2``, ``challenge3`` — written *after* the detector
  to break it, measured once, then tuned on (first-run figures are in
  docs/fix-patterns.md).
* ``challenge4`` — written last, measured once, never tuned: the honest
  estimate for unseen phrasing.

Every split must keep precision > 0.8 and recall > 0.7 (the issue's target).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tacit.detect.fix import (
    MIN_CONFIDENCE,
    FixStatement,
    detect_fix,
    lookup_text,
    tokenize_code_aware,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "fixes.jsonl"
ROWS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
SPLITS = sorted({row["split"] for row in ROWS})


def _norm(text: str) -> str:
    return " ".join(text.replace("`", "").lower().split())


def _measure(rows):
    tp = fp = fn = tn = extracted = 0
    failures = []
    for row in rows:
        got = detect_fix(row["text"])
        if row["fix"] and got:
            tp += 1
            ok = all(_norm(k) in _norm(got.problem) for k in row["problem_has"]) and all(
                _norm(k) in _norm(got.solution) for k in row["solution_has"]
            )
            extracted += ok
            if not ok:
                failures.append(("extract", row["id"], got))
        elif row["fix"]:
            fn += 1
            failures.append(("miss", row["id"], None))
        elif got:
            fp += 1
            failures.append(("false-positive", row["id"], got))
        else:
            tn += 1
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    quality = extracted / tp if tp else 1.0
    return precision, recall, quality, (tp, fp, fn, tn), failures


def test_labelled_set_shape():
    assert len(ROWS) >= 150
    assert sum(r["fix"] for r in ROWS) >= 60
    assert len({r["id"] for r in ROWS}) == len(ROWS)
    for row in ROWS:
        assert row["split"] in {"dev", "test", "challenge", "challenge2", "challenge3", "challenge4"}
        if row["fix"]:
            assert row["problem_has"] and row["solution_has"]


@pytest.mark.parametrize("split", SPLITS)
def test_precision_recall_per_split(split):
    rows = [r for r in ROWS if r["split"] == split]
    precision, recall, quality, (tp, fp, fn, tn), failures = _measure(rows)
    print(
        f"\n[fix {split}] n={len(rows)} tp={tp} fp={fp} fn={fn} tn={tn} "
        f"precision={precision:.3f} recall={recall:.3f} extraction={quality:.3f}"
    )
    for kind, row_id, got in failures:
        print(f"   {kind} {row_id} {got}")
    assert precision > 0.8, failures
    assert recall > 0.7, failures
    assert quality >= 0.9, failures


def test_precision_recall_overall():
    precision, recall, quality, counts, _ = _measure(ROWS)
    print(f"\n[fix all] counts(tp,fp,fn,tn)={counts} precision={precision:.3f} recall={recall:.3f} extraction={quality:.3f}")
    assert precision > 0.9 and recall > 0.9 and quality > 0.95


@pytest.mark.parametrize(
    ("reply", "solution_must_contain", "problem_must_contain"),
    [
        ("The cache lived in the wrong place, so I moved it to `~/.cache/tacit` and cleared the old one.",
         "~/.cache/tacit", "wrong place"),
        ("The import failed because `requests` v2.1 is too old, so I pinned it to v2.31.0 in setup.py.",
         "v2.31.0 in setup.py", "v2.1 is too old"),
        ("Root cause: `setup.py` read the version from `pkg/__init__.py` before install. Fix: use `importlib.metadata.version()` in `docs/conf.py`.",
         "importlib.metadata.version() in docs/conf.py", "setup.py read the version from pkg/__init__.py"),
        ("The tests failed because the fixture path (e.g. `tests/data/a.json`) was relative, so I made it absolute with `Path(__file__).parent`.",
         "Path(__file__).parent", "e.g. tests/data/a.json"),
        ("The build broke because Node 18.2 dropped the flag. I switched CI to node 20.11.1 and updated .nvmrc accordingly.",
         "node 20.11.1 and updated .nvmrc", "Node 18.2 dropped the flag"),
        ("The config was never loaded because the file is called config.yml, not config.yaml. I renamed it to config.yaml.",
         "renamed it to config.yaml", "config.yml, not config.yaml"),
    ],
)
def test_dots_in_paths_versions_and_names_do_not_cut(reply, solution_must_contain, problem_must_contain):
    fix = detect_fix(reply)
    assert fix is not None
    assert solution_must_contain in fix.solution
    assert problem_must_contain in fix.problem


def test_markdown_noise_is_stripped_and_code_spans_kept():
    reply = (
        "## Root cause\n\n**The `PORT` variable** was read before `.env` loaded.\n\n"
        "## Fix\n\n- Moved `load_dotenv()` to the top of `main.py`\n- Added a [test](https://x.invalid/t)\n"
    )
    fix = detect_fix(reply)
    assert fix is not None
    assert "**" not in fix.problem + fix.solution and "`" not in fix.problem + fix.solution
    assert "#" not in fix.problem
    assert fix.problem == "The PORT variable was read before .env loaded"
    assert fix.solution == "Moved load_dotenv() to the top of main.py; Added a test"
    assert fix.pattern == "label+label"


@pytest.mark.parametrize(
    "reply",
    [
        "I couldn't fix it: the tests need a database I can't reach.",
        "Error: the bug was in the config loader, but writing `main.py` failed with EACCES.",
        "Traceback (most recent call last):\n  File \"a.py\", line 1\nValueError: the fix is to pass a str",
        "I will fix the config loader so it reads `.env` first.",
        "You could try clearing `~/.cache/pip`; maybe the issue is a corrupt wheel.",
        "Maybe the issue is the trailing slash, so the fix would be removing it.",
        "Should I fix it by moving `load_dotenv()` to the top of `main.py`?",
        "Fixed.",
        "Done, tests pass.",
        "",
    ],
)
def test_errors_plans_hypotheticals_questions_and_short_replies_are_skipped(reply):
    assert detect_fix(reply) is None


def test_fix_statement_fields_and_confidence():
    fix = detect_fix(
        "Found it: the config loader reads `PORT` before `.env` is loaded, so I moved "
        "`load_dotenv()` to the top of main.py."
    )
    assert isinstance(fix, FixStatement)
    assert fix.problem == "the config loader reads PORT before .env is loaded"
    assert fix.solution == "moved load_dotenv() to the top of main.py"
    assert fix.pattern == "found-it+i-verb"
    assert MIN_CONFIDENCE <= fix.confidence <= 0.99
    with pytest.raises(AttributeError):
        fix.problem = "x"  # frozen


def test_lookup_text_is_problem_plus_solution_identifiers():
    fix = FixStatement(
        problem="the config loader reads PORT before .env is loaded",
        solution="moved load_dotenv() to the top of main.py and bumped python-dotenv to v1.0.1",
        pattern="found-it+i-verb",
        confidence=0.9,
    )
    text = lookup_text(fix)
    assert text.startswith(fix.problem)
    for ident in ("load_dotenv", "main.py", "python-dotenv", "v1.0.1"):
        assert ident in text
    assert "moved" not in text and "top" not in text  # solution prose is left out


@pytest.mark.parametrize(
    ("text", "expected_in_order"),
    [
        ("loadDotenv", ["loaddotenv", "load", "dotenv"]),
        ("load_dotenv()", ["load_dotenv", "load", "dotenv"]),
        ("kebab-case-name", ["kebab-case-name", "kebab", "case", "name"]),
        ("HTTPServer", ["httpserver", "http", "server"]),
        ("ValueError: bad", ["valueerror", "value", "error", "bad"]),
        ("ECONNREFUSED on 127.0.0.1:5432", ["econnrefused", "127.0.0.1:5432", "127.0.0.1", "5432"]),
        ("got a 404 from /api/v2/users", ["got", "404", "/api/v2/users", "api", "v2", "users"]),
        ("see ~/.cache/pip and setup.py", ["see", "~/.cache/pip", "cache", "pip", "setup.py", "setup", "py"]),
        ("upgrade to v2.1 or 3.11.4.", ["upgrade", "v2.1", "3.11.4"]),
        ("the .env file", [".env", "env", "file"]),
        ("__init__.py", ["__init__.py", "__init__", "init", "py"]),
        ("react@18.2.0", ["react@18.2.0", "react", "18.2.0"]),
        ("登录失败", ["登录", "录失", "失败"]),
    ],
)
def test_tokenize_code_aware(text, expected_in_order):
    tokens = tokenize_code_aware(text)
    assert tokens == expected_in_order


def test_tokenize_stopwords_are_optional():
    assert "the" not in tokenize_code_aware("the bug is in the loader")
    assert "the" in tokenize_code_aware("the bug is in the loader", drop_stopwords=False)
    assert tokenize_code_aware("") == [] and tokenize_code_aware(None) == []  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000))
def test_detect_fix_never_raises_and_output_is_well_formed(text):
    fix = detect_fix(text)
    if fix is not None:
        assert fix.problem.strip() and fix.solution.strip()
        assert MIN_CONFIDENCE <= fix.confidence <= 0.99
        assert "\ue000" not in fix.problem + fix.solution  # placeholders are always restored


# markdown-ish fuzz: the structures the parser actually branches on
_MD_PIECES = st.sampled_from([
    "## Root cause\n", "**Fix:** ", "- ", "1. ", "```\ncode.py\n```\n", "`a.b`", " because ", " so I moved ",
    " the bug was ", " fixed by ", ". ", "; ", " — ", "\n\n", "I'll ", "?", "Found it: ", "~/.x/y", "v2.1",
    "Error: ", "Traceback", "不对，", "原因是", "我把它改成了", "x" * 30,
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_MD_PIECES, max_size=40).map("".join))
def test_detect_fix_survives_markdown_fuzz(text):
    fix = detect_fix(text)
    assert fix is None or (fix.problem and fix.solution)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=500))
def test_tokenizer_never_raises_and_lowercases(text):
    for token in tokenize_code_aware(text):
        assert token and token == token.lower() and not token.isspace()


def test_speed_typical_and_adversarial():
    texts = [row["text"] for row in ROWS]
    start = time.perf_counter()
    for text in texts:
        detect_fix(text)
    per_reply_ms = (time.perf_counter() - start) / len(texts) * 1000
    worst = 0.0
    for text in ("the build failed because " * 1000, "I changed it because it was broken; " * 600,
                 "a.b.c/d.e " * 2000, "Setting x and adding y " * 1000, "`a` b ` c " * 3000):
        start = time.perf_counter()
        detect_fix(text)
        worst = max(worst, time.perf_counter() - start)
    print(f"\n[fix speed] {per_reply_ms:.2f} ms per labelled reply, worst adversarial 20 KB: {worst * 1000:.0f} ms")
    assert per_reply_ms < 20  # generous: the machine is shared
    assert worst < 2.0
