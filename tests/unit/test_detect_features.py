"""The features the learned scorers weigh: the fixed n-gram mass, the cue
features of issue 22 (imperative, second person, durable cue, code or path,
an error in the agent's reply), the word shapes (``sh:``, the correction
scorer's only), and that the hand-built features the extractor produces carry
shipped weights."""

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
    return {n for n in names if not n.startswith(("w=", "b=", "first=", "first2=", "last=", "fw:"))}


def test_form_ngrams_keep_the_function_words_and_drop_the_topic():
    """Two messages of one form about different projects share every form n-gram (``fw:``)."""
    def form(text, prev=None):
        return {n: round(v, 6) for n, v in user_features(read(text, prev)).items() if n.startswith("fw:")}
    a = form("why did you change the login handler again", "I updated the handler.")
    assert a == form("why did you change the parser config again", "I updated the config.")
    assert {"fw:first2=why_did", "fw:b=did_you", "fw:b=~_again", "fw:last=again"} <= set(a)
    assert not any("login" in n or "handler" in n for n in a)
    assert a != form("please change the login handler")


def test_the_hand_built_features_the_extractor_produces_have_shipped_weights():
    """A renamed feature would silently lose its trained weight (the files key weights by a hash of
    the name): the hand-built names the extractor produces on the project's own examples carry
    weights — every fixed one, and most cue names (a rare cue, word shape or failure-report form may
    have been pruned in training)."""
    models = load_models("user_model.json")
    assert {"correction", "durable", "lesson"} <= set(models)
    keys = set().union(*(m.weights for m in models.values()))
    names = _handbuilt_names_of_the_projects_own_examples()
    unweighted = {n for n in names if feature_key(n) not in keys}
    assert len(names) > 100
    assert not {n for n in unweighted if not n.startswith(("cue=", "sig=", "sh:", "rep:"))}, unweighted
    assert len(unweighted) <= 0.2 * len(names), unweighted
    lesson = models["lesson"].weights
    assert {feature_key("imperative"), feature_key("durable-cue")} <= set(lesson)  # the new cues carry weight


def _shapes(text: str, prev: str | None = None) -> set[str]:
    return {n for n in user_features(read(text, prev)) if n.startswith("sh:")}


def test_word_shapes_name_the_opening_and_function_words_not_the_project():
    acted = "I ran npm install and updated the lock file."
    rejected = _shapes("no, use pnpm not npm", acted)
    assert {"sh:open=reject", "sh:not-x-but", "sh:neg", "sh:size=short", "sh:prev=acted",
            "sh:open=reject&prev=acted", "sh:neg&prev=acted", "sh:you=0"} <= rejected
    asked = _shapes("why did you delete the test?")
    assert {"sh:open=why", "sh:why-you", "sh:q&short", "sh:q&open=why", "sh:prev=none", "sh:you=1"} <= asked
    # the same shape in another project's words gives the same names
    assert _shapes("no, use poetry not pip", acted) == rejected
    assert "sh:open=ok" in _shapes("great, thanks") and "sh:thanks" in _shapes("great, thanks")
    assert not _shapes("   ") and not _shapes("```\nonly code\n```")
    # "stop" opening an instruction is not a halt
    assert "sh:open=halt" in _shapes("stop, fix the test first")
    assert "sh:open=do" in _shapes("stop the server and restart it")


def test_only_the_correction_scorer_weighs_the_word_shapes():
    """The shapes raised the correction scorer's out-of-fold precision and nothing else's: the other
    scorers are trained without them (tests/benchmarks/train_detectors.py), so they carry no weight there."""
    models = load_models("user_model.json")
    names = {n for n in _handbuilt_names_of_the_projects_own_examples() if n.startswith("sh:")}
    assert len(names) > 50
    keyed = {feature_key(n) for n in names}
    assert len(keyed & set(models["correction"].weights)) >= 0.8 * len(names)
    for other in ("lesson", "durable", "failure", "preference", "decision", "goal", "fact"):
        assert not keyed & set(models[other].weights), other
