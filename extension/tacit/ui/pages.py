"""What each page shows, as data: read live from the stores on every request.

Design notes: docs/design/search.md#tacituipages
"""

from __future__ import annotations

import os
import time

from typing import TYPE_CHECKING

from tacit.display import clip

if TYPE_CHECKING:  # each page imports what it reads when it is first shown: the server starts small
    from tacit.app import Tacit
    from tacit.projects import Project
    from tacit.stores.memory import MemoryStore
    from tacit.stores.skill_scopes import ScopedSkills

HISTORY_PAGE = 100  # rows on the history page; ?limit= shows more
SHOWN_ENTRIES, SHOWN_CHARS = 500, 200_000  # a scope's entries listed at most (its limit is a few thousand chars)
SCOPE_TITLES = {"user": "You (USER.md)", "global": "Global notes", "project": "Project", "team": "Team (shared)"}


def projects(cfg, current: Project | None) -> dict[str, Project]:
    """Every project tacit keeps memory for, by key; the current one first."""
    from tacit.stores.guard_stats import known_projects

    found: dict[str, Project] = {}
    if current is not None:
        found[current.key] = current
    for project in known_projects(cfg):
        found.setdefault(project.key, project)
    return found


def _scope(store: MemoryStore, scope: str, project: Project | None) -> dict:
    entries = store.entries(scope)
    usage = store.usage(scope, entries)
    shown = _shown(entries)
    return {"scope": scope, "title": SCOPE_TITLES[scope], "path": str(store.path_for(scope)),
            "problem": _problem(store, scope),
            "entries": entries[:shown], "count": len(entries), "hidden": len(entries) - shown,
            "current": usage["current"], "limit": usage["limit"],
            "percent": min(100, round(100 * usage["current"] / usage["limit"])) if usage["limit"] else 0,
            "project": project.key if project is not None and scope in ("project", "team") else ""}


def _problem(store: MemoryStore, scope: str) -> str | None:
    """Why the store will refuse to rewrite this file (as ``tacit doctor`` says it), or None."""
    from tacit.stores.entries import check_file, read_head, too_long, unsafe_to_rewrite

    path = store.path_for(scope)
    try:
        data, size = read_head(path)  # a file of 100 MB is read only so far, here as everywhere
    except OSError:
        return None
    return too_long(path.name, size) if size > len(data) else \
        unsafe_to_rewrite(path.name, check_file(data, store.limit_for(scope)))


def _shown(entries: list, most: int = SHOWN_ENTRIES, chars: int = SHOWN_CHARS) -> int:
    """How many of a scope's entries the page lists: all of any file near its limit; a file grown
    far past it by hand (megabytes) is listed only so far, or the page takes seconds to draw."""
    total = 0
    for n, entry in enumerate(entries[:most]):
        total += len(entry)
        if total > chars:
            return max(1, n)
    return min(len(entries), most)


def memory(front: Tacit, current: Project | None) -> dict:
    """Every scope: you, global, this project (and its team), every other project."""
    base = front.memory(None)
    groups = [{"title": "Everywhere", "root": "", "scopes": [_scope(base, "user", None), _scope(base, "global", None)]}]
    for key, project in projects(front.cfg, current).items():
        store = front.memory(project)
        scopes = [_scope(store, s, project) for s in store.targets() if s in ("project", "team")]
        label = "This project" if current is not None and key == current.key else "Another project"
        groups.append({"title": f"{label}: {project.name}", "root": project.main_root or project.root,
                       "scopes": scopes})
    return {"groups": groups}


def history(front: Tacit, limit: int = HISTORY_PAGE) -> dict:
    rows = []
    for change in front.changes(limit=limit + 1):
        added, removed = change.added(), change.removed()
        rows.append({"id": change.id, "time": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(change.at)),
                     "action": change.action, "scope": change.scope, "actor": change.actor.describe(),
                     "cause": clip(change.actor.cause, 300), "added": clip(" | ".join(added), 300),
                     "removed": clip(" | ".join(removed), 300),
                     "text": "" if added or removed else clip(_what(change), 300),
                     "undone_by": change.undone_by,
                     "undoable": change.undone_by is None and not change.action.startswith("guard_")})
    return {"changes": rows[:limit], "more": len(rows) > limit, "limit": limit}


def _what(change) -> str:
    """A change that is not a list of entries, in a few words."""
    if change.scope.startswith("skill"):
        return f"skill {os.path.basename(os.path.dirname(change.target)) or change.target}"
    state = change.after if isinstance(change.after, dict) else change.before
    if change.action.startswith("guard_") and isinstance(state, dict):
        return f"{change.target} ({state.get('action', '')}, {state.get('status', '')}): “{state.get('because', '')}”"
    return change.text()


def guards(front: Tacit, current: Project | None) -> dict:
    """Every guard with its outcomes, and this project's unread rule lines not guarded yet."""
    from tacit.stores.guard_files import READ_BY_CHILD, unread_lines

    store = front.guards()
    store.sync(current)
    records = store.all()
    outcomes = store.per_guard()
    rows = []
    for record in records:
        counts = outcomes.get(record.id, {})
        rows.append({**record.as_dict(), "what": record.spec.describe().replace("`", ""), "date": record.date,
                     "project_root": record.project_root, "stops": counts.get("stop", 0),
                     "overrides": counts.get("override", 0), "wrong": counts.get("wrong", 0),
                     "repeats": counts.get("repeat", 0), "phrased": record.key.startswith(READ_BY_CHILD)})
    rows.sort(key=lambda r: (r["status"] != "active", r["id"]))
    phrased = {r.file for r in store.applying(current) if r.key.startswith(READ_BY_CHILD)}
    unread = [u for u in unread_lines(front.ledger, front.cfg, current) if u["where"] not in phrased]
    return {"guards": rows, "unread": unread}


def review(front: Tacit) -> dict:
    from tacit.learn.review import review_items

    with front.ledger.read() as conn:
        items = review_items(conn, now=time.time(), include_all=True)
    return {"items": items}


def cost(front: Tacit, days: int = 14) -> dict:
    from tacit.children import budget
    from tacit.children.budget import report

    data = report(front.cfg, days)
    limit = data["budget"]["child_daily_tokens"] or 0
    by_day = {d["day"]: d for d in data["by_day"]}
    start = budget.day_start(time.time())
    shown = [budget.day_of(start - back * 86400 + 3600) for back in range(days - 1, -1, -1)]
    series = [{"day": day, **by_day.get(day, {"runs": 0, "tokens": 0, "usd": 0.0})} for day in shown]
    top = max([limit] + [d["tokens"] for d in series] + [1]) * 1.15  # headroom for the budget's label
    for d in series:
        d["height"] = round(100 * d["tokens"] / top, 1)
        d["over"] = bool(limit) and d["tokens"] > limit
    return {**data, "series": series, "limit_tokens": limit, "limit_y": round(100 * limit / top, 1) if limit else None}


class LiveSkills:
    """The skill stores of one page, rebuilt only when a SKILL.md or skills folder changed."""

    def __init__(self, cfg, project: Project | None):
        self.cfg, self.project = cfg, project
        self.scoped: ScopedSkills | None = None
        self.seen: tuple = ()

    def get(self) -> ScopedSkills:
        if self.scoped is None:
            from tacit.app import Tacit

            self.scoped = Tacit(self.cfg).skills(self.project)  # reads only: no actor, no ledger
        stamp = tuple(_stamp(store.skills_dir) for store in self.scoped.stores.values())
        if stamp != self.seen:
            self.scoped.refresh()
            self.seen = stamp
        return self.scoped


def _stamp(folder, depth: int = 3) -> tuple:
    """Every folder's and SKILL.md's modification time under ``folder``."""
    out = []
    try:
        with os.scandir(folder) as found:
            for entry in found:
                if entry.is_dir(follow_symlinks=False) and depth > 1 and entry.name not in (".trash", ".hub"):
                    out.append((entry.name, entry.stat().st_mtime_ns, _stamp(entry.path, depth - 1)))
                elif entry.name == "SKILL.md":
                    info = entry.stat()
                    out.append((entry.name, info.st_mtime_ns, info.st_size))
    except OSError:
        return ()
    return tuple(sorted(out))


def skills(live: LiveSkills) -> dict:
    listing = live.get().list()
    return {"skills": listing["skills"], "problems": listing["problems"], "dirs": listing["skills_dirs"]}


def skill(live: LiveSkills, name: str, scope: str | None) -> dict:
    scoped = live.get()
    if scope and scope not in scoped.stores:  # refused, not shown as if it were a scope
        known = ", ".join(scoped.scopes())
        return {"name": name, "scope": None,
                "result": {"success": False, "error": f"no skill scope {scope!r} here (the scopes are {known})"}}
    store = scoped.stores.get(scope) if scope else None
    result = store.view(name) if store is not None else scoped.view(name)
    return {"name": name, "scope": scope or result.get("scope"), "result": result}


def search(front: Tacit, current: Project | None, query: dict) -> dict:
    """Past sessions of every host (``tacit search``): this project's, or all."""
    from tacit.search.searcher import search as run

    words = " ".join(str(query.get("q") or "").split())[:500]
    everywhere = query.get("all") == "1" or current is None
    if not words:
        return {"q": "", "all": everywhere, "results": None, "left_out": 0, "no_sessions": False}
    found = run(front.cfg, words, cwd=current.root if current is not None else None, all_projects=everywhere,
                limit=20)
    return {"q": words, "all": everywhere, "results": found.get("results") or [],
            "left_out": found.get("left_out") or 0, "no_sessions": (found.get("indexed") or {}).get("files") == 0}
