"""What a child agent printed, read by its host's spec (``child``).

Design notes: docs/design/children.md#tacitchildrenoutput
"""

from __future__ import annotations

import json
from pathlib import Path

from tacit.hosts import spec as host_specs

USAGE_FILE_CAP = 64_000  # bytes of a usage report read (Hermes's is a few hundred)


def _readers(host: str | None) -> list:
    return [(h.name, h.load("child")) for h in host_specs.with_own_first(host) if h.child]


def parse_usage(stdout: bytes, usage_file: Path, host: str | None = None) -> dict | None:
    """The usage a host reported, with ``"format"`` (whose report it is); None when none is found."""
    for name, reader in _readers(host):
        usage = reader.usage(stdout, usage_file)
        if isinstance(usage, dict):
            return {**usage, "format": name}
    return None


def reply_text(stdout: str, host: str | None = None) -> str | None:
    """The child's final reply when its host printed it in its own format; None for plain text."""
    replies = (reader.reply(stdout) for _, reader in _readers(host))
    return next((reply for reply in replies if reply is not None), None)


def _objects(candidates):
    """The candidates that parse as JSON objects, in order."""
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            yield data


def json_lines(text: str):
    """Each line of ``text`` that is a JSON object."""
    return _objects(line for line in map(str.strip, text.splitlines()) if line.startswith("{"))


def json_output(text: str):
    """The JSON-object lines of an output that is JSON (its first character is ``{``); nothing for plain text."""
    text = text.strip()
    return json_lines(text) if text.startswith("{") else iter(())


def json_tail(text: str, lines: int = 5):
    """The whole text as one JSON object, then each of its last ``lines`` lines, newest first."""
    return _objects((text, *reversed(text.splitlines()[-lines:])))


def why_failed(record: dict) -> str:
    """What went wrong with a child run, in a few words (logs/children.jsonl has the rest)."""
    if record.get("killed"):
        return f"stopped after {record.get('timeout')} s, its child_timeout_seconds"
    if record.get("restored"):
        return "what it wrote was put back: " + "; ".join(map(str, record["restored"]))[:300]
    if record.get("error"):
        return str(record["error"])[:300]
    tail = str(record.get("stderr_tail") or "").strip().splitlines()
    if record.get("exit") not in (None, 0):
        return f"it exited {record['exit']}" + (f": {tail[-1][:200]}" if tail else "")
    return "see logs/children.jsonl"
