"""Where the shipped templates live.

Design notes: docs/design/core.md#tacitresources"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The folder ``prompts`` or ``skills_template``, installed or from source."""
    for candidate in (_PKG / name, _PKG.parent.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"tacit resource folder {name!r} not found next to {_PKG}")
