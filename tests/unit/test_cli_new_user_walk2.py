"""A second walk through README.md and docs/guide.md as a new user: each test is one defect
found that way, run in-process from a git repository as ``tacit ARGS`` would (the first walk's
are in test_cli_new_user_walk.py)."""

from __future__ import annotations

import json
import shutil

import pytest

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def one_json(out: str) -> dict:
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    return json.loads(lines[0])


@pytest.mark.parametrize("args", [("memory", "log", "--limit", "0"), ("memory", "log", "--limit", "-3"),
                                  ("cost", "--days", "-5"), ("cost", "--days", "0"),
                                  ("search", "pnpm", "--limit", "0"), ("stats", "--days", "nan")])
def test_a_count_of_zero_or_less_is_a_usage_error(run, args):
    """`memory log --limit 0` showed one change and `cost --days -5` reported one day: a count
    that cannot mean anything was quietly read as 1 instead of being refused."""
    run("memory", "add", "Use pnpm in this repository.")
    run("memory", "add", "Node 20 is required.")
    code, out, err = run(*args)
    assert code == 2 and out == "" and "give a number above 0" in err, (out, err)
    code, out, _ = run(*args, "--json")
    data = one_json(out)
    assert code == 2 and data["success"] is False and "above 0" in data["error"], data


def test_a_positive_limit_still_limits(run):
    run("memory", "add", "Use pnpm in this repository.")
    run("memory", "add", "Node 20 is required.")
    code, out, _ = run("memory", "log", "--limit", "1", "--json")
    assert code == 0 and [c["text"] for c in one_json(out)["changes"]] == ["Node 20 is required."]
