"""Tool-call-aware background review.

A review asks a child agent to look back over recent turns and save what is
worth keeping (memories and skills in one pass). It fires on ``turn_end``
when ``nudge_interval`` turns OR ``nudge_tool_calls`` tool calls have passed
since the last review — one long agentic turn can hold more to learn than ten
chat turns — and only after ``review_min_user_turns`` user turns. Both
counters reset when a review starts, so it never re-fires on the same history.
"""

from __future__ import annotations

from tacit.hookspecs import ChildRequest, Result
from tacit.session import stale_after


def register(engine) -> None:
    engine.on("turn_end", maybe_review, name="review.nudge", priority=40)


def maybe_review(event, ctx) -> Result | None:
    cfg, state = ctx.cfg, ctx.state
    if not cfg.review_enabled or state.user_turns < cfg.review_min_user_turns:
        return None
    due_turns = state.turns_since_review >= cfg.nudge_interval > 0
    due_tools = state.tool_calls_since_review >= cfg.nudge_tool_calls > 0
    if not (due_turns or due_tools):
        return None
    if state.is_running("review", stale_after(cfg, "review")):
        return None
    reason = (f"{state.turns_since_review} turns" if due_turns
              else f"{state.tool_calls_since_review} tool calls")
    state.turns_since_review = 0
    state.tool_calls_since_review = 0
    return Result(children=[ChildRequest("review", {"reason": reason})])
