"""Text shown to a person in one line: white space folded, clipped with an ellipsis."""

from __future__ import annotations


def clip(text, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters (the last one ``…`` when cut)."""
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
