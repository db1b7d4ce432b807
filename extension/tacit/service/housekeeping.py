"""What the service does between events: retention, stranded jobs, memory given back.

Design notes: docs/design/service.md#tacitservicehousekeeping
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time

from tacit.children import budget, orphans
from tacit.events import Event
from tacit.handlers import review
from tacit.learn import retention as learner_retention
from tacit import processes
from tacit.log import log
from tacit.safety import file_modes
from tacit.stores import jobs as job_rows, notices
from tacit.stores.ledger import Ledger, LedgerUnavailable

DAY = 86400
STRANDED_AFTER = 60.0  # seconds a queued job may wait for its runner
CHILD_LOG_BYTES = 5_000_000
CHILD_LOG_KEEP = 2


def tick(cfg, engine, now: float | None = None) -> dict:
    now = time.time() if now is None else now
    processes.give_back()
    out = {"orphans": len(orphans.reap(cfg, engine.ledger())),  # children of runners that are gone
           "relaunched": relaunch_stranded(cfg, engine, now), "released": release_waiting(cfg, engine, now),
           "deferred": start_deferred(cfg, engine)}
    ledger = engine.ledger()
    try:
        with ledger.write() as conn:
            last = float(Ledger.meta_get(conn, "retention.last_run", 0) or 0)
            due = now - last >= DAY
            if due:
                Ledger.meta_set(conn, "retention.last_run", now)
    except LedgerUnavailable:
        return out
    if due:
        out["retention"] = apply_retention(cfg, engine, now)
    try:
        from tacit.search.indexer import refresh

        out["search"] = refresh(cfg)  # every 30 s once searched: little left to read when asked (docs/search.md)
    except Exception as exc:  # noqa: BLE001 — the index is a cache; a failure only delays it
        log(cfg, "warning", "service", f"search index refresh failed: {exc}")
    return out


def relaunch_stranded(cfg, engine, now: float) -> int:
    if engine.launcher is None:
        return 0
    with engine.ledger().read() as conn:
        jobs = job_rows.stranded(conn, now - STRANDED_AFTER)
    for job in jobs:
        engine.launcher(job)
    return len(jobs)


def start_deferred(cfg, engine) -> int:
    """Reviews that ended sessions deferred while their review ran, now that it is done."""
    if engine.launcher is None:
        return 0
    try:
        marked = engine.sessions.marked(review.DEFERRED)
    except LedgerUnavailable:
        return 0
    started = 0
    for sid in marked:
        seen = engine.sessions.peek(sid)
        event = Event(session_id=sid, host=seen.host, cwd=seen.cwd or None)
        started += len(engine.start_jobs(event, lambda state: [r for r in [review.deferred_review(state, cfg)] if r]))
    return started


def release_waiting(cfg, engine, now: float) -> int:
    """Start the oldest job waiting for the budget, when the budget allows it."""
    if engine.launcher is None:
        return 0
    try:
        ids = budget.release(cfg, engine.ledger(), now)
    except LedgerUnavailable:
        return 0
    for job_id in ids:
        with engine.ledger().read() as conn:
            job = job_rows.load(conn, job_id)
        if job is not None:
            engine.launcher(job)
    return len(ids)


def apply_retention(cfg, engine, now: float) -> dict:
    out = {"state": engine.sessions.prune(now)}
    with engine.ledger().write() as conn:
        out["notices"] = notices.prune(conn, now)
    out["learners"] = learner_retention.prune(engine.ledger(), cfg, now)  # in small batches
    out["children_log"] = rotate(os.path.join(cfg.state_dir_str, "logs", "children.jsonl"),
                                 CHILD_LOG_BYTES, CHILD_LOG_KEEP)
    out["trash"] = remove_older(os.path.join(cfg.home_str, "skills", ".trash"), now,
                                cfg.trash_retention_days)
    out["corrupt_ledgers"] = remove_older(cfg.state_dir_str, now, cfg.trash_retention_days, "ledger.db.corrupt-")
    out["file_modes_repaired"] = sum(1 for p in file_modes.check(cfg, repair=True) if p.repaired)
    log(cfg, "info", "retention", " ".join(f"{k}={v}" for k, v in out.items()))
    return out


def rotate(path: str, limit: int, keep: int) -> bool:
    try:
        if os.path.getsize(path) <= limit:
            return False
    except OSError:
        return False
    for n in range(keep, 1, -1):
        if os.path.exists(f"{path}.{n - 1}"):
            os.replace(f"{path}.{n - 1}", f"{path}.{n}")
    os.replace(path, f"{path}.1")
    return True


def remove_older(folder: str, now: float, days: float, prefix: str = "") -> int:
    """Remove what in ``folder`` (named ``prefix``…) is older than ``days``; how many went."""
    removed = 0
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(prefix)]
    except OSError:
        return 0
    for entry in entries:
        with contextlib.suppress(OSError):
            if now - entry.stat(follow_symlinks=False).st_mtime > days * DAY:
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
                removed += 1
    return removed
