"""The correction fallback saves like a learner (issue 20).

A service started by a Claude Code hook (``CLAUDECODE=1`` in its
environment), no agent on PATH, "no, use pnpm not npm in this repo": the
phrased rule goes to the project's memory (not USER.md), one history row
with the fallback learner as actor for that session in the job's undo group,
the capture settled, a notice for the session — and undo restores.
Real hook processes, real service, real detached child runner.
"""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

from wait_helpers import wait_for

from tacit.commandline import hook_command
from tacit.projects import project_for
from tacit.stores import history
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore

SID = "5f0e4c1a-9d7e-4b2a-8c3d-00000000f411"
RULE = "Use pnpm, not npm."


def hook(env, event: str, n: int, cwd: Path, **fields) -> bytes:
    body = {"session_id": SID, "transcript_path": "/nonexistent.jsonl", "cwd": str(cwd),
            "hook_event_name": event, "prompt_id": f"p-{n}", **fields}
    proc = subprocess.run(shlex.split(hook_command(sys.executable, "claude-code", event)), input=json.dumps(body).encode(),
                          env=env, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_no_agent_correction_is_saved_to_the_project_as_the_learner(tacit_env, cfg, tmp_path):
    repo = tmp_path / "shop"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = {**tacit_env, "CLAUDECODE": "1", "PATH": os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin"}
    hook(env, "UserPromptSubmit", 1, repo, prompt="install the deps")
    hook(env, "Stop", 2, repo, last_assistant_message="I ran npm install.")
    hook(env, "UserPromptSubmit", 3, repo, prompt="no, use pnpm not npm in this repo")
    hook(env, "Stop", 4, repo, last_assistant_message="Switched to pnpm install.")
    hook(env, "SessionEnd", 5, repo, reason="exit")  # a pending correction is saved at the latest here

    store = MemoryStore(cfg, project_for(str(repo)))
    assert wait_for(lambda: RULE in store.entries("project"), 60, "the rule in project memory")
    assert RULE not in store.entries("user") and RULE not in store.entries("global")

    with Ledger(cfg) as ledger:
        def saved_rows():
            return [c for c in history.changes(ledger) if RULE in c.added()]
        # the runner writes the file, then records its row: wait for the row too (seen under load)
        assert wait_for(saved_rows, 60, "the change's history row")
        saved = saved_rows()
        assert len(saved) == 1, [c.as_dict() for c in saved]
        change = saved[0]
        assert (change.actor.kind, change.actor.name) == ("learner", "correction fallback")
        assert change.actor.session_id == SID and change.actor.host == "claude-code"
        assert change.scope == "project" and change.group.startswith("job:")
        assert "use pnpm not npm" in change.actor.cause
        # a notice for that session names the change and its undo
        def notice_texts():
            with ledger.read() as conn:
                return [r[0] for r in conn.execute("SELECT text FROM notices WHERE session_id = ?", (SID,))]
        wait_for(lambda: any(RULE in t for t in notice_texts()), 60, "the session's notice")
        texts = notice_texts()
        assert any(RULE in t and f"tacit memory undo {change.id}" in t for t in texts), texts

    # the message's importance capture is settled as that entry (no second copy at the next review)
    def settled():
        db = sqlite3.connect(cfg.ledger_path)
        try:
            return db.execute("SELECT status, applied_text FROM memories WHERE source = 'importance' "
                              "AND json_extract(data, '$.text') LIKE '%use pnpm not npm%'").fetchall()
        finally:
            db.close()
    assert wait_for(lambda: settled() and all(s == "applied" for s, _ in settled()), 60, "the capture settled")
    assert {t for _, t in settled()} == {RULE}

    undo = subprocess.run([sys.executable, "-m", "tacit", "memory", "undo", str(change.id), "--json"],
                          env=tacit_env, capture_output=True, text=True, timeout=60)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert RULE not in store.entries("project")
