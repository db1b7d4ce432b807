"""Session context: the frozen memory snapshot and the skill index, gated.

Design notes: docs/design/core.md#tacithandlerscontext
"""

from __future__ import annotations

from tacit.hookspecs import ContextResult, Injection
from tacit.safety.context_gate import GateResult
from tacit.stores.memory import MemoryStore
from tacit.stores.skill_gate import SkillGate
from tacit.stores.skill_scopes import ScopedSkills

GUIDANCE_CLI = """## tacit memory (persistent across sessions)
Save what will matter next time, without being asked: user preferences and corrections \
(`tacit memory add --scope user "…"`), project conventions, commands and decisions \
(`tacit memory add "…"`). Keep entries short and factual; update with \
`tacit memory replace OLD NEW`, drop stale ones with `tacit memory remove OLD`. After complex \
work, save the procedure as a skill: `tacit skill create --name NAME --description "…" \
--body-file FILE`; load a skill with `tacit skill view NAME`. To find what was done in earlier \
sessions (a fix, a command, a decision), run `tacit search --json WORDS`."""

GUIDANCE_TOOLS = """## tacit memory (persistent across sessions)
Save what will matter next time, without being asked: call the `memory` tool (target "user" for \
preferences and corrections, "memory" for project conventions, commands and decisions). Keep \
entries short and factual. After complex work, save the procedure with the `skill` tool; load \
a skill's full text with it when its description matches the task. To find what was done in \
earlier sessions (a fix, a command, a decision), call the `search_sessions` tool."""

# a host whose own memory tool writes only the user profile and the global notes (Hermes)
GUIDANCE_HOST_TOOL = """## tacit memory
This project's memory is tacit's, shared with the user's other agents. To save to it, call your \
`memory` tool with target "memory" and begin the entry with `[{name}] `; tacit files it there. \
Without that tag an entry goes to the global notes, read in every project."""

NOTICE_MARK = "context.left_out_told"  # state.marks: the session was told what was left out


def register(engine) -> None:
    engine.on("before_agent_start", inject_session_context, name="context.session", priority=10)


def inject_session_context(event, ctx) -> ContextResult:
    features, memory = ctx.host_features, ctx.memory
    # a host that shows USER.md and the global MEMORY.md itself (Hermes) still
    # needs this project's memory from tacit
    snapshot = memory.snapshot(("project", "team") if "memory_snapshot" in features else None)
    guidance = None
    if "memory_tool" not in features:
        guidance = GUIDANCE_TOOLS if "tacit_tools" in features else GUIDANCE_CLI
    elif memory.project is not None:
        guidance = GUIDANCE_HOST_TOOL.format(name=memory.project.name)
    result, told = _context(memory, ctx.skills, features, snapshot, guidance)
    if told and not ctx.state.marks.get(NOTICE_MARK):
        ctx.state.marks[NOTICE_MARK] = True
        result.notices.extend(told)
    return result


def user_context(engine, event) -> ContextResult:
    """The context of a session in a project tacit is off for: the user's own memory and the
    global skills, gated; no project memory, no save guidance."""
    features = engine.features_for(event.host or engine.default_host)
    memory = MemoryStore(engine.cfg, None)
    snapshot = "" if "memory_snapshot" in features else memory.snapshot(("user", "global"))
    result, told = _context(memory, ScopedSkills(engine.cfg, None), features, snapshot, None)
    result.notices.extend(told)
    return result


def _context(memory, skills, features, snapshot: str, guidance: str | None) -> tuple[ContextResult, list]:
    """The context (snapshot, guidance, the skill index) and what the person is told: what the gates
    left out, and the memory files far over their limit."""
    gate = SkillGate(skills.cfg)  # called only when the session's index is first rendered (it is frozen)
    index, unusable = "", []
    if "skill_index" not in features:  # else the host lists them (Hermes lists the global ones, through a link)
        skip = ("global",) if "global_skill_index" in features else ()
        index = skills.snapshot(gate=gate, skip=skip)
        unusable = _unusable_skills(skills, skip)
    left_out = list(memory.gated_out) + list(gate.left_out)
    told = ([GateResult((), tuple(left_out)).notice()] if left_out else []) + list(memory.unread) + unusable
    parts = ((snapshot, 10), (guidance, 20), (index, 30))
    return ContextResult(context=[Injection(text, priority=n) for text, n in parts if text]), told


SHOWN_PROBLEMS = 3  # skill files named in the notice; `tacit skill list` names every one


def _unusable_skills(skills, skip) -> list[str]:
    """What the person is told of the skill files the index skipped (a hand edit's broken frontmatter…);
    the content scanner's refusals are told by the gate."""
    problems = [p for scope in skills.scopes() if scope not in skip
                for p in skills.store(scope).catalog().problems if not p.reason.startswith("blocked by")]
    if not problems:
        return []
    named = "; ".join(f"{p.path}: {p.reason}" for p in problems[:SHOWN_PROBLEMS])
    more = f"; and {len(problems) - SHOWN_PROBLEMS} more" if len(problems) > SHOWN_PROBLEMS else ""
    return [f"tacit left {len(problems)} skill file(s) it could not read out of the skill index: {named}{more} "
            "(`tacit skill list` shows them all; fix them by hand, tacit never rewrites them)."]
