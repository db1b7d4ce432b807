"""Private keys in PEM form: whole, cut short, or pasted over two messages.

``pem_span`` takes a block from its BEGIN line to its END line, or without an END line the header
and the key material after it; ``pem_tail_span`` takes an END line and the key lines before it (the
second half of a key pasted over two messages); ``key_open`` tells that a text ends inside a key,
and ``material_prefix`` how much key material a text starts with, so the host boundary can redact
the middle of a key pasted over three or more messages (``tacit.boundary``)."""

from __future__ import annotations

from tacit.lazyre import lazy

PEM_END = lazy(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
PEM_LIMIT = 20_000  # characters searched for the END line
# a line of key material (base64, or base64url: a key re-encoded or mangled by
# a paste must not leak its tail), a PEM header line ("Proc-Type: 4,ENCRYPTED"),
# or a literal "\n" of a key pasted from JSON
_KEY_LINE = r"(?:[ \t\r\n]|\\[nr])*+(?:[A-Za-z0-9+/_-]{16,}+={0,2}|[A-Za-z0-9+/_-]{1,15}+={1,2}"
_PIECE = lazy(_KEY_LINE + r"|(?:Proc-Type|DEK-Info|Comment|Version|Hash):[^\n\\]{0,200}+)")
_PIECE_LONG = lazy(_KEY_LINE + ")")  # key material only


def pem_span(match, text):
    """BEGIN line to END line; without an END line, the header and the key
    material after it (a truncated paste is still a key)."""
    start, pos = match.start(), match.start("secret")
    limit = min(len(text), pos + PEM_LIMIT)
    following = text.find("-----BEGIN", pos, limit)  # the next block is its own match
    if following != -1:
        limit = following
    end = PEM_END.search(text, pos, limit)
    return (start, end.end()) if end is not None else (start, _material_end(_PIECE, text, pos, limit))


def _material_end(piece_re, text: str, pos: int, limit: int) -> int:
    """Where the run of ``piece_re`` pieces from ``pos`` ends."""
    while pos < limit:
        piece = piece_re.match(text, pos, limit)
        if piece is None or piece.end() == pos:
            break
        pos = piece.end()
    return pos


_TAIL_LINE = lazy(r"\r?\n|\\[nr]")
_MATERIAL = lazy(r"[A-Za-z0-9+/_-]+={0,2}|(?:Proc-Type|DEK-Info|Comment|Version|Hash):.{0,200}")
_TRAILING = lazy(r"[A-Za-z0-9+/_-]{16,}={0,2}$")
_BEGIN = lazy(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")


def pem_tail_span(match, text):
    """The END line of a private key and the key lines before it: the second
    half of a key pasted over two messages (the first is the BEGIN rule's)."""
    end_line = match.start()
    floor = max(0, end_line - PEM_LIMIT)
    # back to the previous BEGIN or END line at most: each stretch is walked once
    floor = max(floor, text.rfind("-----BEGIN", floor, end_line), text.rfind("PRIVATE KEY-----", floor, end_line))
    chunk = text[floor:end_line]
    cuts = [0] + [m.end() for m in _TAIL_LINE.finditer(chunk)]
    start, stop = len(chunk), len(chunk)
    for cut in reversed(cuts):
        piece = chunk[cut:stop]
        if piece.strip() and not _MATERIAL.fullmatch(piece.strip()):
            tail = _TRAILING.search(piece.rstrip())
            start = cut + tail.start() if tail else start
            break
        start, stop = cut, max(cut - 1, 0)
        while stop > 0 and chunk[stop - 1] in "\\\r":
            stop -= 1
    return floor + start, match.end()


def key_open(text: str) -> bool:
    """Does ``text`` end inside a private key (a BEGIN line with no END line after it)?"""
    begin = text.rfind("-----BEGIN")
    if begin == -1 or _BEGIN.match(text, begin) is None:
        return False
    return PEM_END.search(text, begin) is None


def material_prefix(text: str) -> int:
    """How many characters of key material ``text`` starts with (0: none);
    only lines of 16+ key characters count, so a word or a short reply does not."""
    return _material_end(_PIECE_LONG, text, 0, min(len(text), PEM_LIMIT))

