"""Sentences that read like rules and are not, for ``derive``: what a place lacks ("There is no
`node`, no `python3`") and what a file says under a label naming it ("Dockerfile HEALTHCHECK: …
NEVER wget/curl", "Makefile: never call npm"), whose commands the agent does not run.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy

_NONE_THERE = lazy(r"there(?:'s|\s+(?:is|are|was|were))\s+no\b", re.I)
# "No git remote." · "No git hooks yet.": a sentence of "no" and git's things, unquoted, is what the repository lacks
_NO_GIT_THING = lazy(r"\W*no\s+git\s+(?:remotes?|repo(?:sitory)?|history|hooks?|tags?|submodules?|worktrees?|lfs|"
                     r"config(?:uration)?|credentials?|access)\b(?:\s+(?:yet|here|configured|set up|at all))?\W*", re.I)
_SAYS_NOT = lazy(r"\b(?:never|don'?t|do not|must not|mustn'?t|avoid)\b", re.I)
_FILE_LABEL = lazy(r"^\W*(?:in\s+)?(?:the\s+|a\s+|each\s+|every\s+)?(?:Dockerfiles?|Containerfiles?|Makefiles?|"
                   r"(?:docker-)?compose(?:\.ya?ml)?\s+files?|(?:CI|GitHub\s+Actions)\s+workflows?|workflow\s+files?)"
                   r"\b[^:]{0,40}:\s", re.I)


def states_absence(sentence: str) -> bool:
    """"There is no `node`, no `python3`": what a place lacks, unless the sentence also says never."""
    return (bool(_NONE_THERE.match(sentence)) and not _SAYS_NOT.search(sentence)
            or bool(_NO_GIT_THING.fullmatch(sentence)))


def about_file_content(lesson: str) -> bool:
    """A lesson led by a label naming a file the rule is about (a Dockerfile, a Makefile, a CI workflow)."""
    return bool(_FILE_LABEL.match(lesson))


__all__ = ["about_file_content", "states_absence"]
