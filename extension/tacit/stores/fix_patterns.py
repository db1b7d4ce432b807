"""Fix patterns: the SQL (``fix_patterns``, its FTS5 index, ``fix_pattern_events``, ``turn_metrics``).

Design notes: docs/design/learn.md#tacitstoresfix_patterns"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass

from tacit.stores.ledger import Ledger, delete_where

RATE_MIN_USES = 3  # decided outcomes before min_success_rate can exclude a pattern


@dataclass(frozen=True, slots=True)
class Candidate:
    """A stored pattern the index proposed for a query."""

    id: int
    title: str
    problem: str
    solution: str
    successes: int
    failures: int
    tokens: str
    bm25: float


DAY = 86400.0
FIELDS = ("id", "key", "title", "problem", "solution", "lookup_text", "tags", "trigger", "confidence",
          "status", "session_id", "times_forged", "times_injected", "successes", "failures",
          "created_at", "updated_at", "fresh_at", "last_injected_at", "retired_at", "retired_reason")
_CANDIDATE = "p.id, p.title, p.problem, p.solution, p.successes, p.failures"


def index_kind(conn) -> str:
    return Ledger.meta_get(conn, "fix_patterns.index", "fts5")


def _rowid(conn) -> str:
    return "rowid" if index_kind(conn) == "fts5" else "id"


def active_count(conn) -> int:
    return int(Ledger.meta_get(conn, "fix_patterns.active", 0) or 0)


def _store_active_count(conn) -> int:
    active = conn.execute("SELECT count(*) FROM fix_patterns WHERE status = 'active'").fetchone()[0]
    Ledger.meta_set(conn, "fix_patterns.active", active)
    return active


def _filters(cfg, now: float, apply: bool) -> tuple[str, list]:
    """The injection rules as SQL: ``min_success_rate`` for rated ones, fresh within the decay."""
    if not apply:
        return "", []
    where = ("AND (p.successes + p.failures < ? OR "
             "CAST(p.successes AS REAL) / (p.successes + p.failures) >= ?) ")
    params: list = [RATE_MIN_USES, float(cfg.min_success_rate)]
    if cfg.decay_after_days > 0:
        where += "AND p.fresh_at >= ? "
        params.append(now - cfg.decay_after_days * DAY)
    return where, params


_DF_CACHE: OrderedDict = OrderedDict()  # id(conn) -> (conn, index version, {term: df})
DF_CACHE_CONNECTIONS = 8
_DF_LOCK = threading.Lock()
DF_CACHE_TERMS = 20_000
_STRUCTURE = "SELECT block FROM fix_patterns_fts_data WHERE id = 10"  # FTS5's structure record


def index_version(conn):
    """FTS5's structure record: it changes whenever the index is written."""
    row = conn.execute(_STRUCTURE).fetchone()
    return None if row is None else bytes(row[0])


def _forget_counts(conn) -> None:
    """This connection wrote the index: its counts are no longer known."""
    with _DF_LOCK:
        _DF_CACHE.pop(id(conn), None)


def _counts_for(conn, version) -> dict:
    """The counts kept for this connection at ``version`` (new and empty when the index changed)."""
    with _DF_LOCK:
        entry = _DF_CACHE.get(id(conn))
        if entry is None or entry[0] is not conn or entry[1] != version or len(entry[2]) > DF_CACHE_TERMS:
            entry = (conn, version, {})
            _DF_CACHE[id(conn)] = entry
            while len(_DF_CACHE) > DF_CACHE_CONNECTIONS:
                _DF_CACHE.popitem(last=False)
        return entry[2]


def _vocabulary(conn, terms: list[str]) -> dict:
    marks = ",".join("?" * len(terms))
    found = dict(conn.execute(f"SELECT term, doc FROM fix_patterns_vocab WHERE term IN ({marks})", terms))
    return {t: found.get(t, 0) for t in terms}


def doc_freqs(conn, terms: list[str]) -> dict:
    """How many active patterns hold each term (none: left out); reused while the index is unchanged."""
    if not terms:
        return {}
    distinct = list(dict.fromkeys(terms))
    version = index_version(conn)
    known = _counts_for(conn, version)
    missing = [t for t in distinct if t not in known]
    if missing:
        found = _vocabulary(conn, missing)
        after = index_version(conn)
        if after != version:  # the query flushed this transaction's writes: count afresh
            known, found = _counts_for(conn, after), _vocabulary(conn, distinct)
        known.update(found)
    return {t: known[t] for t in terms if known[t]}


def match(conn, terms: list[str], cfg, now: float, *, filters: bool, limit: int) -> list[Candidate]:
    """FTS5 candidates for any of ``terms``, best bm25 first (ranked alone, then the best ids read)."""
    if not terms or limit <= 0:
        return []
    where, params = _filters(cfg, now, filters)
    expr = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
    out: list[Candidate] = []
    offset, batch = 0, limit + 8
    while len(out) < limit:
        ranked = conn.execute("SELECT rowid, tokens, bm25(fix_patterns_fts) AS score FROM fix_patterns_fts "
                              "WHERE fix_patterns_fts MATCH ? ORDER BY score, rowid LIMIT ? OFFSET ?",
                              (expr, batch, offset)).fetchall()
        if not ranked:
            break
        marks = ",".join("?" * len(ranked))
        rows = {r[0]: r for r in conn.execute(  # +status: read by id, not by the status index
            f"SELECT {_CANDIDATE} FROM fix_patterns p WHERE p.id IN ({marks}) AND +p.status = 'active' {where}",
            [r[0] for r in ranked] + params)}
        out.extend(Candidate(*rows[pid], tokens, score) for pid, tokens, score in ranked if pid in rows)
        if len(ranked) < batch:
            break
        offset, batch = offset + batch, batch * 4
    return out[:limit]


def scan_active(conn, cfg, now: float, *, filters: bool) -> list[Candidate]:
    """Every active pattern (no FTS5 in this SQLite)."""
    where, params = _filters(cfg, now, filters)
    rows = conn.execute(f"SELECT {_CANDIDATE}, f.tokens, 0.0 FROM fix_patterns_fts f JOIN fix_patterns p "
                        f"ON p.id = f.id WHERE p.status = 'active' {where}", params).fetchall()
    return [Candidate(*r) for r in rows]


def id_by_key(conn, key: str) -> tuple[int, str] | None:
    return conn.execute("SELECT id, status FROM fix_patterns WHERE key = ?", (key,)).fetchone()


def merge(conn, pattern_id: int, now: float) -> None:
    """The same fix forged again: +1, and fresh again unless retired."""
    conn.execute("UPDATE fix_patterns SET times_forged = times_forged + 1, updated_at = ?, "
                 "fresh_at = CASE WHEN status = 'active' THEN ? ELSE fresh_at END WHERE id = ?",
                 (now, now, pattern_id))


def insert(conn, *, key, title, fix, lookup, terms: list[str], tags: list[str], session_id, now) -> int:
    pattern_id = conn.execute(
        "INSERT INTO fix_patterns (key, title, problem, solution, lookup_text, lookup_tokens, tags, trigger, "
        "confidence, session_id, created_at, updated_at, fresh_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (key, title, fix.problem, fix.solution, lookup, " ".join(terms), json.dumps(tags, ensure_ascii=False),
         fix.pattern, float(fix.confidence), session_id, now, now, now)).lastrowid
    conn.execute(f"INSERT INTO fix_patterns_fts ({_rowid(conn)}, tokens) VALUES (?, ?)",
                 (pattern_id, " ".join(terms)))
    _forget_counts(conn)
    _store_active_count(conn)
    return pattern_id


def retire(conn, pattern_id: int, reason: str, now: float) -> bool:
    """Stop injecting a pattern (kept for the record)."""
    cur = conn.execute("UPDATE fix_patterns SET status = 'retired', retired_at = ?, retired_reason = ?, "
                       "updated_at = ? WHERE id = ? AND status = 'active'", (now, reason, now, pattern_id))
    if cur.rowcount != 1:
        return False
    conn.execute(f"DELETE FROM fix_patterns_fts WHERE {_rowid(conn)} = ?", (pattern_id,))
    _forget_counts(conn)
    _store_active_count(conn)
    return True


def delete(conn, pattern_id: int) -> bool:
    row = conn.execute("SELECT status FROM fix_patterns WHERE id = ?", (pattern_id,)).fetchone()
    if row is None:
        return False
    if row[0] == "active":
        conn.execute(f"DELETE FROM fix_patterns_fts WHERE {_rowid(conn)} = ?", (pattern_id,))
        _forget_counts(conn)
    conn.execute("DELETE FROM fix_patterns WHERE id = ?", (pattern_id,))
    _store_active_count(conn)
    return True


def status_of(conn, pattern_id: int) -> str | None:
    row = conn.execute("SELECT status FROM fix_patterns WHERE id = ?", (pattern_id,)).fetchone()
    return None if row is None else row[0]


# events: injections and outcomes
def _event(conn, pattern_id: int, session_id: str, at: float, kind: str) -> bool:
    cur = conn.execute("INSERT OR IGNORE INTO fix_pattern_events (pattern_id, session_id, at, kind) "
                       "SELECT id, ?, ?, ? FROM fix_patterns WHERE id = ?", (session_id, at, kind, pattern_id))
    return cur.rowcount == 1


def record_injection(conn, pattern_id: int, *, session_id: str, at: float) -> bool:
    if not _event(conn, pattern_id, session_id, at, "injected"):
        return False
    conn.execute("UPDATE fix_patterns SET times_injected = times_injected + 1, "
                 "last_injected_at = max(coalesce(last_injected_at, 0), ?) WHERE id = ?", (at, pattern_id))
    return True


def record_outcome(conn, pattern_id: int, outcome: str, *, session_id: str, at: float,
                   now: float) -> tuple[int, int] | None:
    """Count one outcome: (successes, failures) after it, or None when counted before."""
    if not _event(conn, pattern_id, session_id, at, outcome):
        return None
    if outcome == "success":
        conn.execute("UPDATE fix_patterns SET successes = successes + 1, fresh_at = max(fresh_at, ?), "
                     "updated_at = ? WHERE id = ?", (at, now, pattern_id))
    else:
        conn.execute("UPDATE fix_patterns SET failures = failures + 1, updated_at = ? WHERE id = ?",
                     (now, pattern_id))
    return conn.execute("SELECT successes, failures FROM fix_patterns WHERE id = ?", (pattern_id,)).fetchone()


def record_metric(conn, session_id: str, turn_at: float, name: str, value: float, now: float) -> None:
    conn.execute("INSERT INTO turn_metrics (session_id, turn_at, name, value, recorded_at) VALUES (?, ?, ?, ?, ?) "
                 "ON CONFLICT (session_id, turn_at, name) DO UPDATE SET value = excluded.value, "
                 "recorded_at = excluded.recorded_at", (session_id, turn_at, name, float(value), now))


def turn_of(conn, session_id: str, at: float) -> float:
    """The start (user message time) of the session's turn that ``at`` falls in."""
    row = conn.execute("SELECT max(turn_at) FROM turn_metrics WHERE session_id = ? AND "
                       "name = 'patterns.injected' AND turn_at <= ?", (session_id, at)).fetchone()
    return row[0] if row and row[0] is not None else at


def prune_events(ledger, *, retired_before: float, before: float) -> int:
    """The per-message log before ``before`` (retired patterns': ``retired_before``), in batches."""
    return delete_where(ledger, "fix_pattern_events", "at < ? OR (at < ? AND pattern_id IN "
                        "(SELECT id FROM fix_patterns WHERE status = 'retired'))", (before, retired_before),
                        key=("pattern_id", "session_id", "at", "kind"))


def prune_metrics(ledger, before: float) -> int:
    return delete_where(ledger, "turn_metrics", "turn_at < ?", (before,), key=("session_id", "turn_at", "name"))


def metric_values(conn, name: str, since: float) -> list[float]:
    return [r[0] for r in conn.execute("SELECT value FROM turn_metrics WHERE name = ? AND turn_at >= ?",
                                       (name, since))]


def store_totals(conn) -> tuple:
    """(total, active, retired, times injected, successes, failures)."""
    return conn.execute(
        "SELECT count(*), coalesce(sum(status = 'active'), 0), coalesce(sum(status = 'retired'), 0), "
        "coalesce(sum(times_injected), 0), coalesce(sum(successes), 0), coalesce(sum(failures), 0) "
        "FROM fix_patterns").fetchone()


def _row_dict(row) -> dict:
    out = dict(zip(FIELDS, row))
    try:
        out["tags"] = json.loads(out["tags"] or "[]")
    except ValueError:
        out["tags"] = []
    uses = out["successes"] + out["failures"]
    out["success_rate"] = round(out["successes"] / uses, 3) if uses else None
    return out


def listing(conn, *, include_retired: bool = False) -> list[dict]:
    where = "" if include_retired else "WHERE status = 'active'"
    rows = conn.execute(f"SELECT {', '.join(FIELDS)} FROM fix_patterns {where} "
                        f"ORDER BY status, fresh_at DESC, id DESC").fetchall()
    return [_row_dict(r) for r in rows]


def get(conn, pattern_id: int) -> dict | None:
    row = conn.execute(f"SELECT {', '.join(FIELDS)} FROM fix_patterns WHERE id = ?", (pattern_id,)).fetchone()
    return None if row is None else _row_dict(row)
