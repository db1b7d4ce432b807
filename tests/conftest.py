"""Shared fixtures: every test gets its own data folder and Config.

Tests never touch the real ``~/.tacit``: ``cfg`` is built from an explicit
environment pointing TACIT_HOME at a temp folder, and ``tacit_env`` is the
matching environment for subprocesses (CLI, hooks, children).
"""

from __future__ import annotations

import os
import time
import sys
from pathlib import Path

import pytest

from tacit.config import load_config


@pytest.fixture
def tacit_home(tmp_path: Path) -> Path:
    home = tmp_path / "tacit-home"
    home.mkdir(mode=0o700)  # as tacit makes it; a test must not depend on the umask an earlier test left
    return home


@pytest.fixture(autouse=True)
def neutral_working_folder(tmp_path: Path, monkeypatch):
    """Run every test from its own empty home folder, which belongs to no
    project: the checkout is a git repository, and memory saved from inside
    it would go to that project's scope. Tests about scopes say where they run."""
    home = tmp_path / "user-home"
    home.mkdir(exist_ok=True)
    monkeypatch.chdir(home)
    return home


@pytest.fixture(autouse=True)
def setup_writes_are_yours():
    """A test's own setup writes (``MemoryStore(cfg).add`` …) are the user's.
    Production code names its actor (``tacit.app.Tacit.as_actor``); tests of
    a writer assert the actor it records, and ``no_actor`` removes this one."""
    from tacit.stores import history

    with history.acting(history.USER):
        yield


@pytest.fixture
def no_actor():
    """No actor declared: a store write must name one or fail."""
    from tacit.stores import history

    with history.acting(None):
        yield


@pytest.fixture
def tacit_env(tacit_home: Path, tmp_path: Path):
    """Environment for subprocesses: isolated HOME and TACIT_HOME. A service
    that a hook started for this data folder is stopped afterwards (and exits
    on its own after a short idle time anyway): no test leaves a process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACIT_")}
    env["TACIT_HOME"] = str(tacit_home)
    env["HOME"] = str(tmp_path / "user-home")
    env["TACIT_SERVICE_IDLE_SECONDS"] = "30"
    Path(env["HOME"]).mkdir(exist_ok=True)
    # the interpreter running the tests is the one with tacit installed
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    yield env
    stop_service(tacit_home)


def stop_service(state_dir) -> None:
    from tacit.service import client

    client.stop(str(state_dir), wait=10)


@pytest.fixture
def cfg(tacit_env):
    return load_config(env=tacit_env)


@pytest.fixture
def you(cfg):
    """The front door of ``cfg`` acting as you (what ``tacit …`` in a terminal has)."""
    from tacit.app import USER, Tacit

    with Tacit(cfg).as_actor(USER) as front:
        yield front


# --- host installers (tests/unit/test_*_install.py) --------------------------


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The user's HOME for an installer: ``<tmp>/user-home``, the folder
    ``tacit_env`` points HOME at too."""
    path = tmp_path / "user-home"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture
def ucfg(home: Path, tacit_home: Path):
    """The Config an installer sees: an environment of only HOME, TACIT_HOME
    and a PATH holding this interpreter's folder (its ``tacit`` script)."""
    return load_config(env={"HOME": str(home), "TACIT_HOME": str(tacit_home),
                            "PATH": str(Path(sys.executable).parent)})


@pytest.fixture
def utc_zone(monkeypatch):
    """Pin the local time zone to UTC, for tests whose dates are local dates."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def web(tmp_path):
    """A git repository for the CLI tests (tests/unit's helper; only unit tests ask for it)."""
    from guard_helpers import git_repo

    return git_repo(tmp_path / "web")


@pytest.fixture
def run(tacit_env, monkeypatch, capsys, web):
    """``tacit ARGS`` in-process, from inside ``web``: (exit code, stdout, stderr)."""
    from tacit import cli

    for key, value in tacit_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("TACIT_PROJECT", raising=False)
    monkeypatch.chdir(web)

    def tacit(*args):
        try:
            code = cli.main(list(args))
        except SystemExit as exc:
            code = exc.code
        out = capsys.readouterr()
        return code, out.out, out.err

    return tacit
