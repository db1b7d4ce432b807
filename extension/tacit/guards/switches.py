"""Not switching branches ("never switch branches", "never checkout another branch"): ``SwitchMatch`` stops a
``git checkout``/``git switch`` that leaves the branch checked out, onto another one or a new one
(``-b x``: the work goes on elsewhere), or a detached HEAD; not ``git checkout -- file`` or
``git checkout src/a.ts`` (files restored), not a checkout of the branch already current, not one in
another checkout (``git -C other``). A rule with a case ("when starting a task", "in another agent's
directory") is not read: the check cannot see it. Pure."""

from __future__ import annotations

import re

from tacit.guards.commands import _git_sub, _is_info
from tacit.guards.model import GuardSpec, SwitchMatch
from tacit.guards.push import GIT_VALUE_OPTS, SAME, switched_branch
from tacit.guards.shell import Invocation, skip_options
from tacit.guards.words import _DONT
from tacit.lazyre import lazy

_OTHER = r"(?:(?:to|onto|into)\s+)?(?:(?:an?other|other|a\s+different|different|new)\s+)?"
_SWITCH = lazy(rf"{_DONT}\s+(?:(?:switch|change|swap)\s+(?:git\s+)?(?:branches|{_OTHER}branch(?:es)?)|"
               rf"(?:git\s+)?check\s?out\s+(?:(?:an?other|other|a\s+different|different)\s+branch(?:es)?|branches))",
               re.I)


def switch_rule(sentence: str, because: str) -> GuardSpec | None:
    """The guard of a rule against leaving the branch checked out."""
    return GuardSpec(SwitchMatch(), because) if _SWITCH.fullmatch(sentence) else None


def switch_fires(match: SwitchMatch, inv: Invocation, call) -> bool:
    """``git checkout``/``git switch`` in the call's own checkout that leaves its branch."""
    if inv.program != "git" or _git_sub(inv.argv) not in ("checkout", "switch") or _is_info(inv.argv, "git"):
        return False
    if "-C" in inv.argv[1:skip_options(inv.argv, 1, GIT_VALUE_OPTS)]:
        return False  # another checkout's branch
    to = switched_branch(inv.argv)
    return to is not SAME and not (to is not None and to == call.branch)
