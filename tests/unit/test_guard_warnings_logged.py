"""A guard check that could not bring the guards up to date warned through Python's logging: on
stderr (which Claude Code and Codex do not show) or Hermes's log, never in tacit.log, and
``tacit doctor`` could not count it. Now it is in tacit.log and doctor's handler warnings.

For real: the installed hook command checks a call in a project whose memory file is a folder."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

from tacit.service import client
from wait_helpers import claude_hook


def tacit(env, cwd, *args) -> dict:
    out = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=env, cwd=cwd, capture_output=True,
                         text=True, timeout=60)
    return json.loads(out.stdout)


def test_a_guard_sync_failure_is_in_tacits_log_and_doctor_counts_it(tacit_env, tacit_home, tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    tacit(tacit_env, repo, "guard", "add", "make deploy", "--because", "deploys go through CI", "--scope", "global")
    (repo / "AGENTS.md").write_text("# Rules\n- Never run `terraform apply` locally.\n")
    client.stop(str(tacit_home), wait=10)
    with sqlite3.connect(tacit_home / "ledger.db") as conn:  # the instruction file's guard cannot be written
        conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON guards WHEN NEW.memory_scope LIKE 'file:%' "
                     "BEGIN SELECT RAISE(ABORT, 'GUARD-WRITE-REFUSED'); END")
    out = claude_hook(tacit_env, "PreToolUse", session_id="s1", cwd=str(repo), tool_name="Bash",
                      tool_input={"command": "make deploy"})
    assert out.returncode == 0 and b"deploys go through CI" in out.stdout  # the guards kept still check
    logged = (tacit_home / "logs" / "tacit.log").read_text(encoding="utf-8")
    assert "guards: sync failed, checking the guards already kept" in logged and "GUARD-WRITE-REFUSED" in logged, logged
    doctor = subprocess.run([sys.executable, "-m", "tacit", "doctor", "--json"], env=tacit_env, cwd=repo,
                            capture_output=True, text=True, timeout=60)
    warnings = json.loads(doctor.stdout)["warnings"]
    assert any(w.startswith("handler guards.check failed ") and "GUARD-WRITE-REFUSED" in w
               for w in warnings), warnings
