"""Building the engine the way each kind of process needs it.

Design notes: docs/design/hosts.md#tacithostsruntime
"""

from __future__ import annotations

import weakref

from tacit.children.launch import detached_launcher, inline_launcher
from tacit.engine import Engine
from tacit.hosts import spec as host_specs
from tacit.log import report_config_problems

MODES = ("service", "inprocess", "oneshot", "replay")


def build_engine(cfg, mode: str, *, host: str = "", children: bool = True,
                 discover_plugins: bool | None = None) -> Engine:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    report_config_problems(cfg)
    discover = mode in ("service", "inprocess") if discover_plugins is None else discover_plugins
    if discover:
        host_specs.discover()  # a host shipped as its own package (the tacit.hosts entry points)
    # what each host already does itself, so handlers do not do it twice (its spec says it)
    features = {name: f for name, f in host_specs.table("features").items() if f}
    engine = Engine(cfg, background="thread" if mode in ("service", "inprocess") else "inline",
                    host=host or cfg.host or "", host_features=features)
    if children and cfg.child_enabled:
        engine.launcher = (inline_launcher(cfg, weakref.ref(engine)) if mode == "replay"
                           else detached_launcher(cfg))
    if mode == "inprocess":  # no file watcher here (the service's): a new session reads the files again
        engine.on("session_start", _reread_stores, name="stores.reread", priority=0)
    engine.load_builtins()
    engine.load_configured_plugins(discover=discover)
    return engine


def _reread_stores(_event, ctx) -> None:
    """What another process changed (a skill, memory) is read again before the new session's snapshot
    freezes; snapshots already handed out stay as they are."""
    ctx.engine.reload_stores()
