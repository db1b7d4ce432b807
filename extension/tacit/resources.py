"""Where the shipped templates live.

``prompts/`` and ``skills_template/`` sit at the top of the repository (the
project's fixed layout) and are copied into the wheel as ``tacit/prompts`` and
``tacit/skills_template``. From a source checkout they are two folders up.
"""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The folder ``prompts`` or ``skills_template``, installed or from source."""
    for candidate in (_PKG / name, _PKG.parent.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"tacit resource folder {name!r} not found next to {_PKG}")
