"""pi's session files as the events its extension would have sent (``tacit learn``).

A file is one session: a ``session`` header (id, cwd), then ``message`` lines whose ``message``
has the role user, assistant (text and ``toolCall`` blocks) or toolResult (``toolCallId``,
``isError``); a ``compaction`` line is the host compacting. Branches are read in file order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from tacit.events import iso_time
from tacit.learn.replay import FileStats, json_objects
from tacit.learn.turns import Turns, block_text


def detect(data: dict) -> bool:
    """Is this a pi session file's header line?"""
    return data.get("type") == "session" and isinstance(data.get("id"), str) and "cwd" in data


def read(path: Path, stats: FileStats) -> Iterator:
    turns: Turns | None = None
    for _lineno, data in json_objects(path, stats):
        kind = data.get("type")
        if kind == "session" and turns is None:
            turns = Turns(str(data.get("id") or path.stem), data.get("cwd") if isinstance(data.get("cwd"), str) else None)
            turns.ts = iso_time(data.get("timestamp"))
            yield from turns.start()
            continue
        if turns is None:
            continue
        turns.ts = iso_time(data.get("timestamp")) or turns.ts
        message = data.get("message")
        if kind == "compaction":
            yield from turns.compact()
        elif kind == "message" and isinstance(message, dict):
            yield from _message(turns, message)
    if turns is not None:
        yield from turns.end()


def _message(turns: Turns, message: dict) -> list:
    role, content = message.get("role"), message.get("content")
    if role == "user":
        text = block_text(content)
        return turns.user(text) if text else []
    if role == "assistant" and isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                turns.call(str(block.get("id")), str(block.get("name") or "?"), block.get("arguments"))
        turns.say(block_text(content))
    elif role == "toolResult":
        error = block_text(content)[:300] if message.get("isError") else None
        return turns.result(str(message.get("toolCallId")), not message.get("isError"), error)
    return []
