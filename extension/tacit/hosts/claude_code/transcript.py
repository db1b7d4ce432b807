"""The last assistant text of a Claude Code transcript, read from its tail.

Only a fallback: 2.1.197's Stop payload carries ``last_assistant_message``.
A build without it still has ``transcript_path`` (a JSONL file, one line per
content block; ``type:"assistant"`` lines hold ``message.content`` blocks).
Reading only the last 256 KB keeps the hook fast on a long session; a
missing or odd file gives "" — the turn still ends, just without its text.
"""

from __future__ import annotations

import os

TAIL_BYTES = 256 * 1024


def last_assistant_text(path: str) -> str:
    if not path:
        return ""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - TAIL_BYTES))
            lines = handle.read().splitlines()
    except OSError:
        return ""
    from tacit.hosts.claude_code.fastjson import loads

    texts: list[str] = []
    message_id = None
    for raw in reversed(lines):
        try:
            record = loads(raw)
        except ValueError:
            continue  # the first line of the tail may be cut in half
        if not isinstance(record, dict):
            continue
        if record.get("type") == "user" and not record.get("isMeta") and texts:
            break  # reached the prompt that started this reply
        if record.get("type") != "assistant":
            continue
        message = record.get("message") or {}
        if message_id is not None and message.get("id") != message_id:
            break  # an earlier assistant message: the last one is complete
        message_id = message.get("id")
        for block in reversed(message.get("content") or []):
            if isinstance(block, dict) and block.get("type") == "text" and block.get("text"):
                texts.append(block["text"])
    return "\n".join(reversed(texts))
