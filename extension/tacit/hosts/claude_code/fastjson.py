"""JSON for the hook path without ``import json``.

Why: ``import json`` imports ``re`` (for two regexes the C accelerator never
uses), and ``re`` imports ``enum`` — about 8 ms, half of a bare interpreter
start-up, on every hook process. The C scanner and encoder in ``_json`` do the
real work in ``json`` anyway; this module calls them directly.

``loads``/``dumps`` accept and produce exactly what ``json.loads``/
``json.dumps(ensure_ascii=False, separators=(",", ":"))`` do for plain data
(dict, list, str, int, float, bool, None). Anything odd — an interpreter
without ``_json``, a decoding error — falls back to the ``json`` module, so
error messages and edge cases stay the standard ones. Only the hook's hot
path uses this; everything else imports ``json`` as usual.
"""

from __future__ import annotations

try:
    import _json
except ImportError:  # pragma: no cover — every CPython build has it
    _json = None


class _ScanContext:
    """The attributes ``_json.make_scanner`` reads from a JSONDecoder."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}[name]


_scan = _json.make_scanner(_ScanContext()) if _json is not None else None
_WHITESPACE = " \t\n\r"


def loads(data):
    """Parse one JSON document (str or UTF-8 bytes)."""
    text = data.decode("utf-8-sig") if isinstance(data, (bytes, bytearray)) else data
    stripped = text.strip(_WHITESPACE)
    if _scan is not None and stripped:
        try:
            value, end = _scan(stripped, 0)
        except StopIteration:
            pass  # not a JSON value: let json raise its usual error
        else:
            if end == len(stripped):
                return value
    import json

    return json.loads(text)


def _default(value):
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps(value) -> str:
    """Serialise plain data compactly, non-ASCII kept as is."""
    if _json is not None:
        try:
            encode = _json.make_encoder({}, _default, _json.encode_basestring, None, ":", ",",
                                        False, False, True)
            return "".join(encode(value, 0))
        except TypeError:
            pass  # an unexpected encoder signature or type: the json module decides
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
