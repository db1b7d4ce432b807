"""Talking to the service from Python: ``tacit service status|stop``."""

from __future__ import annotations

import json
import os
import time

from tacit.hosts.hook_client import exchange
from tacit.paths import SOCKET_NAME, run_dir


def request(state_dir: str, kind: str, timeout: float = 3.0) -> dict | None:
    """Send ``status`` or ``stop``; the decoded reply, or None when no service answers."""
    data = exchange(run_dir(state_dir), f"TACIT1 {kind}\n".encode(), timeout)
    try:
        return json.loads(data.decode("utf-8")) if data and data.strip() else None
    except ValueError:
        return None


def status(state_dir: str) -> dict:
    return request(state_dir, "status") or {"running": False, "data_dir": state_dir,
                                            "socket": os.path.join(run_dir(state_dir), SOCKET_NAME)}


def stop(state_dir: str, wait: float = 10.0) -> dict:
    """Ask the service to stop and wait until its socket is gone."""
    before = request(state_dir, "status")
    if before is None:
        return {"stopped": False, "running": False, "message": "no service is running"}
    request(state_dir, "stop")
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if request(state_dir, "status", timeout=0.5) is None:
            return {"stopped": True, "running": False, "pid": before.get("pid"),
                    "message": f"stopped the service (pid {before.get('pid')})"}
        time.sleep(0.05)
    return {"stopped": False, "running": True, "pid": before.get("pid"),
            "message": f"the service (pid {before.get('pid')}) did not stop within {wait:g} s"}
