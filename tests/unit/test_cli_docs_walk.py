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


def test_a_line_guard_you_add_is_not_said_to_be_a_childs(run, web):
    """`tacit guard add PATTERN --line FILE:N` run by the user (cli.md: "you may too") was listed
    as "phrased by a child"."""
    (web / "AGENTS.md").write_text(
        "# Rules\n\n- We do not want anyone kicking off `terraform destroy` by themselves.\n", encoding="utf-8")
    code, out, _ = run("guard", "add", "terraform destroy", "--line", "AGENTS.md:3")
    assert code == 0 and "Added guard" in out, out
    code, out, _ = run("guard", "list")
    assert code == 0 and "AGENTS.md:3 (phrased: tacit could not read the line)" in out, out
    assert "child" not in out, out
