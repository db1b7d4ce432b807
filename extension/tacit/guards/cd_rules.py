"""A folder not to work in, said with ``cd``: "Do not `cd` into `x`" · "never cd into `vendor/`".

``cd`` runs no program a matcher sees; what it changes is where the next commands run. The rule is a
guard on any command run in that folder (``CommandMatch(("*",), under=…)``); listing or reading the
folder from outside stays allowed. Pure.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.model import CommandMatch, GuardSpec
from tacit.guards.words import _DONT, _unquote

_CD = lazy(rf"{_DONT}\s+(?:run\s+)?(?:`cd\s+(?P<quoted>[^`\s]+)`|`?cd`?\s+(?:into\s+|to\s+|in\s+)?(?:the\s+)?"
           r"(?P<path>`[^`\s]+`|[\w.-]*[/.][\w./-]*)(?:\s+(?:directory|folder|dir))?)", re.I)


def cd_specs(clause: str, because: str) -> list:
    """The guard of "never cd into <folder>": any command run in that folder (a quoted or path-like one)."""
    m = _CD.fullmatch(clause)
    path = _unquote(m.group("path") or m.group("quoted")).strip("/") if m else ""
    if not path or path.startswith(("~", ".")) and path not in (".git",) or ".." in path.split("/") or " " in path:
        return []
    return [GuardSpec(CommandMatch(("*",), (), (), True, under=(path,)), because)]
