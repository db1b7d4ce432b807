"""What a host's session files give the index, in a shape no host owns.

Design notes: docs/design/search.md#tacitsearchsource
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from tacit.hosts.spec import registry

USER, ASSISTANT, TOOL = "user", "assistant", "tool"
TOOL_EXCERPT = 300  # characters of a tool's input or output that are indexed


@dataclass(slots=True)
class Message:
    role: str  # USER | ASSISTANT | TOOL
    text: str


@dataclass(slots=True)
class Entry:
    """What one position of a session file holds (a JSONL line, a row)."""

    pos: int  # byte offset of the line, or a row id
    length: int  # bytes of the line (0 for a row)
    messages: list = field(default_factory=list)
    session_id: str | None = None  # None: the file's session so far
    cwd: str | None = None
    ts: float | None = None


@dataclass(slots=True)
class Cursor:
    """Where reading a file stopped, and what its earlier lines told."""

    offset: int = 0
    session_id: str | None = None
    cwd: str | None = None
    ts: float | None = None
    bad: int = 0  # lines skipped (not JSON, too long, unknown shape)

    def learn(self, record: dict, id_key: str = "") -> None:
        """Take the session id (``record[id_key]``) and ``record["cwd"]``, those that are set."""
        for attr, key in (("session_id", id_key), ("cwd", "cwd")):
            if key and isinstance(record.get(key), str) and record[key]:
                setattr(self, attr, record[key])


@dataclass(frozen=True, slots=True)
class SessionSource:
    host: str
    files: Callable[[dict], Iterable[str]]  # env -> session file paths
    read: Callable[[str, Cursor], Iterator[Entry]]  # entries after the cursor (updated as read)
    fetch: Callable[[str, int, int], list]  # (path, pos, length) -> [Message] at that position
    stamp: Callable[[str], tuple] | None = None  # what says "changed"; default (inode, size, mtime)


def excerpt(value) -> str:
    """At most ``TOOL_EXCERPT`` characters of a tool's input or output, on one line."""
    if value is None:
        return ""
    if not isinstance(value, str):
        if isinstance(value, (list, tuple)):
            value = " ".join(excerpt(v) for v in value[:8])
        elif isinstance(value, dict):
            text = value.get("text") if isinstance(value.get("text"), str) else None
            value = text if text is not None else " ".join(
                f"{k}={excerpt(v)}" for k, v in list(value.items())[:8])
        else:
            value = str(value)
    value = " ".join(value[: TOOL_EXCERPT * 2].split())
    return value[:TOOL_EXCERPT]


def block_messages(content, role: str, tool_type: str, args_key: str) -> list[Message]:
    """A transcript's message content (a string, or blocks) as messages: text as ``role``'s, tool
    calls (``tool_type`` blocks, arguments under ``args_key``) as excerpts."""
    if isinstance(content, str):
        return [Message(role, content)] if content.strip() else []
    out = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            out.append(Message(role, block["text"] if role != TOOL else excerpt(block["text"])))
        elif block.get("type") == tool_type:
            out.append(Message(TOOL, excerpt(f"{block.get('name') or '?'}: {excerpt(block.get(args_key))}")))
    return out


def host_sources() -> list:
    """The ``SessionSource`` of every host whose spec names one."""
    return [importlib.import_module(host.sessions).SOURCE for host in registry().values() if host.sessions]


def host_names() -> tuple:
    """The hosts ``tacit search`` reads."""
    return tuple(name for name, host in registry().items() if host.sessions)
