"""Logistic scorers over named features, with weights shipped as JSON keyed by hashed names.

Design notes: docs/design/detect.md#tacitdetectmodel; the weight files: docs/detectors.md."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
#: how the weight files key their weights (a file saying otherwise is not loaded)
FEATURE_KEYS = "blake2b-8"
#: the weight file of the user-message scorers (the fix scorer's is ``fix.WEIGHTS_FILE``)
USER_MODEL = "user_model.json"


@lru_cache(maxsize=1 << 14)
def feature_key(name: str) -> str:
    """The key of a feature's weight: 16 hex digits of BLAKE2b over its UTF-8 name (the same in
    every process and Python version; memoised, as every model of a message scores the same names)."""
    return hashlib.blake2b(name.encode("utf-8", "replace"), digest_size=8).hexdigest()


def bucket(n: int, edges: tuple[int, ...]) -> str:
    """A count as a feature name's range part: "<=2", ">6"."""
    for edge in edges:
        if n <= edge:
            return f"<={edge}"
    return f">{edges[-1]}"


def flags(f: dict[str, float], pairs: tuple) -> None:
    """Set the feature ``name`` to 1.0 for every ``(name, on)`` pair that is on."""
    f.update((name, 1.0) for name, on in pairs if on)


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


@dataclass(frozen=True, slots=True)
class Logistic:
    """One binary logistic scorer."""

    name: str
    bias: float = 0.0
    weights: dict = field(default_factory=dict)
    threshold: float = 0.5
    confident: float | None = None  # a higher, more precise operating point, when trained with one

    def score(self, features: dict[str, float]) -> float:
        """Probability-like score in [0, 1]."""
        if not self.weights:
            return 0.0
        get, key = self.weights.get, feature_key
        return sigmoid(self.bias + sum(get(key(name), 0.0) * value for name, value in features.items()))

    def contributions(self, features: dict[str, float], top: int = 5) -> list[tuple[str, float]]:
        """The features that pushed the score up most (for explanations)."""
        parts = [(name, self.weights.get(feature_key(name), 0.0) * value) for name, value in features.items()]
        return sorted((p for p in parts if p[1] > 0), key=lambda p: -p[1])[:top]


def _parse(data: dict) -> dict[str, Logistic]:
    if data.get("feature_keys") != FEATURE_KEYS:
        return {}  # keyed some other way: every lookup would miss, so score nothing rather than wrongly
    return {name: Logistic(name, float(spec.get("bias", 0.0)),
                           {str(k): float(v) for k, v in (spec.get("weights") or {}).items()},
                           float(spec.get("threshold", 0.5)),
                           float(spec["confident"]) if spec.get("confident") is not None else None)
            for name, spec in (data.get("models") or {}).items()}


@cache
def load_models(filename: str) -> dict[str, Logistic]:
    """The models in ``<this folder>/<filename>``; {} if it is missing or bad."""
    try:
        return _parse(json.loads((_HERE / filename).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def model(filename: str, name: str) -> Logistic:
    """One model from a weight file (an empty scorer when absent)."""
    return load_models(filename).get(name) or Logistic(name)
