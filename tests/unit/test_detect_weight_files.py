"""The shipped weight files hold no text of the data they were trained on: hashed feature keys,
numbers and a fixed set of metadata fields only; scoring looks the names up by the same hash."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import tacit.detect as pkg
from tacit.detect.model import FEATURE_KEYS, Logistic, feature_key, load_models, sigmoid

FOLDER = Path(pkg.__file__).resolve().parent
ABOUT = ("Logistic scorers trained by tests/benchmarks/train_detectors.py on the tune split of the "
         "real-conversation data (tests/data/real_split.json); do not edit by hand.")
MODEL_NAMES = {"correction", "failure", "durable", "lesson", "preference", "decision", "goal", "fact", "fix"}
MODEL_FIELDS = {"bias", "threshold", "confident", "weights"}
KEY = re.compile(r"[0-9a-f]{16}")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@pytest.mark.parametrize("filename", ["user_model.json", "fix_model.json"])
def test_a_weight_file_holds_hashed_keys_numbers_and_fixed_metadata_only(filename):
    data = json.loads((FOLDER / filename).read_text(encoding="utf-8"))
    assert set(data) == {"about", "feature_keys", "models"}
    assert data["about"] == ABOUT and data["feature_keys"] == FEATURE_KEYS
    assert data["models"] and set(data["models"]) <= MODEL_NAMES
    for spec in data["models"].values():
        assert set(spec) <= MODEL_FIELDS and {"bias", "threshold", "weights"} <= set(spec)
        assert all(_is_number(v) for k, v in spec.items() if k != "weights")
        weights = spec["weights"]
        assert weights
        bad = [k for k, v in weights.items() if not KEY.fullmatch(k) or not _is_number(v)]
        assert not bad, bad[:5]


def test_scoring_looks_a_feature_up_by_its_key_and_explains_it_by_its_name():
    scorer = Logistic("t", 0.5, {feature_key("w=pnpm"): 2.0, feature_key("imperative"): -1.0})
    assert scorer.score({"w=pnpm": 1.0, "w=npm": 1.0}) == pytest.approx(sigmoid(2.5))
    assert scorer.score({"imperative": 0.5}) == pytest.approx(sigmoid(0.0))
    assert scorer.contributions({"w=pnpm": 1.0, "imperative": 1.0}) == [("w=pnpm", 2.0)]


def test_the_key_is_stable_blake2b_of_the_utf8_name():
    """Fixed values: the key must not change across processes or Python versions."""
    assert feature_key("w=pnpm") == "db6d1d2ce25e9447"
    assert feature_key("imperative") == "4c2cdfa45c58d718"
    assert KEY.fullmatch(feature_key("b=単語_\ud800"))  # odd text still has a key, never an error


def test_a_file_keyed_some_other_way_is_not_loaded(tmp_path):
    readable = {"about": ABOUT, "models": {"correction": {"bias": 0.0, "threshold": 0.5, "weights": {"w=no": 1.0}}}}
    old, keyed = tmp_path / "readable_model.json", tmp_path / "keyed_model.json"  # loads are cached by name
    old.write_text(json.dumps(readable), encoding="utf-8")
    keyed.write_text(json.dumps(dict(readable, feature_keys=FEATURE_KEYS)), encoding="utf-8")
    assert load_models(str(old)) == {}
    assert set(load_models(str(keyed))) == {"correction"}
