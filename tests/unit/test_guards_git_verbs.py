"""Git rules said with verbs, a noun phrase or one flag (tacit.guards.git_verbs):
derived from rule lines and lessons, and what their guards stop (docs/guards.md)."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.instructions import rules_in
from tacit.guards.model import CommandMatch, CommitMatch, PushMatch

PULL = CommandMatch(("git",), ("pull",), (), True)
STASH = CommandMatch(("git",), ("stash",), (), True)
AMEND = CommandMatch(("git",), ("commit",), ("--amend",), True)


@pytest.mark.parametrize("text, matches", [
    ("Never push or pull.", [PushMatch(), PULL]),
    ("Claude will NEVER push or pull to/from GitHub. You always push and pull yourself.", [PushMatch(), PULL]),
    ("never stash changes", [STASH]),
    ("Never pull, please", [PULL]),
    ("Direct pushes to main are forbidden.", [PushMatch(("main",))]),
    ("- **ALWAYS create a Pull Request** - direct pushes to `main` are forbidden", [PushMatch(("main",))]),
    ("Committing directly to `main` is not allowed.", [CommitMatch(("main",))]),
    ("Never use `--amend`.", [AMEND]),
    ("don't pass --force-with-lease", [PushMatch(force_only=True)]),
    ("Never use --force with git push.", [PushMatch(force_only=True)]),
    ("never use --watch with vitest", [CommandMatch(("vitest",), (), ("--watch",), True)]),
    ("We will never run `npm publish`.", [CommandMatch(("npm",), ("publish",), (), True)]),
])
def test_derived(text, matches):
    assert [s.match for s in derive_guards(text)] == matches


@pytest.mark.parametrize("text", [
    "never push or pull unless I ask",  # an exception vetoes
    "Do not push, pull, or rebase unless explicitly requested.",
    "don't pass `--force`",  # a flag of many commands: no one shape
    "never use --verbose with the logger",  # not a program's command
    "pushes to main are reviewed by the team",  # a description, not a rule
    "never pull the plug on a running migration",  # "pull" with an object that is not work
    "direct pushes to production are forbidden",  # not certainly a branch
])
def test_not_derived(text):
    assert derive_guards(text) == ()


def _stops(text, command, branch=None):
    specs = [r.spec for r in rules_in(text, "AGENTS.md")]
    assert specs, text
    guards = GuardSet([Guard(s, i, "project", "/repo", "AGENTS.md") for i, s in enumerate(specs)])
    return bool(guards.check(normalize_call("Bash", {"command": command}, "/repo", project_root="/repo",
                                            branch=branch)))


@pytest.mark.parametrize("text, command, branch, stopped", [
    ("Never push or pull.", "git pull --rebase origin main", None, True),
    ("Never push or pull.", "git push -u origin feature/x", None, True),
    ("Never push or pull.", "git fetch origin", None, False),
    ("Never push or pull.", "git commit -m 'pull request template'", None, False),
    ("never stash changes", "git stash push -m wip", None, True),
    ("never stash changes", "git status", None, False),
    ("Direct pushes to main are forbidden.", "git push origin main", None, True),
    ("Direct pushes to main are forbidden.", "git push origin feature/cache", None, False),
    ("Never use `--amend`.", "git commit --amend --no-edit", None, True),
    ("Never use `--amend`.", "git commit -m 'fix'", None, False),
    ("never use --watch with vitest", "vitest --watch", None, True),
    ("never use --watch with vitest", "vitest run", None, False),
])
def test_what_the_guards_stop(text, command, branch, stopped):
    assert _stops(text, command, branch) is stopped
