"""``tacit memories`` — what the ledger has learned (the functions of /memory-show, /memory-forget
and /memory-teach).

Design notes: docs/design/commands.md#tacitcommandsmemories
"""

from __future__ import annotations

import argparse

from tacit.commands import answer, command, emit, project_folder, read_text_arg, unavailable
from tacit.learn.lifecycle import forget, list_memories, render_memories, teach
from tacit.stores.ledger import LedgerUnavailable


def add_parser(subparsers) -> None:
    p = command(subparsers, "memories", _show, help="learned memories: list, forget, teach (/memory-show)")
    sub = p.add_subparsers(dest="memories_command", metavar="ACTION")
    f = command(sub, "forget", _forget, help="revert a learned memory and never propose it again")
    f.add_argument("key", help="the memory's key (see tacit memories)")
    t = command(sub, "teach", _teach, help="store an explicit memory (confidence 100, confirmed)")
    t.add_argument("text", help="the memory, or - to read it from stdin")
    t.add_argument("--scope", dest="target", choices=["memory", "user"], default="memory",
                   help="memory = this project's MEMORY.md (the global notes outside a project), user = USER.md")
    t.add_argument("--target", dest="target", choices=["memory", "user"], help=argparse.SUPPRESS)  # old spelling


def _show(args, cfg) -> int:
    try:
        memories = list_memories(cfg)
    except LedgerUnavailable as exc:
        return unavailable(exc)
    emit({"success": True, "memories": memories}, text=lambda r: render_memories(memories))
    return 0


def _forget(args, cfg) -> int:
    return answer(lambda: forget(args.tacit, args.key))


def _teach(args, cfg) -> int:
    return answer(lambda: teach(args.tacit, read_text_arg(args.text), target=args.target,
                                project=args.tacit.project(project_folder(args, cfg))))
