"""Module regexes compiled on first use (tacit.lazyre): same answers as re.compile."""

from __future__ import annotations

import re

import pytest

from tacit import lazyre
from tacit.lazyre import lazy


def test_a_lazy_pattern_answers_as_the_compiled_one():
    text = "Deploy with make deploy, then MAKE test."
    for source, flags in ((r"make (\w+)", 0), (r"make (?P<what>\w+)", re.I), (r"^\s*$", re.M)):
        made, real = lazy(source, flags), re.compile(source, flags)
        assert made.pattern == real.pattern
        assert [m.span() for m in made.finditer(text)] == [m.span() for m in real.finditer(text)]
        assert made.findall(text) == real.findall(text) and made.sub("X", text) == real.sub("X", text)
        assert made.split(text) == real.split(text) and made.groups == real.groups
        assert made.flags == real.flags and made.groupindex == real.groupindex
        assert bool(made.search(text)) == bool(real.search(text))


def test_nothing_is_compiled_before_use_and_compile_all_compiles_the_rest():
    pattern = lazy(r"tacit-lazyre-test-(\d+)")
    assert pattern._compiled is None
    assert lazyre.compile_all() >= 1 and pattern._compiled is not None
    assert pattern.search("x tacit-lazyre-test-42").group(1) == "42"
    assert lazyre.compiled(pattern) is pattern._compiled and lazyre.compiled(re.compile("a")).pattern == "a"


def test_a_broken_pattern_fails_where_it_is_used():
    broken = lazy(r"(unclosed")
    lazyre.compile_all()  # skipped, not raised here
    with pytest.raises(re.error):
        broken.search("x")
