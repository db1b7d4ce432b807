"""Regular expressions compiled on first use, shared by the text detectors.

Importing a detector must stay cheap on the hook path (a hook process handles
one event and may need only a few of its patterns), so nothing is compiled
until it is used; afterwards a pattern costs one attribute lookup.
"""

from __future__ import annotations

import re


class LazyPattern:
    """Stands in for ``re.compile(pattern, flags)`` until first used."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern | None = None

    def __getattr__(self, name: str):
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
        return getattr(compiled, name)


def lazy(pattern: str, flags: int = 0) -> re.Pattern:
    return LazyPattern(pattern, flags)  # type: ignore[return-value]
