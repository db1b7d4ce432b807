"""Habits: the SQL of action events and the habit counters.

Tables (migration ``0005_learners``): ``action_events`` (one row per action,
kept ``habit_retention_days``), ``habit_patterns`` (a pattern's running
totals), ``habit_days`` (the same per UTC day, so retention can subtract
whole days), ``habit_sessions`` / ``action_sessions`` (which sessions
contained a pattern / ran an action: the confidence's two counts, counted
when read).

Design decisions
- **Constant work per action.** Recording one action is an index lookup for
  the session's last two actions and a handful of upserts — never a scan, so
  the cost does not grow with the history.
- **Retention subtracts, it does not recount.** ``prune`` drops days and
  sessions older than the window and recomputes the totals of the patterns
  it touched from their remaining days: bounded by patterns × days, not by
  events.
- **Reads aggregate the counters**; ``considered`` (sessions where a
  pattern's first action ran) is counted at read time from
  ``action_sessions``.
"""

from __future__ import annotations

import json

DAY = 86400.0


def day_of(ts: float) -> int:
    return int(ts // DAY)


# -- writing ------------------------------------------------------------------------
def last_actions(conn, session_id: str, limit: int = 2) -> list[tuple[str, float]]:
    """The session's latest actions, oldest first."""
    rows = conn.execute("SELECT action, ts FROM action_events WHERE session_id = ? ORDER BY ts DESC, id DESC "
                        "LIMIT ?", (session_id, limit)).fetchall()
    return rows[::-1]


def insert_action(conn, session_id: str, action: str, ts: float) -> None:
    conn.execute("INSERT INTO action_events (session_id, action, ts) VALUES (?, ?, ?)", (session_id, action, ts))
    insert_action_session(conn, action, session_id, ts)


def insert_action_session(conn, action: str, session_id: str, ts: float) -> None:
    conn.execute("INSERT INTO action_sessions (action, session_id, last_at) VALUES (?, ?, ?) "
                 "ON CONFLICT DO UPDATE SET last_at = max(last_at, excluded.last_at)", (action, session_id, ts))


def count_occurrence(conn, session_id: str, occurrence) -> None:
    """Add one pattern occurrence (``tacit.learn.habits.Occurrence``): three
    upserts (how many sessions contain it is counted from ``habit_sessions``
    when read)."""
    pattern, steps = occurrence.pattern, occurrence.steps
    conn.execute("INSERT INTO habit_sessions (pattern, session_id, last_at) VALUES (?, ?, ?) "
                 "ON CONFLICT DO UPDATE SET last_at = max(last_at, excluded.last_at)",
                 (pattern, session_id, occurrence.end))
    conn.execute(
        "INSERT INTO habit_patterns (pattern, steps, first_step, length, count, gap_sum, first_seen, "
        "last_seen) VALUES (?, ?, ?, ?, 1, ?, ?, ?) ON CONFLICT (pattern) DO UPDATE SET count = count + 1, "
        "gap_sum = gap_sum + excluded.gap_sum, "
        "first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)",
        (pattern, json.dumps(list(steps), ensure_ascii=False), steps[0], len(steps), occurrence.gap,
         occurrence.start, occurrence.end))
    conn.execute(
        "INSERT INTO habit_days (pattern, day, count, gap_sum, first_seen, last_seen) VALUES (?, ?, 1, ?, ?, ?) "
        "ON CONFLICT (pattern, day) DO UPDATE SET count = count + 1, gap_sum = gap_sum + excluded.gap_sum, "
        "first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)",
        (pattern, day_of(occurrence.end), occurrence.gap, occurrence.start, occurrence.end))


# -- reading ------------------------------------------------------------------------------
def pattern_row(conn, pattern: str) -> tuple | None:
    """(steps, count, gap_sum, sessions, considered, first_seen, last_seen) of one pattern."""
    row = conn.execute("SELECT p.steps, p.count, p.gap_sum, p.first_seen, p.last_seen, p.first_step "
                       "FROM habit_patterns p WHERE p.pattern = ?", (pattern,)).fetchone()
    if row is None:
        return None
    sessions = conn.execute("SELECT count(*) FROM habit_sessions WHERE pattern = ?", (pattern,)).fetchone()[0]
    considered = conn.execute("SELECT count(*) FROM action_sessions WHERE action = ?", (row[5],)).fetchone()[0]
    return (json.loads(row[0]), row[1], row[2], sessions, considered, row[3], row[4])


def pattern_rows(conn, *, first_step: str | None = None) -> list[tuple]:
    """Every pattern as ``pattern_row`` gives it (``first_step``: only those starting there)."""
    where, params = ("WHERE p.first_step = ? COLLATE NOCASE", [first_step]) if first_step is not None else ("", [])
    rows = conn.execute(
        "SELECT p.steps, p.count, p.gap_sum, coalesce(s.n, 0), coalesce(a.n, 0), p.first_seen, p.last_seen "
        "FROM habit_patterns p "
        "LEFT JOIN (SELECT pattern, count(*) AS n FROM habit_sessions GROUP BY pattern) s ON s.pattern = p.pattern "
        "LEFT JOIN (SELECT action, count(*) AS n FROM action_sessions GROUP BY action) a ON a.action = p.first_step "
        f"{where}", params).fetchall()
    return [(json.loads(r[0]), *r[1:]) for r in rows]


def sessions_of(conn, pattern: str, limit: int) -> list[str]:
    return [r[0] for r in conn.execute("SELECT session_id FROM habit_sessions WHERE pattern = ? "
                                       "ORDER BY last_at DESC LIMIT ?", (pattern, limit))]


def event_stats(conn) -> tuple[int, int, float | None]:
    """(action events, sessions, oldest event time)."""
    return conn.execute("SELECT count(*), count(DISTINCT session_id), min(ts) FROM action_events").fetchone()


def ordered_events(conn, since: float, batch: int = 5000):
    """``(session_id, action, ts)`` since ``since``, by session then time (streamed)."""
    cur = conn.execute("SELECT session_id, action, ts FROM action_events WHERE ts >= ? ORDER BY session_id, ts, id",
                       (since,))
    while rows := cur.fetchmany(batch):
        yield from rows


# -- retention and clearing ---------------------------------------------------------------
def prune(conn, cutoff: float) -> dict:
    """Forget what happened before ``cutoff``: action events, the days and
    sessions of the counters; the totals of the patterns touched are
    recomputed from what remains (patterns left with nothing are deleted)."""
    cut_day = day_of(cutoff)
    events = conn.execute("DELETE FROM action_events WHERE ts < ?", (cutoff,)).rowcount
    touched = {r[0] for r in conn.execute("SELECT DISTINCT pattern FROM habit_days WHERE day < ?", (cut_day,))}
    touched |= {r[0] for r in conn.execute("SELECT DISTINCT pattern FROM habit_sessions WHERE last_at < ?",
                                           (cutoff,))}
    conn.execute("DELETE FROM habit_days WHERE day < ?", (cut_day,))
    conn.execute("DELETE FROM habit_sessions WHERE last_at < ?", (cutoff,))
    conn.execute("DELETE FROM action_sessions WHERE last_at < ?", (cutoff,))
    for pattern in touched:
        count, gap_sum, first, last = conn.execute(
            "SELECT coalesce(sum(count), 0), coalesce(sum(gap_sum), 0), min(first_seen), max(last_seen) "
            "FROM habit_days WHERE pattern = ?", (pattern,)).fetchone()
        if not count:
            conn.execute("DELETE FROM habit_patterns WHERE pattern = ?", (pattern,))
            conn.execute("DELETE FROM habit_sessions WHERE pattern = ?", (pattern,))
            continue
        conn.execute("UPDATE habit_patterns SET count = ?, gap_sum = ?, first_seen = ?, last_seen = ? "
                     "WHERE pattern = ?", (count, gap_sum, first, last, pattern))
    return {"action_events": events, "patterns_recounted": len(touched)}


def clear_counters(conn) -> int:
    """Drop the counters (not the events); the number of patterns dropped."""
    patterns = conn.execute("DELETE FROM habit_patterns").rowcount
    for table in ("habit_days", "habit_sessions", "action_sessions"):
        conn.execute(f"DELETE FROM {table}")
    return patterns


def clear(conn) -> tuple[int, int]:
    """Delete every action event and counter: (events, patterns)."""
    events = conn.execute("DELETE FROM action_events").rowcount
    return events, clear_counters(conn)
