"""Reading and reverting the history: ``tacit memory log | why | undo``.

Design notes: docs/design/core.md#tacitchanges
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from tacit.app import Tacit
from tacit.failures import LedgerUnavailable
from tacit.scopes import SCOPES
from tacit.stores import history, tombstones


def why(tacit: Tacit, text: str, *, project=None) -> dict:
    """Every memory entry holding ``text`` now with the changes that brought it (oldest first), and
    the changes that removed such an entry."""
    store = tacit.memory(project)
    needle = text.casefold()
    rows = list(reversed(tacit.changes(text=text, limit=500)))
    found = []
    for scope in store.targets():
        for entry in store.entries(scope):
            if needle not in entry.casefold():
                continue
            path = str(store.path_for(scope))
            story = [c for c in rows if c.target == path and (entry in c.added() or _written(c, entry))]
            found.append({"scope": scope, "entry": entry, "path": path,
                          "changes": [c.as_dict() for c in story],
                          "origin": story[0].as_dict() if story else None})
    gone = [c.as_dict() for c in rows if any(needle in e.casefold() for e in c.removed())]
    return {"success": True, "text": text, "entries": found, "removed": gone}


def _written(change: history.Change, entry: str) -> bool:
    return isinstance(change.after, list) and entry in change.after and change.before is None


def undo(tacit: Tacit, change_id: int) -> dict:
    """Revert one change (with the rest of its group) as ``tacit``'s actor; what was done. Each row
    is marked undone as soon as its file is, so an undo that stops half way leaves an exact history,
    and a repeat reverts only the rows left."""
    ledger = tacit.ledger
    change = history.get(ledger, change_id)
    if change is None:
        return {"success": False, "error": f"no change #{change_id} in the history (see: tacit memory log)"}
    rows = history.group_of(ledger, change.group) if change.group else [change]
    left = [c for c in rows if c.undone_by is None]
    if not left:
        first = next((c for c in rows if c.id == change.id), rows[0])  # the one asked about, when it is
        return {"success": False, "error": f"change #{first.id} was already undone by #{first.undone_by}"
                                           f" (undo #{first.undone_by} to redo it)"}
    unwritable = _history_unwritable(ledger)
    if unwritable:
        return {"success": False, "error": f"#{change_id} not undone: {unwritable}", "undone": []}
    group = f"undo:{change_id}"
    results = []
    with history.using(ledger):
        for row in left:  # newest first
            result = _undo_skill(tacit, row, group) if row.scope.startswith("skill") else _undo_memory(tacit, row, group)
            if result["success"] and result.get("change_id") is not None:
                result = _marked(ledger, row, result)
            if not result["success"]:
                made = [r for r in results if r.get("change_id") is not None]
                return {**result, "error": f"#{row.id} not undone: {result['error']}{_partly(results, change_id)}",
                        "undone": [r["id"] for r in results], "change_ids": [r["change_id"] for r in made]}
            results.append(result)
        if change.group.startswith("forget:"):  # undoing a forget is teaching it again
            with ledger.write() as conn:
                tombstones.lift(conn, int(change.group.split(":", 1)[1]))
    return _undone(tacit, change, rows, left, results)


def _marked(ledger, row: history.Change, result: dict) -> dict:
    """``result`` once ``row`` is marked undone by it; a failure when the history would not take the mark."""
    try:
        history.mark_undone(ledger, row.id, result["change_id"])
        return result
    except LedgerUnavailable as exc:
        return {"success": False, "error": f"its undo #{result['change_id']} was made, but the history could not "
                                           f"mark it ({exc}; tacit doctor)"}


def _undone(tacit: Tacit, change: history.Change, rows: list, left: list, results: list[dict]) -> dict:
    """The answer of an undo whose every row left was reverted."""
    change_id = change.id
    ids = [r["change_id"] for r in results if r.get("change_id") is not None]
    restored = [e for r in results for e in r.get("restored", [])]
    dropped = [e for r in results for e in r.get("dropped", [])]
    unrecorded = [r["unrecorded"] for r in results if r.get("unrecorded")]
    earlier = [c.id for c in rows if c.undone_by is not None]
    if not ids and unrecorded:  # the files were changed, but the history could not say so
        return {"success": True, "message": f"Undid #{change_id}.", "undone": [r.id for r in left],
                "unrecorded": unrecorded[0], "restored": restored, "removed": dropped}
    if not ids:
        later = [c for c in tacit.changes(since=change.at, limit=500)
                 if c.id > change.id and c.target == change.target and set(c.removed()) & set(change.added())]
        since = f" (changed since by #{later[-1].id}, {later[-1].action})" if later else ""
        return {"success": False, "error": f"nothing to undo: what #{change_id} did is no longer there{since}",
                "undone": []}
    message = f"Undid #{change_id}" + (f" ({len(rows)} changes of {change.group})" if len(rows) > 1 else "")
    if earlier:
        message = (f"Undid #{change_id}: the rest of {change.group} ({len(left)} of {len(rows)} changes; "
                   f"{', '.join(f'#{i}' for i in earlier)} {'was' if len(earlier) == 1 else 'were'} undone before)")
    return {"success": True, "message": message + ".", "undone": [r.id for r in left], "change_ids": ids,
            "change_id": ids[0], "undone_before": earlier, "restored": restored, "removed": dropped}


def _partly(results: list[dict], change_id: int) -> str:
    """What a group's undo that stopped half way changed before it stopped (marked undone in the history)."""
    made = [r for r in results if r.get("change_id") is not None]
    if not made:
        return ""
    rows = ", ".join(f"#{r['id']}" for r in made)
    return (f" ({rows} of the same group {'was' if len(made) == 1 else 'were'} undone before it: "
            f"`tacit memory undo {made[0]['change_id']}` puts that back, `tacit memory undo {change_id}` "
            "again undoes the rest)")


def _history_unwritable(ledger) -> str | None:
    """Why the history cannot take a change now (None: it can). An undo is made only when it can be
    recorded: one that is not could be neither redone nor told apart from a hand edit."""
    try:
        ledger.probe_write()
        return None
    except LedgerUnavailable as exc:
        return (f"the history cannot be written ({exc}), and an undo it cannot record could not be redone; "
                "nothing was changed (tacit doctor)")


def _undo_memory(tacit: Tacit, row: history.Change, group: str) -> dict:
    if row.action.startswith("guard_"):
        return {"success": False, "error": f"#{row.id} changed a guard: use tacit guard restore | set | remove"}
    if row.scope not in SCOPES:
        return {"success": False, "error": f"unknown scope {row.scope!r}"}
    before = row.before if isinstance(row.before, list) else []
    after = row.after if isinstance(row.after, list) else []
    added = [e for e in after if e not in before]
    removed = [e for e in before if e not in after]
    store = tacit.memory(tacit.project(row.project) if row.project else None)
    if row.scope not in store.targets():
        return {"success": False, "error": f"the {row.scope} memory of {row.project or 'this change'} is gone"}
    if str(store.path_for(row.scope)) != row.target:
        return {"success": False, "error": f"{row.target} is no longer where the {row.scope} memory lives"}
    outcome: dict = {}

    def inverse(entries: list[str]) -> list[str]:
        kept = [e for e in entries if e not in added]
        outcome["dropped"] = [e for e in entries if e in added]
        missing = [e for e in removed if e not in kept]
        for entry in missing:  # back where it was, as near as the file allows
            at = before.index(entry)
            anchor = next((i + 1 for i in range(len(kept) - 1, -1, -1) if kept[i] in before[:at]), 0)
            kept.insert(anchor, entry)
        outcome["restored"] = missing
        return kept

    result = store.rewrite(row.scope, inverse, action="undo", group=group)
    if not result.get("success"):
        return result
    return {"success": True, "id": row.id, "change_id": result.get("change_id"),
            "restored": outcome.get("restored", []), "dropped": outcome.get("dropped", []),
            **({"unrecorded": result["unrecorded"]} if result.get("unrecorded") else {})}


def _undo_skill(tacit: Tacit, row: history.Change, group: str) -> dict:
    from tacit.fsutil import atomic_write_text, ensure_private_dir

    path = Path(row.target)
    current = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    if isinstance(row.after, dict):  # a delete: the folder is in the trash
        trash = Path(row.after.get("trash_path", ""))
        if current is not None:
            return {"success": False, "error": f"{path} exists again; move it away first"}
        if not trash.is_dir():
            return {"success": False, "error": f"the deleted skill is no longer in the trash ({trash})"}
        os.rename(trash, path.parent)
        new = row.before if isinstance(row.before, str) else None
    else:
        if current != row.after:
            return {"success": False, "error": f"{path} was changed after #{row.id}; undoing it would lose "
                                               "that change (edit the skill instead)"}
        if row.before is None:  # a create: the new skill goes to the trash
            from tacit.stores.skills import TRASH_DIR

            trash = path.parent.parent / TRASH_DIR
            ensure_private_dir(trash)
            os.rename(path.parent, trash / f"{path.parent.name}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}")
            new = None
        else:
            atomic_write_text(path, row.before)
            new = row.before
    change = history.record(tacit.cfg, action="skill_undo", scope=row.scope, target=row.target, before=current,
                            after=new, actor=tacit.require_actor(), group=group)
    unrecorded = {} if change is not None else {"unrecorded": history.UNRECORDED}
    return {"success": True, "id": row.id, "change_id": change, "restored": [], "dropped": [], **unrecorded}
