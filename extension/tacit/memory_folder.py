"""Memory is written only inside the data folder, or through the one link tacit made.

Design notes: docs/design/core.md#tacitmemory_folder
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from tacit.fsutil import atomic_write_text

MARKER = "memories.link"


def _marker(cfg) -> str:
    return os.path.join(cfg.state_dir_str, MARKER)


def note_link(cfg, target) -> None:
    """Record that tacit itself linked ``memories/`` to ``target``."""
    atomic_write_text(Path(_marker(cfg)), os.path.realpath(target))


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


def file_problem(path) -> str | None:
    """Why a memory file must not be rewritten (None: it may): a link. Replaced by the new file, the
    link was gone without a word (a dotfiles copy no longer updated); written through, memory would
    land wherever it points."""
    if not os.path.islink(path):
        return None
    return (f"{path} is a link (to {os.path.realpath(path)}); tacit will not replace it with a file or write "
            "through it, so nothing was changed (put the file itself there instead of the link)")
