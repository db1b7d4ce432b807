"""What every ``tacit install <host>`` / ``tacit uninstall <host>`` shares.

Design notes: docs/design/hosts.md#tacithostsinstall_support
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
from pathlib import Path

from tacit import commandline
from tacit.fsutil import atomic_write_text, mode_of  # noqa: F401 — the hosts' installers use support.mode_of
from tacit.hosts.spec import home_folder

SKILL_VERBS = ("create", "patch", "edit", "view", "list")  # `tacit skill` actions run unasked (a delete asks)


class InstallError(Exception):
    """An install or uninstall that must stop before it writes anything."""


def answering(host: str, failed: str):
    """Decorates ``install(cfg, scope, …)`` / ``uninstall``: one that had to stop is answered as a failed
    result (``failed`` says what did not happen), never raised."""
    def wrap(work):
        @functools.wraps(work)
        def run(cfg, scope: str = "user", **options) -> dict:
            try:
                return work(cfg, scope, **options)
            except (InstallError, OSError, ValueError) as exc:
                return {"success": False, "host": host, "scope": scope, "error": str(exc),
                        "message": f"{failed}: {exc}"}

        return run

    return wrap


def hook_group(python: str, host, event: str, **fields) -> dict:
    """The matcher group of ``host``'s hook ``event`` (its spec's ``hook_events`` give the timeout): tacit's
    hook command; ``fields``: more of its own."""
    return {"hooks": [{"type": "command", "command": commandline.hook_command(python, host.name, event),
                       "timeout": host.hook_events[event], **fields}]}


def host_home(cfg, env_var: str, *default_parts: str) -> Path:
    """The host's ``home_folder`` in the config's environment, ``~`` expanded."""
    return Path(os.path.expanduser(home_folder(cfg.env, env_var, *default_parts)))


def scope_folder(scope: str, project_dir: str | None, user_folder: Path, folder: str) -> tuple[Path, Path | None]:
    """(the host's folder for ``scope``, the project or None): ``user_folder``, or ``<project>/<folder>``."""
    if scope == "user":
        return user_folder, None
    if scope == "project":
        project = Path(os.path.abspath(os.path.expanduser(project_dir or ".")))
        return project / folder, project
    raise InstallError(f"scope must be 'user' or 'project', not {scope!r}")


def read_manifest(path: Path) -> dict | None:
    """The install manifest at ``path``; None when there is none. A manifest
    that cannot be read or is not a JSON object raises ``InstallError``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise InstallError(f"{path} is unreadable ({exc})") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} is not a tacit manifest")
    return data


def read_text(path: Path) -> tuple[str, bool]:
    """(text, existed); a missing file reads as ``""``."""
    try:
        return path.read_text(encoding="utf-8"), True
    except FileNotFoundError:
        return "", False
    except UnicodeDecodeError as exc:  # the host cannot read it either: say which file, change nothing
        raise InstallError(f"{path} is not valid UTF-8 (bad byte at offset {exc.start}); fix it first") from None


def parse_json_object(text: str, path: Path, host: str) -> dict:
    """``text`` (the content of ``path``) as a JSON object, or ``InstallError``
    naming the file and that ``host`` would not read it either."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InstallError(f"{path} is not valid JSON ({exc}); fix it first — {host} ignores it too") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} is not a JSON object")
    return data


def write_json(path: Path, data, mode: int) -> None:
    """``data`` as indented JSON, written atomically with file mode ``mode``."""
    atomic_write_text(path, json.dumps(data, indent=2) + "\n", mode=mode)


def text_to_restore(text: str, existed: bool, kept: str | None) -> str | None:
    """The text of a JSON file install is about to rewrite, to keep in its manifest, when rewriting would
    change more than the data (your own layout): what an earlier install kept wins; None when nothing is."""
    if kept is not None or not existed or not text.strip():
        return kept
    try:
        return None if json.dumps(json.loads(text), indent=2) + "\n" == text else text
    except ValueError:
        return None


def write_manifest(path: Path, manifest: dict, key: str, before: str | None) -> None:
    """The install manifest, with ``before`` (a file's text to give back: ``text_to_restore``) under
    ``key``; a manifest holding a copy of one of your files is readable by you alone."""
    if before is not None:
        manifest[key] = before
    write_json(path, manifest, 0o644 if before is None else 0o600)


def write_json_as_before(path: Path, data, mode: int, before: str | None) -> None:
    """``write_json``, except that data equal to the file's text before install is written back as that
    text, byte for byte (uninstall leaves your layout as it was)."""
    try:
        same = before is not None and json.loads(before) == data
    except ValueError:
        same = False
    if same:
        atomic_write_text(path, before, mode=mode)
    else:
        write_json(path, data, mode)


def missing_dirs(path: Path, stop_at: Path | None = None) -> list[Path]:
    """``path`` and its parents that do not exist yet, deepest first, up to
    (not including) ``stop_at`` or the first folder that exists."""
    missing = []
    for folder in [path, *path.parents]:
        if folder == stop_at or folder.exists():
            break
        missing.append(folder)
    return missing


def deepest_first(folders) -> list[Path]:
    return sorted((Path(f) for f in folders), key=lambda p: -len(p.parts))


def remove_empty_dirs(folders) -> None:
    """``rmdir`` each folder in the given order; one that is not empty (or is
    gone) stays as it is: never remove what someone put there."""
    for folder in folders:
        with contextlib.suppress(OSError):
            Path(folder).rmdir()


def unlink(path: Path) -> bool:
    """Remove a file; False when it was not there."""
    try:
        path.unlink()
        return True
    except FileNotFoundError:
        return False
