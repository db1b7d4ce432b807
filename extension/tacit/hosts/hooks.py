"""Hook hosts: one hook payload in, the hook's stdout out.

Design notes: docs/design/hosts.md#tacithostshooks
"""

from __future__ import annotations

import json

from tacit.config import load_config
from tacit.failures import record_failure
from tacit.hosts import spec as host_specs
from tacit.hosts.runtime import build_engine
from tacit.log import log_exception


def handler_of(host: str):
    """The host's hook handler (its spec's ``hook_handler``), or None."""
    spec = host_specs.get(host)
    return spec.load("hook_handler") if spec is not None else None


def decode_payload(payload: bytes) -> dict:
    """The hook's stdin as a dict. Invalid UTF-8 becomes U+FFFD rather than
    losing the event; anything but a JSON object gives {}."""
    if not payload.strip():
        return {}
    data = json.loads(payload.decode("utf-8", "replace"))
    return data if isinstance(data, dict) else {}


def run(engine, host: str, event_name: str, payload: bytes, *, event_id: str = "",
        data: dict | None = None) -> str:
    """``data``: the payload already decoded (the service reads it once)."""
    try:
        handler = handler_of(host)
        if handler is None:
            return ""
        if data is None:
            data = decode_payload(payload)
        return handler(engine, event_name, data, event_id=event_id)
    except Exception as exc:  # noqa: BLE001 — never break the host
        log_exception(engine.cfg, f"hook {host} {event_name}", exc)
        record_failure(engine.cfg, where=f"hook {event_name}", exc=exc, host=host, event_kind=event_name,
                       session_id=str((data or {}).get("session_id") or ""))
        return ""


def run_in_process(host: str, event_name: str, payload: bytes, *, event_id: str = "") -> str:
    cfg = None
    try:
        cfg = load_config(host=host)  # an unknown host is looked for among the installed packages' hosts
        if cfg.is_child or handler_of(host) is None:
            return ""
        engine = build_engine(cfg, "oneshot", host=host)
        try:
            return run(engine, host, event_name, payload, event_id=event_id)
        finally:
            engine.close()
    except BaseException as exc:  # noqa: BLE001
        log_exception(cfg, f"hook {host} {event_name} (in-process)", exc)
        return ""
