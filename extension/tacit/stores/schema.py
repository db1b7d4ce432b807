"""The ledger's schema: its migrations, in order (``tacit.stores.ledger`` runs them).

Append new migrations at the end; never edit an applied one: installs have run them.

Design notes: docs/design/stores.md#tacitstoresledger"""

from __future__ import annotations

import json
import sqlite3

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

# Terms are pre-tokenised (tacit.detect.fix_tokens.tokenize_code_aware) and joined
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
