"""Load for tests/benchmarks/hooks.py: clients that misbehave, sessions that stream.

- ``Nuisance``: 130 connections that never send a byte and one that sends a
  byte every half second, each re-opened as soon as the service cuts it, so
  that many are open all the time.
- ``stream``: N sessions sending hooks as fast as they can (each hook a real
  hook process, as the host runs it) for a while: hooks/s, p50, p99, max,
  how many took longer than the client's bound, and how many tool calls the
  service recorded against how many were sent (lost / doubled).
- ``old_observations``: a ledger with many observations past their window,
  for the retention prune to remove while hooks stream.
"""

from __future__ import annotations

import json
import select
import shlex
import socket
import sqlite3
import statistics
import subprocess
import sys
import threading
import time


class Nuisance(threading.Thread):
    def __init__(self, path: str, idle: int = 130, every: float = 0.5):
        super().__init__(daemon=True)
        self.path, self.every, self.stop = path, every, threading.Event()
        self.idle = [self._open() for _ in range(idle)]
        self.dribbler, self.sent, self.reopened = self._open(), 0, 0

    def _open(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(400):
            try:
                sock.connect(self.path)
                return sock
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("no service to annoy")

    def run(self) -> None:
        data = b"TACIT1 hook x claude-code PreToolUse dribble\n" + b"{" * 100_000
        while not self.stop.wait(self.every):
            try:
                self.dribbler.send(data[self.sent % len(data):][:1])
                self.sent += 1
            except OSError:
                self.dribbler.close()
                self.dribbler, self.reopened = self._open(), self.reopened + 1
            try:
                readable, _, _ = select.select(self.idle, [], [], 0)
            except (OSError, ValueError):  # closing
                return
            for sock in readable:
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


def _session(argv_of, env, sid: str, cwd: str, until: float, times: list, sent: list) -> None:
    common = {"session_id": sid, "cwd": cwd, "transcript_path": "/nonexistent.jsonl"}
    events = [("SessionStart", {**common, "source": "startup"})]
    turn = 0
    while time.monotonic() < until:
        if not events:
            turn += 1
            events.append(("UserPromptSubmit", {**common, "prompt": f"turn {turn}: refactor module {turn}"}))
            for t in range(4):
                path = f"{cwd}/{sid}/t{turn}-{t}.py"
                events.append(("PreToolUse", {**common, "tool_name": "Edit", "tool_input": {"file_path": path}}))
                events.append(("PostToolUse", {**common, "tool_name": "Edit", "tool_use_id": f"{sid}-{turn}-{t}",
                                               "tool_input": {"file_path": path, "old_string": "a",
                                                              "new_string": "b"}, "tool_response": {}}))
            events.append(("Stop", {**common, "last_assistant_message": f"Refactored {turn}.",
                                    "stop_hook_active": False}))
        event, body = events.pop(0)
        started = time.perf_counter()
        subprocess.run(argv_of(event), input=json.dumps(body).encode(), env=env, capture_output=True)
        times.append((event, time.perf_counter() - started))
        if event == "PostToolUse":
            sent.append(body["tool_input"]["file_path"])


def stream(hook_command, python: str, env: dict, cwd: str, *, sessions: int, seconds: float, bounds: dict,
           tag: str) -> dict:
    commands: dict = {}

    def argv_of(event):
        if event not in commands:
            commands[event] = shlex.split(hook_command(python, "claude-code", event))
        return commands[event]

    times: list = []
    sent: list = []
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=_session, args=(argv_of, env, f"{tag}-{n}", cwd, until, times, sent))
               for n in range(sessions)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    values = sorted(t for _, t in times)
    over = sum(1 for event, t in times if t > bounds.get(event, 3.0))
    return {"hooks": len(times), "times": values, "hooks_per_s": len(times) / elapsed,
            "p50_ms": statistics.median(values) * 1000,
            "p99_ms": values[int(0.99 * (len(values) - 1))] * 1000, "max_ms": values[-1] * 1000,
            "over_bound": over, "tool_calls_sent": len(sent), "sent_files": sent,
            "max_ms_by_event": {e: max(t for n, t in times if n == e) * 1000 for e in {n for n, _ in times}}}


def lost_and_doubled(ledger_path: str, sent: list, cwd: str) -> tuple[int, int]:
    import os
    from collections import Counter

    conn = sqlite3.connect(ledger_path, timeout=30)
    files = Counter(r[0] for r in conn.execute(
        "SELECT json_extract(context, '$.file') FROM observations WHERE action = 'tool_call'"))
    conn.close()
    expected = Counter(os.path.relpath(f, cwd) for f in sent)
    lost = sum(1 for f in expected if files[f] == 0)
    doubled = sum(1 for f, n in files.items() if f in expected and n > expected[f])
    return lost, doubled


def old_observations(ledger_path: str, rows: int, now: float) -> None:
    """``rows`` observations 200 days old (past the 90-day window), and the
    daily retention marked as never run, so the service's first tick prunes."""
    conn = sqlite3.connect(ledger_path, timeout=60)
    batch = [("P01", "run", "{}", f"s{i % 500}", now - 200 * 86400 + i * 0.001) for i in range(10_000)]
    for _ in range(rows // len(batch)):
        conn.executemany("INSERT INTO observations (plugin, action, context, session_id, observed_at) "
                         "VALUES (?, ?, ?, ?, ?)", batch)
    conn.execute("DELETE FROM ledger_meta WHERE key = 'retention.last_run'")
    conn.commit()
    conn.close()


def wait_until_pending_done(ledger_path: str, timeout: float = 300) -> None:
    conn = sqlite3.connect(ledger_path, timeout=30)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if conn.execute("SELECT count(*) FROM events WHERE background = 1").fetchone()[0] == 0:
            break
        time.sleep(0.5)
    conn.close()


def say(text: str) -> None:
    print(text, file=sys.stdout, flush=True)
