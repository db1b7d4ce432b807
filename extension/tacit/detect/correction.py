"""Is this user message a correction of what the agent just did?

:func:`judge_correction` is the verdict :func:`tacit.detect.analysis.analyse` carries;
:func:`detect_correction` is the same verdict for callers that only need this one
(``tacit detect correction``, the correction handler).

Design notes: docs/design/detect.md#tacitdetectcorrection"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tacit.lazyre import lazy
from tacit.detect import features as _features
from tacit.detect.commands import wants_forget, wants_review
from tacit.detect.foreign import foreign_correction
from tacit.detect.markers import chinese_correction
from tacit.detect.model import USER_MODEL, model
from tacit.detect.patterns import CorrectionPatterns, default_patterns, original_rule
from tacit.detect.rules import Phrased, phrase
from tacit.detect.text import sentences, strip_quoted

#: a strong-pattern hit scores at least this
STRONG_SCORE = 0.9
#: a negative-pattern hit vetoes only messages this short (in words)
NEGATIVE_MAX_WORDS = 12


@dataclass(frozen=True, slots=True)
class CorrectionVerdict:
    """What the detector decided and why.

    ``rule``: ``model`` (the learned score decided), ``strong`` / ``negative`` (a configured pattern
    list decided), ``phrased-rule`` (the message states an exact rule against what the agent did,
    see :mod:`tacit.detect.analysis`), ``zh-phrase``, ``empty``, ``quoted-only``, ``agent-prompt``,
    ``program-output``.
    ``score`` is in [0, 1]; ``matched`` is the text that weighed most (a cue's words), or None."""

    is_correction: bool
    rule: str
    score: float
    matched: str | None
    reason: str

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of ``tacit detect correction``."""
        return {
            "correction": self.is_correction,
            "rule": self.rule,
            "score": round(self.score, 3),
            "matched": self.matched,
            "reason": self.reason,
        }


def _verdict(is_correction: bool, rule: str, score: float, matched: str | None, reason: str) -> CorrectionVerdict:
    return CorrectionVerdict(is_correction, rule, round(max(0.0, min(1.0, score)), 3), matched, reason)


def _matched_text(reading: _features.MessageReading, top: list[tuple[str, float]]) -> str | None:
    cue_text = {f"cue={name}": matched for name, _w, _firm, matched in reading.hits}
    for name, _contribution in top:
        if name in cue_text:
            return cue_text[name].strip() or None
        if name.startswith("contrast") and reading.contrast is not None:
            return reading.contrast.shown
    if reading.hits:
        return max(reading.hits, key=lambda h: h[1])[3].strip() or None
    return None


def phrased_rule_of(reading: _features.MessageReading) -> Phrased | None:
    """The exact rule a read message states (None for memory commands,
    non-English, skipped and output-only messages)."""
    if reading.skipped is not None or reading.output_only or not reading.english:
        return None
    if wants_forget(reading.raw) is not None or wants_review(reading.raw):
        return None
    return phrase(reading.focus, reading.lower, reading.prev)


_UNSET = object()
_VERB = (r"(?:fix|run|write|add|update|use|check|read|make|do|finish|commit|revert|undo|remove|delete|test|look|"
         r"keep|leave|change|edit|put|try|build|start|go|install|ask|rename|move|stop|handle|implement|answer)")
#: "stop, fix the test first", "actually, fix the test first", "wait — run the tests first": a redirect
_REDIRECT = lazy(r"^(?:no+|stop|wait|hold on|hang on|actually|hmm+|nope)\s*[,.!:\u2014\u2013-]+\s*"
                       r"(?:(?:please|pls|just|instead|first)\s+)?" + _VERB + r"\b[^?]{0,80}?\b(?:first|instead)"
                       r"[.!]*$|^stop\s*[,.!:\u2014\u2013-]+\s*(?:please\s+)?(?:dont|do not|don't|you|that|"
                       r"this|the|it|what)\b")
#: "no need to change that", "did you say the tenant id is 42?": not corrections, not lessons
_NOT_LESSON = lazy(r"^(?:no need (?:to|for)|(?:did|do) you (?:say|mean|want)\b[^?]*\?$)")


def not_a_lesson(reading: _features.MessageReading) -> bool:
    """A short waiver or clarifying question ("no need to change that", "did you say …?")."""
    return reading.n_words <= 14 and bool(_NOT_LESSON.match(" ".join(reading.bare.split())))


def judge_correction(reading: _features.MessageReading, feats: dict[str, float],
                     patterns: CorrectionPatterns | None = None, phrased: object = _UNSET) -> CorrectionVerdict:
    """The correction verdict for a read message and its features
    (``phrased``: :func:`phrased_rule_of` when the caller has it already)."""
    if reading.skipped == "empty":
        return _verdict(False, "empty", 0.0, None, "no text")
    if reading.skipped == "agent-prompt":
        return _verdict(False, "agent-prompt", 0.0, None, "text is a prompt written for an agent, not by the user")
    if reading.output_only:
        return _verdict(False, "program-output", 0.0, None, "text is program or harness output, not the user's words")
    zh = chinese_correction(strip_quoted(reading.raw)) if not reading.english else None
    if zh:
        return _verdict(True, "zh-phrase", 0.8, zh, f"Chinese correction phrase {zh!r}")
    other = foreign_correction(strip_quoted(reading.raw)) if reading.skipped is None else None
    if other:
        return _verdict(True, "foreign-phrase", 0.8, other, f"correction phrase {other!r}")
    if reading.skipped == "quoted-only":
        return _verdict(False, "quoted-only", 0.0, None, "nothing left after removing quoted text and logs")
    scorer = model(USER_MODEL, "correction")
    score = scorer.score(feats)
    hit = reading.original
    if patterns is not None and patterns is not default_patterns():
        hit = original_rule("\n".join(sentences(reading.lower)), patterns)
    if hit is not None and hit.kind == "strong":
        return _verdict(True, "strong", max(score, STRONG_SCORE), hit.matched, "strong pattern matched")
    if hit is not None and hit.kind == "negative" and reading.n_words <= NEGATIVE_MAX_WORDS:
        return _verdict(False, "negative", min(score, 0.1), hit.matched, "negative pattern: not a correction")
    # a short message whose shape decides
    if reading.skipped is None and reading.english and reading.n_words <= 14:
        text = " ".join(reading.bare.split())
        if _NOT_LESSON.match(text):
            return _verdict(False, "terse", min(score, 0.1), text, "a clarifying question or a waiver, not a correction")
        if _REDIRECT.match(text):
            return _verdict(True, "terse", max(score, 0.75), text, "redirects what the agent is doing")
    top = scorer.contributions(feats)
    shown = ", ".join(name for name, _c in top[:4]) or "no cue"
    is_correction = bool(scorer.weights) and score >= scorer.threshold
    rule = phrased_rule_of(reading) if phrased is _UNSET else phrased
    if not is_correction:
        # "pnpm not npm" right after "npm install", "no, use pnpm": an exact
        # rule against what the agent did is a correction
        if isinstance(rule, Phrased) and (rule.rejects_prev or rule.rejection or (rule.contrast and not reading.prev)):
            return _verdict(True, "phrased-rule", max(score, 0.75), reading.focus.strip(),
                            f"states the rule {rule.text!r} against what the agent did")
        c = reading.contrast
        if c is not None and c.in_prev and c.kind in ("A-not-B", "is-A-not-B") and reading.n_words <= 10 \
                and len(c.rejected.split()) <= 3 and not reading.focus.rstrip().endswith("?"):
            # "the port is 5173 not 3000" after "Started on port 3000.": a short "X, not Y" whose Y
            # the agent's reply said contradicts it (no tune row this short fires; longer ones are not)
            return _verdict(True, "contrast", max(score, 0.75), c.shown,
                            f"rejects {c.rejected!r}, which the agent's reply said")
    elif isinstance(rule, Phrased) and not (rule.rejects_prev or rule.rejection or rule.contrast) \
            and not reading.msg.prev_acted:
        # "we use yarn here" after "Understood.": a rule that rejects nothing, when the agent did
        # nothing, is a durable statement (saved by the review), not a correction
        return _verdict(False, "stated-rule", min(score, 0.1), reading.focus.strip(),
                        f"states the rule {rule.text!r}; the agent's reply did nothing it rejects")
    return _verdict(is_correction, "model", score, _matched_text(reading, top),
                    f"score {score:.2f} {'>=' if is_correction else '<'} {scorer.threshold:.2f}; top: {shown}")


def detect_correction(text: str, prev_assistant: str | None = None,
                      patterns: CorrectionPatterns | None = None) -> CorrectionVerdict:
    """``analyse(text, prev_assistant).correction`` alone (``prev_assistant``: the end of the agent's
    previous reply, when the host gives it). Never raises: bad input is an ``empty`` verdict."""
    try:
        reading = _features.read(text, prev_assistant)
        return judge_correction(reading, _features.user_features(reading), patterns)
    except Exception as exc:  # noqa: BLE001 — a detector must never break a host
        return _verdict(False, "empty", 0.0, None, f"detector error: {type(exc).__name__}: {exc}")
