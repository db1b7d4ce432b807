"""The detached overflow runner under Hermes.

``hermes -z`` ends with ``os._exit`` right after the turn: a thread doing
work dies mid-instruction. Memory entries queued while the files were full
(``tacit.hosts.hermes.overflow``) are therefore added by a detached process
— ``python -m tacit.hosts.hermes.jobs overflow``, its own session, stdio on
/dev/null — with the environment every tacit process gets
(``tacit.children.env``). Child agents need none of this: the engine starts
them as ``tacit child run`` like on every host.
"""

from __future__ import annotations

import subprocess
import sys
import threading

from tacit.children.env import process_env

RUNNER_MODULE = "tacit.hosts.hermes.jobs"


def runner_argv(*args: str) -> list:
    return [sys.executable, "-P", "-m", RUNNER_MODULE, *args]


def start_runner(cfg, *args: str, on_exit=None) -> int:
    """Start the detached runner; a daemon thread reaps it and calls
    ``on_exit()`` when it ends. Returns its pid."""
    proc = subprocess.Popen(runner_argv(*args), env=process_env(cfg, "hermes"), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def wait() -> None:
        proc.wait()
        if on_exit is not None:
            on_exit()

    threading.Thread(target=wait, name=f"tacit-watch-{proc.pid}", daemon=True).start()
    return proc.pid
