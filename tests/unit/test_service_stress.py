"""The service under load and under SIGKILL, through real hook processes.

- 4 sessions × 200 events while the service is SIGKILLed at random moments:
  every hook exits 0, every tool call is observed exactly once, every prompt
  counted once, no memory entry appears twice.
- 8 concurrent sessions × 300 events: nothing lost, no "database is locked".
- 4 sessions × 150 events while a client dribbles a byte every half second
  and 130 idle connections are held open (re-opened whenever the service
  cuts them): nothing lost or doubled, every guarded ``npm install`` stopped.

Every hook is the exact command ``tacit install claude-code`` writes; the
service is the one those hooks start (and restart after each kill).
"""

from __future__ import annotations

import json
import os
import random
import select
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from guard_helpers import LESSON, git_repo, remember

from tacit.commandline import hook_command
from tacit.config import load_config
from tacit.paths import socket_path
from tacit.service import client

pytestmark = pytest.mark.stress
TOOLS_PER_TURN = 4


def session_events(sid: str, n_events: int, cwd: str) -> list[tuple[str, dict, str | None]]:
    """(hook event, payload, file of the tool call or None): SessionStart, then
    turns of a prompt, TOOLS_PER_TURN tool calls and a Stop, then SessionEnd."""
    common = {"session_id": sid, "cwd": cwd, "transcript_path": "/nonexistent.jsonl"}
    out = [("SessionStart", {**common, "source": "startup"}, None)]
    turn = 0
    while len(out) < n_events - 1:
        turn += 1
        out.append(("UserPromptSubmit", {**common, "prompt": f"turn {turn}: refactor module {turn}"}, None))
        for t in range(TOOLS_PER_TURN):
            path = f"{cwd}/{sid}/t{turn}-{t}.py"
            out.append(("PostToolUse", {**common, "tool_name": "Edit", "tool_use_id": f"{sid}-{turn}-{t}",
                                        "tool_input": {"file_path": path, "old_string": "a", "new_string": "b"},
                                        "tool_response": {"ok": True}}, path))
        out.append(("Stop", {**common, "last_assistant_message": f"Refactored module {turn}.",
                             "stop_hook_active": False}, None))
    out = out[:n_events - 1]
    out.append(("SessionEnd", {**common, "reason": "other"}, None))
    return out


def run_session(env, events, failures: list) -> None:
    commands = {}
    for event, payload, _ in events:
        argv = commands.setdefault(event, shlex.split(hook_command(sys.executable, "claude-code", event)))
        proc = subprocess.run(argv, input=json.dumps(payload).encode(), env=env, capture_output=True, timeout=120)
        if proc.returncode != 0 or proc.stderr:
            failures.append((event, proc.returncode, proc.stderr[-300:]))


def service_pid(home: Path) -> int | None:
    try:
        text = (home / "run" / "serve.lock").read_text().strip()
        return int(text) if text else None
    except (OSError, ValueError):
        return None


def settle(env, home: Path, timeout: float = 120.0) -> sqlite3.Connection:
    """Until no event waits for its background handlers (a fresh service runs
    what a killed one left); then the ledger, for reading."""
    deadline = time.monotonic() + timeout
    conn = sqlite3.connect(home / "ledger.db", timeout=10)
    while time.monotonic() < deadline:
        subprocess.run(shlex.split(hook_command(sys.executable, "claude-code", "Notification")), input=b"{}",
                       env=env, capture_output=True, timeout=60)  # any hook (re)starts the service
        if not client.status(str(home))["running"]:
            subprocess.run([sys.executable, "-P", "-m", "tacit", "hook", "claude-code", "SessionEnd"],
                           input=json.dumps({"session_id": "settle", "cwd": "/tmp"}).encode(), env=env,
                           capture_output=True, timeout=60)
        pending = conn.execute("SELECT count(*) FROM events WHERE background = 1").fetchone()[0]
        if pending == 0:
            return conn
        time.sleep(0.5)
    raise AssertionError("background work never settled")


def check_exactly_once(conn, all_events, home: Path, cwd: str) -> None:
    files = Counter(row[0] for row in conn.execute(
        "SELECT json_extract(context, '$.file') FROM observations WHERE action = 'tool_call'"))
    # an observation names a file relative to the project
    expected = [os.path.relpath(f, cwd) for session in all_events for _, _, f in session if f]
    missing = [f for f in expected if files[f] == 0]
    assert not missing, f"{len(missing)} tool calls never observed, e.g. {missing[:3]}"
    doubled = {f: n for f, n in files.items() if n > 1}
    assert not doubled, f"observed more than once: {list(doubled.items())[:5]}"
    assert sum(files.values()) == len(expected)
    for session in all_events:
        sid = session[0][1]["session_id"]
        prompts = sum(1 for e, _, _ in session if e == "UserPromptSubmit")
        row = conn.execute("SELECT state FROM sessions WHERE session_id = ?", (sid,)).fetchone()
        assert row is not None, sid
        assert json.loads(row[0])["user_turns"] == prompts, sid
    for name in ("MEMORY.md", "USER.md"):
        path = home / "memories" / name
        if path.exists():
            entries = [e.strip() for e in path.read_text().split("\n§\n") if e.strip()]
            assert len(entries) == len(set(entries)), f"{name} holds a doubled entry"


@pytest.fixture
def stress_env(tacit_env, tacit_home, tmp_path):
    # no child agents (none may outlive the test); learning on (the observations are the proof)
    (tacit_home / "config.toml").write_text("child_enabled = false\n")
    env = {**tacit_env, "TACIT_SERVICE_IDLE_SECONDS": "120"}
    project = tmp_path / "project"
    project.mkdir()
    return env, str(project)


def test_sigkill_at_random_moments_loses_and_doubles_nothing(stress_env, tacit_home):
    env, cwd = stress_env
    sessions = [session_events(f"chaos-{n}", 200, cwd) for n in range(4)]
    failures: list = []
    threads = [threading.Thread(target=run_session, args=(env, events, failures)) for events in sessions]
    stop = threading.Event()
    kills = []
    rng = random.Random(11)

    def killer():
        while not stop.wait(rng.uniform(0.3, 1.2)):
            pid = service_pid(tacit_home)
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                    kills.append(pid)
                except ProcessLookupError:
                    pass

    chaos = threading.Thread(target=killer)
    for t in threads:
        t.start()
    chaos.start()
    for t in threads:
        t.join(900)
    stop.set()
    chaos.join()
    assert not failures, failures[:5]
    assert len(kills) >= 5, f"only {len(kills)} kills happened"
    conn = settle(env, tacit_home)
    check_exactly_once(conn, sessions, tacit_home, cwd)
    print(f"\n{sum(len(s) for s in sessions)} hook events, {len(kills)} service kills")


def test_eight_concurrent_sessions_lose_nothing_and_never_lock(stress_env, tacit_home):
    env, cwd = stress_env
    sessions = [session_events(f"busy-{n}", 300, cwd) for n in range(8)]
    failures: list = []
    threads = [threading.Thread(target=run_session, args=(env, events, failures)) for events in sessions]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(1200)
    assert not failures, failures[:5]
    conn = settle(env, tacit_home)
    check_exactly_once(conn, sessions, tacit_home, cwd)
    log = (tacit_home / "logs" / "tacit.log").read_text() if (tacit_home / "logs" / "tacit.log").exists() else ""
    assert "database is locked" not in log
    assert "ERROR" not in log, log[-2000:]
    print(f"\n{sum(len(s) for s in sessions)} hook events in {time.monotonic() - started:.1f} s")


class Nuisance(threading.Thread):
    """``idle`` connections that never send a byte and one that sends a byte
    every ``every`` seconds, all re-opened whenever the service cuts them."""

    def __init__(self, path: str, idle: int = 130, every: float = 0.5):
        super().__init__(daemon=True)
        self.path, self.every, self.stop = path, every, threading.Event()
        self.idle = [self._open() for _ in range(idle)]
        self.dribbler, self.sent, self.reopened = self._open(), 0, 0

    def _open(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(200):
            try:
                sock.connect(self.path)
                return sock
            except OSError:  # the service is restarting
                time.sleep(0.05)
        raise AssertionError("the service never came back")

    def run(self) -> None:
        header = b"TACIT1 hook x claude-code PreToolUse dribble\n" + b"{" * 100_000
        while not self.stop.wait(self.every):
            try:
                self.dribbler.send(header[self.sent % len(header):][:1])
                self.sent += 1
            except OSError:
                self.dribbler.close()
                self.dribbler, self.reopened = self._open(), self.reopened + 1
            try:
                readable, _, _ = select.select(self.idle, [], [], 0)
            except (OSError, ValueError):  # closing
                return
            for sock in readable:  # readable with nothing to read: cut by the service
                try:
                    gone = sock.recv(1) == b""
                except OSError:
                    gone = True
                if gone:
                    sock.close()
                    self.idle[self.idle.index(sock)] = self._open()
                    self.reopened += 1

    def close(self) -> None:
        self.stop.set()
        self.join(10)
        for sock in [*self.idle, self.dribbler]:
            sock.close()


def guarded_calls(env, web: str, stop: threading.Event, results: list) -> None:
    """A guarded ``npm install`` every half second: each must be stopped."""
    argv = shlex.split(hook_command(sys.executable, "claude-code", "PreToolUse"))
    n = 0
    while not stop.wait(0.5):
        n += 1
        body = {"session_id": "guarded", "cwd": web, "tool_name": "Bash", "tool_use_id": f"g{n}",
                "tool_input": {"command": "npm install left-pad"}}
        proc = subprocess.run(argv, input=json.dumps(body).encode(), env=env, capture_output=True, timeout=120)
        try:
            results.append(json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"])
        except (ValueError, KeyError):
            results.append(proc.stdout[:200])


def test_a_dribbling_client_and_130_idle_connections_lose_nothing(stress_env, tacit_home, tmp_path):
    env, cwd = stress_env
    web = git_repo(tmp_path / "web")
    remember(load_config(env=env), web, LESSON)
    run_session(env, [("SessionStart", {"session_id": "warm", "cwd": cwd}, None)], [])
    nuisance = Nuisance(socket_path(str(tacit_home)))
    nuisance.start()
    sessions = [session_events(f"slow-{n}", 150, cwd) for n in range(4)]
    failures: list = []
    decisions: list = []
    stop = threading.Event()
    guard = threading.Thread(target=guarded_calls, args=(env, str(web), stop, decisions))
    threads = [threading.Thread(target=run_session, args=(env, events, failures)) for events in sessions]
    started = time.monotonic()
    try:
        guard.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join(1200)
        deadline = time.monotonic() + 20  # a fast run can end before the service's read deadline cut the dribbler
        while nuisance.reopened < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        stop.set()
        guard.join(120)
        status = client.status(str(tacit_home))
    finally:
        stop.set()
        nuisance.close()
    assert not failures, failures[:5]
    assert decisions and all(d == "ask" for d in decisions), decisions
    assert nuisance.sent >= 3 and nuisance.reopened >= 1  # it dribbled, and the service cut it
    assert status["connections_cut"] >= 1
    conn = settle(env, tacit_home)
    check_exactly_once(conn, sessions, tacit_home, cwd)
    print(f"\n{sum(len(s) for s in sessions)} hook events in {time.monotonic() - started:.1f} s with 130 idle "
          f"connections and a dribbler ({nuisance.reopened} re-opened after a cut); "
          f"{len(decisions)} guarded npm installs, all stopped")
