"""tacit's own command line, spelled in one place.

Everything that starts tacit — the service, a child runner, a child agent's
``tacit memory add``, the agent's saving guidance, a Claude Code slash
command — takes the command from here, so they can never drift apart.
The hook client imports this module to start the service, so it imports
only ``os`` and ``sys`` at the top (``shlex`` would bring ``re``).
"""

from __future__ import annotations

import os
import sys


def python_argv(*args: str) -> list[str]:
    """Run the tacit CLI with this very interpreter (for processes we start)."""
    # -P: the working folder (a project with its own tacit/ or json.py) never shadows ours
    return [sys.executable, "-P", "-m", "tacit", *args]


def tacit_argv(*args: str) -> list[str]:
    """The command a person or an agent types: the console script next to
    this interpreter when there is one, else ``python -m tacit``."""
    script = os.path.join(os.path.dirname(sys.executable), "tacit")
    if os.access(script, os.X_OK):
        return [script, *args]
    return python_argv(*args)


def tacit_display(*args: str) -> str:
    import shlex  # not at the top: see the module docstring

    return shlex.join(tacit_argv(*args))


def on_path(path_value: str | None) -> bool:
    """Is ``tacit`` on this PATH (so plain ``tacit …`` works in the agent's shell)?"""
    return any(folder and os.access(os.path.join(folder, "tacit"), os.X_OK)
               for folder in (path_value or "").split(os.pathsep))


HOOK_CLIENT = "tacit.hosts.hook_client"


def hook_command(python: str, host: str, event: str) -> str:
    """The shell command a Claude Code / Codex hook runs: the hook client
    with ``-S`` (no site: it puts tacit's own folder on ``sys.path``, which is
    all it needs) and ``-P`` (the project folder never shadows a module)."""
    import shlex  # not at the top: see the module docstring

    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = (f"import sys; sys.path.insert(0, {package_parent!r}); "
            f"from {HOOK_CLIENT} import main; main()")
    return f"{shlex.quote(python)} -S -P -c {shlex.quote(code)} {host} {event}"


def is_tacit_hook(command) -> bool:
    """A hook command tacit wrote (this version's, or an older one's)."""
    return isinstance(command, str) and (HOOK_CLIENT in command or "tacit.hosts.hook_entry" in command)
