"""The refused quoted span (``tacit.guards.spans``): an instruction-file line no
phrase reading turns into a guard becomes one when a refusing clause refuses a
quoted span with an exact shape, whole — and never for types, identifiers,
narrowed spans, mixed lists, a span said before the refusal, or a line with an
exception."""

from __future__ import annotations

import pytest

from tacit.guards import GuardSet, derive_guards, normalize_call
from tacit.guards.instructions import read_text
from tacit.guards.model import Guard
from tacit.guards.spans import span_specs

ROOT = "/repo"


def guard_set(line: str) -> GuardSet:
    rules, _ = read_text(line, "AGENTS.md")
    return GuardSet([Guard(rule.spec, i + 1, "project", ROOT, f"AGENTS.md:{rule.line}") for i, rule in enumerate(rules)])


def stops(line: str, command: str | None = None, edit: str | None = None) -> bool:
    call = normalize_call("Bash", {"command": command}, ROOT, project_root=ROOT) if command is not None else \
        normalize_call("Edit", {"file_path": f"{ROOT}/{edit}"}, ROOT, project_root=ROOT)
    return bool(guard_set(line).check(call))


@pytest.mark.parametrize("line, stopped, passes", [
    ("*   **NEVER** suggest or run `prisma db push`. It causes data loss in production.",
     ["prisma db push", "npx prisma db push --accept-data-loss"], ["prisma migrate dev", "prisma generate"]),
    ("You should never be running `docker system prune -a`.", ["docker system prune -a"], ["docker system prune", "docker ps"]),
    ("Don't even think about editing `yarn.lock`.", [], []),
    ("Agents should never be the ones running `terraform destroy`.", ["terraform destroy", "terraform destroy -auto-approve"],
     ["terraform plan", "terraform destroy --help"]),
])
def test_a_refused_span_the_phrase_readings_miss_is_a_guard_that_asks(line, stopped, passes):
    assert not derive_guards(line)  # no phrase reading takes it: the span reading does
    rules, unread = read_text(line, "AGENTS.md")
    assert rules and unread == [] and all(rule.spec.action == "ask" for rule in rules)
    assert all(rule.text and rule.line == 1 for rule in rules)  # the guard names its line
    for command in stopped:
        assert stops(line, command), command
    for command in passes:
        assert not stops(line, command), command


def test_an_edit_verb_takes_a_path_and_the_files_under_it():
    assert stops("Don't even think about editing `yarn.lock`.", edit="yarn.lock")
    assert not stops("Don't even think about editing `yarn.lock`.", edit="package.json")
    assert [s.match.to_dict() for s in span_specs("Do not modify files under `docs/v*/`.")] == [{"patterns": ["docs/v*/"]}]
    # the place said as where the files are is the path, not a narrowing; "`.api` files" is every such file
    assert [s.match.to_dict() for s in span_specs("Never edit files in `gen/` subdirectories")] == [{"patterns": ["gen/"]}]
    assert [s.match.to_dict() for s in span_specs("Never edit `.api` files manually.")] == [{"patterns": ["*.api"]}]


@pytest.mark.parametrize("line", [
    "Do not use `any` type.",  # a type
    "Don't use `querySelector` - Use refs",  # an identifier
    "Never use `Date.now` or `new Date`",  # code, not a path
    "Do NOT modify the `packageManager` field in `package.json`",  # a key, and narrowed to it
    "Never suggest `pip install` or separate installation commands.",  # not said to run
    "Do NOT use `npm run test:watch` in automated workflows",  # a place
    "Never edit `copilot-instructions.md` alone to change a rule",  # a manner
    "Please never blindly run `npm audit fix --force`.",  # a manner
    "Do not add `Shared/` to a project reference; use the link pattern.",  # a purpose
    "File renames - always use `git mv`, never `mv` + `git add`",  # a sequence
    "| `uv sync --all-extras` | 2 minutes | 300+ seconds | NEVER CANCEL |",  # the span is before the refusal
    "- Never use `git stash` or `any` casts.",  # a mixed list: nothing
    "Never run `git stash` or",  # the sentence goes on in the next line
    "Don't put unit tests outside `tests/strands/` structure",
    "Never add `nuget.org` as a source to `NuGet.config`",
])
def test_spans_without_an_exact_shape_or_refused_in_part_stay_unread(line):
    assert span_specs(line) == []
    assert read_text(line, "AGENTS.md")[0] == []


@pytest.mark.parametrize("line", [
    "**NEVER** suggest or run `prisma db push` unless the user asks.",
    "Never run `docker system prune -a` except on your own machine.",
    "Don't even think about editing `yarn.lock` for now.",
    "You should never be running `docker system prune -a` without approval.",
])
def test_an_exception_vetoes_the_span_reading(line):
    assert span_specs(line) == []
    assert read_text(line, "AGENTS.md")[0] == []


def test_the_reason_and_the_way_instead_are_not_read():
    line = "You should never be running `docker system prune -a` - use `docker image prune` instead."
    matches = [s.match.to_dict() for s in span_specs(line)]
    assert matches == [{"programs": ["docker"], "subcommands": ["system", "prune"], "flags": ["-a"], "allow_info": True}]
    assert not stops(line, "docker image prune")
    assert span_specs("We like `docker compose up`; it never fails.") == []
