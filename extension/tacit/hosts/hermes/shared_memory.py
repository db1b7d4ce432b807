"""One memory for Hermes and every other host.

Design notes: docs/design/hosts.md#tacithostshermesshared_memory
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path

from tacit import memory_folder
from tacit.fsutil import atomic_write_bytes, ensure_private_dir, free_name
from tacit.stores.memory import ENTRY_DELIMITER, parse_entries

FILES = ("MEMORY.md", "USER.md")


def hermes_memories(hermes_home: str) -> Path:
    return Path(hermes_home) / "memories"


def is_linked(hermes_home: str, cfg) -> bool:
    ours = Path(cfg.memories_dir)
    return ours.is_symlink() and os.path.realpath(ours) == os.path.realpath(hermes_memories(hermes_home))


def _entries(path: Path) -> list[str]:
    if not path.is_file():
        return []
    return parse_entries(path.read_bytes().decode("utf-8-sig", errors="replace"))


def link(cfg, hermes_home: str) -> dict:
    """Point tacit's memories folder at Hermes's. Idempotent."""
    theirs, ours = hermes_memories(hermes_home), Path(cfg.memories_dir)
    if is_linked(hermes_home, cfg):
        memory_folder.note_link(cfg, theirs)
        return {"changed": False, "merged": 0, "link": str(ours), "target": str(theirs)}
    if ours.is_symlink() and not theirs.is_symlink():
        return {"changed": False, "error": f"{ours} already links to {os.path.realpath(ours)}, not to "
                                           f"Hermes's {theirs}; move it away and install again"}
    if theirs.is_symlink():
        if os.path.realpath(theirs) != os.path.realpath(ours):
            return {"changed": False, "error": f"{theirs} links to {os.path.realpath(theirs)}; move it away "
                                               "and install again"}
        theirs.unlink()  # an earlier install linked Hermes's folder to tacit's: turn it around
    elif theirs.exists() and not theirs.is_dir():
        return {"changed": False, "error": f"{theirs} is not a folder; move it away and install again"}
    ensure_private_dir(theirs)
    merged, backup = 0, None
    if ours.is_dir():
        for name in FILES:
            mine, hermes = _entries(ours / name), _entries(theirs / name)
            missing = [e for e in mine if e not in hermes]
            if missing:
                atomic_write_bytes(theirs / name, ENTRY_DELIMITER.join(hermes + missing).encode("utf-8"))
                merged += len(missing)
        backup = free_name(ours.with_name(f"memories.before-hermes-{time.strftime('%Y%m%dT%H%M%S')}"))
        ours.rename(backup)
    elif ours.exists():
        return {"changed": False, "error": f"{ours} is not a folder; move it away and install again"}
    ensure_private_dir(ours.parent)
    os.symlink(theirs, ours, target_is_directory=True)
    memory_folder.note_link(cfg, theirs)  # the one link memory may be written through
    return {"changed": True, "merged": merged, "backup": str(backup) if backup else None,
            "link": str(ours), "target": str(theirs)}


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
    """The folder tacit's memories link points at exists (remade when gone)."""
    if is_linked(hermes_home, cfg) and not os.path.isdir(cfg.memories_dir):
        ensure_private_dir(hermes_memories(hermes_home))
    with contextlib.suppress(OSError):  # a read-only state folder: writes are refused and tacit doctor says why
        if is_linked(hermes_home, cfg) and memory_folder.problem(cfg, cfg.memories_dir):
            memory_folder.note_link(cfg, hermes_memories(hermes_home))  # linked by an install older than the note


def unlink(cfg, hermes_home: str) -> dict:
    """Give tacit a folder of its own again, holding copies of the files."""
    theirs, ours = hermes_memories(hermes_home), Path(cfg.memories_dir)
    if not is_linked(hermes_home, cfg):
        return {"changed": False}
    ours.unlink()
    memory_folder.forget_link(cfg)
    ensure_private_dir(ours)
    for name in FILES:
        if (theirs / name).is_file():
            shutil.copy2(theirs / name, ours / name)
    return {"changed": True, "restored": str(ours)}
