"""CLI command groups, one module each (see tacit.cli).

Shared helpers for the JSON-output contract live here.
"""

from __future__ import annotations

import json
import sys


def emit(obj) -> None:
    """Print exactly one JSON object on stdout (the store-command contract)."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=None) + "\n")
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
