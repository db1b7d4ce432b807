"""Reading a JSONL session file from where it was left, never all at once.

Design notes: docs/design/search.md#tacitsearchjsonl
"""

from __future__ import annotations

import json
import os
import stat
from typing import Callable, Iterator

from tacit.search.source import Cursor, Entry, SessionSource

MAX_LINE = 16 * 1024 * 1024
_CHUNK = 1024 * 1024


def open_regular(path: str):
    """A binary reader for a regular file, or an OSError."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"not a regular file: {path}")
        return os.fdopen(fd, "rb", buffering=_CHUNK)
    except BaseException:
        os.close(fd)
        raise


def _object(raw: bytes):
    try:  # a stray byte that is not UTF-8 costs its character (U+FFFD), not the whole message
        data = json.loads(raw.decode("utf-8-sig", errors="replace"))
    except (ValueError, RecursionError):  # a line nested past Python's limit is one bad line
        return None
    return data if isinstance(data, dict) else None


def lines(path: str, offset: int) -> Iterator[tuple[int, int, dict | None]]:
    """(start, length, object or None) for each complete line after ``offset``."""
    with open_regular(path) as handle:
        handle.seek(offset)
        pos = offset
        while True:
            raw = handle.readline(MAX_LINE + 1)
            if not raw:
                return
            if raw.endswith(b"\n"):
                yield pos, len(raw), (_object(raw) if raw.strip() else None)
                pos += len(raw)
                continue
            if len(raw) <= MAX_LINE:  # the last line, without its newline
                data = _object(raw)
                if data is None:
                    return  # still being written: read it next time
                yield pos, len(raw), data
                return
            skipped = len(raw)  # an over-long line: skip to its end
            while True:
                more = handle.readline(_CHUNK)
                if not more:
                    return  # its end is not written yet
                skipped += len(more)
                if more.endswith(b"\n"):
                    break
            yield pos, skipped, None
            pos += skipped


def read(path: str, cursor: Cursor, parse: Callable[[dict, Cursor], Entry | None]) -> Iterator[Entry]:
    """Entries of ``path`` after ``cursor.offset``; ``cursor`` follows along."""
    for start, length, data in lines(path, cursor.offset):
        cursor.offset = start + length
        if data is None:
            cursor.bad += 1
            continue
        try:
            entry = parse(data, cursor)
        except (TypeError, ValueError, AttributeError, KeyError):
            cursor.bad += 1
            continue
        if entry is not None and entry.messages:
            entry.pos, entry.length = start, length
            yield entry


def fetch(path: str, pos: int, length: int, parse: Callable[[dict, Cursor], Entry | None]) -> list:
    """The messages of the line at ``pos`` (``[]`` when it is gone or changed)."""
    if length > MAX_LINE:
        return []
    try:
        with open_regular(path) as handle:
            raw = os.pread(handle.fileno(), length, pos)
    except OSError:
        return []
    data = _object(raw)
    if data is None:
        return []
    try:
        entry = parse(data, Cursor())
    except (TypeError, ValueError, AttributeError, KeyError):
        return []
    return entry.messages if entry is not None else []


def _is(entry, kind: str) -> bool:
    try:
        return entry.is_dir() if kind == "dir" else entry.is_file()
    except OSError:  # a symlink loop, a file gone since the listing
        return False


def entries(folder: str, kind: str, prefix: str = "", suffix: str = "") -> list:
    """Paths of the files (``kind="file"``) or folders in ``folder`` whose names match (never raises)."""
    try:
        found = list(os.scandir(folder))
    except OSError:
        return []
    return sorted(e.path for e in found if e.name.startswith(prefix) and e.name.endswith(suffix) and _is(e, kind))


def source(host: str, files, parse) -> SessionSource:
    """A host's ``<session id>.jsonl`` files as a ``SessionSource``, lines read by ``parse``."""

    def read_session(path: str, cursor: Cursor):
        if cursor.session_id is None:
            cursor.session_id = os.path.basename(path)[: -len(".jsonl")]
        return read(path, cursor, parse)

    return SessionSource(host=host, files=files, read=read_session,
                         fetch=lambda path, pos, length: fetch(path, pos, length, parse))
