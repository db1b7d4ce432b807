"""Start a process that outlives us, without making anyone wait.

Hook processes must return in milliseconds, yet a child agent runs for a
minute. ``spawn_detached`` starts ``argv`` in a new session (its own process
group, no controlling terminal), with stdin/stdout/stderr on /dev/null, via
``os.posix_spawn`` — no ``subprocess`` import on the hook path, and nothing
for the host to wait on: Claude Code kills async hooks when a ``-p`` run ends,
but a process in its own session survives it.
"""

from __future__ import annotations

import os
import sys


def tacit_argv(*args: str) -> list:
    """argv that runs the tacit CLI with this very interpreter."""
    return [sys.executable, "-m", "tacit.cli", *args]


def tacit_process_env(cfg, host: str | None = None) -> dict:
    """The environment for a tacit process we start (``tacit child run``,
    ``tacit drain``): ours, plus whatever makes it resolve the *same* data
    folder as ``cfg`` — a Config built from an explicit environment (an
    embedding host, the tests) may point somewhere ``os.environ`` does not."""
    env = dict(os.environ)
    if cfg.home_str == cfg.state_dir_str:
        env["TACIT_HOME"] = cfg.home_str
    elif host == "hermes" or cfg.host == "hermes":
        env.pop("TACIT_HOME", None)
        env["HERMES_HOME"] = cfg.home_str
    if host or cfg.host:
        env["TACIT_HOST"] = host or cfg.host
    return env


def spawn_detached(argv: list, env: dict | None = None, cwd: str | None = None) -> int:
    """Start ``argv`` detached; return its pid."""
    env = dict(os.environ if env is None else env)
    devnull = os.devnull
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, devnull, os.O_WRONLY, 0),
    ]
    if cwd:
        # posix_spawn has no cwd argument before 3.13: go through /bin/sh -c 'cd … && exec …'
        import shlex

        argv = ["/bin/sh", "-c", f"cd {shlex.quote(cwd)} && exec {shlex.join(argv)}"]
    pid = os.posix_spawn(argv[0] if os.path.isabs(argv[0]) else _which(argv[0], env), argv, env,
                         file_actions=actions, setsid=True)
    _reap_later(pid)
    return pid


def _which(name: str, env: dict) -> str:
    for folder in env.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder, name)
        if os.access(candidate, os.X_OK):
            return candidate
    raise FileNotFoundError(name)


def _reap_later(pid: int) -> None:
    # A long-lived parent (Hermes, the bridge) must not collect zombies; a
    # hook process exits first and init reaps. Ignore errors either way.
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
