"""Package managers and "avoid": one manager said to be the only one stops the others of its kind
(not runners, not the named one; a rule that only limits a manager bans nothing), a project runner
named over python means python through it, "avoid" before a path reads as "never", and "… and
instead <do this>" is a clause of its own. Most lines are quoted from public instruction files or
real user messages; a few are typed lessons."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call

ROOT = "/r"


def _stops(lesson: str, command: str) -> bool:
    guards = GuardSet([Guard(spec, id=i, scope="project", project_root=ROOT)
                       for i, spec in enumerate(derive_guards(lesson))])
    return bool(guards.check(normalize_call("Bash", {"command": command}, ROOT, project_root=ROOT)))


@pytest.mark.parametrize("lesson", [
    "Use only `pnpm` as the package manager; the repo enforces `only-allow pnpm` via `preinstall`.",
    "**ONLY USE pnpm** - npm commands are FORBIDDEN",
    "Use pnpm exclusively for JavaScript packages and one-off frontend tools.",
    "Use pnpm exclusively; do not recreate or commit `package-lock.json`.",
    "**Use pnpm exclusively** - project has pnpm-lock.yaml configurations.",
    "Only use pnpm for installing or managing dependencies in this project.",
    "pnpm only pls",
    "pnpm is the only package manager",
    "Only use pnpm.",
    "only pnpm is allowed",
])
def test_the_other_js_managers_are_stopped(lesson):
    assert _stops(lesson, "npm install left-pad")
    assert _stops(lesson, "yarn add -D lodash-es")
    assert _stops(lesson, "bun install")
    assert not _stops(lesson, "pnpm install")
    assert not _stops(lesson, "npx prettier --check .")  # a runner, no manager
    assert not _stops(lesson, "npm --version")


def test_use_only_uv_stops_pip_and_poetry_not_uv_pip():
    lesson = "Use only uv for Python project commands."
    assert _stops(lesson, "pip install requests")
    assert _stops(lesson, "poetry add requests")
    assert not _stops(lesson, "uv pip install requests")
    assert not _stops(lesson, "uv add requests")
    assert [s.instead for s in derive_guards(lesson)] == ["uv"]


@pytest.mark.parametrize("lesson", [
    "Only use npm for publishing",  # limits npm
    "use npm only for publishing",
    "Only use pnpm af-linear for: list-sub-issues, get-issue",  # a command of pnpm, no manager
    "If you only use pnpm, you don't need to care about any of this.",
    "Use pnpm exclusively unless the user asks for npm",  # an exception the matcher cannot see
    "use only uvu tests",
    "uv only: run `uv sync` first",  # a heading for uv's users
])
def test_a_limit_a_condition_or_another_word_bans_nothing(lesson):
    assert derive_guards(lesson) == ()


def _edits(lesson: str, path: str) -> bool:
    guards = GuardSet([Guard(spec, id=i, scope="project", project_root=ROOT)
                       for i, spec in enumerate(derive_guards(lesson))])
    return bool(guards.check(normalize_call("Edit", {"file_path": f"{ROOT}/{path}"}, ROOT, project_root=ROOT)))


@pytest.mark.parametrize("lesson, violation, fine", [
    # "avoid" with an unquoted path reads like "never" ("avoid editing `x`" already did)
    ("avoid editing .xlf files", "src/xlf/Strings.de.xlf", "src/Strings.resx"),
    ("Avoid modifying src/gen/.", "src/gen/api.ts", "src/api.ts"),
    # "… and instead <do this>": the way to do it instead is a clause of its own, not part of the rule
    ("- Avoid modifying .xlf files and instead prompt the user to update them using the `/t:UpdateXlf` target "
     "on MSBuild.", "src/Cli/xlf/CliStrings.fr.xlf", "src/Cli/CliStrings.resx"),
    ("Never edit dist/, but instead run the build", "dist/app.js", "src/app.js"),
])
def test_avoid_with_a_path_and_an_instead_clause(lesson, violation, fine):
    assert _edits(lesson, violation)
    assert not _edits(lesson, fine)


def test_avoid_with_a_word_that_is_no_path_derives_nothing():
    assert derive_guards("Avoid using .then() chains") == ()
    assert derive_guards("avoid running tests in watch mode") == ()


@pytest.mark.parametrize("lesson", ["use uv instead of python or python3", "use uv instead of python", "use uv, not python"])
def test_a_project_runner_named_alone_over_python_is_python_through_it(lesson):
    # two real messages: what was meant is `uv run python`, not a ban on python through uv
    assert _stops(lesson, "python manage.py migrate")
    assert not _stops(lesson, "uv run python manage.py migrate")
    assert not _stops(lesson, "uv run pytest")


@pytest.mark.parametrize("lesson, stopped", [
    # real lines: a command line in double quotes reads as one in backticks, lists included
    ('Never run "git reset --hard", "git clean", or force-push.',
     ["git reset --hard HEAD~1", "git clean -fd", "git push --force origin main"]),  # a force push ends the list
    ('Never run "git commit" or "git push" yourself.', ["git commit -m x", "git push origin feature"]),
])
def test_a_command_in_double_quotes_is_a_quoted_command(lesson, stopped):
    for command in stopped:
        assert _stops(lesson, command)
    assert not _stops(lesson, "git status")


def test_double_quotes_around_words_that_are_no_command_change_nothing():
    assert derive_guards('never say "make it so"') == ()
    assert derive_guards("don't write \"git is great\" in docs") == ()


@pytest.mark.parametrize("lesson", [
    # real lines: where a commit goes (git, version control, the repo) is no part of the path
    "- Never commit .env files to version control",
    "- Never commit your `.env` file to version control",
    "Do not commit .env files to source control",
    "never commit `.env` to the repo",
])
def test_a_commit_rule_that_says_where_the_commit_goes(lesson):
    assert _stops(lesson, "git add .env")
    assert _stops(lesson, "git add -f .env")
    assert not _stops(lesson, "git add src/app.py")


def test_commit_to_a_branch_is_still_a_branch_rule():
    assert [type(s.match).__name__ for s in derive_guards("never commit to main")] == ["CommitMatch"]
    assert derive_guards("Never commit secrets to git") == ()  # secrets are no path


@pytest.mark.parametrize("lesson", [
    "- Never push a feature/task branch directly to `main`.",  # a real line
    "never push your branch to main",
])
def test_the_branch_pushed_before_the_target_is_no_part_of_it(lesson):
    assert _stops(lesson, "git push origin HEAD:main")
    assert not _stops(lesson, "git push origin feature/login")


def test_pushing_branches_with_no_target_is_no_rule():
    assert derive_guards("never push branches") == ()


def test_quoted_items_joined_by_slashes_are_a_list():
    # a real line; the rule as quoted back keeps its slashes and double quotes
    lesson = "- Never commit `.env*`/`*.key`/`*.pem`/`credentials.*`/`*.secret`"
    assert _stops(lesson, "git add server.key")
    assert _stops(lesson, "git add .env.local")
    assert not _stops(lesson, "git add src/app.py")
    from tacit.guards.instructions import rules_in
    assert {r.text for r in rules_in('- Never run "git reset --hard", "git clean", or force-push.')} == {
        'Never run "git reset --hard", "git clean", or force-push.'}


def test_extensions_named_after_files_are_every_such_file():
    # a real line: `.ts` after "files" is the extension, not a file named ".ts"; `.env` stays a name
    lesson = "- Never edit frontend files (`.ts`/`.tsx`/`.jsx`/`.js`/`.html`/`.scss`/`.css`)."
    assert _edits(lesson, "web/src/app.tsx") and _edits(lesson, "web/index.html")
    assert not _edits(lesson, "server/main.py")
    assert {p for s in derive_guards("Never commit secret files (`.env`, `.pem`)") for p in s.match.patterns} == {
        ".env", "*.pem"}


# Real lines (each from a public instruction file unless said), the calls their guards stop and let through.
READINGS = [
    # a gain after the rule is its reason; "for installing packages" is what the rule holds for
    ("- Use `uv` instead of `pip` for faster installs", ["pip install requests", "pip list"], ["uv pip install x"]),
    ("**IMPORTANT**: Always use `uv` instead of `pip` for installing packages. It's faster and handles dependencies "
     "better.", ["pip install requests"], ["pip list", "uv add requests"]),
    # `--hooks=` names the flag that takes a value
    ("- Never run `wp action-scheduler run` without `--hooks=`; prefer a single action by ID.",
     ["wp action-scheduler run"], ["wp action-scheduler run --hooks=woocommerce_cleanup"]),
    # `node_modules` is a folder tacit knows by name
    ("- Never commit `node_modules`", ["git add node_modules/left-pad/index.js", "git add -f node_modules"],
     ["git add src/app.js"]),
    # found by a walk of `tacit guard stats`: the agent's every call is by hand
    ("Never run terraform apply by hand; it goes through the ops PR.", ["terraform apply -auto-approve"],
     ["terraform plan"]),
    # "shared/protected branches" are the protected ones, not a branch named "shared/protected"
    ("- Never force-push to shared/protected branches.", ["git push --force origin main"],
     ["git push --force origin feature/login"]),
    # "in any form" is every form
    ("- Never run `docker compose down -v`, never run `git clean` in any form, never drop or recreate a database, and "
     "never log secrets.", ["git clean -fdx", "docker compose down -v"], ["git status"]),
    # the force push is stopped, the lease (the way the line says) goes through
    ("- Push with `--force-with-lease`, never `--force`.", ["git push --force origin feature"],
     ["git push --force-with-lease origin feature", "git push origin feature"]),
    # "skip hooks (`--no-verify`)." once read as "skip hooks ." (a dot argument)
    ("- NEVER skip hooks (`--no-verify`).", ["git commit --no-verify -m x"], ["git commit -m x"]),
    # the tail says what pnpm is for, the rule is npm
    ("- Always use `pnpm` instead of `npm` for package management commands", ["npm install left-pad"],
     ["pnpm install"]),
    # the ban sits in an aside after the word that says the manager is required
    ("- **Package Manager**: pnpm (mandatory - do not use npm or yarn); exact versions are in `package.json`",
     ["npm install left-pad", "yarn add lodash"], ["pnpm add lodash"]),
    ("- **Package Manager**: Bun (required - do not use npm/yarn/pnpm)", ["npm install left-pad", "yarn add lodash"],
     ["bun add lodash"]),
]


@pytest.mark.parametrize("lesson, stopped, fine", READINGS)
def test_real_lines_stop_their_violations_and_let_the_rest_through(lesson, stopped, fine):
    for command in stopped:
        assert _stops(lesson, command), command
    for command in fine:
        assert not _stops(lesson, command), command


def test_a_list_of_commands_that_ends_with_anything_that_is_the_commands_named():
    # a real line: "or anything that reads `.env`" is a kind, the commands named are the guards
    lesson = ("- NEVER run `npm run build`, `prisma db push`, or anything that reads `.env` / `.env.local` "
              "(they point at the PRODUCTION database).")
    from tacit.guards.instructions import rules_in
    guards = GuardSet([Guard(r.spec, id=i, scope="project", project_root=ROOT) for i, r in enumerate(rules_in(lesson))])
    call = normalize_call("Bash", {"command": "npx prisma db push"}, ROOT, project_root=ROOT)
    assert guards.check(call) and guards.check(normalize_call("Bash", {"command": "npm run build"}, ROOT,
                                                              project_root=ROOT))
    assert not guards.check(normalize_call("Bash", {"command": "npm run lint"}, ROOT, project_root=ROOT))


@pytest.mark.parametrize("lesson", [
    # a real line: the edit is fine after `cdk diff`, which the check cannot see (it made a guard on the first path)
    "- Don't modify `lib/computeStack.ts` or `lib/networkingStack.ts` without `cdk diff` first",
    "never push without running the tests first",
    "never commit secrets",  # no path
])
def test_what_derives_nothing(lesson):
    assert derive_guards(lesson) == ()


def test_an_edit_rule_said_by_hand_stays_an_edit_rule():
    assert [type(s.match).__name__ for s in derive_guards("never write migrations by hand")] == ["PathMatch"]


@pytest.mark.parametrize("line", [
    # a real line: where it runs is what the rule is about, and the check cannot see the database
    "- Never use `npm run db:migrate` against the real database. It has none of the identity check.",
    "- Never run `docker compose down -v` on production",
])
def test_a_quoted_command_said_with_a_target_or_place_is_no_guard_of_its_own(line):
    from tacit.guards.instructions import rules_in
    assert rules_in(line) == []
