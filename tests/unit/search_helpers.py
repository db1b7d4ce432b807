"""Session files as each host writes them, for the search tests and benchmark."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path


def claude_dir(home: Path, cwd: str) -> Path:
    folder = home / ".claude" / "projects" / cwd.replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def claude_user(sid: str, cwd: str, text, ts: str = "2026-12-01T10:00:00Z", **extra) -> dict:
    return {"type": "user", "sessionId": sid, "cwd": cwd, "timestamp": ts, "uuid": f"u-{hash(str(text)) & 0xffff}",
            "message": {"role": "user", "content": text}, **extra}


def claude_assistant(sid: str, cwd: str, blocks: list, mid: str = "msg_1", ts: str = "2026-12-01T10:00:05Z") -> dict:
    return {"type": "assistant", "sessionId": sid, "cwd": cwd, "timestamp": ts,
            "message": {"id": mid, "role": "assistant", "model": "claude", "content": blocks}}


def claude_exchange(sid: str, cwd: str, ask: str, answer: str, n: int = 1, command: str | None = None) -> list:
    lines = [claude_user(sid, cwd, ask, ts=f"2026-12-01T10:{n % 60:02d}:00Z")]
    if command:
        lines.append(claude_assistant(sid, cwd, [{"type": "tool_use", "id": f"t{n}", "name": "Bash",
                                                  "input": {"command": command}}], mid=f"m{n}a"))
        lines.append(claude_user(sid, cwd, [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok"}]))
    lines.append(claude_assistant(sid, cwd, [{"type": "text", "text": answer}], mid=f"m{n}b",
                                  ts=f"2026-12-01T10:{n % 60:02d}:30Z"))
    return lines


def write_jsonl(path: Path, records: list, mode: str = "w") -> Path:
    with open(path, mode, encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")
    return path


def codex_rollout(home: Path, sid: str, cwd: str, exchanges: list) -> Path:
    folder = home / ".codex" / "sessions" / "2026" / "12" / "01"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [{"timestamp": "2026-12-01T09:00:00.000Z", "type": "session_meta",
              "payload": {"id": sid, "timestamp": "2026-12-01T09:00:00.000Z", "cwd": cwd, "originator": "codex_exec"}}]
    for n, (ask, answer) in enumerate(exchanges):
        if n % 2 == 0:  # what 0.171.0 writes
            said = [{"type": "event_msg", "payload": {"type": "item_completed", "item": {
                        "type": "UserMessage", "content": [{"type": "text", "text": ask, "text_elements": []}]}}},
                    {"type": "event_msg", "payload": {"type": "item_completed", "item": {
                        "type": "AgentMessage", "content": [{"type": "Text", "text": answer}]}}}]
        else:  # earlier builds
            said = [{"type": "event_msg", "payload": {"type": "user_message", "message": ask, "images": []}},
                    {"type": "event_msg", "payload": {"type": "agent_message", "message": answer}}]
        for record in said:
            record["timestamp"] = "2026-12-01T09:00:01.000Z"
        lines += [
            {"timestamp": "2026-12-01T09:00:01.000Z", "type": "response_item",
             "payload": {"type": "message", "role": "user",
                         "content": [{"type": "input_text", "text": "<environment_context>x</environment_context>"}]}},
            said[0],
            {"timestamp": "2026-12-01T09:00:02.000Z", "type": "response_item",
             "payload": {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}",
                         "call_id": "c1"}},
            said[1],
            {"timestamp": "2026-12-01T09:00:03.000Z", "type": "response_item",
             "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]}},
        ]
    return write_jsonl(folder / f"rollout-2026-12-01T09-00-00-{sid}.jsonl", lines)


def pi_session(agent_dir: Path, sid: str, cwd: str, exchanges: list) -> Path:
    folder = agent_dir / "sessions" / ("--" + cwd.strip("/").replace("/", "-") + "--")
    folder.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "session", "version": 3, "id": sid, "timestamp": "2026-12-01T08:00:00.000Z", "cwd": cwd}]
    for n, (ask, answer) in enumerate(exchanges):
        lines += [
            {"type": "message", "id": f"a{n}", "parentId": None, "timestamp": "2026-12-01T08:00:01.000Z",
             "message": {"role": "user", "content": [{"type": "text", "text": ask}], "timestamp": 1796112001000}},
            {"type": "message", "id": f"b{n}", "parentId": f"a{n}", "timestamp": "2026-12-01T08:00:02.000Z",
             "message": {"role": "assistant", "content": [{"type": "text", "text": answer}]}},
        ]
    return write_jsonl(folder / f"2026-12-01T08-00-00-000Z_{sid}.jsonl", lines)


def hermes_db(hermes_home: Path, sid: str, cwd: str, exchanges: list) -> Path:
    hermes_home.mkdir(parents=True, exist_ok=True)
    path = hermes_home / "state.db"
    conn = sqlite3.connect(path)
    conn.executescript("""CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL,
        started_at REAL NOT NULL, cwd TEXT);
        CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
        role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
        timestamp REAL NOT NULL)""")
    conn.execute("INSERT OR IGNORE INTO sessions (id, source, started_at, cwd) VALUES (?, 'cli', 1796112000, ?)",
                 (sid, cwd))
    for ask, answer in exchanges:
        conn.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, 1796112001)",
                     (sid, ask))
        conn.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES "
                     "(?, 'assistant', ?, 1796112002)", (sid, answer))
    conn.commit()
    conn.close()
    return path
