"""What every safety check does first: any value as text, never raising.

A host may hand tacit ``None``, bytes (invalid UTF-8 included) or a number
where a string belongs; the checks read them all the same way."""

from __future__ import annotations


def as_text(value) -> str:
    """``value`` as a str: bytes decoded (bad bytes replaced), None as ""."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)
