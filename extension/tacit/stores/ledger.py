"""Ledger — the one SQLite file where evidence accumulates before it becomes memory; deleting many
of its rows without holding its writer (``delete_where``).

Design notes: docs/design/stores.md#tacitstoresledger"""

from __future__ import annotations

import collections
import glob
import json
import os
import sqlite3
import threading
import time
from contextlib import closing, suppress

from tacit.failures import STORAGE, LedgerUnavailable
from tacit.fsutil import free_name, lock_for, write_fault
from tacit.log import log
from tacit.stores.schema import MIGRATIONS, split_statements

DEFAULT_BUSY_TIMEOUT = 3.0  # seconds a write waits for another process's writer
CACHE_KIB = 512  # SQLite page cache per connection (the service holds one per thread; the OS caches the file)
# A writer of this process waits its turn behind the others (the writer queue), however long their
# transactions take; only a writer stuck this long (a turn never handed back) gives up.
QUEUE_WAIT = 600.0

CORRUPT_ERRORS = ("SQLITE_NOTADB", "SQLITE_CORRUPT")
# the corrupt ledgers this process moved aside, for the command that did it to tell (tacit.commands)
MOVED_ASIDE: list[str] = []
# ledger_meta keys of a ledger made after a corrupt one was moved aside (``Ledger._carry_numbering``):
# the tables whose ids people are told (`tacit memory undo N`, `tacit guard remove N`) go on after them
CARRIED = {"history": "history.after", "guards": "guards.after"}
GAP_KEY = "history.gap"


def next_id(table: str) -> str:
    """SQL for a new row's id in ``table`` (one of ``CARRIED``): after its highest, and after the floor."""
    return (f"(SELECT max(coalesce(max(id), 0), coalesce((SELECT CAST(value AS INTEGER) FROM ledger_meta "
            f"WHERE key = '{CARRIED[table]}'), 0)) + 1 FROM {table})")


# deleting many rows without holding the writer (``delete_where``)
BATCH = 200  # rows per write transaction
SCAN = 5000  # rowids found per read transaction
PAUSE = 0.002  # seconds between batches: a waiting writer goes first


def loads(text):
    """The JSON in ``text`` (a column of this ledger), or None when empty or not JSON."""
    try:
        return json.loads(text) if text else None
    except (TypeError, ValueError):
        return None


def last_ids(path: str) -> dict[str, int] | None:
    """The highest id of each ``CARRIED`` table the ledger file at ``path`` still shows (None: unreadable)."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            return {table: int(conn.execute(f"SELECT max(id) FROM {table}").fetchone()[0] or 0) for table in CARRIED}
    except sqlite3.Error:
        return None


def dicts(cursor) -> list[dict]:
    """The rows of ``cursor``, each a dict by column name (``AS`` names a column as a caller wants it)."""
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor]


def _is_busy(exc: BaseException) -> bool:
    """Locked by another connection: nothing wrong with the disk."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(exc).lower()


def is_corruption(exc: BaseException) -> bool:
    """True for "not a database" / "malformed" — never for "locked"."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name:
        return name.startswith(CORRUPT_ERRORS)
    text = str(exc).lower()  # very old builds without error names
    return "not a database" in text or "malformed" in text


class Ledger:
    """The ledger file: one connection, guarded by a lock."""

    def __init__(self, cfg, *, path=None, busy_timeout: float | None = None):
        self.cfg = cfg
        self.path = os.fspath(path) if path is not None else os.path.join(cfg.state_dir_str, "ledger.db")
        self.busy_timeout = float(DEFAULT_BUSY_TIMEOUT if busy_timeout is None else busy_timeout)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._depth = 0  # open write()/read() blocks on this connection
        self.recovered: list[str] = []  # files moved aside by this instance

    def connection(self) -> sqlite3.Connection:
        """The open, migrated connection (opened on first use)."""
        with self._lock:
            if self._conn is None:
                self._conn = self._open_or_recover()
            return self._conn

    def _open_or_recover(self) -> sqlite3.Connection:
        try:
            return self._open()
        except Exception as exc:
            if not is_corruption(exc):
                raise self._unavailable("opening", exc) from exc
            try:
                self._recover(exc)
                return self._open()
            except Exception as again:
                raise self._unavailable("recovering", again) from again

    def _open(self) -> sqlite3.Connection:
        folder = os.path.dirname(self.path) or "."
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not os.path.exists(self.path):
            # private like the memory files: it holds what the user does
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None,
                               check_same_thread=False)
        try:
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")  # per connection, one per thread: bounded
            conn.execute("PRAGMA foreign_keys=ON")
            # Switching a new file to WAL needs an exclusive lock and SQLite answers "database is
            # locked" at once (no busy wait) when another connection switches it too: serialise the
            # one-time setup on the sibling lock file, and skip it once the file is WAL.
            if self._needs_setup(conn):
                with lock_for(self.path, timeout=max(self.busy_timeout, 1.0)):
                    mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                    if str(mode).lower() != "wal":
                        self._log("warning", f"journal_mode is {mode}, not wal")
                    self._migrate(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    @staticmethod
    def _needs_setup(conn) -> bool:
        """Not WAL yet, or migrations to apply."""
        if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
            return True
        try:
            applied = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
        except sqlite3.OperationalError:
            return True  # a new file: no bookkeeping table yet
        return any(name not in applied for name, _ in MIGRATIONS)

    def _migrate(self, conn) -> None:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                     "(name TEXT PRIMARY KEY, applied_at REAL NOT NULL) WITHOUT ROWID")
        applied = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
        fresh = not applied
        for name, migration in MIGRATIONS:
            if name in applied:
                continue
            conn.execute("BEGIN IMMEDIATE")
            try:
                # re-check under the write lock: another process may have just applied it
                done = conn.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (name,)).fetchone()
                if not done:
                    if callable(migration):
                        migration(conn)
                    else:
                        for statement in split_statements(migration):
                            conn.execute(statement)
                    conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                                 (name, time.time()))
                    if fresh and name == MIGRATIONS[0][0]:  # it makes ledger_meta
                        self._carry_numbering(conn)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def _carry_numbering(self, conn) -> None:
        """A new ledger beside corrupt ones moved aside numbers its changes and guards on after the
        highest ids they show (``CARRIED``), so a number printed before names no other one;
        ``GAP_KEY`` when one of them was unreadable (doctor says numbers may repeat)."""
        moved = [p for p in glob.glob(f"{glob.escape(self.path)}.corrupt-*") if not p.endswith(("-wal", "-shm"))]
        if not moved:
            return
        last = [last_ids(p) for p in moved]
        for table, key in CARRIED.items():
            self.meta_set(conn, key, max((ids[table] for ids in last if ids is not None), default=0))
        if None in last:
            self.meta_set(conn, GAP_KEY, 1)

    def _recover(self, exc: BaseException) -> None:
        """Move a corrupt ledger (and its -wal/-shm) aside, under its file lock; the next open makes one."""
        self._close_quietly()
        with lock_for(self.path, timeout=max(self.busy_timeout, 1.0)):
            if not self._still_corrupt():
                return  # another process already replaced it
            stamp = time.strftime("%Y%m%dT%H%M%S")
            aside = free_name(f"{self.path}.corrupt-{stamp}")
            for suffix in ("", "-wal", "-shm"):
                with suppress(FileNotFoundError):
                    os.replace(self.path + suffix, aside + suffix)
            self.recovered.append(aside)
            MOVED_ASIDE.append(aside)
        self._log("error", f"{self.path} was corrupt ({exc}); moved aside to {aside} "
                           f"and started a fresh ledger")

    def _still_corrupt(self) -> bool:
        if not os.path.exists(self.path):
            return False
        try:
            conn = sqlite3.connect(self.path, timeout=self.busy_timeout)
        except sqlite3.Error:
            return True
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn.execute("PRAGMA quick_check(1)").fetchone()[0] != "ok"
        except sqlite3.Error as exc:
            return is_corruption(exc)
        finally:
            conn.close()

    def write(self) -> "_Transaction":
        """``with ledger.write() as conn:`` — one ``BEGIN IMMEDIATE`` transaction (a SAVEPOINT when
        one is already open on this connection); commits on success, rolls back on error. Locked too
        long or corrupt -> ``LedgerUnavailable`` (a corrupt file is recovered)."""
        return _Transaction(self, immediate=True)

    def probe_write(self) -> None:
        """Write and take back one row: ``LedgerUnavailable`` when the file cannot take a change now
        (read-only, locked too long, a full disk). An empty transaction would not tell: SQLite
        refuses a read-only file only when a page is written."""
        with self.write() as conn:
            self.meta_set(conn, "write-probe", time.time())
            conn.execute("DELETE FROM ledger_meta WHERE key = 'write-probe'")

    def read(self) -> "_Transaction":
        """``with ledger.read() as conn:`` — a consistent snapshot (deferred)."""
        return _Transaction(self, immediate=False)

    def handle_error(self, where: str, exc: BaseException) -> LedgerUnavailable:
        """Classify an sqlite error: recover a corrupt file; wrap as unavailable."""
        if is_corruption(exc):
            try:
                self._recover(exc)
            except Exception as rec_exc:  # noqa: BLE001
                self._log("error", f"recovering {self.path} failed: {rec_exc}")
        return self._unavailable(where, exc)

    def _unavailable(self, where: str, exc: BaseException) -> LedgerUnavailable:
        """``exc`` as unavailable; SQLite's "disk I/O error" or "unable to open" said as the disk's own
        fault (read-only, full …) when a write beside the file shows one."""
        fault = None
        if isinstance(exc, sqlite3.Error) and not is_corruption(exc) and not _is_busy(exc):
            fault = write_fault(os.path.dirname(self.path) or ".", self.path)
        if fault is not None and fault.errno in STORAGE:
            return LedgerUnavailable(f"ledger {where}: {STORAGE[fault.errno][0]}", storage=fault)
        return LedgerUnavailable(f"ledger {where}: {type(exc).__name__}: {exc}")

    def check(self) -> tuple[str, dict]:
        """SQLite's quick_check verdict and each session's last event time (``tacit doctor``)."""
        with self.read() as conn:
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
            last = dict(conn.execute("SELECT session_id, MAX(at) FROM events GROUP BY session_id").fetchall())
        return verdict, last

    # small key/value store
    @staticmethod
    def meta_get(conn, key: str, default=None):
        row = conn.execute("SELECT value FROM ledger_meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else row[0]

    @staticmethod
    def meta_set(conn, key: str, value) -> None:
        conn.execute("INSERT INTO ledger_meta (key, value) VALUES (?, ?) "
                     "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, str(value)))

    def close(self) -> None:
        with self._lock:
            self._close_quietly()

    def _close_quietly(self) -> None:
        if self._conn is not None:
            with suppress(Exception):
                self._conn.close()
            self._conn = None

    def _log(self, level: str, message: str) -> None:
        if self.cfg is not None:
            log(self.cfg, level, "ledger", message)

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _WriterQueue:
    """A lock handed to its waiters in arrival order (``threading.Lock`` is not fair)."""

    def __init__(self):
        self._mutex = threading.Lock()
        self._held = False
        self._waiting: collections.deque = collections.deque()

    def acquire(self, timeout: float) -> bool:
        with self._mutex:
            if not self._held and not self._waiting:
                self._held = True
                return True
            turn = threading.Event()
            self._waiting.append(turn)
        if turn.wait(timeout):
            return True
        with self._mutex:
            if turn.is_set():  # handed over just as the wait ended
                return True
            self._waiting.remove(turn)
            return False

    def release(self) -> None:
        with self._mutex:
            if self._waiting:
                self._waiting.popleft().set()  # ownership passes on; _held stays True
            else:
                self._held = False


_QUEUES: dict[str, _WriterQueue] = {}
_QUEUES_LOCK = threading.Lock()


_OPEN = threading.local()  # by_path: the Ledger whose write transaction is open on this thread


class _Transaction:
    """A transaction, or a SAVEPOINT inside the one already open."""

    __slots__ = ("conn", "immediate", "ledger", "queue", "savepoint")

    def __init__(self, ledger: Ledger, immediate: bool):
        self.ledger, self.immediate, self.conn, self.savepoint = ledger, immediate, None, None
        self.queue: _WriterQueue | None = None

    def __enter__(self) -> sqlite3.Connection:
        # a transaction already open on this thread (through any Ledger of
        # this file) is joined: a second connection would wait for this
        # thread's own write and lose its work after the busy timeout
        ledger = self.ledger = getattr(_OPEN, "by_path", {}).get(self.ledger.path) or self.ledger
        ledger._lock.acquire()
        try:
            conn = ledger.connection()
            if conn.in_transaction:
                self.savepoint = f"sp{ledger._depth}"
                conn.execute(f"SAVEPOINT {self.savepoint}")
            else:
                if self.immediate:
                    with _QUEUES_LOCK:
                        queue = _QUEUES.setdefault(ledger.path, _WriterQueue())
                    if not queue.acquire(QUEUE_WAIT):
                        raise ledger._unavailable("begin", sqlite3.OperationalError(
                            f"no turn to write in {QUEUE_WAIT:.0f} s (another writer of this process is stuck)"))
                    self.queue = queue
                conn.execute("BEGIN IMMEDIATE" if self.immediate else "BEGIN")
                if self.immediate:
                    _OPEN.by_path = {**getattr(_OPEN, "by_path", {}), ledger.path: ledger}
        except BaseException as exc:
            self._leave_queue()
            ledger._lock.release()
            if isinstance(exc, sqlite3.Error):
                raise ledger.handle_error("begin", exc) from exc
            raise
        ledger._depth += 1
        self.conn = conn
        return conn

    def _leave_queue(self) -> None:
        if self.queue is not None:
            self.queue.release()
            self.queue = None

    def __exit__(self, exc_type, exc, tb) -> bool:
        ledger = self.ledger
        try:
            if exc_type is None:
                try:
                    if self.savepoint:
                        self.conn.execute(f"RELEASE {self.savepoint}")
                    else:
                        self.conn.execute("COMMIT")
                except sqlite3.Error as commit_exc:
                    self._rollback()
                    raise ledger.handle_error("commit", commit_exc) from commit_exc
                return False
            self._rollback()
            if isinstance(exc, sqlite3.Error):
                raise ledger.handle_error("write", exc) from exc
            return False
        finally:
            ledger._depth -= 1
            if self.queue is not None:
                _OPEN.by_path = {p: led for p, led in getattr(_OPEN, "by_path", {}).items() if led is not ledger}
            self._leave_queue()
            ledger._lock.release()

    def _rollback(self) -> None:
        with suppress(Exception):
            if self.savepoint:
                self.conn.execute(f"ROLLBACK TO {self.savepoint}")
                self.conn.execute(f"RELEASE {self.savepoint}")
            elif self.conn.in_transaction:
                self.conn.execute("ROLLBACK")


def delete_where(ledger, table: str, where: str, params: tuple = (), *, key: tuple = ("rowid",)) -> int:
    """Delete the rows of ``table`` matching ``where`` (bound to ``params``), found by their ``key``
    columns; how many went. ``table``, ``where`` and ``key`` never come from input."""
    columns = ", ".join(key)
    one = "(" + ",".join("?" * len(key)) + ")"
    total = 0
    while True:
        with ledger.read() as conn:
            keys = conn.execute(f"SELECT {columns} FROM {table} WHERE {where} LIMIT ?", (*params, SCAN)).fetchall()
        if not keys:
            return total
        for start in range(0, len(keys), BATCH):
            chunk = keys[start:start + BATCH]
            values = ",".join([one] * len(chunk))
            flat = tuple(v for row in chunk for v in row)
            started = time.monotonic()
            with ledger.write() as conn:  # re-checked: a row that changed meanwhile stays
                total += conn.execute(f"DELETE FROM {table} WHERE ({columns}) IN (VALUES {values}) "
                                      f"AND ({where})", (*flat, *params)).rowcount
            # at least as long as the batch held the writer: others get half the time
            time.sleep(max(PAUSE, time.monotonic() - started))
        if len(keys) < SCAN:
            return total
