"""The learners of ``tests/benchmarks/oof_levers.py`` learn: on generated rows where one feature
decides the label (and another is noise), the boosted trees and the pairwise ranker score the
deciding rows above the others, and the per-session calibration subtracts the session's level."""

from __future__ import annotations

import random
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import oof_levers as L  # noqa: E402


def _rows(n: int = 200, seed: int = 3):
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        y = int(i % 3 == 0)
        feats = {"cue=deciding": 1.0} if y and rng.random() < 0.9 else {}
        if rng.random() < 0.5:
            feats["cue=noise"] = 1.0
        rows.append((feats, y, 1.0))
    return rows


def test_boosted_trees_split_on_the_deciding_feature():
    predict = L.gbdt(_rows(), seed=7, rounds=30)
    with_cue, without = predict({"cue=deciding": 1.0}), predict({"cue=noise": 1.0})
    assert with_cue > 0.8 and without < 0.2
    assert abs(predict({"cue=deciding": 1.0, "cue=noise": 1.0}) - with_cue) < 0.1


def test_pairwise_ranker_ranks_the_deciding_feature_first():
    predict = L.pairwise(_rows(), seed=7, pairs_per_positive=10)
    assert predict({"cue=deciding": 1.0}) > predict({}) + 0.2
    assert abs(predict({"cue=noise": 1.0}) - predict({})) < 0.15


def test_session_calibration_subtracts_the_other_messages_level():
    class Rows:
        rows = [{"source": "a"}, {"source": "a"}, {"source": "b"}]
    assert L.calibrated(Rows(), [0.8, 0.4, 0.6], 0.5, "mean") == [0.8 - 0.2, 0.4 - 0.4, 0.6 - 0.3]
    assert L.calibrated(Rows(), [0.8, 0.4, 0.6], 1.0, "max") == [0.8 - 0.4, 0.4 - 0.8, 0.6 - 0.6]
