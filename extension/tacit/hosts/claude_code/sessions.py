"""Claude Code's session files, for the past-session index (``tacit.search``).

Design notes: docs/design/hosts.md#tacithostsclaude_codesessions
"""

from __future__ import annotations

import os
import re

from tacit.events import iso_time
from tacit.hosts.spec import home_folder
from tacit.search import jsonl
from tacit.search.source import ASSISTANT, TOOL, USER, Cursor, Entry, Message, block_messages, excerpt

NOT_PROMPTS = ("<local-command-", "<bash-input>", "<bash-stdout>", "<bash-stderr>",
               "[Request interrupted by user", "Caveat: The messages below were generated")
_COMMAND_NAME = re.compile(r"<command-name>\s*/?([^<]*?)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def recorded_command(text: str) -> tuple[str, str] | None:
    """A slash command as Claude Code records it in a prompt: (name, args), or None."""
    match = _COMMAND_NAME.search(text) if "<command-name>" in text else None
    if not match:
        return None
    args = _COMMAND_ARGS.search(text)
    return match.group(1), (args.group(1).strip() if args else "")


def files(env: dict):
    projects = os.path.join(home_folder(env, "CLAUDE_CONFIG_DIR", ".claude"), "projects")
    return [path for folder in jsonl.entries(projects, "dir")
            for path in jsonl.entries(folder, "file", suffix=".jsonl")]


def tool_result_blocks(content) -> list:
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] \
        if isinstance(content, list) else []


def prompt_text(content) -> str | None:
    """The user's prompt in a ``type:"user"`` line, or None when the line is
    not a prompt (tool results, images only, local-command output)."""
    if tool_result_blocks(content):
        return None
    if isinstance(content, list):
        content = "\n".join(b["text"] for b in content
                            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))
    if not isinstance(content, str) or not content.strip() or content.strip().startswith(NOT_PROMPTS):
        return None
    return content


def _user_messages(content) -> list:
    results = tool_result_blocks(content)
    if results:
        return [m for m in (Message(TOOL, excerpt(b.get("content"))) for b in results) if m.text]
    text = prompt_text(content)
    if text is None:
        return []
    command = recorded_command(text)
    return [Message(USER, f"/{command[0]} {command[1]}".strip() if command else text)]


def parse(data: dict, cursor: Cursor) -> Entry | None:
    cursor.learn(data, "sessionId")
    kind = data.get("type")
    if kind not in ("user", "assistant") or data.get("isSidechain"):
        return None
    message = data.get("message")
    if not isinstance(message, dict):
        return None
    if kind == "assistant":
        messages = block_messages(message.get("content"), ASSISTANT, "tool_use", "input")
    elif data.get("isMeta") or data.get("isCompactSummary") or data.get("isVisibleInTranscriptOnly"):
        return None
    else:
        messages = _user_messages(message.get("content"))
    return Entry(0, 0, messages, cursor.session_id, cursor.cwd, iso_time(data.get("timestamp")))


SOURCE = jsonl.source("claude-code", files, parse)
