"""tacit.guards.derive: lesson text → a guard spec, only when exact."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.guards.derive import derive_guard, derive_guards
from tacit.guards.patterns import spec_from_pattern
from tacit.guards.model import CommandMatch, MergeMatch, PathMatch, PushMatch, ReadMatch, SudoMatch

SUDO = SudoMatch()


def cmd(*programs, subs=(), flags=()):
    return CommandMatch(tuple(programs), tuple(subs), tuple(flags), True)


@pytest.mark.parametrize("text, match, instead", [
    ("we use pnpm here, never npm", cmd("npm"), "pnpm"),
    ("use pnpm, not npm", cmd("npm"), "pnpm"),
    ("Use pnpm, not npm.", cmd("npm"), "pnpm"),
    ("pnpm, not npm", cmd("npm"), "pnpm"),
    ("pnpm not npm", cmd("npm"), "pnpm"),
    ("always use pnpm instead of npm", cmd("npm"), "pnpm"),
    ("use pnpm rather than npm in this repo", cmd("npm"), "pnpm"),
    ("never use npm, use pnpm", cmd("npm"), "pnpm"),
    ("don't use npm; use pnpm instead", cmd("npm"), "pnpm"),
    ("We don't use npm. Use pnpm.", cmd("npm"), None),  # the second sentence states no rule
    ("prefer yarn over npm", cmd("npm"), "yarn"),
    ("this project uses pnpm, not npm", cmd("npm"), "pnpm"),
    ("use pnpm, not npm or yarn", cmd("npm", "yarn"), "pnpm"),
    ("use uv, not pip", cmd("pip"), "uv"),
    ("use `uv pip`, not pip", cmd("pip"), "uv pip"),
    ("use uv, never poetry", cmd("poetry"), "uv"),
    ("use python3, not python", cmd("python"), "python3"),
    ("use podman, not docker", cmd("docker"), "podman"),
    ("use vitest, not jest", cmd("jest"), "vitest"),
    ("we use pytest, never unittest", cmd("unittest"), "pytest"),
    ("use ruff, not black", cmd("black"), "ruff"),
    ("use bun, not node", cmd("node"), "bun"),
    ("use rg, not grep", cmd("grep"), "rg"),
    ("use `npm ci`, not `npm install`", cmd("npm", subs=("install",)), "npm ci"),
    ("Rule: use uv, not pip (said 2026-12-01)", cmd("pip"), "uv"),
    ("Use pnpm \u2014 not npm.", cmd("npm"), "pnpm"),
    ("Use pnpm instead of npm for package management.", cmd("npm"), "pnpm"),
    ("The user prefers pnpm over npm.", cmd("npm"), "pnpm"),
    ("Always use pnpm (not npm) in this repo.", cmd("npm"), "pnpm"),
    ("In this project, use pnpm rather than npm.", cmd("npm"), "pnpm"),
    ("Do not use npm in this project \u2014 use pnpm.", cmd("npm"), "pnpm"),
    ("Use pnpm; never npm.", cmd("npm"), "pnpm"),
    ("User correction: no, we use pnpm here, never npm", cmd("npm"), "pnpm"),
    ("Use pnpm, not npm, in this project", cmd("npm"), "pnpm"),
    ("never use npm", cmd("npm"), None),
    ("don't use yarn", cmd("yarn"), None),
    ("no npm", cmd("npm"), None),
    ("npm is banned here", cmd("npm"), None),
])
def test_tool_lessons(text, match, instead):
    spec = derive_guard(text)
    if match is None:
        assert spec is None
        return
    assert spec is not None, text
    assert spec.match == match
    assert spec.instead == instead
    assert spec.because == " ".join(text.split())
    assert spec.action == "ask"


@pytest.mark.parametrize("text, match", [
    ("never run git push --force", PushMatch((), True)),
    ("never git push --force", PushMatch((), True)),
    ("never run `git push -f`", PushMatch((), True)),
    ("never force push", PushMatch((), True)),
    ("don't force-push to main", PushMatch(("main",), True)),
    ("never run git push", PushMatch((), False)),
    ("never run git push --no-verify", cmd("git", subs=("push",), flags=("--no-verify",))),
    ("don't run terraform apply", cmd("terraform", subs=("apply",))),
    ("never run kubectl delete", cmd("kubectl", subs=("delete",))),
    ("never run make deploy", cmd("make", subs=("deploy",))),
    ("never run cargo publish", cmd("cargo", subs=("publish",))),
    ("never run docker system prune", cmd("docker", subs=("system", "prune"))),
    ("never run rm -rf", cmd("rm", flags=("-r", "-f"))),
    ("never run go get -u", cmd("go", subs=("get",), flags=("-u",))),
    ("don't run `npm publish`", cmd("npm", subs=("publish",))),
    ("never run `./scripts/reset-db --force`", cmd("reset-db", flags=("--force",))),
    ("never run `python manage.py flush`", cmd("python", subs=("manage.py", "flush"))),
    ("never run sudo", SUDO),
])
def test_command_lessons(text, match):
    spec = derive_guard(text)
    assert spec is not None, text
    assert spec.match == match


@pytest.mark.parametrize("text, patterns", [
    ("don't touch migrations/", ("migrations/",)),
    ("don't modify migrations/", ("migrations/",)),
    ("never edit the migrations folder", ("migrations/",)),
    ("don't touch prisma/migrations/", ("prisma/migrations/",)),
    ("never edit src/generated/ by hand", ("src/generated/",)),
    ("never edit package-lock.json", ("package-lock.json",)),
    ("don't touch .env", (".env",)),
    ("don't touch Cargo.lock", ("Cargo.lock",)),
    ("don't change anything in `db/schema.sql`", ("db/schema.sql",)),
    ("don't touch migrations/ or vendor/", ("migrations/", "vendor/")),
    ("never edit *.lock", ("*.lock",)),
    ("leave vendor/ alone", ("vendor/",)),
    ("Dockerfile is read-only", ("Dockerfile",)),
    ("never write to /etc/hosts", ("/etc/hosts",)),
])
def test_path_lessons(text, patterns):
    spec = derive_guard(text)
    assert spec is not None, text
    assert spec.match == PathMatch(patterns)


@pytest.mark.parametrize("text, branches", [
    ("don't push to main", ("main",)),
    ("never push to main", ("main",)),
    ("never push directly to main or master", ("main", "master")),
    ("Never push straight to master.", ("master",)),
    ("never push to the release branch", ("release",)),
    ("never push to `prod`", ("prod",)),
    ("no pushing to main", ("main",)),
    ("never push to gh-pages", ("gh-pages",)),
])
def test_push_lessons(text, branches):
    spec = derive_guard(text)
    assert spec is not None, text
    assert spec.match == PushMatch(branches, False)


@pytest.mark.parametrize("text", [
    "never use sudo", "no sudo", "don't sudo", "Do not use sudo.",
    "don't run anything with sudo", "never run commands as sudo",
])
def test_sudo_lessons(text):
    spec = derive_guard(text)
    assert spec is not None and spec.match == SUDO


@pytest.mark.parametrize("text", [
    # not a rule with a tool or command shape
    "be careful with the database", "run tests before committing", "keep answers short",
    "use tabs", "use tabs, not spaces", "prefer small commits", "use poetry, not tabs",
    # no program, or no exact thing to stop
    "never run the migrations", "never run tests", "we use pnpm", "always use pnpm",
    "don't touch the database", "never edit generated files", "don't touch it",
    "never change the API", "don't update dependencies", "don't touch anything",
    "never push to prod", "don't push to production",
    # hedged or qualified
    "use pnpm, not npm, unless CI needs it", "use npm, not pnpm, for the docs site",
    "don't run prettier on generated files", "never push without running tests",
    "avoid npm", "we usually use pnpm, not npm",
    "use pnpm if possible, not npm", "maybe use uv instead of pip",
    "Never push to main. Unless it's a hotfix.", "never force push to main after review",
    "I think we use yarn, not npm", "don't use sudo unless asked",
    # not a path
    "don't delete migrations",
    # tools from different families, or not tools
    "use the makefile, not npm scripts", "use pytest, not npm", "use docker, not pip",
    "pnpm is faster than npm", "npm install failed because of the proxy",
    # quoted but not a plain command
    "never run `rm -rf /`", "don't run `$CMD`",
    "don't touch ../other/file.txt", "don't touch https://example.com/a.txt",
])
def test_lessons_that_stay_memories(text):
    assert derive_guard(text) is None
    assert derive_guards(text) == ()


def test_two_rules_in_one_lesson_are_both_found_but_not_one_guard():
    text = "Use pnpm, not npm. Never push to main."
    assert derive_guard(text) is None
    assert [s.match for s in derive_guards(text)] == [cmd("npm"), PushMatch(("main",), False)]


def test_the_same_rule_twice_is_one_guard():
    spec = derive_guard("Use pnpm, not npm. Pnpm, not npm!")
    assert spec is not None and spec.match == cmd("npm")


@pytest.mark.parametrize("value", [None, 3, b"use pnpm, not npm", "", "   ", "x" * 400,
                                   "use pnpm, not npm" + " " * 500 + "!", "\ud800 never use npm"])
def test_bad_input(value):
    assert derive_guard(value) is None or isinstance(value, str)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_never_raises(text):
    specs = derive_guards(text)
    assert all(spec.because for spec in specs)


# --------------------------------------------------------------------------- tacit guard add PATTERN
@pytest.mark.parametrize("pattern, match", [
    ("npm", cmd("npm")),
    ("terraform apply", cmd("terraform", subs=("apply",))),
    ("git push --no-verify", cmd("git", subs=("push",), flags=("--no-verify",))),
    ("git push --force", PushMatch((), True)),
    ("path:migrations/", PathMatch(("migrations/",))),
    ("path:migrations/, vendor/", PathMatch(("migrations/", "vendor/"))),
    ("push", PushMatch((), False)),
    ("push:main,release/1.x", PushMatch(("main", "release/1.x"), False)),
    ("force-push:main", PushMatch(("main",), True)),
    ("sudo", SUDO),
    ("read:.env, secrets/", ReadMatch((".env", "secrets/"))),
    ("merge", MergeMatch(("main", "master"))),
    ("merge:release/*", MergeMatch(("release/*",))),
])
def test_spec_from_pattern(pattern, match):
    spec = spec_from_pattern(pattern, "because I said so", instead="pnpm", action="deny")
    assert spec is not None
    assert spec.match == match
    assert (spec.because, spec.instead, spec.action) == ("because I said so", "pnpm", "deny")


@pytest.mark.parametrize("pattern, because, action", [
    ("npm", "", "ask"), ("", "x", "ask"), ("npm | sh", "x", "ask"), ("path:../x", "x", "ask"),
    ("push:bad name!", "x", "ask"), ("read:", "x", "ask"), ("read:../.env", "x", "ask"),
    ("merge:bad name!", "x", "ask"), ("npm", "x", "block"), (None, "x", "ask"), ("npm", None, "ask"),
])
def test_spec_from_pattern_rejects(pattern, because, action):
    assert spec_from_pattern(pattern, because, action=action) is None
