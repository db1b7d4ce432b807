"""Flush: before the host compacts the conversation (or the session ends),
let a child save what is worth keeping — after compaction those details are
gone. Only after ``flush_min_turns`` user turns (short sessions rarely hold
anything a review missed), and once per point in the conversation: a
compaction followed by shutdown with no new turn in between flushes once.
"""

from __future__ import annotations

from tacit.hookspecs import ChildRequest, Result

# event -> (the child's "why", the setting that switches it)
WHY = {"before_compact": ("compact", "flush_on_compact"), "session_shutdown": ("shutdown", "flush_on_shutdown")}


def register(engine) -> None:
    engine.on("before_compact", flush, name="flush.compact", priority=30)
    engine.on("session_shutdown", flush, name="flush.shutdown", priority=30)


def flush(event, ctx) -> Result | None:
    (why, switch), state = WHY[event.kind], ctx.state
    if not getattr(ctx.cfg, switch) or state.user_turns < ctx.cfg.flush_min_turns \
            or state.marks.get("flush.at_turn") == state.user_turns:
        return None
    state.marks["flush.at_turn"] = state.user_turns
    return Result(children=[ChildRequest("flush", {"why": why})])
