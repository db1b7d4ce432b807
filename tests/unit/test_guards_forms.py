"""General forms of rule lines (docs/guards.md, "Which lessons become guards"):
markdown links, "avoid `X`", verbless lists, "`X` is forbidden", "X commands",
"never install packages with X", "files such as `p`", passive edit rules and
an edit rule in parentheses — each with what it stops and what stays a memory."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.model import CommandMatch, CommitMatch, PathMatch, PushMatch

PIP = CommandMatch(("pip",), (), (), True)
NPM = CommandMatch(("npm",), (), (), True)
NPM_INSTALL = CommandMatch(("npm",), ("install",), (), True)


def matches(text: str) -> list:
    return [spec.match for spec in derive_guards(text)]


@pytest.mark.parametrize("text, expected", [
    # a markdown link reads as its text
    ("Use [uv](https://docs.astral.sh/uv/) instead of pip", [PIP]),
    ("- Always use [pnpm](https://pnpm.io), never npm", [NPM]),
    # "avoid" with a quoted object at the head of the rule
    ("Avoid `git push --force`", [PushMatch((), True)]),
    ("**Avoid** running `npm install` \u2014 it rewrites the lockfile", [NPM_INSTALL]),
    # a list of quoted commands with no verb
    ("Never `git push --force` or `git reset --hard`",
     [PushMatch((), True), CommandMatch(("git",), ("reset",), ("--hard",), True)]),
    # a quoted command, then the prohibition
    ("`npm publish` is not allowed", [CommandMatch(("npm",), ("publish",), (), True)]),
    ("`git push --force` is forbidden; open a PR", [PushMatch((), True)]),
    # known tools with no verb, and "X commands"
    ("Never npm", [NPM]),
    ("use uv, never pip or conda, the lockfile is uv's", [CommandMatch(("pip", "conda"), (), (), True)]),
    ("Never run `npm` commands", [NPM]),
    ("Do not use npm commands, use pnpm", [NPM]),
    # installing with a package manager
    ("Never install packages with npm", [NPM_INSTALL]),
    ("Do not use pip to install dependencies", [CommandMatch(("pip",), ("install",), (), True)]),
    # the examples a generic object names
    ("Do not edit generated files such as `src/gen/api.ts`", [PathMatch(("src/gen/api.ts",))]),
    ("Never modify generated code, e.g. `schema.graphql` or `api.d.ts`",
     [PathMatch(("schema.graphql", "api.d.ts"))]),
    # the passive voice
    ("`dist/` must not be edited", [PathMatch(("dist/",))]),
    ("Files in `src/generated/` are auto-generated and must not be edited", [PathMatch(("src/generated/",))]),
    ("`src/gen/types.ts` is generated and should never be modified by hand", [PathMatch(("src/gen/types.ts",))]),
    ("The `migrations/` folder must never be modified", [PathMatch(("migrations/",))]),
    # an edit rule in parentheses, about the line's one path
    ("- **API Surface**: Public APIs tracked in `src/*/api/*.cs` files (auto-generated, don't edit)",
     [PathMatch(("src/*/api/*.cs",))]),
    ("Regenerate `_types.py` after adding a setting (it is auto-generated \u2014 do not edit by hand):",
     [PathMatch(("_types.py",))]),
    ("**IMPORTANT**: `prefect.ts` is generated. Never edit this file directly.", [PathMatch(("prefect.ts",))]),
    ("don't create .eslintrc or .prettierrc files", [PathMatch((".eslintrc", ".eslintrc.*", ".prettierrc", ".prettierrc.*"))]),
    # a flag with a quoted command; a quoted command in the passive voice
    ("Do NOT use VSTest-style `--filter` with `dotnet test`",
     [CommandMatch(("dotnet",), ("test",), ("--filter",), True)]),
    ("Never pass `--no-verify` to `git commit`", [CommandMatch(("git",), ("commit",), ("--no-verify",), True)]),
    ("`npm install` must never be run", [NPM_INSTALL]),
    ("`git push --force` should not be used", [PushMatch((), True)]),
    # git push / commit quoted, then the branch
    ("Never `git push` to `main`", [PushMatch(("main",), False)]),
    ("NEVER commit to `main` or `master`", [CommitMatch(("main", "master"))]),
    # gh verbs beyond create
    ("Never merge PRs", [CommandMatch(("gh",), ("pr", "merge"), (), True)]),
    ("Don't close issues", [CommandMatch(("gh",), ("issue", "close"), (), True)]),
])
def test_general_forms(text, expected):
    assert matches(text) == expected, text


@pytest.mark.parametrize("text", [
    "avoid npm",  # a preference, not a rule
    "Try to avoid running `cargo clean`",
    "Avoid `hasattr` and `getattr`",  # not programs
    "Avoid `git push --force` unless a maintainer asks",
    "Tests must not be edited",  # no path
    "Code must never be changed",
    "Never make",  # an English word, not the tool
    "never just do it",
    "Never install packages with make",  # not a package manager
    "Do not edit generated files such as the API client",  # no path named
    "`any` is not allowed",  # a type, not a program
    "Use [the makefile](Makefile), not npm scripts",
    "Public APIs in `a.cs` and `b.cs` (auto-generated, don't edit)",  # two paths: which one?
    "`src/gen/` must not be edited unless you regenerate it",
    "Never commit `main`",  # a branch name is not a file
    "`any` must not be used",
    "Never merge issues",
    "Never manually edit `package.json` versions",  # a part of the file, not the file
    "Use `pnpm`; never edit manually",  # `pnpm` is no path
])
def test_stay_memories(text):
    assert matches(text) == [], text


def _stops(rule: str, tool: str, args: dict) -> bool:
    guards = GuardSet([Guard(spec, id=i, scope="project", project_root="/r")
                       for i, spec in enumerate(derive_guards(rule))])
    return bool(guards.check(normalize_call(tool, args, "/r", project_root="/r")))


def test_passive_edit_rule_stops_changes_not_reads():
    rule = "Files in `src/generated/` are auto-generated and must not be edited"
    assert _stops(rule, "Edit", {"file_path": "/r/src/generated/api.ts"})
    assert _stops(rule, "Bash", {"command": "sed -i s/a/b/ src/generated/api.ts"})
    assert not _stops(rule, "Read", {"file_path": "/r/src/generated/api.ts"})
    assert not _stops(rule, "Bash", {"command": "cat src/generated/api.ts"})
    assert not _stops(rule, "Edit", {"file_path": "/r/src/api.ts"})


@pytest.mark.parametrize("rule", ["Keep off `dist/`.", "Hands off dist/ \u2014 it is generated", "hands off `dist/`"])
def test_hands_off_a_folder_stops_writes_under_it_not_reads(rule):
    assert matches(rule) == [PathMatch(("dist/",))]
    assert _stops(rule, "Write", {"file_path": "/r/dist/app.js", "content": "x"})
    assert _stops(rule, "Bash", {"command": "rm -rf dist/app.js"})
    assert not _stops(rule, "Read", {"file_path": "/r/dist/app.js"})
    assert not _stops(rule, "Edit", {"file_path": "/r/src/app.js"})


def test_install_with_stops_installs_only():
    rule = "Never install packages with npm; use pnpm"
    assert _stops(rule, "Bash", {"command": "npm install left-pad"})
    assert _stops(rule, "Bash", {"command": "npm i left-pad"})
    assert not _stops(rule, "Bash", {"command": "npm run build"})
    assert not _stops(rule, "Bash", {"command": "pnpm install left-pad"})


def test_a_heading_that_is_a_rule_is_read_as_one():
    from tacit.guards.instructions import rules_in
    text = ("# Project\n\n### CRITICAL: Do NOT use VSTest-style `--filter` with `dotnet test`\n\n"
            "## Never run `npm publish`\n## Examples of what not to do\n- Never run `git stash`\n")
    rules = rules_in(text, "AGENTS.md")
    assert [(r.line, r.spec.match) for r in rules] == [
        (3, CommandMatch(("dotnet",), ("test",), ("--filter",), True)),
        (5, CommandMatch(("npm",), ("publish",), (), True))]  # the example section is not read


def test_delete_and_rename_rules_stop_removal_not_edits():
    from tacit.guards.model import RemoveMatch
    assert matches("Never delete `package-lock.json`") == [RemoveMatch(("package-lock.json",), ("delete",))]
    assert matches("Do not rename `src/index.ts`") == [RemoveMatch(("src/index.ts",), ("rename",))]
    assert matches("Never remove tests") == []  # no path
    rule = "don't delete or rename files in docs/images/ \u2014 old docs link to them"
    for command in ("rm docs/images/a.png", "git rm -r docs/images", "git mv docs/images/a.png docs/images/b.png",
                    "mv docs/images/a.png /tmp/"):
        assert _stops(rule, "Bash", {"command": command}), command
    for command in ("mv x.png docs/images/x.png", "cp a.png docs/images/a.png", "cat docs/images/a.svg"):
        assert not _stops(rule, "Bash", {"command": command}), command
    assert not _stops(rule, "Edit", {"file_path": "/r/docs/images/a.svg"})
