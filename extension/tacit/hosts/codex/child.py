"""What Codex's child printed (``codex exec --json``): JSONL events, the
reply in the last ``agent_message`` item, the usage in ``turn.completed``
(tokens only: the cost comes from tacit's price table, for the model in the
user's Codex config when none is configured). Its spec's ``child``."""

from __future__ import annotations

import os
import tomllib

from tacit.children.budget import Spend, as_int, reported
from tacit.children.output import json_output, json_tail
from tacit.hosts.spec import home_folder


def usage(stdout: bytes, usage_file) -> dict | None:
    for data in json_tail(stdout.decode("utf-8", "replace").strip()):
        if data.get("type") == "turn.completed" and isinstance(data.get("usage"), dict):
            return {"usage": data["usage"]}
    return None


def spend(cfg, usage: dict, model: str) -> Spend | None:
    inner = usage.get("usage")
    if not isinstance(inner, dict):
        return None
    total_in, out = as_int(inner.get("input_tokens")), as_int(inner.get("output_tokens"))
    cached = min(as_int(inner.get("cached_input_tokens")), total_in)
    return reported(cfg, model, None, total_in - cached, out, cached)


def reply(stdout: str) -> str | None:
    found = None
    for event in json_output(stdout):
        item = event.get("item")
        if event.get("type") == "item.completed" and isinstance(item, dict) and item.get("type") == "agent_message":
            found = str(item.get("text") or "")
    return found


def default_model(cfg) -> str:
    """The model of the user's Codex config (the child runs with it when none is configured)."""
    try:
        with open(os.path.join(home_folder(cfg.env, "CODEX_HOME", ".codex"), "config.toml"), "rb") as handle:
            value = tomllib.load(handle).get("model")
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return ""
    return value if isinstance(value, str) else ""
