"""The last assistant text of a Claude Code transcript, read from its tail.

Design notes: docs/design/hosts.md#tacithostsclaude_codetranscript
"""

from __future__ import annotations

import json

from tacit.fsutil import read_tail

TAIL_BYTES = 2 * 1024 * 1024


def last_assistant_text(path: str) -> str:
    if not path or not isinstance(path, str):
        return ""
    texts: list[str] = []
    message_id = None
    for raw in reversed(read_tail(path, TAIL_BYTES).splitlines()):
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):  # a line nested past Python's limit is one bad line
            continue  # the first line of the tail may be cut in half
        if not isinstance(record, dict):
            continue
        if record.get("type") == "user" and not record.get("isMeta") and texts:
            break  # reached the prompt that started this reply
        if record.get("type") != "assistant":
            continue
        message = record.get("message") or {}
        if not isinstance(message, dict):
            continue
        if message_id is not None and message.get("id") != message_id:
            break  # an earlier assistant message: the last one is complete
        message_id = message.get("id")
        for block in reversed(message.get("content") or []):
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
    return "\n".join(reversed(texts))
