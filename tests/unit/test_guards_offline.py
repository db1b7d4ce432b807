"""A guard is never skipped because the ledger cannot be used. On a full disk (seen with a 2 MB tmpfs:
"ledger opening: disk I/O error") every PreToolUse answered nothing, so `make deploy` ran although the
user had added a guard against it. Now the call is checked against the guards kept in files: the ones
added by hand (guards.json), and those the project's memory and instruction files state.

For real: the CLI adds the guards, the installed hook command asks the service (and, when the service
cannot start either, runs in-process); the ledger is made unopenable by a folder in its place."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from tacit.service import client
from wait_helpers import claude_hook


def tacit(env, cwd, *args) -> dict:
    out = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=env, cwd=cwd, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_every_kind_of_guard_is_checked_when_the_ledger_cannot_be_opened(tacit_env, tacit_home, tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("# Rules\n- Never run `terraform apply` locally.\n")
    tacit(tacit_env, repo, "guard", "add", "make deploy", "--because", "deploys go through CI", "--scope", "global")
    tacit(tacit_env, repo, "memory", "add", "--scope", "project", "Never run npm here; we use pnpm.")
    sources = {g["source"] for g in tacit(tacit_env, repo, "guard", "list")["guards"]}
    assert sources == {"added with tacit guard add", "project memory", "AGENTS.md:2"}
    client.stop(str(tacit_home), wait=10)
    for path in tacit_home.glob("ledger.db*"):
        path.unlink()
    (tacit_home / "ledger.db").mkdir()  # no ledger can be opened here

    def decision(command: str):
        out = claude_hook(tacit_env, "PreToolUse", session_id="s1", cwd=str(repo), tool_name="Bash",
                          tool_input={"command": command})
        assert out.returncode == 0
        return json.loads(out.stdout)["hookSpecificOutput"] if out.stdout.strip() else None

    for command, rule in (("make deploy", "deploys go through CI"), ("npm install left-pad", "we use pnpm"),
                          ("terraform apply", "AGENTS.md:2")):
        got = decision(command)
        assert got is not None, command
        assert got["permissionDecision"] == "ask" and rule in got["permissionDecisionReason"]
        assert "ledger is unavailable" in got["permissionDecisionReason"]
    assert decision("pnpm add left-pad") is None  # what no guard states runs
    # a guard removed by hand is not brought back by its saved copy
    shutil.rmtree(tacit_home / "ledger.db")
    [guard] = [g for g in tacit(tacit_env, repo, "guard", "list")["guards"] if g["origin"] == "user"]
    tacit(tacit_env, repo, "guard", "remove", str(guard["id"]))
    client.stop(str(tacit_home), wait=10)
    for path in tacit_home.glob("ledger.db*"):
        path.unlink()
    (tacit_home / "ledger.db").mkdir()
    assert decision("make deploy") is None
