"""Regular expressions compiled on first use, not at import.

Design notes: docs/design/core.md#tacitlazyre
"""

from __future__ import annotations

import re
import time

_MADE: list = []  # every stand-in, for compile_all
_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")


class LazyPattern:
    __slots__ = ("pattern", "_flags", "_compiled", *_METHODS)

    def __init__(self, pattern, flags: int = 0):
        self.pattern = pattern
        self._flags = flags
        self._compiled = None
        _MADE.append(self)

    def compiled(self) -> re.Pattern:
        compiled = self._compiled
        if compiled is None:
            compiled = re.compile(self.pattern, self._flags)
            for name in _METHODS:
                setattr(self, name, getattr(compiled, name))
            self._compiled = compiled
        return compiled

    def __getattr__(self, name):  # only for what is not set yet: the first call compiles
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self._flags})"


def lazy(pattern, flags: int = 0) -> LazyPattern:
    return LazyPattern(pattern, flags)


def compiled(pattern) -> re.Pattern:
    """A real ``re.Pattern`` for a pattern made by ``lazy`` or ``re.compile``."""
    return pattern.compiled() if isinstance(pattern, LazyPattern) else pattern


def compile_all(pause: float = 0.0) -> int:
    """Compile every pattern not compiled yet, pausing ``pause`` seconds between them; how many."""
    done = 0
    for pattern in list(_MADE):
        if pattern._compiled is None:
            try:
                pattern.compiled()
            except re.error:
                continue  # raised again, where it is used
            done += 1
            time.sleep(pause)
    return done
