"""``tacit observe`` — a plugin or skill reports one of its runs to the learning ledger.

Design notes: docs/design/commands.md#tacitcommandsobserve
"""

from __future__ import annotations

import sys

from tacit.commands import JSON_OUTPUT, command, emit, read_text_arg, refuse
from tacit.learn.observe import record_observation
from tacit.learn.patterns import ObservationError
from tacit.log import log
from tacit.stores.ledger import Ledger, LedgerUnavailable


def add_parser(subparsers) -> None:
    p = command(subparsers, "observe", _observe,
                help="report one run of a plugin/skill to the learning ledger")
    p.add_argument("--plugin", required=True, help="what ran (plugin id, skill or command name)")
    p.add_argument("--action", required=True, help="what it did, e.g. triage_email")
    p.add_argument("--context", default="{}",
                   help="JSON object: company, category, user_edited, edit_description, "
                        "entity_type, entity_value, run_hour, … (- reads stdin)")
    p.add_argument("--session", default=None, help="session id (sequences need one)")


def _observe(args, cfg) -> int:
    if not cfg.learning_enabled:
        return _told({"success": True, "recorded": False, "message": "learning is off: nothing recorded"})
    context = read_text_arg(args.context)
    with Ledger(cfg) as ledger:
        try:
            result = record_observation(ledger, cfg, args.plugin, args.action, context,
                                        session_id=args.session, announce=False)
        except (ObservationError, RecursionError) as exc:  # RecursionError: a context nested past JSON's limit
            error = str(exc) if isinstance(exc, ObservationError) else "context is nested too deeply to read"
            return refuse(error, 2, "tacit observe")
        except LedgerUnavailable as exc:  # a plugin's call never fails on tacit's account: exit 0, said
            log(cfg, "warning", "tacit observe", f"skipped: {exc}")
            return _told({"success": True, "recorded": False,
                          "message": f"learning ledger unavailable, run not recorded ({exc})"}, stream=sys.stderr)
    notices = [notice["text"] for notice in result["notices"]]
    return _told({"success": True, "recorded": True, "notices": notices}, lines=notices)


def _told(result: dict, *, lines: list | None = None, stream=None) -> int:
    """One JSON object with ``--json``; else the notices (or the message) as lines, none when there is nothing."""
    if JSON_OUTPUT["on"]:
        emit(result)
        return 0
    text = lines if lines is not None else ([f"tacit observe: {result['message']}"] if stream else [])
    for line in text:
        (stream or sys.stdout).write(line + "\n")
    (stream or sys.stdout).flush()
    return 0
