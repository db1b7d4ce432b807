"""Skill auto-trigger: after a complex turn, capture the procedure as a skill.

A turn with at least ``skill_trigger_tool_calls`` tool calls using at least
``skill_trigger_min_tool_types`` distinct tools is the kind of work worth
turning into a reusable procedure. The skill-extraction child gets the
existing skill index (to patch rather than duplicate) and the turn. At most
once per session: a second long turn is usually the same task continuing.
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
