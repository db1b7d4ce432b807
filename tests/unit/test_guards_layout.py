"""Rules an instruction file states by its layout (tacit.guards.sections via
instructions.rules_in): bullets under a prohibiting heading and cells of a
prohibiting table column, each a guard with its own line number."""

from __future__ import annotations

from tacit.guards.instructions import rules_in
from tacit.guards.model import CommandMatch, PathMatch, PushMatch

DOC = """# Project

## Don'ts
- Push directly to `main`
- Run `git push --force`
- Edit files in `dist/`
- Use `any` in TypeScript
- Never run `npm install` — use pnpm

Some paragraph about the build.
- Run `make test` before committing

**Never**
- Break the public API — keep changes backward-compatible.
- Edit vendored code (`internal/httprr`) or commit secrets / API keys.

NEVER:
- `git reset --hard`

## Never edit these files
- `src/generated/api.ts`

## Forbidden commands

| Command | Why |
|---|---|
| `git clean -fdx` | wipes untracked files |

## Commands

| ❌ Don't | ✅ Do |
|----------|-------|
| `npx jest` | `pnpm test` |

| Command | Purpose |
|---|---|
| `pnpm build` | builds |

| Don't use | Use instead |
|---|---|
| `std::string` | `kj::String` |

## Setup
- Run `pnpm install`
- Push to `main` when the release is tagged
"""


def _rules():
    return {rule.line: rule.spec.match for rule in rules_in(DOC)}


def test_bullets_under_a_prohibiting_heading_are_rules():
    rules = _rules()
    assert rules[4] == PushMatch(("main",))
    assert rules[5] == PushMatch(force_only=True)
    assert rules[6] == PathMatch(("dist/",))
    assert rules[8] == CommandMatch(("npm",), ("install",), (), True)
    assert 7 not in rules  # "use `any`": no shape
    assert rules[15] == PathMatch(("internal/httprr",))
    assert rules[18] == CommandMatch(("git",), ("reset",), ("--hard",), True)
    assert rules[21] == PathMatch(("src/generated/api.ts",))  # the heading's verb: edit


def test_a_paragraph_or_another_heading_ends_the_list():
    rules = _rules()
    assert 11 not in rules  # after "Some paragraph …"
    assert 14 not in rules  # "Break the public API": no shape
    assert not {line for line in rules if line >= 44}  # "## Setup": a plain section


def test_cells_of_a_prohibiting_column_are_rules():
    rules = _rules()
    assert rules[27] == CommandMatch(("git",), ("clean",), ("-f", "-d", "-x"), True)  # under "Forbidden commands"
    assert rules[33] == CommandMatch(("npx",), ("jest",), (), True)  # the "Don't" column, not the "Do" one
    assert not {line for line in rules if 34 <= line <= 42}  # a plain table of commands; a type of code


def test_text_as_quoted_back_is_the_line():
    by_line = {rule.line: rule.text for rule in rules_in(DOC)}
    assert by_line[4] == "Push directly to `main`"
    assert by_line[27].startswith("| `git clean -fdx` |")
