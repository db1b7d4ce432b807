"""How long the learners' evidence is kept (applied daily by the service).

- ``observations``: ``observation_retention_days`` (90). The usage-pattern
  rules only count recent runs, and a memory's evidence rows outlive the
  observations they name (they hold the reference, not the row).
- ``memory_evidence`` of dismissed candidates: the same window after the
  dismissal; what is applied keeps its evidence ("why is this here?").
- ``action_events``: ``habit_retention_days`` (60), as mining reads them.
- ``observed_sequences``: the observation window.
- ``fix_pattern_events`` of retired patterns: the observation window.
"""

from __future__ import annotations

DAY = 86400.0


def prune(conn, cfg, now: float) -> dict:
    obs_cut = now - float(cfg.observation_retention_days) * DAY
    return {
        "observations": conn.execute("DELETE FROM observations WHERE observed_at < ?",
                                     (obs_cut,)).rowcount,
        "sequences": conn.execute("DELETE FROM observed_sequences WHERE first_at < ?",
                                  (obs_cut,)).rowcount,
        "evidence": conn.execute(
            "DELETE FROM memory_evidence WHERE at < ? AND memory_id IN "
            "(SELECT id FROM memories WHERE status = 'dismissed')", (obs_cut,)).rowcount,
        "action_events": conn.execute("DELETE FROM action_events WHERE ts < ?",
                                      (now - float(cfg.habit_retention_days) * DAY,)).rowcount,
        "fix_events": conn.execute(
            "DELETE FROM fix_pattern_events WHERE at < ? AND pattern_id IN "
            "(SELECT id FROM fix_patterns WHERE status = 'retired')", (obs_cut,)).rowcount,
    }
