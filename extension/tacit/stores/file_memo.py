"""What was worked out from a file, kept on disk until the file changes; what was derived from a
text (``DerivedMemo``: guards), kept by that very text (never raises on a bad memo).

Design notes: docs/design/stores.md#tacitstoresfile_memo"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
import time
from contextlib import suppress

from tacit.fsutil import ensure_private_dir, unlink_quietly
from tacit.paths import PACKAGE_DIR, run_dir

MAGIC = "tacit-memo-1"
FOLDER = "memo"
_MEMOS: dict[str, "FileMemo"] = {}
_MEMOS_LOCK = threading.Lock()


@functools.cache
def code_stamp() -> str:
    """The newest mtime and the count of tacit's own modules (a changed rule changes it)."""
    newest, count = 0, 0
    for folder, _dirs, files in os.walk(PACKAGE_DIR):
        for name in files:
            if name.endswith(".py"):
                try:
                    newest = max(newest, os.stat(os.path.join(folder, name)).st_mtime_ns)
                except OSError:
                    continue
                count += 1
    return f"{newest}-{count}"


def signature(path: str) -> list | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def settled(path: str) -> list | None:
    """``signature`` of a file last changed over 100 ms ago (a later write shows in its times even
    where they are coarse), else None."""
    sig = signature(path)
    return sig if sig is not None and time.time_ns() - max(sig[1], sig[2]) > 100_000_000 else None


def memo_for(cfg, kind: str, root: str) -> "FileMemo":
    """The process-wide memo of ``kind`` for the files under ``root``."""
    digest = hashlib.sha1(f"{kind}\0{root}".encode("utf-8", "surrogateescape")).hexdigest()[:20]
    path = os.path.join(run_dir(cfg.state_dir_str), FOLDER, f"{kind}-{digest}.json")
    with _MEMOS_LOCK:
        memo = _MEMOS.get(path)
        if memo is None:
            memo = _MEMOS[path] = FileMemo(path)
        return memo


class FileMemo:
    def __init__(self, path: str):
        self.path = path
        self._lock = threading.Lock()
        self._entries: dict | None = None
        self._used: set[str] = set()
        self._dirty = False

    def _load(self) -> dict:
        if self._entries is None:
            self._entries = {}
            with suppress((OSError, ValueError, TypeError, KeyError, AttributeError)):
                with open(self.path, "rb") as handle:
                    data = json.loads(handle.read())
                if data.get("magic") == MAGIC and data.get("code") == code_stamp():
                    self._entries = dict(data["entries"])
        return self._entries

    def get(self, file: str, sig: list | None):
        """The value kept for ``file`` at this signature, else None."""
        if sig is None:
            return None
        with self._lock:
            found = self._load().get(file)
            if isinstance(found, list) and len(found) == 2 and found[0] == sig:
                self._used.add(file)
                return found[1]
        return None

    def put(self, file: str, sig: list | None, value) -> None:
        if sig is None:
            return
        with self._lock:
            self._load()[file] = [sig, value]
            self._used.add(file)
            self._dirty = True

    def save(self, prune: bool = False, limit: int | None = None) -> None:
        """Write it when something was added (``prune``: keep only what this build used)."""
        with self._lock:
            entries = self._load()
            prune = prune or (limit is not None and len(entries) > limit)
            if prune and len(self._used) < len(entries):
                self._entries = entries = {k: v for k, v in entries.items() if k in self._used}
                self._dirty = True
            self._used = set()
            if not self._dirty:
                return
            data = json.dumps({"magic": MAGIC, "code": code_stamp(), "entries": entries},
                              separators=(",", ":")).encode("utf-8")
            self._dirty = False
        tmp = f"{self.path}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:  # no fsync: a memo lost in a crash is computed again
            ensure_private_dir(os.path.dirname(self.path))
            with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as handle:
                handle.write(data)
            os.replace(tmp, self.path)
        except OSError:  # a read-only or full disk: the next process computes it again
            unlink_quietly(tmp)


_DECODED: dict[str, tuple] = {}  # text hash -> (the kept value, its items): checked and decoded once a process


class DerivedMemo:
    """``kept(text, derive, encode, decode)`` for the texts of one ``kind`` under one root."""

    def __init__(self, cfg, kind: str, root: str | None):
        self._memo = memo_for(cfg, kind, root or "")

    def kept(self, text: str, derive, encode, decode) -> list:
        """``decode`` of each item kept for ``text``; else ``derive()``'s items, kept."""
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        found = self._memo.get(key, [len(text)])
        done = _DECODED.get(key)
        if done is not None and done[0] is found:
            return list(done[1])
        if isinstance(found, dict) and isinstance(found.get("items"), list) and found.get("sum") == _sum(
                key, found["items"]):
            try:
                items = [decode(item) for item in found["items"]]
                if len(_DECODED) > 50000:
                    _DECODED.clear()
                _DECODED[key] = (found, items)
                return list(items)
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                pass  # derived again below
        items = list(derive())
        encoded = [encode(item) for item in items]
        self._memo.put(key, [len(text)], {"items": encoded, "sum": _sum(key, encoded)})
        return items

    def save(self) -> None:
        """Write what was added; keep only the texts looked up since the last save."""
        self._memo.save(prune=True)


def _sum(key: str, items) -> str:
    raw = key + json.dumps(items, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:24]
