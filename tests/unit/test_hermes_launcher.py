"""Under Hermes: child jobs run as a detached ``tacit child run`` with the
Hermes home and limits, and the overflow queue has a detached runner.

Children are disabled in the runner's environment (``TACIT_CHILD_ENABLED=0``)
so the job takes the deterministic path: the point here is the process
plumbing — detached start, the job row, the child log, the running mark
cleared. The e2e tests run real ``hermes -z`` children through the same path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from wait_helpers import wait_for

from tacit.config import load_config
from tacit.hosts.hermes import overflow
from tacit.hosts.hermes.settings import adapt_config
from tacit.hosts.runtime import build_engine


@pytest.fixture
def hermes_env(tmp_path, monkeypatch) -> dict:
    home = tmp_path / "hermes-home"
    home.mkdir()
    env = {"HOME": str(tmp_path), "HERMES_HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    # the runner inherits os.environ (plus HERMES_HOME/TACIT_HOST): no agent there
    monkeypatch.setenv("TACIT_CHILD_ENABLED", "0")
    monkeypatch.delenv("TACIT_HOME", raising=False)
    monkeypatch.delenv("TACIT_CHILD", raising=False)
    return env


def test_a_job_runs_detached_as_tacit_child_run_under_the_hermes_home(hermes_env):
    from tacit.events import MessageEnd, TurnEnd
    from tacit.stores.memory import MemoryStore

    cfg = adapt_config(load_config(env=hermes_env, host="hermes"))
    engine = build_engine(cfg, "inprocess", host="hermes", discover_plugins=False)
    engine.dispatch(MessageEnd(session_id="s1", host="hermes", role="user", text="install the deps"))
    engine.dispatch(MessageEnd(session_id="s1", host="hermes", role="assistant", text="I ran npm install."))
    engine.dispatch(TurnEnd(session_id="s1", host="hermes"))
    engine.dispatch(MessageEnd(session_id="s1", host="hermes", role="user", text="no, use pnpm not npm here"))
    engine.dispatch(TurnEnd(session_id="s1", host="hermes"))
    job = engine.sessions.peek("s1").running["correction"]
    assert job["pid"] > 0
    # a detached runner under CI load: the default's generous wait, not 20 s (as for the flakes in test_held_jobs)
    wait_for(lambda: engine.sessions.peek("s1").running == {}, what="the runner to clear its mark")
    [record] = [json.loads(line) for line in cfg.children_log.read_text().splitlines()]
    assert record["job_id"] == job["job_id"] and record["host"] == "hermes"
    assert record["mode"] == "deterministic" and record["ok"] is True
    assert Path(cfg.children_log).parent == Path(hermes_env["HOME"]) / ".tacit" / "logs"  # one data folder
    for entry in MemoryStore(cfg).entries("user"):  # an exact rule at most, never the words
        assert "no, use pnpm not npm here" not in entry


def test_runner_argv_and_environment(hermes_env, monkeypatch):
    from tacit.children.env import process_env

    monkeypatch.setenv("TACIT_CHILD", "1")
    cfg = load_config(env=hermes_env, host="hermes")
    env = process_env(cfg, "hermes")
    assert env["TACIT_HOME"] == cfg.home_str and env["TACIT_HOST"] == "hermes"  # one data folder
    assert env["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)
    assert "TACIT_CHILD" not in env
    assert overflow.runner_argv("overflow") == [sys.executable, "-P", "-m", "tacit.hosts.hermes.overflow",
                                                  "overflow"]


def test_runner_entry_point(hermes_env, tmp_path, monkeypatch):
    env = {**os.environ, "HERMES_HOME": hermes_env["HERMES_HOME"], "TACIT_HOST": "hermes"}
    usage = subprocess.run([sys.executable, "-m", "tacit.hosts.hermes.overflow", "what"], env=env,
                           capture_output=True, text=True, timeout=30)
    assert usage.returncode == 2 and "usage:" in usage.stderr
    monkeypatch.setenv("HERMES_HOME", hermes_env["HERMES_HOME"])  # main() reads the environment
    assert overflow.main(["overflow"]) == 0  # an empty queue is fine


def test_overflow_runner_drains_the_queue(hermes_env):
    cfg = adapt_config(load_config(env=hermes_env, host="hermes"))
    overflow.enqueue(cfg, "user", "QUEUED: prefers short answers")
    done = threading.Event()
    overflow.start_runner(cfg, "overflow", on_exit=done.set)
    assert done.wait(30)
    assert cfg.user_file.read_text() == "QUEUED: prefers short answers"
    assert overflow.pending_paths(cfg) == []
