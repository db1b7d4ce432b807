"""Child jobs whose runner may be gone: the rows ``tacit.children.orphans`` reads and settles."""

from __future__ import annotations

import json


def running(conn) -> list[dict]:
    """Every job marked running: id, kind, session, runner pid, when it started."""
    rows = conn.execute("SELECT id, kind, session_id, pid, started_at FROM jobs WHERE status = 'running'").fetchall()
    return [{"id": r[0], "kind": r[1], "session_id": r[2], "pid": r[3], "started_at": r[4] or 0.0} for r in rows]


def mark_failed(conn, job_id: str, record: dict, now: float) -> bool:
    """Settle a running job as failed with ``record``; False when it was no longer running."""
    cur = conn.execute("UPDATE jobs SET status = 'failed', finished_at = ?, record = ? "
                       "WHERE id = ? AND status = 'running'", (now, json.dumps(record), job_id))
    return cur.rowcount > 0


def orphaned_since(conn, since: float) -> list[dict]:
    """Jobs settled as failed because their runner was gone, since ``since``."""
    rows = conn.execute("SELECT id, kind, finished_at, record FROM jobs WHERE status = 'failed' AND finished_at >= ? "
                        "AND record LIKE '%\"orphaned\": true%' ORDER BY finished_at", (since,)).fetchall()
    return [{"id": r[0], "kind": r[1], "finished_at": r[2]} for r in rows]
