"""Everything tacit keeps is private to its user: files 0600, folders 0700.

The data folder holds what the user said and did (the ledger, the logs, session state, memory,
skills), so no other local user may read it.

Design notes: docs/design/safety.md#tacitsafetyfile_modes"""

from __future__ import annotations

import os
import stat
from contextlib import suppress
from dataclasses import dataclass

FILE_MODE, DIR_MODE = 0o600, 0o700
MAX_ENTRIES = 200_000


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    kind: str  # file | folder | link | other | too_many
    mode: int  # the mode found (permission bits)
    wanted: int
    repaired: bool = False

    def describe(self) -> str:
        if self.kind == "too_many":
            return f"{self.path}: more than {MAX_ENTRIES:,} entries; the rest was not checked"
        if self.kind == "link":
            return f"{self.path} is a symlink pointing outside the data folder"
        done = " (repaired)" if self.repaired else ""
        return f"{self.path} is {self.kind} mode {self.mode:o}, readable by others (want {self.wanted:o}){done}"


def check(cfg, repair: bool = False) -> list[Problem]:
    """Every file or folder in the data folder that others may read (or
    write), repaired when ``repair``. Never raises."""
    problems: list[Problem] = []
    seen = 0
    memories = os.path.abspath(str(cfg.memories_dir))
    home, state = os.path.abspath(cfg.home_str), os.path.abspath(cfg.state_dir_str)
    roots = [home] if state == home or state.startswith(home + os.sep) else [home, state]  # state may be elsewhere
    for root in roots:
        if not os.path.isdir(root):
            continue
        stack = [root]
        problems.extend(_check_one(root, DIR_MODE, "folder", repair))
        while stack:
            folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                seen += 1
                if seen > MAX_ENTRIES:
                    problems.append(Problem(root, "too_many", 0, 0))
                    return problems
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISLNK(info.st_mode):
                    # tacit's own memories link to Hermes's folder (tacit.hosts.hermes.shared_memory)
                    if not _inside(entry.path, root) and os.path.abspath(entry.path) != memories:
                        problems.append(Problem(entry.path, "link", 0, 0))
                    continue
                if stat.S_ISDIR(info.st_mode):
                    problems.extend(_check_one(entry.path, DIR_MODE, "folder", repair, info))
                    stack.append(entry.path)
                else:
                    kind = "file" if stat.S_ISREG(info.st_mode) else "other"
                    problems.extend(_check_one(entry.path, FILE_MODE, kind, repair, info))
    return problems


def _inside(path: str, root: str) -> bool:
    try:
        real = os.path.realpath(path)
    except OSError:
        return False
    real_root = os.path.realpath(root)
    return real == real_root or real.startswith(real_root + os.sep)


def _check_one(path: str, wanted: int, kind: str, repair: bool, info=None) -> list[Problem]:
    try:
        info = info or os.stat(path, follow_symlinks=False)
    except OSError:
        return []
    mode = stat.S_IMODE(info.st_mode)
    if not mode & 0o077:
        return []
    repaired = False
    if repair:  # never a symlink here: the walk skips them
        with suppress(OSError):
            os.chmod(path, mode & ~0o077)
            repaired = True
    return [Problem(path, kind, mode, wanted, repaired)]
