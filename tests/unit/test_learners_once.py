"""Every learner applies an event exactly once under the engine's wrapper:
the same event delivered twice (a hook retrying with the same id), and each
event's background work re-run after a crash that struck once it had
committed but before the event was marked done."""

from __future__ import annotations

import json
import time

from tacit.engine import Engine
from tacit.events import MessageEnd, ToolResult, TurnEnd
from tacit.stores.ledger import Ledger

FIX_REPLY = ("Found it: the config loader reads `PORT` before `.env` is loaded, so I moved "
             "`load_dotenv()` to the top of main.py. The server now starts on 8080.")
PREFERENCE = "I prefer explanations before the code."  # kept in the user's words


def session(t: float) -> list:
    return [
        MessageEnd(session_id="s", id="e1", role="user", text=PREFERENCE, ts=t),
        ToolResult(session_id="s", id="e2", name="Bash", args={"command": "pip install requests"}, ts=t + 1),
        MessageEnd(session_id="s", id="e3", role="user", text="the server ignores the PORT in .env", ts=t + 2),
        MessageEnd(session_id="s", id="e4", role="assistant", text=FIX_REPLY, ts=t + 3),
        TurnEnd(session_id="s", id="e5", assistant_text=FIX_REPLY, ts=t + 4),
    ]


def counts(cfg) -> dict:
    with Ledger(cfg) as led, led.read() as conn:
        one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
        capture = conn.execute("SELECT id, data FROM memories WHERE source = 'importance' AND content = ?",
                               (PREFERENCE,)).fetchall()
        return {
            "observations": one("SELECT count(*) FROM observations"),
            "action_events": one("SELECT count(*) FROM action_events"),
            "times_forged": one("SELECT coalesce(sum(times_forged), 0) FROM fix_patterns"),
            "captures": len(capture),
            "mentions": [json.loads(d)["mentions"] for _, d in capture],
            "evidence": [one(f"SELECT count(*) FROM memory_evidence WHERE memory_id = {i}") for i, _ in capture],
            "pending": one("SELECT count(*) FROM events WHERE background = 1"),
        }


EXPECTED = {"observations": 1, "action_events": 1, "times_forged": 1, "captures": 1, "mentions": [1],
            "evidence": [1], "pending": 0}


def test_the_same_event_twice_is_applied_once(cfg):
    engine = Engine(cfg, background="inline").load_builtins()
    for event in session(time.time() - 60):
        first = engine.dispatch(event)
        again = engine.dispatch(event)
        assert type(again) is type(first) and again.notices == first.notices
    assert counts(cfg) == EXPECTED
    engine.close()


def test_background_work_replayed_after_a_crash_is_applied_once(cfg, monkeypatch):
    real_finish = Engine._finish
    crashed: set = set()

    def crash_once(self, seq):
        if seq not in crashed:  # the handlers committed; the process dies before marking the event
            crashed.add(seq)
            raise RuntimeError("killed")
        real_finish(self, seq)

    monkeypatch.setattr(Engine, "_finish", crash_once)
    engine = Engine(cfg, background="inline").load_builtins()
    for event in session(time.time() - 60):
        engine.dispatch(event)  # each run re-runs what the last crash left pending
    monkeypatch.undo()
    assert counts(cfg)["pending"] >= 1
    restarted = Engine(cfg, background="inline").load_builtins()
    restarted.run_pending_background()
    assert counts(cfg) == EXPECTED
    assert len(crashed) == 5  # every event was hit by a crash once
    with Ledger(cfg) as led, led.read() as conn:
        markers = conn.execute("SELECT count(*) FROM applied_once").fetchone()[0]
    assert markers == 5  # one per (background handler, event)
    engine.close()
    restarted.close()
