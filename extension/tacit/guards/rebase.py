"""``git rebase`` onto a guarded branch (``RebaseMatch``): the new base is ``--onto``'s value, else
the first positional, from any remote (docs/guards.md, "never rebase onto BRANCH").
"""

from __future__ import annotations

from tacit.guards.model import RebaseMatch
from tacit.guards.push import GIT_VALUE_OPTS as _GIT_VALUE, names_branch
from tacit.guards.shell import Invocation, skip_options
_REBASE_VALUE = frozenset(("-s", "--strategy", "-X", "--strategy-option", "-x", "--exec"))
_NOT_A_REBASE = frozenset(("--continue", "--abort", "--skip", "--quit", "--edit-todo",
                           "--show-current-patch", "--help", "-h"))
_REMOTES = frozenset(("origin", "upstream"))


def rebase_base(argv: tuple) -> str | None:
    """The branch a ``git … rebase …`` argv rebases onto, or None."""
    i = skip_options(argv, 1, _GIT_VALUE)
    if i >= len(argv) or argv[i] != "rebase":
        return None
    rest = argv[i + 1:]
    if any(a in _NOT_A_REBASE for a in rest):
        return None
    j, n = 0, len(rest)
    first = None
    while j < n:
        a = rest[j]
        if a == "--onto" and j + 1 < n:
            return rest[j + 1]
        if a.startswith("--onto="):
            return a.split("=", 1)[1]
        if a == "--":
            break
        if first is None and not a.startswith("-"):
            first = a
        j += 2 if a in _REBASE_VALUE else 1
    return first


def _names(ref: str, remotes) -> set:
    names = {ref}
    for prefix in ("refs/heads/", "refs/remotes/"):
        if ref.startswith(prefix):
            ref = ref[len(prefix):]
            names.add(ref)
    head, _, tail = ref.partition("/")
    if tail and (head in _REMOTES or head in (remotes or ())):
        names.add(tail)
    return names


def rebase_fires(match: RebaseMatch, inv: Invocation, call=None) -> bool:
    """``git rebase`` whose new base is one of the guarded branches."""
    base = rebase_base(inv.argv) if inv.program == "git" else None
    if not base:
        return False
    names = _names(base, getattr(call, "remotes", None))
    return any(names_branch(b, names) for b in match.branches)
