"""Small readings made consistent: ``git checkout FILE`` is an edit like ``git
restore FILE``; ``pnpm run test`` is ``pnpm test`` (npm/pnpm/yarn, not bun); a
``git push`` that names no remote goes where git sends it (the branch's
upstream, or origin when it is the only remote), read from a real repository's
config; yarn's own ``npm publish``; a redirection's target in the reason."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from guard_helpers import git_repo, remember

from tacit import cli
from tacit.guards import GuardSet, derive_guards, normalize_call
from tacit.guards.model import Guard
from tacit.guards.unread import unread_rule
from tacit.handlers.guards import git_remotes, push_default

ROOT = "/repo"


def hits(lesson: str, command: str, **where) -> list[str]:
    guard_set = GuardSet([Guard(spec, i, "project", ROOT, "lesson") for i, spec in enumerate(derive_guards(lesson))])
    return [hit.subject for hit in guard_set.check(normalize_call("Bash", {"command": command}, ROOT,
                                                                  project_root=ROOT, **where))]


# ---------------------------------------------------------------------------
# git checkout puts files back as git restore does
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["git checkout src/a.ts", "git checkout -- src/a.ts", "git restore src/a.ts",
                                     "git checkout main src/a.ts", "git checkout HEAD~1 -- src/a.ts",
                                     "git checkout ./src/a.ts"])
def test_git_checkout_of_a_file_is_an_edit_of_it(command):
    assert hits("never edit `src/a.ts`", command)


@pytest.mark.parametrize("command", ["git checkout main", "git checkout feature/a.ts-fix", "git checkout -b src/a.ts",
                                     "git checkout v1.2.3", "git checkout release/1.0", "git restore --staged src/a.ts",
                                     "git checkout -"])
def test_git_checkout_of_a_branch_edits_nothing(command):
    assert not hits("never edit `src/a.ts`", command)


def test_a_dot_file_checked_out_is_a_file():
    assert hits("never edit `.env`", "git checkout .env") and hits("never edit `.env`", "git checkout main .env")


# ---------------------------------------------------------------------------
# `<tool> run <script>` is the script by its name, where the tool runs it so
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lesson, same", [
    ("never run `pnpm test`", ["pnpm run test", "pnpm run-script test", "pnpm -r run test", "pnpm --filter web run test"]),
    ("never run `pnpm run test`", ["pnpm test", "pnpm t"]),
    ("never run `npm test`", ["npm run test", "npm run-script test"]),
    ("never run `npm run start`", ["npm start"]),
    ("never run `yarn test`", ["yarn run test"]),
    ("never run `pnpm build`", ["pnpm run build"]),
    ("never run `pnpm db:reset`", ["pnpm run db:reset"]),
])
def test_a_script_run_by_its_name_or_through_run_is_the_same(lesson, same):
    for command in same:
        assert hits(lesson, command), command


@pytest.mark.parametrize("lesson, other", [
    ("never run `pnpm test`", ["pnpm run test:unit", "pnpm run build", "pnpm install"]),
    ("never run `npm run build`", ["npm build"]),  # npm's own build command, not the script
    ("never run `npm run db:reset`", ["npm db:reset"]),
    ("never run `bun test`", ["bun run test"]),  # bun's own test runner is not the script
    ("never run `pnpm install`", ["pnpm run install"]),  # a script named install, not pnpm's
])
def test_a_script_the_tool_does_not_run_by_its_name_stays_apart(lesson, other):
    for command in other:
        assert not hits(lesson, command), command


# ---------------------------------------------------------------------------
# a push with no remote named
# ---------------------------------------------------------------------------
def test_a_push_naming_no_remote_goes_to_the_upstream_when_it_is_known():
    assert hits("don't push to origin", "git push", branch="feat", remotes={"origin"}, upstream="origin")
    assert hits("never push to `upstream`", "git push -u", branch="feat", remotes={"origin", "upstream"},
                upstream="upstream")
    assert not hits("don't push to origin", "git push", branch="feat", remotes={"origin", "upstream"}, upstream="upstream")
    assert not hits("don't push to origin", "git push", branch="feat", remotes={"origin"})  # unknown: never fires
    assert not hits("don't push to origin", "git push $REMOTE", branch="feat", remotes={"origin"}, upstream="origin")
    assert not hits("don't push to origin", "git push fork feat", branch="feat", remotes={"origin", "fork"},
                    upstream="origin")
    # a branch switched to in the same line has no upstream: origin when it is the only remote
    assert hits("don't push to origin", "git checkout -b x && git push -u", branch="feat", remotes={"origin"},
                upstream="origin")
    assert not hits("never push to `upstream`", "git checkout -b x && git push", branch="feat",
                    remotes={"origin", "upstream"}, upstream="upstream")


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_push_default_is_read_from_the_repositorys_config(tmp_path):
    repo = git_repo(tmp_path / "one")
    assert push_default(str(repo), "main") is None  # no remote
    _git(repo, "remote", "add", "origin", "https://example.invalid/a.git")
    assert git_remotes(str(repo)) == {"origin"} and push_default(str(repo), "main") == "origin"
    _git(repo, "remote", "add", "upstream", "https://example.invalid/b.git")
    assert push_default(str(repo), "main") is None  # two remotes, no upstream configured: not guessed
    _git(repo, "config", "branch.main.remote", "upstream")
    assert push_default(str(repo), "main") == "upstream" and push_default(str(repo), "other") is None
    _git(repo, "config", "remote.pushDefault", "origin")
    assert push_default(str(repo), "main") == "origin"
    _git(repo, "config", "branch.main.pushRemote", "upstream")
    assert push_default(str(repo), "main") == "upstream"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_guard_test_stops_a_bare_push_to_the_only_remote(cfg, tacit_env, monkeypatch, capsys, tmp_path):
    repo = git_repo(tmp_path / "web")
    _git(repo, "remote", "add", "origin", "https://example.invalid/web.git")
    remember(cfg, repo, "don't push to origin")
    for key, value in tacit_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("TACIT_PROJECT", raising=False)
    monkeypatch.chdir(repo)

    def fires(command: str) -> bool:
        try:
            code = cli.main(["guard", "test", command, "--json"])
        except SystemExit as exc:
            code = exc.code
        assert code == 0
        return json.loads(capsys.readouterr().out)["fires"]

    assert fires("git push") and fires("git push -u")
    _git(repo, "remote", "add", "fork", "https://example.invalid/fork.git")
    assert not fires("git push")  # two remotes, no upstream: where it goes is not known
    assert fires("git push origin main") and not fires("git push fork main")


# ---------------------------------------------------------------------------
# yarn's npm subcommand, and the reason for a redirection
# ---------------------------------------------------------------------------
def test_yarns_npm_subcommand_is_yarn_and_its_publish_publishes_to_npm():
    assert not hits("use pnpm, not npm", "yarn npm publish") and not hits("never use npm", "yarn npm info react")
    assert hits("never publish to npm", "yarn npm publish") and not hits("never publish to npm", "yarn npm info x")


def test_the_reason_for_a_redirection_names_its_target():
    assert hits("never edit `.env`", "echo A=1 >> .env") == ["echo A=1 >> .env"]
    assert hits("never edit `.env`", "printf 'a b' > ./.env 2>/dev/null") == ["printf a b > ./.env"]
    long = hits("never edit `.env`", "echo " + "y" * 120 + " > .env")[0]
    assert long.endswith("… > .env")
    assert hits("never edit `.env`", "cp a .env") == ["cp a .env"]


# ---------------------------------------------------------------------------
# help is printed, nothing is done (found by close calls built from the tune lessons)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lesson, command", [
    ("don't run git push", "git push --help"),
    ("never push to develop", "git push origin develop --help"),
    ("don't touch .github/PULL_REQUEST_TEMPLATE.md", "rm .github/PULL_REQUEST_TEMPLATE.md --help"),
    ("don't delete or rename files in docs/images/", "git mv docs/images/a.png docs/images/b.png --help"),
    ("don't add the type/bug, type/feature or type/task labels", "gh issue create --label type/bug --help"),
    ("don't manually edit build.sln", "dotnet sln build.sln add src/a.csproj --help"),
])
def test_a_help_form_is_neither_a_push_a_write_nor_a_label(lesson, command):
    assert derive_guards(lesson) and not hits(lesson, command)
    assert hits(lesson, command.replace(" --help", ""))


@pytest.mark.parametrize("lesson, command, done", [
    ("don't add the type/bug, type/feature or type/task labels", "gh issue create --label type/bug -h",
     "gh issue create --label type/bug"),
    ("don't add Signed-off-by or Co-authored-by trailers with the agent's name",
     "git commit -m x --trailer 'Co-authored-by: Claude <a@b.c>' --dry-run",
     "git commit -m x --trailer 'Co-authored-by: Claude <a@b.c>'"),
    ("don't add Signed-off-by or Co-authored-by trailers with the agent's name",
     "git commit -m x --trailer 'Co-authored-by: Claude <a@b.c>' -h", "git commit -m x --trailer 'Co-authored-by: Claude <a@b.c>'"),
])
def test_a_label_or_trailer_given_to_a_help_or_dry_run_form_makes_nothing(lesson, command, done):
    # found by close calls built from the tune lessons: the label and trailer test read --help only
    assert derive_guards(lesson) and not hits(lesson, command)
    assert hits(lesson, done)


def test_help_after_the_separator_or_a_redirection_still_counts():
    assert hits("never edit `CLAUDE.md`", "echo '# notes' > CLAUDE.md --help")  # the shell writes the file first
    assert hits("never use -- with pnpm test", "pnpm test -- reporters --help")  # the script gets --help and runs


# ---------------------------------------------------------------------------
# a name at any depth is the project's own folder, not a copy inside a dependency or cache folder
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lesson, path", [
    ("don't touch dist/", "node_modules/.cache/dist/x.js"), ("don't touch dist/", "web/node_modules/p/dist/a.js"),
    ("don't touch migrations/", ".venv/lib/python3.12/site-packages/django/contrib/auth/migrations/0001.py"),
    ("never edit .env", "node_modules/dotenv/.env"), ("don't touch dist/", ".git/dist/x"),
    ("don't touch build/", "src/__pycache__/build/x.pyc"), ("don't touch build/", ".cache/build/x"),
])
def test_a_name_at_any_depth_is_not_looked_for_inside_third_party_folders(lesson, path):
    assert derive_guards(lesson) and not hits(lesson, f"echo x > {path}")
    edit = normalize_call("Edit", {"file_path": f"{ROOT}/{path}"}, ROOT, project_root=ROOT)
    assert not GuardSet([Guard(s, 0, "project", ROOT, "lesson") for s in derive_guards(lesson)]).check(edit)


@pytest.mark.parametrize("lesson, path", [
    ("don't touch dist/", "dist/x.js"), ("don't touch dist/", "apps/web/dist/x.js"),
    ("don't touch dist/", "src/venvs/dist/x.js"), ("don't touch migrations/", "users/migrations/0001.py"),
    ("never edit node_modules/", "node_modules/p/index.js"), ("never edit node_modules/", "web/node_modules/p/a.js"),
    ("never edit `.venv/`", ".venv/lib/x.py"), ("don't touch dist/", "vendor/p/dist/x.js"),
])
def test_the_project_s_own_folder_and_a_rule_naming_a_third_party_folder_still_fire(lesson, path):
    assert hits(lesson, f"echo x > {path}")


# ---------------------------------------------------------------------------
# a PR opened to another repository (`--repo me/fork`) is not one opened to the repository the rule names
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lesson, stopped, fine", [
    ("never open PRs to facebook/react",
     ["gh pr create --title x", "gh pr create --repo facebook/react", "gh pr create -R Facebook/React",
      "gh pr create --repo=https://github.com/facebook/react.git", "gh pr create -Rfacebook/react"],
     ["gh pr create --repo me/fork --title x", "gh pr create --title x -R me/react", "gh pr create -Rme/fork",
      "gh pr create --repo=github.com/me/fork"]),
    ("NEVER open pull requests to [Wasmtime]",
     ["gh pr create", "gh pr create --repo bytecodealliance/wasmtime", "gh pr create -R me/wasmtime"],
     ["gh pr create --repo me/fork"]),
    # which repository "upstream" is, a --repo value does not say: every PR stays stopped
    ("never open PRs to the upstream repository", ["gh pr create", "gh pr create --repo me/fork"], []),
])
def test_a_pr_is_stopped_only_when_its_target_is_the_named_repository_or_unknown(lesson, stopped, fine):
    assert all(hits(lesson, c) for c in stopped) and not any(hits(lesson, c) for c in fine)


def test_the_named_repository_survives_the_guard_store_round_trip():
    spec = derive_guards("never open PRs to facebook/react")[0]
    assert spec.match.repo == "facebook/react" and spec.match.to_dict()["repo"] == "facebook/react"
    assert type(spec).from_dict(spec.to_dict()) == spec
    assert "repo" not in derive_guards("never open PRs to upstream")[0].match.to_dict()


# ---------------------------------------------------------------------------
# a runner's or a database client's help form runs nothing (as `git push --help` pushes nothing)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lesson, command, done", [
    ("use vitest, not jest", "npx --help jest", "npx jest"),
    ("use vitest, not jest", "npx -h jest", "npx jest"),
    ("use vitest, not jest", "npm exec --help jest", "npm exec jest"),
    ("use vitest, not jest", "pnpm dlx --help jest", "pnpm dlx jest"),
    ("use ruff, not black", "uvx --help black", "uvx black"),
    ("use ruff, not black", "uv run --help black", "uv run black"),
    ("never run DROP TABLE", "psql -c 'DROP TABLE x' --help", "psql -c 'DROP TABLE x'"),
    ("never run DROP TABLE", "psql -c 'DROP TABLE x' -?", "psql -c 'DROP TABLE x'"),
    ("never run DROP TABLE", "mysql -e 'DROP TABLE x' --help", "mysql -e 'DROP TABLE x'"),
    ("never pipe curl into sh", "curl -fsSL x | bash --help", "curl -fsSL x | bash"),
])
def test_a_help_form_of_a_runner_or_a_client_runs_nothing(lesson, command, done):
    assert derive_guards(lesson) and not hits(lesson, command)
    assert hits(lesson, done)


def test_help_handed_on_to_what_runs_still_counts():
    assert hits("use vitest, not jest", "npx jest --help") == []  # jest's own help: jest prints, runs no test
    assert hits("never pipe curl into sh", "curl -fsSL x | bash -s -- --help")  # the script gets --help and runs
    assert hits("never run DROP TABLE", "psql -h db -c 'DROP TABLE x'")  # psql -h is the host


# ---------------------------------------------------------------------------
# a later sentence's own command (its example path) does not veto the rule before it
# ---------------------------------------------------------------------------
CLEAN_UP = " If `.js` files are accidentally generated, clean up with `git clean -fd src/`."


@pytest.mark.parametrize("rule", [
    "Please refrain from running `yarn lint:types` with file arguments (e.g. `yarn lint:types src/a.ts`).",
    "We don't want `tsc` run on single files like `tsc src/a.ts`.",
    "Never run `tsc` with file arguments (e.g. `tsc src/a.ts`).",
])
def test_another_program_s_command_in_a_later_condition_is_that_order_s_own(rule):
    assert unread_rule(rule + CLEAN_UP) == unread_rule(rule) is True
    assert bool(derive_guards(rule + CLEAN_UP)) == bool(derive_guards(rule))


@pytest.mark.parametrize("line", [
    "Please refrain from running `tsc` on `src/` files. If it is urgent, run `tsc src/`.",  # the rule's program
    "Please refrain from running `tsc` on single files. If you need one checked, run `npx tsc src/a.ts --noEmit`.",
    "Never run `git push --force`. If you must rewrite history, use `git push --force-with-lease`.",
])
def test_a_later_condition_naming_what_the_rule_stops_still_vetoes(line):
    assert not unread_rule(line) and not derive_guards(line)
