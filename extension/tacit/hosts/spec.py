"""``Host``: everything tacit knows about one host, in one spec; and the registry.

Design notes: docs/design/hosts.md#tacithostsspec
"""

from __future__ import annotations

import importlib
import os
import threading
from dataclasses import dataclass, field

BUILTIN = ("claude_code", "codex", "hermes", "pi")  # hosts/<module>/spec.py
ENTRY_POINTS = "tacit.hosts"
DEFAULT_HOOK_BOUND = 3.0  # seconds a hook waits for the service when its spec names no bound
# seconds a hook command waits for the service before running in-process (the host's own timeout
# leaves that ≥ 1 s after: PreToolUse 5 s → 2 s here)
COMMAND_HOOK_BOUNDS = {"SessionStart": 5.0, "UserPromptSubmit": 4.0, "PreToolUse": 2.0, "Stop": 4.0, "SessionEnd": 0.8}


@dataclass(frozen=True, slots=True)
class Host:
    name: str  # as events, jobs and the history spell it ("claude-code")
    label: str  # for people ("Claude Code")
    honoured: frozenset = frozenset()  # result fields it shows: "message_end.context", "tool_call.ask", …
    features: frozenset = frozenset()  # what it does itself: "memory_snapshot", "memory_tool", …
    memory_tools: tuple = ()  # its own tools that write tacit's memory files
    child_command: tuple = ()  # its child agent's argv template ("{prompt}", "{model}", …)
    # the same with no tools, for a child that answers in its reply alone (the rules child: it reads
    # a repository's text); a host without one runs no such child unless child_command is configured
    child_reply_command: tuple = ()
    prompt_stdin: str | None = None  # how the prompt reaches it instead of "{prompt}" (None: on stdin)
    child_model: str = ""  # the model its child uses when child_model is not configured
    env_vars: tuple = ()  # the environment variables its code reads (through Config.env): its home folder
    shell_marker: str = ""  # an environment variable set in its shell tool: a tacit command run there is the agent's
    shell_session: str = ""  # the variable in its shell tool that names the session (the agent's actor)
    login_shell: bool = False  # its shell tool runs ``$SHELL -lc``: the agent's PATH is what a login shell makes it
    sessions: str = ""  # the module whose SOURCE reads its own session files (``tacit search``), imported when searched
    child_own_tools: bool = False  # its child writes the memory files with its own tools, not tacit's
    after_child: str = ""  # "module:function(cfg, project, actor)" run once its child exited, before the check
    # its child agent: a module with usage(stdout, usage_file), spend(cfg, usage, model), reply(stdout),
    # optionally default_model(cfg) and command(cfg, shown, prompt) (docs/adding-a-host.md)
    child: str = ""
    installer: str = ""  # a module with install(cfg, scope, …), uninstall(cfg, scope, …), manifest(cfg)
    rpc_session: str = ""  # "module:Class(engine, lines, writer, on_message)" serving its long-lived session
    nobody_to_ask: str = ""  # "module:function() -> bool": no one would answer an approval now (guards deny)
    stdio_session: str = ""  # "module:function() -> exit status": that session over stdin/stdout (``tacit bridge``)
    hook_handler: str = ""  # "module:handle(engine, event_name, payload, *, event_id) -> stdout" of its hooks
    hook_bounds: dict = field(default_factory=dict)  # hook event -> seconds its hook waits for the service
    # hook event -> the seconds its hook may run: what ``tacit install`` registers, and all its handler answers
    hook_events: dict = field(default_factory=dict)
    headless: str = ""  # how its hook tells a headless run: "env:VAR=prefix,tty" or "argv:word,stderr"
    transcripts: str = ""  # a module with detect(line: dict) and read(path, stats) (``tacit learn``)
    transcript_label: str = ""  # what ``tacit learn`` calls its transcripts
    adapt_config: str = ""  # "module:function(cfg) -> cfg": its own settings over tacit's (the CLI under it)

    def load(self, name: str):
        """What a behaviour field (``after_child``, ``child``, …) names:
        the module or ``module:function``; None when the field is empty."""
        target = getattr(self, name)
        if not target:
            return None
        module, _, attr = target.partition(":")
        loaded = importlib.import_module(module)
        return getattr(loaded, attr) if attr else loaded


_lock = threading.Lock()
_hosts: dict[str, Host] = {}


def _load_builtins() -> None:
    if _hosts:
        return
    with _lock:
        if _hosts:
            return
        found = [importlib.import_module(f"tacit.hosts.{module}.spec").HOST for module in BUILTIN]
        _hosts.update((host.name, host) for host in found)


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
    _load_builtins()
    return _hosts.get(name)


def home_folder(env: dict, var: str, *default: str) -> str:
    """A host's own folder: ``$var`` when set, else ``$HOME/<default>`` (``~`` without HOME)."""
    return env.get(var) or os.path.join(env.get("HOME") or os.path.expanduser("~"), *default)


def table(name: str) -> dict:
    """One field of every host's spec: ``{host: value}`` (the old per-concern tables)."""
    return {host_name: getattr(host, name) for host_name, host in registry().items()}


def first_with(name: str, host: str = "") -> Host | None:
    """``host``'s spec if its field ``name`` is set, else (no ``host``) the first spec that sets it."""
    hosts = [h for h in registry().values() if getattr(h, name)]
    return next((h for h in hosts if h.name == host), None) if host else next(iter(hosts), None)


def with_own_first(host: str | None) -> list[Host]:
    """Every host, ``host`` first (to recognise what a child printed)."""
    hosts = registry()
    own = hosts.pop(host or "", None)
    return ([own] if own else []) + list(hosts.values())
