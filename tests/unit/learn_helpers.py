"""What the learner tests share: reading the notice queue without taking it,
and recording habit actions the way the tool-call learner does."""

from __future__ import annotations

from tacit.learn.observe import record_action


def pending_notices(ledger) -> list[str]:
    """Undelivered notices, oldest first (not marked delivered)."""
    with ledger.read() as conn:
        return [r[0] for r in conn.execute("SELECT text FROM notices WHERE delivered_at IS NULL ORDER BY id")]


def record_actions(ledger, cfg, rows) -> None:
    """``(session_id, action, ts)`` rows, in order, in one transaction."""
    with ledger.write() as conn:
        for session_id, action, ts in rows:
            record_action(conn, cfg, session_id, action, ts)
