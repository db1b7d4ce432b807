"""Codex CLI hooks → tacit events → hook output: Claude Code's, for the events tacit registers
(a stop is a deny: its spec does not honour ``tool_call.ask``).

Design notes: docs/design/hosts.md#tacithostscodexhook
"""

from __future__ import annotations

from tacit.hosts.claude_code import hook as claude_hook

HOST = "codex"
# the Codex hook events tacit registers (tacit.hosts.codex.install), in the order a turn fires them
EVENT_NAMES = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "PreCompact",
               "SessionEnd")


def handle(engine, event_name: str, payload: dict, *, event_id: str = "") -> str:
    if event_name not in EVENT_NAMES:
        return ""
    return claude_hook.handle(engine, event_name, payload, host=HOST, event_id=event_id)
