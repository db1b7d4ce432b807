"""Features of one user message (with the agent's previous reply) for the learned scorers.

:func:`user_features` reads a message once and returns named features; the
models in :mod:`tacit.detect.model` weigh them. The same function runs in
training (``tests/benchmarks/train_detectors.py``) and at run time, so the
two cannot drift apart.

Design notes: docs/design/detect.md#tacitdetectfeatures
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tacit.lazyre import lazy
from tacit.detect import cues as _cues
from tacit.detect.markers import DurableMarkers, durable_markers
from tacit.detect.patterns import OriginalHit, default_patterns, original_rule
from tacit.detect.text import (
    PLACEHOLDER,
    clean,
    content_tokens,
    focus_text,
    looks_like_agent_prompt,
    sentences,
    strip_quoted,
    words,
)

__all__ = ["MessageReading", "read", "user_features"]

#: n-grams come from at most this many leading and trailing words
HEAD_WORDS, TAIL_WORDS = 48, 16

_NUM = lazy(r"^\d[\d.,:x]*$")
_TERSE_CONTRAST = lazy(
    r"^(?:no+[,.!]?\s+|nope[,.!]?\s+|its\s+|use\s+|it should be\s+|should be\s+)?"
    r"(?P<a>[\w@#.+/:-]+(?:\s[\w@#.+/:-]+)?)\s*,?\s+(?:not|instead of|over|rather than)\s+"
    r"(?P<b>[\w@#.+/:-]+(?:\s[\w@#.+/:-]+)?)(?:\s+(?:here|please|pls|thanks|thx|in this (?:repo|project)))?[.!]*$")
_NEGATION = lazy(r"\b(?:not|dont|do not|no|never|wrong|isnt|didnt|doesnt|wasnt|arent|cant|shouldnt|stop)\b")
_PREV_CLAIMS_FIX = lazy(
    r"\b(?:fixed|should (?:now )?(?:work|be fixed|be resolved)|now (?:works|work|shows|loads|renders|returns)|"
    r"is now|are now|resolved|works now|done|try (?:it )?(?:again|now)|refresh)\b")
_PREV_IN_PROGRESS = lazy(r"\b(?:let me|ill|i will|im going to|now i|next i|first i)\b")
_PREV_CHOICE = lazy(r"\b(?:option|which|prefer|would you like|do you want|or)\b[^?]*\?\s*$")
_YOU = lazy(r"\b(?:you|your|youre|youve)\b")
_I_WANT = lazy(r"\bi (?:want|need|wanted|meant|asked|said|told)\b")
_PASTE = lazy(r"\[pasted text|\[image #?\d|<image>|@\S+\.\w+")
_UPPER_WORD = lazy(r"\b[A-Z]{3,}\b")
_FRUSTRATION = lazy(r"\b(?:wtf|seriously|ugh+|come on|again|annoying|terrible|awful|horrible|useless|stupid|"
                          r"ridiculous|frustrat\w*|bro|dude|omg|jesus|fucking|fuck|damn|crap|nonsense|sigh)\b|!!|\?\?")
_YOU_PAST = lazy(r"\b(?:you|u)(?: just| also| still| again| even)? (?:\w+ed|did|made|put|broke|took|wrote|"
                       r"left|ran|set|got)\b")
_STILL = lazy(r"\bstill\b")


@dataclass(frozen=True, slots=True)
class MessageReading:
    """One message read once; what every detector needs from it."""

    raw: str  # cleaned input (bounded, surrogates replaced)
    focus: str  # quotes, code and logs removed; long messages cut to their edges
    lower: str
    bare: str
    prev: str | None
    msg: _cues.Message | None  # None when there is nothing to judge
    hits: tuple  # correction cue hits (name, weight, firm, matched)
    contrast: _cues.Contrast | None
    signals: _cues.Signals | None
    heuristic: float  # the hand-tuned correction scorer, 0..1
    markers: DurableMarkers
    skipped: str | None  # "empty" | "agent-prompt" | "quoted-only" | None
    english: bool
    original: OriginalHit | None = None  # the original rule with the built-in lists
    n_words: int = 0


def _is_english(text: str) -> bool:
    letters = [c for c in text[:2000] if c.isalpha()]
    if not letters:
        return True
    ascii_letters = sum(1 for c in letters if c.isascii())
    return ascii_letters >= 0.8 * len(letters)


_EMPTY_MARKERS = durable_markers("")


def read(text: object, prev_assistant: object = None) -> MessageReading:
    """Read a message once (never raises on odd input)."""
    raw = clean(text)
    prev = clean(prev_assistant) or None
    if not raw.strip():
        return MessageReading(raw, "", "", "", prev, None, (), None, None, 0.0, _EMPTY_MARKERS, "empty", True)
    if looks_like_agent_prompt(raw):
        return MessageReading(raw, "", "", "", prev, None, (), None, None, 0.0, _EMPTY_MARKERS,
                              "agent-prompt", True)
    stripped = strip_quoted(raw)
    focus = focus_text(stripped)
    if not focus.strip(" \n\u2026"):
        return MessageReading(raw, "", "", "", prev, None, (), None, None, 0.0, _EMPTY_MARKERS,
                              "quoted-only", _is_english(raw))
    msg = _cues.read_message(focus, prev)
    lower, bare = msg.lower, msg.bare
    approval = _cues.approval_turn(msg)
    hits = tuple(_cues.cue_hits(msg))
    contrast = _cues.contrast_cue(msg)
    sig = _cues.signals(msg, approval)
    heuristic = _cues.heuristic_score(msg, list(hits), contrast, sig)
    markers = durable_markers(focus)
    original = original_rule("\n".join(sentences(lower)), default_patterns())
    return MessageReading(raw, focus, lower, bare, prev, msg, hits, contrast, sig, heuristic, markers, None,
                          _is_english(focus), original, len(words(bare)))


def _bucket(n: int, edges: tuple[int, ...]) -> str:
    for edge in edges:
        if n <= edge:
            return f"<={edge}"
    return f">{edges[-1]}"


def user_features(reading: MessageReading) -> dict[str, float]:
    """Named features of a read message (see module doc)."""
    f: dict[str, float] = {}
    if reading.skipped:
        f["skip=" + reading.skipped] = 1.0
        return f
    msg = reading.msg
    bare = reading.bare
    tokens = ["#num" if _NUM.match(t) else t for t in words(bare)]
    n = len(tokens)
    view = tokens if n <= HEAD_WORDS + TAIL_WORDS else tokens[:HEAD_WORDS] + tokens[-TAIL_WORDS:]
    for t in set(view):
        f["w=" + t] = 1.0
    for a, b in set(zip(view, view[1:])):
        f[f"b={a}_{b}"] = 1.0
    if tokens:
        f["first=" + tokens[0]] = 1.0
        f["first2=" + "_".join(tokens[:2])] = 1.0
        f["last=" + tokens[-1]] = 1.0
    f["len" + _bucket(n, (2, 5, 10, 20, 40, 80))] = 1.0
    if reading.focus.count("\n") >= 3:
        f["lines>=4"] = 1.0
    if len(reading.raw) > 2 * max(1, len(reading.focus)):
        f["mostly-pasted"] = 1.0
    if PLACEHOLDER.strip() in reading.focus:
        f["has-quote"] = 1.0
    if _PASTE.search(reading.raw[:2000].lower()):
        f["paste-or-file-ref"] = 1.0
    if reading.focus.rstrip().endswith("?"):
        f["ends-?"] = 1.0
    if "!" in reading.focus:
        f["has-!"] = 1.0
    if len(_UPPER_WORD.findall(reading.focus[:600])) >= 2:
        f["shouting"] = 1.0
    if not reading.english:
        f["not-english"] = 1.0

    # correction cues and signals
    for name, _weight, firm, _matched in reading.hits:
        f["cue=" + name] = 1.0
        if firm:
            f["cue-firm"] = 1.0
    if reading.hits:
        f["cues" + _bucket(len(reading.hits), (1, 2, 3))] = 1.0
    c = reading.contrast
    if c is not None:
        f["contrast=" + c.kind] = 1.0
        if c.in_prev:
            f["contrast-in-prev"] = 1.0
    terse = _TERSE_CONTRAST.match(bare) if n <= 10 else None
    if terse:
        f["terse-contrast"] = 1.0
        if reading.prev and content_tokens(terse.group("b")) & content_tokens(msg.prev_bare):
            f["terse-contrast-in-prev"] = 1.0
    sig = reading.signals
    for name, on in (("bug", msg.bug), ("request", msg.request), ("question", msg.is_question),
                     ("approval", sig.approval), ("curious", sig.curious), ("own-doing", sig.own_doing),
                     ("opens-task", sig.opens_task), ("repeated", sig.repeated)):
        if on:
            f["sig=" + name] = 1.0
    f["heuristic"] = reading.heuristic
    if reading.heuristic >= 0.5:
        f["heuristic>=0.5"] = 1.0
    if reading.original is not None:
        f["orig=" + reading.original.kind] = 1.0
    negated = bool(_NEGATION.search(bare))
    if negated:
        f["negation"] = 1.0
    if _YOU.search(bare):
        f["you"] = 1.0
    if _FRUSTRATION.search(bare):
        f["frustration"] = 1.0
    if _YOU_PAST.search(bare):
        f["you-past"] = 1.0
    if _STILL.search(bare):
        f["still"] = 1.0
    if _I_WANT.search(bare):
        f["i-want"] = 1.0

    # the agent's previous reply
    if not reading.prev:
        f["prev=none"] = 1.0
    else:
        prev_bare = msg.prev_bare
        if msg.prev_asks:
            f["prev=asks"] = 1.0
            if _PREV_CHOICE.search(prev_bare[-300:]):
                f["prev=offers-choice"] = 1.0
                if n <= 12:
                    f["short-answer-to-choice"] = 1.0
        if msg.prev_acted:
            f["prev=acted"] = 1.0
        if _PREV_CLAIMS_FIX.search(prev_bare[-400:]):
            f["prev=claims-fix"] = 1.0
        if _PREV_IN_PROGRESS.search(prev_bare[-200:]):
            f["prev=in-progress"] = 1.0
        mine = content_tokens(bare)
        if mine:
            share = len(mine & content_tokens(prev_bare)) / len(mine)
            f["overlap" + ("=0" if share == 0 else "<0.3" if share < 0.3 else ">=0.3")] = 1.0
        if negated and msg.prev_acted:
            f["negation&prev-acted"] = 1.0
        if reading.hits and msg.prev_acted:
            f["cue&prev-acted"] = 1.0
        if msg.bug and "prev=claims-fix" in f:
            f["bug&prev-claims-fix"] = 1.0

    # durable-statement markers
    m = reading.markers
    for category, found in m.found.items():
        if found:
            f["m=" + category] = 1.0
            if len(found) > 1:
                f["m2=" + category] = 1.0
    if m.boosts:
        f["m-boost"] = 1.0
    if m.emphasis:
        f["m-emphasis"] = 1.0
    if m.remember:
        f["m-remember"] = 1.0
    if m.transient:
        f["m-transient"] = 1.0
    if m.approval_only:
        f["m-approval-only"] = 1.0
    if m.default_category:
        f["m-default=" + m.default_category] = 1.0
    f["m-rule=" + m.rule_category] = 1.0
    kinds = set(m.kinds)
    if kinds == {"task"}:
        f["kinds=task-only"] = 1.0
    elif kinds == {"question"}:
        f["kinds=question-only"] = 1.0
    elif "statement" in kinds:
        f["kinds=has-statement"] = 1.0
    return f
