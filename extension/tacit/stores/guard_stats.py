"""Guard figures per project: lessons, guards, calls stopped, overrides and the repeat-mistake rate
(``tacit guard stats``, and the end of ``tacit stats``).

Design notes: docs/design/stores.md#tacitstoresguard_stats"""

from __future__ import annotations

import json
import os

from tacit.projects import Project, project_for
from tacit.stores.guards import GuardStore
from tacit.stores.ledger import Ledger, LedgerUnavailable
from tacit.stores.memory import MemoryStore


def known_projects(cfg) -> list[Project]:
    """Every project with tacit data: its memory folder names it."""
    found = []
    base = cfg.home / "projects"
    for meta in sorted(base.glob("*/project.json")) if base.is_dir() else ():
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
            found.append(Project(key=data["key"], root=data["root"], name=data["name"],
                                 kind=data.get("kind", "git"), main_root=data["root"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


def stats(cfg, store: GuardStore, *, only: Project | None = None, include_current: Project | None = None) -> dict:
    """Per project: lessons, lessons that are guards, active guards, calls stopped, overrides,
    repeat mistakes and the repeat-mistake rate."""
    projects = [only] if only is not None else known_projects(cfg)
    if only is None and include_current is not None and all(p.key != include_current.key for p in projects):
        projects.append(include_current)
    rows = [_project_stats(cfg, store, project) for project in projects]
    if only is None:
        outside = store.counts(project="")
        if any(outside.values()):
            rows.append(_project_stats(cfg, store, None))
    totals = {k: sum(r[k] for r in rows) for k in ("stopped", "overridden", "wrong", "repeats", "prevented",
                                                     "from_files")}
    totals["repeat_rate"] = _rate(totals["repeats"], totals["stopped"])
    return {"success": True, "projects": rows, "totals": totals}


def _project_stats(cfg, store: GuardStore, project: Project | None) -> dict:
    store.sync(project)
    memory = MemoryStore(cfg, project)
    entries = [e for scope in memory.targets() for e in memory.entries(scope)]
    guards = store.applying(project)
    key = project.key if project is not None else ""
    counts = store.counts(project=key)
    enforced = {r.lesson for r in guards if r.origin == "memory" and r.file is None}
    per = store.per_guard(project=key)
    records = {r.id: r for r in store.applying(project, statuses=("active", "removed", "gone"))}
    per_guard = []
    for gid, c in sorted(per.items()):
        record = records.get(gid)
        if record is None:
            continue
        per_guard.append({"id": gid, "source": record.source(), "status": record.status, "fired": c["stop"],
                          "overridden": c["override"], "wrong": c["wrong"], "repeats": c["repeat"],
                          "prevented": prevented(c), "lifted": record.status == "removed"})
    return {"project": project.name if project else None, "root": project.main_root if project else None,
            "lessons": len(entries), "lessons_guarded": sum(1 for e in set(entries) if e in enforced),
            "guards": len(guards), "from_files": sum(1 for r in guards if r.file is not None),
            "stopped": counts["stop"], "overridden": counts["override"],
            "wrong": counts["wrong"], "repeats": counts["repeat"],
            "prevented": sum(g["prevented"] for g in per_guard),
            "repeat_rate": _rate(counts["repeat"], counts["stop"]), "per_guard": per_guard}


def prevented(counts: dict) -> int:
    """Stops not overridden: mistakes prevented."""
    return max(0, counts.get("stop", 0) - counts.get("override", 0))


def _rate(repeats: int, stopped: int) -> float | None:
    attempts = repeats + stopped
    return round(repeats / attempts, 4) if attempts else None


def render_stats(data: dict) -> str:
    """The stats as text, one line per project (what ``tacit stats`` may append)."""
    lines = ["Guards (lessons checked before tool calls):"]
    if not data["projects"]:
        lines.append("  no project has lessons or guards yet")
    for row in data["projects"]:
        rate = "-" if row["repeat_rate"] is None else f"{row['repeat_rate'] * 100:.1f}%"
        name = f"{row['project']} ({row['root']})" if row["project"] else "outside any project"
        files = f" ({row['from_files']} from instruction files)" if row.get("from_files") else ""
        lines.append(f"  {name}: {_n(row['lessons'], 'lesson')} ({row['lessons_guarded']} as guards), "
                     f"{_n(row['guards'], 'guard')}{files}, {_n(row['stopped'], 'call')} stopped, "
                     f"{row['overridden']} overridden, {_n(row.get('prevented', 0), 'mistake')} prevented, "
                     f"{_n(row['repeats'], 'repeat mistake')}, repeat-mistake rate {rate}")
        for g in row.get("per_guard", ()):
            lifted = " (lifted)" if g["lifted"] else ""
            lines.append(f"    guard {g['id']} ({g['source']}){lifted}: fired {g['fired']}, overridden "
                         f"{g['overridden']}, called wrong {g['wrong']}, prevented {g['prevented']}, "
                         f"repeats {g['repeats']}")
    return "\n".join(lines)


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def stats_data(cfg) -> dict:
    """The figures ``tacit stats --json`` carries as ``guards`` (never raises)."""
    try:
        with Ledger(cfg) as ledger:
            return stats(cfg, GuardStore(cfg, ledger), include_current=project_for(os.getcwd()))
    except LedgerUnavailable as exc:
        return {"success": False, "error": f"ledger unavailable: {exc}"}


def stats_text(cfg) -> str:
    """``tacit stats`` prints this after its own figures."""
    data = stats_data(cfg)
    return render_stats(data) if data.get("success") else f"Guards: {data['error']}"
