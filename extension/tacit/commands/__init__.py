"""CLI command groups, one module each (see tacit.cli).

Shared helpers for the JSON-output contract live here.
"""

from __future__ import annotations

import json
import sys

JSON_OUTPUT = {"on": False}  # set by tacit.cli from ``--json``


def emit(obj, text=None) -> None:
    """Print the result: exactly one JSON object with ``--json`` (or when the
    command has no text form), else ``text`` — a string, or a function of
    ``obj`` giving one — for a person."""
    if JSON_OUTPUT["on"] or text is None:
        sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=None) + "\n")
    else:
        out = text(obj) if callable(text) else text
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    sys.stdout.flush()


def exit_code(result: dict) -> int:
    """0 when the store operation succeeded, 1 when it was refused."""
    return 0 if result.get("success") else 1


def read_text_arg(value: str) -> str:
    """``-`` means: read the text from stdin (invalid UTF-8 is replaced, not fatal)."""
    if value == "-":
        data = sys.stdin.buffer.read()
        return data.decode("utf-8", errors="replace")
    return value
