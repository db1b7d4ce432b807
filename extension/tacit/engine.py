"""The engine: one event bus, plain events in, effects out.

Design decisions
- **Handlers return effects; the engine and the host realise them.** A
  handler never prints, never spawns, never talks to a host. That keeps every
  handler testable with a plain event and a temp data folder, and lets each
  host adapter be a thin translation (see ``tacit.hookspecs``).
- **Built-ins are plugins.** ``Engine.load_builtins`` registers tacit's own
  behaviours through the same ``register(engine)`` call a third party uses.
- **Turn accounting lives here, not in handlers.** The engine opens a turn on
  the user's message, appends each tool call to it, and hands ``turn_end``
  handlers that turn's calls — counted from that turn's events, never by
  re-scanning history (the original design re-counted the whole session at
  every turn end, so reviews re-fired immediately).
- **Foreground vs background.** Foreground handlers run inside ``dispatch``
  while the session state is locked (they may read and update it) and must be
  cheap. Background handlers (learners, SQLite) never delay the turn: in
  ``"thread"`` mode a worker thread runs them; in ``"journal"`` mode (hook
  hosts, one process per event) the event is appended to a journal that a
  detached ``tacit drain`` process replays; ``"inline"`` runs them at once
  (``tacit learn``, tests).
- **Inert in a child.** With ``TACIT_CHILD=1`` dispatch returns nothing: a
  child agent must never detect, nudge or start children of its own.
- **Never raise.** Every handler call is wrapped; a failure is logged to the
  data folder's log and the other handlers still run.
"""

from __future__ import annotations

import itertools
import os
import time

from tacit.events import Effect, Event, RunChild, ToolCallRecord

BACKGROUND_MODES = ("inline", "thread", "journal")
_JOB_SEQ = itertools.count(1)


class _Registration:
    __slots__ = ("kind", "fn", "name", "priority", "background")

    def __init__(self, kind, fn, name, priority, background):
        self.kind, self.fn, self.name = kind, fn, name
        self.priority, self.background = priority, background


class HandlerContext:
    """What a handler gets besides the event (see ``tacit.hookspecs``)."""

    __slots__ = ("engine", "cfg", "state", "session_id", "foreground")

    def __init__(self, engine: "Engine", state, session_id: str, foreground: bool):
        self.engine, self.cfg, self.state = engine, engine.cfg, state
        self.session_id, self.foreground = session_id, foreground

    @property
    def host(self) -> str | None:
        return self.engine.host

    @property
    def memory(self):
        return self.engine.memory_store(self.session_id)

    @property
    def skills(self):
        return self.engine.skill_store(self.session_id)

    @property
    def ledger(self):
        return self.engine.ledger()

    def child_available(self, kind: str = "") -> bool:
        return self.engine.child_available(kind)

    @staticmethod
    def now() -> float:
        return time.time()


class Engine:
    """Dispatches events to registered handlers and collects their effects."""

    def __init__(self, cfg, *, state_store=None, background: str = "inline",
                 launcher=None, host: str | None = None, host_features=()):
        if background not in BACKGROUND_MODES:
            raise ValueError(f"background must be one of {BACKGROUND_MODES}")
        self.cfg = cfg
        self.host = host if host is not None else cfg.host
        if state_store is None:
            from tacit.state import MemoryStateStore

            state_store = MemoryStateStore()
        self.state_store = state_store
        self.background = background
        self.launcher = launcher  # callable(job: dict) -> pid | None; None = no children
        # what the host already does itself, so handlers don't do it twice:
        # "memory_snapshot", "skill_index", "memory_tool", "skill_tool"
        self.host_features = frozenset(host_features)
        self._handlers: dict[str, list[_Registration]] = {}
        self._plugins: list[str] = []
        self._memory: dict[str, object] = {}
        self._skills: dict[str, object] = {}
        self._ledger = None
        self._worker = None
        self._agent_available: bool | None = None

    # -- registration -----------------------------------------------------------
    def on(self, kind: str, fn, *, name: str | None = None, priority: int = 100,
           background: bool = False) -> None:
        """Subscribe ``fn(event, ctx)`` to events of ``kind``. Lower priority
        runs first; ties keep registration order."""
        from tacit.events import EVENT_KINDS

        if kind not in EVENT_KINDS:
            raise ValueError(f"unknown event kind {kind!r}; expected one of {EVENT_KINDS}")
        reg = _Registration(kind, fn, name or getattr(fn, "__qualname__", repr(fn)), priority, background)
        handlers = self._handlers.setdefault(kind, [])
        handlers.append(reg)
        handlers.sort(key=lambda r: r.priority)  # stable: keeps registration order

    def load_plugin(self, plugin) -> None:
        """Register a plugin: a module/object with ``register(engine)``, or its
        dotted module name."""
        if isinstance(plugin, str):
            # __import__ + sys.modules is importlib.import_module for an
            # absolute name, without importing importlib (and warnings) in
            # every hook process
            import sys

            __import__(plugin)
            plugin = sys.modules[plugin]
        plugin.register(self)
        self._plugins.append(getattr(plugin, "__name__", repr(plugin)))

    def load_builtins(self) -> "Engine":
        from tacit.handlers import BUILTIN_PLUGINS

        for name in BUILTIN_PLUGINS:
            self.load_plugin(name)
        return self

    def load_configured_plugins(self, *, entry_points: bool = False) -> None:
        """Third-party plugins: ``plugins`` in config.toml, and (long-lived
        processes only — the scan costs tens of milliseconds) the
        ``tacit.plugins`` entry-point group."""
        names = list(self.cfg.plugins)
        if entry_points:
            from importlib.metadata import entry_points as eps

            names += [ep.value for ep in eps(group="tacit.plugins")]
        for name in names:
            if name in self._plugins:
                continue
            try:
                self.load_plugin(name)
            except Exception as exc:  # noqa: BLE001 — a broken plugin never breaks tacit
                self._log_exception(f"loading plugin {name}", exc)

    @property
    def plugins(self) -> list[str]:
        return list(self._plugins)

    def handlers_for(self, kind: str) -> list[str]:
        return [r.name for r in self._handlers.get(kind, ())]

    # -- stores, opened lazily and kept for the engine's life --------------------
    def memory_store(self, session_id: str):
        store = self._memory.get(session_id)
        if store is None:
            from tacit.stores.memory import MemoryStore

            store = self._memory[session_id] = MemoryStore(self.cfg)
        return store

    def skill_store(self, session_id: str):
        store = self._skills.get(session_id)
        if store is None:
            from tacit.stores.skills import SkillStore

            store = self._skills[session_id] = SkillStore(self.cfg)
        return store

    def ledger(self):
        if self._ledger is None:
            from tacit.stores.ledger import Ledger

            self._ledger = Ledger(self.cfg)
        return self._ledger

    def child_available(self, kind: str = "") -> bool:
        """Can a child agent run here? (launcher set, children enabled, and an
        agent command resolvable for this host)."""
        if self.launcher is None or not self.cfg.child_enabled:
            return False
        if self._agent_available is None:
            from tacit.child import agent_available

            self._agent_available = agent_available(self.cfg, self.host)
        return self._agent_available

    # -- dispatch -----------------------------------------------------------------
    def dispatch(self, event: Event) -> list[Effect]:
        """Run the handlers for ``event``; return the effects for the host.
        Never raises."""
        if self.cfg.is_child:
            return []
        try:
            return self._dispatch(event)
        except Exception as exc:  # noqa: BLE001 — never break the host
            self._log_exception(f"dispatch {event.kind}", exc)
            return []

    def _dispatch(self, event: Event) -> list[Effect]:
        regs = self._handlers.get(event.kind, ())
        effects: list[Effect] = []
        jobs: list[dict] = []
        with self.state_store.session(event.session_id) as state:
            event = self._account(event, state)
            ctx = HandlerContext(self, state, event.session_id, foreground=True)
            for reg in regs:
                if reg.background:
                    continue
                effects.extend(self._call(reg, event, ctx))
            for effect in effects:
                if isinstance(effect, RunChild):
                    job = self._claim_child(effect, event, state)
                    if job:
                        jobs.append(job)
            if event.kind == "turn_end":
                state["turn"]["open"] = False
        if any(r.background for r in regs):
            self._run_background(event)
        if self.background == "journal":
            self._maybe_kick_drain(event)
        for job in jobs:
            self._launch(job)
        return [e for e in effects if not isinstance(e, RunChild)] + [
            e for e in effects if isinstance(e, RunChild)]

    def _account(self, event: Event, state) -> Event:
        """Engine-owned turn bookkeeping; may complete the event from state."""
        kind = event.kind
        if kind == "message_end":
            if event.role == "user":
                state.begin_turn(event.text)
            else:
                state.remember("assistant", event.text)
                state["last_assistant_text"] = event.text[:4000]
        elif kind == "tool_call":
            state.add_tool_call(event.name, event.ok)
        elif kind == "turn_end":
            changes = {}
            if event.tool_calls is None:
                changes["tool_calls"] = tuple(
                    ToolCallRecord(name=n, ok=ok) for n, ok in state.turn_tool_calls())
            if not event.user_text:
                changes["user_text"] = state["turn"]["user_text"]
            if not event.assistant_text:
                changes["assistant_text"] = state["last_assistant_text"]
            elif state["recent"][-1:] != [{"role": "assistant", "text": event.assistant_text[:4000]}]:
                state.remember("assistant", event.assistant_text)
            if changes:
                event = event.replace(**changes)
            # counted before handlers run, so they see this turn included
            state.end_turn(event.assistant_text)
        return event

    def _call(self, reg: _Registration, event: Event, ctx: HandlerContext) -> list[Effect]:
        try:
            result = reg.fn(event, ctx)
        except Exception as exc:  # noqa: BLE001
            self._log_exception(f"handler {reg.name} on {event.kind}", exc)
            return []
        if result is None:
            return []
        items = result if isinstance(result, (list, tuple)) else [result]
        out = []
        for item in items:
            if isinstance(item, Effect):
                if not item.source:
                    item = item.replace(source=reg.name)
                out.append(item)
        return out

    # -- children -------------------------------------------------------------------
    def _claim_child(self, effect: RunChild, event: Event, state) -> dict | None:
        """Mark a child job running in the session state (so it is never
        doubled) and build the job description the launcher gets."""
        if self.launcher is None:
            return None
        from tacit.state import stale_after

        if state.is_running(effect.kind, stale_after(self.cfg, effect.kind)):
            return None
        # unique within the process too: two sessions may start the same kind
        # in one millisecond (in-process hosts, tacit learn)
        job_id = f"{int(time.time() * 1000):x}-{os.getpid():x}-{next(_JOB_SEQ)}-{effect.kind}"
        state.mark_running(effect.kind, job_id)
        variables = dict(effect.variables)
        variables.setdefault("recent", list(state["recent"]))
        return {
            "id": job_id,
            "kind": effect.kind,
            "session_id": event.session_id,
            "host": self.host,
            "cwd": event.cwd,
            "source": effect.source,
            "variables": variables,
            "created": time.time(),
        }

    def _launch(self, job: dict) -> None:
        try:
            pid = self.launcher(job)
        except Exception as exc:  # noqa: BLE001
            self._log_exception(f"launching child {job['kind']}", exc)
            with self.state_store.session(job["session_id"]) as state:
                state.clear_running(job["kind"], job["id"])
            # The handler already consumed what the job carries (e.g. the
            # pending correction): run the deterministic fallback rather than
            # lose it.
            try:
                from tacit.fallbacks import run_fallback

                run_fallback(self.cfg, job)
            except Exception as fallback_exc:  # noqa: BLE001
                self._log_exception(f"fallback for {job['kind']}", fallback_exc)
            return
        if pid:
            with self.state_store.session(job["session_id"]) as state:
                running = state["running"].get(job["kind"])
                if running and running.get("job_id") == job["id"]:
                    running["pid"] = pid

    def child_finished(self, job: dict) -> None:
        """Called by launchers when a child ends: clear its running mark and
        drop cached stores so the next read comes from disk."""
        with self.state_store.session(job["session_id"]) as state:
            state.clear_running(job["kind"], job["id"])
        self.reload_stores()

    def reload_stores(self) -> None:
        """Forget cached live views so they re-read from disk. Frozen
        snapshots already handed to the host are unaffected (they were
        rendered from the instance that is kept for this purpose)."""
        for store in list(self._skills.values()):
            refresh = getattr(store, "refresh", None)
            if refresh:
                refresh()

    # -- background handlers ----------------------------------------------------------
    def _run_background(self, event: Event) -> None:
        if self.background == "inline":
            self.run_background_now(event)
        elif self.background == "thread":
            self._thread_worker().put(event)
        else:
            self._journal(event)

    def run_background_now(self, event: Event) -> list[Effect]:
        regs = [r for r in self._handlers.get(event.kind, ()) if r.background]
        if not regs:
            return []
        state = self.state_store.peek(event.session_id)
        ctx = HandlerContext(self, state, event.session_id, foreground=False)
        effects = []
        for reg in regs:
            effects.extend(self._call(reg, event, ctx))
        jobs = []
        if any(isinstance(e, RunChild) for e in effects):
            with self.state_store.session(event.session_id) as locked:
                for effect in effects:
                    if isinstance(effect, RunChild):
                        job = self._claim_child(effect, event, locked)
                        if job:
                            jobs.append(job)
        for job in jobs:
            self._launch(job)
        return effects

    def _thread_worker(self):
        if self._worker is None:
            from tacit.background import BackgroundWorker

            self._worker = BackgroundWorker(self.run_background_now, self._log_exception)
        return self._worker

    def _journal(self, event: Event) -> None:
        from tacit.background import append_journal

        append_journal(self.cfg, event)

    def _maybe_kick_drain(self, event: Event) -> None:
        from tacit.background import KICK_KINDS, journal_pending

        if event.kind in KICK_KINDS and journal_pending(self.cfg):
            from tacit.spawn import spawn_detached, tacit_argv

            try:
                spawn_detached(tacit_argv("drain"), env=self._child_env())
            except OSError as exc:
                self._log_exception("starting tacit drain", exc)

    def _child_env(self) -> dict:
        from tacit.spawn import tacit_process_env

        return tacit_process_env(self.cfg, self.host)

    def flush_background(self, timeout: float = 10.0) -> None:
        """Wait for queued background work (thread mode); used at shutdown and
        by tests."""
        if self._worker is not None:
            self._worker.join(timeout)

    # -- logging ----------------------------------------------------------------------
    def _log_exception(self, where: str, exc: BaseException) -> None:
        from tacit.log import log_exception

        log_exception(self.cfg, where, exc)
