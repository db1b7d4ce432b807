"""Ledger — the one SQLite file where evidence accumulates before it becomes memory.

Design notes: docs/design/stores.md#tacitstoresledger"""

from __future__ import annotations

import collections
import json
import os
import sqlite3
import threading
import time
from contextlib import suppress

from tacit.failures import LedgerUnavailable
from tacit.fsutil import lock_for
from tacit.log import log

DEFAULT_BUSY_TIMEOUT = 3.0  # seconds a write waits for another process's writer
CACHE_KIB = 512  # SQLite page cache per connection (the service holds one per thread; the OS caches the file)
# A writer of this process waits its turn behind the others (the writer queue), however long their
# transactions take; only a writer stuck this long (a turn never handed back) gives up.
QUEUE_WAIT = 600.0

# Schema. Append new migrations at the end; never edit an applied one.
_CORE_SCHEMA = """
CREATE TABLE ledger_meta (
    key   TEXT PRIMARY KEY,
    value TEXT
) WITHOUT ROWID;

-- One row per run of a plugin, command, skill or tool.
CREATE TABLE observations (
    id            INTEGER PRIMARY KEY,
    plugin        TEXT NOT NULL,
    action        TEXT NOT NULL,
    context       TEXT NOT NULL DEFAULT '{}',   -- JSON object, as reported
    session_id    TEXT,
    observed_at   REAL NOT NULL,                -- unix seconds
    source        TEXT NOT NULL DEFAULT 'explicit',  -- explicit | command | tool
    -- typed copies of context fields the rules match on (slugs, not display text)
    entity        TEXT,
    entity_type   TEXT,
    category      TEXT,
    user_edited   INTEGER NOT NULL DEFAULT 0 CHECK (user_edited IN (0, 1)),
    edit_slug     TEXT,
    run_hour      INTEGER CHECK (run_hour BETWEEN 0 AND 23)
);
-- rule 1: same plugin, entity, category
CREATE INDEX idx_obs_categorized ON observations (plugin, entity, category)
    WHERE category IS NOT NULL AND entity IS NOT NULL;
-- rule 2: same plugin, same edit, user_edited = 1
CREATE INDEX idx_obs_overrides ON observations (plugin, edit_slug)
    WHERE user_edited = 1 AND edit_slug IS NOT NULL;
-- rule 4: the previous runs of this session (tool calls are not runs)
CREATE INDEX idx_obs_session_runs ON observations (session_id, id)
    WHERE source != 'tool' AND session_id IS NOT NULL;
-- rule 5: same plugin, same hour of day
CREATE INDEX idx_obs_hourly ON observations (plugin, run_hour)
    WHERE source != 'tool' AND run_hour IS NOT NULL;

-- rule 4's evidence, kept incrementally: which sessions contained a sequence
CREATE TABLE observed_sequences (
    seq_key    TEXT NOT NULL,
    session_id TEXT NOT NULL,
    first_at   REAL NOT NULL,
    PRIMARY KEY (seq_key, session_id)
) WITHOUT ROWID;

-- The shared lifecycle: candidate -> confirmed -> applied (-> dismissed).
CREATE TABLE memories (
    id              INTEGER PRIMARY KEY,
    key             TEXT NOT NULL UNIQUE,
    kind            TEXT NOT NULL,        -- pattern | preference | fact | workflow | ...
    source          TEXT NOT NULL,        -- the detector: rule1..rule5 | habits | teach | ...
    content         TEXT NOT NULL,        -- the sentence that goes into the memory file
    target          TEXT NOT NULL DEFAULT 'memory' CHECK (target IN ('memory', 'user')),
    status          TEXT NOT NULL DEFAULT 'candidate'
                    CHECK (status IN ('candidate', 'confirmed', 'applied', 'dismissed')),
    confidence      INTEGER NOT NULL CHECK (confidence BETWEEN 0 AND 100),
    times_confirmed INTEGER NOT NULL DEFAULT 0,
    plugin          TEXT,                 -- set when support must come from this plugin
    entity          TEXT,                 -- entity slug the memory is about, if any
    adaptation      TEXT,                 -- "Now ..." sentence logged when applied
    data            TEXT NOT NULL DEFAULT '{}',  -- detector-specific JSON
    created_at      REAL NOT NULL,
    updated_at      REAL NOT NULL,
    last_used_at    REAL NOT NULL,        -- created or last reinforced
    expires_at      REAL,                 -- TTL (rule 5: 90 days)
    applied_at      REAL,
    applied_text    TEXT,                 -- the exact entry written to the memory file
    dismissed_at    REAL
);
CREATE INDEX idx_memories_status ON memories (status);
CREATE INDEX idx_memories_entity ON memories (entity) WHERE entity IS NOT NULL;

-- What supported a memory: one row per (memory, piece of evidence), so one
-- observation can reinforce one memory at most once, whatever replays it.
CREATE TABLE memory_evidence (
    memory_id   INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    ref         TEXT NOT NULL,            -- 'obs:<id>' | 'session:<id>' | ...
    session_key TEXT NOT NULL,            -- session id, or the ref when there is none
    role        TEXT NOT NULL CHECK (role IN ('create', 'confirm')),
    at          REAL NOT NULL,
    PRIMARY KEY (memory_id, ref)
) WITHOUT ROWID;

CREATE TABLE adaptations (
    id          INTEGER PRIMARY KEY,
    memory_id   INTEGER REFERENCES memories (id) ON DELETE SET NULL,
    memory_key  TEXT NOT NULL,
    description TEXT NOT NULL,            -- "Now ..."
    status      TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'reverted')),
    created_at  REAL NOT NULL,
    reverted_at REAL,
    reason      TEXT                      -- forget | decay | expired
);
CREATE INDEX idx_adaptations_memory ON adaptations (memory_id);

-- One-time user notices created where they cannot be shown (background).
CREATE TABLE notices (
    id            INTEGER PRIMARY KEY,
    text          TEXT NOT NULL,
    adaptation_id INTEGER,
    created_at    REAL NOT NULL,
    delivered_at  REAL
);
CREATE INDEX idx_notices_pending ON notices (id) WHERE delivered_at IS NULL;

-- Habits: tool and command sequences.
CREATE TABLE action_events (
    id         INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    action     TEXT NOT NULL,
    ts         REAL NOT NULL
);
CREATE INDEX idx_action_events_session ON action_events (session_id, ts, id);
CREATE INDEX idx_action_events_ts ON action_events (ts);

CREATE TABLE habits (
    pattern             TEXT PRIMARY KEY,     -- 'a → b' or 'a → b → c'
    steps               TEXT NOT NULL,        -- JSON list
    length              INTEGER NOT NULL,
    count               INTEGER NOT NULL,     -- occurrences in the window
    sessions            INTEGER NOT NULL,     -- sessions containing it
    sessions_considered INTEGER NOT NULL,     -- sessions where its first step ran
    confidence          REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    avg_gap             REAL NOT NULL,
    first_seen          REAL NOT NULL,
    last_seen           REAL NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('emerging', 'habit')),
    mined_at            REAL NOT NULL
) WITHOUT ROWID;
"""

# issue 8: fix patterns
_FIX_PATTERNS_SCHEMA = """
-- "the bug was X, the fix is Y", forged from the agent's replies
CREATE TABLE fix_patterns (
    id              INTEGER PRIMARY KEY,
    key             TEXT NOT NULL UNIQUE,     -- hash of the problem and solution tokens
    title           TEXT NOT NULL,            -- from the user's message
    problem         TEXT NOT NULL,
    solution        TEXT NOT NULL,
    lookup_text     TEXT NOT NULL,            -- what the index ranks (problem + identifiers)
    lookup_tokens   TEXT NOT NULL,            -- the indexed terms, space-separated
    tags            TEXT NOT NULL DEFAULT '[]',
    trigger         TEXT,                     -- which detector triggers matched
    confidence      REAL,
    status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retired')),
    session_id      TEXT,
    times_forged    INTEGER NOT NULL DEFAULT 1,
    times_injected  INTEGER NOT NULL DEFAULT 0,
    successes       INTEGER NOT NULL DEFAULT 0,
    failures        INTEGER NOT NULL DEFAULT 0,
    created_at      REAL NOT NULL,
    updated_at      REAL NOT NULL,
    fresh_at        REAL NOT NULL,            -- created, re-forged or last success
    last_injected_at REAL,
    retired_at      REAL,
    retired_reason  TEXT
);
CREATE INDEX idx_fix_patterns_status ON fix_patterns (status, fresh_at);

-- one row per (pattern, session, message, what happened): replaying a
-- journal never counts an injection or an outcome twice
CREATE TABLE fix_pattern_events (
    pattern_id INTEGER NOT NULL REFERENCES fix_patterns (id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    at         REAL NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('injected', 'success', 'failure')),
    PRIMARY KEY (pattern_id, session_id, at, kind)
) WITHOUT ROWID;

-- per-turn metrics (patterns.injected, patterns.forged, patterns.lookup_ms, ...)
CREATE TABLE turn_metrics (
    session_id  TEXT NOT NULL,
    turn_at     REAL NOT NULL,                -- time of the turn's user message
    name        TEXT NOT NULL,
    value       REAL NOT NULL,
    recorded_at REAL NOT NULL,
    PRIMARY KEY (session_id, turn_at, name)
) WITHOUT ROWID;
CREATE INDEX idx_turn_metrics_name ON turn_metrics (name, turn_at);
"""

# Terms are pre-tokenised (tacit.detect.fix.tokenize_code_aware) and joined
# with spaces; these token characters keep FTS5 from splitting them again.
_FIX_PATTERNS_FTS = (
    "CREATE VIRTUAL TABLE fix_patterns_fts USING fts5(tokens, "
    "tokenize = \"unicode61 remove_diacritics 0 tokenchars '._/-~:@+#'\")"
)


def _fix_patterns_migration(conn) -> None:
    """Tables, then the FTS5 index. A SQLite built without FTS5 gets a plain table of the same shape
    (lookup then ranks in Python): a missing extension must not make the whole ledger unusable."""
    for statement in split_statements(_FIX_PATTERNS_SCHEMA):
        conn.execute(statement)
    try:
        conn.execute(_FIX_PATTERNS_FTS)
        conn.execute("CREATE VIRTUAL TABLE fix_patterns_vocab USING fts5vocab(fix_patterns_fts, 'row')")
        index = "fts5"
    except sqlite3.OperationalError as exc:
        if "fts5" not in str(exc).lower():
            raise
        conn.execute("CREATE TABLE fix_patterns_fts (id INTEGER PRIMARY KEY, tokens TEXT NOT NULL)")
        index = "table"
    conn.execute("INSERT INTO ledger_meta (key, value) VALUES ('fix_patterns.index', ?) "
                 "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (index,))


# issue 8: importance captures and the nightly review
_IMPORTANCE_SCHEMA = """
-- captures live in memories (source = 'importance'); these hold the review
CREATE INDEX idx_memories_source ON memories (source, status);

-- each time the review was shown (nightly, on request, /memory-review)
CREATE TABLE importance_reviews (
    id       INTEGER PRIMARY KEY,
    day      TEXT NOT NULL,                   -- local date reviewed (YYYY-MM-DD)
    shown_at REAL NOT NULL,
    trigger  TEXT NOT NULL,                   -- nightly | request | command | cli
    counts   TEXT NOT NULL DEFAULT '{}'       -- JSON {"high": n, "medium": n, "low": n}
);

-- every decision about a capture, by the user or by the defaults
CREATE TABLE importance_decisions (
    id             INTEGER PRIMARY KEY,
    memory_key     TEXT NOT NULL,
    memory_id      INTEGER,
    day            TEXT NOT NULL,             -- the capture's review day
    grp            TEXT NOT NULL CHECK (grp IN ('high', 'medium', 'low')),
    importance     REAL,
    action         TEXT NOT NULL CHECK (action IN
                   ('keep', 'drop', 'edit', 'promote', 'discard', 'defer', 'expire', 'forget')),
    decided_by     TEXT NOT NULL CHECK (decided_by IN ('user', 'default', 'heartbeat')),
    content_before TEXT,
    content_after  TEXT,
    at             REAL NOT NULL
);
CREATE INDEX idx_importance_decisions_key ON importance_decisions (memory_key);
CREATE INDEX idx_importance_decisions_day ON importance_decisions (day);

-- what the user asked to forget: captures like it are never stored again
CREATE TABLE importance_forgotten (
    id         INTEGER PRIMARY KEY,
    text       TEXT NOT NULL,
    tokens     TEXT NOT NULL,
    session_id TEXT,
    created_at REAL NOT NULL
);
"""

# the engine service: session state, exactly-once events, durable child jobs
_SERVICE_SCHEMA = """
-- what a restart must not lose of a session (tacit.session.SessionState.to_json)
CREATE TABLE sessions (
    session_id TEXT PRIMARY KEY,
    host       TEXT NOT NULL DEFAULT '',
    cwd        TEXT NOT NULL DEFAULT '',
    state      TEXT NOT NULL,
    rev        INTEGER NOT NULL,             -- bumped on every change
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX idx_sessions_updated ON sessions (updated_at);

-- every event applied, by id: a retried event is answered from here, not re-applied;
-- background = 1 while its background handlers have not all run (event holds it till then)
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL,
    kind       TEXT NOT NULL,
    at         REAL NOT NULL,
    result     TEXT NOT NULL DEFAULT '{}',
    background INTEGER NOT NULL DEFAULT 0 CHECK (background IN (0, 1)),
    event      TEXT
);
CREATE INDEX idx_events_pending ON events (seq) WHERE background = 1;
CREATE INDEX idx_events_at ON events (at);

-- (background handler, event id): applied in the same transaction as the handler's writes
CREATE TABLE applied_once (
    key TEXT PRIMARY KEY,
    at  REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX idx_applied_once_at ON applied_once (at);

-- child agent jobs: claimed with the event that asked for them, run by `tacit child run ID`
CREATE TABLE jobs (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    host        TEXT NOT NULL DEFAULT '',
    cwd         TEXT,
    source      TEXT NOT NULL DEFAULT '',
    variables   TEXT NOT NULL DEFAULT '{}',
    status      TEXT NOT NULL DEFAULT 'queued'
                CHECK (status IN ('queued', 'running', 'done', 'failed', 'waiting')),
    created_at  REAL NOT NULL,
    started_at  REAL,
    finished_at REAL,
    pid         INTEGER,
    record      TEXT
) WITHOUT ROWID;
CREATE INDEX idx_jobs_status ON jobs (status, created_at);
"""

# accountable memory: every change to a memory file or a skill
_HISTORY_SCHEMA = """
CREATE TABLE history (
    id          INTEGER PRIMARY KEY,       -- what `tacit memory undo ID` takes
    at          REAL NOT NULL,
    action      TEXT NOT NULL,             -- add | replace | remove | batch | consolidate | move | forget | undo | edit | skill_*
    scope       TEXT NOT NULL,             -- user | global | project | team
    target      TEXT NOT NULL,             -- the file, or the skill's name
    project     TEXT NOT NULL DEFAULT '',  -- the project's root, for project and team scopes
    before      TEXT,                      -- JSON: the entries (or text) before
    after       TEXT,                      -- JSON: after
    actor_kind  TEXT NOT NULL,             -- user | agent | child | learner | hand
    actor_name  TEXT NOT NULL DEFAULT '',
    session_id  TEXT,
    host        TEXT,
    cause       TEXT,                      -- the message(s) that caused it, cut short
    cause_event TEXT,
    grp         TEXT NOT NULL DEFAULT '',
    undone_by   INTEGER
);
CREATE INDEX idx_history_at ON history (at);
CREATE INDEX idx_history_target ON history (scope, target, id);

-- what the user asked to forget: not learned again until the user teaches it again
CREATE TABLE tombstones (
    id         INTEGER PRIMARY KEY,
    text       TEXT NOT NULL,
    norm       TEXT NOT NULL,
    created_at REAL NOT NULL,
    lifted_at  REAL,
    history_id INTEGER
);
CREATE INDEX idx_tombstones_live ON tombstones (norm) WHERE lifted_at IS NULL;

-- a notice for one session (NULL: whichever session asks first), and the change it tells of
ALTER TABLE notices ADD COLUMN session_id TEXT;
ALTER TABLE notices ADD COLUMN change_id INTEGER;
"""

# guards: lessons checked before every tool call (tacit.stores.guards)
_GUARDS_SCHEMA = """
-- one row per guard: derived from a memory entry (origin memory) or added by hand (user)
CREATE TABLE guards (
    id           INTEGER PRIMARY KEY,       -- what `tacit guard remove ID` takes
    key          TEXT NOT NULL UNIQUE,      -- origin, scope, project, lesson and rule, hashed
    origin       TEXT NOT NULL CHECK (origin IN ('memory', 'user')),
    scope        TEXT NOT NULL CHECK (scope IN ('project', 'global')),
    project      TEXT NOT NULL DEFAULT '',  -- the project's key (tacit.projects); '' when global
    project_root TEXT NOT NULL DEFAULT '',  -- its main checkout, for people
    memory_scope TEXT NOT NULL DEFAULT '',  -- user | global | project | team (origin memory)
    lesson       TEXT NOT NULL,             -- the memory entry, or the --because text
    spec         TEXT NOT NULL,             -- tacit.guards.GuardSpec.to_dict(), JSON
    action       TEXT NOT NULL DEFAULT 'ask' CHECK (action IN ('ask', 'deny')),
    status       TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'removed', 'gone')),
    strikes      INTEGER NOT NULL DEFAULT 0,  -- overrides and "wrong" calls since last set
    lesson_at    REAL NOT NULL,             -- when the lesson was saved
    by_user      INTEGER NOT NULL DEFAULT 1 CHECK (by_user IN (0, 1)),
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL,
    removed_at   REAL,
    removed_why  TEXT
);
CREATE INDEX idx_guards_project ON guards (project, status);

-- what happened at a guard: stopped a call, overridden, called wrong, broken again
CREATE TABLE guard_events (
    id         INTEGER PRIMARY KEY,
    guard_id   INTEGER NOT NULL REFERENCES guards (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('stop', 'override', 'wrong', 'repeat')),
    project    TEXT NOT NULL DEFAULT '',    -- the project of the call (its key)
    session_id TEXT,
    host       TEXT,
    subject    TEXT,
    at         REAL NOT NULL,
    ref        TEXT UNIQUE                  -- "<event id>:<guard id>": one row per event
);
CREATE INDEX idx_guard_events_guard ON guard_events (guard_id, kind);
CREATE INDEX idx_guard_events_project ON guard_events (project, kind);
"""

# the learners on the service core: habits counted as events arrive, retention indexes
_LEARNERS_SCHEMA = """
-- habits were re-mined from every action event at each turn end (quadratic in a
-- replay); now each event updates the counters of the patterns it completes
DROP TABLE habits;
CREATE TABLE habit_patterns (
    pattern    TEXT PRIMARY KEY,              -- 'a → b' or 'a → b → c'
    steps      TEXT NOT NULL,                 -- JSON list
    first_step TEXT NOT NULL,
    length     INTEGER NOT NULL,
    count      INTEGER NOT NULL,              -- occurrences in the retention window
    gap_sum    REAL NOT NULL,
    sessions   INTEGER NOT NULL DEFAULT 0,    -- rows in habit_sessions
    first_seen REAL NOT NULL,
    last_seen  REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX idx_habit_patterns_first ON habit_patterns (first_step);
-- occurrences per UTC day: retention drops whole days and subtracts them
CREATE TABLE habit_days (
    pattern    TEXT NOT NULL,
    day        INTEGER NOT NULL,              -- floor(ts / 86400)
    count      INTEGER NOT NULL,
    gap_sum    REAL NOT NULL,
    first_seen REAL NOT NULL,
    last_seen  REAL NOT NULL,
    PRIMARY KEY (pattern, day)
) WITHOUT ROWID;
CREATE INDEX idx_habit_days_day ON habit_days (day);
-- which sessions contained a pattern (the confidence's numerator) ...
CREATE TABLE habit_sessions (
    pattern    TEXT NOT NULL,
    session_id TEXT NOT NULL,
    last_at    REAL NOT NULL,
    PRIMARY KEY (pattern, session_id)
) WITHOUT ROWID;
CREATE INDEX idx_habit_sessions_at ON habit_sessions (last_at);
-- ... and which ran an action at all (its denominator: "sessions considered")
CREATE TABLE action_sessions (
    action     TEXT NOT NULL,
    session_id TEXT NOT NULL,
    last_at    REAL NOT NULL,
    PRIMARY KEY (action, session_id)
) WITHOUT ROWID;
CREATE INDEX idx_action_sessions_at ON action_sessions (last_at);
-- rows in action_sessions per action, kept with them (read per action, never counted)
CREATE TABLE habit_actions (
    action   TEXT PRIMARY KEY,
    sessions INTEGER NOT NULL
) WITHOUT ROWID;

-- what the daily retention (tacit.learn.retention) deletes by age
CREATE INDEX idx_obs_at ON observations (observed_at);
CREATE INDEX idx_observed_sequences_at ON observed_sequences (first_at);
CREATE INDEX idx_memory_evidence_at ON memory_evidence (at);
CREATE INDEX idx_fix_pattern_events_at ON fix_pattern_events (at);
CREATE INDEX idx_turn_metrics_at ON turn_metrics (turn_at);
CREATE INDEX idx_importance_decisions_at ON importance_decisions (at);
CREATE INDEX idx_importance_reviews_at ON importance_reviews (shown_at);
"""

# Counting what action_events already hold, with the default 30 s window (the
# configured one applies from here on; `tacit habits rebuild` re-counts with it).
_HABITS_BACKFILL = """
WITH chain AS (
    SELECT session_id, action, ts,
           lag(action, 1) OVER w AS a1, lag(ts, 1) OVER w AS t1,
           lag(action, 2) OVER w AS a0, lag(ts, 2) OVER w AS t0
    FROM action_events WINDOW w AS (PARTITION BY session_id ORDER BY ts, id)),
pairs AS (
    SELECT session_id, json_array(a1, action) AS steps, a1 AS first_step, 2 AS length,
           ts - t1 AS gap, t1 AS start, ts AS end_at
    FROM chain WHERE a1 IS NOT NULL AND a1 != action AND ts - t1 BETWEEN 0 AND 30),
trigrams AS (
    SELECT session_id, json_array(a0, a1, action), a0, 3, ts - t0, t0, ts
    FROM chain WHERE a0 IS NOT NULL AND a1 != action AND a0 != a1 AND a0 != action
               AND ts - t1 BETWEEN 0 AND 30 AND t1 - t0 BETWEEN 0 AND 30)
SELECT session_id, steps, first_step, length, gap, start, end_at FROM pairs
UNION ALL SELECT * FROM trigrams
"""


def _learners_migration(conn) -> None:
    for statement in split_statements(_LEARNERS_SCHEMA):
        conn.execute(statement)
    for sid, steps, first, length, gap, start, end in conn.execute(_HABITS_BACKFILL).fetchall():
        pattern = " → ".join(json.loads(steps))
        conn.execute(
            "INSERT INTO habit_patterns (pattern, steps, first_step, length, count, gap_sum, "
            "first_seen, last_seen) VALUES (?, ?, ?, ?, 1, ?, ?, ?) ON CONFLICT (pattern) DO UPDATE "
            "SET count = count + 1, gap_sum = gap_sum + excluded.gap_sum, "
            "first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)",
            (pattern, steps, first, length, gap, start, end))
        conn.execute(
            "INSERT INTO habit_days (pattern, day, count, gap_sum, first_seen, last_seen) "
            "VALUES (?, ?, 1, ?, ?, ?) ON CONFLICT (pattern, day) DO UPDATE SET count = count + 1, "
            "gap_sum = gap_sum + excluded.gap_sum, first_seen = min(first_seen, excluded.first_seen), "
            "last_seen = max(last_seen, excluded.last_seen)", (pattern, int(end // 86400), gap, start, end))
        conn.execute("INSERT INTO habit_sessions (pattern, session_id, last_at) VALUES (?, ?, ?) "
                     "ON CONFLICT DO UPDATE SET last_at = max(last_at, excluded.last_at)", (pattern, sid, end))
    conn.execute("INSERT INTO action_sessions (action, session_id, last_at) "
                 "SELECT action, session_id, max(ts) FROM action_events GROUP BY action, session_id")
    conn.execute("INSERT INTO habit_actions (action, sessions) "
                 "SELECT action, count(*) FROM action_sessions GROUP BY action")
    conn.execute("UPDATE habit_patterns SET sessions = (SELECT count(*) FROM habit_sessions s "
                 "WHERE s.pattern = habit_patterns.pattern)")
    conn.execute("DELETE FROM ledger_meta WHERE key = 'habits_mined_at'")


# (name, SQL script or callable(conn)). Append only.
MIGRATIONS: list = [
    ("0001_core", _CORE_SCHEMA),
    ("0002_fix_patterns", _fix_patterns_migration),
    ("0003_importance", _IMPORTANCE_SCHEMA),
    ("0004_service", _SERVICE_SCHEMA),
    ("0005_learners", _learners_migration),
    ("0006_history", _HISTORY_SCHEMA),
    ("0007_guards", _GUARDS_SCHEMA),
]

CORRUPT_ERRORS = ("SQLITE_NOTADB", "SQLITE_CORRUPT")


def is_corruption(exc: BaseException) -> bool:
    """True for "not a database" / "malformed" — never for "locked"."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name:
        return name.startswith(CORRUPT_ERRORS)
    text = str(exc).lower()  # very old builds without error names
    return "not a database" in text or "malformed" in text


def split_statements(script: str) -> list[str]:
    """Split a SQL script into complete statements (triggers stay whole)."""
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip() and not all(
            ln.strip().startswith("--") or not ln.strip() for ln in buffer.splitlines()):
        raise ValueError(f"incomplete SQL statement in migration: {buffer.strip()[:80]!r}")
    return statements


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
            if not self._is_wal(conn) or self._pending_migrations(conn):
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
    def _is_wal(conn) -> bool:
        return str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal"

    @staticmethod
    def _pending_migrations(conn) -> bool:
        try:
            applied = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
        except sqlite3.OperationalError:
            return True  # a new file: no bookkeeping table yet
        return any(name not in applied for name, _ in MIGRATIONS)

    def _migrate(self, conn) -> None:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                     "(name TEXT PRIMARY KEY, applied_at REAL NOT NULL) WITHOUT ROWID")
        applied = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
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
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def migrations_applied(self) -> list[str]:
        with self._lock:
            rows = self.connection().execute("SELECT name FROM schema_migrations ORDER BY name")
            return [r[0] for r in rows]

    def _recover(self, exc: BaseException) -> None:
        """Move a corrupt ledger (and its -wal/-shm) aside; the next open creates a fresh one. Under
        the ledger's file lock so two processes never both move files."""
        self._close_quietly()
        with lock_for(self.path, timeout=max(self.busy_timeout, 1.0)):
            if not self._still_corrupt():
                return  # another process already replaced it
            stamp = time.strftime("%Y%m%dT%H%M%S")
            aside = f"{self.path}.corrupt-{stamp}"
            n = 1
            while os.path.exists(aside):
                aside = f"{self.path}.corrupt-{stamp}.{n}"
                n += 1
            for suffix in ("", "-wal", "-shm"):
                with suppress(FileNotFoundError):
                    os.replace(self.path + suffix, aside + suffix)
            self.recovered.append(aside)
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


def _writer_queue(path: str) -> _WriterQueue:
    with _QUEUES_LOCK:
        queue = _QUEUES.get(path)
        if queue is None:
            queue = _QUEUES[path] = _WriterQueue()
        return queue


_OPEN = threading.local()  # by_path: the Ledger whose write transaction is open on this thread


def _open_on_this_thread(path: str) -> "Ledger | None":
    return getattr(_OPEN, "by_path", {}).get(path)


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
        ledger = self.ledger = _open_on_this_thread(self.ledger.path) or self.ledger
        ledger._lock.acquire()
        try:
            conn = ledger.connection()
            if conn.in_transaction:
                self.savepoint = f"sp{ledger._depth}"
                conn.execute(f"SAVEPOINT {self.savepoint}")
            else:
                if self.immediate:
                    queue = _writer_queue(ledger.path)
                    if not queue.acquire(QUEUE_WAIT):
                        raise ledger._unavailable("begin", sqlite3.OperationalError(
                            f"no turn to write in {QUEUE_WAIT:.0f} s (another writer of this process is stuck)"))
                    self.queue = queue
                conn.execute("BEGIN IMMEDIATE" if self.immediate else "BEGIN")
                if self.immediate:
                    _OPEN.by_path = {**getattr(_OPEN, "by_path", {}), ledger.path: ledger}
        except LedgerUnavailable:
            self._leave_queue()
            ledger._lock.release()
            raise
        except sqlite3.Error as exc:
            self._leave_queue()
            ledger._lock.release()
            raise ledger.handle_error("begin", exc) from exc
        except BaseException:
            self._leave_queue()
            ledger._lock.release()
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
