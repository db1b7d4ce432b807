"""Host-neutral events and the effects handlers return.

Design decisions
- **Plain objects.** A host adapter builds one of these from its own payload
  and hands it to the engine; handlers read fields, never a host's raw dict.
  They are hand-rolled value objects rather than dataclasses because
  ``dataclasses`` imports ``inspect`` — tens of milliseconds on every hook
  process, whose whole budget is about one interpreter start-up.
- **Names from the design this project started from** (pi's extension API):
  ``session_start``, ``before_agent_start``, ``message_end``, ``tool_call``,
  ``command``, ``turn_end``, ``before_compact``, ``session_shutdown``.
- **A turn is one user message and the agent's whole reply to it**, whatever
  the host calls a turn. ``TurnEnd`` carries the tool calls of that turn only
  (collected from that turn's ``tool_call`` events by the engine), so nothing
  ever re-scans the session's history to count them.
- **Effects are data, not actions.** Handlers return ``InjectContext``,
  ``Notify`` or ``RunChild``; the host adapter decides how to realise them
  (Claude Code prints ``additionalContext``; Hermes returns ``{"context": …}``;
  pi returns a chained ``systemPrompt``), and the engine starts children.
"""

from __future__ import annotations

import time

EVENT_KINDS = (
    "session_start",
    "before_agent_start",
    "message_end",
    "tool_call",
    "command",
    "turn_end",
    "before_compact",
    "session_shutdown",
)


class _Plain:
    """A small immutable value object: fields and defaults in ``_fields``."""

    _fields: tuple = ()  # ((name, default-or-factory), ...)
    __slots__ = ()

    def __init__(self, **values):
        for name, default in self._all_fields():
            if name in values:
                value = values.pop(name)
            elif callable(default):
                value = default()
            else:
                value = default
            object.__setattr__(self, name, value)
        if values:
            raise TypeError(f"{type(self).__name__}: unknown field(s) {sorted(values)}")

    @classmethod
    def _all_fields(cls):
        seen, out = set(), []
        for klass in reversed(cls.__mro__):
            for name, default in klass.__dict__.get("_fields", ()):
                if name not in seen:
                    seen.add(name)
                    out.append((name, default))
        return out

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def replace(self, **changes):
        values = {name: getattr(self, name) for name, _ in self._all_fields()}
        values.update(changes)
        return type(self)(**values)

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name, _ in self._all_fields()}

    def __eq__(self, other):
        return type(self) is type(other) and self.as_dict() == other.as_dict()

    def __hash__(self):
        return hash((type(self).__name__, tuple(repr(v) for v in self.as_dict().values())))

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items())
        return f"{type(self).__name__}({inner})"


def _no_session():
    raise TypeError("session_id is required")


class Event(_Plain):
    """Base of all events. ``session_id`` is required; ``ts`` defaults to now."""

    __slots__ = ("session_id", "ts", "cwd")
    _fields = (("session_id", _no_session), ("ts", time.time), ("cwd", None))
    kind = "event"


class SessionStart(Event):
    __slots__ = ("source",)
    _fields = (("source", "startup"),)  # startup | resume | clear | compact
    kind = "session_start"


class BeforeAgentStart(Event):
    """The host is about to build the system context: inject text now."""

    __slots__ = ("prompt",)
    _fields = (("prompt", ""),)
    kind = "before_agent_start"


class MessageEnd(Event):
    """A complete message. role is "user" or "assistant"."""

    __slots__ = ("role", "text")
    _fields = (("role", "user"), ("text", ""))
    kind = "message_end"


class ToolCall(Event):
    """One tool call finished."""

    __slots__ = ("name", "ok", "args", "error")
    _fields = (("name", ""), ("ok", True), ("args", dict), ("error", None))
    kind = "tool_call"


TOOL_ARG_CHARS = 2000  # a tool argument longer than this is clipped before the engine sees it


def clip_tool_args(tool_input, *, keep_nested: bool = False) -> dict:
    """A tool's input as ``ToolCall.args``: string keys, long strings clipped
    to ``TOOL_ARG_CHARS`` (+ "…") — the journal and the learners need the
    command or the path, not the 2 MB file a tool wrote — and nested values
    (MultiEdit edits, todo lists) dropped unless ``keep_nested``. Anything
    but a dict gives ``{}``. Every host adapter builds ``args`` with this."""
    if not isinstance(tool_input, dict):
        return {}
    out = {}
    for key, value in tool_input.items():
        if isinstance(value, str) and len(value) > TOOL_ARG_CHARS:
            value = value[:TOOL_ARG_CHARS] + "…"
        elif not keep_nested and isinstance(value, (dict, list)):
            continue
        out[str(key)] = value
    return out


class Command(Event):
    """A slash command or skill the user ran."""

    __slots__ = ("name", "args")
    _fields = (("name", ""), ("args", ""))
    kind = "command"


class ToolCallRecord(_Plain):
    __slots__ = ("name", "ok")
    _fields = (("name", ""), ("ok", True))


class TurnEnd(Event):
    """The agent finished replying to one user message. ``tool_calls`` are the
    calls of this turn only; the engine fills them from the turn's
    ``tool_call`` events when the host does not supply them."""

    __slots__ = ("user_text", "assistant_text", "tool_calls")
    _fields = (("user_text", ""), ("assistant_text", ""), ("tool_calls", None))
    kind = "turn_end"


class BeforeCompact(Event):
    __slots__ = ("trigger",)
    _fields = (("trigger", "auto"),)
    kind = "before_compact"


class SessionShutdown(Event):
    __slots__ = ("reason",)
    _fields = (("reason", ""),)
    kind = "session_shutdown"


# ---------------------------------------------------------------------------
# Effects
# ---------------------------------------------------------------------------


class Effect(_Plain):
    __slots__ = ("source",)
    _fields = (("source", ""),)  # the handler that produced it


class InjectContext(Effect):
    """Text for the model. ``scope="session"``: system context at session start
    (frozen snapshot, skill index); ``scope="prompt"``: next to the current user
    message (e.g. relevant fix patterns). Lower ``priority`` is kept first when
    the host caps injected text."""

    __slots__ = ("text", "scope", "priority")
    _fields = (("text", ""), ("scope", "session"), ("priority", 50))


class Notify(Effect):
    """A short notice for the user (the host may print it or show a toast)."""

    __slots__ = ("text",)
    _fields = (("text", ""),)


class RunChild(Effect):
    """Start a child agent. ``kind`` picks the prompt template and timeout:
    consolidate | correction | review | skill | flush."""

    __slots__ = ("kind", "variables")
    _fields = (("kind", ""), ("variables", dict))


EVENT_TYPES = {
    cls.kind: cls
    for cls in (SessionStart, BeforeAgentStart, MessageEnd, ToolCall, Command, TurnEnd,
                BeforeCompact, SessionShutdown)
}


def event_from_dict(data: dict) -> Event:
    """Rebuild an event from ``{"kind": …, fields…}`` (journal, bridge, learn)."""
    data = dict(data)
    cls = EVENT_TYPES[data.pop("kind")]
    if cls is TurnEnd and data.get("tool_calls") is not None:
        data["tool_calls"] = tuple(
            c if isinstance(c, ToolCallRecord) else ToolCallRecord(**c) for c in data["tool_calls"]
        )
    return cls(**data)


def event_to_dict(event: Event) -> dict:
    data = event.as_dict()
    if data.get("tool_calls") is not None:
        data["tool_calls"] = [c.as_dict() for c in data["tool_calls"]]
    data["kind"] = event.kind
    return data
