"""Does a user message state something durable — a preference, decision, goal or fact?

Design notes: docs/design/detect.md#tacitdetectdurable"""

from __future__ import annotations

from dataclasses import dataclass

from tacit.detect.features import MessageReading
from tacit.detect.model import USER_MODEL, model

__all__ = ["CATEGORIES", "DurableVerdict", "judge_durable"]

CATEGORIES = ("preference", "decision", "goal", "fact")


@dataclass(frozen=True, slots=True)
class DurableVerdict:
    category: str  # preference | decision | goal | fact | none
    score: float  # how likely the message holds a durable statement, 0..1


def judge_durable(reading: MessageReading, feats: dict[str, float]) -> DurableVerdict:
    if reading.skipped in ("empty", "agent-prompt", "quoted-only"):
        return DurableVerdict("none", 0.0)
    scorer = model(USER_MODEL, "durable")
    if not reading.english and reading.markers.rule_category in CATEGORIES:
        # no training rows in other languages: the phrase markers decide
        return DurableVerdict(reading.markers.rule_category, 0.6)
    score = scorer.score(feats)
    if not scorer.weights or score < scorer.threshold:
        return DurableVerdict("none", round(score, 3))
    best = max(CATEGORIES, key=lambda c: model(USER_MODEL, c).score(feats))  # the first of a tie
    return DurableVerdict(best, round(score, 3))
