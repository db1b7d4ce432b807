"""``tacit.processes``: the one "is this pid alive" check (the session's running marks and the orphan
reaper both use it), on real processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tacit.processes import alive, process_started
from tacit.session import SessionState


def _zombie() -> subprocess.Popen:
    """A child that has exited and was not waited for yet."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.time() + 30
    while time.time() < deadline:
        with open(f"/proc/{proc.pid}/stat", "rb") as handle:
            if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                return proc
        time.sleep(0.02)
    raise AssertionError("the child never exited")


def test_alive_sees_live_dead_zombie_and_reused_pids():
    me = os.getpid()
    started = process_started(me)
    assert started is not None and started <= time.time()
    assert alive(me) and alive(me, since=time.time())
    assert not alive(me, since=started - 60)  # a pid noted before this process started: reused
    assert not alive(2 ** 22 + 12345) and not alive(None) and not alive(0) and not alive("12")
    zombie = _zombie()
    try:
        assert not alive(zombie.pid)
    finally:
        zombie.wait()
    assert not alive(zombie.pid)


def test_a_session_mark_of_an_exited_child_is_not_running():
    state = SessionState(session_id="s")
    state.mark_running("review", "job-1")  # no pid yet: running until the mark goes stale
    assert state.is_running("review", 3600)
    zombie = _zombie()
    try:
        state.mark_running("review", "job-1", pid=zombie.pid)
        assert not state.is_running("review", 3600)  # exited, not yet reaped by its starter
    finally:
        zombie.wait()
    state.mark_running("review", "job-1", pid=os.getpid())
    assert state.is_running("review", 3600) and not state.is_running("review", -1)
