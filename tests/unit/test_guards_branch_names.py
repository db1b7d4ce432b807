"""A branch-naming convention ("Use the branch naming convention `claude/<branch-name>`") stops a new
branch named otherwise (``git checkout -b``, ``git switch -c``, ``git branch NAME``, ``git worktree add -b``)
and passes the convention's names, switching and every other git command (argv-aware)."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, GuardSpec, derive_guards, normalize_call
from tacit.guards.branch_names import new_branch
from tacit.guards.instructions import rules_in
from tacit.guards.model import BranchNameMatch

ROOT = "/home/u/proj"


def stops(spec, command: str) -> bool:
    gs = GuardSet([Guard(spec, 1, "project", ROOT, "CLAUDE.md:6")])
    return bool(gs.check(normalize_call("Bash", {"command": command}, ROOT, project_root=ROOT)))


@pytest.mark.parametrize("text, allowed", [
    ("- Use the branch naming convention `claude/<branch-name>`.", ("claude/*",)),
    ("name branches claude/<branch-name>, not anything else", ("claude/*",)),
    ("Always name your branches `users/<alias>/<feature>`", ("users/*/*",)),
    ("Branch names must start with `feature/`", ("feature/*",)),
    ("prefix branches with `codex/`", ("codex/*",)),
])
def test_a_naming_convention_is_a_branch_name_guard(text, allowed):
    assert [s.match for s in derive_guards(text)] == [BranchNameMatch(allowed)]


@pytest.mark.parametrize("text", ["Use the branch naming convention `claude/<branch-name>` unless I say otherwise",
                                  "Use the branch naming convention `main`",  # a whole name, no convention
                                  "name branches after the issue they fix",
                                  "Use descriptive branch names (e.g., `feature/add-auth`, `fix/webhook-error`)"])
def test_no_guard_without_a_clear_convention_or_with_an_exception(text):
    assert not [s for s in derive_guards(text) if isinstance(s.match, BranchNameMatch)]


@pytest.mark.parametrize("command", ["git checkout -b fix-parser", "git switch -c feature/parser", "git branch fix-x",
                                     "git worktree add -b wt-x ../wt", "git checkout -B hotfix",
                                     "git checkout -b claude/x && git checkout -b y"])
def test_a_new_branch_named_otherwise_is_stopped(command):
    assert stops(GuardSpec(BranchNameMatch(("claude/*",)), "x"), command)


@pytest.mark.parametrize("command", ["git checkout -b claude/fix", "git switch -c claude/parser-errors",
                                     "git checkout main", "git switch feature/old", "git branch -d old",
                                     "git branch -D old", "git branch", "git branch --list 'f*'", "git branch -m a b",
                                     "git push origin main", "git checkout -- src/a.ts", "git branch --show-current"])
def test_the_convention_switching_and_other_branch_commands_pass(command):
    assert not stops(GuardSpec(BranchNameMatch(("claude/*",)), "x"), command)


def test_an_instruction_file_line_becomes_the_guard_with_its_source():
    rules = rules_in("# Git\n\n- Use the branch naming convention `claude/<branch-name>`.\n", "CLAUDE.md")
    assert [r.spec.match for r in rules] == [BranchNameMatch(("claude/*",))]
    assert "claude/*" in rules[0].spec.describe()


def test_the_guard_round_trips_through_its_stored_form():
    spec = GuardSpec(BranchNameMatch(("claude/*",)), "name branches claude/<x>")
    assert GuardSpec.from_dict(spec.to_dict()) == spec


def test_new_branch_reads_argv():
    assert new_branch(("git", "-C", "x", "checkout", "-b", "a")) == "a"
    assert new_branch(("git", "switch", "--create", "b")) == "b"
    assert new_branch(("git", "checkout", "a")) is None
