"""The one package manager a rule allows: "use only `pnpm` as the package manager", "use pnpm
exclusively", "uv only" stop the other managers of its kind (npm, yarn, bun; pip, poetry …),
with the named one as the way to do it instead. Runners (npx, pnpx, bunx) are not managers and
stay allowed. "only use pnpm for X" is read only when X is about packages: "only use npm for
publishing" limits npm, it bans nothing. "use uv instead of pip for installing packages": the
installs (``for_installing``). Design notes: docs/guards.md.
"""

from __future__ import annotations

import re
from dataclasses import replace

from tacit.lazyre import lazy
from tacit.guards.model import CommandMatch, GuardSpec

# the managers of a kind, each stopping the others when it is the only one allowed
_KINDS = (("npm", "pnpm", "yarn", "bun"), ("pip", "uv", "poetry", "pipenv", "pdm"))
_MANAGERS = frozenset(m for kind in _KINDS for m in kind)
_MANAGER = "|".join(sorted(_MANAGERS, key=len, reverse=True))
_X = rf"`?(?P<x>{_MANAGER})`?"
_ROLE = r"(?:the\s+|our\s+|your\s+|a\s+)?(?:javascript\s+|js\s+|node\s+|python\s+)?(?:package|dependency)\s+manager"
# "for all package management" · "for installing or managing dependencies in this project"
_ABOUT_PACKAGES = (r"for\s+(?:all\s+|any\s+)?(?:[\w-]+\s+){0,5}?(?:packages?|dependenc(?:y|ies)|deps|"
                   r"package\s+management|installs?|installing)\b[\w\s,-]{0,60}")
_TAIL = rf"(?:\s+(?:as\s+{_ROLE}|{_ABOUT_PACKAGES}|here|in\s+this\s+(?:project|repo|repository|workspace)))?"
_WHO = r"(?:(?:we|you)\s+)?"
_USE = rf"{_WHO}(?:always\s+|must\s+|should\s+)?use"
_ANY_FOR = rf"(?:\s+for\s+[\w\s,/-]{{1,80}}|{_TAIL})"
_SOLE = [lazy(p, re.I) for p in (
    # use only pnpm (for anything) · always use pnpm exclusively · we only use uv
    rf"{_USE}\s+only\s+{_X}{_ANY_FOR}",
    rf"{_USE}\s+{_X}\s+exclusively{_ANY_FOR}",
    # "use npm only for publishing" limits npm: only a tail about packages
    rf"{_USE}\s+{_X}\s+only{_TAIL}",
    rf"{_WHO}only\s+use\s+{_X}{_TAIL}",
    rf"{_X}\s+only{_TAIL}",
    rf"only\s+{_X}\s+(?:is|may\s+be|should\s+be)\s+(?:allowed|permitted|used|supported)",
    rf"{_X}\s+is\s+the\s+only\s+(?:allowed\s+|supported\s+|permitted\s+)?(?:{_ROLE}|one)",
)]
# what the reader looks for before it tries: a lesson without one of these is no sole-tool rule
SAYS_SOLE = rf"\b(?:only\s+use|use\s+only|only)\s+`?(?:{_MANAGER})\b|\bexclusively\b|\b(?:{_MANAGER})`?\s+(?:only|is\s+the\s+only)\b"


def sole_tool_specs(sentence: str, because: str, lesson: str = "") -> list:
    """[the guard on the other managers] when the clause names one manager as the only one, else []."""
    m = next((m for p in _SOLE if (m := p.fullmatch(sentence))), None)
    if m is None:
        return []
    x = m.group("x").lower()
    if re.search(rf"\b{x}`?\s+only\s*:", lesson, re.I):
        return []  # "uv only: run `uv sync` first" heads what uv's users do, it bans nothing
    return [GuardSpec(CommandMatch(_others(x), (), (), True), because, x)]


def _others(x: str) -> tuple:
    return next(tuple(o for o in kind if o != x) for kind in _KINDS if x in kind)


def _is_sole(spec: GuardSpec) -> bool:
    m = spec.match
    return spec.instead in _MANAGERS and isinstance(m, CommandMatch) and m.programs == _others(spec.instead) \
        and not m.subcommands


def without_restated(specs: list) -> list:
    """``specs`` less a sole-manager guard when the lesson's own ban names a manager of that kind:
    "pnpm only — no npm, no yarn" stops what it lists, not a second, wider guard."""
    named = {p for s in specs if not _is_sole(s) and isinstance(s.match, CommandMatch) for p in s.match.programs}
    return [s for s in specs if not (_is_sole(s) and named & set(_others(s.instead)))]


# "Always use `uv` instead of `pip` for installing packages": the rule holds for installs
_FOR_INSTALLING = lazy(r"(?P<rule>.+?)\s+for\s+(?:installing|adding|installs?|installation\s+of)\s+"
                       r"(?:(?:any|new|the|all|python|js|javascript|node)\s+)*(?:packages?|dependenc(?:y|ies)|deps|modules|"
                       r"libraries)", re.I)


def for_installing(sentence: str, because: str, read) -> list:
    """The rule before "for installing packages" (``read`` reads it) as installs with each manager it
    stops; [] when it stops anything else."""
    m = _FOR_INSTALLING.fullmatch(sentence)
    found = read(m.group("rule"), because) if m else []
    if not found or not all(isinstance(s.match, CommandMatch) and set(s.match.programs) <= _MANAGERS for s in found):
        return []
    return [s if s.match.subcommands else replace(s, match=replace(s.match, subcommands=("install",))) for s in found]
