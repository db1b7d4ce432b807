"""``tacit observe`` — a plugin or skill reports one of its runs to the learning ledger.

Design notes: docs/design/commands.md#tacitcommandsobserve
"""

from __future__ import annotations

import sys

from tacit.commands import read_text_arg
from tacit.learn.observe import record_observation
from tacit.learn.patterns import ObservationError
from tacit.log import log
from tacit.stores.ledger import Ledger, LedgerUnavailable


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("observe", help="report one run of a plugin/skill to the learning ledger")
    p.add_argument("--plugin", required=True, help="what ran (plugin id, skill or command name)")
    p.add_argument("--action", required=True, help="what it did, e.g. triage_email")
    p.add_argument("--context", default="{}",
                   help="JSON object: company, category, user_edited, edit_description, "
                        "entity_type, entity_value, run_hour, … (- reads stdin)")
    p.add_argument("--session", default=None, help="session id (sequences need one)")
    p.set_defaults(func=_observe)


def _observe(args, cfg) -> int:
    if not cfg.learning_enabled:
        return 0
    context = read_text_arg(args.context)
    with Ledger(cfg) as ledger:
        try:
            result = record_observation(ledger, cfg, args.plugin, args.action, context,
                                        session_id=args.session, announce=False)
        except ObservationError as exc:
            sys.stderr.write(f"tacit observe: {exc}\n")
            return 2
        except LedgerUnavailable as exc:
            log(cfg, "warning", "tacit observe", f"skipped: {exc}")
            sys.stderr.write(f"tacit observe: learning ledger unavailable, run not recorded ({exc})\n")
            return 0
    for notice in result["notices"]:
        sys.stdout.write(notice["text"] + "\n")
    sys.stdout.flush()
    return 0
