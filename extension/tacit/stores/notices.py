"""Notices: one-line messages for the user, queued where they cannot be shown.

Background work (learners, child agents) cannot reach the user; it queues a
notice here and the next foreground point that the host allows (session
start, the end of a turn) hands it out. ``take`` marks what it returns
delivered in the same transaction, so each notice is shown exactly once even
with several processes asking. Delivered notices are kept
``RETENTION_DAYS`` (``prune``).
"""

from __future__ import annotations

import time

RETENTION_DAYS = 30


def add(conn, text: str, *, adaptation_id: int | None = None, now: float | None = None) -> None:
    """Queue a notice inside the caller's transaction."""
    conn.execute("INSERT INTO notices (text, adaptation_id, created_at) VALUES (?, ?, ?)",
                 (text, adaptation_id, time.time() if now is None else now))


def take(ledger, now: float | None = None) -> list[str]:
    now = time.time() if now is None else now
    with ledger.write() as conn:
        rows = conn.execute("SELECT id, text FROM notices WHERE delivered_at IS NULL ORDER BY id").fetchall()
        conn.executemany("UPDATE notices SET delivered_at = ? WHERE id = ?", [(now, r[0]) for r in rows])
    return [r[1] for r in rows]


def prune(conn, now: float | None = None) -> int:
    cut = (time.time() if now is None else now) - RETENTION_DAYS * 86400
    return conn.execute("DELETE FROM notices WHERE delivered_at IS NOT NULL AND delivered_at < ?",
                        (cut,)).rowcount
