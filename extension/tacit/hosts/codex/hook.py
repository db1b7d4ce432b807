"""Codex CLI hooks → tacit events → hook output: Claude Code's, for the events its spec registers
(a stop is a deny: its spec does not honour ``tool_call.ask``).

Design notes: docs/design/hosts.md#tacithostscodexhook
"""

from __future__ import annotations

from functools import partial

from tacit.hosts.claude_code import hook as claude_hook

handle = partial(claude_hook.handle, host="codex")
