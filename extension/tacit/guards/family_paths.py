"""Path and project-act families of the eighth corpus round: any folder of
a name at any depth ("generated code, found in `generated` subdirectories"),
pull requests opened to the project, and comments or
reviews on pull requests and issues (``gh pr comment``, ``gh pr review``,
``gh issue comment``).
Design notes: docs/guards.md.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.model import CommandMatch, GuardSpec, PathMatch
from tacit.guards.words import _DONT, _PATH_VERB, _unquote

_VERB = rf"(?:{_PATH_VERB}(?:\s*(?:,|or|,\s*or)\s*{_PATH_VERB})*)"
# "do not modify generated code, found in `generated` subdirectories" · "never edit files in any `gen` folder"
_ANY_FOLDER = lazy(rf"{_DONT}\s+(?P<verb>{_VERB})\s+(?:(?:the|any)\s+)?(?P<what>(?:[\w-]+\s+){{0,2}}(?:code|files?|"
                   r"sources?|anything))\s*,?\s*(?:(?:found|located|that (?:live|are|sit))\s+)?(?:in|under|inside)\s+"
                   r"(?:any\s+|the\s+|all\s+)?(?P<name>`[\w.-]+/?`|[\w.-]+)\s+(?:sub)?(?:director(?:y|ies)|folders?|dirs?)",
                   re.I)
# "never comment on or review pull requests" · "don't approve PRs" · "never comment on issues"
_ACT = r"(?:comment(?:\s+on)?|review|approve|(?:post|leave|add|write)\s+(?:review\s+)?comments?\s+(?:on|to))"
_PR_ACTS = lazy(rf"{_DONT}\s+(?P<acts>{_ACT}(?:\s*(?:,|or|and|,\s*or)\s*{_ACT})*)\s+(?:on\s+)?(?:any\s+|the\s+)?(?:(?!(?:pull|prs?|issues?)\b)\[?[\w.-]+\]?\s+)?"
                r"(?P<what>(?:pull requests?|prs?|issues?)(?:\s*(?:,|or|and|,\s*or)\s*(?:pull requests?|prs?|issues?))*)"
                r"(?:\s*,?\s*etc\.*)?(?:\s+(?:on|to|in|for)\s+\[?[\w./-]+\]?)?", re.I)


# "never open pull requests to [Wasmtime]": the project a rule file belongs to (a branch is another reading)
_PR_TO = lazy(rf"{_DONT}\s+(?:open|create|submit|file|raise|send|make)\s+(?:any\s+|a\s+|new\s+)?(?:pull requests?|prs?)\s+"
              r"(?:to|against|on|for|in|into)\s+(?:the\s+)?\[?(?P<x>[\w.-]+(?:/[\w.-]+)?)\]?(?:\s+(?:repo|repository|project))?",
              re.I)
_NOT_PROJECT = frozenset(("main", "master", "develop", "trunk", "it", "them", "this", "that", "any", "branches",
                          "branch", "release", "production", "prod", "staging", "default"))
def _pr_to(clause: str, because: str) -> list:
    m = _PR_TO.fullmatch(clause)
    if not m or m.group("x").lower() in _NOT_PROJECT or "/" not in m.group("x") and "." in m.group("x"):
        return []
    return [GuardSpec(CommandMatch(("gh",), ("pr", "create"), (), True), because)]


def _any_folder(clause: str, because: str) -> list:
    m = _ANY_FOLDER.fullmatch(clause)
    if not m:
        return []
    name = _unquote(m.group("name")).rstrip("/")
    quoted = m.group("name").startswith("`")
    if not re.fullmatch(r"[\w.-]+", name) or not quoted and name.lower() not in m.group("what").lower().split():
        return []  # an unquoted name must be the object's own word: "generated code in generated folders"
    return [GuardSpec(PathMatch((name + "/",)), because)]


def _pr_acts(clause: str, because: str) -> list:
    m = _PR_ACTS.fullmatch(clause)
    if not m:
        return []
    acts = {a.lower() for a in re.findall(r"comment|review|approve", m.group("acts"), re.I)}
    what = m.group("what").lower()
    nouns = (["pr"] if re.search(r"pull|pr", what) else []) + (["issue"] if "issue" in what else [])
    out = []
    for noun in nouns:
        for act in ("comment", "review"):
            if act == "review" and noun == "issue":
                continue
            if act in acts:
                out.append(GuardSpec(CommandMatch(("gh",), (noun, act), (), True), because))
            elif act == "review" and "approve" in acts:  # an approval is a review with --approve, not any review
                out.append(GuardSpec(CommandMatch(("gh",), (noun, act), ("--approve",), True), because))
    return out


def path_family_specs(clause: str, because: str, own, lesson: str = "") -> list:
    """The guards of one clause read as one of this module's families, or []."""
    for read in (_any_folder, _pr_acts, _pr_to):
        found = read(clause, because)
        if found:
            return found
    return []


__all__ = ["path_family_specs"]
