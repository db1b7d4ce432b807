"""The changes a page offers, through the front door (``Tacit``) as you: ``(you, app, form) -> result``.

Design notes: docs/design/search.md#tacituiactions
"""

from __future__ import annotations

from tacit.app import Tacit
from tacit.stores import history
from tacit.ui import pages

ACTOR = history.Actor(kind="user", name="tacit ui")


def edit_entry(you: Tacit, app, form: dict) -> dict:
    """Replace (empty new text: remove) one entry, whole as the page showed it, or nothing."""
    scope, old, new = form.get("scope", ""), _lines(form.get("entry", "")), _lines(form.get("text", ""))
    store = _memory(you, app, form.get("project", ""))
    if store is None:
        return {"success": False, "error": "that project is no longer known to tacit"}
    if not old:
        return {"success": False, "error": "no entry given"}
    if scope not in store.targets() or old not in store.entries(scope):
        return {"success": False, "error": "that entry changed since the page was shown (another tab, a session "
                                           "or the CLI): here it is as it is now, and what you typed is in the "
                                           "scope's add box"}
    if form.get("op") == "remove" or not new.strip():
        return store.remove(scope, old)
    return store.replace(scope, old, new)


def add_entry(you: Tacit, app, form: dict) -> dict:
    store = _memory(you, app, form.get("project", ""))
    if store is None:
        return {"success": False, "error": "that project is no longer known to tacit"}
    text = _lines(form.get("text", ""))
    if not text.strip():
        return {"success": False, "error": "nothing to add: the text is empty"}
    return store.add(form.get("scope", ""), text)


def _lines(text: str) -> str:
    """A form sends every line break as CRLF; the files hold LF."""
    return text.replace("\r\n", "\n")


def _memory(you: Tacit, app, key: str):
    projects = pages.projects(app.cfg, app.project)
    if not key:
        return you.memory(None)
    project = projects.get(key)
    return None if project is None else you.memory(project)


def undo(you: Tacit, _app, form: dict) -> dict:
    from tacit import changes

    try:
        change_id = int(form.get("id", ""))
    except ValueError:
        return {"success": False, "error": "no change id given"}
    return changes.undo(you, change_id)


def guard(you: Tacit, _app, form: dict) -> dict:
    """Lift (``remove``) or bring back (``restore``) one guard."""
    op, guard_id = form.get("op", ""), form.get("id", "")
    if op not in ("remove", "restore"):
        return {"success": False, "error": f"unknown guard action {op!r}"}
    with you.acting():
        store = you.guards()
        result = store.remove(guard_id, why="lifted in tacit ui") if op == "remove" else store.restore(guard_id)
    if result.get("success"):  # unchanged: another tab, a session or the CLI did it since the page was shown
        done = "lifted" if op == "remove" else "restored"
        result["message"] = f"Guard {guard_id} {done}." if result.get("changed", True) else \
            f"Guard {guard_id} was already {'lifted' if op == 'remove' else 'active'}: nothing changed."
    return result


def phrase_line(you: Tacit, app, form: dict) -> dict:
    """A guard for a rule line tacit could not read, phrased by you (the store decides)."""
    from tacit.stores.guard_files import add_for_line

    where, pattern = " ".join(form.get("where", "").split()), " ".join(form.get("pattern", "").split())
    if not where or not pattern:
        return {"success": False, "error": "type a pattern for the line (e.g. path:FILE or a command)"}
    with you.acting():
        result = add_for_line(you.guards(), where, pattern[:500], app.project)
    if result.get("lifted"):
        return {"success": False, "error": f"guard {result['lifted']} phrases {where} that way and is removed: "
                                           "restore it in the list to apply it again"}
    if not result.get("success"):
        return result
    gid = result["guard"]["id"]
    result["message"] = f"Guard {gid} {'added' if result.get('created') else 'already there'} for {where}."
    return result


def review(you: Tacit, _app, form: dict) -> dict:
    from tacit.learn.review import decide

    op, ref = form.get("op", ""), form.get("id", "")
    if op not in ("keep", "drop") or not ref:
        return {"success": False, "error": "keep or drop one note"}
    with you.acting():
        result = decide(you.cfg, keep=[ref] if op == "keep" else [], drop=[ref] if op == "drop" else [],
                        ledger=you.ledger)
    if result.get("success"):
        result["message"] = f"Note {ref} {'kept' if op == 'keep' else 'dropped'}."
    return result
