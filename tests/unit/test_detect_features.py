"""The features the learned scorers weigh: the fixed n-gram mass, the cue
features of issue 22 (imperative, second person, durable cue, code or path,
an error in the agent's reply), and that the hand-built features the
extractor produces carry shipped weights."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tacit.detect.features import NGRAM_MASS, read, user_features
from tacit.detect.model import feature_key, load_models

DATA = Path(__file__).resolve().parents[1] / "data"


def _ngrams(feats: dict[str, float]) -> dict[str, float]:
    return {n: v for n, v in feats.items() if n.startswith(("w=", "b="))}


@pytest.mark.parametrize("text", [
    "use uv",
    "please stop adding comments to every line of the file you touched in the last change",
    " ".join(f"word{i}" for i in range(200)),  # longer than the n-gram window
])
def test_the_ngrams_of_any_message_carry_the_same_mass(text):
    grams = _ngrams(user_features(read(text)))
    assert grams
    assert len(set(grams.values())) == 1  # every n-gram weighs the same within a message
    assert math.isclose(math.sqrt(sum(v * v for v in grams.values())), NGRAM_MASS, rel_tol=1e-9)


def test_a_long_message_has_lighter_ngrams_than_a_short_one():
    short = _ngrams(user_features(read("use uv")))
    long = _ngrams(user_features(read("we have been using poetry for a while but the lock file keeps "
                                      "breaking so from now on please use uv for every package")))
    assert next(iter(long.values())) < next(iter(short.values()))


@pytest.mark.parametrize("text, feature", [
    ("use uv", "imperative"),
    ("please dont touch the migrations", "imperative"),
    ("just remove the retry loop", "imperative"),
    ("you should have run the tests before committing", "you-modal"),
    ("you forgot the README", "you-modal"),
    ("we always use pnpm in this repo", "durable-cue"),
    ("from now on write the commit messages in English", "durable-cue"),
    ("our api is versioned by date", "durable-cue"),
    ("the handler in src/api/routes.py returns 500", "code-or-path"),
    ("move it to lib/utils/ please", "code-or-path"),
])
def test_cue_features_fire_on_their_phrasings(text, feature):
    assert feature in user_features(read(text))


@pytest.mark.parametrize("text, feature", [
    ("can you explain how the cache works?", "imperative"),
    ("thanks, that works", "you-modal"),
    ("add a footer to the landing page", "durable-cue"),
    ("the page loads slowly", "code-or-path"),
])
def test_cue_features_stay_off_elsewhere(text, feature):
    assert feature not in user_features(read(text))


def test_an_error_in_the_agents_reply_is_a_context_feature():
    after_error = user_features(read("use the other port", "The server failed: Error: EADDRINUSE :3000"))
    after_success = user_features(read("use the other port", "The server is up on :3000."))
    no_reply = user_features(read("use the other port"))
    assert after_error.get("prev=error") == 1.0
    assert "prev=error" not in after_success and "prev=error" not in no_reply and no_reply.get("prev=none") == 1.0


def test_a_skipped_message_has_only_its_skip_feature():
    assert user_features(read("   ")) == {"skip=empty": 1.0}


def _handbuilt_names_of_the_projects_own_examples() -> set[str]:
    names: set[str] = set()
    for filename in ("corrections.jsonl", "importance.jsonl"):
        for line in (DATA / filename).read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                names |= set(user_features(read(row["text"], row.get("prev_assistant"))))
    return {n for n in names if not n.startswith(("w=", "b=", "first=", "first2=", "last="))}


def test_the_hand_built_features_the_extractor_produces_have_shipped_weights():
    """A renamed feature would silently lose its trained weight (the files key weights by a hash of
    the name): the hand-built names the extractor produces on the project's own examples carry
    weights — every fixed one, and most cue names (a rare cue may have been pruned in training)."""
    models = load_models("user_model.json")
    assert {"correction", "durable", "lesson"} <= set(models)
    keys = set().union(*(m.weights for m in models.values()))
    names = _handbuilt_names_of_the_projects_own_examples()
    unweighted = {n for n in names if feature_key(n) not in keys}
    assert len(names) > 100
    assert not {n for n in unweighted if not n.startswith(("cue=", "sig="))}, unweighted
    assert len(unweighted) <= 0.2 * len(names), unweighted
    lesson = models["lesson"].weights
    assert {feature_key("imperative"), feature_key("durable-cue")} <= set(lesson)  # the new cues carry weight
