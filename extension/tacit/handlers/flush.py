"""Flush: before the host compacts the conversation (or the session ends),
let a child save what is worth keeping — after compaction those details are
gone. Only after ``flush_min_turns`` user turns (short sessions rarely hold
anything a review missed), and once per point in the conversation: a
compaction followed by shutdown with no new turn in between flushes once.
"""

from __future__ import annotations

from tacit.hookspecs import ChildRequest, Result


def register(engine) -> None:
    engine.on("before_compact", flush_before_compact, name="flush.compact", priority=30)
    engine.on("session_shutdown", flush_at_shutdown, name="flush.shutdown", priority=30)


def flush_before_compact(event, ctx) -> Result | None:
    return _flush(ctx, "compact") if ctx.cfg.flush_on_compact else None


def flush_at_shutdown(event, ctx) -> Result | None:
    return _flush(ctx, "shutdown") if ctx.cfg.flush_on_shutdown else None


def _flush(ctx, why: str) -> Result | None:
    state = ctx.state
    if state.user_turns < ctx.cfg.flush_min_turns or state.marks.get("flush.at_turn") == state.user_turns:
        return None
    state.marks["flush.at_turn"] = state.user_turns
    return Result(children=[ChildRequest("flush", {"why": why})])
