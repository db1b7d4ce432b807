"""The environment of every process tacit starts, built in one place, and how one that outlives its
starter is started (a child runner, a background consolidation, Hermes's overflow runner).

Design notes: docs/design/children.md#tacitchildrenenv
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from typing import TYPE_CHECKING, Callable

from tacit.config import with_session

if TYPE_CHECKING:
    from tacit.stores.history import Actor

SESSION_ENV = "host_env"  # the job variable holding ``session_env`` (``Engine.set_job_defaults``)
# the job variable (and run record field) saying why its runner started without its session's environment
LAUNCH_FALLBACK = "launch_env_fallback"


def process_env(cfg, host: str | None = None, *, child: bool = False, project: str | None = None,
                session: dict | None = None, base: dict | None = None) -> dict:
    """``project``: the root of the project a child works for (its commands' default scope); ``base``:
    the environment to start from, the one the session's host was launched with (else
    ``cfg.launched``, else this process's); ``session``: that session's ``session_env`` over it."""
    if base is None:
        base = os.environ if cfg.launched is None else cfg.launched
    env = with_session({name: value for name, value in base.items()
                        if name not in ("TACIT_CHILD", "TACIT_PROJECT", "TACIT_READY_FD")}, session)
    host = host or cfg.host
    env["TACIT_HOME"] = cfg.home_str
    if host:
        env["TACIT_HOST"] = host
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    if child:
        env["TACIT_CHILD"] = "1"
    if project:
        env["TACIT_PROJECT"] = project
    return env


def session_env(host: str | None, environ: dict) -> dict:
    """What a child of ``host``'s session takes from the environment that session's host was launched
    with (``environ``), not from whichever hook started the service: ``PATH`` and the variables its
    spec names (``env_vars``: its home folder), each ``None`` where that session has it unset."""
    from tacit.hosts import spec as host_specs

    spec = host_specs.get(host or "")
    names = ("PATH", *(spec.env_vars if spec is not None else ()))
    # a value that is not text (it did not decode) is left to this process's
    return {name: environ.get(name) for name in names if environ.get(name) is None or _text(environ[name])}


def _text(value) -> bool:
    """A str that is text (no undecodable byte kept as a surrogate)."""
    try:
        value.encode("utf-8")
    except (AttributeError, UnicodeEncodeError):
        return False
    return isinstance(value, str)


def actor_from_env(environ: dict | None) -> "Actor":
    """Who a tacit command acts for: the child runner's ``TACIT_ACTOR``, the agent (in its session,
    where the host names it) when run from a host's shell tool (``Host.shell_marker``), else you."""
    from tacit.stores.history import USER, Actor

    environ = {} if environ is None else environ
    actor = Actor.from_env(environ.get("TACIT_ACTOR"))
    if actor is not None:
        return actor
    from tacit.hosts import spec as host_specs

    for host in host_specs.registry().values():  # run from a host's shell tool: the agent's
        if host.shell_marker and environ.get(host.shell_marker):
            session = environ.get(host.shell_session, "") if host.shell_session else ""
            return Actor(kind="agent", name="shell", host=host.name, session_id=session[:200])
    return USER


def spawn_detached(argv: list[str], env: dict, *, cwd: str | None = None,
                   on_exit: Callable[[], None] | None = None) -> int:
    """Start ``argv`` in a session of its own (no stdio; in ``cwd`` if it exists); its pid. A daemon
    thread reaps it (no zombies), then calls ``on_exit()``."""
    proc = subprocess.Popen(argv, cwd=cwd if cwd and os.path.isdir(cwd) else None, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)

    def reap() -> None:
        proc.wait()
        if on_exit is not None:
            on_exit()

    threading.Thread(target=reap, name=f"tacit-reap-{proc.pid}", daemon=True).start()
    return proc.pid
