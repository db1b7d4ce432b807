"""Which project a working folder belongs to.

Design notes: docs/design/core.md#tacitprojects
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tacit import paths

SHARED_DIR = ".tacit"
CACHE_SECONDS = 30.0  # a `git init` or `git worktree add` is seen within this long
_CACHE: dict[tuple[str, str], tuple[float, "Project | None"]] = {}
_REAL: dict[str, tuple[float, str]] = {}  # a folder as given -> (when, its real path)


@dataclass(frozen=True, slots=True)
class Project:
    key: str  # what identifies it: the real path of the common git dir, or of the folder
    root: str  # the folder the project was reached from: a worktree's root, or the folder
    name: str  # for people and prompts: the main checkout's folder name
    kind: str  # "git" | "folder"
    main_root: str  # the main checkout (where a shared .tacit/ lives); = root outside git

    @property
    def id(self) -> str:
        """A folder name for the project's private data: readable, unique."""
        return _project_id(self.name, self.key)

    @property
    def shared_dir(self) -> str:
        return os.path.join(self.main_root, SHARED_DIR)

    @property
    def is_shared(self) -> bool:
        return os.path.isfile(os.path.join(self.shared_dir, "MEMORY.md")) and self.shared_outside() is None

    def shared_outside(self) -> str | None:
        """The real file of ``.tacit/MEMORY.md`` when it lies outside the repository (a link a clone
        brought, to a file of yours): never read nor written as team memory. None when it is inside."""
        real, root = os.path.realpath(os.path.join(self.shared_dir, "MEMORY.md")), os.path.realpath(self.main_root)
        return None if real.startswith(root + os.sep) else real


@lru_cache(maxsize=256)
def _project_id(name: str, key: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "project"
    return f"{slug}-{hashlib.sha256(key.encode('utf-8', 'surrogateescape')).hexdigest()[:10]}"


def read_gitdir_file(path: str) -> str | None:
    """The git dir a ``.git`` file (a worktree's, a submodule's) names, or None."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = handle.readline(4096).strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:"):].strip()
    return os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else None


def common_dir(git_dir: str) -> str:
    """A worktree's git dir names the shared one in ``commondir``."""
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8", errors="replace") as handle:
            common = handle.readline(4096).strip()
    except OSError:
        return git_dir
    return os.path.normpath(os.path.join(git_dir, common)) if common else git_dir


def _git_project(folder: str, dot_git: str) -> Project | None:
    git_dir = dot_git if os.path.isdir(dot_git) else read_gitdir_file(dot_git)
    if not git_dir or not os.path.isdir(git_dir):
        return None
    common = os.path.realpath(common_dir(git_dir))
    # the main checkout of a repository is the folder holding its ".git"
    main_root = os.path.dirname(common) if os.path.basename(common) == ".git" else folder
    return Project(key=common, root=folder, name=os.path.basename(main_root) or main_root, kind="git",
                   main_root=main_root)


def ancestors(path: str):
    """``path``, then each folder above it, up to the root (or the top of a relative path)."""
    while True:
        yield path
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent


def _project_for(folder: str, home: str) -> Project | None:
    for current in ancestors(folder):
        dot_git = os.path.join(current, ".git")
        if os.path.lexists(dot_git):
            found = _git_project(current, dot_git)
            if found is not None:
                return found
    if folder == home or folder == os.path.dirname(folder):  # the home folder, the root
        return None
    data = os.path.realpath(paths.data_dir())
    if folder == data or folder.startswith(data + os.sep):  # a child runs in tacit's own folder: no project
        return None
    return Project(key=folder, root=folder, name=os.path.basename(folder) or folder, kind="folder",
                   main_root=folder)


def project_for(cwd: str | None, *, home: str | None = None) -> Project | None:
    """The project of a working folder, or None (no folder, the home folder, the root, a folder that does not exist)."""
    if not cwd or not isinstance(cwd, str):
        return None
    now = time.monotonic()
    try:
        folder = _real(os.path.expanduser(cwd), now)
    except (OSError, ValueError):
        return None
    if not os.path.isdir(folder):
        return None
    home = _real(home or os.path.expanduser("~"), now)
    return kept(_CACHE, (folder, home), lambda: _project_for(folder, home), now=now)


def _real(path: str, now: float) -> str:
    """``os.path.realpath``, kept as long as a project is (a link moved is seen within as long)."""
    return kept(_REAL, path, lambda: os.path.realpath(path), now=now)


def kept(cache: dict, key, make, *, seconds: float = CACHE_SECONDS, now: float | None = None):
    """``make()``, kept in ``cache`` for ``seconds`` (``now``: ``time.monotonic()``)."""
    now = time.monotonic() if now is None else now
    found = cache.get(key)
    if found is not None and now - found[0] < seconds:
        return found[1]
    made = make()
    if len(cache) > 1024:
        cache.clear()
    cache[key] = (now, made)
    return made


def forget_cache() -> None:
    """A test or ``tacit share init`` that changes a folder's layout calls this."""
    _CACHE.clear()
    _REAL.clear()


def project_dir(cfg, project: Project) -> Path:
    """``<home>/projects/<id>/``: a project's private memory and skills."""
    return Path(cfg.home_str) / "projects" / project.id
