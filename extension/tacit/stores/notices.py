"""Notices: one-line messages for the user, queued where they cannot be shown.

Design notes: docs/design/stores.md#tacitstoresnotices"""

from __future__ import annotations

import time

RETENTION_DAYS = 30
MAX_AT_ONCE = 3  # more pending than this: the rest become one "and N more" line


def add(conn, text: str, *, adaptation_id: int | None = None, session_id: str | None = None,
        change_id: int | None = None, now: float | None = None) -> int:
    """Queue a notice in the caller's transaction (its id); for ``session_id`` only, or any."""
    return conn.execute("INSERT INTO notices (text, adaptation_id, session_id, change_id, created_at) VALUES "
                        "(?, ?, ?, ?, ?)", (text, adaptation_id, session_id or None, change_id,
                                            time.time() if now is None else now)).lastrowid


def retell(conn, notice_id, text: str) -> None:
    """A notice not delivered yet says ``text`` now (a delivered one stays as it was)."""
    conn.execute("UPDATE notices SET text = ? WHERE id = ? AND delivered_at IS NULL", (text, notice_id))


def take(ledger, session_id: str | None = None, now: float | None = None) -> list[str]:
    """The pending notices for ``session_id`` (or any), marked delivered; past ``MAX_AT_ONCE``, one line."""
    now = time.time() if now is None else now
    with ledger.write() as conn:
        rows = conn.execute("SELECT id, text FROM notices WHERE delivered_at IS NULL "
                            "AND (session_id IS NULL OR session_id = ?) ORDER BY id", (session_id or "",)).fetchall()
        conn.executemany("UPDATE notices SET delivered_at = ? WHERE id = ?", [(now, r[0]) for r in rows])
    texts = [r[1] for r in rows]
    if len(texts) > MAX_AT_ONCE:
        rest = len(texts) - (MAX_AT_ONCE - 1)
        texts = texts[: MAX_AT_ONCE - 1] + [f"…and {rest} more change(s) to memory: tacit memory log"]
    return texts


def last_other_session(conn, session_id: str) -> float | None:
    """When a session other than ``session_id`` last changed (its state row)."""
    return conn.execute("SELECT MAX(updated_at) FROM sessions WHERE session_id != ?", (session_id,)).fetchone()[0]


def undelivered_changes(conn, session_id: str) -> list[int]:
    """The history ids of the notices not delivered yet, meant for another (or any) session."""
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT change_id FROM notices WHERE delivered_at IS NULL AND change_id IS NOT NULL "
        "AND coalesce(session_id, '') != ? ORDER BY change_id", (session_id,))]


def deliver_changes(conn, change_ids: list[int], now: float) -> None:
    conn.executemany("UPDATE notices SET delivered_at = ? WHERE delivered_at IS NULL AND change_id = ?",
                     [(now, change_id) for change_id in change_ids])


def prune(conn, now: float | None = None) -> int:
    cut = (time.time() if now is None else now) - RETENTION_DAYS * 86400
    return conn.execute("DELETE FROM notices WHERE delivered_at IS NOT NULL AND delivered_at < ?",
                        (cut,)).rowcount
