"""Decay and TTL across frozen calendar days (freezegun): once per calendar
day on the first event of the day, −5 after 30 unused days, deletion below 10
with the adaptation reverted and the file entry removed, TTL expiry, and the
exemptions (dismissed, taught)."""

from __future__ import annotations

import pytest
from freezegun import freeze_time
from tacit.app import USER, Tacit
from tacit.learn import lifecycle
from tacit.learn.observe import record_observation
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore

ACME = {"company": "Acme Corp", "category": "action-required", "run_hour": 9}
KEY = "P01-acme-corp-action-required"


def you_of(cfg):
    """The front door of ``cfg`` acting as you."""
    return Tacit(cfg).as_actor(USER)


@pytest.fixture
def led(cfg):
    ledger = Ledger(cfg)
    yield ledger
    ledger.close()


def confidence(led, key):
    with led.read() as conn:
        row = conn.execute("SELECT confidence FROM memories WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def other_event(led, cfg):
    """An event that supports nothing above (another plugin, no entity)."""
    return record_observation(led, cfg, "P99", "noop", {"run_hour": 1})


def make_candidate(led, cfg):
    for _ in range(3):
        record_observation(led, cfg, "P01", "triage", dict(ACME))
    assert confidence(led, KEY) == 20


def test_decay_runs_on_the_first_event_of_each_day_only(led, cfg):
    with freeze_time("2025-03-01 10:00:00") as frozen:
        make_candidate(led, cfg)
        frozen.move_to("2025-03-30 23:00:00")  # 29 days: not yet unused for 30
        other_event(led, cfg)
        assert confidence(led, KEY) == 20
        frozen.move_to("2025-03-31 10:00:01")  # 30 days and a second
        other_event(led, cfg)  # the day's first event is itself an observation
        assert confidence(led, KEY) == 15
        for _ in range(3):
            frozen.tick(3600)
            other_event(led, cfg)
        assert confidence(led, KEY) == 15  # once per day, not per event
        frozen.move_to("2025-04-01 00:00:30")
        other_event(led, cfg)
        assert confidence(led, KEY) == 10  # not below 10: kept
        frozen.move_to("2025-04-01 23:59:00")
        other_event(led, cfg)
        assert confidence(led, KEY) == 10
        frozen.move_to("2025-04-02 00:01:00")  # two minutes later, a new calendar day
        result = other_event(led, cfg)
        assert confidence(led, KEY) is None  # 5 < 10: deleted
        assert KEY in result["deleted"]


def test_days_without_events_do_not_decay(led, cfg):
    with freeze_time("2025-01-01 12:00:00") as frozen:
        make_candidate(led, cfg)
        frozen.move_to("2025-06-01 12:00:00")  # five months away: one event, one decay step
        other_event(led, cfg)
        assert confidence(led, KEY) == 15


def test_reinforcement_keeps_a_memory_in_use(led, cfg):
    with freeze_time("2025-01-01 09:00:00") as frozen:
        make_candidate(led, cfg)
        for day in range(2, 60, 20):
            frozen.move_to(f"2025-01-{day:02d} 09:00:00" if day < 32 else f"2025-02-{day - 31:02d} 09:00:00")
            record_observation(led, cfg, "P01", "triage", dict(ACME))
        frozen.move_to("2025-03-10 09:00:00")
        other_event(led, cfg)
        assert confidence(led, KEY) == 20 + 3 * 15  # reinforced, never unused for 30 days


def test_decayed_applied_memory_is_reverted_and_removed_from_the_file(led, cfg):
    with freeze_time("2025-01-01 09:00:00") as frozen:
        for _ in range(7):
            record_observation(led, cfg, "P01", "triage", dict(ACME))
        with led.read() as conn:
            assert conn.execute("SELECT status FROM memories WHERE key = ?", (KEY,)).fetchone()[0] == "applied"
        text = "In P01, Acme Corp is typically action-required."
        assert text in MemoryStore(cfg).entries("memory")
        frozen.move_to("2025-02-01 09:00:00")
        # 80 → below 10 takes 15 decaying days
        for day in range(15):
            frozen.tick(86400)
            other_event(led, cfg)
        assert confidence(led, KEY) is None
        assert text not in MemoryStore(cfg).entries("memory")
        with led.read() as conn:
            assert conn.execute("SELECT status, reason FROM adaptations WHERE memory_key = ?",
                                (KEY,)).fetchone() == ("reverted", "decay")


def test_a_decayed_note_learned_in_a_project_leaves_that_projects_memory(led, cfg, tmp_path):
    import subprocess
    from tacit.projects import project_for
    repo = tmp_path / "web"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    project = project_for(str(repo))
    text = "This project deploys with make ship."
    assert MemoryStore(cfg, project).add("memory", text)["success"]
    with freeze_time("2025-01-01 09:00:00") as frozen:
        with led.write() as conn:  # a kept note about the project, as a capture promoted there leaves it
            lifecycle.advance(conn, [lifecycle.Proposal(
                "imp-deploys", kind="fact", source="importance", content=text, adaptation=text, confidence=12,
                data={"project": str(repo)}, create=True, status="candidate")], 0)
            conn.execute("UPDATE memories SET status = 'applied', applied_text = ? WHERE key = 'imp-deploys'", (text,))
        frozen.move_to("2025-03-01 09:00:00")
        other_event(led, cfg)
        assert confidence(led, "imp-deploys") is None
        assert text not in MemoryStore(cfg, project).entries("memory")  # before: looked for in global memory


def test_ttl_expires_temporal_memories_even_when_used(led, cfg):
    with freeze_time("2025-01-01 09:00:00") as frozen:
        for _ in range(5):
            record_observation(led, cfg, "/standup", "run", {"run_hour": 9})
        assert confidence(led, "temporal-standup-9h") == 20
        frozen.move_to("2025-03-15 09:00:00")  # within 90 days: decays once (unused), reinforced
        record_observation(led, cfg, "/standup", "run", {"run_hour": 9})
        assert confidence(led, "temporal-standup-9h") == 20 - 5 + 15
        frozen.move_to("2025-04-01 08:59:00")  # day 90, a minute short of the TTL
        other_event(led, cfg)
        assert confidence(led, "temporal-standup-9h") == 30
        frozen.move_to("2025-04-02 08:00:00")
        result = other_event(led, cfg)
        assert confidence(led, "temporal-standup-9h") is None
        assert "temporal-standup-9h" in result["deleted"]


def test_dismissed_and_taught_memories_never_decay_or_expire(led, cfg):
    with freeze_time("2025-01-01 09:00:00") as frozen:
        make_candidate(led, cfg)
        for _ in range(5):
            record_observation(led, cfg, "/standup", "run", {"run_hour": 9})
        lifecycle.forget(you_of(cfg), KEY)
        lifecycle.forget(you_of(cfg), "temporal-standup-9h")
        taught = lifecycle.teach(you_of(cfg), "The user's timezone is CET.")["key"]
        for month in range(2, 13):
            frozen.move_to(f"2025-{month:02d}-01 09:00:00")
            other_event(led, cfg)
        assert confidence(led, KEY) == 20
        assert confidence(led, "temporal-standup-9h") == 20
        assert confidence(led, taught) == 100
        assert MemoryStore(cfg).entries("memory") == ["The user's timezone is CET."]


def test_a_replayed_older_event_does_not_rerun_maintenance(led, cfg):
    with freeze_time("2025-05-10 09:00:00"):
        make_candidate(led, cfg)
    with freeze_time("2025-06-20 09:00:00"):
        other_event(led, cfg)
        assert confidence(led, KEY) == 15
        # a journal replay of an event from an earlier day, handled now
        record_observation(led, cfg, "P99", "noop", {}, now=1_749_000_000.0)  # 2025-06-04
        other_event(led, cfg)
        assert confidence(led, KEY) == 15
