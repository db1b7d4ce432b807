"""Where background handlers run, so that learning never delays a turn.

- ``BackgroundWorker``: one daemon thread draining a queue, for in-process
  hosts (Hermes, the pi bridge). Events are handled in order.
- The journal, for hook hosts (one short process per event): the hook appends
  the event as one JSON line to ``<state>/journal.jsonl`` (a single
  ``O_APPEND`` write under a shared ``flock`` — hooks never wait for each
  other, only for the instant a drain renames the file) and, at the end of a turn or session,
  starts a detached ``tacit drain`` that replays the journal through the
  background handlers. Only one drain runs at a time (``flock`` on
  ``journal.lock``); a journal left by a crash is drained next time.

Appending runs in every hook process, so it writes its line with
``tacit.fastjson`` (byte-identical to ``json.dumps``) rather than importing
``json`` (which pulls in ``re`` and ``enum``); ``drain`` — a process of its
own that nobody waits for — imports ``json`` itself.
"""

from __future__ import annotations

import os

KICK_KINDS = ("turn_end", "before_compact", "session_shutdown")


class BackgroundWorker:
    def __init__(self, handle, on_error):
        import queue
        import threading

        self._queue: queue.Queue = queue.Queue()
        self._handle, self._on_error = handle, on_error
        self._thread = threading.Thread(target=self._loop, name="tacit-background", daemon=True)
        self._thread.start()

    def put(self, event) -> None:
        self._queue.put(event)

    def _loop(self) -> None:
        while True:
            event = self._queue.get()
            try:
                self._handle(event)
            except Exception as exc:  # noqa: BLE001
                self._on_error(f"background {getattr(event, 'kind', '?')}", exc)
            finally:
                self._queue.task_done()

    def join(self, timeout: float) -> bool:
        """Wait until the queue is empty (or timeout). True when drained."""
        import time

        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True


def journal_path(cfg) -> str:
    return os.path.join(cfg.state_dir_str, "journal.jsonl")


def append_journal(cfg, event) -> None:
    """Append one event. A shared ``flock`` on the journal itself is held for
    the write, and the inode is checked under it: a drain renames the journal
    only while holding the exclusive lock, so a write can never land in a file
    the drain has already read (it would be lost)."""
    import fcntl

    from tacit.events import event_to_dict
    from tacit.fastjson import DEFAULT_SEPARATORS, dumps

    # backslashreplace: a lone surrogate (broken text from a host) becomes a
    # JSON \udXXX escape inside its string, so the line stays valid JSON and
    # round-trips, instead of failing the write and losing the event
    line = (dumps(event_to_dict(event), separators=DEFAULT_SEPARATORS) + "\n").encode(
        "utf-8", "backslashreplace")
    path = journal_path(cfg)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    for _ in range(100):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            try:
                current = os.stat(path).st_ino
            except FileNotFoundError:
                current = None
            if current != os.fstat(fd).st_ino:
                continue  # a drain took this file away between our open and lock
            os.write(fd, line)
            return
        finally:
            os.close(fd)  # also releases the lock


def journal_pending(cfg) -> bool:
    try:
        return os.path.getsize(journal_path(cfg)) > 0
    except OSError:
        return False


def drain(cfg, engine) -> int:
    """Replay the journal through ``engine``'s background handlers. Returns the
    number of events handled; 0 at once if another drain holds the lock."""
    import fcntl
    import json

    from tacit.events import event_from_dict

    path = journal_path(cfg)
    os.makedirs(os.path.dirname(path), exist_ok=True)  # a fresh data folder has none yet
    lock_fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0
        handled = 0
        while True:
            # Take the journal away atomically; hooks keep appending to a new one.
            work = f"{path}.{os.getpid()}.draining"
            leftovers = sorted(
                os.path.join(os.path.dirname(path), n) for n in os.listdir(os.path.dirname(path))
                if n.startswith("journal.jsonl.") and n.endswith(".draining"))
            if leftovers:
                work = leftovers[0]  # a drain that crashed mid-way
            else:
                try:
                    journal_fd = os.open(path, os.O_RDONLY)
                except FileNotFoundError:
                    break
                try:
                    # wait for appenders mid-write, then take the file away
                    fcntl.flock(journal_fd, fcntl.LOCK_EX)
                    os.replace(path, work)
                finally:
                    os.close(journal_fd)
            with open(work, "rb") as handle:
                lines = handle.read().splitlines()
            for raw in lines:
                try:
                    event = event_from_dict(json.loads(raw))
                except (ValueError, KeyError, TypeError) as exc:
                    engine._log_exception("drain: skipping a malformed journal line", exc)
                    continue
                engine.run_background_now(event)
                handled += 1
            os.unlink(work)
        return handled
    finally:
        os.close(lock_fd)
