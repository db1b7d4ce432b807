"""Forget: remove what the user asked to forget, everywhere, and keep it gone.

Design notes: docs/design/core.md#tacitforget
"""

from __future__ import annotations

import re

from tacit.app import Tacit
from tacit.detect.commands import wants_forget
from tacit.learn import lifecycle
from tacit.stores import candidates as candidate_store
from tacit.stores import history, tombstones
from tacit.stores.memory import MemoryStore

MAX_CHARS = 300  # a forget request is a phrase, not a document
ENTRY_ID = re.compile(r"^(user|global|project|team):(\d{1,4})$")
MAX_LISTED = 8
_NOTHING_TO_MATCH = ("nothing to match in {text!r}: it has no word to match on, only common ones ('the', 'use' …) "
                     "or none; say what the entry says (tacit forget \"we use pnpm\") or forget one by its id "
                     "(tacit memory show, then tacit forget project:2)")


def _scan(store: MemoryStore, text: str) -> tuple[list[dict], list[dict]]:
    """(entries that clearly say ``text``, entries that only mention it), each {id, scope, entry}."""
    clear, partial = [], []
    by_id = ENTRY_ID.match(text)
    for scope in store.targets():
        for index, entry in enumerate(store.entries(scope), 1):
            item = {"id": f"{scope}:{index}", "scope": scope, "entry": entry}
            if by_id:
                if (scope, index) == (by_id.group(1), int(by_id.group(2))):
                    clear.append(item)
                continue
            kind = tombstones.match_kind(text, entry)
            if kind == "clear":
                clear.append(item)
            elif kind == "partial":
                partial.append(item)
    return clear, partial


def forget(tacit: Tacit, text: str, *, project=None) -> dict:
    """Remove every entry clearly saying ``text`` (or with that id) from every scope, as ``tacit``'s actor."""
    if not isinstance(text, str) or not text.strip():
        return {"success": False, "error": "say what to forget: tacit forget \"we use pnpm\""}
    text = " ".join(text.split())[:MAX_CHARS]
    text = wants_forget(f"forget {text}") or text  # "what I said about tests" is about "tests", as said in chat
    if not text.isascii() and re.search("[\ud800-\udfff]", text):  # bytes of a command line that were not UTF-8
        return {"success": False, "error": "the text to forget is not valid UTF-8 (a byte such as "
                                           "\\xff that is no character); nothing was changed"}
    if not ENTRY_ID.match(text) and not tombstones.strong_words(tombstones.key_words(text)):  # no tombstone either
        return {"success": False, "text": text, "error": _NOTHING_TO_MATCH.format(text=text)}
    store = tacit.memory(project)
    clear, _partial = _scan(store, text)
    if ENTRY_ID.match(text) and not clear:
        return {"success": False, "error": f"no memory entry {text} here (tacit memory show lists them)"}
    said = clear[0]["entry"] if ENTRY_ID.match(text) else text
    doomed = {(c["scope"], c["entry"]) for c in clear}
    removed: list[dict] = []
    failures: list[str] = []
    with tacit.acting(), history.ledger_for(tacit.cfg) as ledger:
        with ledger.read() as conn:
            waiting = [row for row in candidate_store.live(conn)
                       if row.content and tombstones.matches(said, row.content)]
        with ledger.write() as conn:  # kept out of later saves, whatever is in memory now
            tombstone = tombstones.add(conn, said)
        if clear:
            removed, failures = _remove(store, ledger, doomed, f"forget:{tombstone}")
        candidates = lifecycle.forget_matching(  # the ledger's candidates that say it, dismissed
            tacit.cfg, ledger, lambda content: tombstones.matches(said, content)) if waiting else []
    _after, partial = _scan(store, said) if not ENTRY_ID.match(text) else ([], [])
    message = describe(said, removed, candidates, failures, partial)
    return {"success": not failures, "text": said, "removed": removed, "candidates": candidates,
            "unclear": partial, "tombstone": tombstone, "errors": failures, "message": message,
            **({"error": message} if failures else {})}  # a failure's sentence, as every command's


def _remove(store: MemoryStore, ledger, doomed: set, group: str) -> tuple[list[dict], list[str]]:
    removed: list[dict] = []
    failures: list[str] = []
    for scope in sorted({s for s, _e in doomed}):
        gone: list[str] = []

        def without(entries: list[str], gone: list[str] = gone, scope: str = scope) -> list[str]:
            kept = [e for e in entries if (scope, e) not in doomed]
            gone[:] = [e for e in entries if e not in kept]
            return kept

        with history.using(ledger):
            result = store.rewrite(scope, without, action="forget", group=group)
        if not result.get("success"):
            failures.append(f"{scope}: {result.get('error')}")
            continue
        removed += [{"scope": scope, "entry": e, "change_id": result.get("change_id")} for e in gone]
    return removed, failures


def describe(text: str, removed: list[dict], candidates: list[dict], failures: list[str], unclear: list[dict]) -> str:
    """What was forgotten, exactly: the entries, where, and the undo — or that nothing was."""
    if not removed and not candidates:
        what = (f'the entries saying "{text}" could not be changed' if failures else
                f'no memory entry says "{text}"')
        head = f"Nothing removed: {what} (later saves that say it are refused until you teach it again)"
    else:
        where: dict[str, list[str]] = {}
        for item in removed:
            where.setdefault(history.SCOPE_NAMES.get(item["scope"], item["scope"]), []).append(item["entry"])
        parts = [f"{len(entries)} from {name} ({'; '.join(repr(e[:80]) for e in entries)})"
                 for name, entries in where.items()]
        in_memory = {lifecycle.comparable(r["entry"]) for r in removed}  # a taught or applied one was an entry
        waiting = [c for c in candidates if lifecycle.comparable(c.get("text") or "") not in in_memory]
        if waiting:
            parts.append(f"{len(waiting)} candidate(s) not yet in memory")
        head = f'Forgot "{text}": removed ' + ", ".join(parts)
        ids = sorted({r["change_id"] for r in removed if r.get("change_id")})
        if ids:
            head += f" — undo: tacit memory undo {ids[0]}"
    if unclear:
        listed = "; ".join(f"[{u['id']}] {u['entry'][:80]!r}" for u in unclear[:MAX_LISTED])
        more = f" and {len(unclear) - MAX_LISTED} more" if len(unclear) > MAX_LISTED else ""
        head += (f". {'Also' if removed or candidates else 'These'} mention it, not removed: {listed}{more} — "
                 f"to forget one, forget it by its id (tacit forget {unclear[0]['id']})")
    if failures:
        head += ". Could not change: " + "; ".join(f.rstrip(".") for f in failures)
    return head + "."
