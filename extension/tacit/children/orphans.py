"""No child outlives its runner; no job stays "running" after its runner is gone.

Design notes: docs/design/children.md#tacitchildrenorphans
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import time
from pathlib import Path

from tacit.fsutil import atomic_write_text, read_json_or_none, unlink_quietly
from tacit.paths import run_dir
from tacit.processes import alive, process_started
from tacit.stores import jobs as job_rows

ORPHAN_ERROR = "its runner stopped before the job finished (killed?); the child was stopped"
_PR_SET_PDEATHSIG = 1


def notes_dir(cfg) -> str:
    return os.path.join(run_dir(cfg.state_dir_str), "children")


def die_with_parent() -> None:
    """``preexec_fn`` of a child agent: the kernel SIGKILLs it when its runner dies."""
    with contextlib.suppress(Exception):  # not Linux: the reaper still stops it
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def note(cfg, job_ids: list, pgid: int) -> None:
    """Remember that this runner started child group ``pgid`` for ``job_ids``. Never raises."""
    with contextlib.suppress(Exception):
        data = {"runner": os.getpid(), "runner_started": process_started(os.getpid()), "pgid": pgid,
                "jobs": list(job_ids), "at": time.time()}
        atomic_write_text(Path(notes_dir(cfg), f"{job_ids[0]}.json"), json.dumps(data))


def forget(cfg, job_id: str) -> None:
    unlink_quietly(os.path.join(notes_dir(cfg), f"{job_id}.json"))


def _kill_group(pgid) -> bool:
    if not isinstance(pgid, int) or pgid <= 1:
        return False
    try:
        os.killpg(pgid, signal.SIGKILL)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _from_notes(cfg) -> dict:
    """job id -> its note, for every note whose runner is gone (their child groups killed)."""
    gone: dict = {}
    try:
        names = os.listdir(notes_dir(cfg))
    except OSError:
        return gone
    for name in names:
        path = os.path.join(notes_dir(cfg), name)
        data = read_json_or_none(path)
        if data is None or alive(data.get("runner"), data.get("runner_started")):
            continue
        data["killed"] = _kill_group(data.get("pgid"))
        for job_id in data.get("jobs") or []:
            gone[str(job_id)] = data
        unlink_quietly(path)
    return gone


def reap(cfg, ledger=None, *, quick: bool = False) -> list[dict]:
    """Stop the children of runners that are gone and fail their jobs (``quick``: only the noted
    ones); what was settled. Never raises."""
    settled: list[dict] = []
    try:
        gone = _from_notes(cfg)
        if quick and not gone:
            return settled
        from tacit.stores.ledger import Ledger
        from tacit.stores.sessions import SessionStore

        with (contextlib.nullcontext(ledger) if ledger is not None else Ledger(cfg)) as ledger:
            now = time.time()
            with ledger.write() as conn:
                for job in job_rows.running(conn):
                    if job["id"] not in gone and (quick or alive(job["pid"], job["started_at"])):
                        continue
                    record = {"ok": False, "mode": "agent", "error": ORPHAN_ERROR, "orphaned": True,
                              "child_stopped": bool(gone.get(job["id"], {}).get("killed"))}
                    if job_rows.mark_failed(conn, job["id"], record, now):
                        settled.append({"job_id": job["id"], "kind": job["kind"], "session_id": job["session_id"]})
            store = SessionStore(lambda: ledger)
            for job in settled:
                with store.updating(job["session_id"]) as state:
                    state.clear_running(job["kind"], job["job_id"])
    except Exception as exc:  # noqa: BLE001 — housekeeping never breaks its caller
        from tacit.log import log_exception

        log_exception(cfg, "reaping orphaned children", exc)
    return settled
