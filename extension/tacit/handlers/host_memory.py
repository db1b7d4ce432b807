"""A host's own memory tool (Hermes's ``memory``, writing the files tacit
shares with it) changed memory: record the change as the agent's, with the
session and the message that led to it — not, later, as a hand edit."""

from __future__ import annotations

from tacit.hosts import spec as host_specs
from tacit.stores import history
from tacit.stores.memory import MemoryStore

MEMORY_TOOLS = {name: t for name, t in host_specs.table("memory_tools").items() if t}  # from each host's spec


def register(engine) -> None:
    engine.on("tool_result", record_agent_edit, name="history.host_memory", priority=20)


def record_agent_edit(event, ctx) -> None:
    if event.name not in MEMORY_TOOLS.get(event.host, ()) or not event.ok:
        return
    actor = history.Actor(kind="agent", name=event.name, session_id=event.session_id, host=event.host,
                          cause=ctx.state.turn.user_text, cause_event=event.id)
    MemoryStore(ctx.cfg, ctx.project).notice_edits(actor=actor)
