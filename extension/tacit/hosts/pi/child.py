"""What pi's child printed (``--mode json``): events; the ``agent_end``
event's assistant messages (or, when the tail lost it, each
``message_end``) carry each message's usage and cost, summed here, and the
last one's text is the reply. Its spec's ``child``."""

from __future__ import annotations

from dataclasses import replace

from tacit.children.budget import Spend, as_float, reported
from tacit.children.output import json_lines, json_output

# how its child saves, in the child's prompt (prompts/_tools.md.j2; a jinja2 template of the same variables)
SAVE_GUIDE = (
    'Use your `memory` tool (action add/replace/remove; target "user", {% if project %}"project", {% endif %}or\n'
    '"global") and your `skill` tool (create/patch/view) for skills. They write tacit\'s files.')
FIELDS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def usage(stdout: bytes, usage_file) -> dict | None:
    messages, ends = None, []
    for event in json_lines(stdout.decode("utf-8", "replace").strip()):
        if event.get("type") == "agent_end" and isinstance(event.get("messages"), list):
            messages = event["messages"]
        elif event.get("type") == "message_end" and isinstance(event.get("message"), dict):
            ends.append(event["message"])
    total = {key: 0 for key in FIELDS}
    cost, model, seen = 0.0, "", False
    for message in messages if messages is not None else ends:
        if not isinstance(message, dict) or message.get("role") != "assistant" \
                or not isinstance(message.get("usage"), dict):
            continue
        seen, counts = True, message["usage"]
        for key in FIELDS:
            if _number(counts.get(key)):
                total[key] += int(counts[key])
        value = (counts.get("cost") or {}).get("total") if isinstance(counts.get("cost"), dict) else None
        if _number(value):
            cost += float(value)
        if message.get("model"):
            model = f"{message.get('provider')}/{message['model']}" if message.get("provider") else message["model"]
    if not seen:
        return None
    total["cost"] = {"total": round(cost, 8)}
    return {"usage": total, "model": model}


def spend(cfg, usage: dict, model: str) -> Spend | None:
    inner = usage.get("usage")
    if not isinstance(inner, dict):
        return None
    cost = inner.get("cost") if isinstance(inner.get("cost"), dict) else {}
    usd = as_float(cost.get("total"))  # 0 for a model without prices in pi's registry: priced instead
    spend = reported(cfg, usage.get("model") or model, usd or None, inner.get("input"), inner.get("output"),
                     inner.get("cacheRead"), inner.get("cacheWrite"), tokens=inner.get("totalTokens"))
    if usd == 0 and spend.usd is None and not spend.tokens:  # nothing ran and nothing is known: pi's 0 stands
        spend = replace(spend, usd=0.0, usd_source="host")
    return replace(spend, model=str(spend.model or ""))


def reply(stdout: str) -> str | None:
    found = None
    for event in json_output(stdout):
        message = event.get("message")
        if event.get("type") == "message_end" and isinstance(message, dict) and message.get("role") == "assistant":
            parts = [c.get("text", "") for c in message.get("content") or () if isinstance(c, dict)
                     and c.get("type") == "text"]
            if parts:
                found = "\n".join(parts)
    return found
