"""Readings from a sweep of real instruction files tacit had not seen: a kind of folder is no folder
name, a path edit said "as part of" something is a case of it, a command in a parenthesised "do not
run", "raw" before a quoted command, and an unknown program's command line named by its act."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.instructions import rules_in
from tacit.guards.model import CommandMatch

ROOT = "/r"


def _check(specs, command: str | None = None, edit: str | None = None) -> bool:
    guards = GuardSet([Guard(spec, id=i, scope="project", project_root=ROOT) for i, spec in enumerate(specs)])
    call = normalize_call("Bash", {"command": command}, ROOT, project_root=ROOT) if command is not None else \
        normalize_call("Edit", {"file_path": f"{ROOT}/{edit}"}, ROOT, project_root=ROOT)
    return bool(guards.check(call))


@pytest.mark.parametrize("rule", [
    "**NEVER write to system directories** - stay within the project directory",
    "never edit files in the root directory",
    "don't touch other folders",
    # a case of the edit the matcher cannot see
    "Modify `content/docs/08-migration-guides` or `packages/codemod` as part of broader codebase changes",
    "never edit `dist/` as part of a feature change",
])
def test_no_guard(rule):
    assert derive_guards(rule if rule[0].islower() or rule.startswith("**") else f"never {rule}") == ()


def test_the_as_part_of_line_under_a_do_not_heading_gives_no_guard():
    text = ("## Do Not\n\n- Modify `content/docs/08-migration-guides` or `packages/codemod` as part of "
            "broader codebase changes\n")
    assert rules_in(text) == []


@pytest.mark.parametrize("rule, edit", [
    ("never write to build directories", "build/out.js"),  # a folder's own name stays one
    ("never touch the dist folder", "dist/index.js"),
    ("never edit the `system/` folder", "system/a.conf"),  # quoted: a name
])
def test_a_named_folder_still_guards(rule, edit):
    assert _check(derive_guards(rule), edit=edit)


@pytest.mark.parametrize("rule, stopped, fine", [
    ("Use `pnpm demo:ppg` (do not run `bun --watch demo/ppg-dev/server.ts`).",
     ["bun --watch demo/ppg-dev/server.ts"], ["pnpm demo:ppg", "bun test"]),
    ("Always use the Makefile for development tasks. Never run raw `go test`, `go vet`, or `bun` commands directly.",
     ["go test ./...", "go vet ./...", "bun install"], ["make test", "go build ./..."]),
    ("Never run raw `docker` commands, use the make targets.", ["docker compose up"], ["make up"]),
    ("**NEVER use `hyprctl plugin load`** - the user manages plugin loading themselves",
     ["hyprctl plugin load ./x.so"], ["hyprctl plugin list", "hyprctl reload"]),
    ("**NEVER use `hyprpm update`** - this pulls from GitHub, not local changes",
     ["hyprpm update"], ["hyprpm list"]),
])
def test_stops(rule, stopped, fine):
    specs = [r.spec for r in rules_in(rule)]  # as a line of an instruction file
    assert specs, rule
    for call in stopped:
        assert _check(specs, call), call
    for call in fine:
        assert not _check(specs, call), call


@pytest.mark.parametrize("rule", [
    "no `const enum`", "Do not use `new Date`", "never use `foo bar`",  # code, not a command line
    "Never use raw SQL",  # no quoted command after "raw"
    "Use `make test` (don't run `go test` unless debugging).",  # the exception still vetoes
])
def test_still_nothing(rule):
    assert derive_guards(rule) == ()


def test_the_parenthesised_refusal_keeps_the_aside_edit_reading():
    assert [s.match.patterns for s in derive_guards("`src/gen/api.ts` (do not edit)")] == [("src/gen/api.ts",)]


def test_an_unknown_program_is_read_only_with_an_act_word():
    (spec,) = derive_guards("never use `hyprpm update`")
    assert spec.match == CommandMatch(("hyprpm",), ("update",), (), True)


@pytest.mark.parametrize("rule, stopped, fine", [
    ("CRITICAL : NEVER make ANY CHANGES to `tsx` files. NEVER.", ["src/App.tsx"], ["src/app.ts", "README.md"]),
    ("never touch `json` files", ["package.json"], ["index.js"]),
])
def test_an_extension_said_without_its_dot(rule, stopped, fine):
    specs = derive_guards(rule)
    for path in stopped:
        assert _check(specs, edit=path), path
    for path in fine:
        assert not _check(specs, edit=path), path


@pytest.mark.parametrize("rule", ["never edit `lock` files", "never edit `test` files", "never edit tsx files"])
def test_no_extension_guard(rule):
    assert derive_guards(rule) == ()


@pytest.mark.parametrize("rule, stopped, fine", [
    # "when running commands": every command the agent runs, no case of the rule
    ("Assume CWD is correct: When running commands, do not use directory-changing flags like `git -C` or "
     "`pnpm --filter`. The current working directory is already the project root.",
     ["git -C sub status", "pnpm --filter web test"], ["git status", "pnpm test"]),
    # "NO <an act>: `a`, `b`": the commands listed are the act's
    ("- **NO history modification**: `git reset --hard`, `git rebase`, `git rebase -i`",
     ["git reset --hard HEAD~1", "git rebase main", "git rebase -i HEAD~3"], ["git reset HEAD file.txt", "git log"]),
    # "ensure X is used (not Y)": "use X, not Y"
    ("- Ensure pnpm is used (not npm/yarn)", ["npm install", "yarn add left-pad"], ["pnpm install"]),
])
def test_stops_more(rule, stopped, fine):
    test_stops(rule, stopped, fine)


@pytest.mark.parametrize("rule", [
    "When running commands in CI, never use sudo",  # a place the matcher cannot see still vetoes
    "No warnings: `pnpm lint`", "No setup needed: `make dev`",  # a label that names no act
    "No history modification: `git rebase` is fine",  # more than the commands after the colon
    "Ensure the lockfile is used",
])
def test_still_nothing_more(rule):
    assert [r for r in rules_in(rule)] == []


@pytest.mark.parametrize("rule, stopped, fine", [
    # a known program that is no tool family, unquoted before "commands"; "execute" as "run"
    ("Never execute git commands: Do NOT execute git commands.", ["git status", "git commit -m x"], ["ls"]),
    ("never run cargo commands", ["cargo build"], ["make build"]),
])
def test_program_commands(rule, stopped, fine):
    test_stops(rule, stopped, fine)
