"""``tacit habits`` — tool and command sequences mined from action events.

    tacit habits list [--json]               habits, by confidence
    tacit habits suggest --current ACTION    what usually follows ACTION
                                             (weight ≥ 0.8, seen ≥ 5 times)
    tacit habits status [--json]             events, habits, and emerging patterns
                                             with a progress bar toward the threshold
    tacit habits clear                       delete action events and mined patterns

``list`` and ``status`` mine first (every event in the retention window);
``suggest`` re-mines only when the last mining is older than 15 minutes.
"""

from __future__ import annotations

import sys

from tacit.commands import emit


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("habits", help="tool and command habits: list, suggest, status, clear")
    sub = p.add_subparsers(dest="habits_command", metavar="ACTION", required=True)

    s = sub.add_parser("list", help="mined habits")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_list)

    s = sub.add_parser("suggest", help="what usually follows the current action")
    s.add_argument("--current", required=True, help="an action: a tool (Edit, Bash:pytest) or /command")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_suggest)

    s = sub.add_parser("status", help="events, habits and emerging patterns")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_status)

    s = sub.add_parser("clear", help="delete all action events and mined habits")
    s.set_defaults(func=_clear)


def _run(cfg, work) -> int:
    from tacit.stores.ledger import Ledger, LedgerUnavailable

    try:
        with Ledger(cfg) as ledger:
            return work(ledger)
    except LedgerUnavailable as exc:
        sys.stderr.write(f"tacit habits: learning ledger unavailable ({exc})\n")
        return 1


def _list(args, cfg) -> int:
    from tacit.learn import habits

    def work(ledger):
        habits.mine(ledger, cfg)
        found = habits.list_habits(ledger)
        if args.json:
            emit({"success": True, "habits": found})
        else:
            print(habits.render_list(found))
        return 0

    return _run(cfg, work)


def _suggest(args, cfg) -> int:
    from tacit.learn import habits

    def work(ledger):
        habits.mine_if_stale(ledger, cfg)
        found = habits.suggest(ledger, args.current)
        if args.json:
            emit({"success": True, "current": args.current, "suggestions": found})
        else:
            print(habits.render_suggestions(args.current, found))
        return 0

    return _run(cfg, work)


def _status(args, cfg) -> int:
    from tacit.learn import habits

    def work(ledger):
        habits.mine(ledger, cfg)
        info = habits.status(ledger, cfg)
        if args.json:
            emit({"success": True, **info})
        else:
            print(habits.render_status(info))
        return 0

    return _run(cfg, work)


def _clear(args, cfg) -> int:
    from tacit.learn import habits

    def work(ledger):
        emit(habits.clear(ledger))
        return 0

    return _run(cfg, work)
