"""What the host-installer tests share besides the ``home`` / ``ucfg``
fixtures (those are in ``tests/conftest.py``): a digest of a folder that
tells "exactly as before" from "changed", permissions included."""

from __future__ import annotations

import hashlib
from pathlib import Path


def digest(root: Path) -> dict:
    """relative path -> sha1 + permission bits of every file ("<dir>" for a
    folder) under ``root``."""
    return {str(p.relative_to(root)): ("<dir>" if p.is_dir() else hashlib.sha1(p.read_bytes()).hexdigest()
                                       + oct(p.stat().st_mode & 0o777))
            for p in sorted(root.rglob("*"))}
