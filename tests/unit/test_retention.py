"""Retention of what the learners accumulate (``tacit.learn.retention``), on
frozen calendars: each table keeps exactly its window, live memories keep
their evidence and history, the habit counters subtract what they drop, a
second pass deletes nothing, and the service's daily housekeeping applies it."""

from __future__ import annotations

import datetime as dt
import time

import pytest
from freezegun import freeze_time

from learn_helpers import record_actions
from tacit.detect.fix import FixStatement
from tacit.engine import Engine
from tacit.app import USER, Tacit
from tacit.learn import fixes, importance, lifecycle, observe, retention
from tacit.learn.captures import Assessment
from tacit.learn.observe import record_observation
from tacit.learn.review import decide, memory_review
from tacit.service import housekeeping
from tacit.stores import fix_patterns as fix_store
from tacit.stores.ledger import Ledger

pytestmark = pytest.mark.usefixtures("utc_zone")

NOW = dt.datetime(2025, 12, 1, 12, 0)
DAY = 86400.0


def you_of(cfg):
    """The front door of ``cfg`` acting as you."""
    return Tacit(cfg).as_actor(USER)


def ago(days: float) -> float:
    return NOW.timestamp() - days * DAY


def count(led, sql, *params) -> int:
    with led.read() as conn:
        return conn.execute(sql, params).fetchone()[0]


def prune(led, cfg):
    return retention.prune(led, cfg, NOW.timestamp())


@pytest.fixture
def led(cfg):
    ledger = Ledger(cfg)
    yield ledger
    ledger.close()


def test_observations_and_sequences_keep_the_observation_window(led, cfg):
    for days, session in ((120, "old"), (91, "old"), (89, "new"), (1, "new")):
        for plugin in ("/test", "/deploy"):
            record_observation(led, cfg, plugin, "run", {}, session_id=f"{session}{days}", now=ago(days))
    assert count(led, "SELECT count(*) FROM observations") == 8
    result = prune(led, cfg)
    assert result["observations"] == 4 and result["sequences"] == 2
    assert count(led, "SELECT min(observed_at) FROM observations") == ago(89)
    assert count(led, "SELECT count(*) FROM observed_sequences") == 2
    assert prune(led, cfg)["observations"] == 0  # a second pass deletes nothing
    shorter = cfg.with_settings(observation_retention_days=30)
    assert prune(led, shorter)["observations"] == 2


def test_dismissed_evidence_goes_live_evidence_stays(led, cfg):
    with freeze_time(NOW - dt.timedelta(days=200)):
        for i in range(7):  # rule 1 applied, the entity fact applied
            record_observation(led, cfg, "P01", "triage", {"company": "Acme", "category": "urgent"},
                               session_id=f"s{i}")
        record_observation(led, cfg, "P02", "x", {"company": "Initech"})
        lifecycle.forget(you_of(cfg), "entity-initech")
    before = count(led, "SELECT count(*) FROM memory_evidence")
    result = prune(led, cfg)
    assert result["evidence"] == 1  # the dismissed fact's creating evidence
    assert count(led, "SELECT count(*) FROM memory_evidence") == before - 1
    assert count(led, "SELECT count(*) FROM memory_evidence e JOIN memories m ON m.id = e.memory_id "
                      "WHERE m.key = 'P01-acme-urgent'") == 7  # applied: keeps why it is there
    assert count(led, "SELECT count(*) FROM memories WHERE key = 'entity-initech' AND status = 'dismissed'") == 1
    assert count(led, "SELECT count(*) FROM observations") == 0  # older than 90 days


def test_habit_events_and_counters_keep_the_habit_window(led, cfg):
    rows = []
    for days in (75, 65, 59, 10):
        for n in range(2):
            t = ago(days) + n * 600
            rows += [(f"d{days}-{n}", "Edit", t), (f"d{days}-{n}", "Bash:pytest", t + 5)]
    record_actions(led, cfg, rows)
    with led.read() as conn:
        [habit] = observe.all_habits(conn, cfg)
    assert (habit.count, habit.sessions) == (8, 8)
    result = prune(led, cfg)
    assert result["action_events"] == 8 and result["habit_patterns_recounted"] == 1
    with led.read() as conn:
        [habit] = observe.all_habits(conn, cfg)
    assert (habit.count, habit.sessions, habit.sessions_considered) == (4, 4, 4)
    assert habit.first_seen == ago(59)
    assert count(led, "SELECT count(*) FROM action_events") == 8


def test_fix_pattern_events_and_metrics(led, cfg):
    with led.write() as conn:
        kept = fixes.forge(conn, cfg, FixStatement("the worker crashes with KeyError in jobs.py",
                                                   "guarded the lookup in jobs.py", "t", 0.9), title="worker").id
        gone = fixes.forge(conn, cfg, FixStatement("the cache returns stale rows from redis",
                                                   "set a ttl on the cache keys", "t", 0.9), title="cache").id
        for days in (200, 100, 10):
            for pattern_id in (kept, gone):
                fix_store.record_injection(conn, pattern_id, session_id=f"s{days}", at=ago(days))
            fix_store.record_metric(conn, f"s{days}", ago(days), "patterns.injected", 2, ago(days))
        fix_store.retire(conn, gone, "by hand", ago(5))
    result = prune(led, cfg)
    # active: only the 200-day-old event (> 180); retired: everything older than 90 days
    assert result["fix_events"] == 3 and result["turn_metrics"] == 1
    with led.read() as conn:
        left = conn.execute("SELECT pattern_id, session_id FROM fix_pattern_events ORDER BY pattern_id, at").fetchall()
        injected = conn.execute("SELECT times_injected FROM fix_patterns WHERE id = ?", (kept,)).fetchone()[0]
    assert left == [(kept, "s100"), (kept, "s10"), (gone, "s10")]
    assert injected == 3  # the counts on the pattern stay; only the per-message log goes


def test_importance_history_keeps_a_year_and_everything_of_live_memories(led, cfg):
    old = (NOW - dt.timedelta(days=400)).timestamp()
    with led.write() as conn:
        for text in ("Use tabs.", "Use pnpm, not npm."):
            importance.capture(conn, cfg, Assessment("capture", category="preference", importance=0.95,
                                                     content=text, phrased=True), session_id="s", now=old)
    ids = {r[1]: r[0] for r in led.connection().execute("SELECT id, content FROM memories")}
    assert decide(cfg, keep=[ids["Use tabs."]], ledger=led, now=old)["success"]
    assert decide(cfg, drop=[ids["Use pnpm, not npm."]], ledger=led, now=old)["success"]
    memory_review(cfg, now=old)
    memory_review(cfg, now=ago(3))
    with led.write() as conn:  # the dropped capture goes from the table later (it was dismissed)
        conn.execute("DELETE FROM memories WHERE id = ?", (ids["Use pnpm, not npm."],))
        importance.apply_forget(conn, cfg, "tabs", session_id="s", now=old)
    result = prune(led, cfg)
    assert result["importance_decisions"] == 1 and result["importance_reviews"] == 1
    with led.read() as conn:
        left = conn.execute("SELECT memory_key, action FROM importance_decisions ORDER BY id").fetchall()
    assert [a for _, a in left] == ["keep", "forget"]  # the live memory's history stays whole
    assert count(led, "SELECT count(*) FROM importance_forgotten") == 1  # a forget holds for good


def test_the_service_applies_it_once_a_day(cfg):
    engine = Engine(cfg, background="inline")
    t = time.time()
    record_observation(engine.ledger(), cfg, "P01", "run", {}, now=t - 100 * DAY)
    with freeze_time(dt.datetime.fromtimestamp(t)):
        first = housekeeping.tick(cfg, engine, now=t)
        assert first["retention"]["learners"]["observations"] == 1
        record_observation(engine.ledger(), cfg, "P01", "run", {}, now=t - 100 * DAY)
        assert "retention" not in housekeeping.tick(cfg, engine, now=t + 3600)  # not twice a day
        again = housekeeping.tick(cfg, engine, now=t + DAY + 1)
    assert again["retention"]["learners"]["observations"] == 1
    engine.close()
