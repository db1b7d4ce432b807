"""``git merge`` into a guarded branch (``MergeMatch``): a merge run while that branch is checked
out (the call's branch, or the one a ``git checkout main &&`` before it left), and ``gh pr merge``
for a rule about ``main``/``master`` unless it says "locally" (docs/guards.md, "never merge to main").
"""

from __future__ import annotations

from tacit.guards.commands import _git_sub, _is_info
from tacit.guards.model import MergeMatch
from tacit.guards.paths import _below
from tacit.guards.push import GIT_VALUE_OPTS, names_branch
from tacit.guards.shell import Invocation, skip_options

# a pull request goes to the default branch unless told otherwise: a rule about it holds for `gh pr merge`
_DEFAULT_BRANCHES = frozenset(("main", "master"))
_GH_VALUE_OPTS = frozenset(("-R", "--repo"))
_MERGE_VALUE_OPTS = frozenset(("-m", "-F", "--file", "-s", "--strategy", "-X", "--strategy-option", "--into-name"))
_UPSTREAM = frozenset(("@{u}", "@{upstream}", "FETCH_HEAD"))


def on_branch(inv: Invocation, call, branches: tuple) -> bool:
    """A git invocation run in the call's own checkout (no ``-C``) while one of ``branches`` is checked out."""
    if inv.program != "git" or not call.branch or not inv.cwd_exact \
            or not any(names_branch(b, (call.branch,)) for b in branches):
        return False
    home = call.project_root or call.cwd
    if inv.cwd is None or home is None or _below(inv.cwd, home) is None:
        return False
    return "-C" not in inv.argv[1:skip_options(inv.argv, 1, GIT_VALUE_OPTS)]


def merge_fires(match: MergeMatch, inv: Invocation, call) -> bool:
    """``git merge`` on a guarded branch, or (not "locally") ``gh pr merge`` for a rule about main."""
    if inv.program == "gh":
        i = skip_options(inv.argv, 1, _GH_VALUE_OPTS)
        return (not match.local_only and bool(_DEFAULT_BRANCHES & set(match.branches))
                and inv.argv[i:i + 2] == ("pr", "merge") and not _is_info(inv.argv, "gh"))
    return (inv.program == "git" and _git_sub(inv.argv) == "merge" and not _is_info(inv.argv, "git")
            and on_branch(inv, call, match.branches) and not _syncs(inv.argv, call.branch))


def _syncs(argv: tuple, branch: str) -> bool:
    """``git merge`` of the branch's own upstream (``origin/main`` on main, ``@{u}``, none named): a pull's
    second half, which brings in what the branch already has elsewhere, not other work."""
    i = skip_options(argv, 1, GIT_VALUE_OPTS) + 1
    refs = []
    while i < len(argv):
        a = argv[i]
        if a == "--":
            refs.extend(argv[i + 1:])
            break
        i += 2 if a in _MERGE_VALUE_OPTS else 1
        if not a.startswith("-"):
            refs.append(a)
    return all(r in _UPSTREAM or r.count("/") >= 1 and r.split("/", 1)[1] == branch for r in refs)
