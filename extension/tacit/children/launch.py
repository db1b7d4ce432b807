"""Where a child job runs. The engine calls ``launcher(job) -> pid | None``
after the job row has committed with the event that asked for it.

- ``detached_launcher``: starts ``tacit child run JOB_ID`` in its own session
  (stdin/stdout/stderr on /dev/null) and returns at once. The runner outlives
  whoever launched it — a hook process, ``pi -p``, ``hermes -z``, or the
  service exiting idle — and enforces the job's own timeout.
- ``inline_launcher``: runs it now (``tacit learn --apply``, tests).

``run_job_id`` is the runner's side: it takes the job from the ledger (a
job already taken is not run twice), runs it, records the outcome on the job
row and clears the session's running mark.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time

from tacit.children.env import process_env
from tacit.children.runner import run_job
from tacit.commandline import python_argv
from tacit.stores.ledger import Ledger
from tacit.stores.sessions import SessionStore, load_job


def detached_launcher(cfg):
    def launch(job: dict) -> int:
        proc = subprocess.Popen(python_argv("child", "run", job["id"]), cwd=cfg.home_str if os.path.isdir(
            cfg.home_str) else None, env=process_env(cfg, job.get("host")), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        # a long-lived launcher (the service, Hermes) reaps its runners
        threading.Thread(target=proc.wait, name="tacit-reap", daemon=True).start()
        return proc.pid

    return launch


def inline_launcher(cfg, engine_ref):
    def launch(job: dict) -> None:
        try:
            finish(cfg, job, run_job(cfg, job))
        finally:
            engine = engine_ref()
            if engine is not None:
                engine.reload_stores()
        return None

    return launch


def run_job_id(cfg, job_id: str) -> dict | None:
    """``tacit child run JOB_ID``. None when there is no such queued job."""
    ledger = Ledger(cfg)
    try:
        with ledger.write() as conn:
            job = load_job(conn, job_id)
            if job is None or job["status"] != "queued":
                return None
            conn.execute("UPDATE jobs SET status = 'running', started_at = ?, pid = ? WHERE id = ?",
                         (time.time(), os.getpid(), job_id))
        record = run_job(cfg, job)
        finish(cfg, job, record, ledger=ledger)
        return record
    finally:
        ledger.close()


def finish(cfg, job: dict, record: dict, *, ledger: Ledger | None = None) -> None:
    """Record the outcome; clear the running mark. The job's variables (the
    conversation it carried) are dropped: the record is what is kept."""
    own = ledger is None
    ledger = ledger or Ledger(cfg)
    try:
        with ledger.write() as conn:
            conn.execute("UPDATE jobs SET status = ?, finished_at = ?, record = ?, variables = '{}' "
                         "WHERE id = ?", ("done" if record.get("ok") else "failed", time.time(),
                                          json.dumps(record, ensure_ascii=False, default=str), job["id"]))
        with SessionStore(lambda: ledger).updating(job["session_id"]) as state:
            state.clear_running(job["kind"], job["id"])
    finally:
        if own:
            ledger.close()
