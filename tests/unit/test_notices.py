"""The learners' one-time notices reach the user at the next foreground point."""

from __future__ import annotations

import os

from tacit.events import BeforeAgentStart, Notify, TurnEnd
from tacit.hosts.runtime import build_engine
from tacit.learn import notices_flag_path
from tacit.learn.patterns import record_observation


def _acme(ledger, cfg, n):
    for i in range(n):
        record_observation(ledger, cfg, "P01", "triage_email",
                           {"company": "Acme Corp", "category": "action-required", "run_hour": 9},
                           session_id=f"s{i}")


def test_adaptation_notice_is_delivered_once_at_turn_end(cfg):
    engine = build_engine(cfg, "replay", children=False)
    _acme(engine.ledger(), cfg, 8)
    assert os.path.exists(notices_flag_path(cfg))
    effects = engine.dispatch(TurnEnd(session_id="live", user_text="hi", assistant_text="ok"))
    notes = [e.text for e in effects if isinstance(e, Notify)]
    assert notes and all(n.startswith("Memory adapted: I'm now") for n in notes)
    assert any('/memory-forget "P01-acme-corp-action-required"' in n for n in notes)
    assert not os.path.exists(notices_flag_path(cfg))
    again = engine.dispatch(BeforeAgentStart(session_id="live2"))
    assert not [e for e in again if isinstance(e, Notify)]


def test_no_marker_means_no_ledger_opened(cfg):
    from tacit.engine import Engine

    engine = Engine(cfg)
    engine.load_plugin("tacit.handlers.notices")
    effects = engine.dispatch(TurnEnd(session_id="s", user_text="hi", assistant_text="ok"))
    assert not [e for e in effects if isinstance(e, Notify)]
    assert not cfg.ledger_path.exists()  # the foreground path never touched SQLite
