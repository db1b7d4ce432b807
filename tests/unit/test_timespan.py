"""`--since`: one reading for `tacit memory log` and `tacit search` (they used to differ: "3m"
was three minutes for one and three months for the other)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import pytest

from tacit.timespan import parse_since

NOW = dt.datetime(2026, 12, 6, 15, 30).timestamp()


@pytest.mark.parametrize("text, seconds", [
    ("30m", 30 * 60), ("12h", 12 * 3600), ("3d", 3 * 86400), ("2w", 14 * 86400),
    ("6mo", 6 * 30 * 86400), ("1y", 365 * 86400), (" 7 D ", 7 * 86400),
])
def test_an_age_counts_back_from_now(text, seconds):
    assert parse_since(text, now=NOW) == NOW - seconds


def test_today_yesterday_and_dates():
    midnight = dt.datetime(2026, 12, 6).timestamp()
    assert parse_since("today", now=NOW) == midnight
    assert parse_since("yesterday", now=NOW) == midnight - 86400
    assert parse_since("2026-11-30", now=NOW) == dt.datetime(2026, 11, 30).timestamp()
    assert parse_since("2026-11-30T09:00+00:00") == dt.datetime(2026, 11, 30, 9, tzinfo=dt.timezone.utc).timestamp()
    assert parse_since(None) is None and parse_since("") is None


@pytest.mark.parametrize("text", ["last tuesday", "3 months", "-2d", "12x", "2026-13-40"])
def test_anything_else_is_a_clear_error(text):
    with pytest.raises(ValueError, match="--since"):
        parse_since(text, now=NOW)


@pytest.mark.parametrize("command", [["memory", "log"], ["search", "deploy"]])
def test_both_commands_answer_a_bad_since_as_one_json_error(tacit_env, command):
    proc = subprocess.run([sys.executable, "-m", "tacit", *command, "--since", "3 months", "--json"],
                          env=tacit_env, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    answer = json.loads(proc.stdout.strip().splitlines()[-1])
    assert answer["success"] is False and "6mo" in answer["error"]
