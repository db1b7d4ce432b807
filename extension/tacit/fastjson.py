"""JSON for the hook path without ``import json``.

Why: ``import json`` imports ``re`` (for two regexes the C accelerator never
uses), and ``re`` imports ``enum`` and ``functools`` — about 8 ms on the
project machine, most of a bare interpreter start-up (~11 ms), paid by every
Claude Code hook process. The C scanner and encoder in ``_json`` do the real
work inside ``json`` anyway; this module calls them directly, configured
exactly as ``json.loads`` and ``json.dumps`` configure them.

Design decisions, and why
- **Exactly ``json``'s result or ``json`` itself.** ``loads(data)`` returns
  what ``json.loads(data)`` returns; ``dumps(value, ensure_ascii=…,
  separators=…)`` returns what ``json.dumps(value, ensure_ascii=…,
  separators=…)`` returns. Whatever this module does not handle on its own —
  invalid JSON, UTF-16/32 input, bytes that are not UTF-8, a value the
  encoder refuses, an interpreter without ``_json`` or with a different
  ``_json`` — is handed to the ``json`` module, so errors, messages and edge
  cases stay the standard ones. Checked against ``json`` by property tests
  (tests/unit/test_fastjson.py).
- **Only the hook path uses it:** session state, the background journal,
  child job files and the Claude Code adapter. Everything else imports
  ``json`` as usual.
- **A fresh encoder per call.** ``json`` builds one per ``dumps`` too: the
  encoder's circular-reference ``markers`` dict must start empty, and one
  left over from a failed call would not.
"""

from __future__ import annotations

try:
    import _json
except ImportError:  # pragma: no cover — every CPython build has it
    _json = None

COMPACT = (",", ":")  # what the hook prints
DEFAULT_SEPARATORS = (", ", ": ")  # json.dumps' own default (indent=None)
_WHITESPACE = " \t\n\r"  # json's WHITESPACE: nothing else counts
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _ScanContext:
    """The attributes ``_json.make_scanner`` reads from a ``JSONDecoder()``
    built with no arguments (``json.loads``' default decoder)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan = _json.make_scanner(_ScanContext()) if _json is not None else None


def _json_module():
    import json

    return json


def _decode_bytes(data) -> str | None:
    """``data`` decoded the way ``json.loads`` decodes bytes, when that is
    UTF-8 (with or without a BOM); None for anything else (UTF-16/32,
    invalid UTF-8), which ``json`` then handles itself."""
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]  # 'utf-8-sig': exactly one BOM is dropped
    elif data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return None  # UTF-16/UTF-32 byte-order marks
    elif len(data) >= 4:
        if not data[0] or not data[1]:
            return None  # json.detect_encoding: UTF-16/32 without a BOM
    elif len(data) == 2 and (not data[0] or not data[1]):
        return None
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None


def loads(data):
    """``json.loads(data)`` for ``str``, ``bytes`` or ``bytearray``."""
    if _scan is not None:
        if isinstance(data, str):
            text = data
        elif isinstance(data, (bytes, bytearray)):
            text = _decode_bytes(data)
        else:
            text = None
        if text is not None:
            start, length = 0, len(text)
            while start < length and text[start] in _WHITESPACE:
                start += 1
            try:
                value, end = _scan(text, start)
            except Exception:  # noqa: BLE001 — StopIteration, JSONDecodeError, …: json decides
                pass
            else:
                if end == length or not text[end:].strip(_WHITESPACE):
                    return value
    return _json_module().loads(data)


def _refuse(value):
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_encoder_ok: bool | None = None  # does this _json take json's 3.11 arguments?


def _encode(value, ensure_ascii: bool, separators) -> str:
    encode_str = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    item_separator, key_separator = separators
    # (markers, default, encoder, indent, key_separator, item_separator,
    #  sort_keys, skipkeys, allow_nan) — json.encoder.JSONEncoder.iterencode
    encoder = _json.make_encoder({}, _refuse, encode_str, None, key_separator, item_separator,
                                 False, False, True)
    return "".join(encoder(value, 0))


def _encoder_works() -> bool:
    global _encoder_ok
    if _encoder_ok is None:
        try:
            probe = _encode({"a": [1, 2.5, None, True, "é\n"], "b": {}}, False, (", ", ": "))
            _encoder_ok = probe == '{"a": [1, 2.5, null, true, "é\\n"], "b": {}}'
        except Exception:  # noqa: BLE001 — a _json with other arguments: use json
            _encoder_ok = False
    return _encoder_ok


def dumps(value, *, ensure_ascii: bool = False, separators=COMPACT) -> str:
    """``json.dumps(value, ensure_ascii=ensure_ascii, separators=separators)``.

    The defaults suit the hook's output (compact, non-ASCII kept as is);
    pass ``separators=DEFAULT_SEPARATORS`` for ``json.dumps``' own layout."""
    if _json is not None and _encoder_works():
        try:
            return _encode(value, ensure_ascii, separators)
        except Exception:  # noqa: BLE001 — unserialisable, circular, NaN rules…: json decides
            pass
    return _json_module().dumps(value, ensure_ascii=ensure_ascii, separators=separators)
