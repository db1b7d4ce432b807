"""Habits: the SQL of action events and the habit counters.

Design notes: docs/design/stores.md#tacitstoreshabits"""

from __future__ import annotations

import json
from tacit.stores.ledger import delete_where

DAY = 86400.0


def day_of(ts: float) -> int:
    return int(ts // DAY)


def last_actions(conn, session_id: str, limit: int = 2) -> list[tuple[str, float]]:
    """The session's latest actions, oldest first."""
    rows = conn.execute("SELECT action, ts FROM action_events WHERE session_id = ? ORDER BY ts DESC, id DESC "
                        "LIMIT ?", (session_id, limit)).fetchall()
    return rows[::-1]


def insert_action(conn, session_id: str, action: str, ts: float) -> None:
    conn.execute("INSERT INTO action_events (session_id, action, ts) VALUES (?, ?, ?)", (session_id, action, ts))
    insert_action_session(conn, action, session_id, ts)


def insert_action_session(conn, action: str, session_id: str, ts: float) -> None:
    """The session ran ``action``; a session new to it is counted in ``habit_actions``."""
    if conn.execute("INSERT OR IGNORE INTO action_sessions (action, session_id, last_at) VALUES (?, ?, ?)",
                    (action, session_id, ts)).rowcount == 1:
        conn.execute("INSERT INTO habit_actions (action, sessions) VALUES (?, 1) "
                     "ON CONFLICT DO UPDATE SET sessions = sessions + 1", (action,))
    else:
        conn.execute("UPDATE action_sessions SET last_at = max(last_at, ?) WHERE action = ? AND session_id = ?",
                     (ts, action, session_id))


def count_occurrence(conn, session_id: str, occurrence) -> bool:
    """Add one pattern occurrence; True when the session is new to the pattern."""
    pattern, steps = occurrence.pattern, occurrence.steps
    new_session = conn.execute("INSERT OR IGNORE INTO habit_sessions (pattern, session_id, last_at) "
                               "VALUES (?, ?, ?)", (pattern, session_id, occurrence.end)).rowcount == 1
    if not new_session:
        conn.execute("UPDATE habit_sessions SET last_at = max(last_at, ?) WHERE pattern = ? AND session_id = ?",
                     (occurrence.end, pattern, session_id))
    conn.execute(
        "INSERT INTO habit_patterns (pattern, steps, first_step, length, count, gap_sum, sessions, first_seen, "
        "last_seen) VALUES (?, ?, ?, ?, 1, ?, 1, ?, ?) ON CONFLICT (pattern) DO UPDATE SET count = count + 1, "
        "gap_sum = gap_sum + excluded.gap_sum, sessions = sessions + ?, "
        "first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)",
        (pattern, json.dumps(list(steps), ensure_ascii=False), steps[0], len(steps), occurrence.gap,
         occurrence.start, occurrence.end, 1 if new_session else 0))
    conn.execute(
        "INSERT INTO habit_days (pattern, day, count, gap_sum, first_seen, last_seen) VALUES (?, ?, 1, ?, ?, ?) "
        "ON CONFLICT (pattern, day) DO UPDATE SET count = count + 1, gap_sum = gap_sum + excluded.gap_sum, "
        "first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)",
        (pattern, day_of(occurrence.end), occurrence.gap, occurrence.start, occurrence.end))
    return new_session


_PATTERN = ("SELECT p.steps, p.count, p.gap_sum, p.sessions, coalesce(a.sessions, 0), p.first_seen, p.last_seen "
            "FROM habit_patterns p LEFT JOIN habit_actions a ON a.action = p.first_step ")


def pattern_row(conn, pattern: str) -> tuple | None:
    """(steps, count, gap_sum, sessions, considered, first_seen, last_seen) of one pattern."""
    row = conn.execute(_PATTERN + "WHERE p.pattern = ?", (pattern,)).fetchone()
    return None if row is None else (json.loads(row[0]), *row[1:])


def pattern_rows(conn, *, first_step: str | None = None) -> list[tuple]:
    """Every pattern as ``pattern_row`` gives it (``first_step``: only those starting there)."""
    where, params = ("WHERE p.first_step = ? COLLATE NOCASE", [first_step]) if first_step is not None else ("", [])
    return [(json.loads(r[0]), *r[1:]) for r in conn.execute(_PATTERN + where, params)]


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


def prune_events(ledger, cutoff: float) -> int:
    """Action events before ``cutoff``, in small batches (the counters: ``prune``)."""
    return delete_where(ledger, "action_events", "ts < ?", (cutoff,))


def prune(conn, cutoff: float) -> dict:
    """Forget the counters' days and sessions before ``cutoff``; the totals of the patterns touched
    are recomputed from what remains (none left: deleted)."""
    cut_day = day_of(cutoff)
    touched = {r[0] for r in conn.execute("SELECT DISTINCT pattern FROM habit_days WHERE day < ?", (cut_day,))}
    touched |= {r[0] for r in conn.execute("SELECT DISTINCT pattern FROM habit_sessions WHERE last_at < ?",
                                           (cutoff,))}
    actions = {r[0] for r in conn.execute("SELECT DISTINCT action FROM action_sessions WHERE last_at < ?",
                                          (cutoff,))}
    conn.execute("DELETE FROM habit_days WHERE day < ?", (cut_day,))
    conn.execute("DELETE FROM habit_sessions WHERE last_at < ?", (cutoff,))
    conn.execute("DELETE FROM action_sessions WHERE last_at < ?", (cutoff,))
    for action in actions:
        sessions = conn.execute("SELECT count(*) FROM action_sessions WHERE action = ?", (action,)).fetchone()[0]
        if sessions:
            conn.execute("UPDATE habit_actions SET sessions = ? WHERE action = ?", (sessions, action))
        else:
            conn.execute("DELETE FROM habit_actions WHERE action = ?", (action,))
    for pattern in touched:
        count, gap_sum, first, last = conn.execute(
            "SELECT coalesce(sum(count), 0), coalesce(sum(gap_sum), 0), min(first_seen), max(last_seen) "
            "FROM habit_days WHERE pattern = ?", (pattern,)).fetchone()
        if not count:
            conn.execute("DELETE FROM habit_patterns WHERE pattern = ?", (pattern,))
            conn.execute("DELETE FROM habit_sessions WHERE pattern = ?", (pattern,))
            continue
        sessions = conn.execute("SELECT count(*) FROM habit_sessions WHERE pattern = ?", (pattern,)).fetchone()[0]
        conn.execute("UPDATE habit_patterns SET count = ?, gap_sum = ?, sessions = ?, first_seen = ?, "
                     "last_seen = ? WHERE pattern = ?", (count, gap_sum, sessions, first, last, pattern))
    return {"patterns_recounted": len(touched)}


def clear_counters(conn) -> int:
    """Drop the counters (not the events); the number of patterns dropped."""
    patterns = conn.execute("DELETE FROM habit_patterns").rowcount
    for table in ("habit_days", "habit_sessions", "action_sessions", "habit_actions"):
        conn.execute(f"DELETE FROM {table}")
    return patterns


def clear(conn) -> tuple[int, int]:
    """Delete every action event and counter: (events, patterns)."""
    events = conn.execute("DELETE FROM action_events").rowcount
    return events, clear_counters(conn)
