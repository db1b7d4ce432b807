"""tacit's own command line, spelled in one place.

Design notes: docs/design/core.md#tacitcommandline
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading

from tacit.hosts import spec as host_specs
from tacit.paths import PACKAGE_DIR, python_argv


def tacit_argv(*args: str) -> list[str]:
    """The command a person or an agent types: the console script here, else ``python -m tacit``."""
    script = os.path.join(os.path.dirname(sys.executable), "tacit")
    return [script, *args] if os.access(script, os.X_OK) else python_argv(*args)


def tacit_display(*args: str) -> str:
    return shlex.join(tacit_argv(*args))


def on_path(path_value: str | None) -> bool:
    """Is ``tacit`` on this PATH (so plain ``tacit …`` works in the agent's shell)?"""
    return any(folder and os.access(os.path.join(folder, "tacit"), os.X_OK)
               for folder in (path_value or "").split(os.pathsep))


_LOGIN_PATHS: dict = {}  # (shell, PATH, HOME) -> the PATH a login shell of that shell ends up with
_MARK = "TACIT-LOGIN-PATH:"


def agent_path(env: dict, *, login_shell: bool = False, wait: float = 2.0) -> str:
    """The PATH the agent's shell tool has: ``env``'s, or for a host whose tool runs ``$SHELL -lc``
    what that login shell makes of it (a distribution's /etc/profile may set PATH afresh); measured
    once per shell, PATH and home, and ``env``'s own PATH when the shell cannot tell. Waits at most
    ``wait`` seconds (a hook: a slow profile must not hold the session's start); until the measure in
    the background is done, ``env``'s PATH."""
    path = env.get("PATH") or ""
    if not login_shell:
        return path
    key = (env.get("SHELL") or "/bin/sh", path, env.get("HOME") or "")
    if key not in _LOGIN_PATHS:
        _LOGIN_PATHS[key] = path  # meanwhile
        measure = threading.Thread(target=_measure, args=(key, dict(env)), daemon=True)
        measure.start()
        measure.join(wait)
    return _LOGIN_PATHS[key]


def _measure(key: tuple, env: dict) -> None:
    shell, path, _ = key
    try:  # the mark: a profile may print something of its own first
        out = subprocess.run([shell, "-lc", f'printf "\\n{_MARK}%s" "$PATH"'], env=env,
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=2)
        found = out.stdout.rpartition(_MARK)[2].strip() if _MARK in out.stdout else ""
    except (OSError, ValueError, subprocess.SubprocessError):
        found = ""
    _LOGIN_PATHS[key] = found or path


HOOK_CLIENT = "tacit.hosts.hook_client"


def hook_command(python: str, host: str, event: str) -> str:
    """The shell command a host's hook runs: the hook client under ``-I -S`` (isolated, no site: the
    code puts tacit's folder on ``sys.path``), then the host, the event, its bound and headless rule."""
    package_parent = os.path.dirname(PACKAGE_DIR)
    code = (f"import sys; sys.path.insert(0, {package_parent!r}); "
            f"from {HOOK_CLIENT} import main; main()")
    spec = host_specs.get(host)
    bound = spec.hook_bounds.get(event, host_specs.DEFAULT_HOOK_BOUND) if spec else host_specs.DEFAULT_HOOK_BOUND
    tail = [host, event, f"{bound:g}", *([spec.headless] if spec and spec.headless else [])]
    return f"{shlex.quote(python)} -I -S -c {shlex.quote(code)} {shlex.join(tail)}"


def hook_target(command) -> tuple[str, str] | None:
    """(host, event) of a hook command tacit wrote (this version's, or an older one's)."""
    if not (isinstance(command, str) and (HOOK_CLIENT in command or "tacit.hosts.hook_entry" in command)):
        return None  # not a hook command tacit wrote (this version's, or an older one's)
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    rest = argv[argv.index("-c") + 2:] if "-c" in argv[:-1] else argv[-2:]
    return (rest[0], rest[1]) if len(rest) >= 2 else None
