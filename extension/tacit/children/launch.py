"""Where a child job runs. The engine calls ``launcher(job) -> pid | None``
after the job row has committed with the event that asked for it.

Design notes: docs/design/children.md#tacitchildrenlaunch
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from dataclasses import dataclass, field

from tacit.children import budget
from tacit.children.allowed import ALONE
from tacit.children.commands import agent_available
from tacit.children.env import SESSION_ENV, process_env, spawn_detached
from tacit.log import log_exception
from tacit.paths import LOCK_NAME, python_argv, run_dir
from tacit.privacy.exclusion import why_excluded
from tacit.projects import project_for
from tacit.stores import candidates, guard_files, history
from tacit.stores.ledger import Ledger
from tacit.stores import jobs
from tacit.stores.jobs import load as load_job
from tacit.stores.sessions import SessionStore


def detached_launcher(cfg):
    def launch(job: dict) -> int:
        session = (job.get("variables") or {}).get(SESSION_ENV)  # its host's PATH and home, as launched
        env = process_env(cfg, job.get("host"), session=session, base=job.get("launch_env"))
        return spawn_detached(python_argv("child", "run", job["id"]), env, cwd=cfg.home_str)

    return launch


def inline_launcher(cfg, engine_ref):
    def launch(job: dict) -> None:
        try:
            with Ledger(cfg) as ledger:
                ids = [job["id"]]
                while ids:
                    job_id = ids.pop(0)
                    run_taken(cfg, ledger, job_id, fallback_job=job if job_id == job["id"] else None)
                    ids.extend(budget.release(cfg, ledger))  # waiting jobs the budget allows again
        finally:
            engine = engine_ref()
            if engine is not None:
                engine.reload_stores()

    return launch


@dataclass
class Taken:
    job: dict
    siblings: list = field(default_factory=list)
    agent: bool = False
    budget_checked: bool = False
    skipped: dict | None = None  # the record of a job that must not run


def take(cfg, ledger: Ledger, job_id: str) -> Taken | None:
    """Claim a queued job (and its same-turn siblings when an agent will run); None if none."""
    with ledger.write() as conn:
        job = load_job(conn, job_id)
        if job is None or job["status"] != "queued":
            return None
        now = time.time()
        reason = why_excluded(cfg, job.get("cwd"))
        if reason:
            record = {"job_id": job_id, "kind": job["kind"], "ok": True, "mode": "skipped",
                      "skipped": f"tacit is off for this project ({reason})"}
            jobs.finish(conn, job_id, "done", record, now)
            return Taken(job, skipped=record)
        taken = Taken(job, agent=agent_available(cfg, job.get("host") or cfg.host, job["kind"]))
        if taken.agent and budget.check(cfg, conn, now, exclude_job=job_id).allowed:
            taken.budget_checked = True
            for other_id in [] if job["kind"] in ALONE else jobs.queued_siblings(conn, job, budget.MERGE_WINDOW):
                other = load_job(conn, other_id)
                if other is not None and other["kind"] not in {s["kind"] for s in taken.siblings} | ALONE:
                    taken.siblings.append(other)
        jobs.mark_running(conn, [one["id"] for one in [job, *taken.siblings]], now, os.getpid())
        return taken


def run_taken(cfg, ledger: Ledger, job_id: str, *, fallback_job: dict | None = None) -> dict | None:
    """Take ``job_id`` and run it; a job without a row (``fallback_job``) runs as given."""
    # the runner (prompts, jinja2, integrity checks) only where a job runs here: a service
    # or a hook that merely launches ``tacit child run`` answers its first hook without it
    from tacit.children.runner import append_child_log, run_job

    taken = take(cfg, ledger, job_id)
    if taken is None:
        if fallback_job is None or _has_row(ledger, job_id):
            return None  # taken by another runner, or merged into a sibling's run
        record = run_job(cfg, fallback_job)
        finish(cfg, fallback_job, record, ledger=ledger)
        return record
    if taken.skipped is not None:
        append_child_log(cfg, taken.skipped)
        record = taken.skipped
    else:
        record = run_job(cfg, taken.job, agent=taken.agent, siblings=taken.siblings,
                         budget_checked=taken.budget_checked)
    finish(cfg, taken.job, record, ledger=ledger, siblings=taken.siblings)
    return record


def _has_row(ledger: Ledger, job_id: str) -> bool:
    with ledger.read() as conn:
        return jobs.exists(conn, job_id)


def run_job_id(cfg, job_id: str) -> dict | None:
    """``tacit child run JOB_ID``. None when there is no such queued job."""
    with Ledger(cfg) as ledger:
        record = run_taken(cfg, ledger, job_id)
        if record is not None:
            start_released(cfg, ledger)
        return record


def start_released(cfg, ledger: Ledger) -> list[str]:
    """Start (detached) the waiting jobs the budget allows again, unless a service runs: it starts them,
    each from its own session's environment (this runner has its own session's). Never raises."""
    try:
        if service_runs(cfg):
            return []
        ids = budget.release(cfg, ledger)
        launch = detached_launcher(cfg)
        for job_id in ids:
            with ledger.read() as conn:
                job = load_job(conn, job_id)
            if job is not None:
                launch(job)
        return ids
    except Exception as exc:  # noqa: BLE001
        log_exception(cfg, "starting waiting child jobs", exc)
        return []


def service_runs(cfg) -> bool:
    """A service holds this data folder's lock (``tacit.service.server``)."""
    try:
        with open(os.path.join(run_dir(cfg.state_dir_str), LOCK_NAME), "rb") as handle:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)  # closing it lets go
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False


def finish(cfg, job: dict, record: dict, *, ledger: Ledger | None = None, siblings=()) -> None:
    """Clear the running marks of the job and of the jobs merged into its run."""
    with (contextlib.nullcontext(ledger) if ledger is not None else Ledger(cfg)) as ledger:
        store = SessionStore(lambda: ledger)
        for one in [job, *siblings]:
            with store.updating(one["session_id"]) as state:
                state.clear_running(one["kind"], one["id"])
        if record.get("ok"):
            for one in [job, *siblings]:
                if one.get("kind") == "correction":
                    _settle_correction(ledger, one)
        if job.get("kind") == "rules" and not (record.get("ok") and record.get("mode") in ("agent", "waiting", "folded")):
            _unask(cfg, ledger, job)  # no agent read its lines (none, or it failed): the next session shows them


def _unask(cfg, ledger: Ledger, job: dict) -> None:
    project = project_for(job.get("cwd"), home=cfg.env.get("HOME"))
    variables = job.get("variables") or {}
    lines = [*(variables.get("lines") or []), *(variables.get("lessons") or [])]
    if lines:
        guard_files.unmark_asked(ledger, project, lines)


def _settle_correction(ledger: Ledger, job: dict) -> None:
    """What the child saved for a correction settles the message's captures."""
    text = (job.get("variables") or {}).get("correction") or ""
    added = [e for change in history.group_of(ledger, f"job:{job['id']}") for e in change.added()]
    if not text or not added:
        return
    with ledger.write() as conn:
        candidates.settle_saved(conn, session_id=job.get("session_id") or "", text=text, entry=added[0],
                                now=time.time())
