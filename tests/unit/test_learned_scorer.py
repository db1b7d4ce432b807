"""The learned-scorer experiment of issue 22 (tests/benchmarks/learned_scorer.py, train_scorer.py).

Not wired into tacit (docs/detectors.md, "The learned-scorer experiment"), but kept runnable: a
weights file loads, a missing or malformed one falls back with a log line, the trained scorer puts
textbook corrections and non-corrections on the right side of its threshold, and training is
deterministic. The tests that train need ``../shared/data/real`` and skip without it."""

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
def trained(tmp_path_factory) -> Path:
    if not real_data.available():
        pytest.skip(f"real-conversation data not found at {real_data.data_dir()}")
    out = tmp_path_factory.mktemp("learned") / "weights.json"
    done = subprocess.run([sys.executable, str(BENCH / "train_scorer.py"), "--out", str(out)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return out


@needs_data
def test_the_weights_hold_hashed_indices_and_numbers_only(trained):
    data = json.loads(trained.read_text(encoding="utf-8"))
    assert set(data) == {"about", "bits", "models"} and set(data["models"]) == {"correction", "lesson"}
    for spec in data["models"].values():
        assert set(spec) == {"bias", "threshold", "index", "weight"}
        assert all(isinstance(i, int) and 0 <= i < 2 ** learned.BITS for i in spec["index"])
        assert all(isinstance(w, float) for w in spec["weight"]) and 0 < spec["threshold"] < 1
    assert trained.stat().st_size < 400_000


PREV = "I updated src/app.ts and restarted the dev server."


@needs_data
@pytest.mark.parametrize("text,prev,is_correction", [
    ("no, that's the wrong file", PREV, True),
    ("you broke the login page with that change", PREV, True),
    ("that's not what I asked", PREV, True),
    ("why did you delete the test?", PREV, True),
    ("Stop creating a new connection per request; the pool exists", None, True),
    ("looks good, commit it", PREV, False),
    ("add a footer to the page", None, False),
    ("can you also add a test?", PREV, False),
    ("thanks!", PREV, False),
    ("continue", PREV, False),
])
def test_corrections_and_other_messages_score_on_their_side(trained, text, prev, is_correction):
    import train_scorer

    vec = train_scorer.read_message(text, prev)[3]
    model = learned.model("correction", trained)
    assert (model.score(vec) >= model.threshold) is is_correction, model.score(vec)


@needs_data
def test_a_durable_statement_is_a_lesson_and_a_task_is_not(trained):
    import train_scorer

    lesson = learned.model("lesson", trained)
    assert lesson.score(train_scorer.read_message("I prefer tabs over spaces.", None)[3]) >= lesson.threshold
    assert lesson.score(train_scorer.read_message("add a footer to the page", None)[3]) < lesson.threshold


@needs_data
def test_training_is_deterministic(trained, tmp_path):
    again = tmp_path / "again.json"
    done = subprocess.run([sys.executable, str(BENCH / "train_scorer.py"), "--out", str(again)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert again.read_bytes() == trained.read_bytes()


def test_training_skips_cleanly_without_data(tmp_path):
    env = dict(os.environ, TACIT_REAL_DATA=str(tmp_path / "absent"))
    done = subprocess.run([sys.executable, str(BENCH / "train_scorer.py"), "--out", str(tmp_path / "w.json")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("SKIP:"), done.stdout
    assert not (tmp_path / "w.json").exists()
