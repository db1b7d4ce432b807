"""``Host``: everything tacit knows about one host, in one spec; and the registry.

Each ``hosts/<name>/spec.py`` declares ``HOST = Host(...)``: what the host
honours of a handler's result, what it already does itself (so handlers do
not do it twice), its own memory tools, its child command and how the
prompt reaches it, and how its shell tool is recognised. ``registry()`` holds
the built-in four; a fifth host ships as its own package with a
``tacit.hosts`` entry point naming its ``Host`` (``discover()``, called by
long-lived processes). Nothing outside ``hosts/`` names a host: it asks the
registry. Adding one: docs/adding-a-host.md.
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass

BUILTIN = ("claude_code", "codex", "hermes", "pi")  # hosts/<module>/spec.py
ENTRY_POINTS = "tacit.hosts"


@dataclass(frozen=True, slots=True)
class Host:
    name: str  # as events, jobs and the history spell it ("claude-code")
    label: str  # for people ("Claude Code")
    honoured: frozenset = frozenset()  # result fields it shows: "message_end.context", "tool_call.ask", …
    features: frozenset = frozenset()  # what it does itself: "memory_snapshot", "memory_tool", …
    memory_tools: tuple = ()  # its own tools that write tacit's memory files
    child_command: tuple = ()  # its child agent's argv template ("{prompt}", "{model}", …)
    prompt_stdin: str | None = None  # how the prompt reaches it instead of "{prompt}" (None: on stdin)
    child_model: str = ""  # the model its child uses when child_model is not configured
    shell_marker: str = ""  # an environment variable set in its shell tool: a tacit command run there is the agent's


_lock = threading.Lock()
_hosts: dict[str, Host] = {}


def _load_builtins() -> None:
    if _hosts:
        return
    with _lock:
        if _hosts:
            return
        found = {}
        for module in BUILTIN:
            host = importlib.import_module(f"tacit.hosts.{module}.spec").HOST
            found[host.name] = host
        _hosts.update(found)


def register(host: Host) -> Host:
    """Add (or replace) a host's spec."""
    if not isinstance(host, Host):
        raise TypeError(f"not a Host: {host!r}")
    _load_builtins()
    with _lock:
        _hosts[host.name] = host
    return host


def discover() -> list[str]:
    """Register the hosts of the ``tacit.hosts`` entry-point group; the names
    added. A broken one is skipped (the caller logs what it returns)."""
    from importlib.metadata import entry_points

    added = []
    for point in entry_points(group=ENTRY_POINTS):
        try:
            host = point.load()
            register(host() if callable(host) and not isinstance(host, Host) else host)
            added.append(point.name)
        except Exception:  # noqa: BLE001 — a broken third-party host never breaks tacit
            continue
    return added


def registry() -> dict[str, Host]:
    _load_builtins()
    return dict(_hosts)


def get(name: str) -> Host | None:
    return registry().get(name)


def names() -> tuple[str, ...]:
    return tuple(registry())


def table(field: str) -> dict:
    """One field of every host's spec: ``{name: value}`` (the old per-concern tables)."""
    return {name: getattr(host, field) for name, host in registry().items()}
