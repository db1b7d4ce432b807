"""Command rules narrowed by a folder, a path, a wrapper or a flag; a rule
before its alternative or reason after a comma; label and trailer values; a
push to a repository by its URL (docs/guards.md, "Shapes"). Each reading:
what it stops, the close calls it lets through, and an exception or hedge
that still vetoes."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, normalize_call
from tacit.guards.derive import derive_guards
from tacit.guards.model import CommandMatch, GuardSpec, OptionMatch

ROOT = "/home/u/proj"


def guard_set(lesson: str) -> GuardSet:
    specs = derive_guards(lesson)
    assert specs, f"no guard from {lesson!r}"
    return GuardSet([Guard(s, i + 1, "project", ROOT, "lesson") for i, s in enumerate(specs)])


def stops(guards: GuardSet, command: str, *, tool: str = "Bash", cwd: str = ROOT, branch: str | None = None) -> bool:
    args = {"command": command} if tool == "Bash" else {"file_path": f"{ROOT}/{command}"}
    return bool(guards.check(normalize_call(tool, args, cwd, project_root=ROOT, branch=branch)))


def reads(lesson: str, stopped, passed, **kw) -> None:
    guards = guard_set(lesson)
    for command in stopped:
        assert stops(guards, command, **kw), (lesson, command)
    for command in passed:
        assert not stops(guards, command, **kw), (lesson, command)


# --- a folder: "in ui/" ---------------------------------------------------------------------------
@pytest.mark.parametrize("lesson", [
    "don't use npm or npx in ui/",
    "don't use npm or npx in ui/, it's a pnpm workspace",
    "Never run npm or npx inside the `ui` folder",
    "please never use npm or npx within `ui/` - it breaks the pnpm lockfile",
])
def test_a_tool_banned_in_a_folder(lesson):
    reads(lesson, ["cd ui && npm install", "cd ui && npm run build", "cd ui && npx vite build",
                   "cd ui/src && npm test"],
          ["cd ui && pnpm install", "npm install", "cd docs && npm run build", "cd uix && npm ci",
           "cd ui && npm --version"])
    assert stops(guard_set(lesson), "npm ci", cwd=f"{ROOT}/ui")  # the host runs it there


def test_a_folder_rule_on_a_file_or_a_place_that_is_no_folder_stays_a_memory():
    for lesson in ("don't use npm in production", "never run npm in CI", "don't use npm in `main.py`",
                   "never run npm in /tmp/", "don't use sudo in scripts/"):
        assert all(not isinstance(s.match, CommandMatch) or not s.match.under for s in derive_guards(lesson)), lesson


def test_a_folder_rule_keeps_its_exception():
    assert derive_guards("don't use npm or npx in ui/ unless I say so") == ()
    assert derive_guards("don't use npm in ui/ for now") == ()


def test_a_folder_rule_never_reads_as_the_tool_anywhere():
    for spec in derive_guards("don't use npm or npx in ui/"):
        assert spec.match.under == ("ui",)


# --- a path a command is run on: "on tasks/" ------------------------------------------------------
def test_a_tool_banned_on_a_folder():
    reads("don't run prettier on tasks/, those notes keep their own format",
          ["prettier --write tasks/plan.md", "npx prettier --write tasks/review-notes.md",
           "cd tasks && prettier --write plan.md"],
          ["prettier --write docs/readme.md", "prettier --check src", "eslint tasks/plan.md"])
    assert derive_guards("don't run prettier on tasks/ if they are drafts") == ()


# --- a wrapper: "through uv" ----------------------------------------------------------------------
@pytest.mark.parametrize("lesson", [
    "always run python, ruff, isort and pyright through uv",
    "always run python, ruff, isort and pyright through uv, since uv manages the .venv",
    "use uv to run python, ruff and pyright",
    "- always use uv to run python and python related commandline tools like isort, ruff, pyright etc. "
    "This is because we are using uv to manage the .venv and dependencies.",
])
def test_tools_run_through_a_wrapper(lesson):
    reads(lesson, ["python -m pytest tests/unit", "ruff check .", "pyright src", "cd src && python x.py"],
          ["uv run pytest tests/unit", "uv run ruff check .", "uv run python -m pytest", "uvx ruff check",
           "uv run --with rich python x.py", "python --version", "mypy src"])


def test_a_wrapper_rule_needs_known_tools_and_keeps_its_exception():
    assert derive_guards("always run the tests through uv") == ()  # "the tests": no program
    assert derive_guards("always run python through uv, except in Docker") == ()
    assert derive_guards("run python through uv when you can") == ()
    spec = derive_guards("always run ruff via `uv run`")[0]
    assert spec.match.programs == ("ruff",) and spec.match.not_via == ("uv", "uvx")


# --- a flag with a command: "never use -- with pnpm test" -----------------------------------------
@pytest.mark.parametrize("lesson", ["never use -- with pnpm test", "please never use -- with pnpm test",
                                    "never use -- with pnpm test, pnpm drops the filter then",
                                    "Never use `--` with `pnpm test`"])
def test_the_separator_banned_with_a_command(lesson):
    reads(lesson, ["pnpm test -- reporters", "pnpm t -- reporters"],
          ["pnpm test reporters", "pnpm test", "pnpm build -- x", "npm test -- x"])


def test_a_flag_with_a_command_unquoted_and_its_veto():
    reads("never pass --watch to pnpm test", ["pnpm test --watch", "pnpm test src --watch"],
          ["pnpm test", "pnpm build --watch"])
    assert derive_guards("for now, never use -- with pnpm test") == ()
    assert derive_guards("never use -- with the tests") == ()  # no command


# --- a rule before its alternative or its reason after a comma ------------------------------------
def test_a_rule_before_its_alternative():
    reads("never merge main into the feature branch, rebase",
          ["git merge main", "git merge origin/main"], ["git rebase main", "git merge feature-y", "git merge --abort"],
          branch="feature-x")
    reads("NEVER merge main into the feature branch, rebase onto it so history stays linear",
          ["git merge main"], ["git rebase main"], branch="feature-x")


def test_a_tail_that_may_be_a_list_item_or_a_condition_is_no_reason():
    assert derive_guards("never run npm install, in production") == ()
    assert {s.match.programs for s in derive_guards("never use npm, yarn")} == {("npm", "yarn")}
    # "prefer --force-with-lease" is the allowed way, read by its own reading (lease passes)
    guards = guard_set("never use git push --force, prefer --force-with-lease")
    assert stops(guards, "git push --force origin x") and not stops(guards, "git push --force-with-lease origin x")
    assert derive_guards("never merge main into the feature branch, rebase unless I say otherwise") == ()


# --- values of options: labels and trailers -------------------------------------------------------
@pytest.mark.parametrize("lesson", [
    "don't add the type/bug, type/feature or type/task labels",
    "don't add the type/bug, type/feature or type/task labels, we use the issue type field",
    "`type/bug`, `type/feature`, and `type/task` labels are deprecated and forbidden",
])
def test_labels_not_to_add(lesson):
    reads(lesson, ['gh issue create --title "Crash" --label type/bug', "gh issue edit 4512 --add-label type/feature",
                   "gh pr create -l area/x,type/task", "gh issue create --label=type/bug"],
          ['gh issue create --title "Crash" --label area/mstest', "gh issue view 4512",
           "gh issue list --label type/bug", "gh issue edit 1 --remove-label type/bug"])


def test_a_label_rule_needs_label_like_values():
    assert derive_guards("don't add new labels") == ()
    assert derive_guards("don't add the bug label") == ()  # a bare word may be prose: quote it
    assert derive_guards("don't add the type/bug label unless triaged") == ()
    assert derive_guards("don't add the `bug` label")[0].match == OptionMatch(
        "gh", ("create", "edit"), ("--label", "-l", "--add-label"), ("bug",))


@pytest.mark.parametrize("lesson", [
    "don't add Signed-off-by or Co-authored-by trailers with the agent's name",
    "hey, don't add Signed-off-by or Co-authored-by trailers with the agent's name, thanks",
    "**Do not add `Signed-off-by` or `Co-authored-by` trailers with your agent name.** Only a human can certify it.",
])
def test_commit_trailers_not_to_add(lesson):
    reads(lesson, ['git commit -s -m "Add flag" --trailer "Co-authored-by: Claude <noreply@anthropic.com>"',
                   "git commit -m 'Fix' -m 'Co-authored-by: Claude <c@x>'",
                   "git commit -m $'Fix\\n\\nSigned-off-by: Claude <c@x>'"],
          ['git commit -s -m "Add flag" --trailer "Assisted-by: Claude/claude-opus-4"',
           'git commit -m "mention co-authored-by in the docs"', "git log --grep Co-authored-by"])


def test_a_trailer_rule_for_other_people_stays_a_memory():
    assert derive_guards("don't add Co-authored-by trailers for other people") == ()
    assert derive_guards("don't add Co-authored-by trailers unless asked") == ()


def test_option_values_round_trip():
    spec = derive_guards("don't add Co-authored-by trailers")[0]
    assert GuardSpec.from_dict(spec.to_dict()) == spec
    placed = derive_guards("don't use npm in ui/")[0]
    assert GuardSpec.from_dict(placed.to_dict()) == placed and "in ui" in placed.describe()


# --- a push to a repository by its URL ------------------------------------------------------------
def test_a_push_to_a_repository_by_url():
    reads("don't push to github.com/open-telemetry/opentelemetry-rust",
          ["git push https://github.com/open-telemetry/opentelemetry-rust.git HEAD:main",
           "git push git@github.com:open-telemetry/opentelemetry-rust.git main"],
          ["git push origin fix-typo", "git push https://github.com/me/opentelemetry-rust.git main"])
    assert derive_guards("don't push to github.com/open-telemetry/opentelemetry-rust unless I say otherwise") == ()


# --- new files in a folder ------------------------------------------------------------------------
@pytest.mark.parametrize("lesson", ["don't create new agent files in .claude/agents/",
                                    "don't create new agent files in .claude/agents/ — that folder is deprecated",
                                    "pls don't create any new files in `.claude/agents/`"])
def test_new_files_in_a_folder(lesson):
    guards = guard_set(lesson)
    assert stops(guards, ".claude/agents/test-runner.md", tool="Write")
    assert stops(guards, "cp x.md .claude/agents/new.md")  # a file the caller cannot see: a new one
    assert not stops(guards, ".claude/agents/reviewer.md", tool="Edit")  # an existing file, edited
    assert not stops(guards, "AGENTS.md", tool="Write") and not stops(guards, "cat .claude/agents/reviewer.md")


def test_new_files_rule_knows_existing_files_and_keeps_its_exception():
    guards = guard_set("don't create new files in docs/adr/")
    call = normalize_call("Write", {"file_path": f"{ROOT}/docs/adr/0001.md"}, ROOT, project_root=ROOT,
                          exists=lambda p: p.endswith("0001.md"))
    assert not guards.check(call)  # overwriting one that is there is no new file
    assert derive_guards("don't create new files in docs/adr/ unless asked") == ()
    assert derive_guards("don't create new files in production") == ()


# --- a script by its path, both unquoted ----------------------------------------------------------
@pytest.mark.parametrize("lesson", ["use python3 test.py, not ./test.py",
                                    "use python3 test.py, not ./test.py, since the shebang breaks outside Meta",
                                    "use python3 test.py instead of ./test.py"])
def test_a_command_over_a_script_unquoted(lesson):
    reads(lesson, ["./test.py", "./test.py --no-test --no-conformance"],
          ["python3 test.py", "python3 test.py --no-test", "cat test.py"])


def test_a_script_rule_needs_a_known_program_and_keeps_its_exception():
    assert derive_guards("use the wrapper, not ./test.py") == ()
    assert derive_guards("use python3 test.py, not ./test.py except for hotfixes") == ()


# --- output sent to a file ------------------------------------------------------------------------
@pytest.mark.parametrize("lesson", ["never pipe msbuild output to a file",
                                    "never pipe msbuild output to a file — use -flp with a LogFile instead",
                                    "NEVER pipe MSBuild output to a file. If you want a list of errors, add "
                                    "`-flp:\"v=q;LogFile=ErrorsAndWarnings.log\"` to the arguments."])
def test_output_to_a_file(lesson):
    reads(lesson, ["dotnet build src/MSBuild.sln > build.log", "msbuild x.proj | tee out.txt",
                   "dotnet build >> log.txt 2>&1"],
          ['dotnet build src/MSBuild.sln -flp:"v=q;LogFile=E.log"', "dotnet build", "dotnet build > /dev/null",
           "dotnet build | grep error", "cp build.log old.log"])


def test_output_rule_needs_a_known_program_and_keeps_its_exception():
    reads("don't redirect pytest output to a file", ["pytest -q > out.txt"], ["pytest -q", "ruff check > out.txt"])
    assert derive_guards("never pipe the output to a file") == ()
    assert derive_guards("for now, never pipe msbuild output to a file") == ()


def test_why_names_the_rule_of_any_reading():
    from tacit.guards.why import explain
    found = explain("`.claude/agents/` is deprecated. Do not create agent files")
    assert found["guard"] and found["rules"] and found["why"].startswith("the rule is")


def test_a_folder_said_first_or_listed():
    reads("in ui/, never use npm", ["cd ui && npm install"], ["npm install", "cd ui && pnpm install"])
    reads("inside ui/ or web/, don't use npm", ["cd ui && npm ci", "cd web && npm ci"], ["cd docs && npm ci"])
    reads("use pnpm, not npm, in ui/", ["cd ui && npm install"], ["npm install", "cd ui && pnpm install"])
    reads("never use npm in ui/ or docs/", ["cd docs && npm run x", "cd ui && npm ci"], ["npm ci"])
    assert derive_guards("in ui/, never use npm, unless the lockfile is gone") == ()


def test_a_flag_said_after_its_command():
    reads("never run pnpm install with --no-frozen-lockfile", ["pnpm install --no-frozen-lockfile"],
          ["pnpm install", "pnpm install --frozen-lockfile"])
    assert derive_guards("never run pnpm install with --no-frozen-lockfile if CI is red") == ()


def test_a_subcommand_output_to_a_file():
    reads("never pipe dotnet test output into a file", ["dotnet test > out.txt"],
          ["dotnet test", "dotnet build > out.txt"])


def test_a_script_over_another_run_by_an_interpreter():
    reads("use bash scripts/test.sh instead of ./scripts/test.sh", ["./scripts/test.sh"], ["bash scripts/test.sh"])


@pytest.mark.parametrize("reason", [", the hooks catch bugs before review", ", it may corrupt the DB",
                                    ", npm doesn't support workspaces", ", nobody maintains the yarn config",
                                    ", the bot does it after merge", ", reviewers hate that"])
def test_a_statement_after_the_last_comma_is_a_reason(reason):
    reads("use pnpm, never npm or yarn" + reason, ["npm install", "yarn add x"], ["pnpm install", "npx prettier ."])


@pytest.mark.parametrize("lesson", ["never run npm install, dev deps don't count", "never use npm, docs are fine",
                                    "never use npm, in production", "never use npm, at least for now",
                                    "never push, commit to main unless asked"])
def test_a_tail_that_limits_the_rule_is_no_reason(lesson):
    assert all(not (isinstance(s.match, CommandMatch) and s.match.programs == ("npm",) and not s.match.subcommands)
               and s.match.to_dict().get("subcommands") != ["install"] for s in derive_guards(lesson)), lesson


def test_a_dot_after_a_space_is_the_argument_not_the_full_stop():
    reads("never run git checkout .", ["git checkout .", "git checkout -- ."], ["git checkout main", "git checkout -b x"])
    reads("never run git checkout . — it discards work", ["git checkout ."], ["git checkout main"])
    reads("never run git add .", ["git add .", "git add -A"], ["git add src/x.py"])
    assert derive_guards("never run git checkout . unless asked") == ()


# --- path rules said otherwise --------------------------------------------------------------------
@pytest.mark.parametrize("lesson, path", [
    ("Please refrain from editing `.github/workflows/*.yml`", ".github/workflows/ci.yml"),
    ("Lockfiles (`pnpm-lock.yaml`) must not be edited by hand.", "pnpm-lock.yaml"),
    ("Keep `LICENSE` unchanged.", "LICENSE"),
    ("keep the `legacy/` folder intact", "legacy/a.py"),
    ("`src/gen/` is generated. Don't edit files there.", "src/gen/api.ts"),
    ("`dist/` is build output. Do not edit files there.", "dist/index.js"),
    ("`api.d.ts` is generated from the OpenAPI spec and must not be edited.", "api.d.ts"),
])
def test_path_rules_said_otherwise(lesson, path):
    guards = guard_set(lesson)
    assert stops(guards, path, tool="Edit") and not stops(guards, "src/app.ts", tool="Edit")
    assert not stops(guards, f"cat {path}")  # reading stays allowed


def test_path_rules_said_otherwise_keep_their_veto_and_need_a_path():
    for lesson in ("Keep `LICENSE` unchanged unless legal asks.", "keep tests unchanged", "keep it simple",
                   "please try to avoid editing `dist/`", "`src/gen/` is generated. Don't edit files there if CI is red."):
        assert derive_guards(lesson) == (), lesson


def test_the_root_or_any_subfolder():
    reads("don't run docker compose up in the root folder", ["docker compose up -d"],
          ["cd deploy && docker compose up", "docker compose ps"])
    reads("never run pnpm install in the repo root", ["pnpm install"], ["cd packages/web && pnpm install"])
    reads("Do not run `npm install` in subdirectories", ["cd packages/web && npm install"], ["npm install"])
    assert derive_guards("never run npm install in the root unless it is a fresh clone") == ()


def test_a_command_without_its_flag():
    reads("never run `cargo update` without `-p <crate>`", ["cargo update"],
          ["cargo update -p serde", "cargo update --package serde", "cargo build"])
    reads("never run cargo test without -p", ["cargo test"], ["cargo test -p core", "cargo build"])
    assert derive_guards("never run cargo test without -p unless asked") == ()


@pytest.mark.parametrize("lesson", ["never install packages globally", "don't install anything globally",
                                    "no global installs"])
def test_global_installs(lesson):
    reads(lesson, ["npm install -g typescript", "npm i --global x", "pnpm add -g x", "yarn global add x",
                   "bun add --global x"],
          ["npm install", "npm install -D typescript", "pnpm add x", "yarn add x"])


def test_global_installs_keep_their_veto():
    assert derive_guards("never install packages globally unless asked") == ()
    assert derive_guards("if you can, never install packages globally") == ()


def test_pushing_tags():
    reads("never push tags", ["git push --tags", "git push origin --follow-tags"], ["git push origin main", "git tag v1"])
    assert derive_guards("never push tags before the release is approved") == ()


def test_a_bare_folder_name_heading_a_list_item():
    guards = guard_set("- conformance - Typing conformance tests pulled from python/typing. Don't edit")
    assert stops(guards, "conformance/third_party/x.py", tool="Edit")
    assert stops(guards, "rm -rf conformance/third_party")
    assert not stops(guards, "src/conformance.py", tool="Edit") and not stops(guards, "cat conformance/a.py")
    for lesson in ("- Conformance - tests pulled from upstream. Don't edit",  # a title, not a folder name
                   "conformance - tests. Don't edit",  # no list item
                   "- conformance - tests pulled from upstream. Don't edit unless syncing"):
        assert derive_guards(lesson) == (), lesson


# --- the wrapper a lesson names as the way passes -------------------------------------------------
@pytest.mark.parametrize("lesson, tool, bare_call, wrapped", [
    ("never run pytest directly, use `uv run pytest`", "pytest", "pytest -q", "uv run pytest -q"),
    ("never run python, use uv run", "python", "python x.py", "uv run python x.py"),
    ("use uv for everything, never bare python or python3", "python", "python3 x.py", "uv run python x.py"),
    ("Use `uv` for everything — never bare `python` or `python3`.", "python", "python x.py", "uvx python x.py"),
    ("never run jest, use `npx jest`", "jest", "jest --ci", "npx jest --ci"),
])
def test_the_wrapper_named_as_the_way_passes(lesson, tool, bare_call, wrapped):
    reads(lesson, [bare_call], [wrapped])


def test_a_wrapper_running_another_tool_or_an_exception_changes_nothing():
    reads("never run ruff, use `uv run black`", ["ruff check .", "uv run ruff check ."], ["uv run black ."])
    reads("use pnpm, not npm", ["npm install", "pnpm exec npm i"], ["pnpm install"])
    assert derive_guards("never run python directly, use uv, unless it is a one-off") == ()


# --- more families: pipes into filters, a runner over tools, migrations, a flag required, file arguments ---
def test_a_programs_output_piped_into_filters():
    reads("never pipe gradle output through tail, head or grep",
          ["./gradlew test | tail -50", "./gradlew spotlessCheck | grep -i error", "gradle build | head"],
          ["./gradlew test", "./gradlew test > log.txt", "cat log | tail", "./gradlew test | wc -l"])
    reads("never pipe curl into bash", ["curl -fsSL x | bash"], ["curl -fsSL x | grep y"])
    assert derive_guards("never pipe gradle output through tail unless it is huge") == ()
    assert derive_guards("never pipe gradle output through the formatter") == ()  # not a program


def test_a_task_runner_over_the_tools_it_wraps():
    reads("**IMPORTANT: Always use `make` commands instead of direct `xcodebuild` or `swift` commands**",
          ["swift build", "xcodebuild test -scheme X"], ["make test", "make build"])
    assert derive_guards("use make instead of direct Xcode commands") == ()  # Xcode: no program
    assert derive_guards("use make instead of swift when you can") == ()


def test_migrations_by_hand():
    guards = guard_set("never write migrations by hand")
    assert stops(guards, "netbox/dcim/migrations/0231_x.py", tool="Write")
    assert not stops(guards, "netbox/dcim/models.py", tool="Edit")
    assert not stops(guards, "python manage.py makemigrations")
    assert derive_guards("never write migrations by hand unless makemigrations fails") == ()


@pytest.mark.parametrize("lesson", ["run cargo test with --all-features",
                                    "run cargo test with --all-features, otherwise feature-gated tests are skipped",
                                    "always pass --all-features to cargo test"])
def test_a_flag_a_command_must_have(lesson):
    reads(lesson, ["cargo test", "cargo test -p azure_core"], ["cargo test --all-features", "cargo build"])


def test_a_required_flag_keeps_its_veto_and_needs_a_program():
    assert derive_guards("run cargo test with --all-features when CI is red") == ()
    assert derive_guards("run tests with --verbose") == ()  # "tests": no program


def test_no_file_arguments():
    reads("never run tsc or yarn lint:types with file arguments",
          ["tsc src/data/entity.ts --noEmit", "npx tsc src/x.ts", "yarn lint:types src/panels/card.ts"],
          ["tsc", "tsc --noEmit", "tsc -p tsconfig.json", "yarn lint:types", "yarn build src/x.ts"])
    assert derive_guards("never run tsc with file arguments unless asked") == ()


def test_a_path_with_an_article():
    reads("never modify a CLAUDE.md, edit the AGENTS.md beside it", [], [])
    guards = guard_set("never modify a CLAUDE.md, edit the AGENTS.md beside it")
    assert stops(guards, "docs/CLAUDE.md", tool="Write") and not stops(guards, "AGENTS.md", tool="Edit")


def test_a_download_piped_into_a_filter_is_that_pipe_only():
    reads("don't pipe curl output to jq", ["curl -s https://x/api | jq .name"], ["curl -s https://x/api -o a.json", "jq . a.json"])


def test_a_long_flag_of_one_tool_with_any_program():
    reads("never use --rerun-tasks, use --rerun", ["./gradlew build --rerun-tasks", "gradle test --rerun-tasks"],
          ["./gradlew build --rerun", "echo --rerun-tasks", "grep -r -- --rerun-tasks ."])
    reads("never pass --allow-empty", ["git commit --allow-empty -m x"], ["git commit -m x"])
    assert derive_guards("never use --dry-run") == () and derive_guards("never use --force") == ()
    assert derive_guards("never use --rerun-tasks unless the cache is broken") == ()


def test_more_paths_and_places():
    reads("don't modify generated code in generated subdirectories", [], [])
    guards = guard_set("don't modify generated code in generated subdirectories")
    assert stops(guards, "sdk/foo/generated/models.py", tool="Edit") and not stops(guards, "sdk/foo/models.py", tool="Edit")
    guards = guard_set("don't edit the global .vscode/cspell.json, use sdk/cosmos/.cspell.json")
    assert stops(guards, ".vscode/cspell.json", tool="Edit") and not stops(guards, "sdk/cosmos/.cspell.json", tool="Edit")
    reads("don't run ruff format on existing files", ["ruff format .", "ruff format a.py"], ["ruff check ."])
    assert derive_guards("don't run ruff format on existing files unless asked") == ()


@pytest.mark.parametrize("lesson", ["   - Do not alter `SECURITY.md`, `LICENSE.txt`, or `CODE_OF_CONDUCT.md` without maintainer approval",
                                    "never push without asking",
                                    "never run git push --force without the user's explicit approval",
                                    "never modify `global.json` without explicit request"])
def test_without_permission_is_an_exception(lesson):
    assert derive_guards(lesson) == (), lesson


def test_file_arguments_with_examples_in_parentheses():
    reads("> **WARNING:** Never run `tsc` or `yarn lint:types` with file arguments (e.g., `yarn lint:types src/file.ts`).",
          ["tsc src/data/entity.ts", "yarn lint:types src/file.ts"], ["tsc", "yarn lint:types"])
