"""Codex CLI hooks → tacit events → hook output.

``tacit hook codex <Event>`` (see ``tacit.hosts.hook_entry``) calls
``handle(cfg, event_name, payload_bytes)`` once per hook process.

Design decisions, and why
- **The Claude Code translation, reused.** Codex CLI 0.171.0 sends the same
  JSON on stdin for the hooks both hosts have (``session_id``, ``cwd``,
  ``transcript_path``, ``hook_event_name``; ``source`` on SessionStart,
  ``prompt`` on UserPromptSubmit, ``tool_name``/``tool_input`` on
  PostToolUse, ``last_assistant_message``/``stop_hook_active`` on Stop,
  ``reason`` on SessionEnd, ``trigger`` on PreCompact) and reads the same
  output (``hookSpecificOutput.additionalContext``, ``systemMessage``) with
  the same 10,000-character inline cap. So this module only narrows the
  event list and names the host; ``tacit.hosts.claude_code.hook.handle``
  does the work (docs/hosts/codex.md has the observed payloads).
- **Only the events Codex has.** Codex has no PostToolUseFailure and no
  UserPromptExpansion: a failing shell command arrives as a PostToolUse whose
  ``tool_response`` is the command's output, with no exit code. tacit records
  it as a successful call (as it does Hermes's terminal with a non-zero exit).
- **host="codex"** makes the engine start child agents with ``codex exec``
  (``tacit.child.DEFAULT_COMMANDS["codex"]``) and sets ``TACIT_HOST=codex``
  for them and for ``tacit drain``.
"""

from __future__ import annotations

HOST = "codex"
# the Codex hook events tacit registers (tacit.hosts.codex.install), in the
# order a turn fires them
EVENT_NAMES = ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "PreCompact", "SessionEnd")


def handle(cfg, event_name: str, payload_bytes: bytes) -> str:
    if event_name not in EVENT_NAMES:
        return ""
    from tacit.hosts.claude_code.hook import handle as translate_and_dispatch

    return translate_and_dispatch(cfg, event_name, payload_bytes, host=HOST)
