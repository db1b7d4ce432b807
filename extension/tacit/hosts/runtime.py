"""Building the engine the way each kind of host process needs it.

=========== ============== ============ ======================================
mode        session state  background   children
=========== ============== ============ ======================================
hook        file per sid   journal      detached process (outlives the hook)
drain       file per sid   inline       detached process
inprocess   in memory      thread       background thread
replay      in memory      inline       inline (``tacit learn --apply``) or none
=========== ============== ============ ======================================

Host adapters call ``build_engine`` and never assemble these pieces
themselves, so every host runs the same handlers with the same rules.

Imports nothing at module level: this runs in every hook process, and
``weakref`` (for the in-process launchers' back-reference to the engine) is
needed only in the in-process and replay modes.
"""

from __future__ import annotations

MODES = ("hook", "drain", "inprocess", "replay")


def build_engine(cfg, mode: str, *, host: str | None = None, host_features=(),
                 children: bool = True, entry_points: bool | None = None):
    from tacit.engine import Engine

    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    host = host if host is not None else cfg.host
    if cfg.problems:
        from tacit.log import report_config_problems

        report_config_problems(cfg)
    if mode in ("hook", "drain"):
        from tacit.state import FileStateStore

        store = FileStateStore(cfg.sessions_dir_str, cfg.session_state_max_age_days)
        if mode == "hook":
            store.maybe_prune()
    else:
        from tacit.state import MemoryStateStore

        store = MemoryStateStore()
    background = {"hook": "journal", "drain": "inline", "inprocess": "thread", "replay": "inline"}[mode]
    engine = Engine(cfg, state_store=store, background=background, host=host,
                    host_features=host_features)
    if children and cfg.child_enabled:
        from tacit import launchers

        if mode in ("hook", "drain"):
            engine.launcher = launchers.detached_launcher(cfg)
        else:
            import weakref

            ref = weakref.ref(engine)
            if mode == "inprocess":
                engine.launcher = launchers.thread_launcher(cfg, ref)
            else:
                engine.launcher = launchers.inline_launcher(cfg, ref)
    engine.load_builtins()
    # entry-point discovery costs tens of ms: long-lived processes only
    engine.load_configured_plugins(entry_points=(mode == "inprocess") if entry_points is None else entry_points)
    return engine
