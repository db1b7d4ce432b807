"""The features the learned scorers weigh: the fixed n-gram mass, the cue
features of issue 22 (imperative, second person, durable cue, code or path,
an error in the agent's reply), and that every shipped weight names a
feature the extractor can produce."""

from __future__ import annotations

import math

import pytest

from tacit.detect import features
from tacit.detect.features import NGRAM_MASS, read, user_features
from tacit.detect.model import load_models


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


def test_every_hand_built_weight_names_a_feature_the_extractor_can_produce():
    """A renamed feature would silently lose its trained weight: the shipped
    weights' hand-built names must all occur in the extractor's source."""
    source = open(features.__file__, encoding="utf-8").read()
    models = load_models("user_model.json")
    assert {"correction", "durable", "lesson"} <= set(models)
    prefixes = ("w=", "b=", "first=", "first2=", "last=", "cue=", "contrast=", "sig=", "orig=", "m=", "m2=",
                "m-default=", "m-rule=", "len", "cues", "overlap", "skip=", "kinds=")
    missing = set()
    for m in models.values():
        for name in m.weights:
            if name.startswith(prefixes):
                continue
            if f'"{name}"' not in source:
                missing.add(name)
    assert not missing, missing
    lesson = models["lesson"].weights
    assert {"imperative", "durable-cue"} & set(lesson)  # the new cues carry weight in the shipped model
