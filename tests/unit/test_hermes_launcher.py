"""The Hermes launcher: a real detached runner process, watched by a thread.

Children are disabled in the runner's environment (``TACIT_CHILD_ENABLED=0``)
so the job takes the deterministic path (a correction saved verbatim): the
point here is the process plumbing — detached start, job file, child log,
reaping, the engine told when it ends. The e2e tests run real ``hermes -z``
children through the same path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path

import pytest

from tacit.config import load_config
from tacit.hosts.hermes import jobs, launcher
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


def wait_for(predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_a_job_runs_detached_and_the_engine_hears_when_it_ends(hermes_env):
    cfg = adapt_config(load_config(env=hermes_env, host="hermes"))
    engine = build_engine(cfg, "inprocess", host="hermes", children=False)
    finished = threading.Event()
    original = engine.child_finished

    def child_finished(job):
        original(job)
        finished.set()

    engine.child_finished = child_finished
    launch = launcher.watched_launcher(cfg, weakref.ref(engine))
    job = {"id": "job-1", "kind": "correction", "session_id": "s1", "host": "hermes", "cwd": None,
           "variables": {"correction": "I told you: use pnpm, not npm", "prev_assistant": ""}}
    with engine.state_store.session("s1") as state:
        state.mark_running("correction", "job-1")
    pid = launch(job)
    assert isinstance(pid, int) and pid > 0
    assert finished.wait(30), "the watcher never reported the end of the job"
    with engine.state_store.session("s1") as state:
        assert not state.is_running("correction", 600)
    assert cfg.user_file.read_text() == "User correction: I told you: use pnpm, not npm"
    [record] = [json.loads(line) for line in cfg.children_log.read_text().splitlines()]
    assert record["job_id"] == "job-1" and record["mode"] == "deterministic" and record["ok"] is True
    assert not (Path(cfg.state_dir_str) / "jobs" / "job-1.json").exists()
    with pytest.raises(ChildProcessError):  # reaped by the watcher: no zombie left
        os.waitpid(pid, os.WNOHANG)
    assert not (Path(cfg.state_dir_str) / "sessions").exists()  # no session files, unlike `tacit child run`


def test_runner_env_pins_the_hermes_home_and_this_interpreter(hermes_env, monkeypatch):
    monkeypatch.setenv("TACIT_CHILD", "1")
    cfg = load_config(env=hermes_env, host="hermes")
    env = launcher.runner_env(cfg)
    assert env["HERMES_HOME"] == hermes_env["HERMES_HOME"] and env["TACIT_HOST"] == "hermes"
    assert env["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)
    assert "TACIT_CHILD" not in env and "TACIT_HOME" not in env
    assert launcher.runner_argv("overflow") == [sys.executable, "-m", "tacit.hosts.hermes.jobs", "overflow"]


def test_runner_entry_point(hermes_env, tmp_path, monkeypatch):
    env = {**os.environ, "HERMES_HOME": hermes_env["HERMES_HOME"], "TACIT_HOST": "hermes"}
    usage = subprocess.run([sys.executable, "-m", "tacit.hosts.hermes.jobs", "what"], env=env,
                           capture_output=True, text=True, timeout=30)
    assert usage.returncode == 2 and "usage:" in usage.stderr
    missing = subprocess.run([sys.executable, "-m", "tacit.hosts.hermes.jobs", "job", str(tmp_path / "no.json")],
                             env=env, capture_output=True, text=True, timeout=30)
    assert missing.returncode == 1
    log = (Path(hermes_env["HERMES_HOME"]) / "tacit" / "logs" / "tacit.log").read_text()
    assert "hermes job runner job" in log and "FileNotFoundError" in log
    monkeypatch.setenv("HERMES_HOME", hermes_env["HERMES_HOME"])  # main() reads the environment
    assert jobs.main(["overflow"]) == 0  # an empty queue is fine


def test_overflow_runner_drains_the_queue(hermes_env):
    from tacit.hosts.hermes import overflow

    cfg = adapt_config(load_config(env=hermes_env, host="hermes"))
    overflow.enqueue(cfg, "user", "QUEUED: prefers short answers")
    done = threading.Event()
    launcher.start_runner(cfg, "overflow", on_exit=done.set)
    assert done.wait(30)
    assert cfg.user_file.read_text() == "QUEUED: prefers short answers"
    assert overflow.pending_paths(cfg) == []
