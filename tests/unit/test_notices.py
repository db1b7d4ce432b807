"""The learners' one-time notices reach the user at the next foreground point,
exactly once; background code queues them with ``tacit.stores.notices.add``."""

from __future__ import annotations

from learn_helpers import pending_notices
from tacit.events import BeforeAgentStart, TurnEnd
from tacit.hosts.runtime import build_engine
from tacit.learn.observe import record_observation


def _acme(ledger, cfg, n):
    for i in range(n):
        record_observation(ledger, cfg, "P01", "triage_email",
                           {"company": "Acme Corp", "category": "action-required", "run_hour": 9},
                           session_id=f"s{i}")


def test_adaptation_notice_is_delivered_once_at_turn_end(cfg):
    engine = build_engine(cfg, "replay", children=False)
    _acme(engine.ledger(), cfg, 8)
    assert len(pending_notices(engine.ledger())) == 2  # the fact, then rule 1
    notes = engine.dispatch(TurnEnd(session_id="live", user_text="hi", assistant_text="ok")).notices
    assert len(notes) == 2 and all(n.startswith("Memory adapted: I'm now") for n in notes)
    assert any('/memory-forget "P01-acme-corp-action-required"' in n for n in notes)
    assert pending_notices(engine.ledger()) == []
    assert engine.dispatch(BeforeAgentStart(session_id="live2")).notices == []


def test_a_notice_queued_at_session_start_is_shown_with_the_context(cfg):
    engine = build_engine(cfg, "replay", children=False)
    _acme(engine.ledger(), cfg, 5)  # the fact applied on run 5
    [queued] = pending_notices(engine.ledger())
    assert queued.startswith("Memory adapted: I'm now remembering Acme Corp")
    assert engine.dispatch(BeforeAgentStart(session_id="s")).notices == [queued]
    assert pending_notices(engine.ledger()) == []
