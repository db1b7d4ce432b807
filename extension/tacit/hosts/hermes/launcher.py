"""Where a child job runs under Hermes: a detached process, watched by a thread.

Why not the engine's plain ``thread_launcher``
    ``hermes -z`` ends with ``os._exit`` right after the turn
    (``hermes_cli/main.py: _exit_after_oneshot``): no ``atexit``, no
    interpreter shutdown — every thread dies mid-instruction. A child agent
    run on a thread (rendering its prompt, then ``hermes -z`` for tens of
    seconds) would be killed with it, or, if its subprocess had already
    started, lose its pipes and its log line. The interactive CLI is no
    better at exit (daemon threads die; a 30 s exit watchdog). So the job
    itself always runs in a **detached process** (own session, stdio on
    /dev/null: ``tacit.spawn.spawn_detached``) that outlives whatever Hermes
    does — ``python -m tacit.hosts.hermes.jobs job FILE``.

What the thread is for
    In a long-lived Hermes (interactive CLI, gateway) a daemon thread waits
    for that process (``waitpid``: it is our child, so it is also reaped, and
    the engine's pid-liveness check never sees a zombie) and then calls
    ``engine.child_finished(job)``: the running mark clears at once and the
    stores re-read from disk. The turn never waits: ``launch`` returns the
    pid immediately. If Hermes exits first the watcher dies, the job does
    not, and the in-memory running mark dies with the process anyway.

Same interpreter, same Hermes
    The runner is started with ``sys.executable`` (Hermes's interpreter, which
    has tacit installed) and ``tacit.spawn.tacit_process_env`` (``HERMES_HOME``
    and ``TACIT_HOST=hermes`` pinned), with this interpreter's folder first on
    ``PATH`` so the runner — and the child it starts — find the same
    ``hermes``, hence the same home, config and model.
"""

from __future__ import annotations

import json
import os
import sys

RUNNER_MODULE = "tacit.hosts.hermes.jobs"


def runner_argv(*args: str) -> list:
    return [sys.executable, "-m", RUNNER_MODULE, *args]


def runner_env(cfg) -> dict:
    from tacit.hosts.hermes.settings import interpreter_bin
    from tacit.spawn import tacit_process_env

    env = tacit_process_env(cfg, "hermes")
    env["PATH"] = interpreter_bin() + os.pathsep + env.get("PATH", "")
    env.pop("TACIT_CHILD", None)  # the runner is not a child; the agent it starts is
    return env


def start_runner(cfg, *args: str, on_exit=None) -> int:
    """Start the detached runner; a daemon thread reaps it and calls
    ``on_exit()`` when it ends. Returns its pid."""
    from tacit.spawn import spawn_detached

    pid = spawn_detached(runner_argv(*args), env=runner_env(cfg), cwd=None)
    watch(pid, on_exit)
    return pid


def watch(pid: int, on_exit=None) -> None:
    import threading

    def wait() -> None:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            # already reaped elsewhere (or not our child): poll until gone
            import time

            while True:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                except PermissionError:
                    pass
                time.sleep(1.0)
        except OSError:
            pass
        if on_exit is not None:
            on_exit()

    threading.Thread(target=wait, name=f"tacit-watch-{pid}", daemon=True).start()


def watched_launcher(cfg, engine_ref):
    """The engine's ``launcher(job) -> pid`` for Hermes (see the module doc)."""

    def launch(job: dict) -> int:
        from tacit.fsutil import atomic_write_text

        path = os.path.join(cfg.state_dir_str, "jobs", f"{job['id']}.json")
        atomic_write_text(path, json.dumps(job, ensure_ascii=False))

        def finished() -> None:
            engine = engine_ref()
            if engine is None:
                return
            try:
                engine.child_finished(job)
            except Exception as exc:  # noqa: BLE001 — a watcher thread must not die loudly
                from tacit.log import log_exception

                log_exception(cfg, f"hermes child {job.get('kind')} finished", exc)

        try:
            return start_runner(cfg, "job", path, on_exit=finished)
        except BaseException:
            try:
                os.unlink(path)
            except OSError:
                pass
            raise

    return launch
