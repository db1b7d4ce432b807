"""The corpus proof: guards derived from the lesson texts of
tests/data/guard_lessons.jsonl, checked against the hand-labelled calls of
tests/data/guard_corpus.jsonl (tests/benchmarks/guards.py prints the table).

Targets: false stops <= 1 % of the calls that break no guard; >= 95 % of
the calls that break a guard stopped by a guard they break."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest

from tacit.guards import Guard, GuardSet, derive_guard, normalize_call

DATA = Path(__file__).resolve().parents[1] / "data"


def load(name):
    with open(DATA / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


LESSONS = load("guard_lessons.jsonl")
CORPUS = load("guard_corpus.jsonl")


@pytest.fixture(scope="module")
def guard_set():
    guards = []
    for lesson in LESSONS:
        spec = derive_guard(lesson["text"])
        if spec is not None:
            root = lesson["project"] if lesson["scope"] == "project" else None
            guards.append(Guard(spec, lesson["id"], lesson["scope"], root, "lesson"))
    return GuardSet(guards)


def fired(guard_set, case):
    call = normalize_call(case["tool"], case["args"], case["cwd"], project_root=case.get("project"),
                          branch=case.get("branch"))
    return {hit.guard.id for hit in guard_set.check(call)}


def test_the_corpus_is_big_and_varied():
    assert len(CORPUS) >= 500
    assert len({c["id"] for c in CORPUS}) == len(CORPUS)
    assert {c["host"] for c in CORPUS} == {"claude", "codex", "hermes", "pi"}
    guard_lessons = [lesson for lesson in LESSONS if lesson["derives"]]
    assert len(guard_lessons) >= 20
    labels = Counter(label for c in CORPUS for label in c["breaks"])
    assert set(labels) <= {lesson["id"] for lesson in guard_lessons}
    for lesson in guard_lessons:  # every lesson has calls that break it
        assert labels[lesson["id"]] >= 3, lesson


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson["id"] for lesson in LESSONS])
def test_derivation(lesson):
    assert (derive_guard(lesson["text"]) is not None) == lesson["derives"], lesson["text"]


def test_targets(guard_set):
    table = Counter()
    wrong_pairs = 0
    for case in CORPUS:
        got, want = fired(guard_set, case), set(case["breaks"])
        if want:
            table["TP" if got & want else "FN"] += 1
        else:
            table["FP" if got else "TN"] += 1
        wrong_pairs += len(got - want)
    false_stop = table["FP"] / (table["FP"] + table["TN"])
    stop = table["TP"] / (table["TP"] + table["FN"])
    assert false_stop <= 0.01, table
    assert stop >= 0.95, table
    assert wrong_pairs <= 0.01 * len(CORPUS), wrong_pairs


def test_checking_is_well_under_a_millisecond(guard_set):
    cases = CORPUS[:300]
    start = time.perf_counter()
    for case in cases:
        fired(guard_set, case)
    per_call = (time.perf_counter() - start) / len(cases)
    assert per_call < 0.001, per_call
