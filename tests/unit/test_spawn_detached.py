"""children.env.spawn_detached: the one detached start (child runner, background consolidation,
Hermes's overflow runner), with real processes."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

from tacit.children.env import spawn_detached

REPORT = ("import json, os, sys; json.dump({'sid': os.getsid(0), 'pid': os.getpid(), 'cwd': os.getcwd(), "
          "'stdin': sys.stdin.read(), 'tty': os.isatty(1), 'env': os.environ.get('MARK')}, open(sys.argv[1], 'w'))")


def run(tmp_path: Path, cwd: str | None) -> tuple[int, dict]:
    out, done = tmp_path / "report.json", threading.Event()
    pid = spawn_detached([sys.executable, "-c", REPORT, str(out)], {**os.environ, "MARK": "m"}, cwd=cwd,
                         on_exit=done.set)
    assert done.wait(20), "on_exit is called once the process has ended"
    return pid, json.loads(out.read_text())


def test_it_runs_in_a_session_of_its_own_with_no_terminal_and_is_reaped(tmp_path: Path):
    pid, seen = run(tmp_path, str(tmp_path))
    assert seen["pid"] == pid and seen["sid"] == pid and os.getsid(0) != pid  # its own session
    assert seen["stdin"] == "" and not seen["tty"] and seen["env"] == "m"
    assert os.path.realpath(seen["cwd"]) == os.path.realpath(tmp_path)
    try:  # reaped by the thread: no zombie left to wait for
        os.waitpid(pid, os.WNOHANG)
        raise AssertionError("the process was not reaped")
    except ChildProcessError:
        pass


def test_a_missing_folder_runs_it_where_the_starter_is(tmp_path: Path):
    _pid, seen = run(tmp_path, str(tmp_path / "not-made-yet"))
    assert os.path.realpath(seen["cwd"]) == os.path.realpath(os.getcwd())
