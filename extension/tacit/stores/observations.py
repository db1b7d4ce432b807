"""Observations: the SQL behind the five usage-pattern rules (``observations``, ``observed_sequences``).

Design notes: docs/design/stores.md#tacitstoresobservations"""

from __future__ import annotations

import json
from dataclasses import dataclass

from tacit.stores import candidates
from tacit.stores.ledger import delete_where


def insert(conn, obs) -> int:
    """Store an observation (``tacit.learn.patterns.Observation``); its id."""
    return conn.execute(
        "INSERT INTO observations (plugin, action, context, session_id, observed_at, source, entity, "
        "entity_type, category, user_edited, edit_slug, run_hour) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (obs.plugin, obs.action, json.dumps(obs.context, ensure_ascii=False, sort_keys=True),
         obs.session_id, obs.at, obs.source, obs.entity, obs.entity_type, obs.category,
         1 if obs.user_edited else 0, obs.edit_slug, obs.run_hour)).lastrowid


def _latest(conn, sql: str, params) -> list[tuple[str, str]]:
    """(ref, session_key) of the observations ``sql`` finds, newest first."""
    ids = [r[0] for r in conn.execute(sql, params)]
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = conn.execute(f"SELECT id, session_id FROM observations WHERE id IN ({marks}) ORDER BY id DESC", ids)
    return [(f"obs:{i}", s or f"obs:{i}") for i, s in rows]


@dataclass(frozen=True, slots=True)
class RuleEvidence:
    """``tacit.learn.patterns.Evidence`` over one connection."""

    conn: object

    def known(self, key: str) -> bool:
        return candidates.status_of(self.conn, key) is not None

    def same_category(self, obs, limit: int):
        return _latest(self.conn, "SELECT id FROM observations WHERE plugin = ? AND entity = ? AND category = ? "
                                  "ORDER BY id DESC LIMIT ?", (obs.plugin, obs.entity, obs.category, limit))

    def same_edit(self, obs, limit: int):
        # user_edited is an INTEGER 0/1 column: compared as a number, never as 'true'
        return _latest(self.conn, "SELECT id FROM observations WHERE plugin = ? AND edit_slug = ? AND "
                                  "user_edited = 1 ORDER BY id DESC LIMIT ?", (obs.plugin, obs.edit_slug, limit))

    def entity_mentioned(self, obs) -> bool:
        return candidates.mentions_entity(self.conn, obs.entity, obs.entity_text)

    def previous_runs(self, obs, limit: int):
        """(plugin, time) of the session's runs (not tool calls) before ``obs``, latest first."""
        return self.conn.execute(
            "SELECT plugin, observed_at FROM observations WHERE session_id = ? AND source != 'tool' "
            "AND id < ? ORDER BY id DESC LIMIT ?", (obs.session_id, obs.id, limit)).fetchall()

    def record_sequence(self, key: str, obs) -> None:
        self.conn.execute("INSERT OR IGNORE INTO observed_sequences (seq_key, session_id, first_at) "
                          "VALUES (?, ?, ?)", (key, obs.session_id, obs.at))

    def sessions_with(self, key: str, limit: int) -> list[str]:
        return [r[0] for r in self.conn.execute(
            "SELECT session_id FROM observed_sequences WHERE seq_key = ? LIMIT ?", (key, limit))]

    def same_hour(self, obs, limit: int):
        return _latest(self.conn, "SELECT id FROM observations WHERE plugin = ? AND run_hour = ? AND "
                                  "source != 'tool' ORDER BY id DESC LIMIT ?", (obs.plugin, int(obs.run_hour), limit))


def count(conn) -> int:
    return conn.execute("SELECT count(*) FROM observations").fetchone()[0]


def prune(ledger, cutoff: float) -> dict:
    """Observations and rule-4 sequences recorded before ``cutoff``, in small batches."""
    return {"observations": delete_where(ledger, "observations", "observed_at < ?", (cutoff,)),
            "sequences": delete_where(ledger, "observed_sequences", "first_at < ?", (cutoff,),
                                      key=("seq_key", "session_id"))}
