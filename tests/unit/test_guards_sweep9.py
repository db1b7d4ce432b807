"""Readings from a ninth sweep ("rules that hold", Go/Rust/.NET/Elixir/Ruby/PHP/infra instruction files): a
command said after "never" with no "run" (``never mix ecto.reset``), an unknown program's command in a list beside
a known one, a list item that repeats the program ("git reset --hard or git clean -fd"), "via Bash" and "without
arguments". Each case quotes a real instruction-file line (by its find_string hit, as the index named no
repository) or the bare lesson a person would type. Calls run through the public API: derive_guards / rules_in,
then GuardSet.check of normalize_call."""

from __future__ import annotations

import pytest

from tacit.guards import derive_guards
from test_guards_sweep7 import _line, _stops

# (file text, calls it stops, calls it lets through)
LINES = [
    # find_string hit 66756550715 (an Elixir CLAUDE.md): the agent's Bash tool is every way it runs a command
    ("The Phoenix server is always already running. Never run `mix phx.server` via Bash. Assume localhost:4000.\n",
     ["mix phx.server"], ["mix test", "mix compile"]),
    # find_string hit 27837935279 (a Rails spec-run note): without arguments is the bare command
    ("Run in segments to avoid timeouts and identify issues more efficiently. Never run `bundle exec rspec` without "
     "arguments.\n", ["bundle exec rspec"], ["bundle exec rspec spec/models"]),
    # find_string hit 53385396083 (a GitOps guide): "Key point:" labels the rule
    ("Key point: **you never run `helm install` directly**. Kustomize handles Helm rendering.\n",
     ["helm install rel chart"], ["kustomize build .", "helm template chart"]),
    # find_string hit 52605577294 (a .NET CLAUDE.md): "still never" is never
    ("- This does NOT replace the rule against running migration commands — agents still NEVER run `dotnet ef` or "
     "any migration tool\n", ["dotnet ef database update", "dotnet ef migrations add X"], ["dotnet build"]),
]

# bare lessons, as typed to an agent: (lesson, calls it stops, calls it lets through)
BARE = [
    # the second item names its program again (it read as `git git clean`)
    ("never git reset --hard or git clean -fd", ["git reset --hard", "git clean -fd"],
     ["git clean -n", "git reset --soft HEAD~1"]),
    # an unknown program's command beside a known program's (find_string hits 71304614292, 56714266570)
    ("never run go test, go build or golangci-lint", ["go test ./...", "go build ./...", "golangci-lint run"],
     ["make test", "go vet ./..."]),
    ("never run bundle install or jekyll build", ["bundle install", "bundle exec jekyll build"],
     ["bundle exec jekyll serve", "bundle exec rake"]),
    ("never run npm test or eslint directly", ["npm test", "eslint ."], ["npm run build"]),
    # no "run": a task typed as such, a flag after a program that is no English word, a program's own subcommand
    ("never mix ecto.reset", ["mix ecto.reset"], ["mix ecto.migrate"]),
    ("never rails db:drop", ["rails db:drop", "bin/rails db:drop"], ["rails db:migrate"]),
    ("never dotnet pack -c Release", ["dotnet pack -c Release"], ["dotnet pack -c Debug", "dotnet build"]),
    ("no bundle exec rspec", ["bundle exec rspec spec/models"], ["bundle exec rubocop"]),
    ("never go build or go install directly; use make", ["go build ./...", "go install ./cmd/x"], ["make build"]),
    ("never php artisan migrate:fresh", ["php artisan migrate:fresh"], ["php artisan migrate"]),
    # the way to do it after the list is no item of it (the first item alone was a guard: a partial list)
    ("never run go test, go build or golangci-lint directly, use make", ["go test ./...", "golangci-lint run"],
     ["make test"]),
    ("never run npm install, npm update or npx cap sync, use pnpm", ["npm install", "npm update", "npx cap sync"],
     ["pnpm install"]),
    # no "run", and the flag that makes it allowed
    ("never cargo install without --locked", ["cargo install ripgrep"], ["cargo install --locked ripgrep"]),
    ("never go build without -o", ["go build ./cmd/app"], ["go build -o bin/app ./cmd/app"]),
    ("never run bundle exec rspec without arguments", ["bundle exec rspec"], ["bundle exec rspec spec/a_spec.rb"]),
]

# lines that give no guard
LINES_NOTHING = [
    # find_string hit 57678273143: what the app's users never do is no rule for the agent
    "- App can be configured completely through UI; normal users never edit `.env`.\n",
    "End users never run `npm install`: the installer does it.\n",
    # the second command says when, not a second rule (find_string hit 66394593620)
    "- Never run `mix compile --warnings-as-errors` beside `mix test`; concurrent compilers redefine loaded modules.\n",
]

# lessons that must give no guard at all: English after "never", no command typed
NOTHING = [
    "never mix tabs and spaces",
    "never go back to the old API",
    "never go build a new abstraction for one caller",
    "never bundle secrets into the image",
    "never make changes without tests",
]


def _specs(kind: str, text: str) -> list:
    return _line(text if text.endswith("\n") else text + "\n") if kind == "line" else list(derive_guards(text))


# every table through one check: a reading's guards stop what it refuses and let the rest through; a line or lesson
# that says no rule gives none (read both as a line and as a lesson when it is a lesson)
CASES = ([("line", *c) for c in LINES] + [("lesson", *c) for c in BARE] + [("line", t, [], []) for t in LINES_NOTHING]
         + [(kind, t, [], []) for t in NOTHING for kind in ("line", "lesson")])


@pytest.mark.parametrize("kind, text, stopped, fine", CASES)
def test_reading(kind, text, stopped, fine):
    specs = _specs(kind, text)
    if not stopped:
        assert specs == [], (kind, text)
        return
    assert specs and _stops(specs, stopped + fine) == [True] * len(stopped) + [False] * len(fine), text
