"""Invisible characters: which ones can hide text, and which are ordinary writing.

The scanner blocks a text that holds one (``invisible_unicode``), and ``clean_for_context`` removes
them from anything tacit injects. Both use this module, so "invisible" means the same everywhere.

Design notes: docs/design/safety.md#tacitsafetyinvisible"""

from __future__ import annotations

import re
import unicodedata

INVISIBLE_CHARS = (
    "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff"
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# one listed character, or a run of tag characters (reported as one hit)
INVISIBLE = re.compile(f"[{INVISIBLE_CHARS}]|[\U000e0000-\U000e007f]+")
ZWNJ, ZWJ = "\u200c", "\u200d"
BLACK_FLAG = "\U0001f3f4"


def _is_pictographic(ch: str) -> bool:
    cp = ord(ch)
    return 0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF or 0x2B00 <= cp <= 0x2BFF or 0x2300 <= cp <= 0x23FF


def _is_joining_script(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x0600 <= cp <= 0x06FF or 0x0750 <= cp <= 0x077F or 0x08A0 <= cp <= 0x08FF
        or 0x0900 <= cp <= 0x0DFF or 0xFB50 <= cp <= 0xFDFF or 0xFE70 <= cp <= 0xFEFC
    )


def legitimate(text: str, start: int, end: int) -> bool:
    """True when ``text[start:end]`` (one ``INVISIBLE`` match) is visible writing: a ZWJ inside an emoji
    sequence, a ZWJ/ZWNJ between Arabic-script or Indic letters, tags making a subdivision flag."""
    run = text[start:end]
    if run[0] >= "\U000e0000":
        return (
            start > 0 and text[start - 1] == BLACK_FLAG and 2 <= len(run) <= 7 and run[-1] == "\U000e007f"
            and all("\U000e0030" <= c <= "\U000e0039" or "\U000e0061" <= c <= "\U000e007a" for c in run[:-1])
        )
    if run not in (ZWJ, ZWNJ) or start == 0 or end >= len(text):
        return False
    before, after = text[start - 1], text[end]
    if _is_joining_script(before) and _is_joining_script(after):
        return True
    if run == ZWJ:
        i = start - 1
        # skip a variation selector or skin-tone modifier on the emoji before the joiner
        while i > 0 and (text[i] == "\ufe0f" or "\U0001f3fb" <= text[i] <= "\U0001f3ff"):
            i -= 1
        return _is_pictographic(text[i]) and _is_pictographic(after)
    return False


def first_hidden(text: str):
    """The first ``INVISIBLE`` match that is not visible writing, or None."""
    if text.isascii():
        return None
    return next((m for m in INVISIBLE.finditer(text) if not legitimate(text, m.start(), m.end())), None)


def reason(ch: str) -> str:
    """A one-line description of an invisible character."""
    cp = ord(ch)
    if 0xE0000 <= cp <= 0xE007F:
        return "hidden Unicode tag characters (U+E0000 block), which can smuggle invisible text"
    kind = "bidirectional control character" if (0x202A <= cp <= 0x202E or 0x2066 <= cp <= 0x2069) \
        else "invisible character"
    return f"{kind} U+{cp:04X} {unicodedata.name(ch, '')}".rstrip()
