"""The skills a session sees: global ones, this project's, and the team's.

Design notes: docs/design/stores.md#tacitstoresskill_scopes"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tacit.projects import Project, project_dir
from tacit.stores.shared_text import shared
from tacit.stores.skill_catalog import inside_root, render_index
from tacit.stores.skills import SkillStore

ORDER = ("project", "team", "global")
SHARES = {"project": 3, "team": 6}  # 1/3 and 1/6 of the budget; global takes the rest
TITLES = {"project": "Project skills", "team": "Team skills", "global": "Skills"}


def project_skills_dir(cfg, project: Project) -> Path:
    return project_dir(cfg, project) / "skills"


class ScopedSkills:
    """The global store (usually the engine's live one) plus the project's and the team's."""

    def __init__(self, cfg, project: Project | None, *, global_store: SkillStore | None = None):
        self.cfg, self.project = cfg, project
        self.stores: dict[str, SkillStore] = {"global": global_store or SkillStore(cfg)}
        if project is not None:
            self.stores["project"] = SkillStore(cfg, root=project_skills_dir(cfg, project), scope="project")
            team = Path(project.shared_dir) / "skills"
            if project.is_shared and inside_root(team, os.path.realpath(project.main_root)):  # not a clone's link out
                self.stores["team"] = SkillStore(cfg, root=team, scope="team")
        self._snapshot: str | None = None

    def scopes(self) -> tuple[str, ...]:
        return tuple(s for s in ORDER if s in self.stores)

    def store(self, scope: str | None) -> SkillStore | None:
        """The store of ``scope`` (None: the project's, else the global one)."""
        return self.stores.get(scope or ("project" if "project" in self.stores else "global"))

    def index_text(self, budget: int | None = None, *, gate=None, skip=()) -> str:
        """The index of every scope within ``budget``; ``gate`` (a ``tacit.stores.skill_gate.SkillGate``)
        picks the records that may be listed; ``skip``: scopes a host indexes itself."""
        budget = int(self.cfg.skill_index_budget if budget is None else budget)
        parts, used = [], 0
        seen: set[str] = set()
        for scope in self.scopes():
            if scope in skip:
                continue
            share = max(0, budget // SHARES[scope] if scope in SHARES else budget - used)
            store = self.stores[scope]
            if gate is None:
                records = store.catalog().usable
                text = store.index_text(share)
            else:  # the same gate over the same catalog decides alike: kept with the catalog
                records, text, left_out = store.kept_render(
                    (gate.cache_key, scope, share), lambda catalog: _gated(gate, scope, catalog, share, store))
                gate.left_out.extend(left_out)
            if not text:
                continue
            if scope != "global" or len(self.stores) > 1:
                text = text.replace("## Skills (", f"## {TITLES[scope]} (", 1)
            shadowed = {s.name for s in records} & seen
            if shadowed:
                text += f"\n(also a {scope} skill, shadowed by the one above: {', '.join(sorted(shadowed))})"
            seen |= {s.name for s in records}
            parts.append(text)
            used += len(text) + 2
        return "\n\n".join(parts)

    def snapshot(self, *, gate=None, skip=()) -> str:
        """The index at the first call (session start), frozen for the session."""
        if self._snapshot is None:
            self._snapshot = shared(self.index_text(gate=gate, skip=skip))  # sessions alike share it
        return self._snapshot

    def view(self, name: str, file: str | None = None) -> dict[str, Any]:
        last = None
        for scope in self.scopes():
            result = self.stores[scope].view(name, file)
            if result.get("success") or "no skill named" not in str(result.get("error", "")):
                return {**result, "scope": scope}  # found there (when refused: say why)
            last = result
        if last is not None and len(self.stores) > 1:  # say every folder looked in, not the last one
            folders = " or ".join(str(self.stores[scope].skills_dir) for scope in self.scopes())
            last = {**last, "error": f"no skill named {name!r} in {folders}; `tacit skill list` shows the "
                                     "skills that apply here"}
        return last or {"success": False, "error": f"no skill named {name!r}"}

    def list(self) -> dict[str, Any]:
        skills, problems = [], []
        for scope in self.scopes():
            listing = self.stores[scope].list()
            skills += [{**s, "scope": scope} for s in listing.get("skills", [])]
            problems += [{**p, "scope": scope} for p in listing.get("problems", [])]
        return {"success": True, "skills": skills, "problems": problems,
                "skills_dirs": {scope: str(self.stores[scope].skills_dir) for scope in self.scopes()}}

    def refresh(self) -> None:
        for store in self.stores.values():
            store.refresh()


def _gated(gate, scope: str, catalog, share: int, store) -> tuple:
    """(records, index text, what the gate left out) of ``gate`` over ``catalog``."""
    before = len(gate.left_out)
    records = tuple(gate(scope, catalog.skills))
    left_out = tuple(gate.left_out[before:])
    del gate.left_out[before:]
    return records, render_index(records, share, str(store.skills_dir)), left_out
