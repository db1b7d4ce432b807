"""Deliver queued notices ("tacit saved to project memory: …", "Memory
adapted: …") to the user, and say at session start what changed since the
previous session.

Design notes: docs/design/core.md#tacithandlersnotices
"""

from __future__ import annotations

import contextlib
import os
import time

from tacit.hookspecs import ContextResult, Result
from tacit.stores import history, notices
from tacit.stores.ledger import LedgerUnavailable
from tacit.stores.skill_scopes import project_skills_dir

SUMMARISED = ("child", "learner", "agent", "hand")  # not the user's own CLI calls: they saw those


def register(engine) -> None:
    engine.on("before_agent_start", deliver_at_start, name="notices.session", priority=90)
    engine.on("message_end", deliver, name="notices.message", priority=90)
    engine.on("turn_end", deliver, name="notices.turn", priority=90)


def _take(ctx) -> list[str]:
    try:
        return notices.take(ctx.ledger, ctx.session_id)
    except LedgerUnavailable:
        return []


def deliver_at_start(event, ctx) -> ContextResult | None:
    texts = []
    with contextlib.suppress(LedgerUnavailable):
        line = since_last_session(ctx)
        if line:
            texts.append(line)
    texts += _take(ctx)
    return ContextResult(notices=texts) if texts else None


def deliver(event, ctx) -> Result | None:
    """At a user's message and a turn's end."""
    if event.kind == "message_end" and event.role != "user":
        return None
    texts = _take(ctx)
    return Result(notices=texts) if texts else None


def since_last_session(ctx) -> str:
    """One line on the changes since the previous session was last active (settling their notices)."""
    ledger = ctx.ledger
    with ledger.read() as conn:
        last_other = notices.last_other_session(conn, ctx.session_id)
        # a save announced to a session that ended before it saw it: its session row was touched
        # after the save (the child's running mark cleared), so the time window alone misses it
        waiting = notices.undelivered_changes(conn, ctx.session_id)
    if last_other is None and not waiting:
        return ""
    since = last_other if last_other is not None else time.time()
    here = _here(ctx)
    found = {c.id: c for c in history.changes(ledger, since=since, limit=500)
             if c.actor.kind in SUMMARISED and c.actor.session_id != ctx.session_id and here(c)}
    for change_id in waiting[-500:]:
        change = found.get(change_id) or history.get(ledger, change_id)
        if change is not None and change.actor.session_id != ctx.session_id and here(change):
            found[change_id] = change
    found = sorted(found.values(), key=lambda c: c.id, reverse=True)  # newest first, as history lists them
    if not found:
        return ""
    since = min(since, min(c.at for c in found))
    with ledger.write() as conn:
        notices.deliver_changes(conn, [c.id for c in found], time.time())
    stamp = time.strftime("%Y-%m-%dT%H:%M", time.localtime(since))
    return f"Since your last session, tacit {summarise(found)} — see: tacit memory log --since {stamp}"


def _here(ctx):
    """Whether a change is of this session's memory: another project's is told in that project."""
    project = ctx.project
    folders = () if project is None else (str(project_skills_dir(ctx.cfg, project)),
                                          os.path.join(project.shared_dir, "skills"))

    def here(change) -> bool:
        if change.scope in ("project", "team"):
            return project is not None and change.project in ("", project.main_root)
        if change.scope in ("skill:project", "skill:team"):
            return any(change.target.startswith(folder + os.sep) for folder in folders)
        return True
    return here


def summarise(changes: list) -> str:
    """"saved 2 entries to project memory, consolidated global memory, …"."""
    counts: dict[tuple[str, str], int] = {}
    for c in reversed(changes):  # oldest first
        if c.scope.startswith("skill"):
            key = ("skill", "created" if c.action == "skill_create" else "updated")
            n = 1
        elif c.action == "consolidate":
            key, n = ("consolidated", c.scope), 1
        elif c.actor.kind == "hand" or (c.action == "edit" and not (c.added() or c.removed())):
            key, n = ("edited", c.scope), 1
        else:  # a child that wrote with the host's own tool (Hermes) is recorded as an edit: what it did
            added, removed = c.added(), c.removed()
            key = ("saved", c.scope) if added else ("removed", c.scope)
            n = max(1, len(added) if added else len(removed))
        counts[key] = counts.get(key, 0) + n
    parts = []
    for (verb, scope), n in counts.items():
        where = history.SCOPE_NAMES.get(scope, scope)
        if verb == "skill":
            parts.append(f"{scope} {n} skill{'s' if n > 1 else ''}")
        elif verb == "consolidated":
            parts.append(f"consolidated {where}")
        elif verb == "edited":
            parts.append(f"noticed {n} edit{'s' if n > 1 else ''} to {where}")
        else:
            parts.append(f"{verb} {n} entr{'y' if n == 1 else 'ies'} {'to' if verb == 'saved' else 'from'} {where}")
    return ", ".join(parts)
