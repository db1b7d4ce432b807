"""The last session-start answer per working folder, for the first hook after an idle exit, with a
``stat`` signature of everything it was built from.

Design notes: docs/architecture.md ("One service per data folder").
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from pathlib import Path

from tacit.fsutil import atomic_write_text, unlink_quietly
from tacit.privacy.exclusion import marker_path
from tacit.projects import ancestors, project_for
from tacit.stores.memory import MemoryStore
from tacit.stores.skill_scopes import project_skills_dir

FOLDER = "context"
MAGIC = "tacit-context-2"  # the hook client checks it (``hook_client.cached_start``)
KEEP = 32  # answers kept (folders)
SETTLE_NS = 100_000_000  # a file changed this close to the answer may not show in it: no cache
# what of the session's environment an answer may show (whether `tacit` is on the agent's PATH, as a
# login shell makes it): a kept answer is given only to a session launched with the same values
SESSION_FACTS = ("PATH", "SHELL", "HOME")


def key(host: str, cwd: str) -> str:
    return hashlib.sha1(f"{host}\0{cwd}".encode("utf-8", "surrogateescape")).hexdigest()


def inputs(cfg, cwd: str) -> tuple[list[str], list[str]]:
    """(files and folders whose stat decides the answer, paths whose mere existence does)."""
    project = project_for(cwd, home=cfg.env.get("HOME"))
    full = [os.path.join(cfg.state_dir_str, "config.toml")]
    store = MemoryStore(cfg, project)
    full += [str(store.path_for(scope)) for scope in store.targets()]
    roots = [str(cfg.skills_dir)]
    if project is not None:
        full += [os.path.join(project.shared_dir, "MEMORY.md"), str(marker_path(cfg, project))]
        roots += [str(project_skills_dir(cfg, project)), os.path.join(project.shared_dir, "skills")]
    for root in roots:
        full.append(root)
        for folder, dirs, files in os.walk(root):
            full += [os.path.join(folder, d) for d in dirs]
            full += [os.path.join(folder, f) for f in files if f == "SKILL.md"]
    return full, [cwd, *(os.path.join(here, ".git") for here in ancestors(cwd))]


def _stat(path: str, full: bool) -> list:
    try:
        st = os.stat(path)
    except OSError:
        return []
    return [st.st_mtime_ns, st.st_size, st.st_ino] if full else [st.st_ino]


def _keepable(payload: bytes, out: str) -> tuple[str, dict] | None:
    """(folder, answer without its per-session notices), or None when not kept."""
    try:
        data = json.loads(payload.decode("utf-8", "replace"))
        answer = json.loads(out) if out else {}
    except ValueError:
        return None
    cwd = data.get("cwd") if isinstance(data, dict) else None
    if not isinstance(cwd, str) or not cwd.startswith("/") or not isinstance(answer, dict) \
            or "hookSpecificOutput" not in answer:
        return None
    answer.pop("systemMessage", None)
    return cwd, answer


def session_facts(environ: dict | None, fallback: dict) -> dict:
    """The ``SESSION_FACTS`` of the environment a session was launched with (None: not known, the
    service's own ``fallback``), None for one not set."""
    source = fallback if environ is None else environ
    return {name: source.get(name) for name in SESSION_FACTS}


def _write(cfg, run_folder: str, host: str, cwd: str, answer: dict, started_ns: int, facts: dict) -> bool:
    full, exists = inputs(cfg, cwd)
    entries = [["F", p, *_stat(p, True)] for p in full] + [["E", p, *_stat(p, False)] for p in exists]
    if any(e[0] == "F" and len(e) > 2 and e[2] >= started_ns - SETTLE_NS for e in entries):
        return False
    atomic_write_text(Path(run_folder, FOLDER, key(host, cwd)), json.dumps(
        {"magic": MAGIC, "at": time.time(), "entries": entries, "env": facts,
         "out": json.dumps(answer, ensure_ascii=False)}))
    return True


class Kept:
    """What one service kept, per folder: an answer equal to the one kept since the last change
    (``forget``), whose file is still there, is not walked and written again."""

    def __init__(self, cfg, run_folder: str):
        self.cfg, self.run_folder = cfg, run_folder
        self._last: dict[str, str] = {}
        self._generation = 0
        self._lock = threading.Lock()

    def forget(self) -> None:
        """Something an answer is built from changed (or may have, unseen)."""
        with self._lock:
            self._generation += 1
            self._last.clear()

    def save(self, host: str, payload: bytes, out: str, started_ns: int, facts: dict) -> bool:
        """Keep ``out``, the answer to ``payload`` for a session whose ``session_facts`` are ``facts``."""
        kept = _keepable(payload, out)
        if kept is None:
            return False
        cwd, answer = kept
        name, text = key(host, cwd), json.dumps([answer, facts], ensure_ascii=False, sort_keys=True)
        with self._lock:
            generation, same = self._generation, self._last.get(name) == text
        if same and os.path.exists(os.path.join(self.run_folder, FOLDER, name)):
            return True  # kept already, and nothing it was built from changed since
        if not _write(self.cfg, self.run_folder, host, cwd, answer, started_ns, facts):
            return False
        with self._lock:
            if generation == self._generation:  # no change was seen while it was written
                self._last[name] = text
                while len(self._last) > KEEP:
                    self._last.pop(next(iter(self._last)))
        return True


def valid(entries: list) -> bool:
    return all(_stat(entry[1], entry[0] == "F") == entry[2:] for entry in entries)


def clear(run_folder: str) -> None:
    """Every kept answer goes (a memory, skill or project file changed)."""
    folder = os.path.join(run_folder, FOLDER)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        unlink_quietly(os.path.join(folder, name))


def prune(run_folder: str, keep: int = KEEP) -> int:
    """Drop stale answers and all but the ``keep`` newest; how many went."""
    folder = os.path.join(run_folder, FOLDER)
    try:
        paths = sorted((os.path.join(folder, n) for n in os.listdir(folder)), key=os.path.getmtime, reverse=True)
    except OSError:
        return 0
    removed = 0
    for n, path in enumerate(paths):
        try:
            fresh = n < keep and valid(json.loads(Path(path).read_text(encoding="utf-8")).get("entries") or [])
        except (OSError, ValueError, AttributeError):
            fresh = False
        if not fresh:
            with contextlib.suppress(OSError):
                os.unlink(path)
                removed += 1
    return removed
