"""The learners: usage patterns, habits, fix patterns, importance captures.

Each learner is a pure model (``patterns``, ``habits``, ``fix_patterns``, ``captures``), its SQL in
``tacit.stores`` beside the ledger (``observations``, ``habits``, ``fix_patterns``, ``captures``;
the shared lifecycle's ``candidates``), and a thin engine plugin that wires events to both
(``observe``, ``fixes``, ``importance``). ``lifecycle`` moves every learner's candidate memories
along; ``review`` settles importance captures; ``retention`` says how long their evidence is kept;
``replay`` is ``tacit learn``."""

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
