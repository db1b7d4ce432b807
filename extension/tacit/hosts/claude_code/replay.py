"""Claude Code transcripts as the events its hooks would have sent (``tacit learn``).

Design notes: docs/design/hosts.md#tacithostsclaude_codereplay
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from tacit.events import BeforeCompact, Command, SessionShutdown, SessionStart, iso_time
from tacit.hosts.claude_code.sessions import prompt_text, recorded_command, tool_result_blocks
from tacit.learn.replay import FileStats, json_objects
from tacit.learn.turns import Turns

_CLAUDE_TYPES = {"user", "assistant", "summary", "system", "file-history-snapshot", "queue-operation",
                 "attachment", "progress"}


def detect(data: dict) -> bool:
    """Does this JSON line look like a Claude Code transcript's?"""
    return data.get("type") in _CLAUDE_TYPES and (
        "message" in data or "sessionId" in data or data.get("type") == "summary")


class _ClaudeTurns(Turns):
    """Turn assembly for one transcript: the reply is the last message's text blocks, a call written
    twice counts once, and a slash command opens the turn its output answers."""

    def __init__(self, session_id: str):
        super().__init__(session_id)
        self.seen_tools: set[str] = set()
        self.reply_by_message: dict[str, list[str]] = {}
        self.last_text_message: str | None = None
        self.command_text: str | None = None

    def open_turn(self, text: str) -> list:
        self.command_text = None
        return self.user(text)

    def close(self) -> list:
        if self.last_text_message is not None:
            self.reply = "\n".join(self.reply_by_message.get(self.last_text_message, [])).strip()
        self.reply_by_message, self.last_text_message = {}, None
        return super().close()

    def assistant(self, message: dict) -> list:
        events: list = []
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            return events
        if not self.open:
            if self.command_text is None:
                return events  # output outside any turn (a resumed file's head)
            events += self.open_turn(self.command_text)
        mid = message.get("id") if isinstance(message.get("id"), str) else f"anon-{id(message)}"
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str) and block["text"].strip():
                self.reply_by_message.setdefault(mid, []).append(block["text"])
                self.last_text_message = mid
            elif block.get("type") == "tool_use":
                tool_id = block.get("id") or f"{mid}:{len(self.seen_tools)}"
                if tool_id in self.seen_tools:
                    continue  # the same call written again: count it once
                self.seen_tools.add(tool_id)
                self.call(tool_id, str(block.get("name") or "?"), block.get("input"))
        return events

    def tool_results(self, content: list) -> list:
        events = []
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            error = None
            if block.get("is_error"):
                body = block.get("content")
                if isinstance(body, list):
                    body = " ".join(b.get("text", "") for b in body if isinstance(b, dict))
                error = str(body or "error")[:300]
            events += self.result(block.get("tool_use_id"), not block.get("is_error"), error)
        return events


def read(path: Path, stats: FileStats) -> Iterator:
    """Events from one Claude Code transcript, as the hooks would have sent them."""
    turns: _ClaudeTurns | None = None
    for lineno, data in json_objects(path, stats):
        kind = data.get("type")
        if turns is None:
            if kind not in ("user", "assistant", "system"):
                continue  # summaries, snapshots, queue operations before the session
            sid = data.get("sessionId") if isinstance(data.get("sessionId"), str) else path.stem
            turns = _ClaudeTurns(sid or path.stem)
            yield turns.event(SessionStart, source="startup")
        if isinstance(data.get("cwd"), str):
            turns.cwd = data["cwd"]
        ts = iso_time(data.get("timestamp"))
        if ts is not None:
            turns.ts = ts
        if data.get("isSidechain"):
            continue  # a sub-agent's conversation, not the user's
        if kind == "system":
            if data.get("subtype") == "compact_boundary":
                yield from turns.close()
                yield turns.event(BeforeCompact, trigger=str((data.get("compactMetadata") or {}).get(
                    "trigger", "auto")) if isinstance(data.get("compactMetadata"), dict) else "auto")
            continue
        message = data.get("message")
        if kind not in ("user", "assistant"):
            continue
        if not isinstance(message, dict):
            stats.bad_line(lineno, f"{kind} line without a message object")
            continue
        if kind == "assistant":
            yield from turns.assistant(message)
            continue
        content = message.get("content")
        if tool_result_blocks(content):
            yield from turns.tool_results(content)
            continue
        if data.get("isMeta") or data.get("isCompactSummary") or data.get("isVisibleInTranscriptOnly"):
            continue
        prompt = prompt_text(content)
        if prompt is None:
            continue
        command = recorded_command(prompt)
        if command is not None:
            yield from turns.close()
            yield turns.event(Command, name=command[0], args=command[1])
            turns.command_text = f"/{command[0]} {command[1]}".strip()
            continue
        yield from turns.open_turn(prompt)
    if turns is not None:
        yield from turns.close()
        yield turns.event(SessionShutdown, reason="end of transcript")
