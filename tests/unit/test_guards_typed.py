"""Rules typed as people type them to an agent (tacit.guards.clauses, gerunds):
"make sure you never …", any rule verb's gerund after "stop / no more / quit",
"X? no.", typed cue words ("nver", "dnt"); each derives the guard the bare rule
does, stops its violation and lets the fine call run, and its exception variant
vetoes. A negation that forbids nothing ("don't forget to …", "no need to …")
derives nothing."""

from __future__ import annotations

import pytest

from tacit.guards import Guard, GuardSet, derive_guards, normalize_call
from tacit.guards.words import verb_of

ROOT = "/repo"


def stops(text: str, tool: str, args: dict) -> bool:
    guards = [Guard(spec, 1, "project", ROOT, "lesson:1") for spec in derive_guards(text)]
    return bool(GuardSet(guards).check(normalize_call(tool, args, ROOT, project_root=ROOT)))


BASH = "Bash"
EDIT = "Edit"
# (typed lesson, the bare rule it says, a violation, a fine call)
CASES = [
    ("make sure you never run pnpm test", "never run pnpm test",
     (BASH, {"command": "pnpm test"}), (BASH, {"command": "pnpm build"})),
    ("Make sure not to touch `.env`.", "never touch .env",
     (EDIT, {"file_path": "/repo/.env", "old_string": "a", "new_string": "b"}),
     (EDIT, {"file_path": "/repo/src/a.py", "old_string": "a", "new_string": "b"})),
    ("be sure you don't push to develop", "never push to develop",
     (BASH, {"command": "git push origin develop"}), (BASH, {"command": "git push origin feature"})),
    ("stop hand-editing dist/", "never hand-edit dist/",
     (EDIT, {"file_path": "/repo/dist/a.js", "old_string": "a", "new_string": "b"}),
     (EDIT, {"file_path": "/repo/src/a.js", "old_string": "a", "new_string": "b"})),
    ("no more renaming files with mv", "never rename files with mv",
     (BASH, {"command": "mv a.txt b.txt"}), (BASH, {"command": "git mv a.txt b.txt"})),
    ("quit rebasing onto main", "never rebase onto main",
     (BASH, {"command": "git rebase main"}), (BASH, {"command": "git rebase --continue"})),
    ("stop using -- with pnpm test", "never use -- with pnpm test",
     (BASH, {"command": "pnpm test -- --grep x"}), (BASH, {"command": "pnpm test --grep x"})),
    ("running pnpm test? no.", "never run pnpm test",
     (BASH, {"command": "pnpm test"}), (BASH, {"command": "pnpm build"})),
    ("npm? nope", "never npm",
     (BASH, {"command": "npm install"}), (BASH, {"command": "pnpm install"})),
    ("`git push --force`?? NO!", "never run `git push --force`",
     (BASH, {"command": "git push --force origin main"}), (BASH, {"command": "git push origin main"})),
    ("nver commit .env files", "never commit .env files",
     (BASH, {"command": "git add .env"}), (BASH, {"command": "git add src/a.py"})),
    ("dnt edit CHANGELOG.md", "don't edit CHANGELOG.md",
     (EDIT, {"file_path": "/repo/CHANGELOG.md", "old_string": "a", "new_string": "b"}),
     (EDIT, {"file_path": "/repo/README.md", "old_string": "a", "new_string": "b"})),
    ("you're not allowed to run pnpm test", "never run pnpm test",
     (BASH, {"command": "pnpm test"}), (BASH, {"command": "pnpm build"})),
    ("you cannot push to develop", "never push to develop",
     (BASH, {"command": "git push origin develop"}), (BASH, {"command": "git push origin feature"})),
    ("force pushing isn't allowed", "never force push",
     (BASH, {"command": "git push --force origin x"}), (BASH, {"command": "git push origin x"})),
    ("_never_ run pnpm test", "never run pnpm test",
     (BASH, {"command": "pnpm test"}), (BASH, {"command": "pnpm build"})),
    ("*do not* touch `.env`", "never touch .env",
     (EDIT, {"file_path": "/repo/.env", "old_string": "a", "new_string": "b"}),
     (EDIT, {"file_path": "/repo/src/a.py", "old_string": "a", "new_string": "b"})),
    ("no committing .env files please", "never commit .env files",
     (BASH, {"command": "git add .env"}), (BASH, {"command": "git add src/a.py"})),
    ("hard no on pushing to develop", "never push to develop",
     (BASH, {"command": "git push origin develop"}), (BASH, {"command": "git push origin feature"})),
    ("running pnpm test = never", "never run pnpm test",
     (BASH, {"command": "pnpm test"}), (BASH, {"command": "pnpm build"})),
    ("Force push: no.", "never force push",
     (BASH, {"command": "git push -f origin x"}), (BASH, {"command": "git push origin x"})),
    ("would you please stop running pnpm test", "never run pnpm test",
     (BASH, {"command": "pnpm test"}), (BASH, {"command": "pnpm build"})),
    ("could you please not push to develop", "never push to develop",
     (BASH, {"command": "git push origin develop"}), (BASH, {"command": "git push origin feature"})),
    ("I never want you to run pnpm test", "never run pnpm test",
     (BASH, {"command": "pnpm test"}), (BASH, {"command": "pnpm build"})),
    ("stop manually editing CHANGELOG.md", "never manually edit CHANGELOG.md",
     (EDIT, {"file_path": "/repo/CHANGELOG.md", "old_string": "a", "new_string": "b"}),
     (EDIT, {"file_path": "/repo/README.md", "old_string": "a", "new_string": "b"})),
    ("under no circumstances touch package-lock.json", "never touch package-lock.json",
     (EDIT, {"file_path": "/repo/package-lock.json", "old_string": "a", "new_string": "b"}),
     (EDIT, {"file_path": "/repo/package.json", "old_string": "a", "new_string": "b"})),
    ("remember not to commit .env files", "never commit .env files",
     (BASH, {"command": "git add .env"}), (BASH, {"command": "git add src/a.py"})),
]


@pytest.mark.parametrize("typed, bare, violation, fine", CASES)
def test_a_typed_rule_derives_the_bare_rules_guard_and_stops_only_its_violation(typed, bare, violation, fine):
    got = derive_guards(typed)
    assert got, typed
    assert [s.match for s in got] == [s.match for s in derive_guards(bare)]
    assert stops(typed, *violation)
    assert not stops(typed, *fine)


@pytest.mark.parametrize("typed", [c[0] for c in CASES])
@pytest.mark.parametrize("exception", [" unless I say so", " for now", " except in CI"])
def test_its_exception_variant_vetoes(typed, exception):
    text = typed.rstrip(".!?") + exception if "?" not in typed else typed.replace("?", exception + "?", 1)
    assert derive_guards(text) == (), text


@pytest.mark.parametrize("text", [
    "don't forget to run pnpm test",
    "never forget to push to develop",
    "don't hesitate to create a PR with gh pr create",
    "you don't have to delete or rename files in docs/images/",
    "you don't need to create an issue with gh issue create",
    "you don't always need to run pnpm test",
    "no need to run pnpm test",
    "don't be afraid to touch .env",
    "nver forget to commit .env files",
    "you don't need permission to run pnpm test",
    "you don't need my approval to push to develop",
    "never be shy to create a PR with gh pr create",
    "stop worrying about pnpm test",
    "no string concatenation in SQL",
])
def test_a_negation_that_forbids_nothing_derives_nothing(text):
    assert derive_guards(text) == ()


def test_gerunds_of_rule_verbs_by_spelling():
    assert verb_of("running") == "run" and verb_of("renaming") == "rename" and verb_of("committing") == "commit"
    assert verb_of("hand-editing") == "hand-edit" and verb_of("copying") == "copy" and verb_of("rebasing") == "rebase"
    assert verb_of("Force pushing") == "force push" and verb_of("force-pushing") == "force-push"
    assert verb_of("nothing") is None and verb_of("string") is None and verb_of("well-being") is None
    assert verb_of("morning") is None and verb_of(None) is None


@pytest.mark.parametrize("text, bare, violation, fine", [
    ("don't push to github.com/acme/widgets, push to a fork and open a PR", "don't push to github.com/acme/widgets",
     (BASH, {"command": "git push https://github.com/acme/widgets.git main"}),
     (BASH, {"command": "git push https://github.com/me/widgets.git main"})),
    ("never commit to main, commit to your own branch", "never commit to main", None, None),
    ("never run tsc with file arguments, tsc then ignores tsconfig.json", "never run tsc with file arguments",
     (BASH, {"command": "tsc src/a.ts"}), (BASH, {"command": "tsc -p ."})),
    ("never run pnpm test, CI still skips the cache", "never run pnpm test",
     (BASH, {"command": "pnpm test"}), (BASH, {"command": "pnpm build"})),
])
def test_an_order_or_a_statement_after_a_comma_is_no_part_of_the_rule(text, bare, violation, fine):
    got = derive_guards(text)
    assert got and [s.match for s in got] == [s.match for s in derive_guards(bare)]
    if violation:
        assert stops(text, *violation) and not stops(text, *fine)
    assert derive_guards(text.replace(",", " unless I say so,", 1)) == ()


@pytest.mark.parametrize("text", [
    "btw, never run pnpm test", "oh and don't run pnpm test", "just never run pnpm test", "also, never run pnpm test",
    "never run pnpm test fyi", "never run pnpm test, period", "don't run pnpm test, like ever",
    "pretty please never run pnpm test", "ok so never run pnpm test", "ffs don't run pnpm test",
    "never run pnpm test and it breaks the lockfile", "never run pnpm test and it's slow",
])
def test_lead_ins_and_tails_said_around_a_rule_change_nothing(text):
    assert [s.match for s in derive_guards(text)] == [s.match for s in derive_guards("never run pnpm test")]
    assert stops(text, BASH, {"command": "pnpm test"}) and not stops(text, BASH, {"command": "pnpm build"})


@pytest.mark.parametrize("tail", [
    " for the time being", " till the release", " til friday", " yet", " today", " this time", " right now",
    " at the moment", " in this PR", " this sprint", " w/o asking",
])
def test_a_rule_limited_in_time_or_to_one_task_vetoes(tail):
    assert derive_guards("never run pnpm test") and derive_guards("never run pnpm test" + tail) == ()
    assert derive_guards("don't push to develop" + tail) == ()


def test_an_and_clause_with_an_exception_still_vetoes():
    assert derive_guards("never run pnpm test and it's fine unless CI is red") == ()
    assert derive_guards("never run pnpm test and then run it again") == ()


@pytest.mark.parametrize("text", [
    "never run pnpm test — could break CI", "never run pnpm test, might corrupt the lockfile",
    "never run pnpm test; may wipe the lockfile", "never run pnpm test (may wipe the lockfile)",
    "never run pnpm test, often breaks CI", "never run pnpm test, probably breaks CI",
    "never run pnpm test, sometimes it breaks CI",
])
def test_a_harm_that_may_follow_is_a_reason(text):
    assert [s.match for s in derive_guards(text)] == [s.match for s in derive_guards("never run pnpm test")]
    assert stops(text, BASH, {"command": "pnpm test"}) and not stops(text, BASH, {"command": "pnpm build"})


@pytest.mark.parametrize("text", [
    "never run pnpm test, might be fine in CI", "never run pnpm test — could be ok sometimes",
    "never run pnpm test, usually", "never run pnpm test, may skip it if CI breaks",
    "never run pnpm test, sometimes it's needed", "never run pnpm test, it might break CI unless cached",
])
def test_a_hedge_or_permission_after_the_rule_still_vetoes(text):
    assert derive_guards(text) == ()


# a place that is no folder ("in production", "in CI") is a condition the matcher cannot see: before
# this, "in production, never run npm" stopped npm everywhere (the trailing form already vetoed)
@pytest.mark.parametrize("text", [
    "in production, never run npm", "in CI, never run npm install", "In CI never use npm",
    "in prod never use npm", "on the server, don't run docker compose down -v",
    "during deploys, never run git push --force", "never run npm in production",
])
def test_a_place_that_is_no_folder_is_a_condition(text):
    assert derive_guards(text) == ()


@pytest.mark.parametrize("text, where", [
    ("in ui/, never use npm", "ui/x"), ("in ci/, never run npm", "ci/x"), ("inside docker/, never use npm", "docker/x"),
])
def test_a_folder_said_first_still_places_the_rule(text, where):
    assert derive_guards(text)
    folder = f"{ROOT}/{where.split('/')[0]}"
    guards = [Guard(spec, 1, "project", ROOT, "lesson:1") for spec in derive_guards(text)]
    inside = normalize_call(BASH, {"command": "npm install"}, folder, project_root=ROOT)
    outside = normalize_call(BASH, {"command": "npm install"}, ROOT, project_root=ROOT)
    assert GuardSet(guards).check(inside) and not GuardSet(guards).check(outside)
