"""The learners: usage patterns, habits, fix patterns, importance captures.

Design notes: docs/design/learn.md"""

from __future__ import annotations

from tacit.log import log, log_exception
from tacit.stores.ledger import LedgerUnavailable


def guarded(where: str, cfg, work):
    """Run ``work()`` for a learner; learning never breaks the host. A busy
    or unavailable ledger is a warning (skipped), anything else is logged
    with its traceback. Returns what ``work`` returned, or None."""
    try:
        return work()
    except LedgerUnavailable as exc:
        log(cfg, "warning", where, f"skipped: {exc}")
    except Exception as exc:  # noqa: BLE001 — learning never breaks the host
        log_exception(cfg, where, exc)
    return None


def writing(where: str, ctx, work):
    """``guarded`` ``work(conn)`` in one write of the handler's ledger (a savepoint in the event's own
    transaction)."""
    def run():
        with ctx.ledger.write() as conn:
            return work(conn)

    return guarded(where, ctx.cfg, run)
