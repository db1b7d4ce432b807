"""Codex CLI's session files, for the past-session index (``tacit.search``).

Design notes: docs/design/hosts.md#tacithostscodexsessions
"""

from __future__ import annotations

import os

from tacit.events import iso_time
from tacit.hosts.spec import home_folder
from tacit.search import jsonl
from tacit.search.source import ASSISTANT, TOOL, USER, Cursor, Entry, Message, excerpt

_TOOL_CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")
_TOOL_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def files(env: dict):
    root = os.path.join(home_folder(env, "CODEX_HOME", ".codex"), "sessions")
    return [path for year in jsonl.entries(root, "dir") for month in jsonl.entries(year, "dir")
            for day in jsonl.entries(month, "dir")
            for path in jsonl.entries(day, "file", prefix="rollout-", suffix=".jsonl")]


def parse(data: dict, cursor: Cursor) -> Entry | None:
    payload = data.get("payload")
    if not isinstance(payload, dict):
        return None
    kind, item = data.get("type"), payload.get("type")
    if kind in ("session_meta", "turn_context"):
        cursor.learn(payload, "id" if kind == "session_meta" else "")
        return None
    messages = []
    completed = payload.get("item") if kind == "event_msg" and item == "item_completed" else None
    if isinstance(completed, dict) and completed.get("type") in ("UserMessage", "AgentMessage"):
        blocks = completed.get("content")
        text = "\n".join(b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)) \
            if isinstance(blocks, list) else ""
        if text.strip():
            messages.append(Message(USER if completed["type"] == "UserMessage" else ASSISTANT, text))
    elif kind == "event_msg" and item in ("user_message", "agent_message"):
        text = payload.get("message")
        if isinstance(text, str) and text.strip():
            messages.append(Message(USER if item == "user_message" else ASSISTANT, text))
    elif kind == "response_item" and item in _TOOL_CALLS:
        args = payload.get("arguments", payload.get("input", payload.get("action")))
        messages.append(Message(TOOL, excerpt(f"{payload.get('name') or item}: {excerpt(args)}")))
    elif kind == "response_item" and item in _TOOL_OUTPUTS:
        output = payload.get("output")
        if isinstance(output, dict):
            output = output.get("content", output)
        text = excerpt(output)
        if text:
            messages.append(Message(TOOL, text))
    if not messages:
        return None
    return Entry(0, 0, messages, cursor.session_id, cursor.cwd, iso_time(data.get("timestamp")))


SOURCE = jsonl.source("codex", files, parse)
