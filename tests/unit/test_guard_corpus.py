"""The real guard corpus (tests/data/guard_rules_real.jsonl, its lessons and
sources): schema, split by repository, the held-out repositories absent."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
RULES = DATA / "guard_rules_real.jsonl"
LESSONS = DATA / "guard_lessons_real.jsonl"
SOURCES = DATA / "guard_rules_real.SOURCES.md"
SEED = "tacit-guard-corpus-151"
HELD_OUT = {
    "IgorGanapolsky/ThumbGate", "Nathandela/compound-agent", "NousResearch/hermes-agent", "apache/airflow",
    "astral-sh/ruff", "badlogic/pi-mono", "block/goose", "denoland/deno", "electron/electron",
    "huggingface/transformers", "langchain-ai/langchain", "letta-ai/letta-code", "microsoft/playwright",
    "modelcontextprotocol/python-sdk", "openai/codex", "openai/openai-agents-js", "openai/openai-agents-python",
    "oven-sh/bun", "vercel/next.js", "withastro/astro",
}
PERMISSIVE = {"MIT", "Apache-2.0", "MIT OR Apache-2.0", "BSD", "ISC", "MPL-2.0"}
TOOLS = {"Bash", "Edit", "Write", "Read"}
RULE_KEYS = {"id", "repo", "path", "commit", "license", "line", "text", "has_shape", "exception",
             "violations", "fine", "split"}
LESSON_KEYS = {"id", "source", "repo", "split", "kind", "text", "derives", "violations", "fine"}


def load(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def rules() -> list[dict]:
    return load(RULES)


@pytest.fixture(scope="module")
def lessons() -> list[dict]:
    return load(LESSONS)


def check_call(entry: dict) -> None:
    assert set(entry) <= {"tool", "args", "branch"}, entry
    assert entry["tool"] in TOOLS, entry
    if entry["tool"] == "Bash":
        assert isinstance(entry["args"]["command"], str) and entry["args"]["command"].strip(), entry
    else:
        assert entry["args"]["file_path"].startswith("/repo/"), entry
    if "branch" in entry:
        assert isinstance(entry["branch"], str) and entry["branch"], entry


def check_row(row: dict, keys: set) -> None:
    """The fields every labelled rule line has, here and in a probe file (guard_probe_*.jsonl)."""
    assert set(row) == keys, row["id"]
    assert len(row["commit"]) == 40 and int(row["commit"], 16) >= 0, row["id"]
    assert row["license"] in PERMISSIVE, row["id"]
    assert isinstance(row["line"], int) and row["line"] > 0, row["id"]
    assert row["text"].strip() and "\n" not in row["text"], row["id"]
    assert isinstance(row["has_shape"], bool) and isinstance(row["exception"], bool), row["id"]
    for entry in row["violations"] + row["fine"]:
        check_call(entry)


def test_rules_have_the_schema(rules):
    assert len({row["id"] for row in rules}) == len(rules)
    for row in rules:
        check_row(row, RULE_KEYS)
        assert row["split"] in ("tune", "check"), row["id"]
        if row["has_shape"]:
            assert row["violations"], f"{row['id']}: a shape rule needs violations"
        else:
            assert not row["violations"] and not row["exception"], row["id"]


def test_rules_are_enough_and_from_enough_repositories(rules):
    assert len(rules) >= 300
    assert len({row["repo"] for row in rules}) >= 60
    shaped = [row for row in rules if row["has_shape"] and not row["exception"]]
    assert len(shaped) >= 60
    assert len([row for row in rules if not row["has_shape"]]) >= 60  # vague rules, the negatives


def test_held_out_repositories_are_absent(rules, lessons):
    held = {name.lower() for name in HELD_OUT}
    assert not {row["repo"].lower() for row in rules} & held
    assert not {lesson["repo"].lower() for lesson in lessons} & held


def test_split_is_by_repository_with_the_seeded_rule(rules):
    split_of = {}
    for row in rules:
        assert split_of.setdefault(row["repo"], row["split"]) == row["split"], f"{row['repo']} in both splits"
    for repo, split in split_of.items():
        even = int(hashlib.sha256(f"{SEED}:{repo}".encode()).hexdigest(), 16) % 2 == 0
        assert split == ("tune" if even else "check"), repo
    parts = list(split_of.values())
    assert 0.4 <= parts.count("check") / len(parts) <= 0.6


def test_sources_list_every_repository_with_commit_and_license(rules):
    text = SOURCES.read_text(encoding="utf-8")
    assert SEED in text
    for row in rules:
        assert f"| {row['repo']} | {row['split']} | {row['license']} | `{row['commit']}` |" in text, row["repo"]


def test_lessons_derive_from_shaped_rows_and_carry_their_calls(rules, lessons):
    by_id = {row["id"]: row for row in rules}
    assert len({lesson["id"] for lesson in lessons}) == len(lessons)
    kinds = {}
    for lesson in lessons:
        assert set(lesson) == LESSON_KEYS, lesson["id"]
        source = by_id[lesson["source"]]
        assert source["has_shape"] and not source["exception"], lesson["id"]
        assert (lesson["repo"], lesson["split"]) == (source["repo"], source["split"]), lesson["id"]
        assert (lesson["violations"], lesson["fine"]) == (source["violations"], source["fine"]), lesson["id"]
        assert lesson["derives"] == (lesson["kind"] != "exception"), lesson["id"]
        assert lesson["text"].strip(), lesson["id"]
        kinds.setdefault(lesson["source"], set()).add(lesson["kind"])
    shaped = {row["id"] for row in rules if row["has_shape"] and not row["exception"]}
    assert set(kinds) == shaped
    assert all(k == {"bare", "reason", "polite", "emphasis", "exception"} for k in kinds.values())
