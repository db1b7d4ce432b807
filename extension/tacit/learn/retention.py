"""How long the learners' evidence is kept (applied daily by the service's housekeeping;
docs/learning.md).

Design notes: docs/design/learn.md#tacitlearnretention"""

from __future__ import annotations

from tacit.stores import candidates, fix_patterns, observations
from tacit.stores import captures as capture_store
from tacit.stores import habits as habit_store

DAY = 86400.0
METRICS_RETENTION_DAYS = 180
DECISION_RETENTION_DAYS = 365


def prune(ledger, cfg, now: float) -> dict:
    """Delete what is past its retention: the long tables in small batches, each its own short
    transaction (a million observations never hold the writer for more than a few milliseconds at a
    time); the habit counters in one. Returns how many rows each rule removed."""
    obs_cut = now - float(cfg.observation_retention_days) * DAY
    metrics_cut = now - METRICS_RETENTION_DAYS * DAY
    decisions_cut = now - DECISION_RETENTION_DAYS * DAY
    habit_cut = now - float(cfg.habit_retention_days) * DAY
    events = habit_store.prune_events(ledger, habit_cut)
    with ledger.write() as conn:
        habits = habit_store.prune(conn, habit_cut)
    return {
        **observations.prune(ledger, obs_cut),  # observations, sequences
        "evidence": candidates.prune_evidence(ledger, obs_cut),
        "action_events": events,
        "habit_patterns_recounted": habits["patterns_recounted"],
        "fix_events": fix_patterns.prune_events(ledger, retired_before=obs_cut, before=metrics_cut),
        "turn_metrics": fix_patterns.prune_metrics(ledger, metrics_cut),
        **capture_store.prune(ledger, decisions_cut),  # importance_decisions, importance_reviews
    }
