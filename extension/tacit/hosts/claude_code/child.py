"""What Claude Code's child printed (``--output-format json``): one result
object with its usage, its cost (``total_cost_usd``) and its reply
(``result``). Its spec's ``child`` (``tacit.children.output``)."""

from __future__ import annotations

from tacit.children.budget import Spend, reported
from tacit.children.output import json_output, json_tail

KEPT = ("usage", "total_cost_usd", "num_turns", "duration_ms", "is_error")


def usage(stdout: bytes, usage_file) -> dict | None:
    for data in json_tail(stdout.decode("utf-8", "replace").strip()):
        if data.get("type") in (None, "result") and ("usage" in data or "total_cost_usd" in data):
            found = {key: data[key] for key in KEPT if key in data}
            if isinstance(data.get("modelUsage"), dict) and data["modelUsage"]:
                found["models"] = list(data["modelUsage"])
            return found
    return None


def spend(cfg, usage: dict, model: str) -> Spend | None:
    inner = usage.get("usage")
    if not isinstance(inner, dict):
        return None
    models = usage.get("models") if isinstance(usage.get("models"), list) else []
    return reported(cfg, str(models[0]) if models else model, usage.get("total_cost_usd"),
                    inner.get("input_tokens"), inner.get("output_tokens"),
                    inner.get("cache_read_input_tokens"), inner.get("cache_creation_input_tokens"))


def reply(stdout: str) -> str | None:
    found = None
    for event in json_output(stdout):
        if isinstance(event.get("result"), str):
            found = event["result"]
    return found
