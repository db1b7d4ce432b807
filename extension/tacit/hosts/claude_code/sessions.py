"""Claude Code's session files, for the past-session index (``tacit.search``).

Design notes: docs/design/hosts.md#tacithostsclaude_codesessions
"""

from __future__ import annotations

import os
import re

from tacit.events import iso_time
from tacit.search import jsonl
from tacit.search.source import ASSISTANT, TOOL, USER, Cursor, Entry, Message, block_messages, excerpt

NOT_PROMPTS = ("<local-command-", "<bash-input>", "<bash-stdout>", "<bash-stderr>",
               "[Request interrupted by user", "Caveat: The messages below were generated")
_COMMAND_NAME = re.compile(r"<command-name>\s*/?([^<]*?)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def projects_dir(env: dict) -> str:
    base = env.get("CLAUDE_CONFIG_DIR") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".claude")
    return os.path.join(base, "projects")


def recorded_command(text: str) -> tuple[str, str] | None:
    """A slash command as Claude Code records it in a prompt: (name, args), or None."""
    match = _COMMAND_NAME.search(text) if "<command-name>" in text else None
    if not match:
        return None
    args = _COMMAND_ARGS.search(text)
    return match.group(1), (args.group(1).strip() if args else "")


def files(env: dict):
    return [path for folder in jsonl.entries(projects_dir(env), "dir")
            for path in jsonl.entries(folder, "file", suffix=".jsonl")]


def _user_messages(content) -> list:
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts, tools = [], []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                tools.append(Message(TOOL, excerpt(block.get("content"))))
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
        if tools:
            return [m for m in tools if m.text]
        text = "\n".join(parts)
    else:
        return []
    stripped = text.strip()
    if not stripped or stripped.startswith(NOT_PROMPTS):
        return []
    command = recorded_command(text)
    return [Message(USER, f"/{command[0]} {command[1]}".strip() if command else text)]


def parse(data: dict, cursor: Cursor) -> Entry | None:
    if isinstance(data.get("sessionId"), str) and data["sessionId"]:
        cursor.session_id = data["sessionId"]
    if isinstance(data.get("cwd"), str) and data["cwd"]:
        cursor.cwd = data["cwd"]
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
