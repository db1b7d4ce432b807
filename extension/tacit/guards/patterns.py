"""The patterns of ``tacit guard add``: a command's words or a kind's prefix (``path:``, ``read:``,
``push:``, ``force-push:``, ``merge:``, ``sudo``, ``pipe``, ``sql:``) as a guard spec (docs/guards.md)."""

from __future__ import annotations

from tacit.guards.derive import MAX_LESSON_CHARS, _run
from tacit.guards.model import (SQL_STATEMENTS, GuardSpec, MergeMatch, PathMatch, PipeMatch, PushMatch, ReadMatch,
                                SqlMatch, SudoMatch)
from tacit.guards.words import _BRANCH_GLOB, _BRANCH_WORD

#: the branches ``merge`` with no branch guards: a PR's usual bases
MERGE_BRANCHES = ("main", "master")


def spec_from_pattern(pattern, because, *, instead: str | None = None,
                      action: str = "ask") -> GuardSpec | None:
    """What ``tacit guard add PATTERN --because …`` adds: ``path:GLOB[,GLOB]``, ``read:GLOB[,GLOB]``,
    ``push[:BRANCH,…]``, ``force-push[:BRANCH]``, ``merge[:BRANCH,…]``, ``sudo``, ``pipe``,
    ``sql:STATEMENT[,…]`` or a command's words (``git push --no-verify``); None when the pattern is
    malformed or ``because`` is empty."""
    if not isinstance(pattern, str) or not isinstance(because, str) or action not in ("ask", "deny"):
        return None
    pattern = " ".join(pattern.split())
    because = " ".join(because.split())[:MAX_LESSON_CHARS]
    if not pattern or not because:
        return None
    low = pattern.lower()
    kind, _, rest = pattern.partition(":")
    items = tuple(p.strip() for p in rest.split(",") if p.strip()) if ":" in pattern else ()
    if low.startswith(("path:", "read:")):
        if not items or any(".." in p.split("/") for p in items):
            return None
        match = PathMatch(items) if low.startswith("path:") else ReadMatch(items)
        return GuardSpec(match, because, instead, action)
    if low in ("push", "force-push", "merge") or low.startswith(("push:", "force-push:", "merge:")):
        if any(not (_BRANCH_WORD.fullmatch(b) or _BRANCH_GLOB.fullmatch(b)) for b in items):
            return None
        if kind.lower() == "merge":
            return GuardSpec(MergeMatch(items or MERGE_BRANCHES), because, instead, action)
        return GuardSpec(PushMatch(items, kind.lower() == "force-push"), because, instead, action)
    if low in ("sudo", "pipe"):
        return GuardSpec(SudoMatch() if low == "sudo" else PipeMatch(), because, instead, action)
    if low.startswith("sql:"):
        statements = tuple(s.replace(" ", "_").replace("-", "_") for s in items)
        if not statements or not set(statements) <= set(SQL_STATEMENTS):
            return None
        return GuardSpec(SqlMatch(statements), because, instead, action)
    spec = _run(f"never run `{pattern}`", because)
    return GuardSpec(spec.match, because, instead, action) if spec else None
