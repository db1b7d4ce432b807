"""``tacit memory …`` — the agent-facing memory tool as a command line.

Design notes: docs/design/commands.md#tacitcommandsmemory
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from tacit.commands import (
    JSON_OUTPUT, command, emit, exit_code, positive, project_folder, read_bounded, read_text_arg, refuse, reply, say,
)
from tacit.display import clip, printable
from tacit.failures import InputError
from tacit.scopes import NOTES
from tacit.scopes import SCOPES as ALL_SCOPES
from tacit.consolidation import add_entry
from tacit.slash import render_scope
from tacit.stores.memory import MemoryStore

SCOPES = NOTES  # --scope user is the user profile (USER.md); these are the notes


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("memory", help="add, replace, remove, move or show memory entries")
    sub = parser.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    def where(p, *, target: bool = True):
        if target:
            p.add_argument("--scope", choices=ALL_SCOPES,
                           help="user = your profile (USER.md); project (the default inside a project), "
                                "global or team = notes")
            # the old spelling: --target user = --scope user; --target memory = the default
            p.add_argument("--target", choices=["memory", "user"], default="memory", help=argparse.SUPPRESS)
        p.add_argument("--project", metavar="DIR", help="the project of this folder (default: the working folder)")

    p = command(sub, "add", _add, help="add an entry (exact duplicates are a no-op)")
    where(p)
    p.add_argument("text", help="the entry, or - to read it from stdin")

    p = command(sub, "replace", _replace, help="replace the one entry containing OLD_TEXT")
    where(p)
    p.add_argument("old_text")
    p.add_argument("new_text", help="the new entry, or - to read it from stdin")

    p = command(sub, "remove", _remove, help="remove the one entry containing OLD_TEXT")
    where(p)
    p.add_argument("old_text", help="a unique substring, or - to read it from stdin")

    p = command(sub, "move", _move, help="move the entry containing TEXT to another scope")
    where(p, target=False)
    p.add_argument("text", help="a unique substring of the entry")
    p.add_argument("--to", required=True, choices=("user", *SCOPES))
    p.add_argument("--from", dest="source", choices=("user", *SCOPES),
                   help="where it is now (default: the one scope that holds it)")

    p = command(sub, "batch", _batch, help="apply a JSON list of operations all-or-nothing")
    where(p, target=False)
    p.add_argument("file", help="JSON file with [{action, target, content|old_text}], or -")

    p = command(sub, "show", _show, help="the live entries on disk, every scope or one")
    where(p)

    p = command(sub, "snapshot", _snapshot, help="the block the agent sees at session start")
    where(p, target=False)

    p = command(sub, "log", _log, help="every change to memory and skills, newest first")
    p.add_argument("--since", metavar="WHEN",
                   help="2026-11-30, 2026-11-30T09:00, today, yesterday, 30m, 12h, 3d, 2w, 6mo, 1y")
    p.add_argument("--limit", type=positive(), default=50, help="at most this many changes (default 50)")
    p.add_argument("--json", action="store_true", help="one JSON object: {changes: [...]}")

    p = command(sub, "why", _why, help="where the entries holding TEXT came from")
    where(p, target=False)
    p.add_argument("text")

    p = command(subparsers, "forget", _forget,
                help="remove every memory entry saying TEXT, in every scope, for good")
    p.add_argument("text", help="what to forget (\"we use pnpm\"), or - to read it from stdin")
    p.add_argument("--project", metavar="DIR", help="the project of this folder (default: the working folder)")

    p = command(sub, "undo", _undo, help="revert change ID (a consolidation or a child's run: all of it)")
    p.add_argument("id", type=int)


def _forget(args, cfg) -> int:
    from tacit.forget import forget

    result = forget(args.tacit, read_text_arg(args.text), project=project_of(args))
    emit(result, text=lambda r: r["message"] if r.get("message") else say(r))
    return exit_code(result)


def project_of(args):
    """The project of ``--project``, ``$TACIT_PROJECT`` (a child's) or the working folder."""
    front = args.tacit
    return front.project(project_folder(args, front.cfg))


def _store(args, cfg) -> MemoryStore:
    """The memory of the command's project, written as the command's actor."""
    return args.tacit.memory(project_of(args))


def _target(args) -> str:
    return "user" if getattr(args, "target", "memory") == "user" else getattr(args, "scope", None) or "memory"


def _add(args, cfg) -> int:
    return reply(add_entry(args.tacit, _target(args), read_text_arg(args.text), project=project_of(args)))


def _replace(args, cfg) -> int:
    return reply(_store(args, cfg).replace(_target(args), args.old_text, read_text_arg(args.new_text)))


def _remove(args, cfg) -> int:
    return reply(_store(args, cfg).remove(_target(args), read_text_arg(args.old_text)))


def _move(args, cfg) -> int:
    return reply(move_entry(_store(args, cfg), args.text, to=args.to, source=args.source))


def move_entry(store: MemoryStore, text: str, *, to: str, source: str | None = None) -> dict:
    """Move the one entry containing ``text`` into scope ``to`` (removed only once added there)."""
    if not text.strip():  # "" is in every entry: it would move whichever one there is
        return {"success": False, "error": "say which entry to move: TEXT cannot be empty"}
    to = store.resolve(to)
    if to not in store.targets():
        return {"success": False, "error": store._unknown(to)}
    sources = [source] if source else [t for t in store.targets() if t != to]
    holders = [(t, e) for t in sources if t in store.targets() for e in store.entries(t) if text in e]
    if not holders:
        return {"success": False, "error": f"No entry contains {text!r} in {', '.join(sources)}."}
    if len(holders) > 1 and len(whole := [(t, e) for t, e in holders if e == text.strip()]) == 1:
        holders = whole  # the whole of one entry picks it, as in replace and remove
    if len(holders) > 1:
        return {"success": False, "error": f"{len(holders)} entries contain {text!r}; use a longer, unique substring.",
                "matches": [{"scope": t, "entry": e[:80]} for t, e in holders]}
    (origin, entry), = holders
    if origin == to:
        return {"success": True, "message": f"Already in {to}.", "scope": to, "entry": entry}
    blocked = store.rewritable(origin)  # not copied where it could not then be removed from
    if not blocked["success"]:
        return {**blocked, "error": f"not moved: {blocked['error']}"}
    group = f"move-{time.time_ns()}"  # one change in the history: one undo puts it back
    added = store.add(to, entry, group=group)
    if not added["success"]:
        return {**added, "error": f"not moved: {added['error']}"}
    removed = store.remove(origin, entry, group=group)
    if not removed["success"]:
        return {**removed, "error": f"copied to {to} but not removed from {origin}: {removed['error']}"}
    return {"success": True, "message": f"Moved from {origin} to {to}.", "from": origin, "to": to, "entry": entry,
            **{key: removed[key] for key in ("change_id", "unrecorded") if key in removed}}


def _batch(args, cfg) -> int:
    if args.file == "-":
        text = read_text_arg("-")
    else:
        if os.path.exists(args.file) and not os.path.isfile(args.file):  # a folder, /dev/zero, a fifo
            raise InputError(f"{args.file} is not a regular file; nothing was changed")
        with open(args.file, "rb") as handle:
            data = read_bounded(handle, args.file)
        try:  # refused, as on stdin: what is kept is what was sent
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{args.file} is not valid UTF-8 (bad byte at offset {exc.start}); "
                             "nothing was changed") from None
    try:
        ops = json.loads(text)
        if not isinstance(ops, list) or not all(isinstance(o, dict) for o in ops):
            raise ValueError("expected a JSON list of objects")
    except ValueError as exc:
        return refuse(f"invalid batch: {exc}", 2)
    return reply(_store(args, cfg).batch(ops))


def _show(args, cfg) -> int:
    store = _store(args, cfg)
    if args.scope or args.target == "user":
        result = store.show(_target(args))
        emit(result, text=lambda r: render_scope(store, r) if r["success"] else say(r))
        return exit_code(result)
    scopes = {t: store.show(t) for t in store.targets()}
    project = store.project
    emit({"success": True, "project": None if project is None else
          {"name": project.name, "root": project.root, "shared": project.is_shared},
          "scopes": scopes}, text=lambda _: "\n\n".join(render_scope(store, r) for r in scopes.values()))
    return 0


def _snapshot(args, cfg) -> int:
    store = _store(args, cfg)
    snapshot = store.snapshot()
    emit({"success": True, "snapshot": snapshot, "left_out": store.left_out},
         text=snapshot or "(nothing: every memory is empty)")
    if not JSON_OUTPUT["on"]:  # what the agent is not given is said too (stdout stays the context itself)
        sys.stderr.write("".join(f"tacit: {printable(note)}\n" for note in store.left_out))
    return 0


def _log(args, cfg) -> int:
    from tacit.timespan import parse_since

    try:
        since = parse_since(args.since)
    except ValueError as exc:
        return refuse(str(exc), 2)
    _store(args, cfg).notice_edits()  # a file emptied by hand is in the history (and undoable) when looked for
    found = [c.as_dict() for c in args.tacit.changes(since=since, limit=args.limit)]
    here = project_of(args)
    emit({"success": True, "changes": found},
         text=lambda _: render_log(found, here=here.main_root if here is not None else None))
    return 0


def render_log(found: list[dict], *, here: str | None = None) -> str:
    """The history for a person; a change to a project other than ``here`` names that project."""
    if not found:
        return "No changes recorded."
    lines = []
    for c in found:
        undone = f"  (undone by #{c['undone_by']})" if c.get("undone_by") else ""
        where = c["scope"] if not c["scope"].startswith("skill") else f"skill {os.path.basename(os.path.dirname(c['target']))}"
        if c.get("project") and c["project"] != here and c["scope"] in ("project", "team"):
            where += f" ({' '.join(os.path.basename(c['project']).split())})"
        lines.append(f"#{c['id']:<5} {c['time'].replace('T', ' ')}  {c['action']:<11} {where:<8} {c['actor']}{undone}")
        if c["text"]:
            lines.append(f"       {clip(c['text'], 160)}")
    return "\n".join(lines)


def _why(args, cfg) -> int:
    from tacit import changes

    if not args.text.strip():
        return reply({"success": False, "error": "say what to look for: tacit memory why TEXT"})
    result = changes.why(args.tacit, args.text, project=project_of(args))
    if not (result["entries"] or result["removed"]):  # exit 1: the object says so too
        result = {**result, "success": False, "error": render_why(result)}
    emit(result, text=render_why)
    return exit_code(result)


def render_why(result: dict) -> str:
    lines = []
    for found in result["entries"]:
        head = f"[{found['scope']}] "
        lines.append(head + found["entry"].replace("\n", "\n" + " " * len(head)))  # later lines under the first
        if not found["changes"]:
            lines.append("   no recorded change: written before tacit kept history")
        for c in found["changes"]:
            lines.append(f"   #{c['id']} {c['time'].replace('T', ' ')} {c['action']} by {c['actor']}")
            if c.get("cause"):
                lines.append(f"      because: {clip(c['cause'], 200)}")
    for c in result["removed"]:
        lines.append(f"removed in #{c['id']} {c['time'].replace('T', ' ')} ({c['action']} by {c['actor']}): "
                     f"{clip(' | '.join(c['removed']), 160)}")
    return "\n".join(lines) or f"No memory entry holds {clip(result['text'], 200)!r}, and none ever did."


def _undo(args, cfg) -> int:
    from tacit import changes

    return reply(changes.undo(args.tacit, args.id))
