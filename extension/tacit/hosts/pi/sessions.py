"""pi's session files, for the past-session index (``tacit.search``).

Design notes: docs/design/hosts.md#tacithostspisessions
"""

from __future__ import annotations

import os

from tacit.events import iso_time
from tacit.hosts.spec import home_folder
from tacit.search import jsonl
from tacit.search.source import ASSISTANT, TOOL, USER, Cursor, Entry, Message, block_messages, excerpt


def files(env: dict):
    root = env.get("PI_CODING_AGENT_SESSION_DIR") or \
        os.path.join(home_folder(env, "PI_CODING_AGENT_DIR", ".pi", "agent"), "sessions")
    return jsonl.entries(root, "file", suffix=".jsonl") + [
        path for folder in jsonl.entries(root, "dir") for path in jsonl.entries(folder, "file", suffix=".jsonl")]


def parse(data: dict, cursor: Cursor) -> Entry | None:
    kind = data.get("type")
    if kind == "session":
        cursor.learn(data, "id")
        return None
    message = data.get("message")
    if kind != "message" or not isinstance(message, dict):
        return None
    role = {"user": USER, "assistant": ASSISTANT, "toolResult": TOOL}.get(message.get("role"))
    if role is None:
        return None
    messages = block_messages(message.get("content"), role, "toolCall", "arguments")
    if role == TOOL and len(messages) > 1:
        messages = [Message(TOOL, excerpt(" ".join(m.text for m in messages)))]
    ts = iso_time(data.get("timestamp")) or iso_time(message.get("timestamp"))
    return Entry(0, 0, messages, cursor.session_id, cursor.cwd, ts)


SOURCE = jsonl.source("pi", files, parse)
