"""Two list forms the other readings leave: a list of tools some quoted and some not ("never use vim,
nano, or `crontab -e`"), and an act with a kind of command after it ("never force push or use
destructive git commands": the kind has no exact shape, the act has).

``mixed_specs(clause, because, specs_of)`` returns the guards of every item (all or nothing) or of the
act, or []; ``specs_of(text, because)`` is the caller's reading of one clause. Pure.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.lists import each
from tacit.guards.words import _DONT, _KNOWN_PROGRAMS

_USE_LIST = lazy(rf"(?P<dont>{_DONT})\s+(?P<verb>use|run)\s+(?P<items>[^,;]+(?:\s*,\s*(?:or\s+|and\s+)?[^,;]+)+)", re.I)
_ITEM = lazy(r"`[^`]+`|[a-z][\w.+-]*", re.I)
# "… or use destructive git commands" · "or run any risky operations": a kind (a word no program's), no command
_OR_KIND = lazy(rf"(?P<dont>{_DONT})\s+(?P<act>[a-z][\w -]*?)\s*,?\s+or\s+(?:use|run|execute)\s+(?:any\s+)?(?:other\s+)?"
                r"(?P<kind>(?:[a-z][\w-]*\s+){1,3})(?:commands?|operations?)", re.I)


def _tools(sentence: str, because: str, specs_of) -> list:
    m = _USE_LIST.fullmatch(sentence)
    if not m:
        return []
    items = [i.strip() for i in re.split(r"\s*,\s*(?:or\s+|and\s+)?|\s+(?:or|and)\s+", m.group("items")) if i.strip()]
    quoted = [i.startswith("`") for i in items]
    if len(items) < 2 or all(quoted) or not any(quoted) or not all(_ITEM.fullmatch(i) for i in items):
        return []  # all quoted or none: the other readings' lists
    if not all(i.lower() in _KNOWN_PROGRAMS for i, q in zip(items, quoted) if not q):
        return []  # "never use globals, `eval` or `exec`": a word of code, no program
    return each((f"{m.group('dont')} {m.group('verb')} {item}" for item in items), because, specs_of)


def _act_or_kind(sentence: str, because: str, specs_of) -> list:
    m = _OR_KIND.fullmatch(sentence)
    if not m or not set(m.group("kind").lower().split()) - _KNOWN_PROGRAMS:
        return []  # "… or use git commands": every git command, a shape of its own
    return specs_of(f"{m.group('dont')} {m.group('act')}", because)


# "never switch, merge, rebase, push, or commit to main": git acts sharing one branch
_GIT_ACT = r"(?:switch|merge|rebase|push|force[- ]push|commit|check\s?out)"
_ACTS_TO = lazy(rf"(?P<dont>{_DONT})\s+(?P<acts>{_GIT_ACT}(?:\s*,\s*(?:or\s+|and\s+)?{_GIT_ACT}|\s+(?:or|and)\s+{_GIT_ACT})+)"
                r"\s+(?:(?:directly|locally)\s+)?(?:to|into|on|onto)\s+(?P<branch>`[\w./-]+`|[\w./-]+)", re.I)
# "Never merge locally to `main` and force-push": what is force-pushed is that branch
_THEN_FORCE = lazy(rf"(?P<dont>{_DONT})\s+(?:merge|rebase|commit)\s+(?:locally\s+)?(?:to|into|on|onto)\s+"
                   r"(?P<branch>`[\w./-]+`|[\w./-]+)\s*,?\s+and\s+(?:then\s+)?force[- ]?push", re.I)


def _acts_to(sentence: str, because: str, specs_of) -> list:
    m = _THEN_FORCE.fullmatch(sentence)
    if m:
        return specs_of(f"{m.group('dont')} force push to {m.group('branch')}", because)
    m = _ACTS_TO.fullmatch(sentence)
    if not m:
        return []
    out: list = []  # the acts that have a shape on a branch (push, commit); switching and merging have none
    for act in re.findall(_GIT_ACT, m.group("acts"), re.I):
        out.extend(s for s in specs_of(f"{m.group('dont')} {act} to {m.group('branch')}", because) if s not in out)
    return out


# "Do not perform any git commits, pushes, or version control actions": git's acts said as nouns
_NOUN = r"(?:commits|pushes|pulls|rebases)"
_NOUN_ACTS = lazy(rf"(?P<dont>{_DONT})\s+(?:perform|make|do|create|run)\s+(?:any\s+)?(?:git\s+)?(?P<nouns>{_NOUN}"
                  rf"(?:\s*,\s*(?:or\s+|and\s+)?(?:git\s+)?{_NOUN}|\s+(?:or|and)\s+(?:git\s+)?{_NOUN})*)"
                  r"(?:\s*,?\s*(?:or|and)\s+(?:any\s+)?(?:other\s+)?(?:[a-z][\w-]*\s+){1,3}(?:actions?|operations?|commands?))?",
                  re.I)
_ONE = {"commits": "commit", "pushes": "push", "pulls": "pull", "rebases": "rebase"}


def _noun_acts(sentence: str, because: str, specs_of) -> list:
    m = _NOUN_ACTS.fullmatch(sentence)
    if not m:
        return []
    nouns = re.findall(_NOUN, m.group("nouns"), re.I)
    return each((f"{m.group('dont')} {_ONE[noun.lower()]}" for noun in nouns), because, specs_of)


def mixed_specs(sentence: str, because: str, specs_of) -> list:
    """The guards of a mixed list of tools, of an act said before a kind of command, or of git acts on a branch."""
    return (_tools(sentence, because, specs_of) or _act_or_kind(sentence, because, specs_of)
            or _acts_to(sentence, because, specs_of) or _noun_acts(sentence, because, specs_of))
