"""A rule's alternatives said in parentheses after its quoted command: "never run `go build`
(or `go install`) directly" · "don't run `npm audit` (or `cargo audit`, `pip-audit`, etc.)".

``or_aside(rule, aside, because, read)`` reads each quoted item as the rule's own verb and that
item ("never run `go install`"); every item must derive (or nothing), and only when the rule
ends in the quoted command the aside follows. Pure.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.lists import each

_OR_ASIDE = lazy(r"(?:or|nor)\s+(?P<items>`[^`]+`(?:\s*,\s*(?:or\s+)?`[^`]+`|\s+or\s+`[^`]+`)*)"
                 r"(?:\s*,?\s*(?:etc\.?|and so on|or similar|or the like))?", re.I)
# the rule up to its quoted command: "Never run " of "Never run `go build`"
_HEAD = lazy(r"(?P<head>[^`]*?\b(?:run|use|execute|call|invoke)\s+)`[^`]+`", re.I)


def or_aside(rule: str, aside: str, because: str, read) -> list:
    """The guards of each quoted alternative in ``aside`` ("or `x`, `y`, etc."), read as
    ``rule``'s verb and the item; [] unless every item derives one."""
    m = _OR_ASIDE.fullmatch(aside.strip().rstrip(".").strip())
    head = _HEAD.fullmatch(rule.strip()) if rule else None
    if not m or not head:
        return []
    return each((f"{head.group('head')}{item}" for item in re.findall(r"`[^`]+`", m.group("items"))), because, read)
