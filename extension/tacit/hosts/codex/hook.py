"""Codex CLI hooks → tacit events → hook output.

Design decisions, and why
- **The Claude Code translation, reused.** Codex CLI 0.171.0 sends the same
  JSON on stdin for the hooks both hosts have (``session_id``, ``cwd``,
  ``transcript_path``, ``hook_event_name``; ``source`` on SessionStart,
  ``prompt`` on UserPromptSubmit, ``tool_name``/``tool_input`` on Pre- and
  PostToolUse, ``last_assistant_message``/``stop_hook_active`` on Stop,
  ``reason`` on SessionEnd, ``trigger`` on PreCompact) and reads the same
  output with the same 10,000-character inline cap (docs/hosts/codex.md).
- **Only the events Codex has.** No PostToolUseFailure and no
  UserPromptExpansion: a failing shell command arrives as a PostToolUse whose
  ``tool_response`` is the command's output, with no exit code; tacit records
  it as a successful call.
- **host="codex"** makes child agents run as ``codex exec``.
- **PreToolUse: deny, never ask.** Codex 0.171.0 honours
  ``permissionDecision: "deny"`` (the command does not run; the model reads
  "Command blocked by PreToolUse hook: <reason>. Command: …") but takes
  ``"ask"`` for a failed hook and runs the command (docs/hosts/codex.md). The
  guards already deny on Codex (``HONOURED``); any "ask" left (a third-party
  plugin's) is turned into a deny here, so a stop never fails open.
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
