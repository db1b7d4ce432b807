"""The changes a page offers, through the same store paths as the CLI.

Every one runs as you (``Actor(kind="user", name="tacit ui")``: "you (tacit
ui)" in the history), takes the form's fields as plain strings, and returns
the store's result dict; a bad field is a refusal, never an exception.
"""

from __future__ import annotations

from tacit import changes
from tacit.projects import Project
from tacit.stores import history
from tacit.stores.guards import GuardStore
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore

ACTOR = history.Actor(kind="user", name="tacit ui")


def edit_entry(cfg, projects: dict[str, Project], form: dict) -> dict:
    """Replace (or, with an empty new text, remove) one entry of one scope."""
    scope, old, new = form.get("scope", ""), _lines(form.get("entry", "")), _lines(form.get("text", ""))
    store = _memory_store(cfg, projects, form.get("project", ""))
    if store is None:
        return {"success": False, "error": "that project is no longer known to tacit"}
    if not old:
        return {"success": False, "error": "no entry given"}
    if scope not in store.targets() or old not in store.entries(scope):
        return {"success": False, "error": "that entry is no longer there (it changed since the page was shown): "
                                           "reload and try again"}
    with history.acting(ACTOR):
        if form.get("op") == "remove" or not new.strip():
            return store.remove(scope, old)
        return store.replace(scope, old, new)


def add_entry(cfg, projects: dict[str, Project], form: dict) -> dict:
    store = _memory_store(cfg, projects, form.get("project", ""))
    if store is None:
        return {"success": False, "error": "that project is no longer known to tacit"}
    text = _lines(form.get("text", ""))
    if not text.strip():
        return {"success": False, "error": "nothing to add: the text is empty"}
    with history.acting(ACTOR):
        return store.add(form.get("scope", ""), text)


def _lines(text: str) -> str:
    """A form sends every line break as CRLF; the files hold LF."""
    return text.replace("\r\n", "\n")


def _memory_store(cfg, projects: dict[str, Project], key: str) -> MemoryStore | None:
    if not key:
        return MemoryStore(cfg, None)
    project = projects.get(key)
    return None if project is None else MemoryStore(cfg, project)


def undo(cfg, form: dict) -> dict:
    try:
        change_id = int(form.get("id", ""))
    except ValueError:
        return {"success": False, "error": "no change id given"}
    with history.acting(ACTOR):
        return changes.undo(cfg, change_id)


def guard(cfg, form: dict) -> dict:
    """Lift (``remove``) or bring back (``restore``) one guard."""
    op, guard_id = form.get("op", ""), form.get("id", "")
    if op not in ("remove", "restore"):
        return {"success": False, "error": f"unknown guard action {op!r}"}
    with Ledger(cfg) as ledger, history.acting(ACTOR):
        store = GuardStore(cfg, ledger)
        if op == "remove":
            result = store.remove(guard_id, why="lifted in tacit ui")
        else:
            result = store.restore(guard_id)
    if result.get("success"):
        result["message"] = f"Guard {guard_id} {'lifted' if op == 'remove' else 'restored'}."
    return result


def review(cfg, form: dict) -> dict:
    from tacit.learn.review import decide

    op, ref = form.get("op", ""), form.get("id", "")
    if op not in ("keep", "drop") or not ref:
        return {"success": False, "error": "keep or drop one note"}
    with history.acting(ACTOR):
        result = decide(cfg, keep=[ref] if op == "keep" else [], drop=[ref] if op == "drop" else [])
    if result.get("success"):
        result["message"] = f"Note {ref} {'kept' if op == 'keep' else 'dropped'}."
    return result
