"""The front door: ``Tacit`` owns the ledger and the stores and writes as an explicit actor."""

from __future__ import annotations

import threading
import time

import pytest

from tacit.app import USER, Actor, NoActor, Tacit
from tacit.children.env import actor_from_env
from tacit.learn import lifecycle
from tacit.stores import history
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore, parse_entries

CHILD = Actor(kind="child", name="review", session_id="sess-123456789", host="codex")


def rows(cfg) -> list[history.Change]:
    with Ledger(cfg) as ledger:
        return history.changes(ledger)


def test_a_view_writes_as_its_actor(cfg):
    with Tacit(cfg) as tacit:
        result = tacit.as_actor(CHILD).memory().add("global", "The CI runs on Buildkite.")
        assert result["success"], result
        (change,) = tacit.changes()
    assert change.actor.kind == "child" and change.actor.session_id == "sess-123456789"
    assert change.actor.describe().startswith("a review child agent for session sess-1234567")
    assert change.after == ["The CI runs on Buildkite."]


def test_views_share_the_ledger_but_not_the_actor(cfg):
    with Tacit(cfg) as tacit:
        you, child = tacit.as_actor(USER), tacit.as_actor(CHILD)
        assert you.ledger is child.ledger is tacit.ledger
        you.memory().add("user", "I like short answers.")
        child.memory().add("global", "Deploys happen on Tuesdays.")
        actors = [c.actor.kind for c in reversed(tacit.changes())]
    assert actors == ["user", "child"]


def test_no_actor_no_write(cfg, no_actor):
    with Tacit(cfg) as tacit:
        with pytest.raises(NoActor):
            tacit.memory().add("global", "Nobody said this.")
        with pytest.raises(NoActor):
            tacit.require_actor()
        with pytest.raises(NoActor), tacit.acting():
            pass
    assert not cfg.memory_file.exists() or parse_entries(cfg.memory_file.read_text()) == []
    assert rows(cfg) == []


def test_as_actor_needs_an_actor(cfg):
    with pytest.raises(TypeError):
        Tacit(cfg).as_actor("you")


def test_one_ledger_connection_per_thread(cfg):
    with Tacit(cfg) as tacit:
        here = tacit.ledger
        assert tacit.ledger is here
        there = []
        worker = threading.Thread(target=lambda: there.append(tacit.ledger))
        worker.start()
        worker.join()
        assert there[0] is not here


def test_a_nested_writer_in_this_thread_joins_the_open_write(cfg, no_actor):
    """The ``/memory-teach`` shape: a transaction open on one connection and a
    store writing its history row through another. It used to wait for this
    thread's own lock and lose the row ("database is locked (by another
    writer in this process)")."""
    started = time.monotonic()
    with Ledger(cfg, busy_timeout=3) as outer, outer.write() as conn:
        Ledger.meta_set(conn, "holding", "1")
        result = MemoryStore(cfg, actor=CHILD).add("global", "Use pnpm, not npm.")
        assert result["success"] and result["change_id"], result
    assert time.monotonic() - started < 2.0
    (change,) = rows(cfg)
    assert change.actor == CHILD and change.id == result["change_id"]


def test_a_second_writer_of_this_process_waits_its_turn(cfg):
    """Another thread's write is waited for (first come, first served), never lost."""
    with Tacit(cfg) as tacit:
        you = tacit.as_actor(USER)
        holding, done = threading.Event(), []

        def hold():
            with tacit.ledger.write() as conn:
                Ledger.meta_set(conn, "slow", "1")
                holding.set()
                time.sleep(0.5)

        def write():
            holding.wait(5)
            done.append(you.as_actor(CHILD).memory().add("global", "Tests run with tox.")["change_id"])

        threads = [threading.Thread(target=hold), threading.Thread(target=write)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert done and done[0]
        assert [c.actor.kind for c in tacit.changes()] == ["child"]


def test_memory_teach_keeps_its_history_row(cfg):
    """``lifecycle.teach`` writes inside its own ledger transaction: exactly one row, as you."""
    with Tacit(cfg, actor=USER) as tacit:
        result = lifecycle.teach(tacit, "Run the linter before every commit.")
    assert result["success"], result
    (change,) = rows(cfg)
    assert change.actor.kind == "user" and change.added() == ["Run the linter before every commit."]


def test_the_cli_actor_comes_from_the_runner_or_is_you():
    assert actor_from_env({}) == USER
    assert actor_from_env({"TACIT_ACTOR": CHILD.to_env()}) == CHILD
    assert actor_from_env({"TACIT_ACTOR": "not json"}) == USER
    assert actor_from_env({"CLAUDECODE": "1"}).kind == "agent"
