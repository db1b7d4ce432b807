"""A new branch named outside the project's convention (``BranchNameMatch``): "Use the branch naming
convention `claude/<branch-name>`" stops ``git checkout -b fix-x`` and passes ``git switch -c claude/fix-x``
(docs/guards.md, "Branch names"). ``branch_name_specs`` reads the rule; ``branch_name_fires`` checks a call.
"""

from __future__ import annotations

import fnmatch
import re

from tacit.lazyre import lazy
from tacit.guards.model import BranchNameMatch, GuardSpec
from tacit.guards.push import GIT_VALUE_OPTS
from tacit.guards.shell import Invocation, skip_options

_CREATE = frozenset(("-b", "-B", "-c", "-C", "--create", "--force-create", "--orphan"))
_NOT_NEW = frozenset(("-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-l", "--list", "-a", "--all",
                      "-r", "--remotes", "-v", "-vv", "--verbose", "--show-current", "--contains", "--merged",
                      "--no-merged", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-h", "--help"))
# "use the branch naming convention `claude/<name>`" · "name branches `users/<alias>/<feature>`" · "branch names must
# start with `feature/`" · "prefix branches with `codex/`"
_BRANCH_RULE = [lazy(p, re.I) for p in (
    r"(?:always\s+)?(?:use|follow)\s+the\s+(?:git\s+)?branch(?:[- ]naming)?\s+(?:naming\s+)?(?:convention|scheme|pattern|format)"
    r"\s*:?\s+`(?P<p>[^`]+)`",
    r"(?:always\s+)?name\s+(?:your\s+|new\s+|all\s+|git\s+)*branches\s+(?:as\s+|like\s+)?(?:`(?P<p>[^`]+)`|(?P<u>[\w.-]+/[^\s,;]*))"
    r"(?:\s*,?\s*(?:and\s+)?(?:not|never|nothing)\s+(?:anything\s+)?else)?",
    r"(?:new\s+|all\s+|your\s+|git\s+)*branch(?:es)?\s+names?\s+(?:must|should|have to|need to)\s+(?:always\s+)?"
    r"(?:start|begin)\s+with\s+`(?P<p>[^`]+)`",
    r"(?:always\s+)?prefix\s+(?:your\s+|new\s+|all\s+)*branch(?:es|\s+names)?\s+with\s+`(?P<p>[^`]+)`",
)]


def _glob(pattern: str, prefix: bool) -> str | None:
    """`claude/<branch-name>` → ``claude/*``; `users/<alias>/<feature>` → ``users/*/*``; a prefix → prefix*."""
    p = re.sub(r"<[^<>]+>|\{[^{}]+\}|\[[^\[\]]+\]|\.\.\.|\u2026", "*", pattern.strip())
    p = re.sub(r"\*+", "*", p)
    if prefix or not p.endswith("*"):
        p = p if p.endswith("*") else p + "*"
    if not re.fullmatch(r"[\w./*-]+", p) or not re.match(r"[\w.-]", p) or "/" not in p.rstrip("*") and not prefix:
        return None  # a convention names a prefix folder (`claude/…`), not a whole name
    return p


def branch_name_specs(clause: str, because: str) -> list:
    """The branch-name guard a rule clause states, or ``[]``."""
    for i, pattern in enumerate(_BRANCH_RULE):
        m = pattern.fullmatch(clause)
        if m:
            glob = _glob(m.group("p") or m.groupdict().get("u") or "", prefix=i >= 2)
            return [GuardSpec(BranchNameMatch((glob,)), because)] if glob else []
    return []


def new_branch(argv: tuple) -> str | None:
    """The name of the branch a ``git checkout -b`` / ``switch -c`` / ``branch`` / ``worktree add -b`` argv makes."""
    i = skip_options(argv, 1, GIT_VALUE_OPTS)
    if i >= len(argv):
        return None
    sub, words = argv[i], argv[i + 1:]
    if sub in ("checkout", "switch") or sub == "worktree" and words[:1] == ("add",):
        for j, a in enumerate(words):
            if a in _CREATE and j + 1 < len(words):
                return words[j + 1]
        return None
    if sub == "branch" and not any(a in _NOT_NEW or a.startswith(("--list", "--format", "--sort", "--points-at"))
                                   for a in words):
        names = [a for a in words if not a.startswith("-")]
        return names[0] if names else None
    return None


def branch_name_fires(match: BranchNameMatch, inv: Invocation, call=None) -> bool:
    """A git command that makes a branch whose name matches none of the allowed patterns."""
    name = new_branch(inv.argv) if inv.program == "git" else None
    return bool(name) and not any(fnmatch.fnmatchcase(name, p) for p in match.allowed)
