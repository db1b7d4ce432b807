"""Reading rules for forms people write that derived nothing (or a dead guard): a reply
is a comment, "request changes" is a review verdict, "rely on / attempt `CMD`" runs it,
"`tsc` directly or via `npx tsc`" is one program, a trailer's name keeps its colon, a line
that opens with several paths (or `dir/{a,b}/...`) names them all for "never edit these",
and "no git submodules" is no `git submodules` command. Each: what is stopped, what passes."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.model import CommandMatch, PathMatch, PushMatch

ROOT = "/home/u/proj"


def guard_set(text: str) -> GuardSet:
    specs = derive_guards(text)
    assert specs, f"no guard from {text!r}"
    return GuardSet([Guard(s, i + 1, "project", ROOT, f"lesson:{i + 1}") for i, s in enumerate(specs)])


def stops(gs: GuardSet, tool: str, args: dict) -> bool:
    return bool(gs.check(normalize_call(tool, args, ROOT, project_root=ROOT)))


def bash(gs: GuardSet, command: str) -> bool:
    return stops(gs, "Bash", {"command": command})


@pytest.mark.parametrize("text", ["Never reply to an issue.", "please don't respond to issues",
                                  "never reply to PRs or issues"])
def test_a_reply_is_a_comment(text):
    gs = guard_set(text)
    assert bash(gs, 'gh issue comment 12 --body "I can reproduce this"')
    assert not bash(gs, "gh issue view 12 --comments")
    assert not bash(gs, 'gh issue create --title "x" --body "y"')


def test_request_changes_is_a_review_verdict_like_approve():
    gs = guard_set("Do not approve or request changes on any pull request.")
    assert bash(gs, "gh pr review 7 --approve")
    assert bash(gs, 'gh pr review 7 --request-changes --body "add a test"')
    assert bash(gs, 'gh pr review 7 -r -b "add a test"')
    assert not bash(gs, 'gh pr review 7 --comment --body "looks fine to me"')
    assert not bash(gs, "gh pr view 7")
    assert not bash(gs, "gh pr diff 7")


def test_a_reason_stated_as_a_fact_after_a_comma_is_no_part_of_the_rule():
    specs = derive_guards("don't approve pull requests, reviews here are for humans only")
    assert [s.match for s in specs] == [CommandMatch(("gh",), ("pr", "review"), ("--approve",), True)]
    assert derive_guards("never use npm, docs are fine") == ()  # a limit, not a reason


@pytest.mark.parametrize("verb", ["rely on", "attempt", "resort to", "fall back to"])
def test_relying_on_or_attempting_a_quoted_command_runs_it(verb):
    gs = guard_set(f"Do not {verb} `python3 -m ruff check .`.")
    assert bash(gs, "python3 -m ruff check .")
    assert not bash(gs, "make lint-py")
    assert not bash(gs, ".venv/bin/python -m ruff check .")


def test_relying_on_a_quoted_code_name_is_no_command():
    assert derive_guards("Do not rely on `process.env` in handlers.") == ()
    assert derive_guards("Never rely on `T.untyped`.") == ()


def test_a_program_directly_or_through_a_package_runner_is_one_program():
    gs = guard_set("Don't use `tsc` directly or via `npx tsc`, always use `yarn build`.")
    assert [g.spec.match.programs for g in gs.guards] == [("tsc",)]
    assert bash(gs, "tsc --noEmit")
    assert bash(gs, "npx tsc -p packages/core/tsconfig.json")
    assert not bash(gs, "yarn build")
    assert not bash(gs, "cd packages/core && yarn build")


def test_a_trailer_name_keeps_its_colon():
    gs = guard_set("never add a Co-authored-by: trailer to commits")
    assert bash(gs, 'git commit -m "fix" --trailer "Co-authored-by: Claude <noreply@anthropic.com>"')
    assert not bash(gs, 'git commit -m "fix" --trailer "Assisted-by: Claude"')
    assert not bash(gs, 'git commit -m "fix"')


def test_a_line_opening_with_several_paths_protects_each():
    gs = guard_set("- `gen/async_api.py`, `gen/sync_api.py` \u2014 **auto-generated**. Never edit by hand; "
                   "rerun `./scripts/update_api.sh` after changing the source.")
    assert stops(gs, "Edit", {"file_path": f"{ROOT}/gen/async_api.py"})
    assert stops(gs, "Write", {"file_path": f"{ROOT}/gen/sync_api.py"})
    assert bash(gs, "sed -i 's/a/b/' gen/sync_api.py")
    assert not stops(gs, "Read", {"file_path": f"{ROOT}/gen/sync_api.py"})
    assert not stops(gs, "Edit", {"file_path": f"{ROOT}/src/api.py"})
    assert not bash(gs, "./scripts/update_api.sh")


def test_a_braced_folder_list_and_dots_name_each_folder_below():
    text = ("- `vendor_libs/{windows,linux}/...` \u2014 prebuilt binaries (shipped separately). "
            "**NEVER hand-edit these.**")
    assert [s.match for s in derive_guards(text)] == [PathMatch(("vendor_libs/linux/", "vendor_libs/windows/"))]
    gs = guard_set(text)
    assert stops(gs, "Write", {"file_path": f"{ROOT}/vendor_libs/linux/x86_64/libfoo.so"})
    assert bash(gs, "rm vendor_libs/windows/foo.dll")
    assert not stops(gs, "Edit", {"file_path": f"{ROOT}/vendor_libs/README.md"})
    assert not bash(gs, "ls vendor_libs/windows")


def test_several_opening_names_that_are_not_all_paths_name_nothing():
    assert derive_guards("`pnpm`, `yarn` \u2014 package managers, never edit these") == ()
    assert derive_guards("- `setup.py` / `pyproject.toml` \u2014 packaging and wheel tagging.") == ()


@pytest.mark.parametrize("text", ["- **No git submodules**: the library is built by a crate.",
                                  "never use git hooks", "No git worktrees here",
                                  "never use git branches"])
def test_git_with_a_word_that_is_no_git_command_is_no_command_guard(text):
    assert not [s for s in derive_guards(text) if isinstance(s.match, CommandMatch)
                and s.match.programs == ("git",)]


def test_git_commands_and_quoted_aliases_stay():
    assert [s.match.subcommands for s in derive_guards("no git stash")] == [("stash",)]
    assert [s.match.subcommands for s in derive_guards("never use `git co`")] == [("co",)]
    assert [s.match.subcommands for s in derive_guards("never use git lfs")] == [("lfs",)]
    assert [s.match.subcommands for s in derive_guards("never use git absorb")] == [("absorb",)]  # maybe installed


def test_publishing_only_through_a_script_stops_the_registry_publish_command():
    gs = guard_set("- Publish from `main` only through `./scripts/publish-npm.sh`.")
    assert bash(gs, "npm publish")
    assert bash(gs, "pnpm publish --access public")
    assert not bash(gs, "./scripts/publish-npm.sh")
    assert not bash(gs, "npm pack --dry-run")
    assert not bash(gs, "cargo publish")  # the script names the registry


def test_publishing_only_through_an_unnamed_registry_script_stops_every_registry():
    gs = guard_set("always publish via `make release`")
    assert bash(gs, "npm publish") and bash(gs, "cargo publish") and bash(gs, "twine upload dist/*")
    assert not bash(gs, "make release")
    assert not bash(gs, "cargo build --release")


@pytest.mark.parametrize("text", ["publish through `make release`",  # no "only" or "always": a how-to
                                  "publish only through `npm publish --provenance`",  # one publisher allowed
                                  "publish only with `make release` for hotfixes"])
def test_a_publish_how_to_without_only_or_naming_a_publisher_is_no_guard(text):
    assert derive_guards(text) == ()


def test_a_line_opening_with_a_path_that_contains_things_is_its_subject():
    gs = guard_set("`vendor_py/_bindings/` contains vendored upstream bindings. These are excluded from the linters. "
                   "Do not modify, refactor, or lint them.")
    assert [g.spec.match for g in gs.guards] == [PathMatch(("vendor_py/_bindings/",))]
    assert stops(gs, "Edit", {"file_path": f"{ROOT}/vendor_py/_bindings/cindex.py"})
    assert not stops(gs, "Read", {"file_path": f"{ROOT}/vendor_py/_bindings/cindex.py"})
    assert not stops(gs, "Edit", {"file_path": f"{ROOT}/vendor_py/backends/clang.py"})
    assert not bash(gs, "ruff check vendor_py/")


def test_refactoring_alone_is_no_edit_rule_and_a_described_path_leaves_other_rules_alone():
    assert derive_guards("`pkg/` contains the library. Don't refactor it") == ()
    assert [s.match.programs for s in derive_guards("`src/` contains the code. Don't run npm")] == [("npm",)]


@pytest.mark.parametrize("tail", [", make a branch and open a PR", ", create a new feature branch", ", cut a branch"])
def test_the_way_to_do_it_instead_after_a_comma_is_an_order_of_its_own(tail):
    specs = derive_guards(f"never push directly to main{tail}")
    assert [s.match for s in specs] == [PushMatch(("main",))]
    assert derive_guards(f"never push directly to main{tail} unless I say otherwise") == ()


@pytest.mark.parametrize("text", ["`src/` contains the sources and generated code. Do not edit generated files.",
                                  "`api/` contains generated clients. Never hand-edit generated code.",
                                  "`src/` contains sources and generated files. Do not edit them."])
def test_a_folder_that_contains_several_things_is_not_what_an_edit_rule_protects(text):
    assert derive_guards(text) == ()


def test_several_opening_paths_and_a_singular_pronoun_name_nothing():
    assert derive_guards("- `tests/`, `fixtures/` \u2014 test data; don't touch it") == ()
    assert [s.match for s in derive_guards("- `tests/`, `fixtures/` \u2014 test data; don't touch them")] == [
        PathMatch(("fixtures/", "tests/"))]
