"""Unknown and out-of-range ids, tried as a new user would (real CLI
processes): an id past SQLite's 64-bit integers is a clear refusal — one JSON
object, exit 1, no "internal error" — and nothing stored changes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HUGE = "99999999999999999999"


def tacit(env, *args):
    proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("args", [
    ("memory", "undo", HUGE), ("guard", "remove", HUGE), ("guard", "restore", HUGE), ("guard", "wrong", HUGE),
    ("review", "--drop", HUGE), ("patterns", "show", HUGE), ("patterns", "retire", HUGE),
    ("patterns", "delete", HUGE), ("guard", "add", "npm", "--scope", "global", "--lesson", HUGE),
])
def test_an_id_too_large_for_the_ledger_is_a_clear_refusal(tacit_env, args):
    rc, out = tacit(tacit_env, *args)
    assert rc == 1 and out["success"] is False, out
    assert out.get("error_kind") != "internal" and "internal error" not in out["error"], out
    assert HUGE in out["error"] or "too large" in out["error"], out


def test_nothing_changes_after_an_id_too_large(tacit_env):
    tacit(tacit_env, "memory", "add", "--scope", "global", "Use pnpm, not npm.")
    tacit(tacit_env, "memory", "undo", HUGE)
    rc, out = tacit(tacit_env, "memory", "show", "--scope", "global")
    assert out["entries"] == ["Use pnpm, not npm."]
