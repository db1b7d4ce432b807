"""Which instruction-file lines go to the rule reader (``instructions.unread_rule``): read per clause
as the deriver reads — a clause that says no, names a thing with an exact shape and is not vetoed —
so a hedge in the reason or another sentence's condition keeps no line out, while statements, code
names and exceptions stay out (docs/guards.md, "Lines tacit cannot read")."""

from __future__ import annotations

import pytest

from tacit.guards import derive_guards
from tacit.guards.instructions import read_text, refusing_text, unread_rule


@pytest.mark.parametrize("line", [
    # a hedge or condition in the reason, or in another sentence's own order, is not the rule's
    "Please refrain from touching the lockfile `pnpm-lock.yaml` yourself — it may break CI.",
    "After editing Markdown files outside `docs/`, run `prettier --write <file>` on each. Do not format "
    "Markdown under `tasks/`.",
    # a condition that only says the act the rule is about
    "When running commands, do not use directory-changing flags like `git -C` or `pnpm --filter`.",
    "**IMPORTANT: Do NOT use `--` when passing test filters to pnpm.**",
    # an order whose "instead of" says what not to use
    "Always use `make` commands instead of direct Xcode or Swift commands",
    # what is refused named in a parenthesis right after the words; a branch of a git act
    "Please never ever skip the hooks on a whim (`--no-verify`) — fix the issue instead",
    "Kindly never push `develop` on a whim.",
    # a later conditional sentence with an order of its own, naming nothing the refusal names
    "Never ever run `terraform apply` on a whim. If the plan fails, fix the module and rerun `make plan`.",
])
def test_a_refusal_of_an_exact_thing_with_its_hedges_elsewhere_goes_to_the_reader(line):
    assert not derive_guards(line)
    assert unread_rule(line)
    assert [u.line for u in read_text(line)[1]] == [1]


@pytest.mark.parametrize("line", [
    # statements of fact with a negation in them
    "Requires `gh`. Use when native artifacts are missing; `dotnet build` does not download them.",
    "They do NOT duplicate unit tests in `tests/`.",
    "MailHog is no longer a fixed `services.mailhog` service in this repo.",
    # names of code, not commands or paths
    "Do not use `any` type.",
    "Do not use `// @ts-ignore` comments.",
    "Don't use `Date.now` or `new Date`; use `Clock`.",
    # the exact thing is named only where the line says what to do instead
    "Never manually create or write changelog YAML files. Always use `changie new` to generate entries.",
    # exceptions and conditions of the rule itself
    "Don't touch `pnpm-lock.yaml` unless asked.",
    "Do not run `cargo update` when the build is red.",
    "When running in CI, never use `npm ci`.",
    "If a version bump is genuinely needed, ask first. Never edit `package.json` by hand.",
    # a statement with "instead of" is no order
    "`apache/main` is the only target branch instead of `origin/main`.",
    # "no" inside a quoted flag says no to nothing; a parenthesis after words that refuse nothing
    "Pass `--no-check` to `./build.py` to skip lints.",
    "C# code uses tabs (not spaces) and Mono style (`.editorconfig`):",
    # a later condition naming what is refused
    "Never ever run `terraform apply` on a whim. If the plan is reviewed, run `terraform apply`.",
])
def test_statements_code_names_and_exceptions_stay_out(line):
    assert not unread_rule(line)
    assert read_text(line)[1] == []


@pytest.mark.parametrize("line, grounds", [
    # a refusal with no object of its own is said of the item the line opens with
    ("`src/gen/`: protobuf output. DO NOT MODIFY", "`src/gen/`"),
    ("IMPORTANT: `prefect.ts` is auto-generated from the schema. Never edit this file directly.", "`prefect.ts`"),
    ("`shared/`: Generated TypeScript types. Do not edit generated files directly.", "`shared/`"),
    # the parenthesis that names what the words refuse
    ("Please never ever skip the hooks on a whim (`--no-verify`) — fix the issue instead", "`--no-verify`"),
])
def test_a_phrasing_is_grounded_in_what_the_refusal_points_at(line, grounds):
    assert unread_rule(line)
    assert grounds in refusing_text(line)


def test_what_to_do_instead_stays_out_of_the_grounds():
    said = refusing_text("Never write changelog YAML files by hand. Use `changie new` (see `docs/`).")
    assert "changie" not in said and "docs/" not in said


def test_under_an_anti_patterns_heading_a_line_that_says_no_itself_is_a_rule():
    text = """# Rules
## Anti-Patterns
- Never amend commits (`--amend`) — create new commits instead
- Running `git add -A` before a review
## Examples
- Never run `npm publish`
## Bad
- Don't touch `dist/`
"""
    rules, unread = read_text(text)
    assert [(r.line, r.spec.kind) for r in rules] == [(3, "command"), (8, "path")]
    assert unread == []  # the bullet that says no word of refusal shows what not to do; an example is an example


def test_a_quoted_span_guard_with_no_reader_still_needs_a_line_free_of_hedges():
    # the refused quoted span becomes a guard no one reads first: a hedge anywhere keeps it out …
    assert [r.spec.kind for r in read_text("NEVER suggest or run `prisma db push`.")[0]] == ["command"]
    rules, unread = read_text("NEVER suggest or run `prisma db push` — it may drop data.")
    assert rules == [] and [u.line for u in unread] == [1]  # … and the reader may still phrase it
    assert read_text("NEVER suggest or run `prisma db push`. Releases are cut by CI until the freeze ends.") == ([], [])


@pytest.mark.parametrize("line, sent", [
    ("| `uv sync --all-extras` | 2 minutes | NEVER CANCEL |", False),  # a table row: cell by cell
    ("| `OPENROUTER_MODEL` | No | Model ID (default: `anthropic/claude-sonnet-4`) |", False),
    ("| Lockfile | never hand-edit `pnpm-lock.yaml` on a whim |", True),
    ("Use `bun <file>` instead of `node <file>` or `ts-node <file>`", True),  # a known program's command
    ("Do not use the `Task` issue type for a bug or a feature.", False),  # `Task` is no program
])
def test_table_cells_and_quoted_commands(line, sent):
    assert unread_rule(line) is sent
