"""Skill auto-trigger: after a complex turn, capture the procedure as a skill.

Design notes: docs/design/core.md#tacithandlersskill_trigger
"""

from __future__ import annotations

from tacit.hookspecs import ChildRequest, Result


def register(engine) -> None:
    engine.on("turn_end", maybe_extract_skill, name="skill_trigger.turn", priority=50)


def maybe_extract_skill(event, ctx) -> Result | None:
    cfg, state = ctx.cfg, ctx.state
    if state.skill_trigger_fired:
        return None
    calls = event.tool_calls or ()
    names = {c.name for c in calls}
    if len(calls) < cfg.skill_trigger_tool_calls or len(names) < cfg.skill_trigger_min_tool_types:
        return None
    state.skill_trigger_fired = True
    return Result(children=[ChildRequest("skill", {
        "tool_calls": [c.name for c in calls],
        "tool_call_count": len(calls),
        "tool_names": sorted(names),
        "user_text": event.user_text[:4000],
        "assistant_text": event.assistant_text[:4000],
    })])
