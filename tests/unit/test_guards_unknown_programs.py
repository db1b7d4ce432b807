"""Programs tacit's word lists lacked, written unquoted after "run": "never run sops locally", "NEVER RUN
drizzle-kit generate". Real lines from a fresh probe (the index, find_string, names no repository: each case
names its hit), read as a file line (rules_in) and as a message (derive_guards); and the English lines of the
same probe ("never run tests in parallel", "do not use emojis") that must stay no rule. Calls run through the
public API: GuardSet.check of normalize_call."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.instructions import rules_in

ROOT = "/repo"


def _stops(specs, calls: list[str]) -> list[bool]:
    guards = GuardSet([Guard(spec, id=i, scope="project", project_root=ROOT) for i, spec in enumerate(specs)])
    return [bool(guards.check(normalize_call("Bash", {"command": c}, ROOT, project_root=ROOT))) for c in calls]


def _line(text: str) -> list:
    return [rule.spec for rule in rules_in(text + "\n", "AGENTS.md")]


# (line, calls its guard stops, calls it lets through)
RULES = [
    # find_string hit 55081049654 (a reviewer agent's "## Constraints"): the program alone, any use
    ("- Read-only. Never edit files, never run drizzle-kit, never connect to a DB.",
     ["npx drizzle-kit push", "drizzle-kit generate"], ["git status", "npm run db:push"]),
    # hit 52686762325 (a CLAUDE.md, "CRITICAL SAFETY RULE"): a program and its subcommand, shouted
    ("**⚠️ CRITICAL SAFETY RULE: NEVER RUN drizzle-kit generate**",
     ["drizzle-kit generate", "npx drizzle-kit generate"], ["drizzle-kit migrate", "npx drizzle-kit push"]),
    # hit 54218137110 (a SOPS skill's description): "locally" says nothing more
    ("Hard rule: never run sops locally — always shell to ac-devops, which is the only host with the age key.",
     ["sops -d secrets/a.enc.yml"], ["cat secrets/a.enc.yml", "git add secrets/a.enc.yml"]),
    # hit 70707037246 (a plan's "Secrets and tooling"): the unquoted program beside a quoted one
    ("  - Never run sops or `make secrets-*`.", ["sops -d secrets.yaml"], ["make test", "uv run pytest"]),
    # hit 71111557807 (a "Drizzle migrations — localhost safety" note): a heading that is the rule
    ("## Do not run drizzle-kit directly", ["npx drizzle-kit migrate"], ["npm run db:migrate"]),
    # hit 62739575306 (a milestone's constraints): two rules after a semicolon
    ("      constraints: never run kamal setup; never put a real secret in the file", ["kamal setup"],
     ["kamal deploy", "bin/rails runner 'puts 1'"]),
]


@pytest.mark.parametrize("text,stops,lets", RULES)
def test_an_unquoted_program_after_run_is_its_command(text, stops, lets):
    for specs in (_line(text), list(derive_guards(text))):
        assert specs, text
        assert _stops(specs, stops) == [True] * len(stops)
        assert _stops(specs, lets) == [False] * len(lets)


# lessons as a person types them (the rules7 probe's bare lessons; one of a CLI shaped name)
LESSONS = [
    ("never run sops decrypt", ["sops decrypt secrets.yaml"], ["sops --version"]),
    ("don't run drizzle-kit push", ["drizzle-kit push", "npx drizzle-kit push --force"], ["drizzle-kit generate"]),
    ("never run neonctl branches delete", ["neonctl branches delete dev"], ["neonctl branches list"]),
]


@pytest.mark.parametrize("text,stops,lets", LESSONS)
def test_a_typed_lesson_names_the_program(text, stops, lets):
    specs = list(derive_guards(text))
    assert _stops(specs, stops) == [True] * len(stops)
    assert _stops(specs, lets) == [False] * len(lets)


# real lines of the same probe that name no program to stop (or a product, or what a program is said to run)
NOT_COMMANDS = [
    "**NEVER run tests in parallel.** Tests share ports (19100, 19200, 19300), globalThis state, and SQLite databases.",  # 53779531752
    "- Never run database migrations. No database schema changes are required for this plan.",  # 70901009993
    "- **Don't run anything against prod.** Local DB only.",  # 56115098224
    "- Never run full semantic rebuilds automatically.",  # 54751649566
    "3. **Never run full mutation on every push** to a shared branch — it blocks developers without proportional value.",  # 58216321606
    "- Never run seed.",  # 66979345521
    "Do not use emojis as UI icons.",  # 61747774592
    "// ❌ WRONG - Never use any",  # 57949524105
    "- **NEVER run kamal deployments ever**",  # 63293852463: what kamal does, said in prose, not `kamal deployments`
    "Do not run PM2 cluster mode, multiple Nest workers, rolling replicas or a second deployment against the same database.",  # 70343921414
    # the product, not its CLI typed: `npx convex dev --once` is what the same line says to run (hit 56356961354)
    "- Convex is the CLOUD dev deployment (ceaseless-mandrill-524). NEVER run Convex locally. `npx convex dev --once` "
    "uploads code to the cloud and exits.",
    # what an earlier reading of "an unknown word and a CLI act" took for programs
    "never run factory reset", "never run bulk delete", "never run pre-commit hooks manually",
]


@pytest.mark.parametrize("text", NOT_COMMANDS)
def test_english_after_run_is_no_command(text):
    assert _line(text) == []
    assert derive_guards(text) == ()
