"""Rules people write in other forms (tacit.guards.restate, clauses, derive):
a prohibition said as a predicate or a noun, a registry, a script run instead
of another, commands named in parentheses, and a conditional sentence beside
the rule; each derives the guard the plain rule would, and stops what it says."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.model import CommandMatch, CommitMatch, CommitPathMatch, PathMatch, PipeMatch, PushMatch, RemoveMatch, SqlMatch, SudoMatch

STASH = CommandMatch(("git",), ("stash",), (), True)
REBASE = CommandMatch(("git",), ("rebase",), (), True)


@pytest.mark.parametrize("text, matches", [
    ("git stash is forbidden", [STASH]),
    ("git push --force is not allowed", [PushMatch(force_only=True)]),
    ("Force pushing is forbidden.", [PushMatch(force_only=True)]),
    ("Force-pushes are not allowed", [PushMatch(force_only=True)]),
    ("Rebasing is not allowed", [REBASE]),
    ("Staging everything with `git add -A` is forbidden.", [CommandMatch(("git",), ("add",), ("-A",), True)]),
    ("`DROP TABLE` is forbidden", [SqlMatch(("drop_table",))]),
    ("DROP TABLE statements are not allowed", [SqlMatch(("drop_table",))]),
    ("Don't run destructive SQL like `DROP TABLE` or `TRUNCATE`", [SqlMatch(("drop_table", "truncate"))]),
    ("`curl | bash` is forbidden", [PipeMatch()]),
    ("Piping curl output into bash is not allowed", [PipeMatch()]),
    ("Editing `CHANGELOG.md` is not allowed", [PathMatch(("CHANGELOG.md",))]),
    ("No edits to `vendor/`.", [PathMatch(("vendor/",))]),
    ("Generated files (`*.pb.go`) must not be edited by hand", [PathMatch(("*.pb.go",))]),
    ("NEVER hand-edit `.lock.yml` files.", [PathMatch(("*.lock.yml",))]),
    ("`LICENSE` — do not modify.", [PathMatch(("LICENSE",))]),
    ("Never `rm -rf` the `data/` directory", [RemoveMatch(("data/",), ("delete",))]),
    ("Do not publish to npm", [CommandMatch(("npm", "pnpm", "yarn", "bun"), ("publish",), (), True),
                               CommandMatch(("yarn",), ("npm", "publish"), (), True)]),  # yarn 2+
    ("Do not publish packages to PyPI", [CommandMatch(("twine",), ("upload",), (), True),
                                         CommandMatch(("uv", "poetry", "hatch", "flit", "pdm"), ("publish",), (), True)]),
    ("Don't `git push --force` to `main`.", [PushMatch(("main",), True)]),
    ("Never rewrite history on `main`.", [PushMatch(("main",), True)]),
    ("Do NOT run `pnpm install` with `--no-frozen-lockfile`",
     [CommandMatch(("pnpm",), ("install",), ("--no-frozen-lockfile",), True)]),
    ("Never discard uncommitted changes (`git checkout -- .`, `git reset --hard`).",
     [CommandMatch(("git",), ("checkout", "."), (), True), CommandMatch(("git",), ("reset",), ("--hard",), True)]),
    ("Use `uv` for everything — no `pip install`, no `python -m venv`.",
     [CommandMatch(("pip",), ("install",), (), True), CommandMatch(("python",), ("venv",), ("-m",), True)]),
    ("Never run `terraform apply` locally.", [CommandMatch(("terraform",), ("apply",), (), True)]),
    ("- For external builds, always use `python3 test.py` instead of `./test.py`.", [CommandMatch(("test.py",), (), (), True)]),
    ("No npm, pnpm only", [CommandMatch(("npm",), (), (), True)]),
    ("- Do **not** use npm in this directory: no `npm install`, `npm ci`, `npx`, or npm lockfile changes.",
     [CommandMatch(("npm",), (), (), True), CommandMatch(("npm",), ("install",), (), True),
      CommandMatch(("npm",), ("ci",), (), True), CommandMatch(("npx",), (), (), True)]),
    ("- `completions/`: Generated shell (`bash`/`fish`/`zsh`) completion files. Don't edit directly, regenerate "
     "with `./bin/brew generate-man-completions`", [PathMatch(("completions/",))]),
    ("- `shared/`: Generated TypeScript types (`shared/types.ts`, `shared/remote-types.ts`) and agent tool schemas "
     "(`shared/schemas/`). Do not edit generated files directly.", [PathMatch(("shared/",))]),
    ("Under no circumstances run `terraform destroy`.", [CommandMatch(("terraform",), ("destroy",), (), True)]),
    ("It is forbidden to run `npm publish`.", [CommandMatch(("npm",), ("publish",), (), True)]),
    ("It's not allowed to push to `main`.", [PushMatch(("main",))]),
    ("Refrain from running `git reset --hard`.", [CommandMatch(("git",), ("reset",), ("--hard",), True)]),
    ("Do not try to push to `main`.", [PushMatch(("main",))]),
    ("Never, ever run `npm publish`.", [CommandMatch(("npm",), ("publish",), (), True)]),
    ("Avoid `git push --force` at all costs.", [PushMatch(force_only=True)]),
    ("Don't use `yarn` for anything, we moved off it.", [CommandMatch(("yarn",), (), (), True)]),
    ("Never run `npm publish` for any reason.", [CommandMatch(("npm",), ("publish",), (), True)]),
    ("Forbidden: `git push --force`, `git reset --hard`",
     [PushMatch(force_only=True), CommandMatch(("git",), ("reset",), ("--hard",), True)]),
    ("Prohibited: editing `dist/`", [PathMatch(("dist/",))]),
    ("Do not add dependencies with npm.", [CommandMatch(("npm",), ("install",), (), True)]),
    ("Do not create commits on `main`.", [CommitMatch(("main",))]),
    ("Do not modify files matching `*.gen.go`.", [PathMatch(("*.gen.go",))]),
    ("Never use `--break-system-packages`.", [CommandMatch(("pip", "pip3"), ("install",), ("--break-system-packages",), True)]),
    ("7. **Don't write changeset files.** A GitHub Action adds `.changeset/*.md` to your branch.",
     [PathMatch((".changeset/*.md",))]),
    ("Use `pnpm <cmd>` instead of `npm <cmd>`.", [CommandMatch(("npm",), (), (), True)]),
    ("Run scripts with `pnpm run <name>`, never `npm run <name>`.", [CommandMatch(("npm",), ("run",), (), True)]),
    ("Use `pnpm exec <bin>` rather than `npx <bin>`.", [CommandMatch(("npx",), (), (), True)]),
    # the wrapper named as the way passes: `uv run python x.py` is not stopped
    ("Use `uv run <script>` instead of `python <script>`.", [CommandMatch(("python",), (), (), True, not_via=("uv", "uvx"))]),
    ("Use `pnpm install` instead of `npm install` or `yarn install`.",
     [CommandMatch(("npm",), ("install",), (), True), CommandMatch(("yarn",), ("install",), (), True)]),
    ("Use `pnpm test`, not `npm test` or `yarn test`.",
     [CommandMatch(("npm",), ("test",), (), True), CommandMatch(("yarn",), ("test",), (), True)]),
    ("Install with `uv add <pkg>`, not `pip install <pkg>`.", [CommandMatch(("pip",), ("install",), (), True)]),
    ("Format code using `ruff format` instead of `black`.", [CommandMatch(("black",), (), (), True)]),
    ("Treat `third_party/` as read-only.", [PathMatch(("third_party/",))]),
    ("Leave the `legacy/` code as-is.", [PathMatch(("legacy/",))]),
    ("leave `legacy/` alone", [PathMatch(("legacy/",))]),
    ("Do not add files to `src/legacy/`.", [PathMatch(("src/legacy/",))]),
    ("Never hand-modify `routeTree.gen.ts`.", [PathMatch(("routeTree.gen.ts",))]),
    ("Do NOT touch `android/` or `ios/` folders.", [PathMatch(("android/", "ios/"))]),
    ("`src/api/client.ts` is auto-generated by `openapi-typescript`. Do not edit.", [PathMatch(("src/api/client.ts",))]),
    ("Do not use `sudo` for anything.", [SudoMatch()]),
    ("Never run anything with `sudo`.", [SudoMatch()]),
    ("Never run `git push origin --delete`.", [CommandMatch(("git",), ("push",), ("--delete",), True)]),
    ("Never delete remote branches.", [CommandMatch(("git",), ("push",), ("--delete",), True)]),
    ("Never run the `db:reset` script.", [CommandMatch(("npm", "pnpm", "yarn", "bun"), ("run", "db:reset"), (), True),
                                          CommandMatch(("pnpm", "yarn"), ("db:reset",), (), True)]),
    ("Don't run tests in watch mode (`vitest --watch`).", [CommandMatch(("vitest",), (), ("--watch",), True)]),
    ("Never commit with `--no-verify`.", [CommandMatch(("git",), ("commit",), ("--no-verify",), True)]),
    ("Avoid `--legacy-peer-deps`.", [CommandMatch(("npm",), ("install",), ("--legacy-peer-deps",), True)]),
    ("Never run `prettier --write .` on the whole repo.", [CommandMatch(("prettier",), (".",), ("--write",), True)]),
    ("stop running npm install", [CommandMatch(("npm",), ("install",), (), True)]),
    ("I told you not to push to main", [PushMatch(("main",))]),
    ("I don't want you editing `dist/`", [PathMatch(("dist/",))]),
    ("you're not supposed to run `terraform apply`", [CommandMatch(("terraform",), ("apply",), (), True)]),
    ("no more `git push --force`", [PushMatch(force_only=True)]),
    ("never do a `git reset --hard` again", [CommandMatch(("git",), ("reset",), ("--hard",), True)]),
    ("Never bypass the check with `git commit --no-verify`, by editing or deleting the hook, or with any suppression file.",
     [CommandMatch(("git",), ("commit",), ("--no-verify",), True)]),
    ("Do not bypass the review by creating draft PRs.", [CommandMatch(("gh",), ("pr", "create"), ("--draft",), True)]),
    ("Instead of `npm install`, use `pnpm install`.", [CommandMatch(("npm",), ("install",), (), True)]),
    ("Replace `npm` with `pnpm` in all commands.", [CommandMatch(("npm",), (), (), True)]),
    ("pnpm only — no npm, no yarn.", [CommandMatch(("npm",), (), (), True), CommandMatch(("yarn",), (), (), True)]),
    ("Package manager: pnpm (npm and yarn are not allowed).", [CommandMatch(("npm", "yarn"), (), (), True)]),
    # the alternative after a dash is no second item of a list (it was a guard on `uv run pytest`)
    ("Never run `pytest` directly — always `uv run pytest`.",
     [CommandMatch(("pytest",), (), (), True, not_via=("uv", "uvx"))]),
    ("Never run destructive SQL (DROP, TRUNCATE, DELETE without WHERE).",
     [SqlMatch(("drop_table", "drop_database", "truncate", "delete_without_where"))]),
    ("Never run raw `DELETE` statements without a `WHERE` clause.", [SqlMatch(("delete_without_where",))]),
    ('Never run `psql -c "DROP TABLE users"`.', [SqlMatch(("drop_table",))]),
    ("Never commit sensitive data (.env files, credentials)", [CommitPathMatch(("*.env",))]),
    ("Do not edit generated code (dist/, build/)", [PathMatch(("dist/", "build/"))]),
])
def test_derived(text, matches):
    assert [s.match for s in derive_guards(text)] == matches


@pytest.mark.parametrize("text", [
    "Deploy only via the CI pipeline",  # "only via": what to do, not an exact thing to stop
    "Run tests only via `make test`",
    "Install dependencies only with pnpm",
    "No `npm publish` from local machines.",  # a place the matcher cannot see
    "Do not run `kubectl apply` against production.",
    "`any` is forbidden",  # a type, not a program
    "Secrets are not allowed in the repo",
    "- `src/`: the code. Never edit generated files.",  # the folder is not said to be generated
    "- `gen/`: generated stubs (`docs/x.md`). Never edit generated files.",  # a path outside the folder
    "DO NOT call `subscription_list`.",  # a tool of the agent, not a program
    "Do not publish",  # no registry named
    "stop the dev server before you commit",  # "stop" is the act here, not a prohibition
    "no more than three retries per job",
    "Forbidden: `any`, `unknown as`",  # types of code, not programs
    "Never commit secrets (API keys, tokens)",  # examples that are no paths
    "Never commit large files (videos, datasets)",
    "- For debugging: `X_DEBUG=true` runs in-process (no Docker)",  # a description, not a rule
    "- `nx test realtime-js` - Standard test (no Docker)",
    "Don't bypass the type checker by using `as any`.",
    "`eval` is forbidden.",
    "You should not be using `var`.",
    "Leave the test as-is if it passes.",
    "Don't write migration files. Use `alembic revision` and `db/migrations/`.",  # two names: which one?
])
def test_not_derived(text):
    assert derive_guards(text) == ()


def test_never_push_then_open_a_pr_is_no_list_of_prohibitions():
    """"never push to main, open a PR": the PR is the way to do it, never a guard on it."""
    assert [s.match for s in derive_guards("Never push to the `main` branch directly — open a PR.")] == [
        PushMatch(("main",))]


@pytest.mark.parametrize("text, derives", [
    # a later conditional sentence with a rule of its own, about something else: the rule stands
    ("Never edit vendored files. When diagnosing a vendored library, trace the call upstream.", True),
    # one before the rule that orders an act of its own: the rule stands (docs/guards.md)
    ("After editing a workflow `.md` source, run `gh aw compile`. NEVER hand-edit `.lock.yml` files.", True),
    # one before the rule that only sets its scene: vetoed
    ("When testing the server, assume the user is logged in. Never run `npm publish`.", False),
    # a conditional sentence that opens a way around it: vetoed
    ("Never push to main. If you need to push, tell me first.", False),
    ("Never bump the version in `package.json`. If a bump is genuinely needed, ask first.", False),
    ("Never run `npm publish`. If a release is needed, that is fine.", False),
    ("Never run `npm publish`. Only when releasing.", False),
])
def test_a_conditional_sentence_beside_the_rule(text, derives):
    assert bool(derive_guards(text)) is derives


def _stops(text: str, tool: str, arg: str) -> bool:
    guards = GuardSet([Guard(s, f"g{i}", "project", "/repo", "x") for i, s in enumerate(derive_guards(text))])
    args = {"command": arg} if tool == "Bash" else {"file_path": arg}
    return bool(guards.check(normalize_call(tool, args, "/repo", project_root="/repo")))


@pytest.mark.parametrize("text, tool, arg, stopped", [
    ("NEVER hand-edit `.lock.yml` files.", "Edit", "/repo/.github/workflows/a.lock.yml", True),
    ("NEVER hand-edit `.lock.yml` files.", "Edit", "/repo/.github/workflows/a.md", False),
    ("- For external builds, always use `python3 test.py` instead of `./test.py`.", "Bash", "./test.py --no-test", True),
    ("- For external builds, always use `python3 test.py` instead of `./test.py`.", "Bash", "python3 test.py", False),
    ("Don't run destructive SQL like `DROP TABLE` or `TRUNCATE`", "Bash", "psql -c 'DROP TABLE users'", True),
    ("Don't run destructive SQL like `DROP TABLE` or `TRUNCATE`", "Bash", "psql -c 'SELECT 1'", False),
    ("Never run destructive SQL (DROP, TRUNCATE, DELETE without WHERE).", "Bash",
     "psql -c 'DELETE FROM users'", True),
    ("Never run destructive SQL (DROP, TRUNCATE, DELETE without WHERE).", "Bash",
     "psql -c 'DELETE FROM users WHERE id = 1'", False),
    ("Do not publish to npm", "Bash", "pnpm publish --access public", True),
    ("Do not publish to npm", "Bash", "pnpm pack", False),
    ("No edits to `vendor/`.", "Edit", "/repo/vendor/x/y.go", True),
    ("No edits to `vendor/`.", "Read", "/repo/vendor/x/y.go", False),
    ("Never edit the lockfile.", "Edit", "/repo/packages/web/package-lock.json", True),
    ("Never edit the lockfile.", "Edit", "/repo/pnpm-lock.yaml", True),
    ("Never edit the lockfile.", "Edit", "/repo/package.json", False),
])
def test_what_the_guard_stops(text, tool, arg, stopped):
    assert _stops(text, tool, arg) is stopped
