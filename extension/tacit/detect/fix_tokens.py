"""Code-aware tokens for fix patterns, without ``re``.

:func:`tokenize_code_aware` turns text into the lowercase terms the fix-pattern index stores and the
lookup queries with: identifiers whole *and* split (``loadDotenv`` -> ``loaddotenv``, ``load``,
``dotenv``), paths, file names, versions and ``host:port`` whole, then their parts, CJK runs as
character bigrams, English stop words dropped (``drop_stopwords=False`` keeps them); versions and
error codes stay whole. More in docs/fix-patterns.md.

Design notes: docs/design/detect.md#tacitdetectfix_tokens"""

from __future__ import annotations

STOPWORDS = frozenset(
    ["a", "an", "the", "and", "or", "but", "if", "then", "else", "so", "of", "to", "in", "on", "at", "by",
     "for", "with", "from", "into", "onto", "as", "is", "are", "was", "were", "be", "been", "being", "it",
     "its", "this", "that", "these", "those", "there", "here", "i", "we", "you", "he", "she", "they", "me",
     "my", "our", "your", "their", "them", "us", "do", "does", "did", "done", "have", "has", "had", "not",
     "no", "yes", "can", "could", "should", "would", "will", "shall", "may", "might", "must", "just",
     "also", "than", "too", "very", "only", "out", "up", "down", "over", "under", "again", "about",
     "after", "before", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "all",
     "any", "both", "each", "few", "more", "most", "other", "some", "such", "own", "same", "s", "t", "don",
     "now", "i've", "i'm", "it's", "that's", "we've", "you're", "let", "me"]
)

_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")
_ALNUM = _UPPER | _LOWER | _DIGITS
# the characters of a code-ish run: [A-Za-z0-9_~./\\@:+\-#]
_TOKEN_CHARS = _ALNUM | frozenset("_~./\\@:+-#")


def _is_cjk(char: str) -> bool:
    # the tokenizer's CJK ranges: \u3400-\u4dbf \u4e00-\u9fff \uf900-\ufaff
    return "\u3400" <= char <= "\u4dbf" or "\u4e00" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"


class _RunTable(dict):
    """``str.translate`` table: token characters and CJK stay, everything else becomes a space.
    ASCII is filled in up front; other characters are decided on first sight and remembered (up to
    ``_REMEMBER`` of them, so a long-lived process reading every script there is stays small)."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        value = char if _is_cjk(char) else " "
        if len(self) < _REMEMBER:
            self[code] = value
        return value


_REMEMBER = 8192


_RUNS = _RunTable((code, chr(code) if chr(code) in _TOKEN_CHARS else " ") for code in range(128))


def _raw_tokens(text: str):
    """The runs ``[CJK]+|[A-Za-z0-9_~./\\\\@:+\\-#]+`` finds, in order."""
    for chunk in text.translate(_RUNS).split():
        if chunk.isascii():
            yield chunk
            continue
        start, cjk = 0, _is_cjk(chunk[0])  # a chunk mixes the two kinds: cut where the kind changes
        for i in range(1, len(chunk)):
            kind = _is_cjk(chunk[i])
            if kind != cjk:
                yield chunk[start:i]
                start, cjk = i, kind
        yield chunk[start:]


def _is_version(token: str) -> bool:
    """``^v?\\d+(?:\\.\\d+)+[a-z0-9]*$|^v\\d+$`` (case-insensitive) on an ASCII token."""
    prefixed = token[:1] in ("v", "V")
    body = token[1:] if prefixed else token
    if prefixed and body.isdigit():
        return True  # v2
    parts = body.split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:-1]):
        return False
    last = parts[-1]  # digits, then any letters and digits: 4, 0rc1, 2b
    return last[:1].isdigit() and last.isalnum()


def _camel_parts(chunk: str) -> list[str]:
    """``re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\\d+", chunk)``."""
    parts: list[str] = []
    i, n = 0, len(chunk)
    while i < n:
        c = chunk[i]
        if c in _UPPER:
            j = i + 1
            while j < n and chunk[j] in _UPPER:
                j += 1
            if j - i >= 2 and j < n and chunk[j] in _LOWER:  # "HTTPServer": "HTTP", then "Server"
                parts.append(chunk[i:j - 1])
                i = j - 1
            elif j - i == 1 and j < n and chunk[j] in _LOWER:  # "Server"
                k = j + 1
                while k < n and chunk[k] in _LOWER:
                    k += 1
                parts.append(chunk[i:k])
                i = k
            else:  # "HTTP" at the end, or before a digit or a symbol
                parts.append(chunk[i:j])
                i = j
        elif c in _LOWER or c in _DIGITS:
            kind = _LOWER if c in _LOWER else _DIGITS
            j = i + 1
            while j < n and chunk[j] in kind:
                j += 1
            parts.append(chunk[i:j])
            i = j
        else:
            i += 1  # a symbol no alternative matches: findall moves on
    return parts


def _word_parts(word: str) -> list[str]:
    """camelCase / snake_case / kebab-case parts of one identifier, lowercased."""
    return [p.lower() for chunk in word.replace("-", "_").split("_") if chunk for p in _camel_parts(chunk) if p]


def _expand(token: str, out: list[str], drop_stopwords: bool) -> None:
    """Emit a compound token whole, then its parts (recursively)."""
    low = token.lower()
    if not low:
        return
    if _is_version(token):
        out.append(low)
        return
    if "/" in token or "\\" in token:
        out.append(low)
        for segment in token.replace("\\", "/").split("/"):
            segment = segment.strip(".~:")
            if segment:
                _expand(segment, out, drop_stopwords)
        return
    for sep in ("@", ":", "."):
        if sep in token.strip(sep):
            out.append(low)
            for piece in token.split(sep):
                if piece and piece != token:
                    _expand(piece, out, drop_stopwords)
            return
    parts = _word_parts(token)
    if len(parts) > 1 or (parts and parts[0] != low):  # "__init__" -> "__init__", "init"
        out.append(low)
        out.extend(p for p in parts if not (drop_stopwords and p in STOPWORDS) and (len(p) > 1 or p.isdigit()))
        return
    if not (drop_stopwords and low in STOPWORDS) and (len(low) > 1 or low.isdigit()):
        out.append(low)


def _has_lead(token: str) -> bool:
    """``^(?:~/|\\./|\\.\\./|/|\\.(?=[A-Za-z]))``: a path or a dotfile starts here."""
    if token.startswith(("~/", "./", "../", "/")):
        return True
    return len(token) > 1 and token[0] == "." and (token[1] in _UPPER or token[1] in _LOWER)


def iter_tokens(text: str, *, drop_stopwords: bool = True):
    """:func:`tokenize_code_aware`'s tokens, one at a time."""
    if not isinstance(text, str) or not text:
        return
    out: list[str] = []
    for raw in _raw_tokens(text):
        if _is_cjk(raw[0]):
            yield from (raw[k: k + 2] for k in range(len(raw) - 1)) if len(raw) > 1 else (raw,)
            continue
        # trailing punctuation is sentence punctuation; a leading dot is a dotfile
        token = raw.rstrip(".:-#+")
        body = token if _has_lead(token) else token.lstrip(".:-#+/")
        if not body or not any(c in _ALNUM for c in body):
            continue
        _expand(body, out, drop_stopwords)
        yield from out
        out.clear()


def tokenize_code_aware(text: str, *, drop_stopwords: bool = True) -> list[str]:
    """Lowercase tokens that keep code meaningful for lexical ranking (see the module doc); in the
    text's order, repeats kept (term frequency matters)."""
    return list(iter_tokens(text, drop_stopwords=drop_stopwords))
