"""One memory for Hermes and every other host.

Hermes's own ``memory`` tool and its system prompt use
``$HERMES_HOME/memories/{USER,MEMORY}.md``. ``tacit install hermes`` makes
that folder a symbolic link to tacit's ``memories/`` folder, so Hermes shows
and writes tacit's user profile and global notes — the files Claude Code,
Codex and pi read — and ``tacit memory show`` from a plain shell finds the
same memory with no variable to set.

Design decisions
- **A link to the folder, not to the files.** Hermes writes atomically (a
  temp file in the same folder, then a rename) and locks a sibling
  ``.lock``; a link to a file would be replaced by the rename, a link to the
  folder puts the temp file, the rename and the lock in tacit's folder.
- **Nothing is lost.** Entries Hermes had that tacit lacks are appended to
  tacit's files (no limit check: a person decides what to cut, and
  consolidation will); the original folder is kept, renamed to
  ``memories.before-tacit-<time>``.
- **Uninstall gives Hermes its own files back**: the link becomes a folder
  holding copies of the current files.
- **Project memory reaches Hermes through tacit**: Hermes's tool writes the
  global notes; tacit adds this project's memory to the first message of a
  session and its children save project entries through the CLI.
- **tacit's skills are in Hermes's index** through a link
  ``$HERMES_HOME/skills/tacit`` → tacit's ``skills/``: Hermes walks its skills
  folder following links, so a skill tacit learned in any host is one Hermes
  lists and loads (``skill_view``), and an edit Hermes makes to one writes
  tacit's file.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from tacit.fsutil import ensure_private_dir
from tacit.stores.memory import MemoryStore, parse_entries

FILES = ("MEMORY.md", "USER.md")


def memories_link(hermes_home: str) -> Path:
    return Path(hermes_home) / "memories"


def is_linked(hermes_home: str, cfg) -> bool:
    link = memories_link(hermes_home)
    return link.is_symlink() and os.path.realpath(link) == os.path.realpath(cfg.memories_dir)


def link(cfg, hermes_home: str) -> dict:
    """Point Hermes's memories folder at tacit's. Idempotent."""
    source, target = memories_link(hermes_home), Path(cfg.memories_dir)
    if is_linked(hermes_home, cfg):
        return {"changed": False, "merged": 0, "link": str(source), "target": str(target)}
    if source.is_symlink():
        return {"changed": False, "error": f"{source} already links to {os.path.realpath(source)}, not to "
                                           f"tacit's {target}; move it away and install again"}
    ensure_private_dir(target)
    merged, backup = 0, None
    if source.is_dir():
        store = MemoryStore(cfg)
        for name, scope in (("MEMORY.md", "global"), ("USER.md", "user")):
            path = source / name
            if not path.is_file():
                continue
            theirs = parse_entries(path.read_bytes().decode("utf-8-sig", errors="replace"))
            ours = store.entries(scope)
            missing = [e for e in theirs if e not in ours]
            if missing:
                # under the file's lock, without the limit: a person decides what to cut
                done = store.rewrite(scope, lambda entries, extra=missing: entries + [
                    e for e in extra if e not in entries])
                if not done.get("success"):
                    return {"changed": False, "error": f"could not merge Hermes's {name}: {done.get('error')}"}
                merged += len(missing)
        backup = source.with_name(f"memories.before-tacit-{time.strftime('%Y%m%dT%H%M%S')}")
        source.rename(backup)
    elif source.exists():
        return {"changed": False, "error": f"{source} is not a folder; move it away and install again"}
    source.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, source, target_is_directory=True)
    return {"changed": True, "merged": merged, "backup": str(backup) if backup else None,
            "link": str(source), "target": str(target)}


def skills_link(hermes_home: str) -> Path:
    return Path(hermes_home) / "skills" / "tacit"


def link_skills(cfg, hermes_home: str) -> dict:
    """Put tacit's skills folder inside Hermes's (as ``skills/tacit``). Idempotent."""
    source, target = skills_link(hermes_home), Path(cfg.skills_dir)
    if source.is_symlink() and os.path.realpath(source) == os.path.realpath(target):
        return {"changed": False, "link": str(source), "target": str(target)}
    if source.is_symlink() or source.exists():
        return {"changed": False, "error": f"{source} exists and is not tacit's; tacit's skills stay out of "
                                           "Hermes's index (move it away and install again)"}
    ensure_private_dir(target)
    source.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, source, target_is_directory=True)
    return {"changed": True, "link": str(source), "target": str(target)}


def unlink_skills(cfg, hermes_home: str) -> bool:
    source = skills_link(hermes_home)
    if source.is_symlink() and os.path.realpath(source) == os.path.realpath(cfg.skills_dir):
        source.unlink()
        return True
    return False


def heal(cfg, hermes_home: str) -> None:
    """The folders the links point at exist (a deleted ``~/.tacit`` must not
    leave Hermes a dangling ``memories`` link: it fails to start on one)."""
    for link_path, target in ((memories_link(hermes_home), cfg.memories_dir), (skills_link(hermes_home), cfg.skills_dir)):
        if link_path.is_symlink() and os.path.realpath(link_path) == os.path.realpath(target) \
                and not os.path.isdir(target):
            ensure_private_dir(Path(target))


def unlink(cfg, hermes_home: str) -> dict:
    """Give Hermes a folder of its own again, holding copies of the files."""
    source = memories_link(hermes_home)
    if not is_linked(hermes_home, cfg):
        return {"changed": False}
    source.unlink()
    source.mkdir(mode=0o700)
    for name in FILES:
        path = Path(cfg.memories_dir) / name
        if path.is_file():
            shutil.copy2(path, source / name)
    return {"changed": True, "restored": str(source)}
