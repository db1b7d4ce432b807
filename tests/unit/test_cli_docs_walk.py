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


def _visible_options(parser, words: list[str]) -> tuple[list[str], set[str]]:
    """The sub-command path ``words`` names in ``parser`` and the options its --help shows."""
    import argparse

    path = []
    for word in words:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction) and word in a.choices]
        if not subs:
            break
        parser = subs[0].choices[word]
        path.append(word)
    shown = {o for a in parser._actions if a.help != argparse.SUPPRESS for o in a.option_strings}
    return path, shown


def test_what_the_agent_is_told_to_run_uses_the_documented_options():
    """The session guidance and the saving-memories starter told the agent `--target user`, the
    old spelling cli.md keeps only for compatibility (hidden from --help): they say `--scope user`."""
    import re
    from pathlib import Path

    from tacit import cli
    from tacit.handlers.context import GUIDANCE_CLI

    starter = Path(__file__).parents[2] / "skills_template" / "starters" / "saving-memories" / "SKILL.md"
    parser = cli.build_parser()
    checked = 0
    for text in (GUIDANCE_CLI, starter.read_text(encoding="utf-8")):
        for snippet in re.findall(r"`tacit ([^`]+)`", text):
            words = snippet.split()
            path, shown = _visible_options(parser, words)
            for word in words[len(path):]:
                if word.startswith("--"):
                    checked += 1
                    assert word in shown, (snippet, word, sorted(shown))
    assert checked >= 4, checked
