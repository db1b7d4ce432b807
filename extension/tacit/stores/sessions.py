"""SessionStore: session state and the event log, in the ledger.

Design notes: docs/design/stores.md#tacitstoressessions"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterator

from tacit.session import SessionState
from tacit.stores.jobs import insert as insert_job  # the engine writes its jobs with its events
from tacit.stores.ledger import Ledger, delete_where, loads

CACHE_SESSIONS = 2000
EVENT_RETENTION_DAYS = 2
JOB_RETENTION_DAYS = 30


@dataclass
class Application:
    """One event being applied: ``seen`` is the stored result when it was applied before."""

    state: SessionState | None
    seen: dict | None = None
    result: dict = field(default_factory=dict)
    background: dict | None = None  # the event, when background handlers must run
    jobs: list = field(default_factory=list)


class SessionStore:
    def __init__(self, ledger: Callable[[], Ledger], *, max_age_days: float = 7):
        self._ledger = ledger  # this thread's Ledger
        self.max_age = max_age_days * 86400
        self._cache: OrderedDict[str, tuple[int, SessionState]] = OrderedDict()
        self._recent: dict[str, list] = {}
        self._lock = threading.RLock()

    @contextmanager
    def applying(self, event) -> Iterator[Application]:
        with self._lock:
            try:
                with self._ledger().write() as conn:
                    if event.id:
                        row = conn.execute("SELECT result FROM events WHERE id = ?", (event.id,)).fetchone()
                        if row is not None:
                            yield Application(state=None, seen=loads(row[0]))
                            return
                    state, rev = self._load(conn, event.session_id)
                    before = state.to_json()
                    app = Application(state=state)
                    yield app
                    if event.host and not state.host:
                        state.host = event.host
                    if event.cwd and state.cwd != event.cwd:
                        state.cwd = event.cwd
                    rev = self._save(conn, state, rev, before)
                    event_id = event.id or (f"local-{uuid.uuid4().hex}" if app.background else "")
                    if event_id:
                        conn.execute(
                            "INSERT INTO events (id, session_id, kind, at, result, background, event) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (event_id, event.session_id, event.kind, time.time(),
                             json.dumps(app.result, ensure_ascii=False),
                             1 if app.background else 0,
                             json.dumps(app.background, ensure_ascii=False) if app.background else None))
                    for job in app.jobs:
                        insert_job(conn, job)
            except BaseException:  # not committed (a handler, or the commit itself, failed): the
                self._cache.pop(event.session_id, None)  # state changed in place must not be reused
                raise
        self._remember(state, rev)

    @contextmanager
    def updating(self, session_id: str) -> Iterator[SessionState]:
        """Change a session's state outside an event (a runner's mark, a launcher's pid)."""
        with self._lock, self._ledger().write() as conn:
            state, rev = self._load(conn, session_id)
            before = state.to_json()
            yield state
            rev = self._save(conn, state, rev, before)
        self._remember(state, rev)

    def marked(self, mark: str, limit: int = 50) -> list[str]:
        """Sessions whose state may hold ``mark`` (the caller reads the state to be sure)."""
        with self._lock, self._ledger().read() as conn:
            return [r[0] for r in conn.execute("SELECT session_id FROM sessions WHERE instr(state, ?) > 0 LIMIT ?",
                                               (json.dumps(mark), limit))]

    def peek(self, session_id: str) -> SessionState:
        with self._lock, self._ledger().read() as conn:
            return self._load(conn, session_id)[0]

    def _load(self, conn, session_id: str) -> tuple[SessionState, int | None]:
        row = conn.execute("SELECT rev, state FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        cached = self._cache.get(session_id)
        if row is None:
            state, rev = SessionState(session_id=session_id), None
        elif cached is not None and cached[0] == row[0]:
            self._cache.move_to_end(session_id)
            return cached[1], row[0]
        else:
            state, rev = SessionState.from_json(session_id, row[1]), row[0]
        state.recent = self._recent.setdefault(session_id, [])
        return state, rev

    def _save(self, conn, state: SessionState, rev: int | None, before: str) -> int:
        after = state.to_json()
        now = time.time()
        if rev is None:
            conn.execute("INSERT INTO sessions (session_id, host, cwd, state, rev, created_at, updated_at) "
                         "VALUES (?, ?, ?, ?, 1, ?, ?)",
                         (state.session_id, state.host, state.cwd or "", after, now, now))
            return 1
        if after != before:
            rev += 1
            conn.execute("UPDATE sessions SET state = ?, rev = ?, host = ?, cwd = ?, updated_at = ? "
                         "WHERE session_id = ?",
                         (after, rev, state.host, state.cwd or "", now, state.session_id))
        return rev

    def _remember(self, state: SessionState, rev: int) -> None:
        self._cache[state.session_id] = (rev, state)
        self._cache.move_to_end(state.session_id)
        while len(self._cache) > CACHE_SESSIONS:
            old, _ = self._cache.popitem(last=False)
            self._recent.pop(old, None)

    def pending_background(self, limit: int = 200) -> list[tuple[int, dict]]:
        with self._ledger().read() as conn:
            rows = conn.execute("SELECT seq, event FROM events WHERE background = 1 "
                                "ORDER BY seq LIMIT ?", (limit,)).fetchall()
        return [(seq, data) for seq, text in rows if isinstance(data := loads(text), dict)]

    @staticmethod
    def finish_background(conn, seq: int) -> None:
        # the event text is dropped with the flag: the log keeps ids, not what was said
        conn.execute("UPDATE events SET background = 0, event = NULL WHERE seq = ?", (seq,))

    @staticmethod
    def once(conn, key: str) -> bool:
        """Record ``key``; False when it was recorded before (already applied)."""
        cur = conn.execute("INSERT OR IGNORE INTO applied_once (key, at) VALUES (?, ?)", (key, time.time()))
        return cur.rowcount == 1

    def prune(self, now: float | None = None) -> dict:
        """In small batches, outside this store's lock (events keep being applied)."""
        now = time.time() if now is None else now
        events_cut = now - EVENT_RETENTION_DAYS * 86400
        ledger = self._ledger()
        out = {
            "events": delete_where(ledger, "events", "background = 0 AND at < ?", (events_cut,)),
            "applied_once": delete_where(ledger, "applied_once", "at < ?", (events_cut,), key=("key",)),
            "sessions": delete_where(ledger, "sessions", "updated_at < ?", (now - self.max_age,),
                                     key=("session_id",)),
            "jobs": delete_where(ledger, "jobs", "status IN ('done', 'failed') AND created_at < ?",
                                 (now - JOB_RETENTION_DAYS * 86400,), key=("id",)),
        }
        with self._lock:
            for session_id in [s for s in self._cache if s not in self._recent]:
                self._cache.pop(session_id, None)
        return out
