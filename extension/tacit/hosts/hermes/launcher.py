"""The detached overflow runner under Hermes.

Design notes: docs/design/hosts.md#tacithostshermeslauncher
"""

from __future__ import annotations

import sys

from tacit.children.env import process_env
from tacit.children.spawn import spawn_detached

RUNNER_MODULE = "tacit.hosts.hermes.jobs"


def runner_argv(*args: str) -> list:
    return [sys.executable, "-P", "-m", RUNNER_MODULE, *args]


def start_runner(cfg, *args: str, on_exit=None) -> int:
    """Start the detached runner; a daemon thread reaps it and calls ``on_exit()`` when it ends. Returns its pid."""
    return spawn_detached(runner_argv(*args), process_env(cfg, "hermes"), on_exit=on_exit)
