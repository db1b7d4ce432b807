"""One analysis of a user message, shared by every handler.

Design decisions
- **Once per message.** The correction detector, the importance scorer and
  the prose commands ("forget that …", "review") each read the message once
  here; corrections, importance captures and fix outcomes all use this
  verdict instead of running the detectors again.
- **The agent's previous reply is context.** Pushback depends on what the
  agent just did, so the correction detector sees it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tacit.detect.correction import CorrectionVerdict, detect_correction
from tacit.detect.importance import Importance, score_importance, wants_forget, wants_review

MAX_CHARS = 20_000  # a pasted log is judged by its head: bounded work on huge input


@dataclass(frozen=True, slots=True)
class MessageAnalysis:
    correction: CorrectionVerdict
    importance: Importance
    forget: str | None
    wants_review: bool
    lesson_score: float
    rule: str | None = None

    @property
    def is_correction(self) -> bool:
        return bool(self.correction.is_correction)


def analyse(text: str, prev_assistant: str | None = None, *, patterns=None) -> MessageAnalysis:
    text = text[:MAX_CHARS] if isinstance(text, str) else ""
    correction = detect_correction(text, prev_assistant=prev_assistant, patterns=patterns)
    importance = score_importance(text, is_correction=correction.is_correction)
    lesson = max(float(correction.score) if correction.is_correction else 0.0,
                 float(importance.importance) if importance.category != "none" else 0.0)
    return MessageAnalysis(correction=correction, importance=importance, forget=wants_forget(text),
                           wants_review=wants_review(text), lesson_score=round(lesson, 3))
