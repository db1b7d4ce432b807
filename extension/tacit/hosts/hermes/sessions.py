"""Hermes Agent's sessions, for the past-session index (``tacit.search``).

Design notes: docs/design/hosts.md#tacithostshermessessions
"""

from __future__ import annotations

import json
import os

from tacit.events import iso_time
from tacit.hosts.spec import home_folder
from tacit.search.source import ASSISTANT, TOOL, USER, Cursor, Entry, Message, SessionSource, excerpt
from tacit.stores import readonly_db

_BATCH = 2000
_ROLES = {"user": USER, "assistant": ASSISTANT, "tool": TOOL}
_SELECT = ("SELECT m.id, m.session_id, m.role, m.content, m.tool_name, m.tool_calls, m.timestamp, s.cwd "
           "FROM messages m LEFT JOIN sessions s ON s.id = m.session_id ")


def files(env: dict):
    path = os.path.join(home_folder(env, "HERMES_HOME", ".hermes"), "state.db")
    return [path] if os.path.isfile(path) else []


def _messages(role, content, tool_name, tool_calls) -> list:
    role = _ROLES.get(role)
    if role is None:
        return []
    out = []
    if isinstance(content, str) and content.strip():
        out.append(Message(role, content if role != TOOL else excerpt(f"{tool_name or 'tool'}: {content}")))
    if role == ASSISTANT and isinstance(tool_calls, str) and tool_calls.strip():
        try:
            calls = json.loads(tool_calls)
        except ValueError:
            calls = []
        for call in calls if isinstance(calls, list) else ():
            fn = call.get("function") if isinstance(call, dict) else None
            if isinstance(fn, dict):
                out.append(Message(TOOL, excerpt(f"{fn.get('name') or '?'}: {excerpt(fn.get('arguments'))}")))
    return out


def _read(path: str, cursor: Cursor):
    with readonly_db.opened(path) as rows_of:
        while True:
            rows = rows_of(_SELECT + "WHERE m.id > ? ORDER BY m.id LIMIT ?", (cursor.offset, _BATCH))
            if not rows:
                return
            for mid, sid, role, content, tool_name, tool_calls, ts, cwd in rows:
                cursor.offset = mid
                messages = _messages(role, content, tool_name, tool_calls)
                if messages:
                    yield Entry(mid, 0, messages, str(sid), cwd, iso_time(ts))


def _fetch(path: str, pos: int, _length: int) -> list:
    try:
        with readonly_db.opened(path) as rows_of:
            rows = rows_of(_SELECT + "WHERE m.id = ?", (pos,))
    except readonly_db.Error:
        return []
    return _messages(*rows[0][2:6]) if rows else []


def _stamp(path: str) -> tuple:
    out = []
    for name in (path, path + "-wal"):
        try:
            info = os.stat(name)
            out += [info.st_ino, info.st_size, info.st_mtime_ns]
        except OSError:
            out += [0, 0, 0]
    return tuple(out)


SOURCE = SessionSource(host="hermes", files=files, read=_read, fetch=_fetch, stamp=_stamp)
