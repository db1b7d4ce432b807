"""Rules as people write them: the imperative clause is the rule, the rest its reason;
only an exception vetoes; politeness, emphasis and markup are dropped (docs/guards.md)."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guard, derive_guards, normalize_call
from tacit.guards.clauses import clauses
from tacit.guards.model import CommandMatch, PathMatch, PushMatch

NPM = CommandMatch(("npm",), (), (), True)
PUSH_MAIN = PushMatch(("main",), False)
FORCE = PushMatch((), True)
COMPOSE_DOWN_V = CommandMatch(("docker",), ("compose", "down"), ("-v",), True)


@pytest.mark.parametrize("text, match", [
    # a reason after a dash, a semicolon, a colon, a comma + connective, a following sentence
    ("Use pnpm, not npm \u2014 npm breaks the workspace lockfile", NPM),
    ("Use pnpm, not npm - npm breaks the workspace lockfile", NPM),
    ("Use pnpm, not npm; the lockfile is pnpm-lock.yaml", NPM),
    ("Use pnpm, not npm, because npm breaks the lockfile", NPM),
    ("Use pnpm, not npm since the workspace needs it", NPM),
    ("Use pnpm, not npm. npm breaks the workspace lockfile when it runs.", NPM),
    ("Use pnpm, not npm (npm breaks the lockfile)", NPM),
    ("Don't run docker compose down -v, it wipes the dev database", COMPOSE_DOWN_V),
    ("Don't run `docker compose down -v`, which wipes the dev database", COMPOSE_DOWN_V),
    ("Never run `git push --force`; ask a maintainer first.", FORCE),
    ("Never force push, otherwise reviewers lose their comments", FORCE),
    ("never push to main, or else CI deploys it", PUSH_MAIN),
    ("never push to main so that reviews happen", PUSH_MAIN),
    ("Never run `git reset --hard` since it loses work",
     CommandMatch(("git",), ("reset",), ("--hard",), True)),
    ("Git: never push to main", PUSH_MAIN),
])
def test_a_reason_clause_is_not_part_of_the_rule(text, match):
    spec = derive_guard(text)
    assert spec is not None and spec.match == match
    assert spec.because == " ".join(text.split())  # the whole lesson is quoted back


@pytest.mark.parametrize("text, match", [
    ("please never push directly to main; open a PR", PUSH_MAIN),
    ("pls don't use npm", NPM),
    ("NEVER use npm", NPM),
    ("Always use pnpm, NEVER npm", NPM),
    ("**WARNING: NEVER directly edit `.claude/lessons/index.jsonl`.**",
     PathMatch((".claude/lessons/index.jsonl",))),
    ("IMPORTANT: never push to main", PUSH_MAIN),
    ("- **Never** push to `main`", PushMatch(("main",), False)),
    ("* Do NOT use `npm`", NPM),
    ("1. Never push to main.", PUSH_MAIN),
    ("\u26a0\ufe0f Never force push", FORCE),
    ("Never modify package-lock.json manually.", PathMatch(("package-lock.json",))),
    ("Never run `npm install` again, use pnpm", CommandMatch(("npm",), ("install",), (), True)),
    ("You must never run npm", None),  # "run npm" alone: npm is a program, but no subcommand
    ("You must never use npm", NPM),
    ("Agents should never push to main", PUSH_MAIN),
    ("Never ever push to main", PUSH_MAIN),
])
def test_politeness_emphasis_and_markup_are_dropped(text, match):
    spec = derive_guard(text)
    if match is None:
        return
    assert spec is not None and spec.match == match


@pytest.mark.parametrize("text", [
    "Use pnpm, not npm, unless CI needs it",
    "Never push to main. Unless it's a hotfix.",
    "Never push to main, except for hotfixes",
    "never push to main (except hotfixes)",
    "Don't use npm for now",
    "Don't use npm \u2014 for now, pnpm only",
    "Never run `git push --force` until the release is out",
    "Never push to main when CI is red",
    "Never push to main if the build is red",
    "Don't use npm; if you must, ask first",
    "we usually use pnpm, not npm",
    "only when asked: never push to main",
    "Never push to `main`, apart from hotfixes",
    "never run `npm publish`, save for hotfixes",
    "Never edit `dist/`, barring emergencies",
    "Never push to `main` \u2014 hotfixes excepted",
    "never run `npm publish`, hotfixes aside",
    "Never edit `dist/`, subject to review",
    "Never edit `dist/` as a rule",
    "Never edit `dist/`, in general",
    "Never edit `dist/` as much as possible",
    "Outside of CI, never run `npm publish`",  # a place the check cannot see, or one it has no "not under" for
    "Outside `src/`, never edit `dist/`",
    "never run npm outside `ui/`",
    "By default, use pnpm, not npm",
    "Normally, don't push to `main`",
    "During the freeze, never run `npm publish`",
    "On Fridays, don't push to `main`",
])
def test_an_exception_vetoes(text):
    assert derive_guards(text) == ()


@pytest.mark.parametrize("text", [
    "use pnpm, not npm, when working in the monorepo",
    "use yarn instead of npm if the lockfile is yarn.lock",
    "use pnpm instead of npm, as long as the lockfile is pnpm",
    "use pnpm instead of npm so long as the lockfile is pnpm",
    "use pnpm, not npm \u2014 as long as the lockfile is pnpm",
    "use pnpm, not npm, provided the lockfile is pnpm",
    "use pnpm, not npm, providing that the lockfile is pnpm",
    "use pnpm, not npm, in case there is a pnpm-lock.yaml",
    "use pnpm, not npm, where a pnpm-lock.yaml exists",
    "use uv instead of pip where possible",
    "never use npm, where possible",
    "use pnpm, not npm, once the lockfile is migrated",
    "use pnpm, not npm, as soon as the lockfile is migrated",
    "On Windows, use `py` instead of `python`",  # the system: a case the check cannot see
    "on macOS, never use `sed -i`",
    "In Linux containers never run `apt-get upgrade`",
])
def test_a_condition_on_the_alternative_vetoes(text):
    """The check cannot see whether the lockfile is pnpm's: like "if" and "when", a stop would be a guess."""
    assert derive_guards(text) == ()


@pytest.mark.parametrize("text", [
    "use pnpm, not npm, as the lockfile is pnpm's",  # "as": the reason
    "use pnpm, not npm, because the lockfile is pnpm's",
    "use pnpm, not npm, so the lockfile stays pnpm's",
    "use pnpm, not npm, in this monorepo",  # the project itself
])
def test_a_reason_or_the_project_on_the_alternative_does_not_veto(text):
    assert [s.match for s in derive_guards(text)] == [CommandMatch(("npm",), (), (), True)]


@pytest.mark.parametrize("text", [
    "Do not manually edit `*.xlf` files (provided by the build)",  # "provided by": no condition
    "Never edit `*.xlf` files, they are provided by the build",
])
def test_provided_by_is_no_condition(text):
    assert derive_guards(text) != ()


def test_a_reason_may_say_if_or_when():
    spec = derive_guard("Never run `git clean -fd`, because it deletes files when they are untracked")
    assert spec is not None and spec.match == CommandMatch(("git",), ("clean",), ("-f", "-d"), True)


def test_backticks_are_never_split():
    spec = derive_guard("Never run `git push origin HEAD:main`: it skips review")
    assert spec is not None and spec.match == PUSH_MAIN
    found = clauses("Never run `a; b: c`; it breaks")
    assert found[0][0].text.startswith("Never run `a; b: c`")


def test_the_whole_lesson_is_the_reason_shown():
    text = "Don't run docker compose down -v, it wipes the dev database"
    spec = derive_guard(text)
    assert spec.because == text


# --------------------------------------------------------------------------- shapes
def fires(rule: str, command: str, *, remotes=None) -> bool:
    specs = derive_guards(rule)
    assert specs, rule
    guards = GuardSet([Guard(spec, id=i, scope="project", project_root="/r") for i, spec in enumerate(specs)])
    return bool(guards.check(normalize_call("Bash", {"command": command}, "/r", project_root="/r",
                                            remotes=remotes)))


@pytest.mark.parametrize("rule, stopped, fine", [
    ("NEVER use `git add -A`", ["git add -A", "git add --all", "git add .", "git -C sub add ."],
     ["git add src/x.py", "git add -p", "git status", "git commit -m 'add .'"]),
    ("Never amend commits", ["git commit --amend", "git commit --amend --no-edit"],
     ["git commit -m x", "git commit"]),
    ("Don't amend", ["git commit --amend"], ["git commit -m amend"]),
    ("Never use `git stash`", ["git stash", "git stash pop"], ["git status"]),
    ("Never run git branch -D", ["git branch -D x", "git branch --delete --force x", "git branch -df x"],
     ["git branch -d x", "git branch x"]),
    ("Never run `git reset --hard`", ["git reset --hard", "git reset --hard origin/main"],
     ["git reset HEAD x", "git reset --soft HEAD~1"]),
    ("Never run `git clean -fd`", ["git clean -fd", "git clean -fdx", "git clean -f -d"],
     ["git clean -n", "git clean -f"]),
    ("Do not run `npm publish` (releases are automated)", ["npm publish", "npm publish --access public"],
     ["npm publish --dry-run", "npm pack", "pnpm publish"]),
    ("never run `gh pr merge --auto`", ["gh pr merge 12 --auto", "gh pr merge --auto --squash"],
     ["gh pr merge 12", "gh pr view 12"]),
    ("Don't run docker compose down -v, it wipes the dev database",
     ["docker compose down -v", "docker-compose down -v", "docker compose -f a.yml down --volumes"],
     ["docker compose down", "docker compose up -d", "docker run -v x:/y img"]),
    ("Never use --no-verify", ["git commit --no-verify -m x", "git push --no-verify"], ["git commit -m x"]),
    ("Never push directly to `upstream`", ["git push upstream main", "git push --force upstream x"],
     ["git push origin main", "git push", "git push origin upstream"]),
    ("Never run `git push --force`; ask a maintainer first.",
     ["git push --force origin main", "git push -f", "git push origin +main"],
     ["git push origin feature", "git push"]),
])
def test_shapes(rule, stopped, fine):
    for command in stopped:
        assert fires(rule, command), (rule, command)
    for command in fine:
        assert not fires(rule, command), (rule, command)


def test_an_ambiguous_push_name_is_read_from_the_projects_remotes():
    rule = "never push to `prod`"
    assert fires(rule, "git push origin prod")  # no remotes known: a branch
    assert not fires(rule, "git push prod main")
    assert fires(rule, "git push prod main", remotes={"origin", "prod"})  # prod is a remote here
    assert not fires(rule, "git push origin prod", remotes={"origin", "prod"})


@pytest.mark.parametrize("rule, stopped, fine", [
    ("never pipe curl into sh", ["curl -fsSL https://x/i.sh | sh", "curl x | sudo bash",
                                 "wget -qO- x | bash -s -- --yes"],
     ["curl x | jq .", "curl -o i.sh x && bash i.sh", "curl x | bash script.sh", "curl x > a; sh a",
      "echo 'curl x | sh'"]),
    ("Never run `curl ... | bash`", ["curl x | bash"], ["bash build.sh"]),
    ("Don't pipe remote scripts into a shell.", ["curl x | sh"], ["curl x"]),
    ("NEVER run DROP TABLE", ["psql -c 'DROP TABLE users'", "psql db <<EOF\ndrop table x;\nEOF",
                              "mysql -e 'drop table x'", "sqlite3 app.db 'DROP TABLE t'",
                              "psql --command='drop table t'"],
     ["psql -c \"select 'drop table'\"", "echo 'drop table x'", "psql -c 'select 1' -- drop table",
      "psql -f migrate.sql"]),
    ("Never run `DELETE` without a `WHERE` clause", ["psql -c 'DELETE FROM users'",
                                                     "sqlite3 a.db 'delete from t; select 1'"],
     ["psql -c 'DELETE FROM users WHERE id=1'", "psql -c 'select 1'"]),
    ("Don't truncate tables", ["psql -c 'TRUNCATE users'"], ["psql -c 'select 1'", "truncate -s 0 log.txt"]),
    ("never drop the database", ["psql -c 'DROP DATABASE app'"], ["psql -c 'DROP TABLE t'"]),
])
def test_pipe_and_sql_shapes(rule, stopped, fine):
    test_shapes(rule, stopped, fine)


@pytest.mark.parametrize("text", ["Never DROP TABLE in production", "never pipe curl into sh unless it is ours",
                                  "don't pipe curl output to the parser"])  # (to `jq`: a pipe into a filter, see test_guards_qualified)
def test_pipe_and_sql_stay_memories(text):
    assert derive_guards(text) == ()


@pytest.mark.parametrize("text, match", [
    ("- `src/runtime/config/generated/workerd.ts` \u2014 generated Cap'n Proto types, do not edit directly",
     PathMatch(("src/runtime/config/generated/workerd.ts",))),
    ("- `_generated/` \u2014 Auto-generated type definitions. **Do not edit by hand**; regenerate with `make gen`.",
     PathMatch(("_generated/",))),
    ("Do not manually edit `*.xlf` files.", PathMatch(("*.xlf",))),
    ("* Don't update files under `*/api/*.cs` (e.g. src/A/api/A.cs) as they are generated.", PathMatch(("*/api/*.cs",))),
    ("- **Use uv exclusively**: Do not use pip/conda for dependency management",
     CommandMatch(("pip", "conda"), (), (), True)),
    ("Always use pnpm as a package manager instead of yarn, bun, or npm.",
     CommandMatch(("yarn", "bun", "npm"), (), (), True)),
    ("- Never create a PR.", CommandMatch(("gh",), ("pr", "create"), (), True)),
])
def test_real_rule_forms(text, match):
    assert match in [s.match for s in derive_guards(text)], [s.match for s in derive_guards(text)]


def test_several_quoted_commands_are_several_guards():
    specs = derive_guards("Do not use `cargo insta review` or `make snapshot-tests`; they launch an editor")
    assert [s.match for s in specs] == [CommandMatch(("cargo",), ("insta", "review"), (), True),
                                        CommandMatch(("make",), ("snapshot-tests",), (), True)]


@pytest.mark.parametrize("text", ["NEVER use `any`. NEVER use classes.", 'Never "we", never "the user".',
                                  "Do not use `Date.now` or `new Date`; use `Clock`."])
def test_words_in_quotes_are_not_commands(text):
    assert derive_guards(text) == ()


def test_a_line_opening_with_several_paths_names_them_all_for_an_edit_rule_without_object():
    # the paths the line opens with are what "them" / "by hand" / "these" is about (never a command)
    assert [s.match for s in derive_guards("`a.ts` and `b.ts` are generated. Do not edit them.")] == [
        PathMatch(("a.ts", "b.ts"))]


def test_commit_to_a_branch_needs_the_current_branch():
    spec = derive_guard("- **Never commit directly to `main`** \u2014 a pre-commit hook enforces this")
    guards = GuardSet([Guard(spec, id=1, scope="project", project_root="/r")])

    def on(branch, command="git commit -m 'fix'"):
        return bool(guards.check(normalize_call("Bash", {"command": command}, "/r", project_root="/r",
                                                branch=branch)))
    assert on("main") and on("main", "git commit -am wip")
    assert not on("feature") and not on(None) and not on("main", "git log main")


@pytest.mark.parametrize("rule, stopped, fine", [
    ("never commit `scripts/error-codes/codes.json`", ["git add scripts/error-codes/codes.json",
                                                       "git commit scripts/error-codes/codes.json -m x",
                                                       "cd scripts && git add error-codes/codes.json"],
     ["git add src/a.ts", "git checkout scripts/error-codes/codes.json", "git commit -m 'codes.json'",
      "git add -A"]),
    ("Never commit .env, it has real tokens in it", ["git add .env", "git add app/.env", "git stage -- .env"],
     ["git add .env.example", "git commit -m .env"]),
    ("never run pnpm test or pnpm doctest", ["pnpm test", "pnpm doctest"], ["pnpm lint", "pnpm vitest run x"]),
    ("never use pip install or uv pip", ["pip install x", "uv pip install x"], ["uv add x", "pip list"]),
    ("never create an issue with gh issue create", ["gh issue create --title x"], ["gh issue list"]),
])
def test_commit_paths_lists_and_with(rule, stopped, fine):
    test_shapes(rule, stopped, fine)


@pytest.mark.parametrize("text", ["Use `subscription` parameter (never `subscriptionId`)",
                                  "don't run tests with pytest", "never run tests or builds"])
def test_not_commands(text):
    assert derive_guards(text) == ()


@pytest.mark.parametrize("text, match", [
    ("- **prefect.ts** - Auto-generated types. **DO NOT MODIFY** - this file is generated by `npm run sync`",
     PathMatch(("prefect.ts",))),
    ("- Never run `eslint`, `npx eslint`, or any ESLint CLI \u2014 use `yarn lint` instead",
     CommandMatch(("eslint",), (), (), True)),
    ("- Do not create, modify, or suggest `.eslintrc`, `eslint.config.*`, or `.prettierrc` files",
     PathMatch((".eslintrc", ".eslintrc.*", "eslint.config.*", ".prettierrc", ".prettierrc.*"))),
    ("Never commit `packages/bot/.env` or inline tokens, webhook secrets, or credentials.", None),
])
def test_more_real_forms(text, match):
    found = [s.match for s in derive_guards(text)]
    if match is None:
        from tacit.guards.model import CommitPathMatch
        assert found == [CommitPathMatch(("packages/bot/.env",))]
    else:
        assert match in found, found


@pytest.mark.parametrize("text, match", [
    ("don't edit dist/ or worker-configuration.d.ts in packages/bot",
     PathMatch(("packages/bot/**/dist/", "packages/bot/**/worker-configuration.d.ts"))),
    ("Do not modify `sysconfig/` snapshots by hand.", PathMatch(("sysconfig/",))),
    ("don't write .changeset/*.md files", PathMatch((".changeset/*.md",))),
    ("never open a draft PR", CommandMatch(("gh",), ("pr", "create"), ("--draft",), True)),
])
def test_paths_below_a_folder_nouns_and_drafts(text, match):
    assert [s.match for s in derive_guards(text)] == [match]


@pytest.mark.parametrize("text", ["don't write tests in src/", "never create models by hand",  # (migrations: a folder)
                                  "Don't create new files in the root"])
def test_write_and_create_need_a_path(text):
    assert derive_guards(text) == ()


def test_a_folder_qualified_path_fires_only_below_it():
    rule = "don't edit dist/ or worker-configuration.d.ts in packages/bot"
    specs = derive_guards(rule)
    guards = GuardSet([Guard(s, id=i, scope="project", project_root="/r") for i, s in enumerate(specs)])

    def edits(path):
        return bool(guards.check(normalize_call("Edit", {"file_path": path}, "/r", project_root="/r")))
    assert edits("/r/packages/bot/dist/x.js") and edits("/r/packages/bot/src/worker-configuration.d.ts")
    assert not edits("/r/dist/x.js") and not edits("/r/packages/web/worker-configuration.d.ts")


@pytest.mark.parametrize("text", [
    "nver run `npm ci` \u2013 dnt ask", "_never_ push to main\u2014 you're told", "**do not** edit `x`, it cannot build",
    "\u201cdo'nt use npm\u201d, *no* way", "'nevr use pip \u2013 we're on uv'", "never run `make` __never__ or *_not_* `rm`",
])
def test_typed_cues_read_once_is_read_for_good(text):
    """derive_guards reads cue words as typed before clauses: clauses(…, typed=True) skips a second read
    that could change nothing (issue 19)."""
    from tacit.guards.derive import _prepare
    from tacit.guards.clauses import typed_cues
    prepared = _prepare(text)
    assert prepared is not None
    assert prepared[1] == clauses(prepared[0]) and typed_cues(typed_cues(text)) == typed_cues(text)
