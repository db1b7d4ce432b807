"""Saved lessons tacit cannot read as a guard, for the rule reader.

Design notes: docs/design/stores.md#tacitstoresunread_lessons"""

from __future__ import annotations

import re

from tacit.guards.instructions import unread_rule
from tacit.stores import history
from tacit.stores.guard_files import asked_id, asked_ids, asked_key
from tacit.stores.guards import derived
from tacit.stores.memory import MemoryStore

MAX_SEARCHED = 20  # entries looked up in the history per call: a session's first turn end waits for it


def unasked_lessons(ledger, cfg, project, *, limit: int = 20) -> list:
    """``{"where": "memory:<scope>:<change>", "text", "change"}`` of each unread lesson seen from
    ``project`` no child was shown (``change`` None: no history row saved it; mark it all the same)."""
    store = MemoryStore(cfg, project)
    asked = asked_ids(ledger, asked_key(project, "memory:"))
    out, searched = [], 0
    for scope in store.targets():
        for entry in store.entries(scope):
            if len(out) >= limit or searched >= MAX_SEARCHED:
                return out
            if asked_id(f"memory:{scope}:0", entry) in asked or not unread_rule(entry) or derived(entry):
                continue
            searched += 1
            change = _saved_by(ledger, entry)
            out.append({"where": f"memory:{scope}:{change or 0}", "text": entry, "change": change})
    return out


def _saved_by(ledger, entry: str) -> int | None:
    """The newest change that added ``entry`` (its history row), if any."""
    pieces = re.split(r'["\\]', entry)  # the history keeps entries as JSON: these are escaped there
    probe = max(pieces, key=len).strip()[:80]
    if len(probe) < 8:
        return None
    for change in history.changes(ledger, text=probe, limit=20):
        if entry in change.added() or (isinstance(change.after, str) and change.after == entry):
            return change.id
    return None
