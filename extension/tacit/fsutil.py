"""Atomic, locked file writes shared by every store.

Design decisions
- **Atomic replace.** A write goes to a temp file in the *same* folder (so the
  rename never crosses a filesystem), is fsync'ed, then ``os.replace``d over
  the target, and the folder is fsync'ed. A reader — or a writer killed by
  SIGKILL at any instant — sees the old file or the new one, never half.
- **Sibling lock file.** ``<file>.lock`` locked with ``flock`` (filelock's
  UnixFileLock). This is the same file and the same lock Hermes Agent's
  memory tool takes, so tacit and Hermes writing one MEMORY.md serialise.
  Readers take no lock: atomic rename makes that safe.
- **Private by default.** Memory can hold personal facts: files are 0600.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

LOCK_TIMEOUT_SECONDS = 30.0


def atomic_write_text(path: Path, text: str, mode: int = 0o600) -> None:
    """Write ``text`` to ``path`` atomically (temp file, fsync, rename)."""
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o600) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def lock_for(path: Path, timeout: float = LOCK_TIMEOUT_SECONDS):
    """The exclusive lock guarding ``path``: ``<path>.lock`` next to it.

    Returned as a context manager. Imported lazily: filelock is only needed
    by writers, and readers (the hook path) never lock.
    """
    from filelock import FileLock

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(str(path) + ".lock", timeout=timeout)
