"""The learned scorer over hashed features (issue 22's experiment; NOT wired into tacit).

Written to be dropped into the package as ``tacit/detect/learned.py`` unchanged (it imports only
``tacit.detect`` modules below ``correction``): :func:`vector` turns one read message — its named
features (``user_features``), what the rule parts of the detectors said (:func:`rule_features`) and
a few shape features — into hashed indices; :func:`scores` weighs them with the two models
(``correction``, ``lesson``) of a weights file written by ``train_scorer.py``. The file holds
hashed indices, floats and thresholds only, never text. It is read once per process; a missing or
malformed file gives None (one log line) and a caller keeps the named-feature scorers.

Not shipped: on the check split it did not beat today's lesson ranking (docs/detectors.md, "The
learned-scorer experiment"); ``learned_wiring.diff`` is how it was wired for that measurement."""

from __future__ import annotations

import json
import logging
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tacit.detect.commands import wants_forget, wants_review
from tacit.detect.foreign import foreign_correction
from tacit.detect.markers import chinese_correction
from tacit.detect.model import sigmoid
from tacit.detect.text import strip_quoted, words

__all__ = ["HashedModel", "LearnedScores", "load", "rule_features", "scores", "slot", "vector"]

log = logging.getLogger("tacit.detect")

#: where the package copy would read its weights (``tacit/detect/weights.json``)
WEIGHTS_FILE = Path(__file__).resolve().parent / "weights.json"
BITS = 18
_MASK = (1 << BITS) - 1
_LEADS = frozenset("no nope nah stop wait actually hmm why please pls dont never again still but".split())


def slot(name: str) -> int:
    """A feature name's hashed index (stable across processes and platforms)."""
    return zlib.crc32(name.encode("utf-8", "replace")) & _MASK


def rule_features(reading, phrased, terse) -> dict[str, float]:
    """What the rule parts of the detectors say about a read message (``phrased``: its
    ``phrased_rule_of``, ``terse``: its ``terse_verdict``), as the scorer's inputs."""
    out: dict[str, float] = {}
    if reading.skipped is not None:
        return out
    bare_raw = strip_quoted(reading.raw)
    if (not reading.english and chinese_correction(bare_raw)) or foreign_correction(bare_raw):
        out["foreign-phrase"] = 1.0
    if not reading.english:
        return out
    if terse is not None:
        out["terse=" + ("correction" if terse[0] else "not")] = 1.0
    if phrased is not None:
        out["phrased=" + phrased.category] = 1.0
        for name, on in (("rejects-prev", phrased.rejects_prev), ("rejection", phrased.rejection),
                         ("contrast", phrased.contrast)):
            if on:
                out["phrased-" + name] = 1.0
    if wants_forget(reading.raw) is not None or wants_review(reading.raw):
        out["memory-command"] = 1.0
    return out


def vector(feats: dict[str, float], rule_feats: dict[str, float], bare: str, n_words: int) -> dict[int, float]:
    """Hashed features of one message: its named features, what the rule parts said, and a few
    shape features of its ``bare`` text (the word n-grams are among the named features;
    character n-grams did not help in cross-validation)."""
    out: dict[int, float] = {}
    for group, named in (("u:", feats), ("r:", rule_feats)):
        for name, value in named.items():
            key = slot(group + name)
            out[key] = out.get(key, 0.0) + value
    tokens = words(bare)
    shape = ["bias-len>0" if tokens else "empty", "has-?" if "?" in bare else "no-?"]
    if tokens and tokens[0] in _LEADS:
        shape.append("lead=" + tokens[0])
    if n_words <= 6:
        shape.append("short")
    for name in shape:
        key = slot("s:" + name)
        out[key] = out.get(key, 0.0) + 1.0
    return out


@dataclass(frozen=True, slots=True)
class HashedModel:
    """One logistic scorer over hashed indices, with its operating threshold."""

    bias: float
    weights: dict[int, float]
    threshold: float

    def score(self, vec: dict[int, float]) -> float:
        get = self.weights.get
        return sigmoid(self.bias + sum(get(k, 0.0) * v for k, v in vec.items()))


@dataclass(frozen=True, slots=True)
class LearnedScores:
    correction: float
    lesson: float


def _parse(data: dict) -> dict[str, HashedModel]:
    if data.get("bits") != BITS:
        raise ValueError(f"weights for {data.get('bits')} bits, this code hashes into {BITS}")
    models = {}
    for name in ("correction", "lesson"):
        spec = data["models"][name]
        index, weight = spec["index"], spec["weight"]
        if len(index) != len(weight) or not all(isinstance(i, int) and 0 <= i <= _MASK for i in index):
            raise ValueError(f"model {name!r}: bad index list")
        models[name] = HashedModel(float(spec["bias"]), dict(zip(index, map(float, weight))),
                                   float(spec["threshold"]))
    return models


@cache
def load(path: Path | None = None) -> dict[str, HashedModel] | None:
    """The models of a weights file (``WEIGHTS_FILE`` by default), or None when it is missing or
    malformed — logged once per path; the caller then uses the named-feature scorers."""
    path = path or WEIGHTS_FILE
    try:
        return _parse(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        log.warning("learned scorer unavailable (%s: %s: %s); using the named-feature scorers",
                    path, type(exc).__name__, exc)
        return None


def model(name: str, path: Path | None = None) -> HashedModel | None:
    models = load(path)
    return models[name] if models else None


def scores(vec: dict[int, float], path: Path | None = None) -> LearnedScores | None:
    """The correction and lesson scores of a hashed vector; None without weights."""
    models = load(path)
    if models is None:
        return None
    return LearnedScores(models["correction"].score(vec), models["lesson"].score(vec))
