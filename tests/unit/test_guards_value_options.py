"""Options that take a value. A rule on a command still holds when the call puts options with their values
before or after its subcommand (`docker compose -f ci.yml up` for "never run `docker compose up`"); and a rule
that quotes such an option with its value (`pnpm --filter fe build`) keeps the value with the option, not as a
subcommand no call has (it derived `pnpm fe build --filter`, a guard that stopped nothing). Real lines from a
fresh probe (find_string names no repository: each case names its hit); calls through the public API."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.instructions import rules_in
from tacit.guards.why import ungrounded

ROOT = "/repo"


def _stopped(specs, calls: list[str]) -> list[str]:
    """Which of ``calls`` (Bash commands) the guards of ``specs`` stop."""
    guards = GuardSet([Guard(spec, id=i, scope="project", project_root=ROOT) for i, spec in enumerate(specs)])
    return [c for c in calls if guards.check(normalize_call("Bash", {"command": c}, ROOT, project_root=ROOT))]


# a rule on the command alone: the call's options and their values are skipped
SKIPPED = [
    ("never run `docker compose up`", ["docker compose -f ci.yml up", "docker compose --env-file .env -f a.yml up -d",
                                       "docker compose -p proj up"], ["docker compose -f ci.yml down"]),
    ("never run `git push`", ["git -C sub push", "git -c user.name=x push"], ["git -C sub status"]),
    ("never run `npm install`", ["npm --prefix web install", "npm --prefix=web install"], ["npm --prefix web test"]),
    ("never run `cargo build`", ["cargo +nightly build", "cargo --locked build"], ["cargo +nightly test"]),
    ("never run `kubectl delete`", ["kubectl -n prod delete pod x", "kubectl --context prod delete pod x"],
     ["kubectl -n prod get pods"]),
    ("never run `make deploy`", ["make -C infra deploy", "make -f Other.mk deploy"], ["make -C infra test"]),
]


@pytest.mark.parametrize("rule,stops,lets", SKIPPED)
def test_the_calls_options_and_their_values_are_skipped(rule, stops, lets):
    assert _stopped(derive_guards(rule), stops + lets) == stops


# (line, calls its guard stops, calls it lets through)
QUOTED = [
    # find_string hit 70141096403 (a plan's constraints): the filter is the option's value
    ("Never run `pnpm --filter jevcode-desktop rebuild`: the pnpm builtin wipes node-pty.",
     ["pnpm --filter jevcode-desktop rebuild"], ["pnpm --filter jevcode-desktop run rebuild:node", "pnpm rebuild"]),
    # hit 69123407681: the same package's other scripts stay allowed
    ("- Never run `pnpm --filter fe build` (the dev server uses `.next`). Use `pnpm --filter fe typecheck` and "
     "targeted `pnpm --filter fe exec vitest run <file>`.",
     ["pnpm --filter fe build"], ["pnpm --filter fe typecheck", "pnpm --filter fe exec vitest run a.test.ts"]),
    # hit 61129656058: a script run by name through the filter
    ("Never run `pnpm --filter @workspace/db run push` (drizzle-kit push — it only works with PG).",
     ["pnpm --filter @workspace/db run push"], ["pnpm --filter @workspace/db run generate"]),
    # hit 62601392217 (the rules7 probe): the compose file named, other commands on it allowed
    ("Don't run `docker compose -f jenkins-compose.yaml up` directly, since that",
     ["docker compose -f jenkins-compose.yaml up -d"], ["docker compose -f jenkins-compose.yaml ps", "./start.sh",
                                                       "docker compose -f other.yaml up"]),
]


@pytest.mark.parametrize("text,stops,lets", QUOTED)
def test_a_quoted_option_keeps_its_value(text, stops, lets):
    assert _stopped([rule.spec for rule in rules_in(text + "\n", "AGENTS.md")], stops + lets) == stops
    assert _stopped(derive_guards(text), stops + lets) == stops


def test_an_option_with_its_value_is_grounded_in_what_was_said():
    """What the user said holds ``-f jenkins-compose.yaml``; the guard's word is ``-f=jenkins-compose.yaml``."""
    text = "don't run `docker compose -f jenkins-compose.yaml up`"
    (spec,) = derive_guards(text)
    assert ungrounded(spec, text) == []
    assert ungrounded(spec, "don't run `docker compose -f other.yaml up`") == ["-f=jenkins-compose.yaml"]
