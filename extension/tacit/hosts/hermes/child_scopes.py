"""A Hermes child saves project memory through its own ``memory`` tool.

Design notes: docs/design/hosts.md#tacithostshermeschild_scopes
"""

from __future__ import annotations

from tacit.stores import history
from tacit.stores.memory import MemoryStore


def tag_for(project) -> str:
    return f"[{project.name}] "


def file_tagged(cfg, project, actor: history.Actor) -> list[str]:
    """Move the tagged global entries into ``project``'s memory; the entries moved. Run before the
    integrity check, as one change (docs/design/hosts.md#tacithostshermeschild_scopes)."""
    if project is None:
        return []
    store = MemoryStore(cfg, project, actor=actor)
    tag = tag_for(project)
    tagged = [e for e in store.entries("global") if e.startswith(tag) and e[len(tag):].strip()]
    moved = []
    for entry in tagged:
        if store.add("project", entry[len(tag):].strip())["success"]:
            store.take_unrecorded("global", lambda e, entry=entry: e == entry)
            moved.append(entry[len(tag):].strip())
    return moved
