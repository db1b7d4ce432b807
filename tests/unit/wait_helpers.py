"""Waiting for something another process does, in the unit tests."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time

from tacit.commandline import hook_command


WAIT_SECONDS = 60.0  # generous (was 20): CI runs the suite on a shared 2-core machine, where services, children
# and restarts are slow (flakes seen in test_service, test_held_jobs); a wait ends once its condition holds


def wait_for(predicate, timeout: float = WAIT_SECONDS, what: str = "condition"):
    """``predicate()``'s first truthy value, polled every 50 ms; AssertionError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def claude_hook(env, event: str, *, session_id: str, cwd: str = "/tmp", **fields) -> subprocess.CompletedProcess:
    """Run the installed Claude Code hook command for ``event`` as Claude Code would."""
    body = {"session_id": session_id, "cwd": cwd, **fields}
    return subprocess.run(shlex.split(hook_command(sys.executable, "claude-code", event)),
                          input=json.dumps(body).encode(), env=env, capture_output=True, timeout=60)
