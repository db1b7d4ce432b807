"""Regular expressions compiled on first use, not at import; ``gate``d ones searched only in a
text that holds a word every match needs.

Design notes: docs/design/core.md#tacitlazyre
"""

from __future__ import annotations

import re
import time
from re import _constants as _sre, _parser

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


lazy = LazyPattern


class GatedPattern(LazyPattern):
    """A ``LazyPattern`` whose unanchored calls first look, in C, for one of the literal words
    every match holds (lowercased, in an ASCII text): a long alternation of words under
    IGNORECASE is tried at every position of a text, the words alone are found at once."""

    __slots__ = ()

    def compiled(self) -> re.Pattern:
        compiled = self._compiled
        if compiled is None:
            compiled = super().compiled()
            _install_gate(self, compiled)
        return compiled


def gate(*patterns: LazyPattern) -> None:
    """Make these stand-ins ``GatedPattern``s (same answers, found faster)."""
    for pattern in patterns:
        if type(pattern) is LazyPattern:
            pattern.__class__ = GatedPattern
            if pattern._compiled is not None:
                _install_gate(pattern, pattern._compiled)


_REPEATS = (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT)


_ZERO_WIDTH = (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT)
_BOUNDARY = (_sre.AT, _sre.AT_BOUNDARY)


def _starts(items: list, bounded: bool = False) -> set | None:
    """``(word, after a \\b)`` pairs, lowercased, one of which every match of the parsed ``items``
    starts with; None if unknown."""
    for i, (op, av) in enumerate(items):
        if op in _ZERO_WIDTH:
            bounded = bounded or (op, av) == _BOUNDARY
            continue
        if op is _sre.LITERAL:
            end = next((k for k in range(i, len(items)) if items[k][0] is not _sre.LITERAL), len(items))
            run = "".join(chr(a) for _op, a in items[i:end]).lower()
            rest = _starts(items[end:])
            return {(run + w, bounded) for w, _b in rest} if rest and len(rest) <= 64 else {(run, bounded)}
        if op is _sre.SUBPATTERN:
            return _starts(list(av[-1]), bounded)
        if op is _sre.BRANCH:
            alternatives = [_starts(list(a), bounded) for a in av[1]]
            return None if any(not a for a in alternatives) else set().union(*alternatives)
        if op in _REPEATS and av[0] >= 1:
            return _starts(list(av[2]), bounded)
        if op in _REPEATS and av[1] == 1:  # "n'?t": "n't" or "nt"
            taken, skipped = _starts(list(av[2]) + items[i + 1:], bounded), _starts(items[i + 1:], bounded)
            return taken | skipped if taken and skipped else None
        return None
    return None


def _needs(seq, bounded: bool = False) -> set | None:
    """``(word, after a \\b)`` pairs, lowercased, one of which every match of the parsed ``seq``
    holds; None if unknown."""
    items = list(seq)
    for i, (op, av) in enumerate(items):
        after = bounded if i == 0 else items[i - 1] == _BOUNDARY
        found = None
        if op is _sre.LITERAL:
            found = _starts(items[i:], after)
        elif op is _sre.SUBPATTERN:
            found = _needs(av[-1], after)
        elif op is _sre.BRANCH:
            alternatives = [_needs(a, after) for a in av[1]]
            found = None if any(not a for a in alternatives) else set().union(*alternatives)
        elif op in _REPEATS and av[0] >= 1:
            found = _needs(av[2], after)
        if found:  # else: what this part matches is no word; a later part may need one
            return found
    return None


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def _word_gate(pattern, flags: int):
    """``find(low)``: a search that finds nothing in a lowercased ASCII text holding none of the
    words every match of ``pattern`` holds; None when no such words are known."""
    if not isinstance(pattern, str):
        return None
    try:
        words = _needs(_parser.parse(pattern, flags))
    except Exception:  # noqa: BLE001 (a private parser: no gate, never a wrong answer)
        return None
    if not words or any(not w or not w.isascii() for w, _b in words):
        return None
    bound = {w for w, b in words if b and w[0] in _WORD_CHARS} - {w for w, b in words if not b}
    free = {w for w, _b in words} - bound
    # a bounded word only where a word starts: every bounded word would hold there too
    either = ([_tree(free)] if free else []) + (["(?<![a-z0-9_])" + _tree(bound)] if bound else [])
    return re.compile("|".join(either)).search


def _tree(words: set) -> str:
    """A pattern finding where one of ``words`` starts, as a tree of their letters (each branch led
    by another letter: found faster than a flat alternation); a word that starts with another is
    left out (the other is found there too)."""
    tree: dict = {}
    for word in words:
        if not any(other != word and word.startswith(other) for other in words):
            node = tree
            for char in word:
                node = node.setdefault(char, {})

    def branch(node: dict) -> str:
        alternatives = [re.escape(char) + branch(child) for char, child in sorted(node.items())]
        return "(?:" + "|".join(alternatives) + ")" if len(alternatives) > 1 else "".join(alternatives)
    return branch(tree)


def _lowered(pattern, flags: int):
    """``pattern`` compiled without IGNORECASE, to search a lowercased ASCII text (the same matches
    at the same places), when it has IGNORECASE and no capital or non-ASCII character, character
    range reaching capitals or flag of its own; else None."""
    if not isinstance(pattern, str) or not flags & re.I:
        return None
    try:
        parsed = _parser.parse(pattern, flags & ~re.I)
    except Exception:  # noqa: BLE001 (a private parser: no twin, never a wrong answer)
        return None
    if parsed.state.flags & ~(flags & ~re.I | re.UNICODE) or not _caseless(parsed):  # (?i) and the like
        return None
    return re.compile(pattern, flags & ~re.I)


_CHARS = (_sre.LITERAL, _sre.NOT_LITERAL)
_PLAIN = (_sre.AT, _sre.ANY, _sre.GROUPREF, _sre.CATEGORY, _sre.NEGATE)


def _caseless(items) -> bool:
    """Whether parsed ``items`` match alike under IGNORECASE and without it on a lowercased ASCII text."""
    for op, av in items:
        if op in _CHARS:
            ok = av < 128 and not 65 <= av <= 90
        elif op is _sre.RANGE:
            ok = av[1] < 128 and not (av[0] <= 90 and av[1] >= 65)
        elif op is _sre.IN:
            ok = _caseless(av)
        elif op is _sre.BRANCH:
            ok = all(_caseless(a) for a in av[1])
        elif op is _sre.SUBPATTERN:
            ok = not av[1] and not av[2] and _caseless(av[-1])
        elif op in _REPEATS or op in (_sre.ASSERT, _sre.ASSERT_NOT):
            ok = _caseless(av[-1])
        else:
            ok = op in _PLAIN
        if not ok:
            return False
    return True


_last = ("", "")  # the last text lowercased, and its lowercase: gated patterns often search one text in turn


def _lowercase(string) -> str | None:
    """An ASCII ``string`` lowercased (the last one is remembered), else None."""
    global _last
    last = _last
    if last[0] is string:
        return last[1]
    if not isinstance(string, str) or not string.isascii():
        return None
    low = string.lower()
    _last = (string, low)
    return low


def _install_gate(stand_in: LazyPattern, compiled: re.Pattern) -> None:
    """Set the unanchored methods of ``stand_in`` to answer "no match" at once when no word is there
    (or, with a lowered twin, when the twin finds none in the lowercased text)."""
    word = _word_gate(stand_in.pattern, stand_in._flags)
    twin = _lowered(stand_in.pattern, stand_in._flags)
    if word is None and twin is None:
        return
    find = twin.search if twin is not None else None

    def first(string) -> int | None:
        """Where the first match starts, -1 when there is none, None when unknown."""
        last = _last
        low = last[1] if last[0] is string else _lowercase(string)  # the same text again: no call
        if low is None:
            return None
        if word is not None and word(low) is None:
            return -1
        if find is None:
            return None
        m = find(low)
        return -1 if m is None else m.start()

    def search(string, *args, **kw):
        at = None if args or kw else first(string)
        return compiled.search(string, *args, **kw) if at is None else None if at < 0 else compiled.search(string, at)

    def sub(repl, string, *args, **kw):
        return string if first(string) == -1 else compiled.sub(repl, string, *args, **kw)

    def subn(repl, string, *args, **kw):
        return (string, 0) if first(string) == -1 else compiled.subn(repl, string, *args, **kw)

    def split(string, *args, **kw):
        return [string] if first(string) == -1 else compiled.split(string, *args, **kw)

    def findall(string, *args, **kw):
        return [] if not args and not kw and first(string) == -1 else compiled.findall(string, *args, **kw)

    def finditer(string, *args, **kw):
        return iter(()) if not args and not kw and first(string) == -1 else compiled.finditer(string, *args, **kw)

    for name, method in (("search", search), ("sub", sub), ("subn", subn), ("split", split),
                         ("findall", findall), ("finditer", finditer)):
        setattr(stand_in, name, method)


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
