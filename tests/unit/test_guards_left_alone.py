"""Three small readings the last round noticed and left: a ``git checkout``
word is a path or a ref by one test for both the edit reading and the branch
a command line is on (``v1.2.3`` is a tag, ``src/a.ts`` a file); a bare
``npm``/``pnpm version`` only prints (a bump needs its argument; yarn's bare
form asks and bumps); a backup of a protected file (``.prettierrc.bak``) is
another file, unless the rule's own glob covers it."""

from __future__ import annotations

import pytest

from tacit.guards import GuardSet, derive_guards, normalize_call
from tacit.guards.model import Guard
from tacit.guards.push import SAME, switched_branch
from tacit.guards.shell import scan
from tacit.guards.writes import checkout_path

ROOT = "/repo"


def hits(lesson: str, tool: str, args: dict, **where) -> list[str]:
    guard_set = GuardSet([Guard(spec, i, "project", ROOT, "lesson") for i, spec in enumerate(derive_guards(lesson))])
    return [hit.subject for hit in guard_set.check(normalize_call(tool, args, ROOT, project_root=ROOT, **where))]


def bash(lesson: str, command: str, **where) -> list[str]:
    return hits(lesson, "Bash", {"command": command}, **where)


# ---------------------------------------------------------------------------
# 1. a git checkout word: a path or a ref, decided once
# ---------------------------------------------------------------------------
REFS = ["v1.2.3", "release-1.0", "1.x", "feature/x", "release/1.0", "main", "HEAD~1", "Makefile"]
PATHS = [".", "./x", "../y", "src/a.ts", "app.py", ".env", "src/.eslintrc", "src/*", "*.ts", ":/docs"]


@pytest.mark.parametrize("word", PATHS)
def test_a_path_shaped_checkout_word_is_a_path_in_both_readings(word):
    assert checkout_path(word)
    assert switched_branch(("git", "checkout", word)) is SAME  # restores, switches nothing
    assert [w.path for w in scan(f"git checkout {word}", ROOT).writes]  # and is an edit


@pytest.mark.parametrize("word", REFS)
def test_any_other_checkout_word_is_a_ref_in_both_readings(word):
    assert not checkout_path(word)
    assert switched_branch(("git", "checkout", word)) == word  # switches
    assert not scan(f"git checkout {word}", ROOT).writes  # and edits nothing


def test_after_the_separator_every_word_is_a_path():
    assert switched_branch(("git", "checkout", "--", "v1.2.3")) is SAME
    assert [w.path for w in scan("git checkout -- v1.2.3", ROOT).writes] == [f"{ROOT}/v1.2.3"]
    assert switched_branch(("git", "checkout", "v1.2.3", "--", "a")) is SAME


@pytest.mark.parametrize("command", ["git checkout v1.2.3 && git commit -m x",
                                     "git checkout release-1.0 && git commit -m x"])
def test_checking_out_a_dotted_ref_leaves_the_guarded_branch(command):
    assert bash("never commit directly to main", command, branch="main") == []
    assert bash("never push to main", command.replace("git commit -m x", "git push origin HEAD"), branch="main",
                remotes={"origin"}) == []


@pytest.mark.parametrize("command", ["git checkout src/a.ts && git commit -m x",
                                     "git checkout -- v1.2.3 && git commit -m x", "git commit -m x"])
def test_restoring_a_file_stays_on_the_guarded_branch(command):
    assert bash("never commit directly to main", command, branch="main") == ["git commit -m x"]


def test_a_dotted_ref_is_no_edit_and_a_file_still_is():
    assert bash("never edit `src/a.ts`", "git checkout v1.2.3") == []
    assert bash("never edit `src/a.ts`", "git checkout src/a.ts")


# ---------------------------------------------------------------------------
# 2. npm/pnpm version: bare prints, an argument bumps; yarn's bare form bumps
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["npm version", "npm version --json", "pnpm version", "pnpm version --json",
                                     "npm version --preid rc", "npm --prefix web version", "pnpm -r version"])
def test_a_bare_version_only_prints(command):
    assert bash(f"never run `{command.split()[0]} version`", command) == []


@pytest.mark.parametrize("command", ["npm version patch", "npm version major", "npm version minor --json",
                                     "npm version prerelease --preid rc", "npm version from-git", "npm version 1.2.3",
                                     "pnpm version patch", "pnpm version premajor", "pnpm version 2.0.0-rc.1"])
def test_a_version_bump_is_still_stopped(command):
    assert bash(f"never run `{command.split()[0]} version`", command) == [command]


def test_the_pnpm_rule_line_of_a_real_file_still_stops_the_bump_only():
    lesson = "never run pnpm version, pnpm release, pnpm publish:beta or pnpm release:production"
    assert bash(lesson, "pnpm version patch") and bash(lesson, "pnpm release")
    assert not bash(lesson, "pnpm version") and not bash(lesson, "pnpm build")


@pytest.mark.parametrize("command", ["yarn version", "yarn version --new-version 1.2.3", "yarn version --patch"])
def test_yarn_version_is_stopped_bare_too(command):  # v1's bare form asks for the new version and bumps
    assert bash("never run `yarn version`", command) == [command]


def test_other_commands_than_version_keep_their_reading():
    assert bash("use pnpm, not npm", "npm version")  # every npm command stays stopped
    assert bash("never run `npm version patch`", "npm version patch")
    assert not bash("never run `npm version patch`", "npm version minor")
    assert not bash("never run `npm version`", "npm --version")


# ---------------------------------------------------------------------------
# 3. a backup of a protected file is another file
# ---------------------------------------------------------------------------
BACKUPS = [".prettierrc.bak", ".prettierrc.orig", ".prettierrc.old", ".prettierrc.swp", ".prettierrc~",
           ".prettierrc.json.bak", ".prettierrc.json~", "web/.prettierrc.bak"]


def edit(lesson: str, path: str) -> list[str]:
    return hits(lesson, "Edit", {"file_path": f"{ROOT}/{path}", "old_string": "a", "new_string": "b"})


@pytest.mark.parametrize("path", BACKUPS)
def test_a_backup_is_not_stopped_by_a_guard_on_the_original(path):
    assert edit("never edit `.prettierrc`", path) == []
    assert bash("never edit `.prettierrc`", f"cp .prettierrc {path}") == []


@pytest.mark.parametrize("path", [".prettierrc", ".prettierrc.json", ".prettierrc.yaml", ".prettierrc.cjs",
                                  "web/.prettierrc.json"])
def test_the_file_and_its_config_variants_stay_stopped(path):
    assert edit("never edit `.prettierrc`", path)
    assert bash("never edit `.prettierrc`", f"echo x > {path}")


def test_moving_the_original_to_a_backup_still_changes_the_original():
    assert bash("never edit `.prettierrc`", "mv .prettierrc .prettierrc.bak")


@pytest.mark.parametrize("lesson, path", [("never edit `.prettierrc.*`", ".prettierrc.bak"),
                                          ("never edit `*.bak`", ".prettierrc.bak"),
                                          ("never edit `.prettierrc*`", ".prettierrc~"),
                                          ("never edit `.prettierrc.bak`", ".prettierrc.bak")])
def test_a_glob_or_name_the_rule_writes_itself_covers_the_backup(lesson, path):
    assert edit(lesson, path)


def test_other_protected_names_keep_their_reading():
    assert edit("never edit `Cargo.lock`", "Cargo.lock") and not edit("never edit `Cargo.lock`", "Cargo.lock.bak")
    assert edit("never edit `.env`", ".env.local") and not edit("never edit `.env`", ".env.bak")


@pytest.mark.parametrize("argv, branch", [
    (("git", "checkout", "-t", "origin/main"), "main"),
    (("git", "checkout", "--track", "origin/release/1.0"), "release/1.0"),
    (("git", "switch", "--track=direct", "upstream/main"), "main"),
    (("git", "checkout", "-b", "mine", "-t", "origin/main"), "mine"),  # -b names the branch
    (("git", "checkout", "origin/main"), "origin/main"),  # no tracking: a detached remote ref
])
def test_tracking_a_remote_branch_switches_to_its_local_name(argv, branch):
    assert switched_branch(argv) == branch


def test_a_commit_after_tracking_main_is_a_commit_on_main():
    command = "git checkout -t origin/main && git commit -m x"
    assert bash("never commit directly to main", command, branch="feature") == ["git commit -m x"]
    assert bash("never commit directly to main", "git checkout -t origin/dev && git commit -m x", branch="main") == []
