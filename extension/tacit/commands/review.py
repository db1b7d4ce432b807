"""``tacit review`` — the nightly review of what tacit noted (/memory-review).

Design notes: docs/design/commands.md#tacitcommandsreview
"""

from __future__ import annotations

import datetime as dt
import time

from tacit.commands import command, emit, read_text_arg, reply, unavailable
from tacit.learn.review import decide, memory_review, settle_past_days
from tacit.stores.captures import decisions
from tacit.stores.ledger import Ledger, LedgerUnavailable


def add_parser(subparsers) -> None:
    p = command(subparsers, "review", _review, help="review today's notes: keep, drop, edit (/memory-review)")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--day", help="the day to review (YYYY-MM-DD; default today)")
    when.add_argument("--all", action="store_true", help="every undecided note, whatever its day")
    p.add_argument("--keep", nargs="+", default=[], metavar="ID", help="keep these notes (promote now)")
    p.add_argument("--drop", nargs="+", default=[], metavar="ID", help="drop these notes")
    p.add_argument("--edit", nargs=2, action="append", default=[], metavar=("ID", "TEXT"),
                   help="replace a note's text (TEXT may be - for stdin)")
    p.add_argument("--finish", action="store_true", help="apply the defaults to today's notes now")
    p.add_argument("--history", action="store_true", help="list recorded decisions")


def _review(args, cfg) -> int:
    try:
        if args.keep or args.drop or args.edit:
            return _decide(args, cfg)
        if args.finish:
            return _finish(cfg)
        if args.history:
            return _history(args, cfg)
        return _show(args, cfg)
    except LedgerUnavailable as exc:
        return unavailable(exc)


def _show(args, cfg) -> int:
    if args.day:
        try:
            dt.date.fromisoformat(args.day)
        except ValueError:
            emit({"success": False, "error": f"usage: --day wants YYYY-MM-DD, got {args.day!r}"})
            return 2
    result = memory_review(cfg, trigger="cli", day=args.day, include_all=args.all)
    if args.json:
        emit(result)
    else:
        print(result["text"])
    return 0


def _decide(args, cfg) -> int:
    edits = [(ref, read_text_arg(text)) for ref, text in args.edit]
    return reply(decide(cfg, keep=args.keep, drop=args.drop, edits=edits))


def _finish(cfg) -> int:
    with Ledger(cfg) as led, led.write() as conn:
        result = settle_past_days(conn, cfg, time.time(), include_today=True)
    emit({"success": not result["failed"], **result}, text=_finish_text)
    return 0 if not result["failed"] else 1


def _finish_text(result: dict) -> str:
    parts = [f"{len(result.get(k) or [])} {k}" for k in ("promoted", "discarded", "deferred")]
    text = "Review finished: " + ", ".join(parts) + "."
    if result.get("failed"):
        text += f" Could not apply {len(result['failed'])}: see tacit review."
    return text


def _history(args, cfg) -> int:
    with Ledger(cfg) as led, led.read() as conn:
        rows = decisions(conn, day=args.day)
    emit({"success": True, "decisions": rows}, text=_history_text)
    return 0


def _history_text(result: dict) -> str:
    rows = result["decisions"]
    if not rows:
        return "No review decisions yet."
    return "\n".join(f"{d.get('day', '')}  {d['action']:<8} by {d.get('decided_by', '?'):<9} {d.get('key', '')}"
                     for d in rows)
