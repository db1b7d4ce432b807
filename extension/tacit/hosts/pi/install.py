"""``tacit install pi`` / ``tacit uninstall pi``.

Design notes: docs/design/hosts.md#tacithostspiinstall
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tacit import __version__
from tacit.fsutil import atomic_write_text, read_json_or_none
from tacit.hosts.install_support import host_home, missing_dirs, unlink
from tacit.paths import PACKAGE_DIR

EXTENSION_NAME = "tacit"
MANIFEST = "tacit.json"
ENTRY = "index.ts"


def source_file() -> Path:
    """The extension shipped inside the package."""
    return Path(__file__).resolve().parent / "extension" / ENTRY


def target_dir(cfg, scope: str, project_dir: str | os.PathLike = ".") -> Path:
    if scope == "user":
        return host_home(cfg, "PI_CODING_AGENT_DIR", ".pi", "agent") / "extensions" / EXTENSION_NAME
    if scope == "project":
        return Path(project_dir).resolve() / ".pi" / "extensions" / EXTENSION_NAME
    raise ValueError(f"scope must be 'user' or 'project', not {scope!r}")


def manifest(cfg) -> Path:
    """Where the user-scope install's manifest lives (``tacit status``)."""
    return target_dir(cfg, "user") / MANIFEST


def _read_manifest(folder: Path) -> dict | None:
    data = read_json_or_none(folder / MANIFEST)
    return data if data is not None and data.get("installed_by") == "tacit" else None


def install(cfg, scope: str, project_dir: str | os.PathLike = ".", **_options) -> dict:
    """Copy the extension into pi's extension folder for ``scope``."""
    try:
        folder = target_dir(cfg, scope, project_dir)
    except ValueError as exc:
        return {"success": False, "error": str(exc)}
    source = source_file()
    if not source.is_file():
        return {"success": False, "error": f"the packaged extension is missing: {source}"}
    manifest = _read_manifest(folder)
    if manifest is None and (folder / ENTRY).exists():
        return {"success": False, "path": str(folder),
                "error": f"{folder / ENTRY} exists and was not installed by tacit; "
                         "move it away first (nothing was changed)"}
    # deepest first: the order uninstall removes them in
    created_dirs = list(manifest.get("created_dirs", [])) if manifest else [str(d) for d in missing_dirs(folder)]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        text = source.read_text(encoding="utf-8")
        already = (folder / ENTRY).is_file() and (folder / ENTRY).read_text(encoding="utf-8") == text
        if not already:
            atomic_write_text(folder / ENTRY, text)
        new_manifest = {
            "installed_by": "tacit",
            "version": __version__,
            "python": sys.executable,
            # where the extension finds the service's code identity (tacit.paths.code_identity)
            "package_dir": PACKAGE_DIR,
            "scope": scope,
            "files": [ENTRY, MANIFEST],
            "created_dirs": created_dirs,
        }
        changed = not already or manifest != new_manifest
        if changed:
            atomic_write_text(folder / MANIFEST, json.dumps(new_manifest, indent=2) + "\n")
    except OSError as exc:
        return {"success": False, "path": str(folder), "error": f"cannot write {folder}: {exc}"}
    state = "installed" if not manifest else ("updated" if changed else "already installed")
    return {
        "success": True,
        "message": f"tacit {state} for pi ({scope} scope): {folder / ENTRY}. "
                   f"pi loads it on its next start.",
        "path": str(folder),
        "files": [str(folder / f) for f in new_manifest["files"]],
        "python": sys.executable,
        "changed": changed,
    }


def uninstall(cfg, scope: str, project_dir: str | os.PathLike = ".", **_options) -> dict:
    """Remove exactly what ``install`` wrote for ``scope``."""
    try:
        folder = target_dir(cfg, scope, project_dir)
    except ValueError as exc:
        return {"success": False, "error": str(exc)}
    manifest = _read_manifest(folder)
    if manifest is None:
        return {"success": True, "changed": False, "path": str(folder),
                "message": f"tacit is not installed for pi ({scope} scope) at {folder}; nothing to do."}
    removed = []
    for name in manifest.get("files", []):
        if not isinstance(name, str) or "/" in name or name in ("", ".", ".."):
            continue  # a manifest names files inside its own folder only
        path = folder / name
        try:
            if unlink(path):
                removed.append(str(path))
        except OSError as exc:
            return {"success": False, "path": str(folder), "removed": removed,
                    "error": f"cannot remove {path}: {exc}"}
    removed_dirs = []
    for name in manifest.get("created_dirs", []):  # deepest first
        try:
            os.rmdir(name)  # only when empty: someone else's files stay
            removed_dirs.append(name)
        except OSError:
            break
    return {"success": True, "changed": True, "path": str(folder), "removed": removed,
            "removed_dirs": removed_dirs,
            "message": f"tacit removed from pi ({scope} scope): {', '.join(removed) or 'nothing left'}."}
