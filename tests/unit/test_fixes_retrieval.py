"""Retrieval quality of fix-pattern lookup on tests/data/retrieval.jsonl.

The set (hand-written, not mined from public logs): 104 stored patterns — 46
that queries target and 58 distractors sharing their vocabulary — and 91
queries: 69 that should find one pattern and 22 that should find none. The
``dev`` split was written before the similarity was chosen and used to
choose it; ``holdout`` was written after, and never tuned on. Figures are
printed (``-s``) and recorded in docs/fix-patterns.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tacit.detect.fix import FixStatement
from tacit.learn import fixes
from tacit.stores.ledger import Ledger

DATA = Path(__file__).resolve().parents[1] / "data" / "retrieval.jsonl"


def load():
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r["kind"] == "pattern"], [r for r in rows if r["kind"] == "query"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from tacit.config import load_config

    home = tmp_path_factory.mktemp("retrieval-home")
    cfg = load_config(env={"TACIT_HOME": str(home)})
    led = Ledger(cfg)
    stored, queries = load()
    names = {}
    for p in stored:
        with led.write() as conn:
            result = fixes.forge(conn, cfg, FixStatement(p["problem"], p["solution"], "labelled", 0.9),
                                 title=p["title"])
        assert result.action == "created", (p["id"], result)
        names[result.id] = p["id"]
    yield cfg, led, names, queries
    led.close()


def evaluate(store, split):
    cfg, led, names, queries = store
    out = {"positives": 0, "recall_at_5": 0, "top1": 0, "injected_correct": 0, "injected_irrelevant": 0,
           "negatives": 0, "negatives_injected": 0}
    with led.read() as conn:
        for q in (q for q in queries if q["split"] == split):
            ranked = [names[m.id] for m in fixes.find_patterns(conn, q["text"], cfg, limit=5, threshold=0.0)]
            injected = [names[m.id] for m in fixes.find_patterns(conn, q["text"], cfg)]
            if q["relevant"]:
                out["positives"] += 1
                out["recall_at_5"] += q["relevant"][0] in ranked
                out["top1"] += ranked[:1] == q["relevant"][:1]
                out["injected_correct"] += q["relevant"][0] in injected
                out["injected_irrelevant"] += any(x not in q["relevant"] for x in injected)
            else:
                out["negatives"] += 1
                out["negatives_injected"] += bool(injected)
    return out


def test_the_set_is_big_enough_and_well_formed():
    stored, queries = load()
    ids = {p["id"] for p in stored}
    assert len(ids) == len(stored) >= 100 and all(p["title"] and p["problem"] and p["solution"] for p in stored)
    positives = [q for q in queries if q["relevant"]]
    assert len(positives) >= 40 and all(set(q["relevant"]) <= ids for q in positives)
    assert sum(1 for p in stored if p.get("distractor")) >= 40
    assert {q["split"] for q in queries} == {"dev", "holdout"}


@pytest.mark.parametrize("split,floors", [
    # floors sit just under the measured figures (docs/fix-patterns.md): a regression alarm
    ("dev", {"recall_at_5": 0.95, "injected_correct": 0.85, "negatives_injected": 0.0}),
    ("holdout", {"recall_at_5": 0.9, "injected_correct": 0.55, "negatives_injected": 0.0}),
])
def test_recall_at_5_and_what_gets_injected(store, split, floors):
    r = evaluate(store, split)
    pos, neg = r["positives"], r["negatives"]
    print(f"\n{split}: recall@5 {r['recall_at_5']}/{pos} = {r['recall_at_5'] / pos:.2f}, "
          f"top-1 {r['top1']}/{pos}, injected (similarity >= 0.6) {r['injected_correct']}/{pos} = "
          f"{r['injected_correct'] / pos:.2f}, queries with an irrelevant pattern injected "
          f"{r['injected_irrelevant']}/{pos}, no-match queries that injected anything "
          f"{r['negatives_injected']}/{neg}")
    assert r["recall_at_5"] / pos >= floors["recall_at_5"]
    assert r["injected_correct"] / pos >= floors["injected_correct"]
    assert r["negatives_injected"] / neg <= floors["negatives_injected"]
