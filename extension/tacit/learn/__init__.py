"""Deterministic learners: usage patterns, habits, fix patterns, importance.

This package's ``__init__`` holds only the pending-notice marker, because the
hook path checks it on every turn and must not import the learners for that.
"""

from __future__ import annotations

import os

NOTICES_FLAG = "notices.pending"


def notices_flag_path(cfg) -> str:
    return os.path.join(cfg.state_dir_str, NOTICES_FLAG)


def flag_pending_notices(cfg) -> None:
    """Touch the marker so foreground handlers can tell, with one stat() and
    no SQLite, that a "Memory adapted" notice is waiting."""
    try:
        os.makedirs(cfg.state_dir_str, exist_ok=True)
        with open(notices_flag_path(cfg), "w"):
            pass
    except OSError:
        pass


def guarded(where: str, cfg, work):
    """Run ``work()`` for a learner; learning never breaks the host. A locked or
    unavailable ledger is a warning (skipped), anything else is logged with its
    traceback. Returns what ``work`` returned, or None."""
    from tacit.stores.ledger import LedgerUnavailable

    try:
        return work()
    except LedgerUnavailable as exc:
        from tacit.log import log

        log(cfg, "warning", where, f"skipped: {exc}")
    except Exception as exc:  # noqa: BLE001 — learning never breaks the host
        from tacit.log import log_exception

        log_exception(cfg, where, exc)
    return None
