"""Rule families of the eighth corpus round (tacit.guards.families): each family stops its
violations, lets the close fine calls run, derives from unseen phrasings, and an exception still vetoes."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call


def _guards(rule: str) -> GuardSet:
    specs = derive_guards(rule)
    assert specs, rule
    return GuardSet([Guard(spec, id=i, scope="project", project_root="/r") for i, spec in enumerate(specs)])


def fires(rule: str, command: str | None = None, *, tool: str = "Bash", path: str | None = None) -> bool:
    args = {"command": command} if command is not None else {"file_path": path, "content": "x",
                                                              "old_string": "a", "new_string": "b"}
    return bool(_guards(rule).check(normalize_call(tool, args, "/r", project_root="/r")))


FAMILIES = [
    # a pipeline stage after a command
    ("- Never pipe Gradle output through `tail`, `head`, `grep`, etc. Piping masks the exit code.",
     ["./gradlew build | tail -50", "./gradlew spotlessCheck | grep -i error", "gradle test | head"],
     ["./gradlew build", "git log --oneline | head -5", "./gradlew build > log.txt", "curl x | sh"]),
    ("don't pipe the output of cargo into head or less", ["cargo test | head", "cargo build 2>&1 | less"],
     ["cargo test", "ls | head"]),
    # a lone distinctive flag, whatever runs it
    ("- Never use `--rerun-tasks`. Use `--rerun` when needed.",
     ["./gradlew build --rerun-tasks", "./gradlew :a:test --rerun-tasks", "gradle test --rerun-tasks=true"],
     ["./gradlew build --rerun", "./gradlew build", "echo --rerun-tasks"]),
    ("never pass --skip-integrity-check", ["yarn install --skip-integrity-check"], ["yarn install"]),
    # a command that needs a flag
    ("When running `cargo test`, use `--all-features` to ensure no tests are missed.",
     ["cargo test", "cargo test -p azure_core"],
     ["cargo test -p azure_core --all-features", "cargo build -p azure_core", "cargo t --all-features"]),
    ("run cargo test with --all-features, otherwise feature-gated tests are skipped", ["cargo test"],
     ["cargo test --all-features"]),
    ("never run `pytest` without `--no-cov`", ["pytest tests/", "pytest"], ["pytest --no-cov tests/"]),
    ("never run `cargo publish` without `--dry-run`", ["cargo publish"], ["cargo publish --dry-run"]),
    ("always pass --frozen to uv sync", ["uv sync"], ["uv sync --frozen", "uv run pytest"]),
    # a command with file arguments
    ("> **WARNING:** Never run `tsc` or `yarn lint:types` with file arguments (e.g., `yarn lint:types src/file.ts`).",
     ["yarn lint:types src/panels/card.ts", "npx tsc src/common/dom/fire_event.ts", "tsc src/data/entity.ts --noEmit"],
     ["yarn lint:types", "yarn lint:eslint", "yarn test", "tsc -p tsconfig.json", "tsc --noEmit"]),
    ("never run eslint on individual files", ["eslint src/a.js"], ["eslint", "eslint --fix"]),
    # a task runner instead of the tools it wraps
    ("**IMPORTANT: Always use `make` commands instead of direct `xcodebuild` or `swift` commands.**",
     ["xcodebuild test -scheme PostHog", "swift build", "swift test"], ["make build", "make test", "swiftlint"]),
    ("use just instead of calling cargo directly", ["cargo build"], ["just build"]),
    # a wrapper, and the tools not to run bare
    ("Use `uv` for everything — never bare `python` or `python3`.",
     ["python -m pytest tests/units", "python3 scripts/hatch_build.py"],
     ["uv run python scripts/hatch_build.py", "uv run pytest tests", "uv sync"]),
    ("use uv for everything, never bare python or python3", ["python3 x.py"], ["uv run python x.py"]),
    # comments and reviews on pull requests and issues
    ("NEVER comment on or review pull requests, issues, etc... on [Wasmtime]; that may only be done by humans",
     ["gh pr comment 10234 --body x", "gh pr review 10234 --approve", "gh issue comment 9876 --body y"],
     ["gh pr view 10234 --comments", "gh issue view 9876", "gh pr create --title x"]),
    ("don't approve PRs", ["gh pr review 1 --approve", "gh pr review -a 1"],
     ["gh pr view 1", "gh pr review 1 --comment -b 'nit'", "gh pr review 1 --request-changes -b x"]),
    # a command, whatever files it runs on
    ("- **No `ruff format`** on existing files — tends to introduce unnecessary style changes.",
     ["ruff format netbox/dcim/models/devices.py", "ruff format ."], ["ruff check netbox/x.py"]),
]


@pytest.mark.parametrize("rule, stopped, fine", FAMILIES)
def test_families_stop_their_violations_and_let_close_calls_run(rule, stopped, fine):
    for command in stopped:
        assert fires(rule, command), (rule, command)
    for command in fine:
        assert not fires(rule, command), (rule, command)


PATHS = [
    # any file of a name, edits and shell writes
    ("Always edit `AGENTS.md` directly; never modify a `CLAUDE.md`, and never create one that holds content.",
     [("Edit", "/r/CLAUDE.md"), ("Write", "/r/docs/CLAUDE.md")], [("Edit", "/r/AGENTS.md"), ("Read", "/r/CLAUDE.md")]),
    ("don't edit any `package.json`", [("Edit", "/r/packages/a/package.json")], [("Edit", "/r/packages/a/index.js")]),
    # any folder of a name, at any depth
    ("- Do not modify generated code, found in `generated` subdirectories. These files are made by tools.",
     [("Edit", "/r/sdk/kv/src/generated/models/x.rs"), ("Edit", "/r/a/generated/b.rs")],
     [("Edit", "/r/sdk/kv/src/authorizer.rs"), ("Read", "/r/sdk/kv/src/generated/models/mod.rs")]),
    ("don't modify generated code in generated subdirectories", [("Edit", "/r/x/generated/y.rs")],
     [("Edit", "/r/x/gen/y.rs")]),
    # migrations written by hand
    ("2. Prompt the user to run `python manage.py makemigrations` — never write migrations manually.",
     [("Write", "/r/netbox/dcim/migrations/0231_idx.py"), ("Edit", "/r/netbox/ipam/migrations/0082_q.py")],
     [("Edit", "/r/netbox/dcim/models/devices.py"), ("Read", "/r/netbox/ipam/migrations/0082_q.py")]),
    ("don't write django migrations manually, run makemigrations", [("Write", "/r/app/migrations/0001_x.py")],
     [("Write", "/r/app/models.py")]),
]


@pytest.mark.parametrize("rule, stopped, fine", PATHS)
def test_path_families(rule, stopped, fine):
    for tool, path in stopped:
        assert fires(rule, tool=tool, path=path), (rule, tool, path)
    for tool, path in fine:
        assert not fires(rule, tool=tool, path=path), (rule, tool, path)


def test_a_shell_write_to_any_file_of_the_name_is_stopped():
    rule = "never modify a `CLAUDE.md`"
    assert fires(rule, "echo '# notes' > CLAUDE.md")
    assert fires(rule, "echo x >> docs/CLAUDE.md")
    assert not fires(rule, "cat CLAUDE.md")


@pytest.mark.parametrize("text", [
    # exceptions and hedges still veto
    "- Do not alter `SECURITY.md`, `LICENSE.txt`, or `CODE_OF_CONDUCT.md` without maintainer approval",
    "never push to main without asking",
    "never edit dist/ without the user's explicit permission",
    "never pipe gradle output through tail unless debugging",
    "never use `--rerun-tasks` unless the cache is broken",
    "run cargo test with --all-features, except on CI",
    "never run tsc with file arguments unless asked",
    "use make instead of xcodebuild unless you need a scheme",
    "never write migrations by hand, except for data migrations",
    "don't modify generated code in generated subdirectories unless told to",
    "usually never comment on pull requests",
    # not these families
    "never use `--dry-run`",  # a flag of many programs
    "use make instead of tabs",  # not a program
    "never write tests by hand",  # not a folder of generated files
])
def test_exceptions_veto_and_other_wordings_stay_memories(text):
    assert derive_guards(text) == (), text


def test_without_a_flag_is_no_exception():
    assert derive_guards("never run `cargo test` without `--all-features`")


MORE = [
    # opening a PR to the project the rule file belongs to
    ("NEVER open pull requests to [Wasmtime]; that may only be done manually by a maintainer",
     ["gh pr create --repo bytecodealliance/wasmtime --title x --body y", "gh pr create --title x"],
     ["gh pr view 10234", "git push origin topic"]),
    ("never comment on or review wasmtime pull requests or issues — that's for humans only",
     ["gh pr comment 1 --body x", "gh issue comment 2 --body y"], ["gh issue view 2"]),
    # a tool that writes the file the rule names
    ("- **Do NOT manually edit** `build.sln`", ["dotnet sln build.sln add src/Tools/t/t.csproj",
                                                "dotnet sln build.sln remove src/a/a.csproj"],
     ["dotnet sln build.sln list", "dotnet build build.sln", "./eng/generate-sln.sh"]),
    ("never modify `NuGet.config`", ["dotnet nuget add source https://x/v3/index.json -n x --configfile NuGet.config"],
     ["dotnet restore", "dotnet nuget list source"]),
    ("never edit `src/App/App.csproj`", ["dotnet add src/App/App.csproj package Newtonsoft.Json"],
     ["dotnet add src/Other/Other.csproj package Newtonsoft.Json"]),
    # a later sentence that explains what happens is the reason, not an exception
    ("Never run `tsc` with file arguments. When `tsc` receives file arguments, it ignores `tsconfig.json`.",
     ["tsc src/a.ts"], ["tsc"]),
]


@pytest.mark.parametrize("rule, stopped, fine", MORE)
def test_more_families(rule, stopped, fine):
    test_families_stop_their_violations_and_let_close_calls_run(rule, stopped, fine)


def test_the_global_file_is_the_path_named():
    rule = "don't edit the global .vscode/cspell.json, use sdk/cosmos/.cspell.json"
    assert fires(rule, tool="Edit", path="/r/.vscode/cspell.json")
    assert not fires(rule, tool="Edit", path="/r/sdk/cosmos/.cspell.json")


@pytest.mark.parametrize("text", [
    "never open PRs to main",  # a branch: the base of a PR, not the project
    "never open PRs to upstream unless asked",
    "never comment on or review pull requests unless asked",
    "Never push to main. If it's urgent, it is fine to push.",  # a later sentence that permits still vetoes
    "Never run `tsc` with file arguments. When `tsc` is slow, you may pass files.",
    "Never push to main. If it is urgent, it needs a maintainer's approval.",
    "Never push to main. When CI is down, it requires a second reviewer.",
])
def test_more_exceptions_and_permissions_veto(text):
    assert derive_guards(text) == (), text


UNSEEN = [
    ("don't pipe mvn output into grep", ["./mvnw verify | grep ERROR", "mvn test | grep x"], ["mvn test"]),
    ("always run `go test` with `-race`", ["go test ./..."], ["go test -race ./...", "go build ./..."]),
    ("`cargo test` must be run with `--all-features`", ["cargo test"], ["cargo test --all-features"]),
    ("use `--all-features` when running `cargo test`", ["cargo test -p x"], ["cargo test -p x --all-features"]),
    ("never run jest with a file path", ["jest src/a.test.ts"], ["jest", "jest --watch"]),
    ("please don't leave review comments on pull requests", ["gh pr review 3 --comment -b x", "gh pr comment 3 -b y"],
     ["gh pr view 3"]),
    ("use just rather than running cargo directly", ["cargo test"], ["just test"]),
]


@pytest.mark.parametrize("rule, stopped, fine", UNSEEN)
def test_unseen_phrasings_of_the_families(rule, stopped, fine):
    test_families_stop_their_violations_and_let_close_calls_run(rule, stopped, fine)


@pytest.mark.parametrize("text", [
    "use `--all-features` when running `cargo test` unless it is slow",
    "always use `--all-features` when running `cargo test` on CI",  # a place the matcher cannot see
    "run the tests with -v",  # no program
    "Never write Alembic migrations by hand",  # alembic keeps them elsewhere: not guessed
])
def test_unseen_wordings_that_stay_memories(text):
    assert derive_guards(text) == (), text


def test_a_flag_of_any_program_says_so_and_survives_a_round_trip():
    from tacit.guards.model import GuardSpec
    spec = derive_guards("never use `--rerun-tasks`")[0]
    assert spec.describe() == "any command with --rerun-tasks"
    assert GuardSpec.from_dict(spec.to_dict()) == spec
