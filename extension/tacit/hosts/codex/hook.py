"""Codex CLI hooks → tacit events → hook output.

Design notes: docs/design/hosts.md#tacithostscodexhook
"""

from __future__ import annotations

import json

from tacit.hosts.claude_code import hook as claude_hook

HOST = "codex"
# the Codex hook events tacit registers (tacit.hosts.codex.install), in the order a turn fires them
EVENT_NAMES = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "PreCompact",
               "SessionEnd")


def handle(engine, event_name: str, payload: dict, *, event_id: str = "") -> str:
    if event_name not in EVENT_NAMES:
        return ""
    out = claude_hook.handle(engine, event_name, payload, host=HOST, event_id=event_id)
    if event_name == "PreToolUse" and '"ask"' in out:
        data = json.loads(out)
        specific = data.get("hookSpecificOutput") or {}
        if specific.get("permissionDecision") == "ask":
            specific["permissionDecision"] = "deny"
            out = json.dumps(data, ensure_ascii=False)
    return out
