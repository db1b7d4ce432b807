"""The engine: events in, one typed result per event out.

Design notes: docs/design/core.md#tacitengine
"""

from __future__ import annotations

import itertools
import os
import threading
import time
import uuid
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from functools import partial
from importlib import import_module
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Iterator

from tacit.app import Tacit
from tacit.boundary import admit, clean_event, gate_outgoing, opens_key
from tacit.children.commands import agent_available
from tacit.events import EVENT_KINDS, Event, ToolCallRecord, event_from_dict, event_to_dict
from tacit.failures import record_failure
from tacit.handlers import BUILTIN_PLUGINS, degraded
from tacit.hookspecs import (
    RESULT_TYPES, ChildRequest, ContextResult, Injection, Result, ToolCallResult,
)
from tacit.log import log, log_exception
from tacit.privacy import exclusion
from tacit.projects import Project, project_for
from tacit.session import SessionState, stale_after
from tacit.stores import history
from tacit.stores.ledger import Ledger, LedgerUnavailable
from tacit.stores.memory import MemoryStore
from tacit.stores.sessions import SessionStore, insert_job
from tacit.stores.skill_scopes import ScopedSkills
from tacit.stores.skills import SkillStore
if TYPE_CHECKING:  # the detectors are imported at the first user message
    from tacit.detect.analysis import MessageAnalysis

BACKGROUND_MODES = ("inline", "thread")
STORE_SESSIONS = 256  # per-session frozen snapshots kept by a long-lived engine
STORED_TEXT_CHARS = 20_000  # of a text field, in the event log (= what the analysis reads)
_JOB_SEQ = itertools.count(1)
_HELD = threading.local()  # per thread: background work its events queued starts when ``background_after`` ends


@dataclass(frozen=True, slots=True)
class Registration:
    kind: str
    fn: object
    name: str
    priority: int
    background: bool
    prepare: object = None  # prepare(event, ledger): slow reading done before the event's write


class HandlerContext:
    """What a handler gets besides the event (see ``tacit.hookspecs``)."""

    __slots__ = ("engine", "cfg", "event", "state", "foreground")

    def __init__(self, engine: "Engine", event: Event, state: SessionState, foreground: bool):
        self.engine, self.cfg, self.event = engine, engine.cfg, event
        self.state, self.foreground = state, foreground

    @property
    def host(self) -> str:
        return self.event.host or self.engine.default_host

    @property
    def host_features(self) -> frozenset:
        return self.engine.features_for(self.host)

    @property
    def session_id(self) -> str:
        return self.event.session_id

    @property
    def cwd(self) -> str | None:
        return self.event.cwd or self.state.cwd or None

    @property
    def project(self) -> Project | None:
        """The project of the event's working folder (``tacit.projects``)."""
        return project_for(self.cwd, home=self.cfg.env.get("HOME"))

    @property
    def memory(self) -> MemoryStore:
        """The session's memory: the user, global and this project's scopes."""
        return self.engine.memory_store(self.session_id, self.project)

    @property
    def skills(self) -> ScopedSkills:
        """The session's skills: global, this project's and the team's."""
        return self.engine.skill_store(self.session_id, self.project)

    @property
    def ledger(self) -> Ledger:
        return self.engine.ledger()

    @property
    def analysis(self) -> MessageAnalysis | None:
        """The detectors' verdict on this user message (None for other events)."""
        return self.engine.analysis_for(self.event, self.state)


class Engine:
    """Dispatches events to registered handlers and merges their results."""

    def __init__(self, cfg, *, background: str = "inline", launcher=None, host: str = "",
                 host_features: dict | None = None):
        if background not in BACKGROUND_MODES:
            raise ValueError(f"background must be one of {BACKGROUND_MODES}")
        self.cfg = cfg
        self.default_host = host or cfg.host or ""
        self.background = background
        self.launcher = launcher  # callable(job: dict) -> pid | None; None = no children
        # per host, what it already does itself so handlers don't do it twice:
        # "memory_snapshot", "skill_index", "memory_tool", "tacit_tools"
        self.host_features = dict(host_features or {})
        self._handlers: dict[str, list[Registration]] = {}
        self._plugins: list[str] = []
        self._front = Tacit(cfg)  # its ledger connections, one per thread
        self.sessions = SessionStore(self.ledger, max_age_days=cfg.session_state_max_age_days)
        self._memory: OrderedDict[str, MemoryStore] = OrderedDict()
        self._live_skills = SkillStore(cfg)
        self._skills: OrderedDict[str, ScopedSkills] = OrderedDict()
        self._analyses: OrderedDict[tuple, MessageAnalysis] = OrderedDict()
        self._agent_available: dict[str, bool] = {}
        self._job_defaults: OrderedDict[str, dict] = OrderedDict()
        self._launch_envs: OrderedDict[str, dict] = OrderedDict()  # never stored: it may hold credentials
        self.on_launch_env = None  # callable(session_id): a session's environment came (the service's held jobs)
        self._patterns = None
        self._lock = threading.RLock()  # one foreground dispatch at a time
        # the caches below have their own lock, never held around a ledger write: a background
        # handler inside its transaction asking for ctx.analysis took self._lock while a
        # dispatch holding self._lock waited for the ledger (both timed out, the event was lost)
        self._caches = threading.RLock()
        self._worker: BackgroundWorker | None = None

    def on(self, kind: str, fn, *, name: str | None = None, priority: int = 100,
           background: bool = False, prepare=None) -> None:
        """Subscribe ``fn(event, ctx)`` to ``kind``, lower priority first; ``prepare(event, ledger)``
        runs first, outside the event's write transaction (a walk, a file read: the writer waits for none)."""
        if kind not in EVENT_KINDS:
            raise ValueError(f"unknown event kind {kind!r}; expected one of {EVENT_KINDS}")
        reg = Registration(kind, fn, name or getattr(fn, "__qualname__", repr(fn)), priority, background, prepare)
        handlers = self._handlers.setdefault(kind, [])
        handlers.append(reg)
        handlers.sort(key=lambda r: r.priority)  # stable: keeps registration order

    def load_plugin(self, plugin) -> None:
        """Register a plugin: a module/object with ``register(engine)``, or its dotted module name."""
        if isinstance(plugin, str):
            plugin = import_module(plugin)
        plugin.register(self)
        self._plugins.append(getattr(plugin, "__name__", repr(plugin)))

    def load_builtins(self) -> "Engine":
        for name in BUILTIN_PLUGINS:
            self.load_plugin(name)
        return self

    def load_configured_plugins(self, *, discover: bool = True) -> None:
        """``plugins`` in config.toml and the ``tacit.plugins`` entry points (broken: logged, skipped)."""
        names = list(self.cfg.plugins)
        if discover:
            names += [ep.value for ep in entry_points(group="tacit.plugins")]
        for name in names:
            if name in self._plugins:
                continue
            try:
                self.load_plugin(name)
            except Exception as exc:  # noqa: BLE001 — a broken plugin never breaks tacit
                log_exception(self.cfg, f"loading plugin {name}", exc)

    @property
    def plugins(self) -> list[str]:
        return list(self._plugins)

    def handlers_for(self, kind: str) -> list[str]:
        return [r.name for r in self._handlers.get(kind, ())]

    def set_job_defaults(self, session_id: str, values: dict) -> None:
        """Variables every child job of this session gets."""
        with self._caches:
            _bounded_get(self._job_defaults, session_id, dict).update(values)

    def set_launch_env(self, session_id: str, environ: dict) -> None:
        """The environment this session's host was launched with (a service serves every host): its
        children start from it, as if that host had started them. Kept in memory only."""
        with self._caches:
            _bounded_get(self._launch_envs, session_id, dict)
            self._launch_envs[session_id] = dict(environ)
        if self.on_launch_env is not None:
            self.on_launch_env(session_id)

    def launch_env(self, session_id: str) -> dict | None:
        """What ``set_launch_env`` gave this session (None: not known, this process's)."""
        with self._caches:
            return self._launch_envs.get(session_id)

    def job_defaults(self, session_id: str) -> dict:
        """What ``set_job_defaults`` gave this session (a copy)."""
        with self._caches:
            return dict(self._job_defaults.get(session_id, {}))

    def features_for(self, host: str) -> frozenset:
        return frozenset(self.host_features.get(host, ()))

    def ledger(self) -> Ledger:
        """This thread's ledger connection."""
        return self._front.ledger

    def memory_store(self, session_id: str, project: Project | None = None) -> MemoryStore:
        """The session's store: its snapshot is frozen at the first ask."""
        with self._caches:
            return _bounded_get(self._memory, session_id, lambda: MemoryStore(self.cfg, project))

    def skill_store(self, session_id: str, project: Project | None = None) -> ScopedSkills:
        """The session's skills: the live global catalog plus its project's (snapshot frozen)."""
        with self._caches:
            return _bounded_get(self._skills, session_id, lambda: ScopedSkills(
                self.cfg, project, global_store=self._live_skills.session()))

    def reload_stores(self) -> None:
        """A file changed on disk: the catalogs re-read it. Snapshots already handed to a session stay frozen."""
        self._live_skills.refresh()
        with self._caches:
            for skills in self._skills.values():
                skills.refresh()

    def child_available(self, host: str = "") -> bool:
        """Can a child agent run for this host? (a launcher, children on, and an agent command that resolves)."""
        if self.launcher is None or not self.cfg.child_enabled:
            return False
        host = host or self.default_host
        if host not in self._agent_available:
            self._agent_available[host] = agent_available(self.cfg, host)
        return self._agent_available[host]

    def correction_patterns(self):
        """The correction detector's pattern lists from config (a bad regex: logged, left out)."""
        if self._patterns is None:
            from tacit.detect.patterns import patterns_from_config
            self._patterns = patterns_from_config(self.cfg)
            for problem in self._patterns.problems:
                log(self.cfg, "warning", "corrections", problem)
        return self._patterns

    def analysis_for(self, event: Event, state: SessionState) -> MessageAnalysis | None:
        if event.kind != "message_end" or event.role != "user":
            return None
        prev = state.previous_assistant() or None

        def analysed() -> MessageAnalysis:
            from tacit.detect.analysis import analyse
            return analyse(event.text, prev_assistant=prev, patterns=self.correction_patterns())

        with self._caches:  # a pure function of these (and the engine's patterns): a repeat is free
            return _bounded_get(self._analyses, (event.text, prev), analysed, limit=64)

    def dispatch(self, event: Event) -> Result:
        """Apply ``event``; return its typed result for the host. Never raises."""
        result_type = RESULT_TYPES.get(event.kind, Result)
        if self.cfg.is_child:
            return result_type()
        try:
            return self._dispatch(event, result_type)
        except Exception as exc:  # noqa: BLE001 — never break the host
            log_exception(self.cfg, f"dispatch {event.kind}", exc)
            record_failure(self.cfg, where=f"dispatch {event.kind}", exc=exc, session_id=event.session_id,
                           host=event.host, event_kind=event.kind)
            return degraded.answer(self, event, result_type, exc)  # the readable memory, and what is wrong

    def _dispatch(self, event: Event, result_type: type[Result]) -> Result:
        opened_key = opens_key(event)  # before cleaning: the message ends inside a private key
        event = clean_event(event)
        # -- privacy (issue 14): tacit is off for this project: answer, keep nothing
        if exclusion.excluded(self.cfg, event.cwd, event.session_id):
            return degraded.excluded(self, event, result_type)
        regs = self._handlers.get(event.kind, ())
        background = any(r.background for r in regs)
        if background and not event.id:
            event = replace(event, id=f"local-{uuid.uuid4().hex}")
        if not event.host and self.default_host:
            event = replace(event, host=self.default_host)
        for reg in regs:
            if reg.prepare is not None and not reg.background:
                self._call(reg, event, self.ledger(), fn=reg.prepare)
        with self._lock, self.sessions.applying(event) as app:
            if app.seen is not None:
                return result_from_dict(result_type, app.seen)  # applied before: same answer
            state = app.state
            event = admit(event, state, opened_key)  # privacy (issue 14): a turn the user asked not to keep
            event = self._account(event, state)
            ctx = HandlerContext(self, event, state, foreground=True)
            result = result_type()
            for reg in regs:
                if not reg.background:
                    self._merge(result, self._call(reg, event, ctx), reg)
            result = gate_outgoing(result)  # privacy (issue 14): one gate for everything injected
            app.jobs = [job for req in result.children if (job := self._claim(req, event, state))]
            result.children = []
            app.result = result_to_dict(result)
            if background:
                app.background = storable(event)
        for job in app.jobs:
            self._launch(job)
        if background:
            self._schedule_background()
        return result

    def _account(self, event: Event, state: SessionState) -> Event:
        """Engine-owned turn bookkeeping; may complete the event from state."""
        kind = event.kind
        if kind == "message_end":
            if event.role == "user":
                state.begin_turn(event.text)
            else:
                state.remember("assistant", event.text)
                state.last_assistant_text = event.text[-1000:]
        elif kind == "tool_result":
            state.add_tool_call(event.name, event.ok)
        elif kind == "turn_end":
            changes = {}
            if event.tool_calls is None:
                changes["tool_calls"] = tuple(ToolCallRecord(n, ok) for n, ok in state.turn.tool_calls)
            if not event.user_text:
                changes["user_text"] = state.turn.user_text
            if not event.assistant_text:
                changes["assistant_text"] = state.last_assistant_text
            else:
                state.remember("assistant", event.assistant_text)
            if changes:
                event = replace(event, **changes)
            state.end_turn(event.assistant_text)  # counted before handlers run
        return event

    def _call(self, reg: Registration, event: Event, ctx, fn=None) -> Result | None:
        # what a handler writes is its doing, for this event, on this thread's ledger (its transaction)
        actor = history.Actor(kind="learner", name=reg.name, session_id=event.session_id, host=event.host,
                              cause=getattr(event, "text", "") or getattr(event, "user_text", "") or "",
                              cause_event=event.id)
        try:
            with history.using(self.ledger()), history.acting(actor):
                return (fn or reg.fn)(event, ctx)
        except Exception as exc:  # noqa: BLE001
            log_exception(self.cfg, f"handler {reg.name} on {event.kind}", exc)
            record_failure(self.cfg, where=reg.name, exc=exc, session_id=event.session_id, host=event.host,
                           event_kind=event.kind, level="handler")
            return None

    def _merge(self, into: Result, got, reg: Registration) -> None:
        if got is None:
            return
        if not isinstance(got, Result):
            log_exception(self.cfg, f"handler {reg.name}",
                                TypeError(f"returned {type(got).__name__}, not a Result"))
            return
        if type(got) is not Result and not isinstance(into, type(got)):
            log_exception(self.cfg, f"handler {reg.name}", TypeError(
                f"{type(got).__name__} is not what {reg.kind} accepts ({type(into).__name__})"))
        if isinstance(got, ContextResult):
            got.context[:] = [i if i.source else replace(i, source=reg.name) for i in got.context]
        got.children[:] = [c if c.source else replace(c, source=reg.name) for c in got.children]
        into.merge(got)

    def _claim(self, request: ChildRequest, event: Event, state: SessionState) -> dict | None:
        """Mark a child job running in the session (never doubled); the job, committed with the event."""
        if self.launcher is None or state.is_running(request.kind, stale_after(self.cfg, request.kind)):
            return None
        job_id = f"{int(time.time() * 1000):x}-{os.getpid():x}-{next(_JOB_SEQ)}-{request.kind}"
        state.mark_running(request.kind, job_id)
        variables = {**self.job_defaults(event.session_id), **request.variables}
        variables.setdefault("recent", list(state.recent))
        return {"id": job_id, "kind": request.kind, "session_id": event.session_id,
                "host": event.host or self.default_host, "cwd": event.cwd, "source": request.source,
                "variables": variables, "created": time.time()}

    def _launch(self, job: dict) -> None:
        try:
            launched = self.launch_env(job["session_id"])
            pid = self.launcher({**job, "launch_env": launched} if launched else job)
        except Exception as exc:  # noqa: BLE001
            log_exception(self.cfg, f"launching child {job['kind']}", exc)
            self.child_finished(job)
            # the handler consumed what the job carries: run the deterministic fallback, lose nothing
            try:
                from tacit.children.fallbacks import run_fallback
                run_fallback(self.cfg, job)
            except Exception as fallback_exc:  # noqa: BLE001
                log_exception(self.cfg, f"fallback for {job['kind']}", fallback_exc)
            return
        if pid:
            with self.sessions.updating(job["session_id"]) as state:
                running = state.running.get(job["kind"])
                if running and running.get("job_id") == job["id"]:
                    running["pid"] = pid

    def child_finished(self, job: dict) -> None:
        """A child ended: clear its running mark; stores re-read from disk."""
        with self.sessions.updating(job["session_id"]) as state:
            state.clear_running(job["kind"], job["id"])
        self.reload_stores()

    @contextmanager
    def background_after(self) -> Iterator[None]:
        """Background work the events of this block queue starts when it ends: the service sends a
        hook's answer first (woken before, the worker took the interpreter lock from the answer)."""
        _HELD.depth = getattr(_HELD, "depth", 0) + 1
        try:
            yield
        finally:
            _HELD.depth -= 1
            if not _HELD.depth and getattr(_HELD, "pending", False):
                _HELD.pending = False
                self._schedule_background()

    def _schedule_background(self) -> None:
        if getattr(_HELD, "depth", 0):
            _HELD.pending = True
            return
        if self.background == "inline":
            self.run_pending_background()
            return
        with self._lock:
            if self._worker is None:
                self._worker = BackgroundWorker(self.run_pending_background,
                                                partial(log_exception, self.cfg))
        self._worker.wake()

    def run_pending_background(self) -> int:
        """Run every event whose background handlers are pending; how many were finished."""
        done = 0
        while True:
            try:
                pending = self.sessions.pending_background()
            except LedgerUnavailable as exc:
                log_exception(self.cfg, "background: reading pending events", exc)
                return done
            if not pending:
                return done
            for seq, data in pending:
                try:
                    event = event_from_dict(data)
                except (KeyError, TypeError, ValueError) as exc:
                    log_exception(self.cfg, "background: dropping a malformed event", exc)
                    self._finish(seq)
                    continue
                if not self._run_background(event):
                    return done  # the ledger is busy: try again at the next wake
                self._finish(seq)
                done += 1

    def _finish(self, seq: int) -> None:
        with self.ledger().write() as conn:
            SessionStore.finish_background(conn, seq)

    def _run_background(self, event: Event) -> bool:
        regs = [r for r in self._handlers.get(event.kind, ()) if r.background]
        state = self.sessions.peek(event.session_id)
        ctx = HandlerContext(self, event, state, foreground=False)
        children: list[ChildRequest] = []
        for reg in regs:
            try:
                with self.ledger().write() as conn:
                    if not SessionStore.once(conn, f"{reg.name}:{event.id}"):
                        continue
                    got = self._call(reg, event, ctx)
            except LedgerUnavailable as exc:
                log_exception(self.cfg, f"background {reg.name}", exc)
                return False
            if isinstance(got, Result):
                children.extend(got.children)
        if children:
            self.start_jobs(event, lambda state: children)
        return True

    def start_jobs(self, event: Event, decide) -> list[dict]:
        """Claim the children ``decide(state)`` asks for in the session, then launch them."""
        with self._lock, self.sessions.updating(event.session_id) as state:
            jobs = [job for req in decide(state) if (job := self._claim(req, event, state))]
            if jobs:
                with self.ledger().write() as conn:
                    for job in jobs:
                        insert_job(conn, job)
        for job in jobs:
            self._launch(job)
        return jobs

    def drain(self, timeout: float = 10.0) -> bool:
        """Wait for queued background work (thread mode); at shutdown and in tests."""
        return self._worker is None or self._worker.join(timeout)

    def close(self) -> None:
        self.drain()
        with self._lock, self._caches:
            self._front.close()


class BackgroundWorker:
    """One daemon thread that runs pending background work once events have been quiet for
    ``SETTLE`` seconds (at most ``MAX_DELAY`` after the first wake)."""

    SETTLE = 0.05
    MAX_DELAY = 1.0

    def __init__(self, run, on_error):
        self._run, self._on_error = run, on_error
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._thread = threading.Thread(target=self._loop, name="tacit-background", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._idle.clear()
        self._wake.set()

    def _loop(self) -> None:
        while True:
            self._wake.wait(timeout=30)  # also retries work a busy ledger deferred
            first = time.monotonic()
            self._wake.clear()
            while self._wake.wait(self.SETTLE) and time.monotonic() - first < self.MAX_DELAY:
                self._wake.clear()  # more events arrived: wait for the burst to end
            self._wake.clear()
            try:
                self._run()
            except Exception as exc:  # noqa: BLE001
                self._on_error("background worker", exc)
            if not self._wake.is_set():
                self._idle.set()

    def join(self, timeout: float) -> bool:
        return self._idle.wait(timeout)


def storable(event: Event) -> dict:
    """The event as it waits in the event log: texts cut to ``STORED_TEXT_CHARS`` (read no further)."""
    return {key: value[:STORED_TEXT_CHARS] if isinstance(value, str) else value
            for key, value in event_to_dict(event).items()}


def result_to_dict(result: Result) -> dict:
    data = {"type": type(result).__name__, **asdict(result)}
    del data["children"]  # claimed as jobs by then, not part of the answer
    return data


def result_from_dict(result_type: type[Result], data: dict | None) -> Result:
    result = result_type()
    if not isinstance(data, dict):
        return result
    result.notices = [n for n in data.get("notices") or () if isinstance(n, str)]
    if isinstance(result, ContextResult):
        result.context = [Injection(c["text"], int(c.get("priority", 50)), c.get("source", ""))
                          for c in data.get("context") or () if isinstance(c, dict) and "text" in c]
    if isinstance(result, ToolCallResult):
        result.block, result.ask = bool(data.get("block")), bool(data.get("ask"))
        result.reason = str(data.get("reason") or "")
    return result


def _bounded_get(cache: OrderedDict, key, make, limit: int = STORE_SESSIONS):
    found = cache.get(key)
    if found is None:
        found = cache[key] = make()
        while len(cache) > limit:
            cache.popitem(last=False)
    else:
        cache.move_to_end(key)
    return found
