"""``tacit memory …`` — the agent-facing memory tool as a command line.

Child agents and the agent itself (through its shell tool) save memories with
these commands, so their output is the tool's result: one JSON object, exit 0
when done, 1 when refused (limit, scanner, no match, drift), 2 on usage errors.
"""

from __future__ import annotations

import json

from tacit.commands import emit, exit_code, read_text_arg
from tacit.consolidation import add_entry
from tacit.stores.memory import MemoryStore


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("memory", help="add, replace, remove or show memory entries")
    sub = parser.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    def target_arg(p):
        p.add_argument("--target", choices=["memory", "user"], default="memory",
                       help="memory = MEMORY.md (agent's notes), user = USER.md (the user's profile)")

    p = sub.add_parser("add", help="add an entry (exact duplicates are a no-op)")
    target_arg(p)
    p.add_argument("text", help="the entry, or - to read it from stdin")
    p.set_defaults(func=_add)

    p = sub.add_parser("replace", help="replace the one entry containing OLD_TEXT")
    target_arg(p)
    p.add_argument("old_text")
    p.add_argument("new_text", help="the new entry, or - to read it from stdin")
    p.set_defaults(func=_replace)

    p = sub.add_parser("remove", help="remove the one entry containing OLD_TEXT")
    target_arg(p)
    p.add_argument("old_text", help="a unique substring, or - to read it from stdin")
    p.set_defaults(func=_remove)

    p = sub.add_parser("batch", help="apply a JSON list of operations all-or-nothing")
    p.add_argument("file", help="JSON file with [{action, target, content|old_text}], or -")
    p.set_defaults(func=_batch)

    p = sub.add_parser("show", help="the live entries on disk")
    target_arg(p)
    p.set_defaults(func=_show)

    p = sub.add_parser("snapshot", help="the frozen block as the agent sees it at session start")
    p.set_defaults(func=_snapshot)


def _store(cfg) -> MemoryStore:
    return MemoryStore(cfg)


def _add(args, cfg) -> int:
    result = add_entry(cfg, args.target, read_text_arg(args.text))
    emit(result)
    return exit_code(result)


def _replace(args, cfg) -> int:
    result = _store(cfg).replace(args.target, args.old_text, read_text_arg(args.new_text))
    emit(result)
    return exit_code(result)


def _remove(args, cfg) -> int:
    result = _store(cfg).remove(args.target, read_text_arg(args.old_text))
    emit(result)
    return exit_code(result)


def _batch(args, cfg) -> int:
    if args.file == "-":
        text = read_text_arg("-")
    else:
        with open(args.file, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    try:
        ops = json.loads(text)
        if not isinstance(ops, list) or not all(isinstance(o, dict) for o in ops):
            raise ValueError("expected a JSON list of objects")
    except ValueError as exc:
        emit({"success": False, "error": f"invalid batch: {exc}"})
        return 2
    result = _store(cfg).batch(ops)
    emit(result)
    return exit_code(result)


def _show(args, cfg) -> int:
    emit(_store(cfg).show(args.target))
    return 0


def _snapshot(args, cfg) -> int:
    store = _store(cfg)
    emit({"success": True, "snapshot": store.snapshot()})
    return 0
