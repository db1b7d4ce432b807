"""No client can stall the service: a dribbling client and 130 idle
connections cost the real hooks nothing (each is still answered by the
service, a guarded ``npm install`` still stopped); the dribbler is cut at its
deadline; a report is acknowledged once on disk and applied exactly once,
even by the next service when this one was killed first."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

from guard_helpers import LESSON, git_repo, remember

from tacit.paths import socket_path
from tacit.service import client
from tacit.service.connections import READ_SECONDS
from wait_helpers import claude_hook, wait_for


def hook(env, event, **fields) -> subprocess.CompletedProcess:
    return claude_hook(env, event, session_id=fields.pop("session_id", "conc-1"), **fields)


def served(home) -> int:
    return client.status(str(home)).get("events", -1)


class Dribbler(threading.Thread):
    """A same-user client that sends one byte of a hook every ``every`` seconds."""

    def __init__(self, path: str, every: float = 0.3):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.every, self.cut_after, self.started = every, None, time.monotonic()
        self.stop = threading.Event()

    def run(self):
        data = b"TACIT1 hook x claude-code PreToolUse slow-1\n" + b"{" * 10_000
        for byte in data:
            if self.stop.wait(self.every):
                return
            try:
                self.sock.send(bytes([byte]))
            except OSError:
                self.cut_after = time.monotonic() - self.started
                return


def test_a_dribbling_client_and_130_idle_connections_stall_no_hook(tacit_env, tacit_home, tmp_path, cfg):
    web = git_repo(tmp_path / "web")
    remember(cfg, web, LESSON)
    assert b"additionalContext" in hook(tacit_env, "SessionStart", cwd=str(web)).stdout
    wait_for(lambda: client.status(str(tacit_home))["running"], what="the service")
    path = socket_path(str(tacit_home))
    idle = []
    for _ in range(130):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        idle.append(sock)
    dribbler = Dribbler(path)
    dribbler.start()
    try:
        time.sleep(0.5)
        common = {"cwd": str(web), "session_id": "conc-1"}
        calls = [
            ("UserPromptSubmit", {"prompt": "add left-pad to the web app"}),
            ("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "npm install left-pad"}}),
            ("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "pnpm add left-pad"}}),
            ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": "pnpm add left-pad"},
                             "tool_response": {"stdout": "ok"}}),
            ("Stop", {"last_assistant_message": "Added left-pad with pnpm.", "stop_hook_active": False}),
            ("SessionEnd", {"reason": "other"}),
        ]
        for event, fields in calls:
            before = served(tacit_home)
            out = hook(tacit_env, event, **common, **fields)
            assert out.returncode == 0 and not out.stderr
            # answered by the service, not by the in-process fallback after the client's bound
            assert served(tacit_home) == before + 1, event
            if fields.get("tool_input", {}).get("command") == "npm install left-pad":
                decision = json.loads(out.stdout)["hookSpecificOutput"]
                assert decision["permissionDecision"] == "ask" and LESSON in decision["permissionDecisionReason"]
            elif event == "PreToolUse":
                assert out.stdout == b""
        # the dribbler is cut at its deadline, however steadily it sends
        dribbler.join(READ_SECONDS + 10)
        assert dribbler.cut_after is not None and dribbler.cut_after < READ_SECONDS + 3
        status = client.status(str(tacit_home))
        assert status["connections_cut"] >= 1
    finally:
        dribbler.stop.set()
        for sock in idle:
            sock.close()


def _spool(home: Path, event_id: str, event: str, payload: dict) -> None:
    inbox = home / "run" / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / f"{time.time_ns():020d}-00000000").write_bytes(
        f"claude-code {event} {event_id}\n".encode() + json.dumps(payload).encode())


def test_a_report_left_by_a_killed_service_is_applied_once_by_the_next(tacit_env, tacit_home, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    common = {"session_id": "spool-1", "cwd": str(project)}
    hook(tacit_env, "SessionStart", **common)
    pid = wait_for(lambda: client.status(str(tacit_home)).get("pid"), what="the service")
    hook(tacit_env, "UserPromptSubmit", prompt="edit the parser", **common)
    os.kill(pid, signal.SIGKILL)
    # what the killed service had acknowledged but not applied yet, twice (a retried hook)
    edit = {**common, "tool_name": "Edit", "tool_input": {"file_path": f"{project}/parser.py", "old_string": "a",
                                                           "new_string": "b"}, "tool_response": {}}
    _spool(tacit_home, "ev-spooled", "PostToolUse", edit)
    _spool(tacit_home, "ev-spooled", "PostToolUse", edit)
    hook(tacit_env, "Stop", last_assistant_message="Edited the parser.", stop_hook_active=False, **common)
    conn = sqlite3.connect(tacit_home / "ledger.db", timeout=10)
    wait_for(lambda: not list((tacit_home / "run" / "inbox").iterdir()), what="the inbox to drain")
    wait_for(lambda: conn.execute("SELECT count(*) FROM events WHERE background = 1").fetchone()[0] == 0,
             what="the learners")
    assert conn.execute("SELECT count(*) FROM events WHERE id = 'ev-spooled:0'").fetchone()[0] == 1
    observed = conn.execute("SELECT count(*) FROM observations WHERE action = 'tool_call' AND "
                            "json_extract(context, '$.file') = 'parser.py'").fetchone()[0]
    assert observed == 1
    state = json.loads(conn.execute("SELECT state FROM sessions WHERE session_id = 'spool-1'").fetchone()[0])
    assert state["user_turns"] == 1


def test_a_report_is_acknowledged_before_it_is_applied_and_then_applied(tacit_env, tacit_home, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    common = {"session_id": "ack-1", "cwd": str(project)}
    hook(tacit_env, "SessionStart", **common)
    wait_for(lambda: client.status(str(tacit_home))["running"], what="the service")
    hook(tacit_env, "UserPromptSubmit", prompt="run the tests", **common)
    for n in range(5):
        out = hook(tacit_env, "PostToolUse", tool_name="Bash", tool_input={"command": f"pytest -k t{n}"},
                   tool_response={"stdout": "ok"}, **common)
        assert out.returncode == 0 and out.stdout == b""
    hook(tacit_env, "Stop", last_assistant_message="Ran the tests.", stop_hook_active=False, **common)
    # the next prompt waits for the session's reports: the turn that ended had its 5 calls
    hook(tacit_env, "UserPromptSubmit", prompt="thanks", **common)
    conn = sqlite3.connect(tacit_home / "ledger.db", timeout=10)
    state = json.loads(conn.execute("SELECT state FROM sessions WHERE session_id = 'ack-1'").fetchone()[0])
    assert state["user_turns"] == 2
    assert not list((tacit_home / "run" / "inbox").iterdir())
    kinds = [r[0] for r in conn.execute("SELECT kind FROM events WHERE session_id = 'ack-1' ORDER BY seq")]
    assert kinds.count("tool_result") == 5 and kinds.index("turn_end") > max(
        i for i, k in enumerate(kinds) if k == "tool_result")


def test_a_notice_a_deferred_report_took_is_shown_at_the_next_prompt_once(tacit_env, tacit_home, tmp_path, cfg):
    from tacit.stores import notices
    from tacit.stores.ledger import Ledger

    project = tmp_path / "proj"
    project.mkdir()
    common = {"session_id": "notice-1", "cwd": str(project)}
    hook(tacit_env, "SessionStart", **common)
    wait_for(lambda: client.status(str(tacit_home))["running"], what="the service")
    hook(tacit_env, "UserPromptSubmit", prompt="tidy the README", **common)
    with Ledger(cfg) as led, led.write() as conn:
        notices.add(conn, "tacit saved to project memory: the README uses sentence case", session_id="notice-1")
    stop = hook(tacit_env, "Stop", last_assistant_message="Tidied.", stop_hook_active=False, **common)
    assert stop.stdout == b""  # acknowledged at once: the notice it took waits for the next prompt
    first = hook(tacit_env, "UserPromptSubmit", prompt="thanks", **common)
    assert "sentence case" in json.loads(first.stdout)["systemMessage"]
    again = hook(tacit_env, "UserPromptSubmit", prompt="and the changelog", **common)
    assert b"sentence case" not in again.stdout
