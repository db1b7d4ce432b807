"""Memory is written only inside the data folder, or through the one link tacit made.

Design notes: docs/design/core.md#tacitmemory_folder
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

MARKER = "memories.link"


def _marker(cfg) -> str:
    return os.path.join(cfg.state_dir_str, MARKER)


def note_link(cfg, target) -> None:
    """Record that tacit itself linked ``memories/`` to ``target``."""
    path = _marker(cfg)
    os.makedirs(cfg.state_dir_str, mode=0o700, exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(os.path.realpath(target))
    os.replace(tmp, path)


def forget_link(cfg) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(_marker(cfg))


def _ours(cfg, folder: Path) -> bool:
    try:
        with open(_marker(cfg), encoding="utf-8") as handle:
            noted = handle.read().strip()
    except OSError:
        return False
    return bool(noted) and folder == Path(cfg.memories_dir) and os.path.realpath(folder) == noted


def problem(cfg, folder) -> str | None:
    """Why memory must not be written in ``folder`` (None: it may)."""
    folder = Path(folder)
    if not os.path.lexists(folder):
        return None  # made on first write, inside its parent
    if not folder.is_dir():
        return f"{folder} is not a folder; tacit will not write memory there (move it away)"
    home = os.path.realpath(cfg.home_str)
    real = os.path.realpath(folder)
    inside = real == home or real.startswith(home.rstrip(os.sep) + os.sep)
    if inside or _ours(cfg, folder):
        return None
    return (f"{folder} leads outside the data folder (to {real}), and tacit did not make that link; tacit will "
            "not write memory through it (move the link away)")
