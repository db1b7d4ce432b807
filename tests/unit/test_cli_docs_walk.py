"""Defects found walking the user docs (docs/guide.md, docs/cli.md) as a new user, each run
in-process as ``tacit ARGS`` would be (the earlier walks: test_cli_new_user_walk*.py)."""

from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def test_off_status_outside_a_project_names_the_folder(run):
    """`tacit off --status` in a folder that is no project said "tacit is on for here"."""
    code, out, _ = run("off", "--status", "--project", "/")
    assert code == 0 and out.strip() == "tacit is on for / (not inside a project)", out
    code, out, _ = run("off", "--status")  # inside the repository: its folder, as before
    assert code == 0 and out.startswith("tacit is on for /") and "not inside" not in out, out


def test_search_help_lists_every_since_the_guide_names(run):
    """docs/guide.md says `tacit search --since` reads WHEN as `tacit memory log` does (yesterday,
    30m, a time); `tacit search --help` named only some of them."""
    code, out, _ = run("search", "--help")
    assert code == 0, out
    flat = " ".join(out.split())
    for when in ("2026-11-30T09:00", "yesterday", "30m", "6mo"):
        assert when in flat, flat
    code, out, _ = run("search", "utils", "--since", "30m")
    assert code == 0 and 'for "utils"' in out, out
