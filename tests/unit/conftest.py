"""Fixtures the CLI tests share: a git repository and ``tacit ARGS`` run in-process from inside it."""

from __future__ import annotations

import pytest
from guard_helpers import git_repo

from tacit import cli


@pytest.fixture
def web(tmp_path):
    return git_repo(tmp_path / "web")


@pytest.fixture
def run(tacit_env, monkeypatch, capsys, web):
    """``tacit ARGS`` in-process, from inside ``web``: (exit code, stdout, stderr)."""
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
