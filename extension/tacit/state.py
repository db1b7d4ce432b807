"""SessionState — the small per-session memory of the engine itself.

Design decisions
- **What lives here:** turn counters, this turn's tool calls, review counters,
  the pending correction, rate-limit marks, "skill trigger already fired",
  which child jobs are running, and the last few messages (for child prompts).
  Nothing here is a memory of the user: that is the stores' job.
- **Counted from events, never from history.** ``begin_turn`` opens a turn on
  the user's message; each ``tool_call`` appends to that turn; ``turn_end``
  closes it. Nobody re-scans a transcript to count tool calls, so counters
  cannot re-fire on old calls.
- **Two homes.** In-process hosts (Hermes, the pi bridge) keep states in a
  dict (``MemoryStateStore``). Hook hosts (Claude Code: one process per event)
  keep one JSON file per session under ``<state>/sessions/`` and hold an
  ``flock`` on a sibling lock file for the whole read-modify-write, so two
  hooks of one session (PostToolUse of parallel tools) never lose an update
  (``FileStateStore``). Files untouched for ``session_state_max_age_days``
  are pruned, at most once a day.
- **Cheap.** Imports ``os``, ``fcntl`` and ``time`` only: this runs in every
  hook process. State files go through ``tacit.fastjson`` (json's own C
  scanner and encoder, byte-identical output) because ``import json`` alone
  costs most of a bare interpreter start-up (it pulls in ``re`` and ``enum``).
"""

from __future__ import annotations

import os
import time

from tacit import fastjson

RECENT_MESSAGES = 12  # kept for child prompts ("the recent conversation")
RECENT_CHARS = 4000  # per message


def stale_after(cfg, kind: str) -> float:
    """Seconds after which a child's running mark no longer counts: its own
    timeout (``child_timeout_<kind>``, 0 = ``child_timeout_seconds``) plus
    two minutes of grace for start-up and the kill."""
    return int(cfg.settings.get(f"child_timeout_{kind}") or cfg.child_timeout_seconds) + 120


def _fresh(session_id: str) -> dict:
    now = time.time()
    return {
        "session_id": session_id,
        "created": now,
        "updated": now,
        "user_turns": 0,
        "turn": {"open": False, "user_text": "", "tool_calls": []},
        "turns_since_review": 0,
        "tool_calls_since_review": 0,
        "pending_correction": None,
        "last_correction_save_turn": None,
        "skill_trigger_fired": False,
        "last_assistant_text": "",
        "recent": [],
        "running": {},  # child job kind -> {"pid", "started", "job_id"}
        "marks": {},  # free-form per-handler flags (namespaced "handler.key")
    }


class SessionState:
    """Counters and flags of one session; a thin wrapper over a JSON dict."""

    __slots__ = ("data",)

    def __init__(self, data: dict):
        self.data = data

    @property
    def session_id(self) -> str:
        return self.data["session_id"]

    def __getitem__(self, key):
        return self.data[key]

    def __setitem__(self, key, value):
        self.data[key] = value

    def get(self, key, default=None):
        return self.data.get(key, default)

    # -- turn accounting (called by the engine, not by handlers) -------------
    def begin_turn(self, user_text: str) -> None:
        self.data["user_turns"] += 1
        self.data["turn"] = {"open": True, "user_text": user_text, "tool_calls": []}
        self.remember("user", user_text)

    def add_tool_call(self, name: str, ok: bool) -> None:
        turn = self.data["turn"]
        turn["tool_calls"].append([name, bool(ok)])
        self.data["tool_calls_since_review"] += 1

    def turn_tool_calls(self) -> list:
        return [(name, ok) for name, ok in self.data["turn"]["tool_calls"]]

    def end_turn(self, assistant_text: str) -> None:
        self.data["turns_since_review"] += 1
        if assistant_text:
            self.data["last_assistant_text"] = assistant_text[:RECENT_CHARS]

    def remember(self, role: str, text: str) -> None:
        if not text:
            return
        recent = self.data["recent"]
        if recent and recent[-1]["role"] == role and recent[-1]["text"] == text[:RECENT_CHARS]:
            return  # the same message reported twice (e.g. Stop after message_end)
        recent.append({"role": role, "text": text[:RECENT_CHARS]})
        del recent[:-RECENT_MESSAGES]

    # -- child jobs ------------------------------------------------------------
    def is_running(self, kind: str, stale_after: float) -> bool:
        """True while a child of this kind runs (a crashed runner's mark expires)."""
        job = self.data["running"].get(kind)
        if not job:
            return False
        if time.time() - job.get("started", 0) > stale_after:
            return False
        pid = job.get("pid")
        if pid:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                pass
        return True

    def mark_running(self, kind: str, job_id: str, pid: int | None = None) -> None:
        self.data["running"][kind] = {"pid": pid, "started": time.time(), "job_id": job_id}

    def clear_running(self, kind: str, job_id: str | None = None) -> None:
        job = self.data["running"].get(kind)
        if job and (job_id is None or job.get("job_id") == job_id):
            del self.data["running"][kind]


class MemoryStateStore:
    """States held in memory, for in-process hosts. Thread-safe."""

    def __init__(self):
        import threading

        self._states: dict = {}
        self._lock = threading.RLock()

    def session(self, session_id: str) -> "_MemorySession":
        return _MemorySession(self, session_id)

    def peek(self, session_id: str) -> SessionState:
        with self._lock:
            return SessionState(self._states.setdefault(session_id, _fresh(session_id)))


class _MemorySession:
    def __init__(self, store: MemoryStateStore, session_id: str):
        self.store, self.session_id = store, session_id

    def __enter__(self) -> SessionState:
        self.store._lock.acquire()
        data = self.store._states.setdefault(self.session_id, _fresh(self.session_id))
        return SessionState(data)

    def __exit__(self, *exc) -> None:
        self.store._states[self.session_id]["updated"] = time.time()
        self.store._lock.release()


def _safe_name(session_id: str) -> str:
    """A session id as a file name: keep it readable, never a path."""
    clean = "".join(c if c.isalnum() or c in "-_." else "_" for c in session_id)[:120]
    if clean in ("", ".", "..") or clean != session_id:
        import hashlib

        clean = (clean.strip(".") or "session")[:80] + "-" + hashlib.sha1(
            session_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return clean


class FileStateStore:
    """One JSON file per session under ``folder``, for one-process-per-event hosts."""

    PRUNE_MARK = ".pruned"

    def __init__(self, folder: str, max_age_days: float = 7):
        self.folder = folder
        self.max_age = max_age_days * 86400

    def path_for(self, session_id: str) -> str:
        return os.path.join(self.folder, _safe_name(session_id) + ".json")

    def session(self, session_id: str) -> "_FileSession":
        return _FileSession(self, session_id)

    def peek(self, session_id: str) -> SessionState:
        """Read without locking (a consistent snapshot: writes are atomic)."""
        return SessionState(self._read(session_id))

    def _read(self, session_id: str) -> dict:
        try:
            with open(self.path_for(session_id), "rb") as handle:
                data = fastjson.loads(handle.read())
            if isinstance(data, dict) and data.get("session_id") == session_id:
                base = _fresh(session_id)
                base.update(data)  # tolerate files written by an older version
                return base
        except (FileNotFoundError, ValueError, OSError):
            pass
        # missing or corrupt: start afresh rather than break the host
        return _fresh(session_id)

    def _write(self, data: dict) -> None:
        path = self.path_for(data["session_id"])
        tmp = f"{path}.{os.getpid()}.tmp"
        # json.dumps(data, ensure_ascii=False), byte for byte, through the C
        # encoder (json.dump would stream through the pure-Python one)
        text = fastjson.dumps(data, separators=fastjson.DEFAULT_SEPARATORS)
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
        # no fsync: losing a counter on power loss is harmless, and the hook
        # path must stay fast
        os.replace(tmp, path)

    def prune(self, now: float | None = None) -> int:
        """Delete state files older than max age. Returns how many."""
        now = time.time() if now is None else now
        removed = 0
        try:
            names = os.listdir(self.folder)
        except FileNotFoundError:
            return 0
        # State files first; a lock file only once its state file is gone (a
        # lock's mtime never changes while it is used, so its age says
        # nothing — deleting a live session's lock would let two writers in).
        for name in sorted(names, key=lambda n: not n.endswith(".json")):
            if not (name.endswith(".json") or name.endswith(".lock")):
                continue
            path = os.path.join(self.folder, name)
            try:
                if name.endswith(".lock") and os.path.exists(path[: -len(".lock")] + ".json"):
                    continue
                if now - os.stat(path).st_mtime > self.max_age:
                    os.unlink(path)
                    removed += name.endswith(".json")
            except OSError:
                pass
        return removed

    def maybe_prune(self) -> None:
        mark = os.path.join(self.folder, self.PRUNE_MARK)
        try:
            if time.time() - os.stat(mark).st_mtime < 86400:
                return
        except FileNotFoundError:
            pass
        try:
            with open(mark, "w"):
                pass
        except OSError:
            return
        self.prune()


class _FileSession:
    def __init__(self, store: FileStateStore, session_id: str):
        self.store, self.session_id = store, session_id
        self._fd = None
        self._state: SessionState | None = None

    def __enter__(self) -> SessionState:
        import fcntl

        os.makedirs(self.store.folder, exist_ok=True)
        lock_path = self.store.path_for(self.session_id)[: -len(".json")] + ".lock"
        self._fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        self._state = SessionState(self.store._read(self.session_id))
        return self._state

    def __exit__(self, exc_type, exc, tb) -> None:
        import fcntl

        try:
            if exc_type is None and self._state is not None:
                self._state.data["updated"] = time.time()
                self.store._write(self._state.data)
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
