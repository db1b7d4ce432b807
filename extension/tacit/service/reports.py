"""Hooks that only report, acknowledged at once (spooled in ``run/inbox/``) and applied after, in
arrival order, exactly once; a foreground hook waits for its session's earlier ones (``wait_for``).

Design notes: docs/architecture.md ("One service per data folder").
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections import Counter, deque

from tacit.fsutil import unlink_quietly
from tacit.handlers import degraded
from tacit.log import log_exception
from tacit.stores import notices
from tacit.stores.ledger import loads

REPORTING = frozenset({"PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd", "PreCompact",
                       "Notification", "SubagentStop"})
INBOX = "inbox"
WAIT_SECONDS = 2.0  # a foreground hook waits at most this long for its session's reports
RESCAN_SECONDS = 0.5  # an idle applier looks at the inbox this often (files it was not handed)
UNSENT = object()  # ``accept``'s environ when the report did not come from a hook client's header


def session_in(data) -> str:
    """The session id of a decoded payload ("" when there is none)."""
    sid = data.get("session_id") if isinstance(data, dict) else None
    return sid[:200] if isinstance(sid, str) else ""


class Reports:
    """The spool and its applier; ``apply(host, event, payload, event_id)`` runs one hook."""

    def __init__(self, cfg, run_folder: str, apply, ledger, remember=None):
        self.cfg = cfg
        self._remember = remember  # remember(session_id, host, environ): what its children will run with
        self._ledger = ledger  # this thread's Ledger (the engine's)
        self.folder = os.path.join(run_folder, INBOX)
        self._apply = apply
        self._queue: deque = deque()
        self._known: set[str] = set()
        self._pending: Counter = Counter()
        self._cond = threading.Condition()
        self._seq = 0
        self._stopping = False
        self._abandon = False
        self._busy = False
        self._thread: threading.Thread | None = None

    # -- in -----------------------------------------------------------------------------
    def start(self) -> None:
        """Queue what a previous instance left, then start applying."""
        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        self._scan()
        self._thread = threading.Thread(target=self._loop, name="tacit-reports", daemon=True)
        self._thread.start()

    def accept(self, host: str, event: str, event_id: str, payload: bytes, *, later: bool = False,
               environ=UNSENT) -> bool:
        """Spool one report; True when it is safe to acknowledge it now (``later``: an event the
        engine could not apply yet, applied once it can be; ``environ``: its host's environment as its
        hook client sent it (None: it sends none), remembered for the session at once, never spooled)."""
        if (event not in REPORTING and not later or self._thread is None or self._stopping or not event_id
                or " " in event_id or " " in host or " " in event):
            return False
        with self._cond:
            self._seq += 1
            path = os.path.join(self.folder, f"{time.time_ns():020d}-{self._seq:08d}")
            self._known.add(path)  # the applier's scan leaves it to us
        try:
            with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as handle:
                handle.write(f"{host} {event} {event_id}\n".encode() + payload)
        except OSError as exc:  # a full or read-only disk: apply it in the foreground instead
            log_exception(self.cfg, "spooling a report", exc)
            unlink_quietly(path)
            with self._cond:
                self._known.discard(path)
            return False
        self._enqueue(path, host, event, event_id, payload, environ)
        return True

    def _scan(self) -> None:
        """Queue the files nobody queued: a killed instance's, a cold SessionStart the client spooled."""
        for name in sorted(os.listdir(self.folder)):
            path = os.path.join(self.folder, name)
            if path in self._known or name.endswith(".tmp"):
                continue
            try:
                with open(path, "rb") as handle:
                    head, _, payload = handle.read().partition(b"\n")
                host, event, event_id = head.decode("utf-8", "replace").split(" ")
            except (OSError, ValueError):
                unlink_quietly(path)
                continue
            self._enqueue(path, host, event, event_id, payload)

    def _enqueue(self, path, host, event, event_id, payload, environ=UNSENT) -> None:
        sid = session_in(loads(payload.decode("utf-8", "replace")))
        if environ is not UNSENT and self._remember is not None:
            self._remember(sid, host, environ)
        with self._cond:
            self._known.add(path)
            self._queue.append((path, host, event, event_id, payload, sid))
            self._pending[sid] += 1
            self._cond.notify_all()

    # -- out ----------------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            with self._cond:
                if not self._queue and not self._stopping:
                    self._cond.wait(RESCAN_SECONDS)
                if self._abandon or (self._stopping and not self._queue):
                    return
                item = self._queue.popleft() if self._queue else None
                self._busy = item is not None
            if item is None:  # nothing queued: look for files nobody handed us
                with contextlib.suppress(OSError):
                    self._scan()
                continue
            path, host, event, event_id, payload, sid = item
            unapplied = False
            try:
                degraded.take_unapplied()
                out = self._apply(host, event, payload, event_id)
                unapplied = degraded.take_unapplied()  # the ledger was locked: the file stays
                if out and not unapplied:
                    self._keep_notice(out, sid)
            except Exception as exc:  # noqa: BLE001 — one bad report never stops the others
                log_exception(self.cfg, f"applying a reported {event}", exc)
            if not unapplied:
                unlink_quietly(path)
            with self._cond:
                self._known.discard(path)  # (an unapplied one is queued again by the next scan)
                self._busy = False
                self._pending[sid] -= 1
                if self._pending[sid] <= 0:
                    del self._pending[sid]
                self._cond.notify_all()

    def _keep_notice(self, out: str, sid: str) -> None:
        try:
            text = json.loads(out).get("systemMessage")
        except (ValueError, AttributeError):
            return
        if isinstance(text, str) and text:
            with self._ledger().write() as conn:
                notices.add(conn, text, session_id=sid or None)

    def wait_for(self, session_id: str, timeout: float = WAIT_SECONDS) -> bool:
        """Until this session's earlier reports are applied (False: timed out)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending.get(session_id), timeout)

    @property
    def queued(self) -> int:
        with self._cond:
            return len(self._queue) + (1 if self._busy else 0)

    def stop(self, timeout: float = 10.0) -> None:
        """Apply what is queued (up to ``timeout``); the rest stays spooled."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            with self._cond:
                self._abandon = True  # the engine closes next: leave the rest on disk
            self._thread.join(5.0)
