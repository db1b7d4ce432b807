"""``tacit.detect.fix_tokens``: the ``re``-free tokenizer equals the regex one.

The fix-pattern index was built, and its retrieval figures measured, with a
tokenizer written with regular expressions (until this module, it lived in
``tacit.detect.fix``). It is kept below, verbatim, as the reference: over the
labelled texts and over generated text (identifiers, paths, versions, CJK,
stray punctuation, characters ``re`` treats specially under IGNORECASE), the
new tokenizer must produce exactly the same tokens, in the same order — so a
pattern stored before the change is found by a query tokenised after it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.detect import fix_tokens
from tacit.detect.fix_tokens import iter_tokens, tokenize_code_aware

DATA = Path(__file__).resolve().parents[1] / "data"


# ---------------------------------------------------------------------------
# The reference: the regex tokenizer as it shipped in tacit.detect.fix
# ---------------------------------------------------------------------------
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_RAW_TOKEN_RE = re.compile(rf"[{_CJK}]+|[A-Za-z0-9_~./\\@:+\-#]+")
_VERSION_RE = re.compile(r"^v?\d+(?:\.\d+)+[a-z0-9]*$|^v\d+$", re.IGNORECASE)
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STOPWORDS = fix_tokens.STOPWORDS


def _ref_word_parts(word):
    parts = []
    for chunk in re.split(r"[_\-]+", word):
        if chunk:
            parts.extend(_CAMEL_RE.findall(chunk))
    return [p.lower() for p in parts if p]


def _ref_expand(token, out, drop_stopwords):
    low = token.lower()
    if not low:
        return
    if _VERSION_RE.match(token):
        out.append(low)
        return
    if "/" in token or "\\" in token:
        out.append(low)
        for segment in re.split(r"[/\\]+", token):
            segment = segment.strip(".~:")
            if segment:
                _ref_expand(segment, out, drop_stopwords)
        return
    for sep in ("@", ":", "."):
        if sep in token.strip(sep):
            out.append(low)
            for piece in token.split(sep):
                if piece and piece != token:
                    _ref_expand(piece, out, drop_stopwords)
            return
    parts = _ref_word_parts(token)
    if len(parts) > 1 or (parts and parts[0] != low):
        out.append(low)
        out.extend(p for p in parts if not (drop_stopwords and p in _STOPWORDS) and (len(p) > 1 or p.isdigit()))
        return
    if drop_stopwords and low in _STOPWORDS:
        return
    if len(low) == 1 and not low.isdigit():
        return
    out.append(low)


def reference_tokenize(text, *, drop_stopwords=True):
    if not isinstance(text, str) or not text:
        return []
    out = []
    for match in _RAW_TOKEN_RE.finditer(text):
        raw = match.group(0)
        if "\u3400" <= raw[0] <= "\ufaff":
            if len(raw) == 1:
                out.append(raw)
            else:
                out.extend(raw[k: k + 2] for k in range(len(raw) - 1))
            continue
        token = raw.rstrip(".:-#+")
        lead = re.match(r"^(?:~/|\./|\.\./|/|\.(?=[A-Za-z]))", token)
        body = token.lstrip(".:-#+/") if not lead else token
        if not body or not re.search(r"[A-Za-z0-9]", body):
            continue
        _ref_expand(body, out, drop_stopwords)
    return out


def assert_same(text):
    for drop in (True, False):
        assert tokenize_code_aware(text, drop_stopwords=drop) == reference_tokenize(text, drop_stopwords=drop), text


# ---------------------------------------------------------------------------
# Equality
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "", "loadDotenv() failed loading ~/.cache/pip; a\\b and C++ caused crashes", "HTTPServer", "HTTPSConnection2",
    "ABCdef", "ABC", "aB", "AbC", "__init__.py", "react@18.2.0", "v2", "V2.1", "v2.1rc1", "3.11.4.", "1..2", "1.2a.3",
    "1.2.3-rc1", "127.0.0.1:5432", "user@host:/srv/x", "C:\\Users\\Me\\app.py", "../a/./b//c", ".env", "..env",
    "./x", "~/", "/", "#", "+1", "-x", "--flag=value", "a:b", ":a:", "a..b", "登录失败", "失", "登录failed修复",
    "ﬁle", "K", "ſtraße", "İstanbul", "x²", "٣.٤", "foo.bar.", "E.G.", "ValueError: bad", "C#", "c++17",
    "a_b-c__d--e", "x-", "-", "~~~", "ok!", "'quoted' \"double\"", "tab\there\nnew\u00a0nbsp\u2003em",
])
def test_same_tokens_on_chosen_cases(text):
    assert_same(text)


def _labelled_texts():
    texts = []
    for name in ("fixes.jsonl", "retrieval.jsonl", "corrections.jsonl"):
        path = DATA / name
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                texts.extend(v for v in row.values() if isinstance(v, str))
    return texts


def test_same_tokens_on_every_labelled_text():
    texts = _labelled_texts()
    assert len(texts) > 500
    for text in texts:
        assert_same(text)


_PIECES = st.sampled_from([
    "loadDotenv", "load_dotenv()", "kebab-case-name", "HTTPServer", "ECONNREFUSED", "127.0.0.1:5432",
    "~/.cache/pip", "setup.py", "v2.1", "3.11.4", "V10", "2.0.0rc1", ".env", "../up", "./here", "/abs/path",
    "C:\\win\\path", "react@18.2.0", "git@github:x/y.git", "--flag", "-x", "a::b", "x.y.z", "登录失败", "修复",
    "the", "I", "it's", "don't", "s", "t", "A", "B2", "x9Y", "__dunder__", "#tag", "+plus", "C++", "C#", ":", ".",
    "...", "~", "@", "/", "\\", "-", "_", "+", "#", " ", "\n", "\t", ",", ";", "(", ")", "'", '"', "`", "!", "?",
    "\u00e9", "\u017f", "\u212a", "\u0130", "\u0131", "\ufb01", "\u00b2", "\u0663", "\uff21", "\u3000", "\u4dbf",
    "\u4e00", "\u9fff", "\uf900", "\ufaff", "\u33ff", "\u3400", "\ufb00", "\U00020000",
])
_CHARS = st.characters(whitelist_categories=("Lu", "Ll", "Lt", "Lo", "Nd", "No", "Pc", "Pd", "Po", "Sm", "Zs"))


@settings(max_examples=1500, deadline=None)
@given(st.lists(_PIECES | st.text(st.sampled_from("aAzZ09._-/\\~:@+#vV"), max_size=8), max_size=30).map("".join))
def test_same_tokens_on_code_like_text(text):
    assert_same(text)


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=300) | st.text(_CHARS, max_size=300))
def test_same_tokens_on_any_text(text):
    assert_same(text)


# ---------------------------------------------------------------------------
# The generator, and what it costs to import
# ---------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=40).map(" ".join), st.integers(0, 50))
def test_iter_tokens_is_the_same_stream(text, stop):
    stream = iter_tokens(text)
    head = [token for _, token in zip(range(stop), stream)]
    assert head == tokenize_code_aware(text)[:stop]


def test_importing_it_imports_nothing(tmp_path):
    import subprocess
    import sys

    code = ("import sys; before = set(sys.modules); import tacit.detect.fix_tokens as t; "
            "t.tokenize_code_aware('loadDotenv v2.1 登录'); "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert set(out) <= {"__future__", "tacit", "tacit.detect", "tacit.detect.fix_tokens"}, out
