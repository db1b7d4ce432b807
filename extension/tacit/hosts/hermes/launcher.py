"""The detached overflow runner under Hermes.

Design notes: docs/design/hosts.md#tacithostshermeslauncher
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
    """Start the detached runner; a daemon thread reaps it and calls ``on_exit()`` when it ends. Returns its pid."""
    proc = subprocess.Popen(runner_argv(*args), env=process_env(cfg, "hermes"), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def wait() -> None:
        proc.wait()
        if on_exit is not None:
            on_exit()

    threading.Thread(target=wait, name=f"tacit-watch-{proc.pid}", daemon=True).start()
    return proc.pid
