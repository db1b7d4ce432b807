"""Session context: the frozen memory snapshot and the skill index.

At ``before_agent_start`` the agent gets, once per session: the MEMORY.md /
USER.md block (frozen — later writes show up next session, keeping the
host's prompt prefix stable), the skill index (names and descriptions; bodies
load on demand), and a few lines telling it how to save memories with the
tools this host has. What the host already injects itself (Hermes renders
the same files into its own system prompt) is skipped, so nothing appears
twice. Priorities order what a host keeps when it caps injected text: the
memory block first, then the save guidance, then the skill index.
"""

from __future__ import annotations

from tacit.hookspecs import ContextResult, Injection

GUIDANCE_CLI = """## tacit memory (persistent across sessions)
Save what will matter next time, without being asked: user preferences and corrections \
(`tacit memory add --target user "…"`), project conventions, commands and decisions \
(`tacit memory add "…"`). Keep entries short and factual; update with \
`tacit memory replace OLD NEW`, drop stale ones with `tacit memory remove OLD`. After complex \
work, save the procedure as a skill: `tacit skill create --name NAME --description "…" \
--body-file FILE`; load a skill with `tacit skill view NAME`."""

GUIDANCE_TOOLS = """## tacit memory (persistent across sessions)
Save what will matter next time, without being asked: call the `memory` tool (target "user" for \
preferences and corrections, "memory" for project conventions, commands and decisions). Keep \
entries short and factual. After complex work, save the procedure with the `skill` tool; load \
a skill's full text with it when its description matches the task."""


def register(engine) -> None:
    engine.on("before_agent_start", inject_session_context, name="context.session", priority=10)


def inject_session_context(event, ctx) -> ContextResult:
    features = ctx.host_features
    context = []
    # a host that shows USER.md and the global MEMORY.md itself (Hermes) still
    # needs this project's memory from tacit
    memory = ctx.memory
    snapshot = memory.snapshot(("project", "team") if "memory_snapshot" in features else None)
    if snapshot:
        context.append(Injection(snapshot, priority=10))
    if "memory_tool" not in features:
        context.append(Injection(GUIDANCE_TOOLS if "tacit_tools" in features else GUIDANCE_CLI, priority=20))
    if "skill_index" not in features:
        index = ctx.skills.snapshot()
        if index:
            context.append(Injection(index, priority=30))
    return ContextResult(context=context, notices=list(memory.left_out))
