"""Codex CLI's rollout files as the events its hooks would have sent (``tacit learn``).

A rollout is one session: ``session_meta`` (id, cwd), then ``event_msg`` lines (the user's message
and the agent's, as ``item_completed`` items or, in older files, ``user_message`` /
``agent_message``; ``task_complete`` ends a turn) and ``response_item`` lines (tool calls and their
outputs, matched by ``call_id``). A command's exit code is read from its output.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator

from tacit.events import iso_time
from tacit.learn.replay import FileStats, json_objects
from tacit.learn.turns import Turns, block_text

_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
_EXIT = re.compile(r"exit(?:ed with)? code:? (-?\d+)", re.IGNORECASE)


def detect(data: dict) -> bool:
    """Is this a Codex rollout's first line?"""
    return data.get("type") == "session_meta" and isinstance(data.get("payload"), dict)


def read(path: Path, stats: FileStats) -> Iterator:
    turns: Turns | None = None
    for _lineno, data in json_objects(path, stats):
        payload = data.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = data.get("type")
        if kind == "session_meta" and turns is None:
            turns = Turns(str(payload.get("id") or path.stem))
            turns.ts = iso_time(data.get("timestamp"))
            yield from turns.start()
        if turns is None:
            continue
        turns.ts = iso_time(data.get("timestamp")) or turns.ts
        if kind in ("session_meta", "turn_context") and isinstance(payload.get("cwd"), str):
            turns.cwd = payload["cwd"]
        elif kind == "event_msg":
            yield from _event(turns, payload)
        elif kind == "response_item":
            yield from _item(turns, payload)
    if turns is not None:
        yield from turns.end()


def _event(turns: Turns, payload: dict) -> list:
    item, kind = payload.get("item"), payload.get("type")
    if kind == "item_completed" and isinstance(item, dict) and item.get("type") in ("UserMessage", "AgentMessage"):
        kind, text = ("user_message" if item["type"] == "UserMessage" else "agent_message"), \
            block_text(item.get("content"), ("text", "Text"))
    else:
        text = payload.get("message") if isinstance(payload.get("message"), str) else ""
    if kind == "user_message" and text.strip():
        return turns.user(text)
    if kind == "agent_message":
        turns.say(text)
    elif kind == "task_complete":
        return turns.close()
    elif kind == "context_compacted":
        return turns.compact()
    return []


def _item(turns: Turns, payload: dict) -> list:
    kind = payload.get("type")
    if kind in _CALLS:
        args = payload.get("arguments", payload.get("input", payload.get("action")))
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                args = {"input": args}
        turns.call(str(payload.get("call_id") or payload.get("id")), str(payload.get("name") or kind), args)
    elif kind in _OUTPUTS:
        output = payload.get("output")
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)[:2000]
        code = _EXIT.search(text[:2000])
        ok = code is None or code.group(1) == "0"
        return turns.result(str(payload.get("call_id")), ok, None if ok else text[:300])
    return []
