"""``tacit patterns`` — the fix patterns tacit forged — and ``tacit stats``.

Design notes: docs/design/commands.md#tacitcommandspatterns
"""

from __future__ import annotations

import argparse
import sys
import time

from tacit.commands import answer, command, emit, positive, read_text_arg, refuse, unavailable
from tacit.stores import guard_stats
from tacit.learn.fix_patterns import render_block, render_stats
from tacit.learn.fixes import delete_pattern, find_patterns, retire_pattern, stats
from tacit.stores import fix_patterns as store
from tacit.stores.ledger import Ledger, LedgerUnavailable


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("patterns", help="fix patterns: list, show, retire, delete, find")
    sub = p.add_subparsers(dest="patterns_command", metavar="ACTION")
    p.set_defaults(func=_list, all=False, text=False)

    ls = command(sub, "list", _list, help="list fix patterns (active; --all for retired too)")
    ls.add_argument("--all", action="store_true", help="include retired patterns")
    ls.add_argument("--text", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for scripts

    show = command(sub, "show", _show, help="show one fix pattern")
    show.add_argument("id", type=int, help="the pattern's id (tacit patterns list)")
    show.add_argument("--text", action="store_true", help=argparse.SUPPRESS)

    retire = command(sub, "retire", _retire, help="stop injecting a pattern (kept for the record)")
    retire.add_argument("id", type=int, help="the pattern's id (tacit patterns list)")
    retire.add_argument("--reason", default="retired by hand", help="kept with the pattern (default: retired by hand)")

    delete = command(sub, "delete", _delete, help="delete a pattern and its history")
    delete.add_argument("id", type=int, help="the pattern's id (tacit patterns list)")

    find = command(sub, "find", _find, help="the patterns that would be injected for a message")
    find.add_argument("text", help="the message, or - to read it from stdin")
    find.add_argument("--all", action="store_true",
                      help="ignore the similarity threshold and success/age filters (top 5)")

    s = command(subparsers, "stats", _stats, help="per-turn metrics: patterns injected, forged, lookup time")
    s.add_argument("--days", type=positive(float), default=None, help="only the last N days")


def _with(cfg, work, *, write: bool = False):
    """``work(conn)`` in one transaction; raises ``LedgerUnavailable``."""
    with Ledger(cfg) as led, (led.write() if write else led.read()) as conn:
        return work(conn)


def _line(p: dict) -> str:
    uses = p["successes"] + p["failures"]
    record = f"{p['successes']}/{uses} worked" if uses else "no outcome yet"
    status = "" if p["status"] == "active" else f" [{p['status']}: {p['retired_reason']}]"
    return (f"#{p['id']} {p['title']}{status}\n    problem: {p['problem']}\n    fix: {p['solution']}\n"
            f"    injected {p['times_injected']}×, {record}, forged {p['times_forged']}×")


def _list(args, cfg) -> int:
    try:
        patterns = _with(cfg, lambda conn: store.listing(conn, include_retired=args.all))
    except LedgerUnavailable as exc:
        return unavailable(exc)
    emit({"success": True, "count": len(patterns), "patterns": patterns},
         text="\n".join(_line(p) for p in patterns) if patterns else
         "No fix patterns yet: tacit forges one when the agent explains a fix it made.")
    return 0


def _show(args, cfg) -> int:
    try:
        pattern = _with(cfg, lambda conn: store.get(conn, args.id))
    except LedgerUnavailable as exc:
        return unavailable(exc)
    if pattern is None:
        return refuse(f"no fix pattern has id {args.id} (see tacit patterns list)")
    emit({"success": True, "pattern": pattern},
         text=_line(pattern) + f"\n    tags: {', '.join(pattern['tags']) or '-'}\n    lookup: {pattern['lookup_text']}")
    return 0


def _retire(args, cfg) -> int:
    return answer(lambda: _with(cfg, lambda conn: retire_pattern(conn, args.id, args.reason), write=True))


def _delete(args, cfg) -> int:
    return answer(lambda: _with(cfg, lambda conn: delete_pattern(conn, args.id), write=True))


def _find(args, cfg) -> int:
    text = read_text_arg(args.text)
    started = time.perf_counter()
    loose = {"limit": 5, "threshold": 0.0, "filters": False} if args.all else {}
    try:
        matches = _with(cfg, lambda conn: find_patterns(conn, text, cfg, **loose))
    except LedgerUnavailable as exc:
        return unavailable(exc)
    block = render_block(matches) if matches else None
    emit({"success": True, "matches": [m.as_dict() for m in matches],
          "lookup_ms": round((time.perf_counter() - started) * 1000, 3), "block": block},
         text=block or "No fix pattern would be injected for this message.")
    return 0


def _stats(args, cfg) -> int:
    since = time.time() - args.days * 86400 if args.days else None
    try:
        data = _with(cfg, lambda conn: stats(conn, since=since))
    except LedgerUnavailable as exc:
        if args.json:
            return unavailable(exc)
        sys.stderr.write(f"tacit stats: learning ledger unavailable ({exc})\n")
        return 1
    if args.json:
        emit({**data, "guards": guard_stats.stats_data(cfg)})
    else:
        print(render_stats(data) + "\n\n" + guard_stats.stats_text(cfg))
    return 0
