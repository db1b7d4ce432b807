"""A tool call checked when the ledger cannot be used (a full or read-only disk, a ledger that cannot
be opened): against the guards kept in files — the ones added by hand (``guards.json``) and the ones
the project's memory files and instruction files state — so a guard is never skipped.

Design notes: docs/design/guards.md#tacithandlersguards_offline
"""

from __future__ import annotations

import json
import os
from dataclasses import replace

from tacit.guards import Guard, GuardSet, GuardSpec, normalize_call, reason
from tacit.guards.instructions import applies_at
from tacit.hookspecs import ToolCallResult, can_ask
from tacit.projects import project_for
from tacit.stores import guard_files
from tacit.stores.guards import GuardStore, saved_hand_made

NOTE = "(tacit's ledger is unavailable: checked against the guards kept in files)"


def check(cfg, event) -> ToolCallResult:
    """``event`` (a ``tool_call``) against the guards kept in files: a stop, or nothing."""
    if not cfg.settings.get("guards_enabled", True):
        return ToolCallResult()
    from tacit.handlers.guards import git_facts, unread_stop  # (it imports the stores this module needs too)

    home = cfg.env.get("HOME")
    project = project_for(event.cwd, home=home)
    root = project.root if project is not None else None
    guards = kept_guards(cfg, project)
    if not guards:
        return ToolCallResult()
    call = normalize_call(event.name, event.args, event.cwd, project_root=root, home=home, exists=os.path.lexists,
                          **git_facts(root))
    hits = GuardSet(guards, home=home).check(call)
    if not hits:
        return unread_stop(call, event.host, NOTE) or ToolCallResult()
    ask = all(h.guard.action == "ask" for h in hits) and can_ask(event.host)
    action = "ask" if ask else "deny"
    lines = [reason(hit, by_user=hit.guard.source == "added with tacit guard add", action=action) for hit in hits]
    return ToolCallResult(block=not ask, ask=ask, reason="\n".join(lines + [NOTE]))


def kept_guards(cfg, project) -> list[Guard]:
    """The active hand-made guards that apply in ``project``, and those its memory and instruction files
    state (asking: whether one was removed or made to deny is in the ledger)."""
    root = project.root if project is not None else None
    key = project.key if project is not None else None
    out = []
    for row in saved_hand_made(cfg):
        spec = _spec(row["spec"])
        if spec is not None and row["status"] == "active" and (row["scope"] == "global" or row["project"] == key):
            out.append(Guard(replace(spec, action=row["action"]), scope=row["scope"],
                             project_root=root if row["scope"] == "project" else None,
                             source="added with tacit guard add"))
    for memory_scope, guard_scope, _entry, spec in GuardStore(cfg, None).derive(project).values():
        if guard_scope == "global" or root:
            out.append(Guard(replace(spec, action="ask"), scope=guard_scope, source=f"{memory_scope} memory",
                             project_root=root if guard_scope == "project" else None))
    if root and cfg.settings.get("instruction_files", True):
        for rel, rule in guard_files.read(root).rules:
            below = applies_at(rel)
            out.append(Guard(replace(rule.spec, action="ask"), scope="project", source=f"file:{rel}:{rule.line}",
                             project_root=os.path.join(root, below) if below else root))
    return out


def _spec(text: str) -> GuardSpec | None:
    try:
        return GuardSpec.from_dict(json.loads(text))
    except (TypeError, ValueError):
        return None
