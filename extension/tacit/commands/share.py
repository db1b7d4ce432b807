"""``tacit share`` — a repository's memory, shared with its team through git.

Design notes: docs/design/commands.md#tacitcommandsshare
"""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

from tacit.commands import command, refuse, reply
from tacit.commands.memory import move_entry, project_of
from tacit.fsutil import atomic_write_text
from tacit.projects import SHARED_DIR, forget_cache
from tacit.stores import history
from tacit.stores.memory import MemoryStore
from tacit.stores.skill_format import parse_skill
from tacit.stores.skill_scopes import ScopedSkills

GITIGNORE = ("# tacit's lock and temporary files, and the copies it keeps of a file it would not rewrite\n"
             "*.lock\n.*.tmp\n*.bak.*\n")
README = ("# Team memory (tacit)\n\nMEMORY.md holds this repository's shared notes, one entry per block, "
          "entries separated by a line holding only `§`; skills/<name>/SKILL.md its shared procedures.\n"
          "tacit shows them to every agent session in this repository (Claude Code, Codex, Hermes, pi).\n"
          "Review changes here like code: a clone's memory is scanned on load, and what fails is left out.\n")


def add_parser(subparsers) -> None:
    p = command(subparsers, "share", _share, help="share this repository's memory with its team (.tacit/)")
    p.add_argument("text", nargs="?", help="move the project-memory entry containing TEXT to the team memory")
    p.add_argument("--init", action="store_true", help="make <repo>/.tacit/ this project's team memory")
    p.add_argument("--skill", metavar="NAME", help="move this project skill to the team's skills")
    p.add_argument("--project", metavar="DIR", help="the repository (default: the working folder)")


def _share(args, cfg) -> int:
    if args.text == "init" and not args.init:
        args.init, args.text = True, None
    project = project_of(args)
    if project is None or project.kind != "git":
        return refuse("not inside a git repository: team memory lives in a repository's .tacit/ folder, "
                      "shared through git")
    if args.init:
        result = share_init(project)
    elif args.skill:
        result = share_skill(cfg, project, args.skill)
    elif args.text:
        if not project.is_shared:
            result = {"success": False, "error": f"{project.name} shares no memory yet: run `tacit share init`"}
        else:
            result = move_entry(MemoryStore(cfg, project), args.text, to="team", source="project")
    else:
        result = {"success": False, "error": "say what to share: `tacit share init`, `tacit share TEXT` "
                                             "or `tacit share --skill NAME`"}
    return reply(result)


def share_init(project) -> dict:
    folder = os.path.join(project.main_root, SHARED_DIR)
    created = []
    for path, text in ((os.path.join(folder, "MEMORY.md"), ""), (os.path.join(folder, ".gitignore"), GITIGNORE),
                       (os.path.join(folder, "README.md"), README)):
        if not os.path.exists(path):
            atomic_write_text(path, text, mode=0o644)  # meant to be committed and read by the team
            created.append(path)
    os.makedirs(os.path.join(folder, "skills"), exist_ok=True)
    forget_cache()
    return {"success": True, "folder": folder, "created": created,
            "message": (f"{project.name} now has team memory in {folder}. Move entries there with "
                        "`tacit share TEXT`, then commit .tacit/ and review changes like code.")
            if created else f"{folder} was already set up; nothing changed."}


def share_skill(cfg, project, name: str) -> dict:
    skills = ScopedSkills(cfg, project)
    if "team" not in skills.stores:
        return {"success": False, "error": f"{project.name} shares no memory yet: run `tacit share init`"}
    found = skills.stores["project"].view(name)
    if not found.get("success"):
        return {"success": False, "error": f"no project skill {name!r} to share: {found.get('error')}"}
    team = skills.stores["team"]
    listing = {s.name: s for s in skills.stores["project"].catalog().usable}
    skill = listing.get(name)
    if skill is None:
        return {"success": False, "error": f"project skill {name!r} cannot be read"}
    meta, body = parse_skill(found["content"])
    mover = dataclasses.replace(history.current_actor(), group=f"share-skill-{time.time_ns()}")
    with history.acting(mover):  # one change in the history: one undo puts it back
        created = team.create(name, skill.description, body, keep=meta, files_from=Path(found["path"]).parent)
        if not created.get("success"):
            return {**created, "error": f"not shared: {created.get('error')}"}
        deleted = skills.stores["project"].delete(name)
    return {"success": True, "message": f"Moved skill {name} to the team's skills ({team.skills_dir}).",
            "path": created.get("path"), **{k: deleted[k] for k in ("change_id",) if deleted.get(k)}}
