"""Rule lines and lessons tacit cannot read are put to a ``rules`` child, once each, at a session's
first turn end. The child has no tools: it proposes guards in its reply, which tacit applies
(``tacit.children.rule_replies``); the store accepts only a pattern grounded in the line or lesson.

Design notes: docs/guards.md.
"""

from __future__ import annotations

from tacit.hookspecs import ChildRequest, Result
from tacit.hosts import spec as host_specs
from tacit.projects import project_for
from tacit.stores.guard_files import Finder, mark_asked, unasked, unasked_lessons

MARK = "rules.read"  # session mark: the unread lines were looked at this session
_FINDER = Finder(every=300.0)  # each checkout's instruction files, found again every five minutes


def register(engine) -> None:
    engine.on("turn_end", read_unread, name="rules.read", priority=60)


def read_unread(event, ctx) -> Result | None:
    cfg = ctx.cfg
    if ctx.state.marks.get(MARK) or not cfg.settings.get("rule_reader", True):
        return None
    ctx.state.marks[MARK] = 1
    if ctx.engine.launcher is None or not (cfg.settings.get("child_enabled", True)
                                           and cfg.settings.get("guards_enabled", True)):
        return None  # no child can run from here (a replay, a test engine): the lines wait
    spec = host_specs.get(ctx.host or "")
    if spec is not None and not spec.child_reply_command and not cfg.child_command:
        return None  # its host has no tool-less child command (the rules child answers in its reply)
    project = project_for(ctx.cwd, home=cfg.env.get("HOME"))
    files = _FINDER.files(project.root) if project is not None else ()
    lines = unasked(ctx.ledger, cfg, project, files=files)
    found = unasked_lessons(ctx.ledger, cfg, project)
    if found:
        mark_asked(ctx.ledger, project, found)  # those with no saving change too: not looked up again
    lessons = [one for one in found if one["change"] is not None]
    if not (lines or lessons):
        return None
    mark_asked(ctx.ledger, project, lines)
    return Result(children=[ChildRequest("rules", {"lines": lines, "lessons": lessons})])
