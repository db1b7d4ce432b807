"""The one line an agent (or, for "ask", the user) reads when a guard fires: the lesson quoted
(one line, clipped to 200 characters), what to do instead, who said it and how to lift it; "ask"
reads as a question, "deny" as a stop (docs/guards.md, "The reason").
"""

from __future__ import annotations

from tacit.guards.match import Hit
from tacit.guards.shell import COMMANDS, MAX_CHARS

MAX_BECAUSE = 200


def _one_line(text, limit: int) -> str:
    text = " ".join(str(text).split()) if text is not None else ""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def reason(hit: Hit, *, date: str | None = None, guard_id=None, by_user: bool = True,
           action: str | None = None) -> str:
    """``tacit: stopped `npm install`, this project's rule: "…"; use pnpm instead (you said so on
    2026-12-01; to lift it: tacit guard remove 3)``; ``guard_id`` and ``action`` default to the guard's."""
    guard = hit.guard
    action = action if action in ("ask", "deny") else guard.action
    whose = "this project's rule" if guard.scope == "project" else "your rule"
    because = _one_line(guard.because, MAX_BECAUSE) or "(no reason recorded)"
    subject = _one_line(hit.subject, 80)
    what = f"`{subject}`" if hit.command else f"reading `{subject}`" if guard.kind == "path_read" else \
        f"a change to `{subject}`"
    instead = _one_line(guard.instead, 60) if guard.instead else ""
    tail = f"; use {instead} instead" if instead else ""
    said = "you said so" if by_user else "saved as a lesson"
    if date:
        said += f" on {_one_line(date, 40)}"
    source = guard.source if isinstance(guard.source, str) else ""
    if source.startswith("file:"):  # a rule line of the repository's AGENTS.md, CLAUDE.md …
        whose = f"this project's {_one_line(source[5:], 120)}"
        said = "from the repository's instructions"
    gid = guard_id if guard_id is not None else guard.id
    lift = f"; to lift it: tacit guard remove {_one_line(gid, 40)}" if gid is not None else ""
    if action == "ask":  # a lesson quoted with its own full stop needs no second one after the quote
        stop = "" if not tail and because[-1:] in ".!?" else "."
        return f'tacit: {what} goes against {whose} "{because}"{tail}{stop} Run it anyway? ({said}{lift})'
    return f'tacit: stopped {what}, {whose}: "{because}"{tail} ({said}{lift})'


def unread_reason(action: str) -> str:
    """Why a call the guards could not read whole (``Call.cut``) is stopped: asked, or denied and split."""
    said = (f"tacit: this call is too long for tacit to check whole against this project's guards (it reads "
            f"{MAX_CHARS:,} characters and {COMMANDS:,} commands of one call)")
    if action == "ask":
        return said + "; look at all of it before it runs. Run it anyway?"
    return said + "; split it into shorter calls (long data: write it with a file tool, then run the rest)."
