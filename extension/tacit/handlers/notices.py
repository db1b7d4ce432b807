"""Deliver queued notices ("Memory adapted: …", "tacit saved …") to the user.

Background work queues them in the ledger (``tacit.stores.notices``); at the
next foreground point — the session's context being built, or the end of a
turn — this hands each one out exactly once, for the host to show.
"""

from __future__ import annotations

from tacit.hookspecs import ContextResult, Result
from tacit.stores import notices
from tacit.stores.ledger import LedgerUnavailable


def register(engine) -> None:
    engine.on("before_agent_start", deliver_at_start, name="notices.session", priority=90)
    engine.on("turn_end", deliver_at_turn_end, name="notices.turn", priority=90)


def _take(ctx) -> list[str]:
    try:
        return notices.take(ctx.ledger)
    except LedgerUnavailable:
        return []


def deliver_at_start(event, ctx) -> ContextResult | None:
    texts = _take(ctx)
    return ContextResult(notices=texts) if texts else None


def deliver_at_turn_end(event, ctx) -> Result | None:
    texts = _take(ctx)
    return Result(notices=texts) if texts else None
