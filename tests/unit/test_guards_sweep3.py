"""Readings from a third sweep of real instruction files tacit had not seen (repositories outside
tests/data/guard_rules_real.jsonl and the first two sweeps, owners m to z; each case names the
repository and file it comes from)."""

from __future__ import annotations

import pytest

from tacit.guards import derive_guards
from tacit.guards.instructions import rules_in
from tacit.guards.model import CommitMatch
from test_guards_sweep import _check


def _specs(text: str) -> list:
    return [r.spec for r in rules_in(text)]


# minhlongs/mekong-cli CLAUDE.md: "- .env* — never commit" under "## Public Repo Boundary": the name
# before the dash is what not to commit, not every commit
@pytest.mark.parametrize("rule, stopped, fine", [
    ("- .env* — never commit", "git add .env.local", "git commit -m 'fix: typo'"),
    ("- `.env*` — never commit", "git add .env", "git commit -am wip"),
    ("- `main` — never push", "git push origin main", "git push origin feature/x"),
])
def test_a_name_before_the_dash_is_the_object(rule, stopped, fine):
    specs = _specs(rule)
    assert _check(specs, stopped)
    assert not _check(specs, fine)


@pytest.mark.parametrize("rule", ["- secrets — never commit", "- API keys — never commit"])
def test_a_fronted_object_the_matcher_cannot_see_is_no_commit_ban(rule):
    assert not _check(_specs(rule), "git commit -m 'fix: typo'")


def test_a_heading_word_before_the_colon_is_no_object():
    assert _check(_specs("Note: never push"), "git push origin feature/x")


# retospect/precis-mcp CLAUDE.md: "Red gate: the failure is printed above the `✖` — read *that*, never
# `scripts/ship`." The verb left out is "read"; the file runs `scripts/ship --impacted` itself
def test_read_this_never_that_is_no_ban_on_running_it():
    specs = _specs("Red gate:\nthe failure is printed above the `✖` — read *that*, never `scripts/ship`.\n")
    assert not _check(specs, "scripts/ship --impacted")
    assert _check(derive_guards("read the docs, never `npm publish`"), "npm publish")


# retospect/precis-mcp CLAUDE.md, wrapped inside an aside: "- **`uv` for everything; tests via `scripts/test`**
# (container-mounted;" / "`--impacted` narrows) — never bare pytest/pip/mypy. mypy scope is"
@pytest.mark.parametrize("text", [
    "- **`uv` for everything; tests via `scripts/test`** (container-mounted;\n"
    "  `--impacted` narrows) — never bare pytest/pip/mypy. mypy scope is\n  `src tests`.\n",
    "- `uv` for everything — never bare pip/pytest/mypy. Ruff replaces black/isort/flake8.\n",
])
def test_bare_beside_a_wrapper_for_everything_lets_the_wrapper_run_it(text):
    specs = _specs(text)
    assert _check(specs, "pytest -q")
    assert _check(specs, "pip install requests")
    assert not _check(specs, "uv run pytest -q")
    assert not _check(specs, "uv run mypy src")


# renchris/claude-infrastructure CLAUDE.md: "- **Never use `--no-verify` to bypass pre-commit hooks.** If a hook
# blocks your commit," / "it caught a real issue. …": a condition whose consequent says what is so, in the past too
@pytest.mark.parametrize("text", [
    "- **Never use `--no-verify` to bypass pre-commit hooks.** If a hook blocks your commit,\n"
    "  it caught a real issue. Fix the underlying problem instead of bypassing the safeguard.\n",
    "- Never use `--no-verify` — if a hook blocks your commit, it caught a real issue.\n",
])
def test_a_condition_that_says_what_happened_vetoes_nothing(text):
    specs = _specs(text)
    assert _check(specs, "git commit --no-verify -m x")
    assert not _check(specs, "git commit -m x")


@pytest.mark.parametrize("rule", [
    "- Never use `--no-verify`. If a hook fails, it's OK to skip it.",
    "- Never run `npm publish` — if you must, it's fine after approval.",
    "- Never use `--no-verify`. If a hook fails, it needed approval.",
    "If a hook blocks your commit, it caught a real issue — never use `--no-verify`.",
])
def test_a_condition_that_permits_or_comes_first_still_vetoes(rule):
    assert derive_guards(rule) == ()


def test_a_fence_after_a_long_open_line_is_no_wrapped_line():
    text = ("Run the generator before you touch anything in the reference pages, which means\n"
            "```bash\nnpm run gen\n```\n\n- Never edit `docs/reference/`.\n")
    assert [r.line for r in rules_in(text)] == [6]


# mittwald/mcp-server CLAUDE.md: "`docs/reference/` — one page per tool, generated from the tool registry; never
# hand-edit" / "`docs/reference/src/content/docs/tools/` (see `docs/reference/README.md` …)": the object wrapped
def test_a_wrapped_line_may_open_with_a_quoted_name():
    text = ("- `docs/reference/` — one page per tool, generated from the tool registry; never hand-edit\n"
            "  `docs/reference/src/content/docs/tools/` (see `docs/reference/README.md` for the regeneration commands)\n")
    specs = _specs(text)
    assert _check(specs, edit="docs/reference/src/content/docs/tools/a.md")
    assert not _check(specs, edit="docs/reference/README.md")


# neondatabase/mcp-server-neon AGENTS.md: "… Never point these variables at a" / "personal or production
# organization, and never commit `.env.test`.": ", and never" opens a rule of its own, like ", and don't"
@pytest.mark.parametrize("rule, stopped, fine", [
    ("Never point these variables at a personal or production organization, and never commit `.env.test`.",
     "git add .env.test", "git add src/a.ts"),
    ("Never run `make`, and never commit `.env.test`.", "git add .env.test", "git add src/a.ts"),
])
def test_and_never_is_a_rule_of_its_own(rule, stopped, fine):
    specs = derive_guards(rule)
    assert _check(specs, stopped)
    assert not _check(specs, fine)


def test_and_never_keeps_an_exception_of_the_sentence():
    assert derive_guards("Never run `make`, and never commit `.env.test` unless asked.") == ()


# sbroenne/mcp-server-excel .github/instructions/critical-rules.instructions.md: "- Never commit to `main`, bypass
# hooks, force-push, or use a hook-disabling" / "environment/configuration override.": an item the matcher cannot
# see leaves the exact ones; after a last "or", "use" is one more thing forbidden
def test_a_list_of_acts_keeps_its_exact_items():
    specs = _specs("- Never commit to `main`, bypass hooks, force-push, or use a hook-disabling\n"
                   "  environment/configuration override.\n")
    assert CommitMatch(("main",)) in [s.match for s in specs]
    assert _check(specs, "git push --force origin feature/x")
    assert _check(specs, "git commit --no-verify -m x")
    assert not _check(specs, "git push origin feature/x")


@pytest.mark.parametrize("rule", [
    "Never commit, push, or merge without review.",
    "Never commit, print, or upload API keys.",
    "Never commit to `main`, force-push, and use `git stash` instead.",
])
def test_a_list_whose_tail_may_reach_back_or_says_what_to_do_gives_nothing(rule):
    assert not _check(derive_guards(rule), "git stash")
    assert not _check(derive_guards(rule), "git commit -m x")


# mendableai/firecrawl CLAUDE.md: "- `pnpm harness` is a command that gets the API server and workers up for you to
# run the tests. Don't try to `pnpm start` manually.": "manually" after the quoted command is the command run
@pytest.mark.parametrize("rule", [
    "- `pnpm harness` is a command that gets the API server and workers up for you to run the tests. "
    "Don't try to `pnpm start` manually.",
    "Don't run `pnpm start` by hand.",
])
def test_manually_after_a_quoted_command_is_the_command_run(rule):
    specs = _specs(rule)
    assert _check(specs, "pnpm start")
    assert not _check(specs, "pnpm harness")


def test_manually_keeps_the_exception_after_it():
    assert derive_guards("Never run `pnpm start` manually unless asked.") == ()


# tobi/qmd CLAUDE.md: "Use Bun instead of Node.js (`bun` not `node`, `bun install` not `npm install`).": an aside
# of quoted pairs only, each "use A, not B"
def test_an_aside_of_pairs_is_a_rule_per_pair():
    specs = _specs("Use Bun instead of Node.js (`bun` not `node`, `bun install` not `npm install`).\n")
    assert _check(specs, "npm install") and _check(specs, "node x.js")
    assert not _check(specs, "bun install") and not _check(specs, "npm view react")


@pytest.mark.parametrize("rule", [
    "Prefer the new API (`fetchUser` not `getUser`).",
    "Use Bun (`bun` not `node`) unless the script needs Node APIs.",
])
def test_pairs_that_name_no_command_or_carry_an_exception_give_nothing(rule):
    assert not _check(derive_guards(rule), "node x.js")
