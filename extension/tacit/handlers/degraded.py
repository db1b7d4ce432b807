"""What a session still gets when tacit's ledger or disk fails (issue 21), or
in a project tacit is off for (``excluded``: the user's own memory only).

Design notes: docs/design/core.md#tacithandlersdegraded
"""

from __future__ import annotations

import threading

from tacit.boundary import gate_outgoing
from tacit.failures import LedgerUnavailable, describe_failure
from tacit.handlers import guards_offline
from tacit.handlers.context import user_context
from tacit.hookspecs import ContextResult, Injection, Result
from tacit.log import log_exception
from tacit.projects import project_for
from tacit.stores.memory import MemoryStore

CONTEXT_KINDS = ("before_agent_start",)
_UNAPPLIED = threading.local()
NOTICE = ("tacit cannot use its data folder right now ({what}). Your memory is shown from its files, read "
          "only; nothing from this session is kept until this is fixed. Run `tacit doctor` for details.")
MIDWAY = ("tacit cannot use its data folder right now ({what}): what you say from here on is not kept until "
          "this is fixed. Run `tacit doctor` for details.")
_TOLD: dict[str, None] = {}  # sessions a long-lived engine told MIDWAY (bounded, oldest first out)
TOLD_MAX = 1000


def excluded(engine, event, result_type: type[Result]) -> Result:
    """The answer to an event in a project tacit is off for (``tacit.privacy.exclusion``):
    the user's own memory at session start, nothing else."""
    result = result_type()
    if event.kind == "before_agent_start":
        try:
            got = user_context(engine, event)
            result.context, result.notices = got.context, got.notices
        except Exception as exc:  # noqa: BLE001 — never break the host
            log_exception(engine.cfg, "excluded project: session context", exc)
    return result


def answer(engine, event, result_type: type[Result], exc: BaseException) -> Result:
    """The answer to ``event`` after its dispatch failed with ``exc``."""
    # locked too long (not corrupt, not read-only: then a retry would fail again): nothing of it was
    # committed, so it can be applied later
    if isinstance(exc, LedgerUnavailable) and "locked" in str(exc).lower():
        _UNAPPLIED.flag = True
    result = result_type()
    if event.kind == "tool_call":  # never unchecked: the guards kept in files
        try:
            return guards_offline.check(engine.cfg, event)
        except Exception as again:  # noqa: BLE001
            log_exception(engine.cfg, "guard check without the ledger", again)
            return result
    if event.kind == "message_end" and getattr(event, "role", "") == "user":
        return _told_midway(engine, event, result, exc)
    if event.kind not in CONTEXT_KINDS or not isinstance(result, ContextResult):
        return result
    try:
        features = engine.features_for(event.host or engine.default_host)
        project = project_for(event.cwd, home=engine.cfg.env.get("HOME"))
        memory = MemoryStore(engine.cfg, project)
        targets = [t for t in memory.targets() if "memory_snapshot" not in features or t in ("project", "team")]
        blocks = memory.render_blocks(targets)  # read and gated; no ledger, no hand-edit records
        snapshot = "\n\n".join(blocks[t] for t in targets if blocks.get(t))
        if snapshot:
            result.context.append(Injection(snapshot, priority=10, source="context.session"))
        result.notices.append(NOTICE.format(what=describe_failure(exc)[0]))
        result.notices.extend(memory.unread)  # a file far over its limit (tacit.stores.entries.fit)
        return gate_outgoing(result)
    except Exception as again:  # noqa: BLE001 — the fallback must not break the host either
        log_exception(engine.cfg, "degraded answer", again)
        return result_type()


def _told_midway(engine, event, result: Result, exc: BaseException) -> Result:
    """A user's message the disk could not keep (it filled or turned read-only mid-session): said once
    per session by a long-lived engine (the service; a one-shot hook's session start said it already)."""
    what, kind = describe_failure(exc)
    if kind != "storage" or engine.background != "thread" or event.session_id in _TOLD:
        return result
    _TOLD[event.session_id] = None
    while len(_TOLD) > TOLD_MAX:
        del _TOLD[next(iter(_TOLD))]
    result.notices.append(MIDWAY.format(what=what))
    return result


def take_unapplied() -> bool:
    """Was the last event this thread dispatched left unapplied because the ledger was locked? (Cleared by asking.)"""
    flag = getattr(_UNAPPLIED, "flag", False)
    _UNAPPLIED.flag = False
    return flag
