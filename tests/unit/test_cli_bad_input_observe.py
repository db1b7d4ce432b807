"""``tacit observe`` and ``tacit memory batch`` with bad JSON, as a new user
(or a plugin) would send it: one JSON object with ``--json`` whatever
happens — a malformed or too deeply nested context, a run recorded — and
never an internal error."""

from __future__ import annotations

import json
import subprocess
import sys

DEEP = '{"x": ' + "[" * 100_000


def tacit(env, *args, stdin=None):
    proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=env, capture_output=True,
                          text=True, timeout=60, input=stdin)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_observe_answers_one_object(tacit_env):
    rc, out = tacit(tacit_env, "observe", "--plugin", "mail", "--action", "triage", "--context", '{"company": "x"}')
    assert rc == 0 and out["success"] is True and out["recorded"] is True, out
    rc, out = tacit(tacit_env, "observe", "--plugin", "mail", "--action", "triage", "--context", "{bad")
    assert rc == 2 and out["success"] is False and "not valid JSON" in out["error"], out
    rc, out = tacit(tacit_env, "observe", "--plugin", "mail", "--action", "triage", "--context", "-", stdin=DEEP)
    assert rc == 2 and out["success"] is False and "nested too deeply" in out["error"], out


def test_a_batch_nested_too_deeply_is_refused_and_changes_nothing(tacit_env):
    tacit(tacit_env, "memory", "add", "--scope", "global", "Use pnpm, not npm.")
    rc, out = tacit(tacit_env, "memory", "batch", "-", stdin=DEEP)
    assert rc in (1, 2) and out["success"] is False and "internal" not in out["error"], out
    assert "nested too deeply" in out["error"], out
    assert tacit(tacit_env, "memory", "show", "--scope", "global")[1]["entries"] == ["Use pnpm, not npm."]
