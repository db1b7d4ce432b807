"""Importance captures: the SQL beyond the shared ``memories`` table.

Design notes: docs/design/stores.md#tacitstorescaptures"""

from __future__ import annotations

import json

from tacit.stores.candidates import dumps
from tacit.stores.ledger import Ledger, delete_where, dicts

HEARTBEAT_KEY = "importance.last_heartbeat"
OFFERED_KEY = "importance.review_offered_day"


def update_mention(conn, memory_id: int, data: dict, *, confidence: int, now: float,
                   expires_at: float | None) -> None:
    """One more mention: new data and confidence, used again now, the later expiry."""
    conn.execute("UPDATE memories SET data = ?, confidence = ?, times_confirmed = times_confirmed + 1, "
                 "last_used_at = max(last_used_at, ?), updated_at = ?, "
                 "expires_at = CASE WHEN ? IS NULL THEN expires_at ELSE max(coalesce(expires_at, 0), ?) END "
                 "WHERE id = ?", (dumps(data), confidence, now, now, expires_at, expires_at, memory_id))


def edit_content(conn, memory_id: int, text: str, data: dict, now: float) -> None:
    conn.execute("UPDATE memories SET content = ?, data = ?, updated_at = ?, "
                 "applied_text = CASE WHEN status = 'applied' THEN ? ELSE applied_text END WHERE id = ?",
                 (text, dumps(data), now, text, memory_id))


def remember_forget(conn, text: str, terms: set, session_id: str | None, now: float) -> None:
    conn.execute("INSERT INTO importance_forgotten (text, tokens, session_id, created_at) VALUES (?, ?, ?, ?)",
                 (text[:500], " ".join(sorted(terms)), session_id, now))


def forgotten_terms(conn) -> list[set]:
    return [set(tokens.split()) for (tokens,) in conn.execute("SELECT tokens FROM importance_forgotten")]


def record_decision(conn, *, memory_id, key, day: str, group: str, importance: float, action: str,
                    decided_by: str, before, after, now: float) -> None:
    conn.execute("INSERT INTO importance_decisions (memory_key, memory_id, day, grp, importance, action, "
                 "decided_by, content_before, content_after, at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                 (key, memory_id, day, group, importance, action, decided_by, before, after, now))


def decisions(conn, *, day: str | None = None, limit: int = 200) -> list[dict]:
    """Recorded review decisions, newest first (``tacit review --history``)."""
    query = ("SELECT memory_key AS key, day, grp AS \"group\", importance, action, decided_by, "
             "content_before AS before, content_after AS after, at FROM importance_decisions")
    params: list = []
    if day:
        query += " WHERE day = ?"
        params.append(day)
    return dicts(conn.execute(query + " ORDER BY id DESC LIMIT ?", [*params, limit]))


def record_review(conn, day: str, trigger: str, counts: dict, now: float) -> int:
    return conn.execute("INSERT INTO importance_reviews (day, shown_at, trigger, counts) VALUES (?, ?, ?, ?)",
                        (day, now, trigger, json.dumps(counts))).lastrowid


def prune(ledger, cutoff: float) -> dict:
    """Decisions before ``cutoff`` about memories gone, and review showings before it; in batches."""
    return {"importance_decisions": delete_where(
                ledger, "importance_decisions", "at < ? AND (memory_id IS NULL OR memory_id NOT IN "
                "(SELECT id FROM memories))", (cutoff,)),
            "importance_reviews": delete_where(ledger, "importance_reviews", "shown_at < ?", (cutoff,))}


# the heartbeat and the nightly offer
def last_heartbeat(conn) -> float | None:
    value = Ledger.meta_get(conn, HEARTBEAT_KEY)
    return None if value is None else float(value)


def set_heartbeat(conn, now: float) -> None:
    Ledger.meta_set(conn, HEARTBEAT_KEY, now)


def offered_day(conn) -> str | None:
    return Ledger.meta_get(conn, OFFERED_KEY)


def set_offered_day(conn, day: str) -> None:
    Ledger.meta_set(conn, OFFERED_KEY, day)
