"""The last assistant text of a Claude Code transcript, read from its tail.

Design notes: docs/design/hosts.md#tacithostsclaude_codetranscript
"""

from __future__ import annotations

import json
import os
import stat

TAIL_BYTES = 2 * 1024 * 1024


def read_tail(path: str, limit: int = TAIL_BYTES) -> bytes:
    """The last ``limit`` bytes of a regular file; b"" for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return b""
        start = max(0, info.st_size - limit)
        os.lseek(fd, start, os.SEEK_SET)
        chunks, left = [], min(limit, info.st_size)
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return b""
    finally:
        os.close(fd)


def last_assistant_text(path: str) -> str:
    if not path or not isinstance(path, str):
        return ""
    texts: list[str] = []
    message_id = None
    for raw in reversed(read_tail(path).splitlines()):
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
