"""Readings of the tenth corpus round: "use only X, not Y", comments and pull requests on GitHub,
a reason clause with an article-led subject, generated artifacts named by their kind, and a
"system" program the span reader leaves unread."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.instructions import read_text

ROOT = "/r"


def _set(specs) -> GuardSet:
    return GuardSet([Guard(spec, id=i, scope="project", project_root=ROOT) for i, spec in enumerate(specs)])


def stops(rule: str, command: str | None = None, *, edit: str | None = None) -> bool:
    specs = derive_guards(rule)
    assert specs, rule
    call = normalize_call("Bash", {"command": command}, ROOT, project_root=ROOT) if command is not None else \
        normalize_call("Edit", {"file_path": f"{ROOT}/{edit}"}, ROOT, project_root=ROOT)
    return bool(_set(specs).check(call))


def holds(rule: str, stopped: list, fine: list, *, edits: bool = False) -> None:
    """Every call in ``stopped`` is stopped by the rule's guards, none in ``fine`` (edits: paths)."""
    for call in stopped:
        assert stops(rule, edit=call) if edits else stops(rule, call), call
    for call in fine:
        assert not (stops(rule, edit=call) if edits else stops(rule, call)), call


@pytest.mark.parametrize("rule, stopped, fine", [
    # "only" after the verb, as before it
    ("use only pnpm, not npm or yarn", ["npm install", "yarn add -D vitest"], ["pnpm i", "pnpm add -D vitest"]),
    ("use only pnpm as the package manager, not npm", ["npm i -D @types/node"], ["pnpm install"]),
    ("we use only uv, never pip", ["pip install requests"], ["uv pip install requests", "uv sync"]),
    # GitHub stands for its pull requests and issues
    ("never post comments on GitHub", ["gh pr comment 12 --body x", "gh issue comment 3 --body y"],
     ["gh pr view 12", "gh issue view 3", "gh pr create --fill"]),
    ("never open pull requests or post comments on GitHub",
     ["gh pr create --fill", "gh pr comment 12 --body x", "gh issue comment 3 --body y"], ["gh pr view 12", "gh pr diff 12"]),
    ("never open issues or review pull requests", ["gh issue create --title t", "gh pr review 4 --approve"], ["gh issue list"]),
    # ", a maintainer merges PRs": who does it is the reason, not a second order
    ("never push to main, a maintainer merges PRs", ["git push origin main"], ["git push origin fix/x"]),
    ("never open pull requests or post comments on GitHub, a human reviews the changes and writes the PR",
     ["gh pr create --fill", "gh issue comment 3 --body y"], ["gh pr view 12"]),
])
def test_round10_readings_stop_their_violations_and_let_close_calls_run(rule, stopped, fine):
    holds(rule, stopped, fine)


@pytest.mark.parametrize("rule, stopped, fine", [
    ("don't hand-edit the generated interfaces in src/Api/Generated/", ["src/Api/Generated/IPage.cs"],
     ["src/Api/Core/Page.cs"]),
    ("never edit the generated models in `src/models/`", ["src/models/user.py"], ["src/views/user.py"]),
    ("do not modify the client classes under gen/", ["gen/Client.java"], ["src/Client.java"]),
])
def test_generated_artifacts_named_by_their_kind(rule, stopped, fine):
    holds(rule, stopped, fine, edits=True)


@pytest.mark.parametrize("text", [
    "use only pnpm, not npm unless I say otherwise",
    "never post comments on GitHub without asking",
    "don't hand-edit the generated interfaces in src/Api/Generated/ for now",
])
def test_an_exception_still_vetoes(text):
    assert not derive_guards(text)


def test_a_system_program_is_not_read_from_its_span():
    """"never run system `ruff`": the one installed on the machine, not the pinned one run through a
    wrapper (`uvx ruff@0.6`, `pre-commit run ruff`), which the check cannot tell apart by name."""
    assert read_text("- never run system `ruff`/`mypy`.", "AGENTS.md")[0] == []
    assert read_text("- never run `ruff`.", "AGENTS.md")[0]


@pytest.mark.parametrize("rule, stopped, fine", [
    ("don't commit build artifacts like *.dll, *.pdb, bin/ or obj/",
     ["git add -f bin/x64/Debug/wsl.dll", "git add --force obj/Release/a.pdb"], ["git add src/main.cpp", "git status"]),
    # the first example is one of the paths too, not part of the kind's name
    ("never commit build artifacts such as `*.so`, `*.dll` or `dist/`", ["git add -f build/x.so", "git add dist/app.js"],
     ["git add setup.py"]),
])
def test_a_kind_named_with_examples_is_the_examples(rule, stopped, fine):
    holds(rule, stopped, fine)


@pytest.mark.parametrize("rule, stopped, fine", [
    # a version bumped in a manifest: an edit of that file
    ("do not manually increment the `version` field in `package.json`", ["package.json"], ["src/extension.ts", "CHANGELOG.md"]),
    ("never bump the version in packages/core/package.json", ["packages/core/package.json"], ["packages/core/src/a.ts"]),
    ("don't change the version number in `Cargo.toml` by hand", ["Cargo.toml"], ["src/lib.rs"]),
    # "make direct changes to" is an edit
    ("do not make direct changes to localization files inside the `l10n/` folder", ["l10n/bundle.l10n.de.json"],
     ["package.nls.json"]),
    ("never make manual edits to `dist/`", ["dist/index.js"], ["src/index.ts"]),
])
def test_a_version_bump_and_direct_changes_are_edits(rule, stopped, fine):
    holds(rule, stopped, fine, edits=True)


@pytest.mark.parametrize("text", [
    "don't bump the version of the package",  # which file, the rule does not say
    "never bump the version in package.json unless I ask",
])
def test_a_version_rule_without_a_file_or_with_an_exception_derives_nothing(text):
    assert not derive_guards(text)


@pytest.mark.parametrize("rule, stopped, fine", [
    # the command's own word as its purpose restates what it does; "but … instead" is the way, not a hedge
    ("NEVER use `npm run compile` to compile TypeScript files but call the build task instead", ["npm run compile"],
     ["npm run build", "npm run valid-layers-check"]),
    ("never use `cargo test` to test anything", ["cargo test -p core"], ["cargo build"]),
    ("never use npm but use pnpm instead", ["npm install"], ["pnpm install"]),
    ("never use `rm` to delete files", ["rm -rf build"], ["git rm --cached a.txt"]),
])
def test_a_purpose_the_command_names_and_a_way_after_but(rule, stopped, fine):
    holds(rule, stopped, fine)


@pytest.mark.parametrize("text", [
    "never use `rm` to delete temp files",  # a narrower object than the program's job
    "never use `npm run build` to build the docs",
    "never run tests but when asked",  # "but" that is no way instead stays a hedge
])
def test_a_narrower_purpose_or_a_bare_but_derives_nothing(text):
    assert not derive_guards(text)


@pytest.mark.parametrize("rule", [
    "never run git pull, git merge or git rebase, as it breaks history",
    "never run pnpm version, pnpm release or pnpm publish, as the build depends on it",
])
def test_a_listed_subcommand_is_not_read_as_a_subject_and_its_verb(rule):
    # ", git merge or …" is the next item of the list, not "git merges it" (a fact, a reason)
    for command in ("git merge dev", "git rebase main") if "git" in rule else ("pnpm release", "pnpm publish"):
        assert stops(rule, command), command


@pytest.mark.parametrize("rule, stopped, fine", [
    ("The release build depends on it, so run cargo test with --all-features",
     ["cargo test"], ["cargo test --all-features"]),
    ("The release build depends on it, so always use make commands instead of xcodebuild or swift",
     ["xcodebuild -scheme App"], ["make build"]),
])
def test_a_reason_first_then_so_and_the_rule(rule, stopped, fine):
    # "<reason>, so <rule>": the rule after "so" is read, "always" or "run" at its head too
    holds(rule, stopped, fine)
