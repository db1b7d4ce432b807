"""One analysis per user message: everything tacit's detectors say about it, computed once.

The service calls :func:`analyse` on every user message (with the agent's previous reply when the
host gives it) and reads the verdicts it needs from the :class:`MessageAnalysis`.

Design notes: docs/design/detect.md#tacitdetectanalysis"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from tacit.detect import features as _features
from tacit.detect.commands import wants_forget, wants_review
from tacit.detect.correction import CorrectionVerdict, judge_correction, not_a_lesson, phrased_rule_of
from tacit.detect.foreign import foreign_standing_rule
from tacit.detect.markers import expiry_hint
from tacit.detect.model import USER_MODEL, model
from tacit.detect.patterns import CorrectionPatterns
from tacit.detect.text import memory_request

#: a session starts a review when the lesson scores of its highlighted messages since the
#: last review add up to this (chosen out of fold on the tune split, tests/benchmarks/oof_trigger.py)
REVIEW_BUDGET = 0.95
#: the durable-statement categories
DURABLE_CATEGORIES = ("preference", "decision", "goal", "fact")


def lesson_threshold() -> float:
    """Messages with ``lesson_score`` at or above this are highlighted."""
    return model(USER_MODEL, "lesson").threshold


@dataclass(frozen=True, slots=True)
class MessageAnalysis:
    """What tacit's detectors say about one user message."""

    correction: CorrectionVerdict  # is_correction, rule, score, matched span, reason
    failure_report: bool  # "still not working", "same error": the result fails, the approach is not rejected
    failure_score: float
    category: str  # preference | decision | goal | fact | none
    durable_score: float  # how likely the message states something durable, 0..1
    forget: str | None  # what "forget that …" asks to forget
    wants_review: bool  # the user asks for the memory review
    lesson_score: float  # how likely the message holds a lesson worth a background review, 0..1
    rule: str | None  # an exact durable rule phrased by tacit ("Use pnpm, not npm."), else None
    markers: tuple[str, ...] = ()  # the durable-statement phrases found
    emphasis: bool = False  # "important", "remember", "!!"
    expires_at_hint: str | None = None  # a goal's deadline ("friday", "end of month")

    @property
    def is_correction(self) -> bool:
        return self.correction.is_correction

    @property
    def highlight(self) -> bool:
        """Highlight this message in a review prompt."""
        return self.lesson_score >= lesson_threshold()

    def as_dict(self) -> dict:
        data = asdict(self)
        data["correction"] = self.correction.as_dict()
        data["highlight"] = self.highlight
        return data


def _durable(reading: _features.MessageReading, feats: dict[str, float]) -> tuple[str, float]:
    """(category, score): does the message state something durable — a preference, decision, goal, fact?"""
    if reading.skipped in ("empty", "agent-prompt", "quoted-only") or reading.output_only:
        return "none", 0.0
    scorer = model(USER_MODEL, "durable")
    if not reading.english and reading.markers.rule_category in DURABLE_CATEGORIES:
        # no training rows in other languages: the phrase markers decide
        return reading.markers.rule_category, 0.6
    score = scorer.score(feats)
    if memory_request(reading.raw):  # the host says the user asked it to remember these words
        score = max(score, scorer.threshold)
    if foreign_standing_rule(reading.focus):
        # "siempre usa pnpm", "n'utilise jamais var": a standing rule the English scorer cannot read
        return "preference", round(max(score, 0.6), 3)
    if not scorer.weights or score < scorer.threshold:
        return "none", round(score, 3)
    best = max(DURABLE_CATEGORIES, key=lambda c: model(USER_MODEL, c).score(feats))  # the first of a tie
    return best, round(score, 3)


def _analyse(text: object, prev_assistant: object, patterns: CorrectionPatterns | None) -> MessageAnalysis:
    reading = _features.read(text, prev_assistant)
    feats = _features.user_features(reading)
    phrased = phrased_rule_of(reading)
    # a rule against what the agent just did is a correction (judge_correction)
    correction = judge_correction(reading, feats, patterns, phrased)
    category, durable_score = _durable(reading, feats)
    skipped = reading.skipped is not None
    forget, review = wants_forget(reading.raw), wants_review(reading.raw)
    if phrased is not None and category == "none":
        # a rule tacit can phrase is a durable statement by construction
        category = phrased.category
        durable_score = max(durable_score, model(USER_MODEL, "durable").threshold)
    waiver = not skipped and reading.english and not_a_lesson(reading)
    if forget is not None or review or waiver:
        category, durable_score = "none", 0.0  # a memory command or a waiver, not a statement to keep
    failure_model = model(USER_MODEL, "failure")
    failure = 0.0 if skipped else failure_model.score(feats)
    failure_report = bool(failure_model.weights) and failure >= failure_model.threshold \
        and not correction.is_correction
    lesson = 0.0 if skipped or reading.output_only or forget is not None or review or waiver \
        else model(USER_MODEL, "lesson").score(feats)
    if correction.is_correction or category != "none":
        lesson = max(lesson, lesson_threshold())  # a detected lesson is always highlighted
    markers = tuple(dict.fromkeys([*reading.markers.found.get(category, ()), *reading.markers.boosts])) \
        if category != "none" else ()
    hint = expiry_hint(reading.focus, category) if category == "goal" else None
    return MessageAnalysis(
        correction=correction,
        failure_report=failure_report,
        failure_score=round(failure, 3),
        category=category,
        durable_score=round(durable_score, 3),
        forget=forget,
        wants_review=review,
        lesson_score=round(lesson, 3),
        rule=phrased.text if phrased else None,
        markers=markers,
        emphasis=bool(reading.markers.emphasis),
        expires_at_hint=hint,
    )


def analyse(text: str, prev_assistant: str | None = None,
            patterns: CorrectionPatterns | None = None) -> MessageAnalysis:
    """Analyse one user message; ``prev_assistant`` is the end of the agent's
    previous reply, ``patterns`` the configured correction lists. Never raises."""
    try:
        return _analyse(text, prev_assistant, patterns)
    except Exception as exc:  # noqa: BLE001 — a detector must never break the host
        verdict = CorrectionVerdict(False, "empty", 0.0, None, f"detector error: {type(exc).__name__}: {exc}")
        return MessageAnalysis(verdict, False, 0.0, "none", 0.0, None, False, 0.0, None)


def review_due(lesson_scores: list[float] | tuple[float, ...], budget: float = REVIEW_BUDGET) -> bool:
    """Whether a session's messages since the last review call for one: the
    highlighted messages' lesson scores add up to ``budget``."""
    threshold = lesson_threshold()
    return sum(s for s in lesson_scores if s >= threshold) >= budget
