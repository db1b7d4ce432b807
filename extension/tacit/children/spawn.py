"""How tacit starts a process that outlives its starter (a child runner, a background consolidation,
Hermes's overflow runner), written once.

Design notes: docs/design/children.md#tacitchildrenspawn
"""

from __future__ import annotations

import os
import subprocess
import threading
from typing import Callable


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
