"""Forget: remove what the user asked to forget, everywhere, and keep it gone.

``tacit forget TEXT``, ``/memory-forget TEXT`` and "forget that …" typed in a
session all come here. Every memory entry of the project's scopes (the user
profile, global notes, this project's memory, its team memory) that says what
TEXT says (``tacit.stores.tombstones.matches``) is removed, the matching
candidates are dismissed, and a tombstone keeps the lesson from being learned
again from new evidence. The result says exactly what was removed; one
``tacit memory undo`` of any of its changes puts everything back and lifts
the tombstone.
"""

from __future__ import annotations

from tacit.learn import lifecycle
from tacit.stores import history, tombstones
from tacit.stores.memory import MemoryStore

MAX_CHARS = 300  # a forget request is a phrase, not a document


def forget(cfg, text: str, *, project=None) -> dict:
    """Remove every entry saying ``text`` from every scope here; never raises."""
    if not isinstance(text, str) or not text.strip():
        return {"success": False, "error": "say what to forget: tacit forget \"we use pnpm\""}
    text = " ".join(text.split())[:MAX_CHARS]
    store = MemoryStore(cfg, project)
    with history.ledger_for(cfg) as ledger:
        with ledger.write() as conn:
            tombstone = tombstones.add(conn, text)
        group = f"forget:{tombstone}"
        removed: list[dict] = []
        failures: list[str] = []
        for scope in store.targets():
            gone: list[str] = []

            def without(entries: list[str], gone: list[str] = gone) -> list[str]:
                kept = [e for e in entries if not tombstones.matches(text, e)]
                gone[:] = [e for e in entries if e not in kept]
                return kept

            with history.using(ledger):
                result = store.rewrite(scope, without, action="forget", group=group)
            if not result.get("success"):
                failures.append(f"{scope}: {result.get('error')}")
                continue
            removed += [{"scope": scope, "entry": e, "change_id": result.get("change_id")} for e in gone]
        candidates = _forget_candidates(cfg, ledger, text)
    return {"success": not failures, "text": text, "removed": removed, "candidates": candidates,
            "tombstone": tombstone, "errors": failures, "message": describe(text, removed, candidates, failures)}


def _forget_candidates(cfg, ledger, text: str) -> list[dict]:
    """Dismiss the ledger's candidates that say ``text``: [{id, text}]."""
    return lifecycle.forget_matching(cfg, ledger, lambda content: tombstones.matches(text, content))


def describe(text: str, removed: list[dict], candidates: list[dict], failures: list[str]) -> str:
    """What was forgotten, exactly: the entries, where, and the undo."""
    if not removed and not candidates:
        head = f'Nothing in memory says "{text}"; it will not be learned from now on'
    else:
        where = {}
        for item in removed:
            where.setdefault(history.SCOPE_NAMES.get(item["scope"], item["scope"]), []).append(item["entry"])
        parts = [f"{len(entries)} from {name} ({'; '.join(repr(e[:80]) for e in entries)})"
                 for name, entries in where.items()]
        if candidates:
            parts.append(f"{len(candidates)} candidate(s) not yet in memory")
        head = f'Forgot "{text}": removed ' + ", ".join(parts)
        ids = sorted({r["change_id"] for r in removed if r.get("change_id")})
        if ids:
            head += f" — undo: tacit memory undo {ids[0]}"
    if failures:
        head += ". Could not change: " + "; ".join(failures)
    return head + "."
