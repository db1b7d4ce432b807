"""The retention prune never holds the ledger's writer for long: the rows go
in batches of ``BATCH``, each its own write transaction, found by reads; the
rows inside their window stay, a row that changed meanwhile stays."""

from __future__ import annotations

import time
from contextlib import contextmanager

import pytest

from tacit.learn import retention
from tacit.stores import ledger as batches  # delete_where and its batch size
from tacit.stores.ledger import Ledger
from tacit.stores.sessions import SessionStore

DAY = 86400.0


@pytest.fixture
def led(cfg):
    ledger = Ledger(cfg)
    yield ledger
    ledger.close()


@pytest.fixture
def writes(led, monkeypatch):
    """Rows changed by each write transaction of ``led``."""
    changed: list[int] = []
    real = led.write

    @contextmanager
    def counting():
        with real() as conn:
            before = conn.total_changes
            yield conn
            changed.append(conn.total_changes - before)

    monkeypatch.setattr(led, "write", counting)
    return changed


def fill(led, n_old: int, n_new: int, now: float) -> None:
    rows = [("P01", "run", "{}", f"s{i % 50}", now - 200 * DAY + i) for i in range(n_old)]
    rows += [("P01", "run", "{}", f"s{i % 50}", now - DAY + i) for i in range(n_new)]
    with led.write() as conn:
        conn.executemany("INSERT INTO observations (plugin, action, context, session_id, observed_at) "
                         "VALUES (?, ?, ?, ?, ?)", rows)


def test_observations_go_in_small_transactions(led, cfg, writes):
    now = time.time()
    fill(led, 3000, 500, now)
    writes.clear()
    result = retention.prune(led, cfg, now)
    assert result["observations"] == 3000
    assert max(writes) <= batches.BATCH and len([w for w in writes if w]) >= 3000 // batches.BATCH
    with led.read() as conn:
        assert conn.execute("SELECT count(*), min(observed_at) FROM observations").fetchone() == (500, now - DAY)
    writes.clear()
    assert retention.prune(led, cfg, now)["observations"] == 0  # a second pass finds nothing


def test_answered_events_and_markers_go_in_small_transactions(led, cfg, writes):
    now = time.time()
    with led.write() as conn:
        conn.executemany("INSERT INTO events (id, session_id, kind, at, result, background) VALUES (?, 's', "
                         "'tool_result', ?, '{}', ?)",
                         [(f"e{i}", now - 5 * DAY if i < 1000 else now, 1 if i % 100 == 0 else 0)
                          for i in range(1200)])
        conn.executemany("INSERT INTO applied_once (key, at) VALUES (?, ?)",
                         [(f"k{i}", now - 5 * DAY) for i in range(700)])
    writes.clear()
    out = SessionStore(lambda: led).prune(now)
    assert out["events"] == 990 and out["applied_once"] == 700  # an event still waiting for its learners stays
    assert max(writes) <= batches.BATCH
    with led.read() as conn:
        assert conn.execute("SELECT count(*) FROM events WHERE background = 1").fetchone()[0] == 12


def test_a_row_that_stops_matching_between_the_read_and_the_delete_stays(led, cfg, monkeypatch):
    now = time.time()
    fill(led, 10, 0, now)
    real_read = led.read

    @contextmanager
    def read_then_touch():
        with real_read() as conn:
            yield conn
        with led.connection() as conn:  # another writer makes row 1 recent again
            conn.execute("UPDATE observations SET observed_at = ? WHERE id = 1", (now,))

    monkeypatch.setattr(led, "read", read_then_touch)
    assert batches.delete_where(led, "observations", "observed_at < ?", (now - 90 * DAY,)) == 9
    monkeypatch.setattr(led, "read", real_read)
    with led.read() as conn:
        assert conn.execute("SELECT id FROM observations").fetchall() == [(1,)]
