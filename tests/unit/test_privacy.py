"""``strip_private`` and ``asks_not_to_keep`` (tacit.safety.private): targeted
behaviour, properties, bounded time. The labelled phrasings are in
tests/data/privacy_corpus.jsonl (test_privacy_corpus.py)."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tacit.safety import PRIVATE_MARKER, asks_not_to_keep, redact_secrets, strip_private

_TAG_BITS = ["<private>", "</private>", "<PRIVATE>", "</Private>", "<private/>", "< private >", "</ private >",
             "<private a='1'>", "<privateKey>", "<", ">", "/", "private", "x", " ", "\n", "é", "\u200b"]
_TAGGY = st.lists(st.one_of(st.sampled_from(_TAG_BITS), st.text(max_size=6)), max_size=30).map("".join)
_ANY = st.one_of(st.text(), st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF,
                                                           categories=["Cs"])), _TAGGY)
_REAL_TAG = re.compile(r"<[ \t]*/?[ \t]*private(?=[\s/>])[^<>]{0,200}>", re.IGNORECASE)


# ---------------------------------------------------------------------------
# strip_private
# ---------------------------------------------------------------------------
def test_the_issue_message_loses_its_private_part():
    text = "deploy is broken. <private>the staging password is hunter2</private> please fix"
    assert strip_private(text) == "deploy is broken. [private] please fix"
    assert "hunter2" not in strip_private(text)
    assert PRIVATE_MARKER == "[private]"


def test_unclosed_span_hides_everything_after_it_even_across_lines():
    text = "keep this\n<private>\nline 1\nline 2 with a token"
    assert strip_private(text) == "keep this\n[private]"


def test_nesting_counts_depth():
    assert strip_private("<private>a<private>b</private>c</private>d") == "[private]d"
    # the inner close does not end the outer span
    assert "c" not in strip_private("<private>a<private>b</private>c</private>")


@pytest.mark.parametrize("value", [None, b"a <private>b</private>", bytearray(b"x"), 42, ["<private>"]])
def test_non_string_input_is_coerced(value):
    result = strip_private(value)
    assert isinstance(result, str)
    if isinstance(value, bytes):
        assert result == "a [private]"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ANY)
def test_strip_private_leaves_no_tag_and_keeps_tagless_text(text):
    result = strip_private(text)
    assert _REAL_TAG.search(result) is None
    if _REAL_TAG.search(text) is None:
        assert result == text
    assert strip_private(result) == result  # idempotent


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters="<>"), max_size=40),
       st.text(alphabet=st.characters(blacklist_characters="<>"), max_size=40),
       st.text(alphabet=st.characters(blacklist_characters="<>"), max_size=40))
def test_text_outside_a_span_is_kept_exactly(before, inside, after):
    assert strip_private(f"{before}<private>{inside}</private>{after}") == f"{before}[private]{after}"


# ---------------------------------------------------------------------------
# asks_not_to_keep
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "don't save this", "dont remember that", "do not store this", "off the record", "don't memorize",
    "this is private", "keep this between us", "不要记住", "别记住", "不要保存",
    "nicht speichern", "ne retiens pas", "no guardes esto",
])
def test_the_briefs_phrasings_are_covered(text):
    assert asks_not_to_keep(text) is True
    assert asks_not_to_keep(text.upper() if text.isascii() else text) is True


@pytest.mark.parametrize("text", [
    "don't save the file yet", "don't store passwords in the repo", "remember to not save drafts",
    "forget that we use pnpm", "I don't remember that",
])
def test_the_briefs_look_alikes_are_not(text):
    assert asks_not_to_keep(text) is False


def test_the_issue_message_asks_not_to_keep_and_its_password_is_redacted():
    text = "don't save this, the staging password is hunter2"
    assert asks_not_to_keep(text)
    assert "hunter2" not in redact_secrets(text)


def test_a_request_anywhere_in_a_message_counts():
    long = "Here is the stack trace:\n" + "  at frame\n" * 2000 + "Also: don't store this, it's personal."
    assert asks_not_to_keep(long)


def test_code_and_quotes_are_mentions():
    assert not asks_not_to_keep("the test asserts `don't save this` is detected")
    assert not asks_not_to_keep('the docs list "off the record" as a phrase')
    assert asks_not_to_keep("don't save this, it's about my health")  # apostrophes are not quotes


@pytest.mark.parametrize("value", [None, b"don't save this", 12, ["don't save this"]])
def test_non_string_input_is_coerced_not_fatal(value):
    assert isinstance(asks_not_to_keep(value), bool)
    assert asks_not_to_keep(b"don't save this") is True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_ANY, st.lists(st.sampled_from(
    ["don't", "do not", "save", "remember", "this", "that", "it", "in", "memory", "the", "file", ",", ".", "\n",
     "off the record", "between us", "is", "private", "不要", "记住", "这个", "nicht", "speichern", "`", "'", '"']),
    max_size=20).map(" ".join)))
def test_asks_not_to_keep_never_raises(text):
    assert asks_not_to_keep(text) in (True, False)


# ---------------------------------------------------------------------------
# bounded time
# ---------------------------------------------------------------------------
def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _best(fn, arg, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.thread_time()  # this thread's CPU time: neither load nor other threads stretch it
        fn(arg)
        best = min(best, time.thread_time() - start)
    return best


ADVERSARIAL = {
    "opening tags": lambda n: _repeat("<private>", n),
    "closing tags": lambda n: _repeat("</private>", n),
    "unclosed angle": lambda n: _repeat("<private ", n),
    "angles": lambda n: "<" * n,
    "negations": lambda n: _repeat("don't ", n),
    "negated verbs": lambda n: _repeat("don't save ", n),
    "objects": lambda n: _repeat("don't save this thing ", n),
    "this is": lambda n: _repeat("this is ", n),
    "quotes": lambda n: _repeat("'a ", n),
    "backticks": lambda n: _repeat("`", n),
    "chinese": lambda n: _repeat("不要把这个", n),
    "no ne pas": lambda n: _repeat("ne retiens ", n),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_time_grows_linearly_on_adversarial_input(name):
    make = ADVERSARIAL[name]
    small, large = make(40_000), make(160_000)
    for fn in (strip_private, asks_not_to_keep):
        ratio = _best(fn, large) / max(_best(fn, small), 1e-5)
        assert ratio < 12, f"{name}/{fn.__name__}: 4x input took {ratio:.1f}x longer"
