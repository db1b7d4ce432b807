"""Score what the user says: category, importance, emphasis, expiry hint.

The ledger keeps what clears ``importance_threshold``; heartbeat and review take it from there.

Design notes: docs/design/detect.md#tacitdetectimportance"""

from __future__ import annotations

from dataclasses import dataclass

from tacit.detect.analysis import MessageAnalysis, analyse
from tacit.detect.model import USER_MODEL, model

CATEGORIES = ("preference", "decision", "correction", "goal", "fact", "context", "none")

#: (low, high) importance for each category; "none" is capped well below the
#: default importance_threshold (0.70) so nothing trivial floods memory
CATEGORY_RANGES: dict[str, tuple[float, float]] = {
    "preference": (0.90, 1.00),
    "decision": (0.95, 1.00),
    "goal": (0.85, 0.95),
    "correction": (0.90, 0.98),
    "fact": (0.70, 0.85),
    "context": (0.40, 0.70),
    "none": (0.00, 0.30),
}
#: importance of a durable statement scored between the durable threshold and its confident level
TENTATIVE_RANGE: tuple[float, float] = (0.60, 0.69)


@dataclass(frozen=True, slots=True)
class Importance:
    """How much a user message matters, and why."""

    category: str  # one of CATEGORIES
    importance: float  # inside CATEGORY_RANGES[category]
    markers: tuple[str, ...]  # the phrases that decided it, lowercased
    emphasis: bool
    expires_at_hint: str | None  # e.g. "friday", "end of month" (goals)


def _place(category: str, strength: float, emphasis: bool) -> float:
    low, high = CATEGORY_RANGES[category]
    fraction = 1.0 if emphasis else max(0.0, min(strength, 0.9))
    return round(low + (high - low) * fraction, 3)


def importance_from(analysis: MessageAnalysis, is_correction: bool | None = None) -> Importance:
    """The importance view of one analysis; ``is_correction`` overrides its verdict."""
    scorer = model(USER_MODEL, "durable")
    threshold = scorer.threshold
    confident = scorer.confident if scorer.confident is not None else threshold
    corrected = analysis.is_correction if is_correction is None else bool(is_correction)
    if corrected and is_correction is None and analysis.correction.rule == "model" \
            and analysis.category != "none" and analysis.durable_score >= confident:
        corrected = False  # "I prefer tabs over spaces": the durable statement says more than "a correction"
    if corrected:
        verdict = analysis.correction
        marker = verdict.matched or "correction signal"
        strength = verdict.score if verdict.is_correction else 0.5
        markers = tuple(dict.fromkeys([marker.lower(), *analysis.markers]))
        return Importance("correction", _place("correction", strength, analysis.emphasis), markers,
                          analysis.emphasis, None)
    if analysis.category != "none":
        score = analysis.durable_score
        if score >= confident or analysis.rule is not None:  # a rule tacit can phrase is never tentative
            strength = (score - confident) / max(1e-6, 1.0 - confident)
            importance = _place(analysis.category, strength, analysis.emphasis)
        else:
            low, high = TENTATIVE_RANGE
            importance = round(low + (high - low) * max(0.0, score - threshold) / max(1e-6, confident - threshold), 3)
        return Importance(analysis.category, importance, analysis.markers, analysis.emphasis,
                          analysis.expires_at_hint)
    low, high = CATEGORY_RANGES["none"]
    share = min(1.0, analysis.durable_score / threshold) if threshold > 0 else 0.0
    return Importance("none", round(low + (high - low) * share, 3), (), analysis.emphasis, None)


def score_importance(text: str, is_correction: bool | None = None) -> Importance:
    """Category and importance of one user message (never raises)."""
    try:
        return importance_from(analyse(text), is_correction)
    except Exception:  # noqa: BLE001 — a detector must never break the host
        return Importance("none", 0.0, (), False, None)
