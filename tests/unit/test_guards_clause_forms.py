"""A rule is its imperative clause: a reason, politeness or emphasis around it derives the same
guards as the bare rule (docs/guards.md, "Which lessons become guards")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tacit.guards import derive_guards

DATA = Path(__file__).resolve().parents[1] / "data" / "guard_lessons_real.jsonl"


def matches(text: str) -> list:
    return sorted(json.dumps({"kind": s.kind, **s.match.to_dict()}, sort_keys=True) for s in derive_guards(text))


def tune_forms() -> dict:
    """The tune part's lessons by rule line: ``{source: {kind: text}}`` (the check part is never read here)."""
    out: dict = {}
    for line in DATA.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("split") == "tune":
            out.setdefault(row["source"], {})[row["kind"]] = row["text"]
    return out


def test_every_tune_lesson_derives_what_its_bare_rule_derives():
    forms = tune_forms()
    assert len(forms) >= 100
    mismatched = [(source, kind, kinds[kind]) for source, kinds in sorted(forms.items()) if "bare" in kinds
                  for kind in ("reason", "polite", "emphasis") if kind in kinds
                  and matches(kinds[kind]) != matches(kinds["bare"])]
    assert mismatched == []


BARE = ["never run `make clean`", "use pnpm, never npm", "never run pnpm test", "always run pytest through uv",
        "run cargo test with --all-features"]


@pytest.mark.parametrize("bare", BARE)
@pytest.mark.parametrize("said", [
    "hey {} pls", "hey {}", "could you please {}", "can you {}", "would you kindly {}", "just {}", "oh and {}",
    "hi, {}", "{}, slow and flaky", "{}, deprecated", "{}, no need", "{}, has side effects", "{}, too slow",
    "{} — whenever we did that, CI broke", "{}, if you do the build breaks", "{} — if you do, the build breaks",
    "{}; if you do it anyway, it wipes the cache", "{} — when that happens the cache is lost",
])
def test_politeness_and_a_reason_derive_the_bare_rule(bare, said):
    assert matches(bare), bare
    assert matches(said.format(bare)) == matches(bare)


@pytest.mark.parametrize("text", [
    "never run `make clean` — if you do, ask me first",  # a permission after all
    "never run `make clean` — if you do, it is fine",
    "never run `make clean` — if you must, use --dry-run",
    "never run `make clean`, it wipes the cache unless you pass --keep",  # an allowed way
    "never run `make clean` — it's broken for now",  # a time limit
    "never run `make clean` — I haven't approved it yet",
    "could you use pnpm if possible, never npm",  # a hedge stays a hedge
    "never run `make clean` unless asked",
])
def test_an_exception_still_vetoes(text):
    assert derive_guards(text) == ()


def test_a_request_for_something_else_is_no_lead_in():
    assert derive_guards("could you run the tests first") == ()
    assert derive_guards("hey, can you check the logs") == ()
