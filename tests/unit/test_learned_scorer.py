"""The learned-scorer experiment of issue 22 (tests/benchmarks/learned_scorer.py, train_scorer.py).

Not wired into tacit (docs/detectors.md, "The learned-scorer experiment"), but kept runnable: a
weights file loads, a missing or malformed one falls back with a log line, training on a small
slice is deterministic and writes hashed indices and numbers only, and the trainer skips cleanly
without data. The slice test needs ``../shared/data/real`` and skips without it."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import learned_scorer as learned  # noqa: E402
import real_data  # noqa: E402

needs_data = pytest.mark.skipif(not real_data.available(),
                                reason=f"real-conversation data not found at {real_data.data_dir()} "
                                       "(the learned scorer trains on its tune split)")


@pytest.fixture(autouse=True)
def _fresh_cache():
    learned.load.cache_clear()
    yield
    learned.load.cache_clear()


def _weights(path: Path, **override) -> Path:
    cue = learned.slot("u:cue=test")
    data = {"about": "test", "bits": learned.BITS,
            "models": {"correction": {"bias": -2.0, "threshold": 0.5, "index": [cue], "weight": [4.0]},
                       "lesson": {"bias": -1.0, "threshold": 0.3, "index": [cue], "weight": [2.0]}}}
    data.update(override)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_weights_file_loads_and_weighs_hashed_features(tmp_path):
    path = _weights(tmp_path / "weights.json")
    models = learned.load(path)
    assert set(models) == {"correction", "lesson"} and models["correction"].threshold == 0.5
    with_cue = learned.vector({"cue=test": 1.0}, {}, "no use pnpm", 3)
    without = learned.vector({}, {}, "no use pnpm", 3)
    assert learned.scores(with_cue, path).correction > 0.5 > learned.scores(without, path).correction
    assert learned.slot("u:cue=test") == learned.slot("u:cue=test") < 2 ** learned.BITS


@pytest.mark.parametrize("content", [
    None,  # missing
    "{not json",
    json.dumps({"bits": 12, "models": {}}),
    json.dumps({"bits": learned.BITS, "models": {"correction": {"bias": 0, "threshold": 0.5, "index": [1, 2],
                                                                "weight": [0.1]}}}),
    json.dumps({"bits": learned.BITS, "models": {"correction": {"bias": 0, "threshold": 0.5, "index": [-1],
                                                                "weight": [0.1]}}}),
    json.dumps(["a list"]),
])
def test_a_missing_or_malformed_file_falls_back_with_a_log_line(tmp_path, caplog, content):
    path = tmp_path / "weights.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="tacit.detect"):
        assert learned.load(path) is None
        assert learned.scores({1: 1.0}, path) is None and learned.model("lesson", path) is None
    lines = [r.getMessage() for r in caplog.records if "learned scorer unavailable" in r.getMessage()]
    assert len(lines) == 1 and str(path) in lines[0], lines  # once per path, naming the file


@pytest.fixture(scope="module")
def slice_rows() -> list[dict]:
    """A small slice of the tune split, read as the trainer reads it (the full training takes about
    a minute: its figures are in docs/detectors.md, not re-run here)."""
    if not real_data.available():
        pytest.skip(f"real-conversation data not found at {real_data.data_dir()}")
    import train_scorer

    return train_scorer.prepare(real_data.user_rows("tune")[:240])


def _build(rows) -> dict:
    import train_scorer

    point = {"l2": 3e-2, "point": (0.3, 0.0, 0.0)}
    return train_scorer.build(rows, {"learned": {"correction": point, "lesson": point}})


@needs_data
def test_training_is_deterministic_and_writes_hashed_indices_and_numbers_only(slice_rows):
    data = _build(slice_rows)
    assert json.dumps(data, sort_keys=True) == json.dumps(_build(slice_rows), sort_keys=True)
    assert set(data) == {"about", "bits", "models"} and set(data["models"]) == {"correction", "lesson"}
    for spec in data["models"].values():
        assert set(spec) == {"bias", "threshold", "index", "weight"} and spec["index"]
        assert all(isinstance(i, int) and 0 <= i < 2 ** learned.BITS for i in spec["index"])
        assert all(isinstance(w, float) for w in spec["weight"]) and 0 < spec["threshold"] < 1


def test_training_skips_cleanly_without_data(tmp_path):
    env = dict(os.environ, TACIT_REAL_DATA=str(tmp_path / "absent"))
    done = subprocess.run([sys.executable, str(BENCH / "train_scorer.py"), "--out", str(tmp_path / "w.json")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("SKIP:"), done.stdout
    assert not (tmp_path / "w.json").exists()
