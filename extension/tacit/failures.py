"""What went wrong, in one sentence a person can act on.

Design notes: docs/design/core.md#tacitfailures"""

from __future__ import annotations

import contextlib
import errno
import json
import time

from tacit.fsutil import append_private_line


class LedgerUnavailable(RuntimeError):
    """The ledger could not be used just now (locked too long, corrupt and moved aside, or its disk
    is read-only or full: ``storage``, the error a write in its folder gives)."""

    def __init__(self, message: str, storage: OSError | None = None):
        super().__init__(message)
        self.storage = storage


class InputError(ValueError):
    """What a command was given cannot be used (stdin that is not UTF-8): a clear refusal."""


STORAGE = {
    errno.EACCES: ("permission denied", "check its owner and mode (tacit doctor)"),
    errno.EPERM: ("operation not permitted", "check its owner and mode (tacit doctor)"),
    errno.EROFS: ("the file system is read-only", "tacit can change nothing there until it is writable"),
    errno.ENOSPC: ("no space left on the device", "free some space; nothing was changed"),
    errno.EDQUOT: ("the disk quota is exceeded", "free some space; nothing was changed"),
    errno.EFBIG: ("a file-size limit (ulimit -f) stopped the write",
                  "raise the limit; nothing was changed"),
    errno.EISDIR: ("a folder stands where a file should be", "move that folder away; nothing was changed"),
    errno.ENOTDIR: ("a file stands where a folder should be", "move that file away; nothing was changed"),
    errno.EIO: ("an input/output error", "the disk may be failing"),
}


def describe_failure(exc: BaseException) -> tuple[str, str]:
    """``(sentence, kind)``; kind is storage | ledger | usage | internal."""
    if isinstance(exc, OSError) and exc.errno in STORAGE:
        what, advice = STORAGE[exc.errno]
        where = f" for {exc.filename}" if exc.filename else ""
        return f"storage problem{where}: {what}; {advice}", "storage"
    if isinstance(exc, LedgerUnavailable):
        if exc.storage is not None and exc.storage.errno in STORAGE:
            return describe_failure(exc.storage)
        return f"the ledger could not be used: {exc}", "ledger"
    if isinstance(exc, OSError):
        return f"{exc.strerror or exc}{f' ({exc.filename})' if exc.filename else ''}", "storage"
    if isinstance(exc, InputError):
        return str(exc), "usage"
    if isinstance(exc, UnicodeEncodeError) and "surrogates" in str(exc.reason):  # argv bytes not UTF-8
        return ("the text given is not valid UTF-8 (it holds a byte such as \\xff that is no character); "
                "give it as UTF-8 text"), "usage"
    if isinstance(exc, RecursionError):  # JSON nested past Python's limit: `tacit memory batch -`
        return "the input is nested too deeply to read", "usage"
    if isinstance(exc, OverflowError):  # `tacit memory undo 99999999999999999999`: no such id can exist
        return "a number given is too large: ids and counts are at most 9223372036854775807", "usage"
    return f"internal error: {type(exc).__name__}: {exc} (details in the log; tacit doctor)", "internal"


def failed(exc: BaseException) -> dict:
    """A store's result for ``exc``: ``{"success": False, "error", "error_kind"}``."""
    error, kind = describe_failure(exc)
    return {"success": False, "error": error, "error_kind": kind}


# failures of host events, for ``tacit doctor``
FAILURES_FILE = "failures.jsonl"
FAILURES_MAX_BYTES = 1_000_000
EVERY_EVENT_AT_LEAST = 3  # failures in a row before a session "fails on every event"


def record_failure(cfg, *, where: str, exc: BaseException, session_id: str = "", host: str = "",
                   event_kind: str = "", level: str = "event") -> None:
    """Append what failed (``level``: the event, or a handler) to ``logs/failures.jsonl``; never raises."""
    with contextlib.suppress(Exception):  # a failure record must not become a second failure
        line = json.dumps({"at": time.time(), "session_id": session_id, "host": host, "event": event_kind,
                           "level": level, "where": where, "error": f"{type(exc).__name__}: {exc}"[:300]})
        append_private_line(cfg.log_file.parent / FAILURES_FILE, line, rotate_at=FAILURES_MAX_BYTES)


def _recorded(cfg, since: float) -> list[dict]:
    """The failures recorded since ``since`` (the last 5,000 lines of the file)."""
    try:
        lines = (cfg.log_file.parent / FAILURES_FILE).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    rows = []
    for line in lines[-5000:]:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and float(row.get("at", 0)) >= since:
            rows.append(row)
    return rows


def failing_sessions(cfg, *, since: float, applied: dict[str, float] | None = None) -> list[dict]:
    """Sessions whose last ``EVERY_EVENT_AT_LEAST`` or more events all failed whole, newest first
    (``applied``: session id → time of its last applied event)."""
    by_session: dict[str, list[dict]] = {}
    for row in _recorded(cfg, since):
        if row.get("session_id") and row.get("level", "event") == "event":
            by_session.setdefault(row["session_id"], []).append(row)
    found = []
    for session_id, rows in by_session.items():
        last_ok = (applied or {}).get(session_id, 0.0)
        streak = [r for r in rows if r["at"] > last_ok]
        if len({(r.get("event"), round(r["at"], 3)) for r in streak}) >= EVERY_EVENT_AT_LEAST:
            found.append({"session_id": session_id, "host": streak[-1].get("host", ""), "failures": len(streak),
                          "since": streak[0]["at"], "last_error": streak[-1].get("error", ""),
                          "where": streak[-1].get("where", "")})
    return sorted(found, key=lambda f: -f["since"])


def failing_handlers(cfg, *, since: float) -> dict[str, dict]:
    """handler → {count, last_error} of the handler failures since ``since``."""
    found: dict[str, dict] = {}
    for row in _recorded(cfg, since):
        if row.get("level") == "handler":
            entry = found.setdefault(row.get("where", "?"), {"count": 0, "last_error": ""})
            entry["count"] += 1
            entry["last_error"] = row.get("error", "")
    return found
