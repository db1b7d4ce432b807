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


GATED_TEXTS = ("never run npm, it breaks the lockfile", "Please NEVER push", "DON'T ASKS x", "won't \x0042\x00 ASK", "please", "", "x" * 300,
               "naïve: please don't", "plz, dont't — really", "use pnpm\nnot npm", "an exception aside.",
               "only when asked, until Friday 'til then", "PLEASE always", "ask the user first")


@pytest.mark.parametrize("source", [
    r"\b(?:please|pls|plz|kindly|always|really)\b",
    r"\b(?:unless|except(?:ing)?|only (?:if|when)|[\w-]+ aside(?=\s*(?:$|[,.;)]))|'?til|until)\b",
    r"\b(?:nver|nevr|nevar)\b|(?<![\w*])([*_])(never|not)\1(?![\w*])",
    r"(?:a|b)?c+d|[xy]z|x{2,}",  # "c", "z" or "xx" in every match
    r"[xy]+|\d",  # no word every match holds: searched in the lowered text only
    r"\bn'?t\b|(?<=[^a-z])ask(?P<s>s?)\b",  # no word either: the lowered twin
    r"[!-~]k|\x00\d\x00",  # a range reaching capitals: no twin, the word gate only
])
def test_a_gated_pattern_answers_as_the_compiled_one(source):
    made, real = lazy(source, re.I), re.compile(source, re.I)
    lazyre.gate(made)
    assert type(made) is lazyre.GatedPattern
    for text in GATED_TEXTS:
        assert made.sub("<\\g<0>>", text) == real.sub("<\\g<0>>", text)
        assert made.subn("", text) == real.subn("", text) and made.split(text) == real.split(text)
        assert made.findall(text) == real.findall(text)
        assert [m.span() for m in made.finditer(text)] == [m.span() for m in real.finditer(text)]
        for args in ((text,), (text, 1)):
            found, expected = made.search(*args), real.search(*args)
            assert (found and found.span()) == (expected and expected.span())


def test_a_lowered_twin_only_for_patterns_that_match_alike():
    assert lazyre._lowered(r"\b(?:never|don'?t)\s+[a-z]+\b(?=\x00)", re.I).flags & re.I == 0
    for source in (r"[A-Z]x", r"x[!-~]", "\u212ax", r"(?-i:x)y", r"(?i)x"):
        assert lazyre._lowered(source, re.I) is None
    assert lazyre._lowered(r"x", 0) is None  # case matters: no twin


def _absent(pattern, flags):
    """The word gate of ``pattern`` as a test: True when a lowercased text holds none of its words."""
    find = lazyre._word_gate(pattern, flags)
    return None if find is None else lambda text: find(text.lower()) is None


def test_a_gate_holds_the_words_every_match_needs():
    absent = _absent(r"\b(?:please|pls)\b", re.I)
    assert absent("say PLS now") is False and absent("plsx") is False and absent("nothing here") is True
    assert absent("apls") is True  # after a \\b: only where a word starts
    gated = lazy(r"\b(?:please|pls)\b", re.I)
    lazyre.gate(gated)
    assert gated.search("naïve pls") and not gated.search("naïve plsx")  # not ASCII: searched as before
    nver = _absent(r"\b(?:nver|nevr)\b", re.I)  # the parser shares the "n": whole words still
    assert nver("nevr") is False and nver("n") is True
    ever = _absent(r"\b(?:ever|in)\b|inside", re.I)
    assert ever("never") is True and ever("ever") is False and ever("insider") is False and ever("twin") is True
    assert _absent(r"(?:a|b)?c+d|[xy]z", 0)("xy") is True  # "c" or "z": an optional part or a class is no word
    assert _absent(r"[xy]+|\d", 0) is None
    assert lazyre._tree({"if", "when", "whenever", "x.y"}) == r"(?:if|when|x\.y)"  # "whenever" holds "when"
    dont = _absent(r"\bdon'?t\b|n'?t\b", re.I)  # an optional letter: the words with and without it
    assert dont("DON'T") is False and dont("wont") is False and dont("don") is True and dont("n t") is True
    assert _absent("\u2014|x", 0) is None  # a word outside ASCII: no gate
    assert _absent(r"(unclosed", 0) is None
