"""Guards derived from text, kept on disk by that very text (never raises on a bad memo).

Design notes: docs/design/stores.md#tacitstoresguard_memo
"""

from __future__ import annotations

import hashlib
import json

from tacit.stores import file_memo


class DerivedMemo:
    """``kept(text, derive, encode, decode)`` for the texts of one ``kind`` under one root."""

    def __init__(self, cfg, kind: str, root: str | None):
        self._memo = file_memo.memo_for(cfg, kind, root or "")

    def kept(self, text: str, derive, encode, decode) -> list:
        """``decode`` of each item kept for ``text``; else ``derive()``'s items, kept."""
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        found = self._memo.get(key, [len(text)])
        if isinstance(found, dict) and isinstance(found.get("items"), list) and found.get("sum") == _sum(
                key, found["items"]):
            try:
                return [decode(item) for item in found["items"]]
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                pass  # derived again below
        items = list(derive())
        encoded = [encode(item) for item in items]
        self._memo.put(key, [len(text)], {"items": encoded, "sum": _sum(key, encoded)})
        return items

    def save(self) -> None:
        """Write what was added; keep only the texts looked up since the last save."""
        self._memo.save(prune=True)


def _sum(key: str, items) -> str:
    raw = key + json.dumps(items, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:24]
