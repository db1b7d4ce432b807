"""The "git rebase onto main" shape: derived from rule lines, matched argv-aware
(docs/guards.md, "What a guard matches")."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.patterns import spec_from_pattern
from tacit.guards.model import CommandMatch, GuardSpec, RebaseMatch
from tacit.guards.rebase import rebase_base


@pytest.mark.parametrize("text, match", [
    ("Never rebase onto main", RebaseMatch(("main",))),
    ("don't rebase on top of `develop`; merge it instead", RebaseMatch(("develop",))),
    ("Never rebase against main or master", RebaseMatch(("main", "master"))),
    ("Never run `git rebase main`", RebaseMatch(("main",))),
    ("**NEVER** `git rebase origin/main` \u2014 we merge main in", RebaseMatch(("main",))),
    ("Never rebase", CommandMatch(("git",), ("rebase",), (), True)),
])
def test_rebase_rules(text, match):
    assert [s.match for s in derive_guards(text)] == [match]


@pytest.mark.parametrize("text", [
    "never rebase main",  # rewriting main itself, not rebasing onto it
    "never rebase onto prod",  # not certainly a branch
    "never rebase onto main unless asked",
    "never rebase onto the upstream remote",
])
def test_rebase_rules_that_stay_memories(text):
    assert [s.match for s in derive_guards(text)] == []


@pytest.mark.parametrize("argv, base", [
    (("git", "rebase", "main"), "main"),
    (("git", "rebase", "-i", "origin/main"), "origin/main"),
    (("git", "-C", "sub", "rebase", "main", "feature"), "main"),
    (("git", "rebase", "--onto", "main", "old", "feature"), "main"),
    (("git", "rebase", "--onto=main", "old"), "main"),
    (("git", "rebase", "-X", "theirs", "main"), "main"),
    (("git", "rebase", "--continue"), None),
    (("git", "rebase"), None),
    (("git", "pull", "--rebase", "origin", "main"), None),
    (("git", "log", "rebase", "main"), None),
])
def test_rebase_base(argv, base):
    assert rebase_base(argv) == base


def _fires(spec: GuardSpec, command: str, remotes=None) -> bool:
    guards = GuardSet([Guard(spec, id=1, scope="project", project_root="/r")])
    return bool(guards.check(normalize_call("Bash", {"command": command}, "/r", project_root="/r", remotes=remotes)))


def test_rebase_onto_main_is_stopped_argv_aware():
    spec = derive_guards("Never rebase onto main; merge main into your branch")[0]
    for command in ("git rebase main", "git rebase origin/main", "git rebase -i upstream/main",
                    "git fetch && git rebase --onto main HEAD~3", "cd /r/sub && git rebase refs/heads/main"):
        assert _fires(spec, command), command
    for command in ("git pull --rebase", "git pull --rebase origin main", "git rebase develop",
                    "git rebase --continue", "git rebase", "git merge main", "echo git rebase main",
                    "git rebase origin/maintenance", "git rebase -i HEAD~3"):
        assert not _fires(spec, command), command
    assert _fires(spec, "git rebase fork/main", remotes={"fork"})  # a remote the project has
    assert not _fires(spec, "git rebase fork/main", remotes={"origin"})


def test_rebase_guard_round_trips_and_can_be_added_by_hand():
    spec = spec_from_pattern("git rebase main", "we merge, never rebase onto main")
    assert spec is not None and spec.match == RebaseMatch(("main",))
    assert GuardSpec.from_dict(spec.to_dict()) == spec
