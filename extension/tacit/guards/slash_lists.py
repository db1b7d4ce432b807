"""Subcommands written as one slashed word: "never run git commit/push/pull/merge/rebase" ·
"don't run `npm install/update`" are a list of that program's commands, each its own rule.

``unslashed(clause)`` returns the clause with such a word spelt out as a list ("git commit,
git push, …, or git rebase"; quoted items stay quoted), or None when it has none. Pure.
"""

from __future__ import annotations

from tacit.lazyre import lazy
from tacit.guards.git_verbs import GIT_COMMANDS
from tacit.guards.words import _KNOWN_PROGRAMS

# a program, then two or more subcommand words joined by slashes (a quoted one ends at its backtick)
_SLASHED = lazy(r"(?P<q>`?)(?P<prog>[a-z][\w.-]*)\s+(?P<subs>[a-z][a-z-]{1,20}(?:/[a-z][a-z-]{1,20})+)(?P<end>`?)(?![\w/.-])")


def _spelt(m) -> str | None:
    prog, subs, q = m.group("prog"), m.group("subs").split("/"), m.group("q")
    if prog not in _KNOWN_PROGRAMS or q != m.group("end") or prog == "git" and not all(s in GIT_COMMANDS for s in subs):
        return None
    items = [f"{q}{prog} {s}{q}" for s in subs]
    return ", ".join(items[:-1]) + f", or {items[-1]}"


# "npm run dev/npm run build": a slash between two whole commands of one program
_CMD_SLASH = lazy(r"(?P<a>\b(?P<prog>[a-z][\w.-]*)\s+[\w:-]+(?:\s+[\w:-]+)?)/(?=(?P=prog)\s)")


def unslashed(clause: str) -> str | None:
    """``clause`` with "prog a/b/c" spelt out as "prog a, prog b, or prog c"; None when there is none."""
    if "/" not in clause:
        return None
    joined = _CMD_SLASH.search(clause)
    if joined and joined.group("prog") in _KNOWN_PROGRAMS:
        return _CMD_SLASH.sub(r"\g<a> or ", clause)
    m = _SLASHED.search(clause)
    spelt = _spelt(m) if m else None
    return clause[:m.start()] + spelt + clause[m.end():] if spelt else None
