"""SessionState: the engine's own small memory of one session.

Design notes: docs/design/core.md#tacitsession
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, fields
from typing import Any

from tacit.processes import alive

RECENT_MESSAGES = 12  # kept in memory for child prompts
TEXT_CHARS = 4000  # per stored text (pending correction, turn text)
CONTEXT_CHARS = 1000  # the agent's previous reply, kept for the detectors


def _clip(text: Any) -> str:
    return text[:TEXT_CHARS] if isinstance(text, str) else ""


def stale_after(cfg, kind: str) -> float:
    """Seconds after which a child's running mark no longer counts: its timeout plus two minutes."""
    return int(cfg.settings.get(f"child_timeout_{kind}") or cfg.child_timeout_seconds) + 120


@dataclass
class Turn:
    open: bool = False
    user_text: str = ""
    tool_calls: list = field(default_factory=list)  # [[name, ok], ...]


@dataclass
class SessionState:
    session_id: str
    host: str = ""
    cwd: str = ""
    created: float = field(default_factory=time.time)
    user_turns: int = 0
    turn: Turn = field(default_factory=Turn)
    turns_since_review: int = 0
    tool_calls_since_review: int = 0
    pending_correction: dict | None = None
    last_correction_save_turn: int | None = None
    skill_trigger_fired: bool = False
    last_assistant_text: str = ""
    running: dict = field(default_factory=dict)  # child kind -> {"job_id", "started", "pid"}
    marks: dict = field(default_factory=dict)  # per-handler flags, "handler.key"
    recent: list = field(default_factory=list)  # not persisted

    # turn accounting (the engine calls these, not handlers)
    def begin_turn(self, user_text: str) -> None:
        self.user_turns += 1
        self.turn = Turn(open=True, user_text=_clip(user_text))
        self.remember("user", user_text)

    def add_tool_call(self, name: str, ok: bool) -> None:
        self.turn.tool_calls.append([str(name), bool(ok)])
        self.tool_calls_since_review += 1

    def end_turn(self, assistant_text: str) -> None:
        self.turns_since_review += 1
        self.turn.open = False
        if assistant_text:
            self.last_assistant_text = assistant_text[-CONTEXT_CHARS:]

    def remember(self, role: str, text: str) -> None:
        if not text:
            return
        entry = {"role": role, "text": _clip(text)}
        if self.recent and self.recent[-1] == entry:
            return  # the same message reported twice (message_end, then turn_end)
        self.recent.append(entry)
        del self.recent[:-RECENT_MESSAGES]

    def previous_assistant(self) -> str:
        """The agent's reply before the current user message."""
        return next((m["text"] for m in reversed(self.recent[:-1]) if m["role"] == "assistant"),
                    self.last_assistant_text)

    def is_running(self, kind: str, stale: float) -> bool:
        """True while a child of this kind runs (a crashed runner's mark expires)."""
        job = self.running.get(kind)
        if not isinstance(job, dict) or time.time() - float(job.get("started") or 0) > stale:
            return False
        pid = job.get("pid")
        return not pid or alive(pid)  # no pid noted yet: running until the mark goes stale

    def mark_running(self, kind: str, job_id: str, pid: int | None = None) -> None:
        self.running[kind] = {"job_id": job_id, "started": time.time(), "pid": pid}

    def clear_running(self, kind: str, job_id: str) -> None:
        job = self.running.get(kind)
        if job and job.get("job_id") == job_id:
            del self.running[kind]

    def to_json(self) -> str:
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("recent", "turn")}
        data["turn"] = {"open": self.turn.open, "user_text": _clip(self.turn.user_text),
                        "tool_calls": self.turn.tool_calls[-500:]}
        data["last_assistant_text"] = self.last_assistant_text[-CONTEXT_CHARS:]
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, session_id: str, text: str | None) -> "SessionState":
        state = cls(session_id=session_id)
        try:
            data = json.loads(text) if text else {}
        except ValueError:
            data = {}
        if not isinstance(data, dict):
            return state
        for f in fields(cls):
            if f.name in ("session_id", "recent", "turn") or f.name not in data:
                continue
            value, default = data[f.name], getattr(state, f.name)
            if _same_kind(value, default, f.name):
                setattr(state, f.name, float(value) if isinstance(default, float) else value)
        turn = data.get("turn")
        if isinstance(turn, dict):
            calls = turn.get("tool_calls")
            state.turn = Turn(
                open=turn.get("open") is True,
                user_text=_clip(turn.get("user_text")),
                tool_calls=[[str(c[0]), bool(c[1])] for c in calls
                            if isinstance(c, list) and len(c) == 2] if isinstance(calls, list) else [])
        return state


_OPTIONAL = {"pending_correction": dict, "last_correction_save_turn": int}


def _same_kind(value: Any, default: Any, name: str) -> bool:
    if name in _OPTIONAL:
        return value is None or (isinstance(value, _OPTIONAL[name]) and not isinstance(value, bool))
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, (int, float)):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, type(default))
