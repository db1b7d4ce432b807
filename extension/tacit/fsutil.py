"""Atomic, locked file writes shared by every store (and one lenient JSON read).

Design notes: docs/design/core.md#tacitfsutil
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import json
import os
import stat
import tempfile
import time
from pathlib import Path

LOCK_TIMEOUT_SECONDS = 30.0
STALE_TEMP_SECONDS = 60.0
_TEMP_RANDOM_CHARS = 8  # tempfile.mkstemp's random part
_POLL_FIRST, _POLL_MAX = 0.001, 0.005


def atomic_write_text(path: Path, text: str, mode: int = 0o600) -> None:
    """Write ``text`` to ``path`` atomically (temp file, fsync, rename)."""
    atomic_write_bytes(path, text.encode("utf-8"), mode)


class LockTimeout(TimeoutError):
    """A lock stayed held by another writer beyond the timeout."""


def ensure_private_dir(path) -> None:
    """Create ``path`` and every missing parent with mode 0700 (existing ones are left as they are)."""
    path = os.path.abspath(os.fspath(path))
    if os.path.isdir(path):
        return
    if os.path.islink(path):  # a link whose folder is gone (tacit's memories → Hermes's): remake that folder
        ensure_private_dir(os.path.realpath(path))
        return
    parent = os.path.dirname(path)
    if parent != path:
        ensure_private_dir(parent)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:  # a concurrent creator, or a file in the way
        if not os.path.isdir(path):  # said as what it is: "File exists" reads as nothing wrong
            raise NotADirectoryError(errno.ENOTDIR, "a file stands where a folder should be", path) from None


def append_private_line(path, line: str, *, rotate_at: int = 0) -> None:
    """Append one line to a 0600 file (created so); a file over ``rotate_at`` bytes is first
    moved to ``<path>.1``. Never raises."""
    with contextlib.suppress(OSError):
        with contextlib.suppress(OSError):
            if rotate_at and os.path.getsize(path) > rotate_at:
                os.replace(path, f"{path}.1")
        ensure_private_dir(os.path.dirname(path))
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line.rstrip("\n") + "\n").encode("utf-8", "backslashreplace"))
        finally:
            os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write ``data`` to ``path`` atomically. An OSError names ``path`` (or its folder, when no file
    can be made there), never the hidden temp file the person has never seen."""
    path = Path(path)
    try:
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        except FileNotFoundError:  # first write into this folder
            ensure_private_dir(path.parent)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _naming(exc, path.parent) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode != 0o600:  # mkstemp creates the file 0600 already
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        unlink_quietly(tmp)
        if isinstance(exc, OSError):
            raise _naming(exc, path) from exc
        raise
    _fsync_dir(path.parent)
    sweep_stale_temps(path)


def _naming(exc: OSError, where: Path) -> OSError:
    """``exc`` (same class and errno) naming ``where``: a full disk's write names no file at all."""
    if exc.errno is None:
        return exc
    return type(exc)(exc.errno, exc.strerror or os.strerror(exc.errno), str(where))


def write_fault(folder: str, named: str) -> OSError | None:
    """Why a file cannot grow in ``folder`` just now (read-only, full, a file-size limit …), told as
    about ``named``; None when a byte can be written there. Writes one byte to a scratch file."""
    probe = os.path.join(folder, f".tacit-probe-{os.getpid()}-{time.monotonic_ns()}")
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        return OSError(exc.errno, exc.strerror, named)
    try:
        os.write(fd, b"x")
        os.fsync(fd)  # a disk that reserves blocks late says it is full only here
    except OSError as exc:
        return OSError(exc.errno, exc.strerror, named)
    finally:
        os.close(fd)
        unlink_quietly(probe)
    return None


def free_name(base, sep: str = ".", first: int = 1):
    """``base`` if nothing stands there (not even a dangling link), else ``base + sep + N`` for the
    first free ``N`` from ``first`` (a ``Path`` for a path-like ``base``, else a ``str``)."""
    path = os.fspath(base)
    name, n = path, first
    while os.path.lexists(name):
        name = f"{path}{sep}{n}"
        n += 1
    return Path(name) if isinstance(base, os.PathLike) else name


def keep_copy(path: Path, data: bytes) -> Path:
    """``data`` (what ``path`` held) kept beside it as ``<name>.bak.<time>[.n]`` (0600), or the copy
    already there holding the same bytes."""
    for kept in sorted(path.parent.glob(f"{glob.escape(path.name)}.bak.*")):
        with contextlib.suppress(OSError):
            if kept.stat().st_size == len(data) and kept.read_bytes() == data:
                return kept
    stamp = time.strftime("%Y%m%dT%H%M%S")
    backup = free_name(path.with_name(f"{path.name}.bak.{stamp}"))
    atomic_write_bytes(backup, data)
    return backup


def unlink_quietly(path) -> None:
    """Remove a file; one already gone, or that cannot be removed, is no error."""
    with contextlib.suppress(OSError):
        os.unlink(path)


def read_json_or_none(path) -> dict | None:
    """A JSON object from ``path``; None when it is missing, unreadable or not an object."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def read_tail(path, limit: int) -> bytes:
    """The last ``limit`` bytes of a regular file; b"" for anything else (never waits on a FIFO)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return b""
        return os.pread(fd, min(limit, info.st_size), max(0, info.st_size - limit))
    except OSError:
        return b""
    finally:
        os.close(fd)


def mode_of(path, default: int) -> int:
    """A file's permission bits, or ``default`` when it does not exist."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        return default


def is_temp_of(name: str, target_name: str) -> bool:
    """Is ``name`` a temp file ``atomic_write_*`` creates for ``target_name``?"""
    prefix = f".{target_name}."
    return (name.startswith(prefix) and name.endswith(".tmp")
            and len(name) == len(prefix) + _TEMP_RANDOM_CHARS + len(".tmp"))


def sweep_stale_temps(path: Path, older_than: float = STALE_TEMP_SECONDS) -> list[str]:
    """Delete temp files of ``path`` left by killed writers; their names. Never raises."""
    path = Path(path)
    removed: list[str] = []
    cutoff = time.time() - older_than
    with contextlib.suppress(OSError):
        with os.scandir(path.parent) as entries:
            for entry in entries:
                if not is_temp_of(entry.name, path.name):
                    continue
                with contextlib.suppress(OSError):  # gone already, or not ours to delete
                    if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        os.unlink(entry.path)
                        removed.append(entry.name)
    return removed


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


class FlockLock:
    """An exclusive ``flock`` on a lock file, with a timeout; re-entrant per instance, and two
    instances (in one process or two) exclude each other."""

    def __init__(self, lock_file: str, timeout: float = LOCK_TIMEOUT_SECONDS):
        self.lock_file = lock_file
        self.timeout = timeout
        self._fd: int | None = None
        self._depth = 0

    def acquire(self) -> "FlockLock":
        if self._fd is not None:
            self._depth += 1
            return self
        try:
            try:
                fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT, 0o600)
            except FileNotFoundError:  # the folder does not exist yet
                ensure_private_dir(os.path.dirname(self.lock_file))
                fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:  # a read-only or full disk: named as the file it guards, not its lock
            raise _naming(exc, Path(self.lock_file.removesuffix(".lock"))) from exc
        deadline = time.monotonic() + self.timeout if self.timeout >= 0 else None
        pause = _POLL_FIRST
        try:
            while True:
                with contextlib.suppress(BlockingIOError):
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    raise LockTimeout(f"{self.lock_file} stayed locked")
                time.sleep(pause if deadline is None else max(0.0, min(pause, deadline - time.monotonic())))
                pause = min(pause * 2, _POLL_MAX)
        except BaseException:
            os.close(fd)
            raise
        self._fd, self._depth = fd, 1
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        self._depth -= 1
        if self._depth > 0:
            return
        fd, self._fd = self._fd, None
        # closing the descriptor drops the flock; the file stays for the next waiter
        os.close(fd)

    def __enter__(self) -> "FlockLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    def __del__(self):  # a lock object dropped while held must not keep the lock
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)


def lock_for(path: Path, timeout: float = LOCK_TIMEOUT_SECONDS) -> FlockLock:
    """The exclusive lock guarding ``path``: ``<path>.lock`` next to it. A timeout raises ``LockTimeout``."""
    return FlockLock(os.fspath(path) + ".lock", timeout=timeout)
