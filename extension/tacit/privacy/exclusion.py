"""Projects tacit is off for: ``tacit off`` and the ``exclude`` globs.

Design notes: docs/design/safety.md#tacitprivacyexclusion"""

from __future__ import annotations

import fnmatch
import json
import os
import time
from collections import OrderedDict
from pathlib import Path

from tacit.fsutil import atomic_write_text
from tacit.projects import Project, ancestors, project_dir, project_for

MARKER = "off"
_SESSIONS_KEPT = 4096
# (data folder, session id) -> why: one process may serve several data folders
_excluded_sessions: OrderedDict[tuple[str, str], str] = OrderedDict()


def marker_path(cfg, project: Project) -> Path:
    return project_dir(cfg, project) / MARKER


def _patterns(cfg) -> list[str]:
    out = []
    home = cfg.env.get("HOME") or os.path.expanduser("~")
    for raw in cfg.settings.get("exclude") or ():
        if not isinstance(raw, str) or not raw.strip():
            continue
        pattern = raw.strip()
        if pattern == "~" or pattern.startswith("~/"):
            pattern = home + pattern[1:]
        out.append(pattern.rstrip("/") or "/")
    return out


def glob_matching(cfg, *paths: str | None) -> str | None:
    """The first ``exclude`` glob that matches one of ``paths`` or a folder above it."""
    patterns = _patterns(cfg)
    return next((pattern for path in paths if path and patterns for folder in ancestors(os.path.abspath(path))
                 for pattern in patterns if fnmatch.fnmatchcase(folder, pattern)), None)


def _glob_said(cfg, pattern: str) -> str:
    """Where an ``exclude`` glob was set, as a person would look for it."""
    where = cfg.source_of("exclude")
    if where.startswith("environment "):
        return f"{pattern!r} in the environment's {where.split()[-1]}"
    return f"exclude = {pattern!r} in {cfg.config_file}"


def why_excluded(cfg, cwd: str | None) -> str | None:
    """Why tacit is off in ``cwd`` ("tacit off" or the matching glob), or None."""
    if not cwd:
        return None
    try:
        project = project_for(cwd, home=cfg.env.get("HOME"))
    except Exception:  # noqa: BLE001 — an odd folder is simply not excluded
        project = None
    pattern = glob_matching(cfg, cwd, *((project.root, project.main_root) if project else ()))
    if pattern:
        return _glob_said(cfg, pattern)
    if project is not None and os.path.exists(marker_path(cfg, project)):
        return f"`tacit off` in {project.main_root}"
    return None


def excluded(cfg, cwd: str | None, session_id: str = "") -> bool:
    """Must tacit keep nothing of an event in ``cwd`` (of ``session_id``)?"""
    reason = why_excluded(cfg, cwd)
    key = (str(cfg.home), session_id)
    if reason is None:
        if not cwd and key in _excluded_sessions:
            return True
        if cwd and session_id:
            _excluded_sessions.pop(key, None)  # `tacit on` since, or it moved
        return False
    if session_id:
        _excluded_sessions[key] = reason
        _excluded_sessions.move_to_end(key)
        while len(_excluded_sessions) > _SESSIONS_KEPT:
            _excluded_sessions.popitem(last=False)
    return True


# tacit off / tacit on
def turn_off(cfg, project: Project) -> dict:
    path = marker_path(cfg, project)
    already = path.exists()
    if not already:
        atomic_write_text(path, json.dumps({"off_since": time.time(), "root": project.main_root}) + "\n")
    return {"success": True, "off": True, "already": already, "project": project.main_root,
            "marker": str(path),
            "message": (f"tacit was already off for {project.main_root}" if already else
                        f"tacit is off for {project.main_root}: it keeps and learns nothing here "
                        "until `tacit on`")}


def turn_on(cfg, project: Project) -> dict:
    path = marker_path(cfg, project)
    was_off = path.exists()
    path.unlink(missing_ok=True)
    glob = glob_matching(cfg, project.root, project.main_root)
    message = (f"tacit is on for {project.main_root}" if was_off else f"tacit was not off for {project.main_root}")
    if glob:
        message += f"; but {_glob_said(cfg, glob)} still keeps it off"
    return {"success": True, "off": glob is not None, "was_off": was_off, "project": project.main_root,
            "excluded_by": glob, "message": message}


def status(cfg, project: Project | None, cwd: str | None) -> dict:
    reason = why_excluded(cfg, cwd)
    return {"success": True, "off": reason is not None, "why": reason,
            "project": project.main_root if project else None}
