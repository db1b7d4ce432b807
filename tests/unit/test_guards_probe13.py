"""Readings from the thirteenth probe of real rule lines (tests/data/guard_probe_rules13.jsonl, probe A only:
probe B is measured untouched by tests/benchmarks/guard_probe.py). Each kind is written in more than one form,
the probe's line first. Calls run through the public API: rules_in, then GuardSet.check of normalize_call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_guard_corpus import HELD_OUT, check_row, load
from test_guards_sweep7 import _line, _stops

PROBE = Path(__file__).resolve().parents[1] / "data" / "guard_probe_rules13.jsonl"
PROBE_KEYS = {"id", "repo", "path", "commit", "license", "line", "text", "has_shape", "exception",
              "violations", "fine", "probe"}

# (file text, calls it stops, calls it lets through)
LINES = [
    # hivellm/tml AGENTS.md: a kind of act, then its one command in parentheses (it read as "… with `rm -rf`")
    ("6. **NEVER run destructive deletions (`rm -rf`) in this repository.**\n", ["rm -rf build"], ["rm build.log"]),
    ("- Never run destructive commands (`rm -rf`).\n", ["rm -rf dist"], ["rm notes.txt"]),
    # a program said in the kind is the program of items that leave it out
    ("- Never use destructive git commands (`push --force`, `reset --hard`).\n",
     ["git push --force origin feat", "git reset --hard HEAD~1"], ["git push origin feat", "git reset --soft HEAD~1"]),
    ("- Never run risky git operations (`clean -fdx`).\n", ["git clean -fdx"], ["git clean -n"]),
    # edobry/minsky bun_over_node.mdc: a tool swap, then the act both tools do ("when running …")
    ("Always use `bun`, never `node`/`npm`/`npx`, when running JavaScript/TypeScript in this project — in code, "
     "documentation, and configuration alike.\n", ["npm install", "npx tsc", "node scripts/build.js"],
     ["bun install", "bun run scripts/build.ts"]),
    ("- Always use `uv`, never `pip`, when installing packages.\n", ["pip install requests"], ["uv add requests"]),
    ("- Use `pnpm`, not `npm`, when adding dependencies.\n", ["npm install zod"], ["pnpm add zod"]),
    # the-codegen-project/cli CLAUDE.md: the folder the things made are in, said before "generated … files"
    ("- **Zod is the single source of truth** for config; JSON schemas in `schemas/` are generated from it — never "
     "hand-edit generated schema files.\n", ["E:schemas/configuration-schema-0.json"], ["E:src/codegen/types.ts"]),
    ("Files in `dist/` are generated; never edit generated files.\n", ["E:dist/index.js"], ["E:src/index.ts"]),
    # secmon-lab/warren CLAUDE.md: a purpose said of the command, then the alternative for it
    ("**NEVER run `go build` to verify code.** Use `go vet ./...` instead to check for compile errors.\n",
     ["go build ./...", "go build -o bin/warren ."], ["go vet ./..."]),
    ("- Never run `npm install` to add a package; use `pnpm add` instead.\n", ["npm install zod"], ["pnpm add zod"]),
]


@pytest.mark.parametrize("text,stops,allows", LINES)
def test_probe_line_derives_what_it_says(text, stops, allows):
    specs = _line(text)
    assert specs, text
    assert _stops(specs, stops) == [True] * len(stops)
    assert _stops(specs, allows) == [False] * len(allows)


# what none of these readings may take: a condition the matcher cannot see, a swap-less "when", an exception,
# a bare program or a flag in the parentheses, things made elsewhere than the folder named, a purpose alone
LEFT = [
    "- Use `pnpm`, not `npm`, when running in CI.\n",
    "- Use `pnpm`, not `npm`, when `pnpm-lock.yaml` exists.\n",
    "- Never use `npm` when running scripts.\n",
    "- Do not run destructive git commands (`push --force`, `reset --hard`) unless the user explicitly asks.\n",
    "- Never run risky commands (`rm`).\n",
    "- Never use git commands (`--force`).\n",
    "- Code in `src/` is compiled to `dist/` — never edit compiled code.\n",
    "- NEVER run `go build` to verify code.\n",  # a purpose with no alternative narrows the rule to a case
    "- Don't use `cat` to read files.\n",
    "- Never run `make deploy` to test the pipeline. Use `make deploy-staging` instead, if you must.\n",
]


@pytest.mark.parametrize("text", LEFT)
def test_probe_forms_left_alone(text):
    assert _line(text) == []


def test_the_single_command_aside_still_names_how_an_act_is_done():
    # "the dev server (`npm run dev`)": no kind of act, the command it is started with (as before)
    assert _stops(_line("- Never start the dev server (`npm run dev`).\n"), ["npm run dev", "npm run build"]) == \
        [True, False]


@pytest.fixture(scope="module")
def probe() -> list[dict]:
    return load(PROBE)


def test_probe_rows_have_the_corpus_schema(probe):
    assert len({row["id"] for row in probe}) == len(probe)
    for row in probe:
        check_row(row, PROBE_KEYS)
        assert row["probe"] in ("A", "B") and row["id"].startswith(f"P13{row['probe']}"), row["id"]
        if row["has_shape"] and not row["exception"]:
            assert row["violations"], row["id"]


def test_probes_use_repositories_of_their_own(probe):
    real = Path(__file__).resolve().parents[1] / "data" / "guard_rules_real.jsonl"
    corpus = {json.loads(line)["repo"].lower() for line in real.read_text(encoding="utf-8").splitlines() if line}
    repos = {p: {row["repo"].lower() for row in probe if row["probe"] == p} for p in ("A", "B")}
    assert not repos["A"] & repos["B"]
    for found in repos.values():
        assert not found & corpus and not found & {name.lower() for name in HELD_OUT}
        assert len(found) >= 15
