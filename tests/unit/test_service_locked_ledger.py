"""Exactly once when the ledger is locked past the busy timeout (issue 21).

The window: a prompt reaches the service (or the hook client's in-process
fallback) while another writer holds the ledger longer than the busy timeout.
The engine answers from the memory files (``tacit.degraded``) but commits
nothing, and the client, having its answer, never sends the event again: the
turn was lost (a SIGKILL stress run counted 32 of 33 prompts). Now such an
event is spooled in ``run/inbox/`` and applied once the ledger can be written,
exactly once by its event id; the session's state changed in place by the
failed attempt is not reused (it would count the turn twice).
"""

from __future__ import annotations

import json
import sqlite3
import time

from wait_helpers import claude_hook, wait_for

from tacit.service import client


def user_turns(home, session_id: str) -> int | None:
    conn = sqlite3.connect(home / "ledger.db", timeout=30)
    try:
        row = conn.execute("SELECT state FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
    finally:
        conn.close()
    return None if row is None else json.loads(row[0])["user_turns"]


def test_a_prompt_sent_while_the_ledger_is_locked_is_counted_once_it_is_free(tacit_env, tacit_home):
    assert claude_hook(tacit_env, "SessionStart", session_id="starter", source="startup").returncode == 0
    wait_for(lambda: client.status(str(tacit_home)).get("running"), what="the service")
    claude_hook(tacit_env, "UserPromptSubmit", session_id="locked", prompt="first turn: add a README")
    assert wait_for(lambda: user_turns(tacit_home, "locked") == 1, what="the first turn")

    holder = sqlite3.connect(tacit_home / "ledger.db", timeout=30, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer, holding the ledger past the busy timeout
    try:
        started = time.monotonic()
        proc = claude_hook(tacit_env, "UserPromptSubmit", session_id="locked", prompt="second turn: add tests")
        assert proc.returncode == 0 and time.monotonic() - started < 30
        assert list((tacit_home / "run" / "inbox").iterdir()), "the unapplied prompt is spooled"
        assert user_turns(tacit_home, "locked") == 1  # nothing committed while it is held
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert wait_for(lambda: user_turns(tacit_home, "locked") == 2, timeout=30, what="the spooled turn")
    wait_for(lambda: not [p for p in (tacit_home / "run" / "inbox").iterdir() if not p.name.endswith(".tmp")],
             what="the inbox to empty")
    claude_hook(tacit_env, "UserPromptSubmit", session_id="locked", prompt="third turn: ship it")
    assert wait_for(lambda: user_turns(tacit_home, "locked") == 3, what="the third turn")
    time.sleep(1.0)
    assert user_turns(tacit_home, "locked") == 3  # each turn once: none lost, none counted twice
