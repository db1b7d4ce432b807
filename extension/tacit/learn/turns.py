"""A host's session file read back as the events its hooks would have sent (``tacit learn``):
the turn assembly the pi and Codex readers share. A user message opens a turn, the agent's
tool calls wait for their results, its last text is the turn's reply, and the turn closes at
the next user message, the host's end-of-turn mark or the end of the file."""

from __future__ import annotations

from tacit.events import BeforeCompact, MessageEnd, SessionShutdown, SessionStart, ToolResult, TurnEnd, \
    clip_tool_args


class Turns:
    """The events of one session, in the order its hooks fire."""

    def __init__(self, session_id: str, cwd: str | None = None):
        self.sid, self.cwd, self.ts = session_id, cwd, None
        self.open = False
        self.calls: dict[str, tuple[str, dict]] = {}  # call id -> (tool, args), waiting for a result
        self.reply = ""

    def event(self, cls, **fields):
        fields.setdefault("cwd", self.cwd)
        if self.ts is not None:
            fields.setdefault("ts", self.ts)
        return cls(session_id=self.sid, **fields)

    def start(self) -> list:
        return [self.event(SessionStart, source="startup")]

    def user(self, text: str) -> list:
        events = self.close()
        self.open = True
        return events + [self.event(MessageEnd, role="user", text=text)]

    def say(self, text: str) -> None:
        if self.open and text.strip():
            self.reply = text.strip()

    def call(self, call_id: str, name: str, args) -> None:
        if self.open:  # the learners read the command or the path, never a whole file a tool wrote
            self.calls[call_id] = (name or "?", clip_tool_args(args if isinstance(args, dict) else {}))

    def result(self, call_id: str, ok: bool, error: str | None = None) -> list:
        found = self.calls.pop(call_id, None)
        if found is None or not self.open:
            return []
        return [self.event(ToolResult, name=found[0], args=found[1], ok=ok, error=None if ok else error)]

    def close(self) -> list:
        if not self.open:
            return []
        events = [self.event(ToolResult, name=name, args=args, ok=True) for name, args in self.calls.values()]
        if self.reply:
            events.append(self.event(MessageEnd, role="assistant", text=self.reply))
        events.append(self.event(TurnEnd, assistant_text=self.reply))
        self.open, self.calls, self.reply = False, {}, ""
        return events

    def compact(self) -> list:
        return self.close() + [self.event(BeforeCompact, trigger="auto")]

    def end(self) -> list:
        return self.close() + [self.event(SessionShutdown, reason="end of transcript")]


def block_text(content, kinds=("text",)) -> str:
    """The text of a message's content: a string, or blocks of ``kinds``."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(b["text"] for b in content if isinstance(b, dict) and b.get("type") in kinds
                     and isinstance(b.get("text"), str)).strip()
