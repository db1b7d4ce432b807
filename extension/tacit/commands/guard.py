"""``tacit guard …`` — the lessons checked before every tool call (docs/guards.md, "Managing guards").

Design notes: docs/design/guards.md#tacitcommandsguard
"""

from __future__ import annotations

import json
import os

from tacit.commands import command, emit, project_folder, refuse, unavailable
from tacit.display import clip, printable
from tacit.guards import GuardSet, normalize_call, reason
from tacit.guards.reason import unread_reason
from tacit.handlers.guards import git_facts
from tacit.projects import Project, project_for
from tacit.safety.scanner import describe, scan
from tacit.stores.guard_files import READ_BY_CHILD, add_for_line, unread_lines
from tacit.stores.guard_stats import render_stats, stats
from tacit.stores.guards import GuardRecord, GuardStore
from tacit.stores.ledger import Ledger, LedgerUnavailable


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("guard", help="lessons checked before every tool call: list, add, test, stats")
    sub = parser.add_subparsers(dest="guard_command", metavar="ACTION", required=True)

    def common(p):
        p.add_argument("--project", metavar="DIR", help="the project of this folder (default: the working folder)")

    p = command(sub, "list", _list, help="the guards that apply here, and where each came from")
    common(p)
    p.add_argument("--all", action="store_true", help="every guard, removed and other projects' too")

    p = command(sub, "add", _add, help="add a guard by hand")
    common(p)
    p.add_argument("pattern", help="`npm`, `terraform apply`, path:GLOB, read:GLOB, push[:BRANCH], force-push[:BRANCH], "
                                   "merge[:BRANCH], sudo, "
                                   "pipe (curl|wget into a shell), sql:drop_table,drop_database,truncate,"
                                   "delete_without_where")
    p.add_argument("--because", default=None, help="the reason the agent (and you) are told")
    p.add_argument("--lesson", type=int, metavar="N", default=None,
                   help="a guard for the lesson saved by change N (tacit memory log): accepted only when every "
                        "word of PATTERN occurs in the lesson or the user's message that caused it; starts as ask")
    p.add_argument("--line", metavar="FILE:LINE", default=None,
                   help="a guard for an instruction-file line tacit could not read (AGENTS.md:42): accepted only "
                        "when every word of PATTERN occurs in that line; starts as ask, lives while the line does")
    p.add_argument("--scope", choices=("project", "global"), default=None,
                   help="project (the default inside a project) or global")
    p.add_argument("--action", choices=("ask", "deny"), default="ask", help="ask the user (default) or deny")

    for name, help_text, func in (
            ("remove", "lift a guard",
             lambda args, cfg: _changed(args, cfg, lambda store: store.remove(args.id), "removed")),
            ("restore", "bring a removed guard back",
             lambda args, cfg: _changed(args, cfg, lambda store: store.restore(args.id), "restored")),
            ("wrong", "the rule is wrong: demote it (a second time: remove it)", _wrong)):
        p = command(sub, name, func, help=help_text)
        p.add_argument("id", help="the guard's id (tacit guard list)")

    p = command(sub, "set", lambda args, cfg: _changed(args, cfg, lambda store: store.set_action(args.id, args.action),
                                                       f"set to {args.action}"), help="change a guard's action")
    p.add_argument("id")
    p.add_argument("--action", choices=("ask", "deny"), required=True)

    p = command(sub, "test", _test, help="which guard would stop a command (or an edit), and why")
    common(p)
    p.add_argument("command", nargs="?", default=None, help="a shell command, as the agent would run it")
    p.add_argument("--edit", metavar="PATH", help="test a change to this file instead")
    p.add_argument("--read", metavar="PATH", help="test reading this file (the host's read tool) instead")

    p = command(sub, "stats", _stats, help="per project: lessons, guards, calls stopped, repeat mistakes")
    common(p)

    p = command(sub, "why", _why, help="why a lesson is, or is not, a guard")
    p.add_argument("text", help="the lesson, as written")


def _folder(args, cfg) -> str:
    return os.path.realpath(project_folder(args, cfg))


def _project(args, cfg) -> Project | None:
    return project_for(_folder(args, cfg))


def _fail(error: str) -> int:
    return refuse(error, who="tacit guard")


def _run(args, cfg, work) -> int:
    """``work(store) -> int`` on an open ledger; an unusable ledger is an error."""
    try:
        with Ledger(cfg) as ledger:
            return work(GuardStore(cfg, ledger))
    except LedgerUnavailable as exc:
        return unavailable(exc, "ledger", who="tacit guard")


def _where(record: GuardRecord) -> str:
    scope = "global" if record.scope == "global" else f"project {record.project_root}"
    if record.origin == "user":
        return f"{scope}; added by hand on {record.date}"
    if record.file is not None:
        read = " (phrased: tacit could not read the line)" if record.key.startswith(READ_BY_CHILD) else ""
        return f"{scope}; from the repository's {record.file}{read}"
    said = "you said so" if record.by_user else "saved"
    return f"{scope}; from {record.memory_scope} memory, {said} on {record.date}"


def _line(record: GuardRecord) -> str:
    status = "" if record.status == "active" else f" [{record.status}{': ' + record.removed_why if record.removed_why else ''}]"
    strikes = f", {record.strikes} strike{'s' if record.strikes > 1 else ''}" if record.strikes else ""
    return (f"  {record.id:>3}  {record.action:<4}  {record.spec.describe()}{status}\n"
            f"       \"{clip(record.lesson, 160)}\"\n       {_where(record)}{strikes}")


def _list(args, cfg) -> int:
    project = _project(args, cfg)

    def work(store: GuardStore) -> int:
        store.sync(project)
        records = store.all() if args.all else store.applying(project)
        phrased = {r.file for r in store.applying(project) if r.key.startswith(READ_BY_CHILD)}
        unread = [u for u in unread_lines(store.ledger, cfg, project) if u["where"] not in phrased]
        if args.json:
            emit({"success": True, "project": project and {"name": project.name, "root": project.main_root},
                  "guards": [r.as_dict() for r in records], "unread": unread})
            return 0
        where = f"{project.name} ({project.main_root})" if project else "no project (global guards only)"
        if not records:
            print(f"No guards apply in {where}. Lessons like \"we use pnpm here, never npm\" become guards; "
                  "add one with `tacit guard add PATTERN --because \"…\"`.")
        else:
            print(f"Guards {'known' if args.all else 'that apply in ' + where} ({len(records)}):")
            for record in records:
                print(printable(_line(record)))  # a lesson from a clone's team memory or AGENTS.md
            print("Lift one with `tacit guard remove ID`; test a command with `tacit guard test \"…\"`.")
        if unread:
            print(f"\nRule lines tacit could not read as a guard ({len(unread)}; a child is shown each once):")
            for one in unread[:10]:
                print(printable(f"  {one['where']}  \"{clip(one['text'], 100)}\""
                                f"{'' if one['asked'] else '  (not shown yet)'}"))
            print(f"Phrase one yourself: tacit guard add --line {unread[0]['where']} \"<pattern>\" "
                  "(every word of it must be in the line).")
        return 0

    return _run(args, cfg, work)


def _why(args, cfg) -> int:
    from tacit.guards.instructions import unread_rule
    from tacit.guards.why import explain
    result = explain(args.text)
    result["reader"] = not result["guard"] and unread_rule(" ".join(str(args.text).split()))
    if args.json:
        emit({"success": True, **result})
    else:
        print(("A guard: " if result["guard"] else "Not a guard: ") + result["why"])
        if result["reader"]:
            print("  As a saved lesson or an instruction-file line, it is shown once to the rule reader, a "
                  "child that may propose a guard for it in its reply; tacit keeps a proposal only when "
                  "every word of it is in what the line forbids (rule_reader in config.toml).")
        for rule in result["rules"]:
            print(f"  {rule['kind']}: {json.dumps(rule['match'])}")
    return 0


def _add(args, cfg) -> int:
    project = _project(args, cfg)
    scope = args.scope or ("project" if project is not None else "global")
    if args.lesson is None and args.line is None and not args.because:
        return _fail("--because is required (or --lesson N, or --line FILE:LINE): the reason the agent is told")
    findings = scan(args.because or "")  # the reason reaches the agent: the gate memory entries pass
    if findings:
        return _fail(f"Refused by the content scanner: {describe(findings)}")

    def work(store: GuardStore) -> int:
        if args.line is not None:
            result = add_for_line(store, args.line, args.pattern, project)
        elif args.lesson is not None:
            result = store.add_for_lesson(args.lesson, args.pattern, scope=scope, project=project)
        else:
            result = store.add(args.pattern, args.because, scope=scope, project=project, action=args.action)
        if not result["success"]:
            return _fail(result["error"])
        gid = result["guard"]["id"]
        record = store.get(gid)
        done = "Added" if result["created"] else "The lesson is already" if result.get("already") else "Updated"
        emit(result, text=f"{done} guard {gid} ({record.action}): "
                          f"{record.spec.describe()}, "
                          f"{'in ' + record.project_root if record.scope == 'project' else 'everywhere'}. "
                          f"Lift it with `tacit guard remove {gid}`.")
        return 0

    return _run(args, cfg, work)


def _changed(args, cfg, change, done: str) -> int:
    def work(store: GuardStore) -> int:
        result = change(store)
        if not result["success"]:
            return _fail(result["error"])
        record = store.get(result["guard"]["id"])
        if record is not None and record.file is not None and record.status == "removed":
            result["note"] = (f"the line stays in {record.file.rsplit(':', 1)[0]}; its guard stays lifted while the "
                              "line reads the same")
        elif record is not None and record.origin == "memory" and record.status == "removed":
            result["note"] = (f"the lesson stays in {record.memory_scope} memory (it still informs the agent); "
                              f"to drop it too: tacit memory remove --scope {record.memory_scope} "
                              f"{json.dumps(clip(record.lesson, 60))}")
        emit(result, text=lambda r: f"Guard {r['guard']['id']} {done if r.get('changed', True) else 'unchanged'}: "
                                    f"{record.spec.describe()} ({record.action}, {record.status})."
                                    + (f" Note: {r['note']}." if "note" in r else ""))
        return 0

    return _run(args, cfg, work)


def _wrong(args, cfg) -> int:
    def work(store: GuardStore) -> int:
        record = store.get(args.id)
        if record is None or record.status != "active":
            return _fail(f"no active guard {args.id!r} (see `tacit guard list --all`)")
        outcome = store.strike(record.id, "wrong", project=record.project, subject="tacit guard wrong")
        if outcome is None:
            return _fail(f"guard {record.id} could not be changed")
        result = {"success": True, "change": outcome.change, "history_id": outcome.history_id,
                  "guard": outcome.record.as_dict()}
        now = "demoted to ask" if record.action == "deny" else "still asks first"  # an ask guard stays one
        emit(result, text=f"Guard {record.id} removed (called wrong twice). Bring it back with `tacit guard restore "
                          f"{record.id}`." if outcome.change == "removed" else
                          f"Guard {record.id} {now} (1 strike); called wrong once more and it is removed.")
        return 0

    return _run(args, cfg, work)


def check_call(cfg, store: GuardStore, project: Project | None, folder: str, *, command: str | None = None,
               edit: str | None = None, read: str | None = None) -> list[dict]:
    """The guards a command run (or a file changed, or read) in ``folder`` would stop."""
    store.sync(project)
    records = {r.id: r for r in store.applying(project)}
    root = project.root if project is not None else None
    guards = GuardSet([r.guard(root) for r in records.values()], home=cfg.env.get("HOME"))
    if edit is not None or read is not None:
        call = normalize_call("Edit" if read is None else "Read", {"file_path": edit if read is None else read}, folder,
                              project_root=root, home=cfg.env.get("HOME"))
    else:
        call = normalize_call("Bash", {"command": command}, folder, project_root=root, home=cfg.env.get("HOME"),
                              exists=os.path.lexists, **git_facts(root))
    out = []
    for hit in guards.check(call):
        record = records[hit.guard.id]
        out.append({"id": record.id, "because": record.lesson, "action": record.action,
                    "reason": reason(hit, date=record.date, by_user=record.by_user),
                    "subject": hit.subject, "scope": record.scope, "source": record.source(),
                    "kind": record.spec.kind})
    if not out and call.cut and records:  # as before a tool call: what no guard could read is asked
        out.append({"id": None, "because": "", "action": "ask", "reason": unread_reason("ask"), "subject": "",
                    "scope": "", "source": "", "kind": "unread"})
    return out


def _test(args, cfg) -> int:
    if [args.command, args.edit, args.read].count(None) != 2:
        return _fail("give a command to test, --edit PATH or --read PATH (one of them)")
    folder = _folder(args, cfg)
    project = project_for(folder)

    def work(store: GuardStore) -> int:
        hits = check_call(cfg, store, project, folder, command=args.command, edit=args.edit, read=args.read)
        enabled = bool(cfg.settings.get("guards_enabled", True))  # off: a hit is counted, never stopped
        off = "" if enabled else (f"\nGuards are off (guards_enabled = false in {cfg.source_of('guards_enabled')}): "
                                  "nothing is stopped.")
        emit({"success": True, "fires": bool(hits), "guards": hits, **({} if enabled else {"guards_enabled": False})},
             text="\n".join(f"guard {hit['id']} ({hit['action']}): {hit['reason']}" if hit["id"] else hit["reason"]
                       for hit in hits)
             + (off if hits else "") or "No guard fires.")
        return 0

    return _run(args, cfg, work)


def _stats(args, cfg) -> int:
    only = _project(args, cfg) if args.project else None

    def work(store: GuardStore) -> int:
        emit(stats(cfg, store, only=only, include_current=None if only else _project(args, cfg)), text=render_stats)
        return 0

    return _run(args, cfg, work)
