"""``tacit habits`` — tool and command sequences, counted as they happen.

Design notes: docs/design/commands.md#tacitcommandshabits
"""

from __future__ import annotations

from tacit.commands import emit, unavailable
from tacit.learn import habits
from tacit.learn.observe import clear_habits, habit_status, list_habits, rebuild_habits, suggest
from tacit.stores.ledger import Ledger, LedgerUnavailable


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("habits", help="tool and command habits: list, suggest, status, rebuild, clear")
    sub = p.add_subparsers(dest="habits_command", metavar="ACTION", required=True)
    for name, help_text, func in (
            ("list", "habits", _list), ("suggest", "what usually follows the current action", _suggest),
            ("status", "events, habits and emerging patterns", _status),
            ("rebuild", "recount habits from the action events with the current settings", _rebuild),
            ("clear", "delete all action events and counted habits", _clear)):
        sub.add_parser(name, help=help_text).set_defaults(func=func)
    sub.choices["suggest"].add_argument("--current", required=True,
                                        help="an action: a tool (Edit, Bash:pytest) or /command")


def _run(cfg, work, *, write: bool = False) -> int:
    try:
        with Ledger(cfg) as ledger, (ledger.write() if write else ledger.read()) as conn:
            return work(conn)
    except LedgerUnavailable as exc:
        return unavailable(exc, who="tacit habits")


def _list(args, cfg) -> int:
    return _run(cfg, lambda conn: emit({"success": True, "habits": list_habits(conn, cfg)},
                                       text=lambda r: habits.render_list(r["habits"])) or 0)


def _suggest(args, cfg) -> int:
    return _run(cfg, lambda conn: emit(
        {"success": True, "current": args.current, "suggestions": suggest(conn, cfg, args.current)},
        text=lambda r: habits.render_suggestions(args.current, r["suggestions"])) or 0)


def _status(args, cfg) -> int:
    return _run(cfg, lambda conn: emit({"success": True, **habit_status(conn, cfg)}, text=habits.render_status) or 0)


def _rebuild(args, cfg) -> int:
    return _run(cfg, lambda conn: emit(rebuild_habits(conn, cfg)) or 0, write=True)


def _clear(args, cfg) -> int:
    return _run(cfg, lambda conn: emit(clear_habits(conn)) or 0, write=True)
