"""The deterministic merge: what consolidation does without an agent.

Design notes: docs/design/stores.md#tacitstoresmemory_merge"""

from __future__ import annotations

import re

from tacit.stores.memory import MemoryStore

_WORD = re.compile(r"[\w./-]+", re.UNICODE)


def _normal(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".!;,: ")


def _words(text: str) -> set[str]:
    return {w.strip(".,;:") for w in _WORD.findall(text.casefold())} - {""}


def plan_merge(entries: list[str]) -> tuple[list[str], list[dict]]:
    """Pure: (kept entries in order, merges made); each group's first place, its fullest text."""
    kept: list[str] = []
    merges: list[dict] = []
    for entry in entries:
        norm, words = _normal(entry), _words(entry)
        merged = False
        for i, existing in enumerate(kept):
            ex_norm, ex_words = _normal(existing), _words(existing)
            same = norm == ex_norm
            contained = bool(words) and (words <= ex_words or ex_words <= words) and min(
                len(words), len(ex_words)) >= 3
            if same or contained:
                # the entry whose words include the other's carries more
                winner = entry if (not same and words > ex_words) else existing
                merges.append({"kept": winner, "dropped": entry if winner == existing else existing,
                               "why": "duplicate" if same else "contained"})
                kept[i] = winner
                merged = True
                break
        if not merged:
            kept.append(entry)
    return kept, merges


def merge_duplicates(store: MemoryStore, target: str) -> dict:
    """Apply ``plan_merge`` to a target of ``store``: ``{"merged", "merges", "usage", "still_over"}``,
    or ``{"merged": 0, "error"}`` when the file drifted or its lock stayed busy."""
    merges: list[dict] = []

    def merge(entries: list[str]) -> list[str]:
        kept, made = plan_merge(entries)
        merges.extend(made)
        return kept

    result = store.rewrite(target, merge)
    if not result["success"]:
        return {"merged": 0, "error": result["error"]}
    usage = store.usage(target, result["entries"])
    return {"merged": len(merges), "merges": merges, "usage": usage["text"],
            "still_over": usage["current"] > usage["limit"]}
