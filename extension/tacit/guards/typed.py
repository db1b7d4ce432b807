"""Cue words as people type them in a hurry ("nver", "dnt", "you're", "_never_") and a question
answered no ("`npm`? nope"), read before a lesson's clauses (:mod:`tacit.guards.clauses`)."""

from __future__ import annotations

import re

from tacit.lazyre import gate, lazy
from tacit.guards.words import verb_of

# a cue word as typed in a hurry: "nver", "dnt"
_TYPED_NEVER = lazy(r"\b(?:nver|nevr|nevar|nevver|neveer)\b", re.I)
_TYPED_DONT = lazy(r"\b(?:dnt|donot|do'nt|dont't)\b", re.I)
# "running `pnpm test`? no." · "npm? nope": the act asked about and refused
_ASKED_NO = lazy(r"^(?P<act>[^?\n]{2,200}?)\s*(?:\?+|\s=|:)\s*(?:no+|nope|nah|no way|never|hell no)\s*[.!]*\s*$", re.I)


# contractions the shapes read spelled out: "you're not allowed to", "`x` isn't allowed", "you cannot"
_CONTRACTED = {"you're": "you are", "we're": "we are", "isn't": "is not", "aren't": "are not", "cannot": "can't"}
_CONTRACTION = lazy(r"\b(?:you're|we're|isn't|aren't|cannot)\b", re.I)
# "_never_ X" · "*do not* X": emphasis on the cue word
_CUE_EMPHASIS = lazy(r"(?<![\w*])([*_])(never|not|no|don'?t|do not|must not|can'?t)\1(?![\w*])", re.I)


def typed_cues(text: str) -> str:
    """Cue words as typed: "nver" is "never", "dnt" "don't", "you're"
    "you are", "_never_" "never"."""
    text = _TYPED_DONT.sub("don't", _TYPED_NEVER.sub("never", text))
    text = _CONTRACTION.sub(lambda m: _CONTRACTED[m.group(0).lower()], text)
    return _CUE_EMPHASIS.sub(r"\2", text) if "*" in text or "_" in text else text


def _asked_no(m) -> str:
    act = m.group("act").strip()
    adverb = re.match(r"\w+ly\s+", act)  # "manually editing `x`? no."
    verb, _, rest = act[adverb.end() if adverb else 0:].partition(" ")
    base = verb_of(verb) if verb.lower().endswith("ing") else None
    return f"never {adverb.group(0) if adverb else ''}{base} {rest}".strip() if base else f"never {act}"


gate(_TYPED_NEVER, _TYPED_DONT, _CUE_EMPHASIS, _CONTRACTION, _ASKED_NO)
