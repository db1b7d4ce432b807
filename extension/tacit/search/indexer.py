"""Catching the index up with every host's session files (docs/search.md).

Design notes: docs/design/search.md#tacitsearchindexer
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
import stat
import time
from pathlib import Path

from tacit.fsutil import lock_for
from tacit.log import log
from tacit.search.source import USER, Cursor, host_sources
from tacit.stores.search_index import SearchIndex

INDEX_FILE = "search.db"
BATCH = 5000
LOCK_SECONDS = 60.0


def index_path(cfg) -> Path:
    return cfg.state_dir / INDEX_FILE


def open_index(cfg) -> SearchIndex:
    """The index; one that is not a database at all (a crash, a bad copy) is made again: it is only
    a cache of the hosts' files, and was otherwise an internal error at every search."""
    try:
        return SearchIndex(index_path(cfg))
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError):
            raise  # locked, read-only, a folder: the caller says so
        log(cfg, "warning", "search", f"search index {index_path(cfg)} is damaged ({exc}): made again")
        remove_index(cfg)
        return SearchIndex(index_path(cfg))


def remove_index(cfg) -> None:
    """Delete the index (``tacit search --reindex`` builds it again)."""
    path = index_path(cfg)
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with contextlib.suppress(FileNotFoundError):
            name.unlink()


def project_tag(key: str) -> str:
    return "p" + hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:12]


def host_tag(host: str) -> str:
    return "h" + re.sub(r"[^a-z0-9]", "", host.lower())


class Projects:
    """Project and exclusion of a working folder, looked up once per catch-up."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.cache: dict = {}

    def of(self, cwd: str | None) -> tuple:
        """(key, name, tag, excluded) for ``cwd``."""
        if cwd in self.cache:
            return self.cache[cwd]
        from tacit.privacy.exclusion import why_excluded
        from tacit.projects import project_for

        project = project_for(cwd, home=self.cfg.env.get("HOME")) if cwd else None
        if project is not None:
            key, name = project.key, project.name
        elif cwd:
            key = os.path.normpath(cwd)
            name = os.path.basename(key) or key
        else:
            key, name = "", ""
        found = (key, name, project_tag(key), bool(cwd) and why_excluded(self.cfg, cwd) is not None)
        self.cache[cwd] = found
        return found


class _FileRun:
    """Reading one file into the index (inside the index's write transaction)."""

    def __init__(self, index: SearchIndex, projects: Projects, host: str, file_id: int, cursor: Cursor):
        from tacit.boundary import scrub
        from tacit.safety import asks_not_to_keep

        self.scrub, self.asks_not_to_keep = scrub, asks_not_to_keep
        self.index, self.projects, self.host, self.file_id, self.cursor = index, projects, host, file_id, cursor
        self.htag = host_tag(host)
        self.sessions: dict = {}
        self.chunk = None  # ((session, turn, asked), session, time, parts, texts) of the chunk being read
        self.messages = self.chars = 0

    def session(self, session_id: str, cwd: str | None) -> dict:
        sess = self.sessions.get(session_id)
        if sess is None:
            sess = self.index.session(self.host, session_id)
            if sess is None:
                key, name, tag, excluded = self.projects.of(cwd)
                sess = self.index.add_session(self.host, session_id, key, name, tag, cwd, excluded)
            self.sessions[session_id] = sess
        if cwd and not sess["cwd"]:  # the folder became known after the first lines
            sess["project"], sess["project_name"], sess["tag"], sess["excluded"] = self.projects.of(cwd)
            sess["cwd"] = cwd
        return sess

    def add(self, entry) -> None:
        cursor = self.cursor
        sess = self.session(entry.session_id or cursor.session_id or "?", entry.cwd or cursor.cwd)
        ts = entry.ts if entry.ts is not None else cursor.ts
        if ts is None:
            ts = time.time()
        cursor.ts = ts
        for part, msg in enumerate(entry.messages):
            if msg.role == USER:
                sess["turn"] += 1
                if self.asks_not_to_keep(msg.text):
                    sess["withheld"] = sess["turn"]
            if sess["excluded"] or sess["withheld"] == sess["turn"]:
                continue
            text = self.scrub(msg.text)
            if not text.strip():
                continue
            key = (sess["id"], sess["turn"], msg.role == USER)  # the ask and the work answering it: two chunks
            if self.chunk is not None and self.chunk[0] != key:
                self.flush()
            if self.chunk is None:
                self.chunk = (key, sess, ts, [], [])
            self.chunk[3].append((entry.pos, entry.length, part, msg.role[0]))
            self.chunk[4].append(text)
            self.messages += 1
            self.chars += len(text)

    def flush(self) -> None:
        """Index the chunk read so far: its words and where its messages are."""
        if self.chunk is not None:
            (sess_id, turn, _asked), sess, ts, parts, texts = self.chunk
            self.index.add_chunk(sess_id, self.file_id, turn, ts, parts, chunk_text(texts),
                                 f"{sess['tag']} {self.htag}")
            self.chunk = None

    def save_sessions(self) -> None:
        self.flush()
        for sess in self.sessions.values():
            self.index.save_session(sess)


def chunk_text(texts: list) -> str:
    """What a chunk's words are read from (again, to remove them: the same join), CJK runs also as
    pairs and last letters (``tacit.search.query.cjk_terms``)."""
    from tacit.search.query import cjk_terms

    text = "\n".join(texts)
    pairs = cjk_terms(text)
    return f"{text}\n{pairs}" if pairs else text


def _read_file(index: SearchIndex, projects: Projects, source, path: str, stamp: tuple, stats: dict) -> None:
    row = index.file(path)
    cursor = Cursor()
    if row is not None:
        old = json.loads(row["stamp"])
        replaced = old[:1] != list(stamp[:1]) or (source.stamp is None and stamp[1] < row["offset"])
        if replaced:
            index.drop_file(row["id"])  # its words cannot be recomputed: they linger unreachable
            row = None
        else:
            cursor = Cursor(row["offset"], row["session_id"], row["cwd"], row["ts"], row["bad"])
    partial = (stamp[0], -1)  # saved mid-file: never equal to a real stamp
    with index.write():
        file_id = row["id"] if row else index.save_file(source.host, path, partial, cursor)
        run = _FileRun(index, projects, source.host, file_id, cursor)
        for n, entry in enumerate(source.read(path, cursor), 1):
            run.add(entry)
            if n % BATCH == 0:
                run.save_sessions()
                index.save_file(source.host, path, partial, cursor)
                index.commit_point()
        run.save_sessions()
        index.save_file(source.host, path, stamp, cursor)
    stats["files_read"] += 1
    stats["messages"] += run.messages
    stats["chars"] += run.chars
    stats["bad_lines"] += cursor.bad - (row["bad"] if row else 0)


def _unindex(index: SearchIndex, by_host: dict, rows, tags: str) -> None:
    """Remove the words of dropped chunks whose text can still be read."""
    from tacit.boundary import scrub

    for cid, parts, host, path in rows:
        source, texts = by_host.get(host), []
        for pos, length, part, role in parts:
            try:
                messages = source.fetch(path, pos, length) if source else []
            except Exception:  # noqa: BLE001 — best effort; the row is unreachable anyway
                messages = []
            if part >= len(messages) or messages[part].role[0] != role:
                break
            texts.append(scrub(messages[part].text))
        else:
            index.unindex(cid, chunk_text(texts), f"{tags} {host_tag(host)}")


def _recheck_exclusions(index: SearchIndex, projects: Projects, by_host: dict) -> None:
    """A project switched off since is removed; one switched back on is read again."""
    for sess_id, host, session_id, cwd, excluded in index.session_folders():
        now = projects.of(cwd)[3] if cwd else False
        if now == bool(excluded):
            continue
        with index.write():
            if now:
                rows = index.drop_session_messages(sess_id)
                _unindex(index, by_host, rows, index.session_row(sess_id)["tag"])
                index.set_excluded(sess_id, True)
            else:
                for file_id, _path in index.files_of(host, session_id) or index.files_of(host):
                    index.drop_file(file_id)
                index.drop_session(sess_id)


def _stamp_text(stamp: tuple) -> str:
    """The stamp as the index keeps it (``json.dumps``; three integers written directly: one per file per search)."""
    if len(stamp) == 3 and type(stamp[0]) is int and type(stamp[1]) is int and type(stamp[2]) is int:
        return f"[{stamp[0]}, {stamp[1]}, {stamp[2]}]"
    return json.dumps(list(stamp))


def _resolved(path: str, folders: dict) -> tuple:
    """``os.path.realpath(path)`` and, unless it is a link, its ``lstat`` (folders resolved once)."""
    folder, _, name = path.rpartition("/")
    real = folders.get(folder)
    if real is None:
        real = folders[folder] = os.path.realpath(folder or ".")
    path = real.rstrip("/") + "/" + name
    if name in ("", ".", ".."):
        return os.path.realpath(path), None
    info = os.lstat(path)
    return (os.path.realpath(path), None) if stat.S_ISLNK(info.st_mode) else (path, info)


def catch_up(cfg, index: SearchIndex, wait: float = LOCK_SECONDS) -> dict:
    """Read what every host wrote since the last catch-up; counts (waits ``wait`` s for another)."""
    sources = host_sources()
    stats = {"files": 0, "files_read": 0, "messages": 0, "chars": 0, "bad_lines": 0, "unreadable": 0}
    projects = Projects(cfg)
    folders: dict = {}
    with lock_for(index.path, timeout=wait):
        _recheck_exclusions(index, projects, {s.host: s for s in sources})
        known = index.stamps()
        present: set = set()
        for source in sources:
            try:
                paths = list(source.files(cfg.env))
            except OSError:
                paths = []
            for path in paths:
                try:
                    real, info = _resolved(path, folders)
                    if source.stamp is not None:
                        stamp = tuple(source.stamp(real))
                    else:
                        info = info or os.stat(real)  # a link: what it leads to
                        stamp = (info.st_ino, info.st_size, info.st_mtime_ns)
                except (OSError, ValueError):
                    stats["unreadable"] += 1  # a symlink loop, a file gone since it was listed
                    continue
                if real in present:
                    continue  # the same file reached twice (a symlink): read once
                present.add(real)
                stats["files"] += 1
                if known.get(real) == _stamp_text(stamp):
                    continue
                try:
                    _read_file(index, projects, source, real, stamp, stats)
                except (OSError, sqlite3.DatabaseError, UnicodeError) as exc:
                    stats["unreadable"] += 1
                    log(cfg, "warning", "search", f"search index: skipped {path}: {exc}")
        if len(present) < len(known):
            # a file this process did not list may be another environment's (a host home set for
            # one host only): it goes once it no longer exists
            kept = {path for path in known if path not in present and os.path.lexists(path)}
            with index.write():
                index.forget_missing(present | kept)
    return stats


def rebuild(cfg) -> dict:
    """``tacit search --reindex``: the index built again from every host's files."""
    remove_index(cfg)
    with contextlib.closing(open_index(cfg)) as index:
        stats = catch_up(cfg, index)
        with index.write():
            index.optimize()
        index.vacuum()
        return {"success": True, "indexed": stats, **index.counts()}


REFRESH_SECONDS = 30.0
_last_refresh = {"at": 0.0}


def refresh(cfg) -> dict | None:
    """The service's background catch-up: at most every ``REFRESH_SECONDS``, once the index exists,
    never waiting for one already running; None when skipped."""
    from tacit.fsutil import LockTimeout

    now = time.monotonic()
    if now - _last_refresh["at"] < REFRESH_SECONDS or not index_path(cfg).exists():
        return None
    _last_refresh["at"] = now
    with contextlib.closing(open_index(cfg)) as index:
        try:
            return catch_up(cfg, index, wait=0.0)
        except LockTimeout:
            return None
