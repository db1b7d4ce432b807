"""The configurable correction pattern lists (the original design's negative → strong → weak rule).

Users tune ``correction_strong_patterns``, ``correction_weak_patterns``,
``correction_negative_patterns`` and ``correction_directive_words`` in config; this module compiles
them (invalid regexes reported, never fatal) and runs the original rule over a message.

Design notes: docs/design/detect.md#tacitdetectpatterns"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tacit.detect.text import DROP_APOSTROPHE

# Two deliberate narrowings, documented in docs/corrections.md: "please don't hesitate/worry" is not
# a correction, and "no need" is only an approval when it is not "no need for X / to <verb>".
DEFAULT_STRONG_PATTERNS: tuple[str, ...] = (
    r"don'?t do that",
    r"not like that",
    r"^i said\b",
    r"^i told you\b",
    r"we already discussed",
    r"^please don'?t\b(?!\s+(?:hesitate|worry|be sorry|apologi[sz]e))",
    r"^that'?s not what i\b",
)
DEFAULT_WEAK_PATTERNS: tuple[str, ...] = (r"^no\b", r"^wrong\b", r"^actually\b", r"^stop\b")
DEFAULT_NEGATIVE_PATTERNS: tuple[str, ...] = (
    r"^no (?:worries|problem|thanks)\b",
    r"^no need\b(?!\s+(?:for\b|to\s+(?!worry|apologi[sz]e|thank|be sorry|rush|hurry)))",
    r"^actually\b[\s,]*(?:(?:that|this|it)(?:'?s| is| was| looks)?\s+)?(?:looks?\s+|is\s+)?"
    r"(?:really\s+|pretty\s+|totally\s+)?(?:great|perfect|good|correct|right|fine)\b",
    r"^stop (?:there|here|for now)\b",
)
# A weak opener counts only when a directive follows it ("no, use pnpm"). Additive verbs ("add",
# "also") are left out on purpose: "actually, also add a test" is a new request, not a correction.
DEFAULT_DIRECTIVE_WORDS: tuple[str, ...] = (
    "use", "don't", "do not", "never", "always", "should", "must", "instead", "rather",
    "keep", "put", "revert", "undo", "leave", "remove", "go back", "change it", "switch",
    "prefer", "meant", "wanted", "supposed to", "needs to", "has to", "not", "only",
)

_SETTING_KEYS = {
    "strong": "correction_strong_patterns",
    "weak": "correction_weak_patterns",
    "negative": "correction_negative_patterns",
}
_ALL_KEYS = (*_SETTING_KEYS.values(), "correction_directive_words")


@dataclass(frozen=True, slots=True)
class CorrectionPatterns:
    """Compiled pattern lists for the original negative/strong/weak rule."""

    strong: tuple[re.Pattern, ...]
    weak: tuple[re.Pattern, ...]
    negative: tuple[re.Pattern, ...]
    directive_words: tuple[str, ...]
    problems: tuple[str, ...] = ()
    directive: re.Pattern | None = None  # the directive words as one regex


_OPTIONAL_APOSTROPHE = re.compile(r"['\u2019](?![?*+{])")
_SPACES = re.compile(r"\s+")


def _norm_word(word: str) -> str:
    return _SPACES.sub(" ", word.strip().lower().replace("\u2019", "'").replace("'", ""))


def _compile_list(key: str, configured: tuple, defaults: tuple[str, ...],
                  problems: list[str]) -> tuple[re.Pattern, ...]:
    compiled: list[re.Pattern] = []
    for pattern in configured or defaults:
        if not isinstance(pattern, str):
            problems.append(f"{key}: {pattern!r} is not a string (ignored)")
            continue
        try:
            compiled.append(re.compile(_OPTIONAL_APOSTROPHE.sub("'?", pattern), re.IGNORECASE | re.MULTILINE))
        except re.error as exc:
            problems.append(f"invalid regex in {key}: {pattern!r}: {exc} (ignored)")
    if not compiled:
        # every configured pattern was bad: silently disabling the list would
        # be worse than the defaults the user started from
        problems.append(f"{key}: no valid pattern left; using the built-in list")
        compiled = [re.compile(p, re.IGNORECASE | re.MULTILINE) for p in defaults]
    return tuple(compiled)


@lru_cache(maxsize=32)
def _compile_cached(strong: tuple, weak: tuple, negative: tuple, directive: tuple,
                    problems_in: tuple) -> CorrectionPatterns:
    problems: list[str] = list(problems_in)
    lists = (("strong", strong, DEFAULT_STRONG_PATTERNS), ("weak", weak, DEFAULT_WEAK_PATTERNS),
             ("negative", negative, DEFAULT_NEGATIVE_PATTERNS))
    strong_c, weak_c, negative_c = (_compile_list(_SETTING_KEYS[kind], given, defaults, problems)
                                    for kind, given, defaults in lists)
    words: list[str] = []
    for word in directive or DEFAULT_DIRECTIVE_WORDS:
        if isinstance(word, str) and _norm_word(word):
            words.append(_norm_word(word))
        else:
            problems.append(f"correction_directive_words: {word!r} is not a word (ignored)")
    words = list(dict.fromkeys(words or (_norm_word(w) for w in DEFAULT_DIRECTIVE_WORDS)))
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    directive_re = re.compile(r"(?<![a-z])(?:" + alternatives + r")(?![a-z])")
    return CorrectionPatterns(strong_c, weak_c, negative_c, tuple(words), tuple(problems), directive_re)


def _as_tuple(key: str, value: Any, problems: list[str]) -> tuple:
    if value is None or value == [] or value == ():
        return ()
    if isinstance(value, str) or not isinstance(value, Iterable):
        problems.append(f"{key}: expected a list of regex strings, got {value!r}; using defaults")
        return ()
    try:
        return tuple(value)
    except TypeError:
        return ()


def compile_patterns(strong: Iterable[str] | None = None, weak: Iterable[str] | None = None,
                     negative: Iterable[str] | None = None,
                     directive_words: Iterable[str] | None = None) -> CorrectionPatterns:
    """Compile pattern lists; an empty or missing list means the built-in one."""
    problems: list[str] = []
    args = tuple(_as_tuple(key, value, problems)
                 for key, value in zip(_ALL_KEYS, (strong, weak, negative, directive_words)))
    try:
        return _compile_cached(*args, tuple(problems))
    except TypeError:  # an unhashable item in a list: compile without the cache
        return _compile_cached.__wrapped__(*args, tuple(problems))


def patterns_from_config(cfg: Any) -> CorrectionPatterns:
    """Patterns from a Config (attributes) or a plain mapping of settings."""
    return compile_patterns(*(cfg.get(name) if isinstance(cfg, Mapping) else getattr(cfg, name, None)
                              for name in _ALL_KEYS))


def default_patterns() -> CorrectionPatterns:
    return compile_patterns()


@dataclass(frozen=True, slots=True)
class OriginalHit:
    """What the original rule found: ``kind`` is negative | strong | weak+directive."""

    kind: str
    matched: str


def original_rule(lower: str, patterns: CorrectionPatterns) -> OriginalHit | None:
    """negative → strong → weak+directive over ``lower`` (lowercase; one
    sentence per line so that ``^`` is a sentence start)."""
    bare = DROP_APOSTROPHE.sub("", lower)
    for kind, group in (("negative", patterns.negative), ("strong", patterns.strong)):
        for pattern in group:
            for text in (lower, bare):
                match = pattern.search(text)
                if match:
                    return OriginalHit(kind, match.group(0))
    for pattern in patterns.weak:
        for text in (bare, lower):
            match = pattern.search(text)
            if not match:
                continue
            rest = DROP_APOSTROPHE.sub("", text[match.end():])
            directive = patterns.directive.search(rest) if patterns.directive else None
            if directive:
                return OriginalHit("weak+directive", f"{match.group(0)} … {directive.group(0)}")
    return None
