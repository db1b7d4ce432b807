"""Candidates: the SQL of the shared memory lifecycle (``memories``, ``memory_evidence``, ``adaptations``).

Design notes: docs/design/stores.md#tacitstorescandidates"""

from __future__ import annotations

import json
from dataclasses import dataclass

from tacit.stores.ledger import delete_where, dicts, loads

STATUSES = ("applied", "confirmed", "candidate", "dismissed")


@dataclass(frozen=True, slots=True)
class Candidate:
    id: int
    key: str
    kind: str
    source: str
    content: str
    target: str
    status: str
    confidence: int
    times_confirmed: int
    plugin: str | None
    adaptation: str | None
    data: dict
    created_at: float
    expires_at: float | None
    applied_text: str | None


_COLUMNS = ("id, key, kind, source, content, target, status, confidence, times_confirmed, plugin, "
            "adaptation, data, created_at, expires_at, applied_text")


def _candidate(row) -> Candidate:
    values = list(row)
    values[11] = _json(values[11])
    return Candidate(*values)


def _json(text) -> dict:
    data = loads(text)
    return data if isinstance(data, dict) else {}


def dumps(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False)


def by_key(conn, key: str, *, nocase: bool = False) -> Candidate | None:
    collate = " COLLATE NOCASE" if nocase else ""
    row = conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE key = ?{collate}", (key,)).fetchone()
    return None if row is None else _candidate(row)


def by_id(conn, memory_id: int) -> Candidate | None:
    row = conn.execute(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", (memory_id,)).fetchone()
    return None if row is None else _candidate(row)


def status_of(conn, key: str) -> str | None:
    row = conn.execute("SELECT status FROM memories WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def of_source(conn, source: str, statuses=None, *, limit: int | None = None) -> list[Candidate]:
    """A detector's candidates (``statuses``: which; default all but dismissed), oldest first."""
    if statuses is None:
        where, params = "status != 'dismissed'", []
    else:
        statuses = list(statuses)
        where, params = f"status IN ({','.join('?' * len(statuses))})", statuses
    sql = f"SELECT {_COLUMNS} FROM memories WHERE source = ? AND {where} ORDER BY id"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return [_candidate(r) for r in conn.execute(sql, [source, *params])]


def newest_id(conn) -> int:
    return conn.execute("SELECT coalesce(max(id), 0) FROM memories").fetchone()[0]


def count_after(conn, source: str, after_id: int, status: str) -> int:
    """How many of a detector's candidates in ``status`` came after ``after_id`` (``newest_id``)."""
    return conn.execute("SELECT count(*) FROM memories WHERE source = ? AND status = ? AND id > ?",
                        (source, status, after_id)).fetchone()[0]


def live(conn) -> list[Candidate]:
    """Every learned memory not dismissed, whatever learned it, oldest first."""
    return [_candidate(r) for r in conn.execute(
        f"SELECT {_COLUMNS} FROM memories WHERE status != 'dismissed' ORDER BY id")]


def mentions(conn, memory_id: int) -> int:
    return conn.execute("SELECT count(*) FROM memory_evidence WHERE memory_id = ?", (memory_id,)).fetchone()[0]


def evidence_sessions(conn, memory_id: int) -> int:
    return conn.execute("SELECT count(DISTINCT session_key) FROM memory_evidence WHERE memory_id = ?",
                        (memory_id,)).fetchone()[0]


def mentions_entity(conn, entity: str, text: str) -> bool:
    """Does any memory name this entity (by slug, or its text in the content)?"""
    return conn.execute("SELECT 1 FROM memories WHERE entity = ? OR instr(lower(content), lower(?)) > 0 "
                        "LIMIT 1", (entity, text)).fetchone() is not None


def listing(conn) -> list[dict]:
    """Every memory with its evidence summary, by status then confidence."""
    order = " ".join(f"WHEN '{s}' THEN {i}" for i, s in enumerate(STATUSES))
    rows = dicts(conn.execute(
        "SELECT m.key, m.kind, m.source, m.status, m.content, m.target, m.confidence, "
        "m.times_confirmed, m.created_at, m.updated_at, m.last_used_at, m.expires_at, "
        "m.applied_at, m.dismissed_at, m.adaptation, m.data, "
        "count(e.ref) AS observations, count(DISTINCT e.session_key) AS sessions, max(e.at) AS last_at "
        "FROM memories m LEFT JOIN memory_evidence e ON e.memory_id = m.id "
        f"GROUP BY m.id ORDER BY CASE m.status {order} END, m.confidence DESC, m.key"))
    for item in rows:
        item["evidence"] = {name: item.pop(name) for name in ("observations", "sessions", "last_at")}
        item["data"] = _json(item["data"])
    return rows


def insert(conn, *, key, kind, source, content, target, status, confidence, plugin, entity, adaptation,
           data: dict, now: float, expires_at: float | None) -> int:
    return conn.execute(
        "INSERT INTO memories (key, kind, source, content, target, status, confidence, plugin, entity, "
        "adaptation, data, created_at, updated_at, last_used_at, expires_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (key, kind, source, content, target, status, confidence, plugin, entity, adaptation, dumps(data),
         now, now, now, expires_at)).lastrowid


def add_evidence(conn, memory_id: int, ref: str, session_key: str | None, role: str, at: float) -> bool:
    """Record one piece of evidence; False when it was recorded before."""
    cur = conn.execute("INSERT OR IGNORE INTO memory_evidence (memory_id, ref, session_key, role, at) "
                       "VALUES (?, ?, ?, ?, ?)", (memory_id, ref, session_key or ref, role, at))
    return cur.rowcount == 1


def reinforce(conn, memory_id: int, *, confidence: int, times: int, status: str, now: float) -> None:
    conn.execute("UPDATE memories SET confidence = ?, times_confirmed = ?, status = ?, last_used_at = ?, "
                 "updated_at = ? WHERE id = ?", (confidence, times, status, now, now, memory_id))


def set_status(conn, memory_id: int, status: str, now: float, *, only_from=None) -> bool:
    sql = "UPDATE memories SET status = ?, updated_at = ? WHERE id = ?"
    params = [status, now, memory_id]
    if only_from:
        only_from = list(only_from)
        sql += f" AND status IN ({','.join('?' * len(only_from))})"
        params += only_from
    return conn.execute(sql, params).rowcount == 1


def set_data(conn, memory_id: int, data: dict, now: float | None = None, *,
             confidence: int | None = None) -> None:
    sets, params = ["data = ?"], [dumps(data)]
    if confidence is not None:
        sets.append("confidence = ?")
        params.append(confidence)
    if now is not None:
        sets.append("updated_at = ?")
        params.append(now)
    conn.execute(f"UPDATE memories SET {', '.join(sets)} WHERE id = ?", [*params, memory_id])


def set_expiry(conn, memory_id: int, expires_at: float | None) -> None:
    conn.execute("UPDATE memories SET expires_at = ? WHERE id = ?", (expires_at, memory_id))


def mark_applied(conn, memory_id: int, entry: str, now: float) -> bool:
    """confirmed → applied; False when it is not (or no longer) confirmed."""
    cur = conn.execute("UPDATE memories SET status = 'applied', applied_at = ?, applied_text = ?, "
                       "updated_at = ? WHERE id = ? AND status = 'confirmed'", (now, entry, now, memory_id))
    return cur.rowcount == 1


def settle_saved(conn, *, session_id: str, text: str, entry: str, now: float) -> list[int]:
    """The importance captures of one user message that a correction child just saved as ``entry``:
    applied, as that entry (no second copy at the next promotion)."""
    rows = conn.execute(
        "SELECT id FROM memories WHERE source = 'importance' AND status IN ('candidate', 'confirmed') "
        "AND json_extract(data, '$.session_id') = ? AND trim(json_extract(data, '$.text')) = trim(?)",
        (session_id, text)).fetchall()
    ids = [r[0] for r in rows]
    for memory_id in ids:
        conn.execute("UPDATE memories SET status = 'applied', applied_at = ?, applied_text = ?, updated_at = ? "
                     "WHERE id = ?", (now, entry, now, memory_id))
    return ids


def set_applied_text(conn, memory_id: int, entry: str, now: float) -> None:
    conn.execute("UPDATE memories SET applied_text = ?, applied_at = ? WHERE id = ?", (entry, now, memory_id))


def restore_taught(conn, memory_id: int, now: float) -> None:
    """Taught again (maybe after being forgotten): confirmed at 100."""
    conn.execute("UPDATE memories SET status = 'confirmed', confidence = 100, dismissed_at = NULL, "
                 "updated_at = ?, last_used_at = ? WHERE id = ?", (now, now, memory_id))


def dismiss(conn, memory_id: int, now: float) -> None:
    conn.execute("UPDATE memories SET status = 'dismissed', dismissed_at = ?, updated_at = ? WHERE id = ?",
                 (now, now, memory_id))


def delete(conn, memory_id: int) -> None:
    conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))


def record_adaptation(conn, memory_id: int, key: str, description: str, now: float) -> int:
    return conn.execute("INSERT INTO adaptations (memory_id, memory_key, description, created_at) "
                        "VALUES (?, ?, ?, ?)", (memory_id, key, description, now)).lastrowid


def revert_adaptations(conn, memory_id: int, reason: str, now: float) -> int:
    return conn.execute("UPDATE adaptations SET status = 'reverted', reverted_at = ?, reason = ? "
                        "WHERE memory_id = ? AND status = 'active'", (now, reason, memory_id)).rowcount


def move_evidence(conn, from_id: int, to_id: int) -> None:
    """Fold one memory's evidence and adaptations into another (a merge)."""
    conn.execute("INSERT OR IGNORE INTO memory_evidence (memory_id, ref, session_key, role, at) "
                 "SELECT ?, ref, session_key, 'confirm', at FROM memory_evidence WHERE memory_id = ?",
                 (to_id, from_id))
    conn.execute("UPDATE adaptations SET memory_id = ? WHERE memory_id = ?", (to_id, from_id))


def decay_unused(conn, step: int, unused_before: float, now: float) -> None:
    """−``step`` for memories not reinforced since ``unused_before`` (not dismissed or taught ones)."""
    conn.execute("UPDATE memories SET confidence = max(0, confidence - ?), updated_at = ? "
                 "WHERE status != 'dismissed' AND source != 'teach' AND last_used_at < ?",
                 (step, now, unused_before))


def doomed(conn, below: int, now: float) -> list[Candidate]:
    """The memories decayed below ``below`` or expired."""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM memories "
        "WHERE status != 'dismissed' AND ((source != 'teach' AND confidence < ?) "
        "OR (expires_at IS NOT NULL AND expires_at <= ?))", (below, now)).fetchall()
    return [_candidate(row) for row in rows]


def prune_evidence(ledger, cutoff: float) -> int:
    """Evidence of dismissed memories recorded before ``cutoff``, in small batches."""
    return delete_where(ledger, "memory_evidence", "at < ? AND memory_id IN "
                        "(SELECT id FROM memories WHERE status = 'dismissed')", (cutoff,), key=("memory_id", "ref"))
