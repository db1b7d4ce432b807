"""Rule lines as instruction files write them: commands named as examples,
positionals, "never commit", ``--no-verify`` as the means, SQL against the
database, "the remote", and deleting a folder above a guarded path. Each
shape: the violations are stopped, the near misses pass (argv-aware)."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, normalize_call
from tacit.guards.derive import derive_guards
from tacit.guards.instructions import rules_in
from tacit.guards.model import CommandMatch, PushMatch

ROOT = "/home/u/proj"


def guards_of(line: str) -> GuardSet:
    rules = rules_in(line, "AGENTS.md")
    assert rules, f"no guard from {line!r}"
    return GuardSet([Guard(r.spec, i + 1, "project", ROOT, f"AGENTS.md:{i + 1}") for i, r in enumerate(rules)])


def stops(guard_set: GuardSet, command: str, branch: str | None = None) -> bool:
    return bool(guard_set.check(normalize_call("Bash", {"command": command}, ROOT, project_root=ROOT,
                                               branch=branch)))


CASES = [
    ("- Do not run destructive git commands such as `git reset --hard` or `git clean -fd`.",
     ["git reset --hard", "git reset --hard HEAD~1", "git clean -fd", "git clean -df", "git clean -f -d"],
     ["git reset --soft HEAD~1", "git reset", "git clean -n", "git status"]),
    ("Never use commands like `npm publish` or `cargo publish`, etc.",
     ["npm publish", "cargo publish --allow-dirty", "npm publish --tag next"],
     ["npm pack", "npm publish --dry-run", "cargo build"]),
    ("- Never use `git add -A` or `git add .`; stage files explicitly.",
     ["git add -A", "git add --all", "git add .", "git add :/"],
     ["git add src/app.ts", "git add -p", "git status"]),
    ("- Never run `git checkout .` or `git restore .`.",
     ["git checkout .", "git restore .", "git checkout -- ."],
     ["git checkout main", "git restore src/a.ts", "git checkout -b feature"]),
    ("- Never `rm -rf node_modules`.",
     ["rm -rf node_modules", "rm -fr node_modules", "rm -r -f node_modules"],
     ["rm -rf dist", "rm node_modules/.cache/x", "ls node_modules"]),
    ("- Never delete branches with `git branch -D`.",
     ["git branch -D feature", "git branch --delete --force feature", "git branch -df feature"],
     ["git branch -d feature", "git branch feature", "git branch -a"]),
    ("- Do not skip pre-commit hooks with `--no-verify`.",
     ["git commit --no-verify -m x", "git push --no-verify"],
     ["git commit -m x", "git push origin feature"]),
    ("- Never run `DROP TABLE` against the database.",
     ["psql -c 'DROP TABLE users'", "sqlite3 app.db 'drop table users;'"],
     ["psql -c 'SELECT * FROM users'", "sqlite3 app.db 'CREATE TABLE t (a int)'"]),
    ("- Never commit.",
     ["git commit -m x", "git commit --amend"],
     ["git status", "git log", "git commit --help"]),
    ("- Do not create git commits.",
     ["git commit -am wip"],
     ["git diff", "git add src/a.ts"]),
    ("- Do not commit or push.",
     ["git commit -m x", "git push", "git push origin feature"],
     ["git fetch", "git pull", "git status"]),
    ("- Do not push changes to the remote.",
     ["git push", "git push origin feature", "git push upstream main"],
     ["git fetch origin", "git remote -v", "git pull"]),
]


@pytest.mark.parametrize("line,violations,fine", CASES)
def test_rule_line_stops_its_violations_and_passes_near_misses(line, violations, fine):
    guard_set = guards_of(line)
    for command in violations:
        assert stops(guard_set, command), f"{line!r} should stop {command!r}"
    for command in fine:
        assert not stops(guard_set, command), f"{line!r} should let {command!r} run"


def test_shapes_of_the_new_forms():
    assert [s.match for s in derive_guards("Do not commit or push.")] == [
        derive_guards("never commit")[0].match, derive_guards("never push")[0].match]
    assert derive_guards("never commit")[0].match == CommandMatch(("git",), ("commit",), (), True)
    assert derive_guards("Do not push changes to the remote.")[0].match == PushMatch()
    assert derive_guards("Never use `git add .`")[0].match == CommandMatch(("git",), ("add",), ("-A",), True)


@pytest.mark.parametrize("line", [
    # an example that is not a known program's command: no guard
    "Never use constructs like `any` or `unknown`.",
    "Do not run commands such as `foo bar` or `git status`.",
    # an exception still vetoes
    "Never run destructive commands such as `git reset --hard` unless the user asks.",
    "Do not commit or push unless explicitly asked.",
    "Never commit without running the tests first, unless it is a docs change.",
    # an absolute path stays out of a command rule
    "never run `rm -rf /`",
    # a remote that is named stays that remote
])
def test_lines_that_stay_memories(line):
    assert rules_in(line, "AGENTS.md") == []


def test_named_remote_stays_a_remote():
    (spec,) = derive_guards("Never push to the `upstream` remote.")
    assert spec.match == PushMatch((), False, ("upstream",))


REMOVE = "- Do not delete or rename files under `docs/images/`."
EDIT = "- Never edit files in `docs/images/`."


@pytest.mark.parametrize("line", [REMOVE, EDIT])
@pytest.mark.parametrize("command", ["rm -rf docs", "rm -r docs/", "rm -R ./docs", "git rm -r docs",
                                     "mv docs old-docs", "find docs -delete", "rm -rf .",
                                     "cd docs && rm -rf images"])
def test_deleting_a_folder_above_a_guarded_path_is_stopped(line, command):
    assert stops(guards_of(line), command)


@pytest.mark.parametrize("line", [REMOVE, EDIT])
@pytest.mark.parametrize("command", ["rm docs", "rm -rf docs/guide", "rm -rf doc", "rm -rf docs2",
                                     "mv notes.md docs", "cp -r docs /tmp/backup", "ls -R docs",
                                     "cat docs/images/a.png", "rm -rf /tmp/docs"])
def test_near_misses_of_a_parent_delete_pass(line, command):
    assert not stops(guards_of(line), command)


def test_unanchored_pattern_is_not_a_parent_of_everything():
    guard_set = guards_of("- Never modify `*.snap` files manually.")
    assert not stops(guard_set, "rm -rf src")
    assert stops(guard_set, "rm src/__snapshots__/a.snap")


def test_parent_delete_of_a_subfolder_rule_is_anchored_there():
    rules = rules_in(EDIT, "packages/web/AGENTS.md")
    guard_set = GuardSet([Guard(rules[0].spec, 1, "project", f"{ROOT}/packages/web", "packages/web/AGENTS.md:1")])
    assert stops(guard_set, "rm -rf packages/web/docs")
    assert not stops(guard_set, "rm -rf docs")  # the root's docs/, not the package's


EDIT_CASES = [
    ("- Never edit generated files in `src/gen/`.",
     [("Edit", "src/gen/api.ts"), ("Bash", "sed -i s/a/b/ src/gen/api.ts")],
     [("Edit", "src/app.ts"), ("Read", "src/gen/api.ts"), ("Bash", "cat src/gen/api.ts")]),
    ("- Never edit generated files (`src/gen/**`).",
     [("Write", "src/gen/deep/x.ts"), ("Bash", "echo x > src/gen/x.ts")],
     [("Edit", "src/general.ts"), ("Bash", "grep x src/gen/x.ts")]),
    ("- Never edit existing migration files in `db/migrate/`.",
     [("Edit", "db/migrate/001_init.rb")],
     [("Edit", "db/schema.rb"), ("Bash", "ls db/migrate")]),
]


def _call(tool: str, target: str):
    args = {"command": target} if tool == "Bash" else {"file_path": f"{ROOT}/{target}"}
    return normalize_call(tool, args, ROOT, project_root=ROOT)


@pytest.mark.parametrize("line,violations,fine", EDIT_CASES)
def test_edit_rules_with_a_described_object(line, violations, fine):
    guard_set = guards_of(line)
    for tool, target in violations:
        assert guard_set.check(_call(tool, target)), f"{line!r} should stop {tool} {target}"
    for tool, target in fine:
        assert not guard_set.check(_call(tool, target)), f"{line!r} should allow {tool} {target}"


@pytest.mark.parametrize("line,violation,fine", [
    ("- Do not run the dev server (`npm run dev`).", "npm run dev", "npm run build"),
    ("- Do not commit files in `secrets/`.", "git add secrets/key.pem", "git add src/a.ts"),
    ("- Never remove existing migrations in `db/migrations/`.", "rm db/migrations/001.sql", "mv db/migrations/001.sql db/migrations/002.sql"),
])
def test_named_in_parentheses_and_described_objects(line, violation, fine):
    guard_set = guards_of(line)
    assert stops(guard_set, violation)
    assert not stops(guard_set, fine)


@pytest.mark.parametrize("line", [
    "- Don't write tests in `src/`.",  # where new files go, not a protected folder
    "- Never amend commits (`--amend`) unless asked.",
    "- Never run the tests (`pytest`) in CI.",
])
def test_described_objects_that_stay_memories(line):
    assert rules_in(line, "AGENTS.md") == []


def test_a_list_of_commands_keeps_the_ones_with_an_exact_shape():
    guard_set = guards_of("7. Never run `git stash`, `git stash pop`, `git reset`, `git checkout --`, or `git restore`.")
    for command in ("git stash", "git stash pop", "git reset --hard", "git restore src/a.ts"):
        assert stops(guard_set, command)
    for command in ("git status", "git checkout main", "git log", "git diff"):
        assert not stops(guard_set, command)
    # a list with a word that is not a program's command stays a memory
    assert rules_in("- Never use `git stash` or `any` casts.", "AGENTS.md") == []


def test_quoted_paths_of_a_mixed_list():
    guard_set = guards_of("- Do not edit files in `docs/contracts/`, `docs/layers/`, or registry facet values.")
    assert guard_set.check(_call("Edit", "docs/contracts/a.md"))
    assert guard_set.check(_call("Edit", "docs/layers/x/b.md"))
    assert not guard_set.check(_call("Edit", "docs/guide.md"))


def test_a_callout_of_the_file_is_read_and_an_example_in_one_is_not():
    text = "> **Warning:** Do not edit files in `rendered/` directly.\n> [!CAUTION]\n> Example: never run `npm publish`\n"
    rules = rules_in(text, "AGENTS.md")
    assert [r.line for r in rules] == [1]
    assert rules[0].text.startswith("Warning: Do not edit")


def test_automatically_changes_nothing_about_what_to_stop():
    guard_set = guards_of("- Don't run `drizzle-kit push` automatically — DB-touching commands are the user's call.")
    assert stops(guard_set, "drizzle-kit push")
    assert not stops(guard_set, "drizzle-kit generate")
    assert rules_in("- Don't run `drizzle-kit push` automatically unless the user asks.", "AGENTS.md") == []


def test_a_list_of_prohibitions_is_a_rule_each():
    guard_set = guards_of("- Never commit, push, or open PRs.")
    for command in ("git commit -m x", "git push origin feature", "gh pr create --fill"):
        assert stops(guard_set, command)
    for command in ("git status", "gh pr view 3", "gh pr list"):
        assert not stops(guard_set, command)
    edits = guards_of("- Never edit `a.ts`, modify `b/`, or delete `c/`.")
    assert edits.check(_call("Edit", "a.ts")) and edits.check(_call("Edit", "b/x.ts"))
    assert stops(edits, "rm c/old.txt") and not edits.check(_call("Edit", "c/new.txt"))


@pytest.mark.parametrize("line", [
    "- Never refactor, rename, or restructure code.",
    "- Never commit, push, or create noise in the tracker.",  # one phrase without an exact shape: nothing
    "- Do not use npm commands, use pnpm, push, or merge.",
    "- never run prettier, we format with oxfmt via yarn format, rebase",
])
def test_a_list_with_a_phrase_that_is_not_exact_stays_a_memory(line):
    specs = [r.spec.match for r in rules_in(line, "AGENTS.md")]
    assert not any(isinstance(m, PushMatch) for m in specs)
    if "npm" not in line and "prettier" not in line:  # "do not use npm commands", "never run prettier": rules of their own
        assert specs == []


def test_the_subject_of_a_line_with_no_object():
    commit = guards_of("`AcmeBank.xcodeproj` is **generated** — never commit it. The source of truth is `project.yml`.")
    assert stops(commit, "git add AcmeBank.xcodeproj")
    assert not stops(commit, "git add project.yml")
    edit = guards_of("- `src/api.ts` is generated — do not edit it.")
    assert edit.check(_call("Edit", "src/api.ts")) and not edit.check(_call("Edit", "src/app.ts"))


@pytest.mark.parametrize("line", [
    "The markdown files in this directory are **auto-generated** by the scripts in `scripts/`. Do not edit them directly.",
    "Files in docs/ are generated by `tools/gen.py`. Do not edit them.",
    "These files are copied from `upstream/` by the sync job, never edit them.",
])
def test_what_makes_the_files_is_not_what_them_is(line):
    """The generator (after "by", "from", "via", "using") is what to edit; "them" are the made files."""
    assert rules_in(line, "AGENTS.md") == []


def test_the_made_file_said_first_is_still_the_object():
    edit = guards_of("`api.ts` is generated by `scripts/gen.sh`. Do not edit it.")
    assert edit.check(_call("Edit", "api.ts")) and not edit.check(_call("Edit", "scripts/gen.sh"))


def test_a_list_after_never_commit_and_a_colon_is_its_object():
    commit = guards_of("- **NEVER commit**: ROM files, build artifacts, `.wasm` files")
    assert stops(commit, "git add game.wasm")
    assert not stops(commit, "git commit -m 'fix: timer'") and not stops(commit, "git add src/cpu.rs")
    assert [r.spec.describe() for r in rules_in("Never commit: it breaks CI", "AGENTS.md")] == ["`git commit`"]
    assert rules_in("Never commit: secrets, keys, or tokens", "AGENTS.md") == []  # no path: a memory


def test_objectless_verb_lists_and_cli_commands():
    guard_set = guards_of("- `schema.graphql` is generated, never edit or delete it.")
    assert guard_set.check(_call("Edit", "schema.graphql"))
    assert stops(guard_set, "rm schema.graphql")
    assert not stops(guard_set, "cat schema.graphql")
    dotnet = guards_of("**Do not run `dotnet` CLI commands.** Testing is done inside the Unity engine.")
    assert stops(dotnet, "dotnet build") and not stops(dotnet, "git status")
    assert rules_in("Do not run `frobnicate` CLI commands.", "AGENTS.md") == []  # not a known program


def test_a_list_of_sql_statements():
    guard_set = guards_of("Never run `DROP TABLE`, `TRUNCATE` or a `DELETE` without a `WHERE` clause.")
    for command in ("psql -c 'DROP TABLE users'", "mysql -e 'TRUNCATE t'", "sqlite3 a.db 'DELETE FROM t'",
                    "psql <<EOF\nDELETE FROM users;\nEOF"):
        assert stops(guard_set, command), command
    for command in ("psql -c 'DELETE FROM t WHERE id=1'", "psql -c 'SELECT 1'", "mysql -e 'SHOW TABLES'"):
        assert not stops(guard_set, command), command
    assert rules_in("Never drop tables or delete rows casually.", "AGENTS.md") == []


@pytest.mark.parametrize("lesson,path", [
    ("don't edit CHANGELOG.md, git-cliff generates it", "CHANGELOG.md"),
    ("never touch `openapi.json`, the build regenerates it", "openapi.json"),
    ("don't modify dist/, CI publishes it", "dist/"),
])
def test_a_fact_after_a_comma_is_the_reason(lesson, path):
    (spec,) = derive_guards(lesson)
    assert spec.match.patterns == (path,)


def test_a_fact_after_a_comma_still_cannot_hide_an_exception():
    assert derive_guards("don't edit CHANGELOG.md, git-cliff generates it unless it breaks") == ()


def test_files_written_by_a_tool_not_by_hand():
    (spec,) = derive_guards("never write the changelog yaml files in .changes/ by hand, use changie new")
    guard_set = GuardSet([Guard(spec, 1, "project", ROOT, "lesson")])
    assert guard_set.check(_call("Write", ".changes/unreleased/x.yaml"))
    assert not guard_set.check(_call("Write", "docs/changes.md"))
    assert not stops(guard_set, "changie new --kind Fixed --body x")
    assert derive_guards("don't write tests in src/") == ()  # where new files go: no guard


# ---- third round: shapes found on more public rule lines -------------------------------------------
@pytest.mark.parametrize("line,violations,fine", [
    # a bare "never:" before a quoted list: the list is what never to run
    ("- **AI agents NEVER**: `pnpm version`, `pnpm release`, `pnpm publish:beta`",
     ["pnpm version patch", "pnpm release", "pnpm publish:beta"],
     ["pnpm build", "pnpm test", "pnpm publish:beta --help"]),
    # the action a flag belongs to is no condition: the matcher sees the command
    ("- You are not allowed to use `--no-verify` when making a commit or push.",
     ["git commit --no-verify -m x", "git push --no-verify"],
     ["git commit -m x", "git push origin feature"]),
    ("never use --no-verify when committing", ["git commit --no-verify -m x"], ["git commit -m x"]),
    # node version managers are programs
    ("1. **NEVER** use `nvm`, `fnm`, or other Node version managers",
     ["nvm use 20", "fnm use 20", "nvm install 22"],
     ["node --version", "volta install node@20", "pnpm install"]),
])
def test_third_round_command_lines(line, violations, fine):
    guard_set = guards_of(line)
    for command in violations:
        assert stops(guard_set, command), f"{line!r} should stop {command!r}"
    for command in fine:
        assert not stops(guard_set, command), f"{line!r} should let {command!r} run"


@pytest.mark.parametrize("line,violations,fine", [
    # "`.api` files": every file with that extension
    ("- **Never edit `.api` files manually.** Run `./gradlew apiDump` to regenerate them.",
     ["sentry/api/sentry.api", "api/core.api"], ["sentry/src/Main.java", "docs/api.md", "api/README"]),
    # "are generated, never hand-edited": a passive prohibition after a fact
    ("- **API Compatibility**: Binary compatibility is enforced. `.api` files are generated, never hand-edited",
     ["sentry/api/sentry.api"], ["sentry/build.gradle.kts"]),
    ("`dist/` is never edited by hand", ["dist/index.js"], ["src/index.ts"]),
    # "generated files: `a`, `b` (run …)": the list after the colon names them
    ("Never hand-edit generated files: `packages/api-types/types/**`, `**/routeTree.gen.ts`, "
     "`supabase/functions/common/database-types.ts` (run `pnpm generate:types`).",
     ["packages/api-types/types/api.d.ts", "apps/studio/src/routeTree.gen.ts",
      "supabase/functions/common/database-types.ts"],
     ["apps/studio/src/routes/index.tsx", "packages/api-types/package.json", "supabase/functions/main.ts"]),
])
def test_third_round_path_lines(line, violations, fine):
    guard_set = guards_of(line)
    for path in violations:
        assert guard_set.check(_call("Edit", path)), f"{line!r} should stop editing {path!r}"
        assert not guard_set.check(_call("Read", path)), f"{line!r} should let {path!r} be read"
    for path in fine:
        assert not guard_set.check(_call("Edit", path)), f"{line!r} should let {path!r} be edited"


def test_dot_extension_files_cover_the_bare_dotfile_too():
    (spec,) = derive_guards("never commit `.env` files")
    assert spec.match.patterns == ("*.env",)
    guard_set = GuardSet([Guard(spec, 1, "project", ROOT, "lesson")])
    assert stops(guard_set, "git add .env") and stops(guard_set, "git add config/prod.env")
    assert not stops(guard_set, "git add .env.example")


@pytest.mark.parametrize("line", [
    # still conditions the matcher cannot see
    "Never use `--no-verify` when the hooks are slow.",
    "Do not push when CI is red.",
    "Never: this is about style, `any` is bad",  # a colon before prose and a type, not commands
    "Files: `src/a.ts`, `src/b.ts`",  # a list with no prohibition
    "Never edit `.api` files unless the API changed.",
    "- Do NOT modify the `packageManager` field in `package.json`",  # a part of a file
])
def test_third_round_lines_that_stay_memories(line):
    assert rules_in(line, "AGENTS.md") == []


@pytest.mark.parametrize("line,violations,fine", [
    # a script of the project by its relative path, unquoted, after "run"
    ("- Do not run ./scripts/cargo/fix.sh. Do not format the code yourself.",
     ["./scripts/cargo/fix.sh", "scripts/cargo/fix.sh --all"], ["cargo check", "./scripts/cargo/check.sh"]),
    ("never run script/tag-release", ["script/tag-release v1.2.0", "./script/tag-release"], ["script/build"]),
    # framework CLIs are programs
    ("never run next dev", ["next dev", "npx next dev", "next dev -p 3001"], ["next build", "pnpm lint"]),
])
def test_scripts_and_framework_clis(line, violations, fine):
    guard_set = guards_of(line)
    for command in violations:
        assert stops(guard_set, command), f"{line!r} should stop {command!r}"
    for command in fine:
        assert not stops(guard_set, command), f"{line!r} should let {command!r} run"


def test_make_changes_to_is_an_edit():
    guard_set = guards_of("- Do not make changes to docker/dev* configs. Instead, edit the template in docker/template/.")
    assert guard_set.check(_call("Edit", "docker/dev/docker-compose.yml"))
    assert guard_set.check(_call("Edit", "docker/dev-multinode/docker-compose.yml"))
    assert not guard_set.check(_call("Edit", "docker/template/src/main.ts"))
    assert not guard_set.check(_call("Read", "docker/dev/docker-compose.yml"))


@pytest.mark.parametrize("line", [
    "- Worker code reads bindings from `env`; do not use Vite environment variables there.",  # a name in prose
    "Never use Docker volumes for the cache.",
    "don't run src/ files",  # a folder is not a script
    "never run the e2e/ test scripts unless asked",
])
def test_prose_names_and_folders_stay_memories(line):
    assert rules_in(line, "AGENTS.md") == []


def test_that_file_is_the_file_the_tool_writes():
    line = ("**Generated docs**: `make style` auto-regenerates `docs/source/en/package_reference/cli.md` via "
            "`utils/generate_cli_reference.py`. Don't edit that file by hand.")
    guard_set = guards_of(line)
    assert guard_set.check(_call("Edit", "docs/source/en/package_reference/cli.md"))
    assert not guard_set.check(_call("Edit", "utils/generate_cli_reference.py"))
    assert not stops(guard_set, "make style")
    # two files written, or none said: which one "that file" is stays unknown
    assert rules_in("`make` regenerates `a.md` and writes `b.md`. Don't edit that file.", "AGENTS.md") == []
    assert rules_in("See `a.md` and `b.md`. Don't edit that file.", "AGENTS.md") == []


def test_telling_the_user_is_no_exception():
    guard_set = guards_of("- Do not run `next dev` yourself. If you need a specific change to be tested, "
                          "tell me to manually check it for you.")
    assert stops(guard_set, "next dev") and not stops(guard_set, "next build")


@pytest.mark.parametrize("line", [
    "Never push to main. If you need to push, tell me first.",  # then it may happen: an exception
    "Never push to main. If you must, ask me.",
    "Don't run next dev. If it is needed, let me know, then run it.",
])
def test_a_way_to_do_it_anyway_still_vetoes(line):
    assert rules_in(line, "AGENTS.md") == []


@pytest.mark.parametrize("line,violations,fine", [
    # the flag's purpose is no condition
    ("- Do not use `--no-verify` to bypass hooks.", ["git commit --no-verify -m x"], ["git commit -m x"]),
    # the `--` separator inside a command says nothing
    ("- Don't call `git checkout -- .`", ["git checkout -- .", "git checkout ."], ["git checkout main"]),
    # "on any directory" widens nothing: the command is the rule
    ("- Do not run `rm -rf` on any directory.", ["rm -rf build", "rm -fr /tmp/x"], ["rm build/a.o", "ls -la"]),
])
def test_purposes_separators_and_anywhere(line, violations, fine):
    guard_set = guards_of(line)
    for command in violations:
        assert stops(guard_set, command), f"{line!r} should stop {command!r}"
    for command in fine:
        assert not stops(guard_set, command), f"{line!r} should let {command!r} run"


def test_an_adjective_before_a_quoted_path():
    guard_set = guards_of("- Never edit the auto-generated `api.ts` file.")
    assert guard_set.check(_call("Edit", "src/client/api.ts"))
    assert not guard_set.check(_call("Edit", "src/client/api.test.ts"))
    assert rules_in("never edit generated code", "AGENTS.md") == []
    assert rules_in("Never run `rm -rf` anywhere unless asked", "AGENTS.md") == []


@pytest.mark.parametrize("line,violations,fine", [
    ("NEVER run bare `pnpm sync:snippets` — it rewrites every fenced block in `docs/` and",
     ["pnpm sync:snippets"], ["pnpm sync:snippets docs/guide.md", "pnpm sync:snippets --check", "pnpm build"]),
    ("never run a plain cargo update", ["cargo update"], ["cargo update -p tokio --precise 1.40.0", "cargo build"]),
])
def test_a_bare_command_is_only_the_command_with_nothing_after_it(line, violations, fine):
    guard_set = guards_of(line)
    for command in violations:
        assert stops(guard_set, command), f"{line!r} should stop {command!r}"
    for command in fine:
        assert not stops(guard_set, command), f"{line!r} should let {command!r} run"


def test_a_bare_command_survives_the_store_and_needs_an_exact_command():
    from tacit.guards.model import GuardSpec
    (spec,) = derive_guards("never run a bare `pnpm test`")
    assert spec.match == CommandMatch(("pnpm",), ("test",), (), True, True)
    assert GuardSpec.from_dict(spec.to_dict()).match == spec.match
    assert "bare" not in derive_guards("never run `pnpm test`")[0].match.to_dict()  # stored as before
    assert derive_guards("never run a bare `git push --force`") == ()  # flags: not a bare command
    assert derive_guards("never run a plain old build") == ()


@pytest.mark.parametrize("line,violations,fine", [
    # the project's script over the tool it wraps, "bare … invocation" read as the tool itself
    ("- **Use `yarn e2e`, not a bare `vitest` invocation.** `yarn e2e` runs the `pree2e` step first.",
     ["vitest", "npx vitest run test/e2e", "vitest run"], ["yarn e2e", "yarn e2e -t 'Browser Tracing'", "yarn build"]),
    ("Use `make lint`, not the plain ruff command.", ["ruff check .", "ruff format src"],
     ["make lint", "make test", "uv sync"]),
    ("Use `pnpm test`, not jest.", ["jest", "npx jest src/a.test.ts"], ["pnpm test", "pnpm test -- a.test.ts"]),
])
def test_a_project_script_over_the_tool_it_wraps(line, violations, fine):
    guard_set = guards_of(line)
    for command in violations:
        assert stops(guard_set, command), f"{line!r} should stop {command!r}"
    for command in fine:
        assert not stops(guard_set, command), f"{line!r} should let {command!r} run"


@pytest.mark.parametrize("line", [
    "use `uv run pytest`, not pytest",  # the script names the tool: a guard would stop the script itself
    "Use `slices.Clone`, not append",  # code, not a command
    "Use `pnpm install`, not a bare `cargo` invocation",  # cargo is not a tool a node script wraps
])
def test_script_over_tool_needs_a_runner_a_wrapped_tool_and_no_overlap(line):
    assert not derive_guards(line)


def test_rc_files_cover_their_config_variants():
    guard_set = guards_of("- Do not create, modify, or suggest `.eslintrc`, `eslint.config.*`, or `.prettierrc` files")
    for path in (".eslintrc", ".eslintrc.json", ".eslintrc.cjs", "eslint.config.mjs", ".prettierrc", ".prettierrc.yaml"):
        assert guard_set.check(_call("Edit", path)), path
        assert not guard_set.check(_call("Read", path)), path
    for path in (".oxlintrc.json", "src/eslint.ts", ".prettierignore", "package.json"):
        assert not guard_set.check(_call("Edit", path)), path


def test_whose_folder_and_during_development_change_nothing():
    (spec,) = derive_guards("- During development don't EVER write to my personal ~/.km dir")
    assert spec.match.patterns == ("~/.km/",)
    (spec,) = derive_guards("don't edit our local `cache/` folder")
    assert spec.match.patterns == ("cache/",)
    guard_set = GuardSet([Guard(spec, 1, "project", ROOT, "lesson")])
    assert guard_set.check(_call("Edit", "cache/a.json")) and not guard_set.check(_call("Edit", "src/cache.ts"))
    # a scope the matcher cannot see is still a condition: it vetoes
    assert not derive_guards("while developing, don't write to ~/.km")


@pytest.mark.parametrize("line,violations,fine", [
    ("never rename files with mv, use git mv", ["mv a.py b.py", "mv -f lib/old.dart lib/new.dart"],
     ["git mv a.py b.py", "git add b.py", "ls"]),
    ("don't delete files with `rm`", ["rm a.txt", "rm -rf build"], ["git rm a.txt", "ls"]),
])
def test_the_program_whose_job_the_verb_names(line, violations, fine):
    guard_set = GuardSet([Guard(spec, 1, "project", ROOT, "lesson") for spec in derive_guards(line)])
    assert guard_set.guards, line
    for command in violations:
        assert stops(guard_set, command), f"{line!r} should stop {command!r}"
    for command in fine:
        assert not stops(guard_set, command), f"{line!r} should let {command!r} run"


@pytest.mark.parametrize("line", [
    "never copy secrets with cp",  # the object narrows it: not every cp
    "don't edit files with sed",  # sed also only reads (sed -n): not every sed
    "never stage files with mv",  # not what mv is for
])
def test_a_narrowed_or_unrelated_verb_with_a_program_stays_a_memory(line):
    assert not derive_guards(line)


def test_what_a_quoted_path_is_does_not_become_a_path():
    guard_set = guards_of("3. Do not delete or rename files under `docs/images/` as frozen snapshots")
    assert stops(guard_set, "rm docs/images/crew.png")
    assert stops(guard_set, "git mv docs/images/crew.png docs/images/old.png")
    assert not stops(guard_set, "cp docs/images/crew.png /tmp/") and not stops(guard_set, "ls docs/images")
    assert not guard_set.check(_call("Edit", "docs/images/README.md"))


def test_vendored_files_are_the_vendor_folder():
    guard_set = guards_of("**Never edit vendored files directly**—use `go get` then `make vendor`.")
    assert guard_set.check(_call("Edit", "vendor/github.com/containers/storage/store.go"))
    assert stops(guard_set, "sed -i 's/a/b/' vendor/github.com/containers/image/copy.go")
    assert not guard_set.check(_call("Read", "vendor/github.com/containers/storage/store.go"))
    assert not guard_set.check(_call("Edit", "libpod/container.go"))
    assert not stops(guard_set, "go get github.com/containers/storage@main")
    assert not derive_guards("never add vendored files")  # adding is not editing what is there


def test_made_things_that_live_in_the_lines_one_folder():
    guard_set = guards_of("- Build outputs and native plugins live in `package-dev/`; do not hand-edit generated "
                          "assemblies or downloaded native artifacts.")
    assert guard_set.check(_call("Edit", "package-dev/Runtime/Sentry.Unity.dll"))
    assert not guard_set.check(_call("Read", "package-dev/Runtime/Sentry.Unity.dll"))
    assert not guard_set.check(_call("Edit", "src/Sentry.Unity/SentryUnity.cs"))


@pytest.mark.parametrize("line", [
    "do not hand-edit generated assemblies",  # no folder: a memory
    "Types are in `src/types/`; don't edit generated files",  # "are in" does not say all of them are made
    "Run `pnpm generate`; do not edit generated files",  # a command, not a folder
    "Outputs live in `dist/` and `build/`; don't edit generated bundles",  # which folder: not one
])
def test_made_things_need_one_folder_they_live_in(line):
    assert not derive_guards(line)
