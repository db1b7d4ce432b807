"""Fix statements in agent replies: the scorer decides, a fix needs both a cause
and a remedy, the rule parser extracts, lookup text, bad input, bounded work."""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.detect import fix_parse
from tacit.detect.fix import FixStatement, detect_fix, fix_score, lookup_text, reply_features

DATA = Path(__file__).resolve().parents[1] / "data"

FIXES = [
    "Found it: the config loader reads `PORT` before `.env` is loaded, so I moved `load_dotenv()` to the top "
    "of `main.py`. The server now starts on 8080 as expected.",
    "The error happens because the promise isn't awaited; I added `await` in loadUser().",
    "**Root cause:** the migration ran before the `users` table existed.\n\n**Fix:** I reordered the migrations "
    "so `create_users` runs first. All tests pass now.",
    "The issue is that the build script still points at the old `dist/` folder. I changed the path to `build/` "
    "in package.json and the deploy works again.",
]
NOT_FIXES = [
    "I'll fix the config loader so it reads `.env` before `PORT`. First I need to check where `load_dotenv()` is called.",
    "Let me check the logs first to see what is going on.",
    "Implemented the settings page: added a form, a save button and validation for the email field.",
    "Would you like me to add tests for the new endpoint?",
    "Done. Pushed to main.",
]


@pytest.mark.parametrize("reply", FIXES)
def test_clear_fix_statements_are_found_with_both_halves(reply):
    found = detect_fix(reply)
    assert found is not None, fix_score(reply)
    assert found.problem and found.solution and found.problem != found.solution
    assert 0.0 < found.confidence <= 1.0


@pytest.mark.parametrize("reply", NOT_FIXES)
def test_plans_summaries_and_questions_are_not_fixes(reply):
    assert detect_fix(reply) is None, fix_score(reply)


def test_the_users_report_before_the_reply_is_context():
    reply = FIXES[1]
    assert reply_features(reply, "still getting the same error")["user-reported-problem"] == 1.0
    assert "user=none" in reply_features(reply)


def test_fix_statement_is_a_frozen_value():
    found = detect_fix(FIXES[0])
    assert dataclasses.is_dataclass(found)
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.problem = "x"  # type: ignore[misc]
    assert list(found.as_dict()) == ["problem", "solution", "pattern", "confidence"]
    assert hash(found) == hash(FixStatement(**found.as_dict()))


def test_lookup_text_keeps_the_problem_and_the_solutions_identifiers():
    fix = FixStatement("the config loader reads PORT before .env is loaded",
                       "moved load_dotenv() to the top of main.py", "found-it+i-verb", 0.9)
    text = lookup_text(fix)
    assert text.startswith("the config loader reads PORT")
    assert "load_dotenv" in text and "main.py" in text and "moved" not in text


def test_the_rule_parser_is_the_original_one():
    """fix_parse is the earlier detector's parser, moved: same pairs on the project's labelled replies."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from original_detectors import fix as original

    for line in (DATA / "fixes.jsonl").read_text(encoding="utf-8").splitlines():
        reply = json.loads(line)["text"]
        old, new = original.detect_fix(reply), fix_parse.parse(reply)
        assert (old is None) == (new is None), reply
        if old is not None:
            assert (old.problem, old.solution, old.pattern, old.confidence) == \
                (new.problem, new.solution, new.pattern, new.confidence)


@pytest.mark.parametrize("bad", [None, 7, b"bytes", ["x"], "", "   ", "\ud83d fixed it because \udca9"])
def test_bad_input(bad):
    assert detect_fix(bad) is None or isinstance(detect_fix(bad), FixStatement)
    assert 0.0 <= fix_score(bad) <= 1.0
    assert isinstance(reply_features(bad), dict)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=600))
def test_never_raises(text):
    found = detect_fix(text)
    assert found is None or (found.problem and found.solution)


def test_huge_replies_are_bounded():
    reply = ("The issue was a missing await, so I added it. " * 3000) + "```\n" + "x = 1\n" * 20000 + "```"
    started = time.perf_counter()
    detect_fix(reply)
    assert time.perf_counter() - started < 2.0
