"""Host-neutral events: what a host adapter hands the engine.

Design notes: docs/design/core.md#tacitevents
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import Any, ClassVar

TOOL_ARG_CHARS = 2000  # a tool argument longer than this is clipped before the engine sees it


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    session_id: str
    host: str = ""
    cwd: str | None = None
    id: str = ""
    ts: float = field(default_factory=time.time)
    kind: ClassVar[str] = "event"


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionStart(Event):
    source: str = "startup"  # startup | resume | clear | compact
    kind: ClassVar[str] = "session_start"


@dataclass(frozen=True, slots=True, kw_only=True)
class BeforeAgentStart(Event):
    """The host builds the system context: the session snapshot goes in now."""

    prompt: str = ""
    kind: ClassVar[str] = "before_agent_start"


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageEnd(Event):
    role: str = "user"  # user | assistant
    text: str = ""
    kind: ClassVar[str] = "message_end"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall(Event):
    """A tool is about to run; a handler may block it (``ToolCallResult``)."""

    name: str = ""
    args: dict = field(default_factory=dict)
    kind: ClassVar[str] = "tool_call"


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult(Event):
    """A tool call finished."""

    name: str = ""
    ok: bool = True
    args: dict = field(default_factory=dict)
    error: str | None = None
    kind: ClassVar[str] = "tool_result"


@dataclass(frozen=True, slots=True, kw_only=True)
class Command(Event):
    """A slash command or skill the user ran."""

    name: str = ""
    args: str = ""
    kind: ClassVar[str] = "command"


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    name: str = ""
    ok: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnEnd(Event):
    """The agent finished replying to one user message (``tool_calls``: filled in by the engine)."""

    user_text: str = ""
    assistant_text: str = ""
    tool_calls: tuple[ToolCallRecord, ...] | None = None
    kind: ClassVar[str] = "turn_end"


@dataclass(frozen=True, slots=True, kw_only=True)
class BeforeCompact(Event):
    trigger: str = "auto"
    kind: ClassVar[str] = "before_compact"


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionShutdown(Event):
    reason: str = ""
    kind: ClassVar[str] = "session_shutdown"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (SessionStart, BeforeAgentStart, MessageEnd, ToolCall, ToolResult, Command,
                TurnEnd, BeforeCompact, SessionShutdown)
}
EVENT_KINDS = tuple(EVENT_TYPES)


def clip_tool_args(tool_input: Any, *, keep_nested: bool = False, limit: int = TOOL_ARG_CHARS,
                   mark: str = "…") -> dict:
    """A tool's input as ``args``: string keys, strings clipped to ``limit`` (with ``mark``), nested
    values dropped unless ``keep_nested``; anything but a dict gives ``{}``."""
    if not isinstance(tool_input, dict):
        return {}
    out = {}
    for key, value in tool_input.items():
        if isinstance(value, str) and len(value) > limit:
            value = value[:limit] + mark
        elif not keep_nested and isinstance(value, (dict, list)):
            continue
        out[str(key)] = value
    return out


def event_to_dict(event: Event) -> dict:
    data = asdict(event)
    data["kind"] = event.kind
    return data


def event_from_dict(data: dict) -> Event:
    """Rebuild an event from ``{"kind": …, fields…}``, unknown fields dropped; KeyError/TypeError on
    garbage."""
    cls = EVENT_TYPES[data["kind"]]
    known = {f.name for f in fields(cls)}
    values = {k: v for k, v in data.items() if k in known}
    if cls is TurnEnd and values.get("tool_calls") is not None:
        values["tool_calls"] = tuple(
            c if isinstance(c, ToolCallRecord) else ToolCallRecord(**c) for c in values["tool_calls"])
    return cls(**values)


def iso_time(value) -> float | None:
    """Unix seconds from an ISO-8601 string or a number (seconds or milliseconds)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value / 1000.0 if value > 1e11 else float(value)
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
