"""The ``jobs`` table: child agent jobs, from claimed to finished. All its SQL.

Design notes: docs/design/stores.md#tacitstoresjobs"""

from __future__ import annotations

import json
import time

from tacit.stores.ledger import dicts, loads


def insert(conn, job: dict) -> None:
    conn.execute("INSERT OR IGNORE INTO jobs (id, kind, session_id, host, cwd, source, variables, "
                 "status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (job["id"], job["kind"], job["session_id"], job.get("host") or "", job.get("cwd"),
                  job.get("source") or "", json.dumps(job.get("variables") or {}, ensure_ascii=False),
                  job.get("status") or "queued", job.get("created") or time.time()))


def load(conn, job_id: str) -> dict | None:
    for job in dicts(conn.execute("SELECT id, kind, session_id, host, cwd, source, variables, status, "
                                  "created_at AS created, pid FROM jobs WHERE id = ?", (job_id,))):
        variables = loads(job["variables"])
        return {**job, "variables": variables if isinstance(variables, dict) else {}}
    return None


def exists(conn, job_id: str) -> bool:
    return conn.execute("SELECT 1 FROM jobs WHERE id = ?", (job_id,)).fetchone() is not None


def mark_running(conn, job_ids, now: float, pid: int) -> None:
    for job_id in job_ids:
        conn.execute("UPDATE jobs SET status = 'running', started_at = ?, pid = ? WHERE id = ?", (now, pid, job_id))


def finish(conn, job_id: str, status: str, record: dict, now: float, *, unless_waiting: bool = False) -> None:
    """Close a job with its record; its variables (the conversation it carried) are dropped."""
    query = "UPDATE jobs SET status = ?, finished_at = ?, record = ?, variables = '{}' WHERE id = ?"
    conn.execute(query + (" AND status != 'waiting'" if unless_waiting else ""),
                 (status, now, json.dumps(record, ensure_ascii=False, default=str), job_id))


def note_variables(conn, job_id: str, values: dict) -> bool:
    """Add ``values`` to a queued job's variables (what its runner records); False when it is not queued."""
    row = conn.execute("SELECT variables FROM jobs WHERE id = ? AND status = 'queued'", (job_id,)).fetchone()
    if row is None:
        return False
    variables = loads(row[0])
    variables = {**(variables if isinstance(variables, dict) else {}), **values}
    conn.execute("UPDATE jobs SET variables = ? WHERE id = ?", (json.dumps(variables, ensure_ascii=False), job_id))
    return True


def queued_siblings(conn, job: dict, window: float) -> list[str]:
    """Other kinds of job the same session queued within ``window`` seconds of ``job``."""
    return [r[0] for r in conn.execute(
        "SELECT id FROM jobs WHERE status = 'queued' AND session_id = ? AND id != ? AND kind != ? "
        "AND abs(created_at - ?) <= ? ORDER BY created_at",
        (job["session_id"], job["id"], job["kind"], job["created"], window)).fetchall()]


# what runs cost (the budget, tacit cost, tacit status)
def records_finished(conn, start: float, end: float) -> list[dict]:
    """The records of the runs that finished in ``[start, end)``."""
    return [r for r in (loads(t) for (t,) in conn.execute(
        "SELECT record FROM jobs WHERE finished_at >= ? AND finished_at < ? AND record IS NOT NULL",
        (start, end))) if isinstance(r, dict)]


def recent_records(conn, limit: int) -> list[dict]:
    rows = conn.execute("SELECT record FROM jobs WHERE status IN ('done', 'failed') AND record IS NOT NULL "
                        "ORDER BY finished_at DESC LIMIT ?", (limit,)).fetchall()
    return [r for r in (loads(row[0]) for row in rows) if isinstance(r, dict)]


def running_count(conn, *, exclude: str, alive_since: float) -> int:
    return conn.execute("SELECT count(*) FROM jobs WHERE status = 'running' AND id != ? "
                        "AND coalesce(started_at, created_at) >= ?", (exclude, alive_since)).fetchone()[0]


def finished_by_status(conn, since: float) -> dict[str, int]:
    return dict(conn.execute("SELECT status, count(*) FROM jobs WHERE finished_at >= ? GROUP BY status", (since,)))


def since(conn, start: float) -> list[tuple]:
    """(id, kind, session_id, host, status, created_at, started_at, finished_at, record) of the jobs
    created or finished since ``start``, oldest first."""
    return conn.execute(
        "SELECT id, kind, session_id, host, status, created_at, started_at, finished_at, record "
        "FROM jobs WHERE coalesce(finished_at, created_at) >= ? ORDER BY coalesce(finished_at, created_at)",
        (start,)).fetchall()


# waiting for the budget
def waiting_count(conn) -> int:
    return conn.execute("SELECT count(*) FROM jobs WHERE status = 'waiting'").fetchone()[0]


def waiting_like(conn, job: dict) -> list[tuple[str, dict]]:
    """(id, variables) of the other waiting jobs of ``job``'s session and kind."""
    rows = conn.execute("SELECT id, variables FROM jobs WHERE status = 'waiting' AND session_id = ? AND kind = ? "
                        "AND id != ?", (job.get("session_id"), job.get("kind"), job.get("id"))).fetchall()
    return [(job_id, loads(text) or {}) for job_id, text in rows]


def set_waiting(conn, job_id: str, variables: dict, record: dict) -> None:
    conn.execute("UPDATE jobs SET status = 'waiting', variables = ?, record = ?, pid = NULL WHERE id = ?",
                 (json.dumps(variables, ensure_ascii=False), json.dumps(record), job_id))


def oldest_waiting(conn, limit: int, window: float) -> list[list[str]]:
    """The oldest waiting jobs, each with the waiting jobs its session claimed within ``window``."""
    out = []
    for job_id, session_id, created in conn.execute(
            "SELECT id, session_id, created_at FROM jobs WHERE status = 'waiting' ORDER BY created_at, id "
            "LIMIT ?", (limit,)).fetchall():
        out.append([job_id, *[r[0] for r in conn.execute(
            "SELECT id FROM jobs WHERE status = 'waiting' AND session_id = ? AND id != ? "
            "AND abs(created_at - ?) <= ?", (session_id, job_id, created, window))]])
    return out


def stranded(conn, before: float) -> list[dict]:
    """Jobs still queued since before ``before`` (their launch was lost), as ``load`` gives them: the
    launcher needs their variables too (``host_env``: the environment their session's host had)."""
    ids = [r[0] for r in conn.execute("SELECT id FROM jobs WHERE status = 'queued' AND created_at < ?", (before,))]
    return [job for job in map(lambda job_id: load(conn, job_id), ids) if job is not None]


def requeue(conn, job_id: str) -> None:
    conn.execute("UPDATE jobs SET status = 'queued' WHERE id = ? AND status = 'waiting'", (job_id,))


# runners that may be gone (tacit.children.orphans)
def running(conn) -> list[dict]:
    """Every job marked running: id, kind, session, runner pid, when it started."""
    return dicts(conn.execute("SELECT id, kind, session_id, pid, coalesce(started_at, 0.0) AS started_at FROM jobs "
                              "WHERE status = 'running'"))


def mark_failed(conn, job_id: str, record: dict, now: float) -> bool:
    """Settle a running job as failed with ``record``; False when it was no longer running."""
    cur = conn.execute("UPDATE jobs SET status = 'failed', finished_at = ?, record = ? "
                       "WHERE id = ? AND status = 'running'", (now, json.dumps(record), job_id))
    return cur.rowcount > 0


def orphaned_since(conn, since: float) -> list[dict]:
    """Jobs settled as failed because their runner was gone, since ``since``."""
    return dicts(conn.execute("SELECT id, kind, finished_at FROM jobs WHERE status = 'failed' AND finished_at >= ? "
                              "AND record LIKE '%\"orphaned\": true%' ORDER BY finished_at", (since,)))
