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


# (file text, commands it stops, commands it lets through)
STOPS = [
    # minhlongs/mekong-cli CLAUDE.md, under "## Public Repo Boundary": the name before the dash is the object
    ("- .env* — never commit", ["git add .env.local"], ["git commit -m 'fix: typo'"]),
    ("- `.env*` — never commit", ["git add .env"], ["git commit -am wip"]),
    ("- `main` — never push", ["git push origin main"], ["git push origin feature/x"]),
    ("Note: never push", ["git push origin feature/x"], []),  # a heading word is no object
    # retospect/precis-mcp CLAUDE.md: the verb left out is "read"; the file runs `scripts/ship --impacted` itself
    ("Red gate:\nthe failure is printed above the `✖` — read *that*, never `scripts/ship`.\n", [],
     ["scripts/ship --impacted"]),
    ("read the docs, never `npm publish`", ["npm publish"], []),
    # retospect/precis-mcp CLAUDE.md and .windsurfrules: wrapped inside an open aside; uv is the way
    ("- **`uv` for everything; tests via `scripts/test`** (container-mounted;\n"
     "  `--impacted` narrows) — never bare pytest/pip/mypy. mypy scope is\n  `src tests`.\n",
     ["pytest -q", "pip install requests"], ["uv run pytest -q", "uv run mypy src"]),
    ("- `uv` for everything — never bare pip/pytest/mypy. Ruff replaces black/isort/flake8.\n",
     ["pytest -q", "pip install requests"], ["uv run pytest -q", "uv run mypy src"]),
    # renchris/claude-infrastructure CLAUDE.md: a condition whose consequent says what happened
    ("- **Never use `--no-verify` to bypass pre-commit hooks.** If a hook blocks your commit,\n"
     "  it caught a real issue. Fix the underlying problem instead of bypassing the safeguard.\n",
     ["git commit --no-verify -m x"], ["git commit -m x"]),
    ("- Never use `--no-verify` — if a hook blocks your commit, it caught a real issue.\n",
     ["git commit --no-verify -m x"], ["git commit -m x"]),
    # neondatabase/mcp-server-neon AGENTS.md: ", and never" opens a rule of its own
    ("Never point these variables at a personal or production organization, and never commit `.env.test`.",
     ["git add .env.test"], ["git add src/a.ts"]),
    ("Never run `make`, and never commit `.env.test`.", ["git add .env.test", "make"], ["git add src/a.ts"]),
    # mendableai/firecrawl CLAUDE.md: "manually" after the quoted command is the command run
    ("- `pnpm harness` is a command that gets the API server and workers up for you to run the tests. "
     "Don't try to `pnpm start` manually.", ["pnpm start"], ["pnpm harness"]),
    ("Don't run `pnpm start` by hand.", ["pnpm start"], ["pnpm harness"]),
    # tobi/qmd CLAUDE.md: an aside of quoted pairs only, each "use A, not B"
    ("Use Bun instead of Node.js (`bun` not `node`, `bun install` not `npm install`).\n",
     ["npm install", "node x.js"], ["bun install", "npm view react"]),
    # minhlongs/mekong-cli tests/CLAUDE.md: "(not available on this Mac)" is a reason, not "use A, not B"
    ("- Use `python3` NOT `python` (not available on this Mac)\n", ["python x.py"], ["python3 x.py"]),
    # sbroenne/mcp-server-excel llm-testing-philosophy.instructions.md: the rule in the label's parenthesis
    ("- **Generated files (NEVER edit):** `skills/excel-cli/SKILL.md`, `skills/excel-mcp/SKILL.md`, "
     "`obj/.../ExcelSkillPrompts.g.cs`\n", [], []),
    # sbroenne/mcp-server-excel critical-rules.instructions.md: a list keeps its exact acts
    ("- Never commit to `main`, bypass hooks, force-push, or use a hook-disabling\n"
     "  environment/configuration override.\n",
     ["git push --force origin feature/x", "git commit --no-verify -m x"], ["git push origin feature/x"]),
]


@pytest.mark.parametrize("text, stopped, fine", STOPS)
def test_stops(text, stopped, fine):
    specs = _specs(text)
    assert all(_check(specs, c) for c in stopped)
    assert not any(_check(specs, c) for c in fine)


def test_the_rule_in_a_label_parenthesis_covers_the_files_after_the_colon():
    specs = _specs("- **Generated files (NEVER edit):** `skills/excel-cli/SKILL.md`, `skills/excel-mcp/SKILL.md`\n")
    assert _check(specs, edit="skills/excel-cli/SKILL.md")
    assert not _check(specs, edit="skills/templates/SKILL.cli.sbn")
    assert derive_guards("Generated files (never edit unless asked): `dist/`") == ()


def test_a_list_of_acts_keeps_the_commit_on_main():
    specs = _specs("- Never commit to `main`, bypass hooks, force-push, or use a hook-disabling\n"
                   "  environment/configuration override.\n")
    assert CommitMatch(("main",)) in [s.match for s in specs]


# rules that must give no guard at all
@pytest.mark.parametrize("rule", [
    "- secrets — never commit",  # a fronted object the matcher cannot see: no ban on every commit
    "- API keys — never commit",
    "- Never use `--no-verify`. If a hook fails, it's OK to skip it.",  # a condition that permits
    "- Never run `npm publish` — if you must, it's fine after approval.",
    "- Never use `--no-verify`. If a hook fails, it needed approval.",
    "If a hook blocks your commit, it caught a real issue — never use `--no-verify`.",  # one before the rule
    "Never run `make`, and never commit `.env.test` unless asked.",
    "Never run `pnpm start` manually unless asked.",
    "Never commit, push, or merge without review.",  # a tail that may reach back
    "Never commit, print, or upload API keys.",  # one object for all
    "Prefer the new API (`fetchUser` not `getUser`).",
    "Use Bun (`bun` not `node`) unless the script needs Node APIs.",
])
def test_nothing(rule):
    assert derive_guards(rule) == ()


def test_and_use_after_a_list_is_what_to_do():
    specs = derive_guards("Never commit to `main`, force-push, and use `git stash` instead.")
    assert not _check(specs, "git stash")


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
