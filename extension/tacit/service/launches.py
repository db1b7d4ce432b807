"""The service's launcher: a child job starts from the environment its session's host was launched
with, which the service keeps in memory only (it may hold API keys). A job whose session's environment
it does not know (it restarted since) is held until that session's next hook brings it back; after
``child_env_wait_seconds`` it runs with the service's own, recorded on the job and told to the user.

Design notes: docs/design/service.md#tacitservicelaunches
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

from tacit.children.env import LAUNCH_FALLBACK as FALLBACK
from tacit.log import log, log_exception
from tacit.stores import jobs as job_rows, notices

WITHOUT_KEPT = 1000  # sessions remembered as sending no environment


class Launches:
    """``launches(job)``: the engine's launcher in the service; ``tick()`` from its housekeeping."""

    def __init__(self, cfg, engine, launcher):
        self.cfg = cfg
        self.engine = engine
        self.launcher = launcher  # the detached launcher: job (with its "launch_env") -> pid
        self.wait = max(0.0, float(cfg.settings.get("child_env_wait_seconds", 600)))
        self._held: dict[str, tuple[dict, float]] = {}  # job id -> (job, held since, monotonic)
        self._without: OrderedDict[str, None] = OrderedDict()  # sessions whose hook client sends no environment
        self._lock = threading.Lock()

    def __call__(self, job: dict):
        environ = job.get("launch_env") or self.engine.launch_env(job.get("session_id") or "")
        if environ is not None:
            with self._lock:
                self._held.pop(job.get("id"), None)
            return self.launcher({**job, "launch_env": environ})
        with self._lock:
            without = job.get("session_id") in self._without  # an older install's client: none will come
            new = not without and job.get("id") not in self._held
            if without:
                self._held.pop(job.get("id"), None)
            else:
                self._held.setdefault(job.get("id"), (job, time.monotonic()))
        if without:
            return self.launcher(job)
        if new:
            log(self.cfg, "info", "children", f"job {job.get('id')} waits for its session's environment "
                                              f"(session {job.get('session_id')}: no hook since this service started)")
        return None

    @property
    def held(self) -> list[str]:
        with self._lock:
            return list(self._held)

    def sends_none(self, session_id: str) -> None:
        """A hook of ``session_id`` came from a client that sends no environment (an older install's):
        its jobs start with the service's own, as that install's service would have started them."""
        with self._lock:
            self._without[session_id] = None
            self._without.move_to_end(session_id)
            while len(self._without) > WITHOUT_KEPT:
                self._without.popitem(last=False)
        self.session_back(session_id)

    def session_back(self, session_id: str) -> None:
        """A hook of ``session_id`` brought its environment: its held jobs start now (on a thread of
        their own: the hook is being answered)."""
        with self._lock:
            if not any(job.get("session_id") == session_id for job, _ in self._held.values()):
                return
        threading.Thread(target=self.tick, name="tacit-held-jobs", daemon=True).start()

    def tick(self, now: float | None = None) -> int:
        """Start the held jobs whose session's environment is known now, and those held longer than the
        wait with the service's own; how many started."""
        now = time.monotonic() if now is None else now
        self._forget_taken()
        with self._lock:
            held = list(self._held.values())
        started = 0
        for job, since in held:
            try:
                if (self.engine.launch_env(job.get("session_id") or "") is not None
                        or job.get("session_id") in self._without):
                    self(job)
                elif now - since >= self.wait:
                    self._fallback(job, now - since)
                else:
                    continue
                started += 1
            except Exception as exc:  # noqa: BLE001 — the next tick tries again
                log_exception(self.cfg, f"starting held job {job.get('id')}", exc)
        return started

    def _forget_taken(self) -> None:
        """Held jobs no longer queued (another process ran or finished them) are not held."""
        ids = self.held
        if not ids:
            return
        try:
            with self.engine.ledger().read() as conn:
                taken = [i for i in ids if (job_rows.load(conn, i) or {}).get("status") != "queued"]
        except Exception as exc:  # noqa: BLE001 — held a tick longer
            log_exception(self.cfg, "reading held jobs", exc)
            return
        with self._lock:
            for job_id in taken:
                self._held.pop(job_id, None)

    def _fallback(self, job: dict, waited: float) -> None:
        host = job.get("host") or "its host"
        why = (f"the tacit service restarted and {host} session {job.get('session_id')} sent no hook in "
               f"{int(waited)} s")
        text = (f"A background {job.get('kind')} for a {host} session ran with the tacit service's environment, "
                f"not the one {host} was launched with ({why}): its PATH and {host}'s home folder were kept, "
                "other variables (API keys) may differ. `tacit cost` lists the run.")
        with self.engine.ledger().write() as conn:
            if not job_rows.note_variables(conn, job["id"], {FALLBACK: why}):
                text = ""  # no longer queued: another launch took it
            elif text:
                notices.add(conn, text)
        with self._lock:
            self._held.pop(job.get("id"), None)
        if text:
            log(self.cfg, "warning", "children", f"job {job.get('id')}: {why}; started with the service's environment")
            self.launcher(job)
