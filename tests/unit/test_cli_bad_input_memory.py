"""Bad input to ``tacit memory``, tried as a new user would (real CLI
processes): an empty text is refused rather than matching every entry, and
exit 1 always comes with ``"success": false`` and an error sentence."""

from __future__ import annotations

import json
import subprocess
import sys


def tacit(env, *args):
    proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_moving_an_empty_text_moves_nothing(tacit_env):
    tacit(tacit_env, "memory", "add", "--scope", "global", "Use pnpm, not npm.")
    for text in ("", "   "):
        rc, out = tacit(tacit_env, "memory", "move", text, "--to", "user")
        assert rc == 1 and out["success"] is False and "empty" in out["error"], out
    assert tacit(tacit_env, "memory", "show", "--scope", "global")[1]["entries"] == ["Use pnpm, not npm."]
    assert tacit(tacit_env, "memory", "show", "--scope", "user")[1]["entries"] == []


def test_why_of_nothing_is_a_refusal_with_its_reason(tacit_env):
    tacit(tacit_env, "memory", "add", "--scope", "global", "Use pnpm, not npm.")
    rc, out = tacit(tacit_env, "memory", "why", "")
    assert rc == 1 and out["success"] is False and out["error"], out
    rc, out = tacit(tacit_env, "memory", "why", "yarn")
    assert rc == 1 and out["success"] is False and "yarn" in out["error"], out
    rc, out = tacit(tacit_env, "memory", "why", "pnpm")
    assert rc == 0 and out["success"] is True and out["entries"][0]["entry"] == "Use pnpm, not npm."
