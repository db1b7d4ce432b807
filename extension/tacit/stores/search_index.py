"""The past-session index: every SQL statement ``tacit search`` runs.

Design notes: docs/design/stores.md#tacitstoressearch_index"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager, suppress
from pathlib import Path

VERSION = 4  # PRAGMA user_version of this layout (3: CJK runs also as pairs; 4: and last letters)
SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY, host TEXT NOT NULL, path TEXT NOT NULL UNIQUE, stamp TEXT NOT NULL,
  offset INTEGER NOT NULL, session_id TEXT, cwd TEXT, ts REAL, bad INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS sessions (
  id INTEGER PRIMARY KEY, host TEXT NOT NULL, session_id TEXT NOT NULL, project TEXT NOT NULL,
  project_name TEXT NOT NULL, tag TEXT NOT NULL, cwd TEXT, turn INTEGER NOT NULL DEFAULT 0,
  withheld INTEGER NOT NULL DEFAULT -1, excluded INTEGER NOT NULL DEFAULT 0, UNIQUE (host, session_id));
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY AUTOINCREMENT, sess INTEGER NOT NULL, file INTEGER NOT NULL, turn INTEGER NOT NULL,
  role TEXT NOT NULL, ts INTEGER NOT NULL, n INTEGER NOT NULL, parts BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_turn ON chunks (sess, turn);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5 (
  text, tags, content='', tokenize='porter unicode61 remove_diacritics 2');
"""
_OLD_TABLES = ("fts", "msgs", "chunks", "sessions", "files")
_FILE_COLUMNS = "id, host, path, stamp, offset, session_id, cwd, ts, bad"
_SESSION_COLUMNS = "id, host, session_id, project, project_name, tag, cwd, turn, withheld, excluded"
_ROLES = "uat"  # user, assistant, tool: a message's role in ``parts``


def pack(parts: list) -> bytes:
    """(pos, length, part, role letter) of each message as varints (pos as a step): ~5 bytes each."""
    out = bytearray()
    last = 0
    for pos, length, part, role in parts:
        step = pos - last
        for value in ((step << 1) if step >= 0 else ((-step << 1) - 1), length, part, _ROLES.index(role)):
            while value >= 0x80:
                out.append((value & 0x7F) | 0x80)
                value >>= 7
            out.append(value)
        last = pos
    return bytes(out)


def unpack(blob: bytes) -> list:
    values, value, shift = [], 0, 0
    for byte in blob:
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            values.append(value)
            value = shift = 0
    parts, last = [], 0
    for i in range(0, len(values) - 3, 4):
        step = values[i] >> 1 if not values[i] & 1 else -((values[i] + 1) >> 1)
        last += step
        parts.append((last, values[i + 1], values[i + 2], _ROLES[values[i + 3]]))
    return parts


def _since(since: float | None) -> float:
    return since if since is not None else float("-inf")


def _private(path: Path) -> None:
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with suppress(OSError):
            os.chmod(name, 0o600)


class SearchIndex:
    """One connection to ``search.db``; rows come back as tuples or dicts."""

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fresh = not self.path.exists()
        self.conn = sqlite3.connect(str(self.path), timeout=10.0, isolation_level=None,
                                    check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        if not fresh and self.conn.execute("PRAGMA user_version").fetchone()[0] != VERSION:
            for table in _OLD_TABLES:  # an older layout: read every file again
                self.conn.execute(f"DROP TABLE IF EXISTS {table}")
            fresh = True
        self.conn.executescript(SCHEMA)
        self.conn.execute(f"PRAGMA user_version = {VERSION}")
        if fresh:
            self.conn.execute("INSERT INTO fts (fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)')")
        _private(self.path)

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def write(self):
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def commit_point(self) -> None:
        """Inside ``write``: commit what is done so far and go on in a new transaction."""
        self.conn.execute("COMMIT")
        self.conn.execute("BEGIN IMMEDIATE")

    def _row(self, columns: str, sql: str, args: tuple) -> dict | None:
        row = self.conn.execute(f"SELECT {columns} {sql}", args).fetchone()
        return dict(zip(columns.split(", "), row)) if row else None

    def file(self, path: str) -> dict | None:
        return self._row(_FILE_COLUMNS, "FROM files WHERE path = ?", (path,))

    def stamps(self) -> dict:
        """path -> stamp of every file read so far (one query per catch-up)."""
        return dict(self.conn.execute("SELECT path, stamp FROM files"))

    def save_file(self, host: str, path: str, stamp, cursor) -> int:
        self.conn.execute(
            "INSERT INTO files (host, path, stamp, offset, session_id, cwd, ts, bad) VALUES (?,?,?,?,?,?,?,?) "
            "ON CONFLICT (path) DO UPDATE SET stamp = excluded.stamp, offset = excluded.offset, "
            "session_id = excluded.session_id, cwd = excluded.cwd, ts = excluded.ts, bad = excluded.bad",
            (host, path, json.dumps(list(stamp)), cursor.offset, cursor.session_id, cursor.cwd, cursor.ts,
             cursor.bad))
        return self.conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()[0]

    def files_of(self, host: str, session_id: str | None = None) -> list:
        sql, args = "SELECT id, path FROM files WHERE host = ?", [host]
        if session_id is not None:
            sql, args = sql + " AND session_id = ?", args + [session_id]
        return self.conn.execute(sql, args).fetchall()

    def drop_file(self, file_id: int) -> None:
        """Forget a file (it is read again from its start); its chunk rows go."""
        self.conn.execute("DELETE FROM chunks WHERE file = ?", (file_id,))
        self.conn.execute("DELETE FROM files WHERE id = ?", (file_id,))

    def forget_missing(self, present: set) -> int:
        """Drop the files that no longer exist (their messages can no longer be shown)."""
        gone = [fid for fid, path in self.conn.execute("SELECT id, path FROM files") if path not in present]
        for fid in gone:
            self.drop_file(fid)
        return len(gone)

    def session(self, host: str, session_id: str) -> dict | None:
        where = "FROM sessions WHERE host = ? AND session_id = ?"
        return self._row(_SESSION_COLUMNS, where, (host, session_id))

    def add_session(self, host, session_id, project, project_name, tag, cwd, excluded) -> dict:
        self.conn.execute("INSERT INTO sessions (host, session_id, project, project_name, tag, cwd, excluded) "
                          "VALUES (?,?,?,?,?,?,?)", (host, session_id, project, project_name, tag, cwd, int(excluded)))
        return self.session(host, session_id)

    def save_session(self, sess: dict) -> None:
        self.conn.execute("UPDATE sessions SET turn = ?, withheld = ?, excluded = ?, project = ?, project_name = ?, "
                          "tag = ?, cwd = ? WHERE id = ?",
                          (sess["turn"], sess["withheld"], int(sess["excluded"]), sess["project"],
                           sess["project_name"], sess["tag"], sess["cwd"], sess["id"]))

    def session_folders(self) -> list:
        """(id, host, session_id, cwd, excluded) of every session."""
        return self.conn.execute("SELECT id, host, session_id, cwd, excluded FROM sessions").fetchall()

    def drop_session_messages(self, sess_id: int) -> list:
        """Drop a session's chunks: (chunk id, [(pos, length, part, role)], host, path) of each."""
        rows = self.conn.execute("SELECT c.id, c.parts, f.host, f.path FROM chunks c "
                                 "JOIN files f ON f.id = c.file WHERE c.sess = ?", (sess_id,)).fetchall()
        self.conn.execute("DELETE FROM chunks WHERE sess = ?", (sess_id,))
        return [(cid, unpack(parts), host, path) for cid, parts, host, path in rows]

    def drop_session(self, sess_id: int) -> None:
        self.conn.execute("DELETE FROM chunks WHERE sess = ?", (sess_id,))
        self.conn.execute("DELETE FROM sessions WHERE id = ?", (sess_id,))

    def set_excluded(self, sess_id: int, excluded: bool) -> None:
        self.conn.execute("UPDATE sessions SET excluded = ? WHERE id = ?", (int(excluded), sess_id))

    def add_chunk(self, sess: int, file: int, turn: int, ts: float, parts: list, text: str, tags: str) -> None:
        """Messages of one exchange, read in one go: ``parts`` (pos, length, part, role letter) each, ``text`` their words."""
        roles = {p[3] for p in parts}
        role = "u" if "u" in roles else "a" if "a" in roles else "t"  # whose words these are, mostly
        cur = self.conn.execute("INSERT INTO chunks (sess, file, turn, role, ts, n, parts) VALUES (?,?,?,?,?,?,?)",
                                (sess, file, turn, role, int(ts), len(parts), pack(parts)))
        self.conn.execute("INSERT INTO fts (rowid, text, tags) VALUES (?, ?, ?)", (cur.lastrowid, text, tags))

    def unindex(self, rowid: int, text: str, tags: str) -> None:
        """Remove a chunk's words (contentless: the same text as indexed is needed)."""
        self.conn.execute("INSERT INTO fts (fts, rowid, text, tags) VALUES ('delete', ?, ?, ?)", (rowid, text, tags))

    def optimize(self) -> None:
        """Merge the full-text index into one segment (after a full rebuild)."""
        self.conn.execute("INSERT INTO fts (fts) VALUES ('optimize')")

    def vacuum(self) -> None:
        """Give the pages a rebuild freed back to the file system."""
        self.conn.execute("VACUUM")
        _private(self.path)

    def has_term(self, term: str) -> bool:
        """Does any message hold ``term`` (stemmed as indexed)? Stops at the first."""
        match = 'text : "' + term.replace('"', '""') + '"'
        return self.conn.execute("SELECT 1 FROM fts WHERE fts MATCH ? LIMIT 1", (match,)).fetchone() is not None

    def count(self, match: str, cap: int) -> int:
        """How many messages match, counted up to ``cap`` (bounded work)."""
        return self.conn.execute("SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)",
                                 (match, cap)).fetchone()[0]

    def hits(self, match: str, since: float | None, limit: int) -> list:
        """(bm25, msg id, session row, turn, role, ts) of the best ``limit`` matches (all ranked)."""
        return self.conn.execute(
            "WITH h AS (SELECT rowid AS id, bm25(fts, 1.0, 0.0) AS score FROM fts WHERE fts MATCH ? ORDER BY rank "
            "LIMIT ?) SELECT h.score, m.id, m.sess, m.turn, m.role, m.ts FROM h JOIN chunks m ON m.id = h.id "
            "JOIN sessions s ON s.id = m.sess WHERE s.excluded = 0 AND m.ts >= ?",
            (match, limit, _since(since))).fetchall()

    def newest_ids(self, match: str, limit: int) -> list:
        """Ids of the newest ``limit`` matches, newest first (no ranking)."""
        return [r[0] for r in self.conn.execute(
            "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid DESC LIMIT ?", (match, limit))]

    def ids_from(self, match: str, lowest: int) -> set:
        """Ids of the matches from ``lowest`` on (the tail of each word's list)."""
        return {r[0] for r in self.conn.execute("SELECT rowid FROM fts WHERE fts MATCH ? AND rowid >= ?",
                                                (match, lowest))}

    def messages(self, ids: list, since: float | None) -> list:
        """(chunk id, session row, turn, role, ts) of these chunks, in shown sessions, since then."""
        return self.conn.execute(
            "SELECT m.id, m.sess, m.turn, m.role, m.ts FROM chunks m JOIN sessions s ON s.id = m.sess "
            "WHERE m.id IN (SELECT value FROM json_each(?)) AND s.excluded = 0 AND m.ts >= ?",
            (json.dumps(ids), _since(since))).fetchall()

    def session_row(self, sess_id: int) -> dict:
        return self._row(_SESSION_COLUMNS, "FROM sessions WHERE id = ?", (sess_id,))

    def exchange(self, sess_id: int, turn: int) -> list:
        """(role, part, ts, pos, len, host, path) of a turn's messages, in order."""
        rows = self.conn.execute(
            "SELECT c.parts, c.ts, f.host, f.path FROM chunks c JOIN files f ON f.id = c.file "
            "WHERE c.sess = ? AND c.turn = ? ORDER BY c.id", (sess_id, turn)).fetchall()
        return [(role, part, ts, pos, length, host, path)
                for blob, ts, host, path in rows for pos, length, part, role in unpack(blob)]

    def counts(self) -> dict:
        one = self.conn.execute
        return {"files": one("SELECT count(*) FROM files").fetchone()[0],
                "sessions": one("SELECT count(*) FROM sessions").fetchone()[0],
                "messages": one("SELECT coalesce(sum(n), 0) FROM chunks").fetchone()[0]}
