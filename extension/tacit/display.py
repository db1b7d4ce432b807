"""Text shown to a person: in one line (white space folded, clipped with an ellipsis), and safe to
print on a terminal."""

from __future__ import annotations

import re

# escape sequences (CSI, OSC, the rest) and control characters but \t and \n: a team MEMORY.md, a
# skill or an AGENTS.md line a clone brought must not move the cursor, retitle or clear the terminal
_TERMINAL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -~]?"
                       r"|\x9b[0-?]*[ -/]*[@-~]|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_OWN = ("\x1b[1m", "\x1b[0m")  # the bold of `tacit search` on a terminal


def clip(text, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters (the last one ``…`` when cut)."""
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def middle(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, cut in the middle (``mcp__pl…browser_click``): the
    head says whose, the tail says what."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return text[:limit]
    head = (limit - 1) * 2 // 5
    return text[:head] + "…" + text[len(text) - (limit - 1 - head):]


# a time-ordered UUID (v6, v7: Codex's and pi's): its head is the time it was made, to 65 s (8 characters)
_TIME_ORDERED = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[67][0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


def session_label(session_id: str, width: int = 8) -> str:
    """A session id to print, so two are told apart: its head (a random UUID's); all of one whose head
    is a date (Hermes's ``20261207_200615_ab12cd``: every session of a day has that head); the random
    tail of a time-ordered UUID (Codex's, pi's: sessions started within a minute share its head)."""
    if session_id[:8].isdigit():
        return session_id[:40]
    if _TIME_ORDERED.fullmatch(session_id):
        return "…" + session_id[-width:]
    return session_id[:width]


def printable(text: str) -> str:
    """``text`` without terminal escape sequences and control characters (``\\t``, ``\\n`` and tacit's
    own bold kept), its hidden characters shown (``<U+202E>``)."""
    if not text.isascii():
        text = hidden_shown(text)
    if text.isprintable() or _TERMINAL.search(text) is None:
        return text
    return _TERMINAL.sub(lambda m: m.group() if m.group() in _OWN else "", text)


def hidden_shown(text: str) -> str:
    """Each character that hides or reorders text (a bidi override, a zero-width space: what the
    scanner refuses) as ``<U+XXXX>``, so the person sees what an entry holds; visible writing (a ZWJ
    in an emoji) is kept. Shown raw, a U+202E printed an entry's words in reverse."""
    from tacit.safety.invisible import INVISIBLE, legitimate  # only for text that is not ASCII

    return INVISIBLE.sub(lambda m: m.group() if legitimate(text, m.start(), m.end())
                         else "".join(f"<U+{ord(c):04X}>" for c in m.group()), text)
