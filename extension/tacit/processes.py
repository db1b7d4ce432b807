"""Is a process alive, and when did it start (Linux ``/proc``; elsewhere: alive by ``kill(pid, 0)``);
this process's freed heap given back to the system (glibc)."""

from __future__ import annotations

import contextlib
import functools
import os

START_SLACK = 2.0  # seconds: a process may have started this long after the time it was noted (clock ticks)


def process_started(pid: int) -> float | None:
    """When process ``pid`` started (epoch seconds), or None when unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        with open("/proc/stat", "rb") as handle:
            boot = next(float(line.split()[1]) for line in handle if line.startswith(b"btime"))
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError, StopIteration):
        return None


def alive(pid, since: float | None = None) -> bool:
    """Is ``pid`` a live process (not a zombie) that started no later than ``since`` (plus slack)?"""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError, IndexError):
        with open(f"/proc/{pid}/stat", "rb") as handle:
            if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                return False  # a zombie: dead, not yet waited for
    started = process_started(pid)
    return since is None or started is None or started <= since + START_SLACK


M_ARENA_MAX = -8  # glibc's mallopt parameter
ARENAS = 2


@functools.cache
def _libc():
    try:
        import ctypes

        return ctypes.CDLL("libc.so.6")
    except (OSError, AttributeError, ImportError):  # not glibc: nothing to bound
        return None


def bound_malloc() -> None:
    """At most ARENAS malloc arenas (else each thread keeps the memory it once held). Never raises."""
    libc = _libc()
    if libc is not None and hasattr(libc, "mallopt"):
        libc.mallopt(M_ARENA_MAX, ARENAS)


def give_back() -> None:
    """Return freed heap pages to the system (glibc ``malloc_trim``)."""
    libc = _libc()
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)
