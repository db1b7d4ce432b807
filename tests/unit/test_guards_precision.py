"""Precision of guards: the close calls a rule does not forbid pass, and its
violations are still stopped. A secret file's variants, reading a protected
file, another branch, another subcommand, a command only mentioned (echo,
quotes, comments, commit messages, here-document bodies), help and dry runs,
read-only verbs; and an exception vetoes only the clause it belongs to."""

from __future__ import annotations

import shutil

import pytest
from guard_helpers import Session, engine_for, git_repo, remember

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.paths import compile_pattern

ROOT = "/home/u/proj"


def guard_set(lesson: str) -> GuardSet:
    specs = derive_guards(lesson)
    assert specs, f"no guard from {lesson!r}"
    return GuardSet([Guard(s, i + 1, "project", ROOT, "lesson") for i, s in enumerate(specs)])


def stops(guards: GuardSet, tool: str, target: str, branch: str | None = None) -> bool:
    if tool == "Bash":
        args = {"command": target}
    else:
        args = {"file_path": target if target.startswith("/") else f"{ROOT}/{target}", "old_string": "a",
                "new_string": "b"}
    return bool(guards.check(normalize_call(tool, args, ROOT, project_root=ROOT, branch=branch)))


# (lesson, violations, fine calls): ("Edit", path) or ("Bash", command)
CASES = [
    ("never edit .env",
     [("Edit", ".env"), ("Edit", ".env.local"), ("Edit", ".env.production"), ("Edit", "apps/web/.env.development.local"),
      ("Bash", "echo A=1 >> .env.local"), ("Write", ".env.test.local")],
     [("Edit", ".env.example"), ("Edit", ".env.sample"), ("Edit", ".env.template"), ("Edit", ".env.local.example"),
      ("Bash", "cp .env.example .env.test"), ("Edit", ".env.ci"),
      ("Edit", ".envrc"), ("Edit", "src/env.ts"), ("Bash", "cat .env"), ("Bash", "grep KEY .env.local"),
      ("Bash", "less .env"), ("Bash", "head -n3 .env"), ("Bash", "diff .env .env.example"),
      ("Bash", "cp .env.example .env.sample"), ("Bash", "cp .env /tmp/env.bak"), ("Bash", "cat .env > /dev/null"),
      ("Bash", "2>.env.log make"), ("Bash", "docker run --env-file .env img")]),
    ("don't touch `config/.env`",
     [("Edit", "config/.env"), ("Edit", "config/.env.staging")],
     [("Edit", "config/.env.example"), ("Edit", "other/.env.local")]),
    ("never commit .env",
     [("Bash", "git add .env"), ("Bash", "git add -f .env.local"), ("Bash", "git add .env.production")],
     [("Bash", "git add .env.example"), ("Bash", "git add .env.template"), ("Bash", "git commit -m 'document .env'")]),
    ("never push to main",
     [("Bash", "git push origin main"), ("Bash", "git push origin HEAD:main")],
     [("Bash", "git push origin feature"), ("Bash", "git push -u origin my-branch"),
      ("Bash", "git push origin feature:feature"), ("Bash", "git push --dry-run origin main"),
      ("Bash", "git push -n origin main"), ("Bash", "git push --help"), ("Bash", "git pull origin main"),
      ("Bash", "git fetch origin main"), ("Bash", "git commit -m 'never push to main'"),
      ("Bash", "echo 'git push origin main'")]),
    ("use pnpm, never npm",
     [("Bash", "npm install"), ("Bash", "bash -c 'npm install'"), ("Bash", "echo $(npm bin)"),
      ("Bash", "bash <<EOF\nnpm install\nEOF")],
     [("Bash", "pnpm install"), ("Bash", "echo npm install"), ("Bash", "git commit -m 'never npm install'"),
      ("Bash", "# npm install\npnpm i"), ("Bash", "cat <<EOF > notes.md\nrun npm install\nEOF"),
      ("Bash", "git commit -F - <<EOF\nnever npm install\nEOF"), ("Bash", "grep -r 'npm install' docs"),
      ("Bash", "printf 'npm i\\n'"), ("Bash", "which npm"), ("Bash", "pnpm add -D npm-check")]),
    ("never run npm install",
     [("Bash", "npm install"), ("Bash", "npm i lodash")],
     [("Bash", "npm run build"), ("Bash", "npm test"), ("Bash", "npm install --help"), ("Bash", "npm install -h"),
      ("Bash", "npm help install"), ("Bash", "npm install --dry-run"), ("Bash", "npm run install-deps")]),
    ("never run terraform apply",
     [("Bash", "terraform apply"), ("Bash", "terraform apply -auto-approve")],
     [("Bash", "terraform plan"), ("Bash", "terraform apply -help"), ("Bash", "terraform apply -h")]),
    ("Never run `kubectl delete`",
     [("Bash", "kubectl delete pod x"), ("Bash", "kubectl delete --dry-run=none -f x.yaml")],
     [("Bash", "kubectl delete --dry-run=client -f x.yaml"), ("Bash", "kubectl delete -h"), ("Bash", "kubectl get pods")]),
    ("never run git clean -fd",
     [("Bash", "git clean -fd"), ("Bash", "git clean -df")],
     [("Bash", "git clean -n"), ("Bash", "git clean -fdn"), ("Bash", "git clean -nfd"),
      ("Bash", "git clean --dry-run -fd")]),
    ("Never use `git stash`",
     [("Bash", "git stash"), ("Bash", "git stash push -m wip"), ("Bash", "git stash pop"), ("Bash", "git stash -u")],
     [("Bash", "git stash list"), ("Bash", "git stash show -p"), ("Bash", "git status")]),
    ("never use --no-verify",
     [("Bash", "git commit --no-verify -m x"), ("Bash", "git commit -n -m x"), ("Bash", "git commit -nm x")],
     [("Bash", "git commit -m x"), ("Bash", "git push -n origin feature"), ("Bash", "git log -n 3")]),
    ("Never edit files in migrations/",
     [("Edit", "migrations/001.sql"), ("Bash", "sed -i s/a/b/ migrations/001.sql")],
     [("Bash", "cat migrations/001.sql"), ("Bash", "grep -r foo migrations/"), ("Bash", "git diff migrations/"),
      ("Bash", "sed -n 1,10p migrations/001.sql"), ("Bash", "cp migrations/001.sql /tmp/x.sql"),
      ("Bash", "git log -- migrations/"), ("Bash", "python manage.py makemigrations")]),
    ("never run git commit --amend",
     [("Bash", "git commit --amend"), ("Bash", "git commit --amend --no-edit")],
     [("Bash", "git commit -m 'fix --amend handling'"), ("Bash", "git commit -m x")]),
    ("never run make deploy",
     [("Bash", "make deploy"), ("Bash", "make build deploy")],
     [("Bash", "make build"), ("Bash", "make -n deploy"), ("Bash", "make deploy-docs"), ("Bash", "make -h")]),
]


@pytest.mark.parametrize("lesson,violations,fine", CASES, ids=[c[0] for c in CASES])
def test_violations_stop_and_close_calls_pass(lesson, violations, fine):
    guards = guard_set(lesson)
    assert [v for v in violations if not stops(guards, *v)] == []
    assert [f for f in fine if stops(guards, *f)] == []


def test_git_commit_on_main_with_n_is_a_commit():
    """``git commit -n`` skips the hooks: it commits (it is no dry run)."""
    guards = guard_set("never commit to main")
    assert stops(guards, "Bash", "git commit -n -m x", branch="main")
    assert not stops(guards, "Bash", "git commit -n -m x", branch="feature")


@pytest.mark.parametrize("pattern,path,hit", [
    (".env", ".env.local", True), (".env", "a/b/.env.production.local", True), (".env", ".env.example", False),
    (".env", ".env.sample", False), (".env", ".env.template", False), (".env", ".env.bak", False),
    (".env", ".env.log", False), (".env", ".envrc", False), ("*.env", "prod.env.local", True),
    ("*.env", "prod.env.example", False), ("config/.env", "config/.env.staging", True),
    ("config/.env", "x/config/.env.staging", False), (".env", ".env.test", False), (".env", ".env.test.local", True), (".env.local", ".env.local", True),
    (".env.local", ".env.production", False),
])
def test_a_secret_file_covers_its_environment_variants(pattern, path, hit):
    mode, regex = compile_pattern(pattern)
    assert mode == "rel" and bool(regex.search(path)) is hit


# ---------------------------------------------------------------------------
# A subfolder's instruction file: its guards live below its folder
# ---------------------------------------------------------------------------
def nested(line: str, folder: str = "packages/bot") -> GuardSet:
    from tacit.guards.instructions import rules_in
    rules = rules_in(line, f"{folder}/AGENTS.md")
    assert rules, line
    return GuardSet([Guard(r.spec, i + 1, "project", f"{ROOT}/{folder}", f"{folder}/AGENTS.md:1")
                     for i, r in enumerate(rules)])


def at(guards: GuardSet, tool: str, target: str, cwd: str = ROOT) -> bool:
    args = {"command": target} if tool == "Bash" else {"file_path": f"{ROOT}/{target}"}
    return bool(guards.check(normalize_call(tool, args, cwd, project_root=ROOT)))


@pytest.mark.parametrize("line", ["- Never commit `.env`.", "- Never commit `packages/bot/.env`."])
def test_a_subfolder_commit_rule_by_its_own_path_or_from_the_root(line):
    guards = nested(line)
    assert at(guards, "Bash", "git add packages/bot/.env")  # git run at the root
    assert at(guards, "Bash", "git add .env.local", cwd=f"{ROOT}/packages/bot")
    assert not at(guards, "Bash", "git add .env")  # the root's .env: not this folder's rule
    assert not at(guards, "Bash", "git add packages/bot/.env.example")


@pytest.mark.parametrize("line", ["- `src/gen/api.ts` — generated, do not edit directly",
                                  "- Don't edit `packages/bot/src/gen/api.ts`."])
def test_a_subfolder_edit_rule_by_its_own_path_or_from_the_root(line):
    guards = nested(line)
    assert at(guards, "Edit", "packages/bot/src/gen/api.ts")
    assert at(guards, "Bash", "sed -i s/a/b/ src/gen/api.ts", cwd=f"{ROOT}/packages/bot")
    assert not at(guards, "Edit", "src/gen/api.ts")  # the root's file of that name
    assert not at(guards, "Edit", "packages/other/src/gen/api.ts")
    assert not at(guards, "Edit", "packages/bot/packages/bot/src/gen/x.ts")


def test_an_unanchored_name_never_matches_the_folder_itself():
    guards = nested("- Don't touch `bot/`.")  # a `bot/` folder anywhere below packages/bot
    assert not at(guards, "Edit", "packages/bot/src/index.ts")
    assert at(guards, "Edit", "packages/bot/src/bot/index.ts")


def test_a_subfolder_command_rule_applies_to_commands_run_below_it():
    guards = nested("- Never run `next dev`.", "site")
    assert at(guards, "Bash", "next dev", cwd=f"{ROOT}/site")
    assert at(guards, "Bash", "cd site && npx next dev")
    assert not at(guards, "Bash", "next dev")  # at the root: another app


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_through_the_engine_a_subfolder_file_guards_its_folder(cfg, tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "packages" / "bot").mkdir(parents=True)
    (repo / "packages" / "bot" / "AGENTS.md").write_text(
        "- Never commit `packages/bot/.env`.\n- `src/gen/api.ts` \u2014 generated, do not edit directly\n")
    engine = engine_for(cfg)
    try:
        session = Session(engine, repo)
        assert "packages/bot/AGENTS.md:1" in session.call("git add packages/bot/.env.local").reason
        assert not session.call("git add .env").reason
        assert not session.call("git add packages/bot/.env.example").reason
        edit = {"file_path": str(repo / "packages" / "bot" / "src" / "gen" / "api.ts"), "old_string": "a",
                "new_string": "b"}
        assert "packages/bot/AGENTS.md:2" in session.call(name="Edit", args=edit).reason
        top = {"file_path": str(repo / "src" / "gen" / "api.ts"), "old_string": "a", "new_string": "b"}
        assert not session.call(name="Edit", args=top).reason
    finally:
        engine.close()


# ---------------------------------------------------------------------------
# An exception vetoes the clause it belongs to
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lesson,guard", [
    # a later sentence's condition with a rule of its own
    ("Never edit vendored files directly. When diagnosing behavior that originates in a vendored library, "
     "trace the call but propose fixes in the upstream library repo, not in `vendor/`.", "changes to vendor/"),
    ("Use pnpm, not npm. When a script fails, run `pnpm install` again.", "`npm` (any use)"),
    ("Never run `git clean -fd`. When tests fail, read the log and fix the cause.", "`git clean -f -d`"),
    ("Never edit `dist/`. Run `npm run build` to regenerate the bundle unless you are on CI.", "changes to dist/"),
])
def test_a_later_sentences_condition_belongs_to_its_own_rule(lesson, guard):
    assert [s.describe() for s in derive_guards(lesson)] == [guard]


@pytest.mark.parametrize("lesson", [
    "Never push to main. Unless it's a hotfix.",  # no rule of its own: it is this rule's exception
    "Never push to main. Except hotfixes, which go to main directly.",
    "Never edit `dist/`. Unless told otherwise, regenerate it.",  # an exception leading a sentence reaches back
    "Never push to main. Use the staging branch for now.",  # a time limit scopes the whole rule
    "Never push to main. If it's urgent, push and tell me.",  # it names what the rule stops
    "Never edit `dist/`. When the build changes, regenerate `dist/` with `npm run build`.",
    "Use podman, not docker. When debugging, docker is fine.",  # a permission
    "Never run `npm publish`. If a release is due, run it.",  # it: what the rule forbids
    "Never edit `dist/`. When you must, do so with care.",
    "Never edit `dist/`. Run `npm run build` to regenerate it unless you are on CI.",  # it: conservatively the rule's
    "Never run `npm install`. If you need a package, ask me first.",
    "Never force push. When in doubt, ask.",  # asked, it may happen
    "Never run `git clean -fd`. If you must clean, use `git clean -n` first.",
    "When testing the server, assume you are logged in. Never run `npm install`.",  # a condition before sets the scene
    "Never push to main when CI is red.",  # the rule's own clause
    "Use pnpm, not npm, unless CI needs it.",
    "Never edit `dist/`, when it is stale, rebuild it.",  # the rule's own sentence
    "Never push to main. The only exception is hotfixes.",  # a later sentence naming the exception reaches back
    "Never run `npm publish`. Hotfixes are the exception.",
    "Don't push to `main`. Exception: hotfixes.",
])
def test_an_exception_on_the_rule_still_vetoes(lesson):
    assert derive_guards(lesson) == ()


# ---------------------------------------------------------------------------
# The alternative a lesson names passes
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lesson", ["Never run `git push --force`; use `--force-with-lease` instead.",
                                    "never use git push --force, prefer --force-with-lease",
                                    "Don't `git push --force` - use `git push --force-with-lease`.",
                                    "Don't use `git push --force` (use `--force-with-lease`)."])
def test_force_with_lease_named_as_the_way_passes(lesson):
    guards = guard_set(lesson)
    assert stops(guards, "Bash", "git push --force origin feature") and stops(guards, "Bash", "git push -f")
    assert stops(guards, "Bash", "git push --force-with-lease --force origin x")
    assert stops(guards, "Bash", "git push origin +feature")
    assert not stops(guards, "Bash", "git push --force-with-lease origin feature")
    assert not stops(guards, "Bash", "git push --force-with-lease --force-if-includes")


@pytest.mark.parametrize("lesson", ["never force push", "Never run `git push --force`.",
                                    "Never run `git push --force` or `--force-with-lease`."])
def test_force_with_lease_is_a_force_push_otherwise(lesson):
    specs = derive_guards(lesson)
    if specs:  # the last one may stay a memory; when it is a guard, lease is no way out
        assert stops(guard_set(lesson), "Bash", "git push --force-with-lease origin feature")


@pytest.mark.parametrize("lesson", ["Never run `cargo update`; run `cargo update -p <crate>` instead.",
                                    "never run `cargo update`, use `cargo update -p <crate>`"])
def test_a_narrower_command_named_as_the_way_passes(lesson):
    guards = guard_set(lesson)
    assert stops(guards, "Bash", "cargo update") and stops(guards, "Bash", "cargo update --workspace")
    assert not stops(guards, "Bash", "cargo update -p tokio --precise 1.40.0")


def test_the_flag_of_the_named_way_is_what_passes():
    guards = guard_set("use `npm install --frozen-lockfile`, not `npm install`")
    assert stops(guards, "Bash", "npm install") and stops(guards, "Bash", "npm install lodash")
    assert not stops(guards, "Bash", "npm install --frozen-lockfile")
    bare = guard_set("never run `pnpm test`, run `pnpm test packages/core` instead")  # no flag: only a bare one
    assert stops(bare, "Bash", "pnpm test") and not stops(bare, "Bash", "pnpm test packages/web")


@pytest.mark.parametrize("lesson,stopped,passed", [
    ("never run cargo update, run cargo update -p <crate> instead", ["cargo update"], ["cargo update -p serde"]),
    ("never run cargo update; use cargo update -p foo", ["cargo update", "cargo update --workspace"],
     ["cargo update -p serde"]),
    ("never run cargo update, cargo update -p foo is fine", ["cargo update"], ["cargo update -p foo"]),
    ("never run pytest, use uv run pytest", ["pytest", "pytest tests/unit"], ["uv run pytest", "uv run pytest -x"]),
    ("don't run pytest, run it with uv run", ["pytest"], ["uv run pytest"]),
    ("never run python, use uv run python", ["python x.py"], ["uv run python x.py"]),
    ("don't call vitest directly, use pnpm vitest", ["vitest run"], ["pnpm vitest run", "pnpm exec vitest"]),
    ("never run prettier, use npx prettier", ["prettier --write x.md"], ["npx prettier --write x.md"]),
    ("never run npm test, only npm run test:unit", ["npm test"], ["npm run test:unit"]),
])
def test_an_alternative_typed_without_quotes_passes(lesson, stopped, passed):
    guards = guard_set(lesson)
    for command in stopped:
        assert stops(guards, "Bash", command), (lesson, command)
    for command in passed:
        assert not stops(guards, "Bash", command), (lesson, command)


@pytest.mark.parametrize("lesson,command", [
    ("never use npm, use pnpm", "npm install"),  # the other program: nothing to narrow
    ("never run pytest, use make test", "pytest"),
    ("never run `cargo update`, never `cargo update -p x` either", "cargo update -p tokio"),
    ("don't run vitest, use pnpm test", "pnpm vitest"),  # pnpm test is the way, not vitest through pnpm
])
def test_an_unquoted_alternative_narrows_only_to_itself(lesson, command):
    assert stops(guard_set(lesson), "Bash", command)


def test_a_comma_alone_ends_a_list_of_commands():
    specs = derive_guards("never use git commit --amend, make new commits")
    assert [s.describe() for s in specs] == ["`git commit --amend`"]
    assert [s.describe() for s in derive_guards("don't run npm install, pnpm install works")] == ["`npm install`"]
    assert len(derive_guards("never run npm install, npm ci or yarn")) == 3


@pytest.mark.parametrize("lesson,stopped,passed", [
    ("never rebase", ["git rebase main", "git rebase --continue"], ["git rebase --abort", "git rebase --quit"]),
    ("never run git cherry-pick", ["git cherry-pick abc123"], ["git cherry-pick --abort"]),
    ("never run `git merge`", ["git merge feature"], ["git merge --abort"]),
    ("never run `git commit`", ["git commit --abort -m x"], []),  # commit has no --abort: it still commits
])
def test_aborting_a_git_act_does_not_do_it(lesson, stopped, passed):
    guards = guard_set(lesson)
    for command in stopped:
        assert stops(guards, "Bash", command), (lesson, command)
    for command in passed:
        assert not stops(guards, "Bash", command), (lesson, command)


def test_python_through_a_project_environment_runner_is_its_python3():
    guards = guard_set("use python3, not python")
    for command in ("python x.py", "sudo python x.py", "python -m pip install x"):
        assert stops(guards, "Bash", command), command
    for command in ("uv run python x.py", "poetry run python -m pytest", "python3 x.py", ".venv/bin/python x.py"):
        assert not stops(guards, "Bash", command), command
    assert stops(guard_set("never use python"), "Bash", "uv run python x.py")  # no python3 named: any python


def test_unless_round_trips_and_is_omitted_when_unset():
    from tacit.guards.model import CommandMatch, GuardSpec
    spec = GuardSpec(CommandMatch(("cargo",), ("update",), (), True, False, ("-p",)), "x")
    assert GuardSpec.from_dict(spec.to_dict()) == spec
    assert "unless" not in GuardSpec(CommandMatch(("npm",)), "x").to_dict()["match"]


def test_a_narrower_command_that_is_also_forbidden_narrows_nothing():
    guards = guard_set("Never run `cargo update`. Don't run `cargo update -p x` either.")
    assert stops(guards, "Bash", "cargo update -p tokio")


def test_lease_ok_round_trips_and_is_omitted_when_unset():
    from tacit.guards.model import GuardSpec, PushMatch
    spec = GuardSpec(PushMatch((), True, (), True), "x")
    assert GuardSpec.from_dict(spec.to_dict()) == spec
    assert "lease_ok" not in GuardSpec(PushMatch((), True), "x").to_dict()["match"]


# ---------------------------------------------------------------------------
# An argument the rule names is part of the match; a placeholder is any argument
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lesson", ["never run `npm install lodash`", "don't npm install lodash",
                                    "Never run npm install lodash, it bloats the bundle",
                                    "please don't `npm i lodash` again", "NEVER npm install lodash"])
def test_a_named_package_is_part_of_the_match(lesson):
    guards = guard_set(lesson)
    for command in ("npm install lodash", "npm i lodash", "npm install -D lodash", "npm install react lodash",
                    "npm install lodash@4.17.21", "npm install --omit dev lodash", "cd web && npm install lodash"):
        assert stops(guards, "Bash", command), (lesson, command)
    for command in ("npm install", "npm install other-pkg", "npm install lodash-es", "npm i react", "npm ci",
                    "npm install --omit dev", "pnpm add lodash", "npm uninstall lodash"):
        assert not stops(guards, "Bash", command), (lesson, command)


@pytest.mark.parametrize("lesson,stopped,passed", [
    ("never run `pip install requests`", ["pip install requests==2.31", "pip install -i https://mirror requests",
                                          "pip install 'requests[socks]>=2'", "pip install -e . requests"],
     ["pip install", "pip install -r requirements.txt", "pip install requests-mock", "pip install -e ."]),
    ("never run `npm install @types/node`", ["npm install @types/node@20"], ["npm install @types/react"]),
    ("never run `cargo add serde`", ["cargo add serde", "cargo add tokio serde", "cargo add --features derive serde"],
     ["cargo add", "cargo add tokio", "cargo add --features serde tokio"]),
    ("never run `rm -rf build`", ["rm -rf build", "rm -rf dist build"], ["rm -rf dist", "rm build"]),
])
def test_a_named_argument_anywhere_in_its_list(lesson, stopped, passed):
    guards = guard_set(lesson)
    for command in stopped:
        assert stops(guards, "Bash", command), (lesson, command)
    for command in passed:
        assert not stops(guards, "Bash", command), (lesson, command)


@pytest.mark.parametrize("lesson", ["never run `npm install <pkg>`", "never run `npm install X`",
                                    "never npm install something", "never run `npm install PACKAGE`",
                                    "never run `npm install $PKG`", "never run `npm install <pkg>@latest`",
                                    "never run `npm install package-name`", "never run `npm install some-package`"])
def test_a_placeholder_argument_is_any_argument(lesson):
    guards = guard_set(lesson)
    for command in ("npm install lodash", "npm install", "npm i react"):
        assert stops(guards, "Bash", command), (lesson, command)
    for command in ("npm ci", "npm run build", "pnpm add lodash"):
        assert not stops(guards, "Bash", command), (lesson, command)


def test_a_placeholder_in_the_alternative_form_is_any_argument():
    guards = guard_set("Use `pnpm add` instead of `npm install package-name`")
    assert stops(guards, "Bash", "npm install lodash") and not stops(guards, "Bash", "pnpm add lodash")
    named = guard_set("use `pnpm add lodash` instead of `npm install lodash`")
    assert stops(named, "Bash", "npm install lodash") and not stops(named, "Bash", "npm install react")


def test_a_placeholder_before_a_flag_keeps_the_flag():
    guards = guard_set("never run `npm install X --save-dev`")
    assert stops(guards, "Bash", "npm install --save-dev lodash")
    assert not stops(guards, "Bash", "npm install lodash")


@pytest.mark.parametrize("lesson", ["never npm install new packages", "never run npm install some packages",
                                    "never pip install extra packages"])
def test_a_narrowed_placeholder_reads_nothing(lesson):
    """Which packages are new the check cannot tell, and a bare `npm install` adds none: no guard."""
    assert derive_guards(lesson) == ()


def test_a_placeholder_before_a_named_word_reads_nothing():
    assert derive_guards("never run `git merge X main`") == ()
    assert [s.match.remotes for s in derive_guards("never run `git push origin X`")] == [("origin",)]


def test_real_names_are_no_placeholders():
    specs = derive_guards("never run `git checkout HEAD`")
    assert [s.match.subcommands for s in specs] == [("checkout", "HEAD")]
    assert [s.match.subcommands for s in derive_guards("never run `npm x eslint`")] == [("x", "eslint")]


@pytest.mark.parametrize("line", ["No `io/ioutil`, `github.com/pkg/errors`, `gopkg.in/yaml.v2`, `golang.org/x/exp/maps`",
                                  "Never use `io/ioutil`.", "Don't use `github.com/pkg/errors`; wrap with `fmt.Errorf`."])
def test_an_import_path_is_no_program(line):
    assert derive_guards(line) == ()


@pytest.mark.parametrize("line,program", [("No `scripts/deploy.sh`.", "deploy.sh"), ("Never call `bin/release`.", "release"),
                                          ("Don't use `script/tag-release`.", "tag-release"),
                                          ("Never use `./gradlew publish`.", "gradlew")])
def test_a_script_by_its_path_is_still_one(line, program):
    assert [s.match.programs for s in derive_guards(line)] == [(program,)]


@pytest.mark.parametrize("line", ["DO NOT call `subscription_list`.", "Never invoke `get_user_info`."])
def test_a_function_or_tool_called_is_no_program(line):
    assert derive_guards(line) == ()


def test_a_known_program_or_a_script_called_is_one():
    assert derive_guards("Never call `terraform apply`.") and derive_guards("never invoke `./scripts/reset.sh`")


# ---------------------------------------------------------------------------
# The branch a command line switches to before it commits or pushes
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lesson,command,branch,stopped", [
    ("never commit to main", "git checkout -b feat && git commit -m x", "main", False),
    ("never commit to main", "git switch -c feat; git add -A; git commit -m x", "main", False),
    ("never commit to main", "git checkout feat && git commit -m x", "main", False),
    ("never commit to main", "git switch - && git commit -m x", "feat", False),  # unknown: never fires
    ("never commit to main", "git commit -m x && git checkout -b feat", "main", True),
    ("never commit to main", "git checkout main && git commit -m x", "feat", True),
    ("never commit to main", "git switch main && git commit -m x", None, True),
    ("never commit to main", "git checkout src/a.ts && git commit -m x", "main", True),  # a file, not a branch
    ("never commit to main", "git checkout -- a && git commit -m x", "main", True),
    ("never push to main", "git checkout -b feat && git push -u origin HEAD", "main", False),
    ("never push to main", "git checkout -b feat && git push", "main", False),
    ("never push to main", "git push && git checkout -b feat", "main", True),
    ("never push to main", "git switch main && git push", "feat", True),
])
def test_a_switch_earlier_in_the_line_sets_the_branch(lesson, command, branch, stopped):
    assert stops(guard_set(lesson), "Bash", command, branch=branch) is stopped


def test_a_commit_message_after_a_cluster_is_no_path():
    guards = guard_set("never commit CHANGELOG.md")
    assert not stops(guards, "Bash", "git commit -am CHANGELOG.md")
    assert stops(guards, "Bash", "git commit -m x CHANGELOG.md")


def test_unstaging_a_protected_file_does_not_change_it():
    guards = guard_set("never edit .env")
    assert not stops(guards, "Bash", "git restore --staged .env")
    assert not stops(guards, "Bash", "git restore -S .env.local")
    assert stops(guards, "Bash", "git restore .env") and stops(guards, "Bash", "git restore -SW .env")


def test_the_index_only_is_no_change_to_the_file():
    edit, commit = guard_set("never edit .env"), guard_set("never commit .env")
    assert not stops(edit, "Bash", "git rm --cached .env") and stops(edit, "Bash", "git rm .env")
    assert not stops(commit, "Bash", "git add -n .env") and not stops(commit, "Bash", "git add --dry-run .env.local")
    assert not stops(commit, "Bash", "git commit --dry-run .env")
    assert stops(commit, "Bash", "git add .env")


def test_sudo_asked_about_itself_runs_nothing():
    guards = guard_set("never use sudo")
    for command in ("sudo -l", "sudo -k", "sudo -v", "sudo --version", "which sudo"):
        assert not stops(guards, "Bash", command), command
    for command in ("sudo ls", "sudo -u bob ls", "sudo -k ls", "sudo", "sudo -E npm i", "doas rm x"):
        assert stops(guards, "Bash", command), command


# ---------------------------------------------------------------------------
# "Existing" files: a new one may be created
# ---------------------------------------------------------------------------
def existing_call(tool: str, target: str, there: set, args: dict | None = None):
    if args is None:
        args = {"command": target} if tool in ("Bash", "shell") else {"file_path": f"{ROOT}/{target}"}
    return normalize_call(tool, args, ROOT, project_root=ROOT, exists=lambda p: p in there)


@pytest.mark.parametrize("lesson", ["Never edit existing migration files in `db/migrate/`.",
                                    "Don't modify existing migrations in `db/migrate/`",
                                    "Never edit already-applied migrations in `db/migrate/`"])
def test_existing_files_only(lesson):
    guards = guard_set(lesson)
    assert [s.match.existing for s in derive_guards(lesson)] == [True]
    old = f"{ROOT}/db/migrate/001_init.rb"
    there = {old}
    for tool, target in [("Edit", "db/migrate/001_init.rb"), ("Write", "db/migrate/001_init.rb"),
                         ("Bash", "sed -i s/a/b/ db/migrate/001_init.rb"), ("Bash", "rm db/migrate/001_init.rb"),
                         ("Bash", "echo x >> db/migrate/001_init.rb"), ("Bash", "mv db/migrate/001_init.rb /tmp/")]:
        assert guards.check(existing_call(tool, target, there)), (tool, target)
    for tool, target in [("Write", "db/migrate/002_add_users.rb"), ("Bash", "touch db/migrate/002_add_users.rb"),
                         ("Bash", "cat > db/migrate/002_x.rb <<EOF\nx\nEOF"), ("Bash", "cp tmpl.rb db/migrate/002_x.rb"),
                         ("Edit", "db/schema.rb")]:
        assert not guards.check(existing_call(tool, target, there)), (tool, target)
    added = {"input": "*** Begin Patch\n*** Add File: db/migrate/002_x.rb\n+x\n*** End Patch"}
    updated = {"input": "*** Begin Patch\n*** Update File: db/migrate/001_init.rb\n@@\n-a\n+b\n*** End Patch"}
    assert not guards.check(existing_call("apply_patch", "", there, added))
    assert guards.check(existing_call("apply_patch", "", there, updated))


def test_existing_files_unknown_existence_does_not_stop_a_creation():
    guards = guard_set("Never edit existing migration files in `db/migrate/`.")
    call = normalize_call("Write", {"file_path": f"{ROOT}/db/migrate/9.rb"}, ROOT, project_root=ROOT)
    assert not guards.check(call)  # the caller could not look: a Write may be a new file
    edit = normalize_call("Edit", {"file_path": f"{ROOT}/db/migrate/9.rb"}, ROOT, project_root=ROOT)
    assert guards.check(edit)  # an edit changes what is there


def test_without_existing_a_new_file_is_a_change_too():
    guards = guard_set("never edit files in db/migrate/")
    assert guards.check(existing_call("Write", "db/migrate/002_new.rb", set()))


def test_existing_round_trips_and_is_omitted_when_unset():
    from tacit.guards.model import GuardSpec, PathMatch
    spec = GuardSpec(PathMatch(("db/migrate/",), True), "x")
    assert GuardSpec.from_dict(spec.to_dict()) == spec
    assert "existing" not in GuardSpec(PathMatch(("a/",)), "x").to_dict()["match"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_through_the_engine_a_new_migration_is_written_an_old_one_is_not(cfg, tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "db" / "migrate").mkdir(parents=True)
    (repo / "db" / "migrate" / "001_init.rb").write_text("create_table :users\n")
    remember(cfg, repo, "Never edit existing migration files in `db/migrate/`; add a new one.")
    engine = engine_for(cfg)
    try:
        session = Session(engine, repo)
        new = {"file_path": str(repo / "db" / "migrate" / "002_add_email.rb"), "content": "x"}
        assert not session.call(name="Write", args=new).reason
        old = {"file_path": str(repo / "db" / "migrate" / "001_init.rb"), "content": "x"}
        assert "existing migration" in session.call(name="Write", args=old).reason
        assert session.call("sed -i s/users/people/ db/migrate/001_init.rb").reason
        assert not session.call("touch db/migrate/003_more.rb").reason
    finally:
        engine.close()


# ---------------------------------------------------------------------------
# An object in code is no file
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("line", ["Never modify `process.env` directly.", "Do not modify `sys.path`.",
                                  "Never modify `req.body`.", "Don't modify `state.user` directly",
                                  "Never change `this.props`", "Don't touch `import.meta.env`",
                                  "Never modify `app.getConfig`", "- `process.env` \u2014 do not modify",
                                  "`sys.path` must not be modified", "Never commit `process.env`"])
def test_an_object_in_code_is_no_path(line):
    from tacit.guards.instructions import rules_in
    assert rules_in(line) == []


@pytest.mark.parametrize("line,pattern", [("don't edit `os.py`", "os.py"), ("never edit `state.json`", "state.json"),
                                          ("never edit `prod.env`", "prod.env"), ("don't edit `myFile.tsx`", "myFile.tsx"),
                                          ("don't touch `build.gradle.kts`", "build.gradle.kts")])
def test_a_file_named_like_code_is_still_a_file(line, pattern):
    assert [s.match.patterns for s in derive_guards(line)] == [(pattern,)]


@pytest.mark.parametrize("line", ["Never touch `auth`.", "Don't modify `main`.", "Never change `version` manually."])
def test_a_quoted_bare_word_is_no_path(line):
    """A field, a branch or a module: a path says so (a slash, an extension, "folder")."""
    assert derive_guards(line) == ()


@pytest.mark.parametrize("line,pattern", [("Never edit `README`.", "README"), ("never touch `legacy/`", "legacy/"),
                                          ("Never edit the `legacy` folder", "legacy/"),
                                          ("don't touch `Makefile`", "Makefile")])
def test_a_quoted_name_that_says_it_is_a_file(line, pattern):
    assert [s.match.patterns for s in derive_guards(line)] == [(pattern,)]
