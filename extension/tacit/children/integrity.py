"""Children cannot lose memory: what a child agent may change is copied
before it runs and checked after it exits (also after a timeout kill); a run that
empties a memory scope is suspicious, whatever it recorded.

Design notes: docs/design/children.md#tacitchildrenintegrity
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from tacit.children.allowed import ALONE
from tacit.children.reconcile import MAX_FILE_BYTES, parse_memory, reconcile
from tacit.fsutil import LockTimeout, atomic_write_bytes, atomic_write_text, ensure_private_dir, free_name, lock_for
from tacit.hosts import spec as host_specs
from tacit.log import log_exception
from tacit.projects import project_for
from tacit.stores import history, notices
from tacit.stores.ledger import Ledger, LedgerUnavailable
from tacit.stores.memory import MemoryStore, join_entries
from tacit.stores.skill_catalog import read_checked
from tacit.stores.skill_scopes import ScopedSkills
from tacit.stores.skills import SKILL_FILE, SkillStore

MAX_SNAPSHOT_BYTES = 16 * 1024 * 1024
MAX_FILES = 4000
HISTORY_ROWS = 10_000  # rows read back after a run: far more than any run writes
CLOCK_MARGIN = 300.0  # seconds: rows are read from this long before the snapshot
CONFIG_TEXT_CHARS = 4000  # of a child's config.toml kept in the history row
MIN_ENTRIES = 2  # a scope that held this many and holds none after the run: suspicious
GARBAGE = "child-garbage"


@dataclass(frozen=True, slots=True)
class FileCopy:
    path: str
    data: bytes | None  # None: the file did not exist
    mode: int = 0o600
    real: str = ""  # where the path led (through links) when copied
    parent_real: str = ""  # where its folder led

    @classmethod
    def of(cls, path: Path, data: bytes | None, mode: int = 0o600) -> "FileCopy":
        return cls(str(path), data, mode, os.path.realpath(path), os.path.realpath(path.parent))


@dataclass(frozen=True, slots=True)
class MemoryCopy:
    scope: str  # user | global | project | team
    project: str  # the history's project key of this scope
    limit: int
    file: FileCopy


@dataclass(frozen=True, slots=True)
class SkillCopy:
    scope: str  # global | project | team
    root: str
    name: str  # the folder; "category/name" for a Hermes category skill
    files: tuple[FileCopy, ...]  # SKILL.md first, then its supporting files

    @property
    def skill_md(self) -> FileCopy:
        return self.files[0]


@dataclass(frozen=True, slots=True)
class Snapshot:
    job_id: str
    own_tools: bool  # the child's direct writes are its own tools' (Hermes)
    history_id: int | None  # the newest history row before the run; None: unreadable
    taken_at: float = 0.0
    memory: tuple[MemoryCopy, ...] = ()
    skills: tuple[SkillCopy, ...] = ()
    skill_roots: tuple[tuple[str, str, str], ...] = ()  # (scope, root, where it led)
    config: FileCopy | None = None
    skipped: tuple[str, ...] = ()  # files not copied (over the caps): not protected
    problem: str = ""  # the snapshot failed: nothing is protected


@dataclass(frozen=True, slots=True)
class Verdict:
    restored: tuple[str, ...] = ()  # "MEMORY.md (project): 3 entries put back"
    ok: bool = True  # nothing restored and everything checked
    recorded: tuple[str, ...] = ()  # the child's direct changes, kept and recorded as its own
    unchecked: tuple[str, ...] = ()  # could not be checked (fails the run)
    change_ids: tuple[int, ...] = ()  # history rows written by the check

    def fields(self) -> dict:
        """What a run's record carries (only what is not empty)."""
        fields = {"restored": self.restored, "recorded_edits": self.recorded, "unchecked": self.unchecked}
        return {name: list(value) for name, value in fields.items() if value}


def own_tools(cfg, job: dict) -> bool:
    """Does this child write the shared files directly with its own tools?"""
    spec = host_specs.get(job.get("host") or cfg.host or "")
    return bool(spec and spec.child_own_tools) and not cfg.child_command


class _Budget:
    def __init__(self):
        self.bytes = 0
        self.files = 0
        self.skipped: list[str] = []

    def copy(self, path: Path) -> FileCopy | None:
        """The file's bytes (``data=None`` when absent), or None when over the caps (``skipped``)."""
        try:
            st = os.stat(path)
            over = st.st_size > MAX_FILE_BYTES or self.bytes + st.st_size > MAX_SNAPSHOT_BYTES \
                or self.files >= MAX_FILES
            data = None if over else _read(path)
        except (FileNotFoundError, NotADirectoryError):
            return FileCopy.of(path, None)
        except OSError:  # unreadable: not protected, like a file over the caps
            over, data = True, None
        if data is None and not over:
            return FileCopy.of(path, None)
        if over or len(data) > MAX_FILE_BYTES:  # over the caps, or grew after the stat
            self.skipped.append(str(path))
            return None
        self.bytes += len(data)
        self.files += 1
        return FileCopy.of(path, data, st.st_mode & 0o777)


def snapshot(cfg, job: dict) -> Snapshot:
    """Copy what the child of ``job`` may change. Never raises."""
    job_id = str(job.get("id", ""))
    try:
        return _snapshot(cfg, job, job_id)
    except Exception as exc:  # noqa: BLE001 — a broken folder must not stop the run; it is reported
        log_exception(cfg, f"integrity snapshot of job {job_id}", exc)
        return Snapshot(job_id=job_id, own_tools=own_tools(cfg, job), history_id=None,
                        problem=f"snapshot failed: {type(exc).__name__}: {exc}")


def _snapshot(cfg, job: dict, job_id: str) -> Snapshot:
    # the history's high-water mark first: a write landing during the copy is a row of the run
    history_id, taken_at = _newest_row(cfg), time.time()
    budget = _Budget()
    config = budget.copy(Path(cfg.config_file))
    project = project_for(job.get("cwd"), home=cfg.env.get("HOME"))
    store = MemoryStore(cfg, project)
    memory = []
    for scope in store.targets():
        copy = budget.copy(store.path_for(scope))
        if copy is not None:
            key = project.main_root if project is not None and scope in ("project", "team") else ""
            memory.append(MemoryCopy(scope, key, store.limit_for(scope), copy))
    roots = [(scope, str(s.skills_dir), os.path.realpath(s.skills_dir))
             for scope, s in ScopedSkills(cfg, project).stores.items()]
    folders = [(scope, root, name, folder) for scope, root, _real in roots
               for name, folder in _skill_folders(Path(root))]
    firsts = {folder: budget.copy(folder / SKILL_FILE) for _s, _r, _n, folder in folders}
    skills = []
    for scope, root, name, folder in folders:
        first = firsts[folder]
        if first is None or first.data is None:
            continue
        rest = [c for c in map(budget.copy, _supporting_files(folder)) if c is not None and c.data is not None]
        skills.append(SkillCopy(scope, root, name, (first, *rest)))
    return Snapshot(job_id=job_id, own_tools=own_tools(cfg, job), history_id=history_id, taken_at=taken_at,
                    memory=tuple(memory), skills=tuple(skills), skill_roots=tuple(roots),
                    config=config, skipped=tuple(budget.skipped))


def _skill_folders(root: Path) -> list[tuple[str, Path]]:
    """``(name, folder)`` of every ``<name>/SKILL.md`` and ``<category>/<name>/SKILL.md`` (no
    dot-folders or links: a restore never writes through a link)."""
    found = []
    for entry in _dirs(root):
        if os.path.isfile(os.path.join(entry.path, SKILL_FILE)):
            found.append((entry.name, Path(entry.path)))
            continue
        for sub in _dirs(Path(entry.path)):
            if os.path.isfile(os.path.join(sub.path, SKILL_FILE)):
                found.append((f"{entry.name}/{sub.name}", Path(sub.path)))
    return found


def _dirs(folder: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as entries:
            return sorted((e for e in entries if not e.name.startswith(".")
                           and e.is_dir(follow_symlinks=False)), key=lambda e: e.name)
    except OSError:
        return []


def _supporting_files(folder: Path) -> list[Path]:
    out = []
    for base, dirs, files in os.walk(folder):  # symlinks are not followed
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(base) / name
            if path == folder / SKILL_FILE or f".{GARBAGE}." in name or path.is_symlink():
                continue
            out.append(path)
    return out


def _newest_row(cfg) -> int | None:
    try:
        with history.ledger_for(cfg) as ledger:
            newest = history.changes(ledger, limit=1)
    except LedgerUnavailable:
        return None
    return newest[0].id if newest else 0


class _Check:
    """One verification: what it found, and the rows it wrote."""

    def __init__(self, cfg, job: dict, snap: Snapshot):
        self.cfg, self.job, self.snap = cfg, job, snap
        self.restored: list[str] = []
        self.recorded: list[str] = []
        self.unchecked: list[str] = []
        self.change_ids: list[int] = []
        self.group = f"job:{snap.job_id}"
        host = history.learn_host(job, str(job.get("host") or cfg.host or ""))
        kind = str(job.get("kind", "?"))
        session = str(job.get("session_id") or "")
        self.child = history.Actor(kind="child", name=kind, session_id=session, host=host, group=self.group)
        self.integrity = history.Actor(kind="learner", name="integrity", session_id=session, host=host,
                                       cause=f"checked what the {kind} child (job {snap.job_id}) changed",
                                       group=self.group)
        self.rows = self._rows_after()

    def _rows_after(self) -> dict[str, list[history.Change]] | None:
        """The run's recorded changes by target, oldest first; None without a history."""
        if self.snap.history_id is None:
            return None
        try:
            with history.ledger_for(self.cfg) as ledger:
                # ``since`` only narrows the read (a margin for the clock); the row id decides
                found = history.changes(ledger, since=self.snap.taken_at - CLOCK_MARGIN, limit=HISTORY_ROWS)
        except LedgerUnavailable:
            return None
        rows: dict[str, list[history.Change]] = {}
        for change in reversed(found):
            if change.id > self.snap.history_id:
                rows.setdefault(change.target, []).append(change)
        return rows

    def rows_of(self, target: str, *, fresh: bool = False) -> list[history.Change]:
        """The run's rows of ``target``; ``fresh``: read again now (under the file's lock)."""
        if fresh:
            self.rows = self._rows_after()
        return [] if self.rows is None else self.rows.get(target, [])

    def record(self, actor: history.Actor, **change) -> int | None:
        change.setdefault("group", actor.group)
        change_id = history.record(self.cfg, actor=actor, **change)
        if change_id is not None:
            self.change_ids.append(change_id)
        return change_id

    def verdict(self) -> Verdict:
        return Verdict(restored=tuple(self.restored), ok=not self.restored and not self.unchecked,
                       recorded=tuple(self.recorded), unchecked=tuple(self.unchecked),
                       change_ids=tuple(self.change_ids))


def verify(cfg, job: dict, snap: Snapshot) -> Verdict:
    """Put back what ``job``'s child broke or removed unrecorded; record what it kept. Never raises."""
    if snap.problem:
        return Verdict(ok=False, unchecked=(snap.problem,))
    try:
        check = _Check(cfg, job, snap)
        steps = [(str(cfg.config_file), lambda: _check_config(check))]
        steps += [(m.file.path, lambda m=m: _check_memory(check, m)) for m in snap.memory]
        steps += [(path, lambda path=path, where=where: _check_skill(check, path, where))
                  for path, where in _skill_paths(check).items()]
    except Exception as exc:  # noqa: BLE001
        log_exception(cfg, f"integrity check of job {snap.job_id}", exc)
        return Verdict(ok=False, unchecked=(f"check failed: {type(exc).__name__}: {exc}",))
    for path, step in steps:
        try:
            step()
        except LockTimeout:
            check.unchecked.append(f"{path}: not checked, its lock stayed busy")
        except Moved as exc:
            check.unchecked.append(f"{path}: not put back: {exc}")
        except Exception as exc:  # noqa: BLE001 — one file's trouble must not stop the others' checks
            log_exception(cfg, f"integrity check of {path} (job {snap.job_id})", exc)
            check.unchecked.append(f"{path}: not checked ({type(exc).__name__}: {exc})")
    return check.verdict()


def _check_config(check: _Check) -> None:
    before = check.snap.config
    if before is None:  # too large to copy: not protected (named in skipped)
        return
    path = Path(before.path)
    now = _read(path)
    if now == before.data:
        return
    target = _where(path, before)  # a config.toml linked from dotfiles stays linked
    if before.data is None:
        target.unlink(missing_ok=True)
        what = "removed (the child created it)"
    else:
        atomic_write_bytes(target, before.data, before.mode)
        what = f"put back as it was (the child {'deleted' if now is None else 'changed'} it)"
    # outside the job's group: undo knows no config, and one row it refuses stops a group's undo
    check.record(dataclasses.replace(check.integrity, group=""), action="restore", scope="config",
                 target=str(path), before=_config_text(now), after=_config_text(before.data))
    check.restored.append(f"config.toml: {what}")


def _config_text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")[:CONFIG_TEXT_CHARS]


def _check_memory(check: _Check, copy: MemoryCopy) -> None:
    path = Path(copy.file.path)
    label = f"{path.name} ({copy.scope})"
    if not check.rows_of(str(path)) and _read(path) == copy.file.data:
        return  # untouched: no lock taken (it would create the folder of an absent file)
    _where(path, copy.file)  # before the lock: its file must not be made through a link either
    with lock_for(path):  # the lock MemoryStore and Hermes's memory tool take
        rows = check.rows_of(str(path), fresh=True)
        now = _read(path)
        snap_entries, snap_problem = parse_memory(copy.file.data, copy.limit)
        if snap_problem:  # unclean before the run: not the child's doing; the drift guard has it
            return
        last = rows[-1].after if rows and isinstance(rows[-1].after, list) else None
        base = list(last) if last is not None else snap_entries
        entries, problem = parse_memory(now, copy.limit)
        if problem:
            target = _where(path, copy.file)
            aside = _set_aside(target, now)
            good = join_entries(base).encode("utf-8") if last is not None else copy.file.data
            _put(target, good, copy.file.mode)
            check.record(check.integrity, action="restore", scope=copy.scope, target=str(path),
                         before=list(base), after=list(base), project=copy.project)
            check.restored.append(f"{label}: {problem}; put back, the child's text kept in {aside.name}")
            entries = list(base)
        if check.snap.own_tools:  # Hermes's memory tool: whatever parses is the child's change
            if entries != base:
                change = check.record(check.child, action="edit", scope=copy.scope, target=str(path),
                                      before=list(base), after=list(entries), project=copy.project)
                check.recorded.append(f"{label}: changed by its own memory tool; recorded as the child's "
                                      f"change (#{change})")
            return
        plan = reconcile(snap_entries, rows, entries)
        restored, vanished, direct = list(plan.entries), list(plan.vanished), list(plan.direct)
        dropped = direct if check.job.get("kind") in ALONE else []  # it reads untrusted text: it adds no memory
        if vanished or direct:
            # the child's direct change as its own row (it removed ``vanished``, added
            # ``direct``), even when a hand-edit row already holds part of it: undoing
            # the run then reverts it with the restore, and never re-deletes
            change = check.record(check.child, action="edit", scope=copy.scope, target=str(path),
                                  before=[e for e in restored if e not in direct], after=list(entries),
                                  project=copy.project)
            if direct and not dropped:
                check.recorded.append(f"{label}: {_count(direct)} added by editing the file; kept, recorded "
                                      f"as the child's change (#{change})")
        if not (vanished or dropped):
            return
        restored = [e for e in restored if e not in dropped]
        atomic_write_text(_where(path, copy.file), join_entries(restored), copy.file.mode)
        check.record(check.integrity, action="restore", scope=copy.scope, target=str(path),
                     before=list(entries), after=restored, project=copy.project)
        check.restored.append(f"{label}: " + "; ".join(
            part for part in (f"{_count(vanished)} put back" if vanished else "",
                              f"{_count(dropped)} it wrote into the file taken out" if dropped else "") if part))


def _count(entries: list[str]) -> str:
    return f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"


def _skill_paths(check: _Check) -> dict[str, tuple[str, str, str]]:
    """SKILL.md path -> (scope, root, name): those copied, touched by the run, and there now."""
    out: dict[str, tuple[str, str, str]] = {}
    for skill in check.snap.skills:
        out[skill.skill_md.path] = (skill.scope, skill.root, skill.name)
    skipped = set(check.snap.skipped)
    for scope, root, _real in check.snap.skill_roots:
        for name, folder in _skill_folders(Path(root)):
            out.setdefault(str(folder / SKILL_FILE), (scope, root, name))
        for target in (check.rows or {}):
            path = Path(target)
            if path.name == SKILL_FILE and str(path.parent.parent) == root:
                out.setdefault(target, (scope, root, path.parent.name))
    return {path: where for path, where in out.items() if path not in skipped}


def _check_skill(check: _Check, md_path: str, where: tuple[str, str, str]) -> None:
    scope, root, name = where
    path = Path(md_path)
    copy = next((s for s in check.snap.skills if s.skill_md.path == md_path), None)
    label = f"skill {name} ({scope})"
    history_scope = f"skill:{scope}"
    # where the SKILL.md led when copied; a skill created during the run: under the root as it was
    md = copy.skill_md if copy is not None else _under_root(check.snap, root, path)

    def expected_of(rows: list[history.Change]) -> bytes | None:
        """The last recorded text (None: deleted), else the copy's."""
        if rows:
            after = rows[-1].after
            return after.encode("utf-8") if isinstance(after, str) else None
        return copy.skill_md.data if copy is not None else None

    if _read(path) == expected_of(check.rows_of(md_path)):
        return
    with SkillStore(check.cfg, root=root, scope=scope)._lock_for(path.parent.name):  # the store's own lock
        expected = expected_of(check.rows_of(md_path, fresh=True))
        now = _read(path)
        if now == expected:
            return
        by = "its own skill tool" if check.snap.own_tools else "writing the file"
        if now is None:  # deleted without a record
            before_text = expected.decode("utf-8", "replace")
            change = check.record(check.child, action="skill_delete", scope=history_scope, target=md_path,
                                  before=before_text, after=None)
            if check.snap.own_tools:
                check.recorded.append(f"{label}: deleted by {by}; recorded as the child's change (#{change})")
                return
            for file in (copy.files[1:] if copy is not None else ()):
                if not os.path.lexists(file.path):
                    _put(_where(Path(file.path), file), file.data, file.mode)
            _put(_where(path, md), expected, md.mode)
            check.record(check.integrity, action="restore", scope=history_scope, target=md_path,
                         before=None, after=before_text)
            check.restored.append(f"{label}: deleted without `tacit skill delete`; put back")
            return
        _text, _meta, problem = read_checked(path, len(now), path.parent.name)  # the catalog's reading rules
        if problem is None:
            action = "skill_create" if expected is None else "skill_edit"
            change = check.record(check.child, action=action, scope=history_scope, target=md_path,
                                  before=None if expected is None else expected.decode("utf-8", "replace"),
                                  after=now.decode("utf-8"))
            what = "created" if expected is None else "changed"
            check.recorded.append(f"{label}: {what} by {by}; recorded as the child's change (#{change})")
            return
        target = _where(path, md)
        aside = _set_aside(target, now)
        _put(target, expected, md.mode)  # None: kept aside, there was no skill to put back
        text = None if expected is None else expected.decode("utf-8", "replace")
        check.record(check.integrity, action="restore", scope=history_scope, target=md_path,
                     before=text, after=text)
        what = "removed" if expected is None else "put back"
        check.restored.append(f"{label}: SKILL.md no longer parses ({problem}); {what}, the child's text kept in "
                             f"{aside.name}")


def _read(path: Path) -> bytes | None:
    """The file's bytes (at most ``MAX_FILE_BYTES`` + 1), or None when it does not exist."""
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_FILE_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


class Moved(OSError):
    """A path now leads elsewhere than when copied: nothing is written through it."""


def _where(path: Path, copy: FileCopy) -> Path:
    """Where to write ``path`` back: through the links it had when copied (a link in place of the
    file is replaced, never followed); ``Moved`` when a folder on the way leads elsewhere."""
    if copy.real and os.path.realpath(path) == copy.real:
        return Path(copy.real)
    if copy.parent_real and os.path.realpath(path.parent) == copy.parent_real:
        return path
    raise Moved(f"{path.parent} now leads to {os.path.realpath(path.parent)}, not {copy.parent_real}; "
                "nothing was written through it")


def _under_root(snap: Snapshot, root: str, path: Path) -> FileCopy:
    """A FileCopy (no data) for a SKILL.md not copied, where the skill root led at the snapshot."""
    real_root = dict((r, real) for _s, r, real in snap.skill_roots).get(root, os.path.realpath(root))
    parent_real = os.path.join(real_root, os.path.relpath(path.parent, root))
    return FileCopy(str(path), None, 0o600, os.path.join(parent_real, path.name), parent_real)


def _put(path: Path, data: bytes | None, mode: int) -> None:
    """The file as ``data`` (absent for None), atomically."""
    if data is None:
        path.unlink(missing_ok=True)
        return
    ensure_private_dir(path.parent)
    atomic_write_bytes(path, data, mode)


def _set_aside(path: Path, data: bytes | None) -> Path:
    """Keep what the child left at ``<file>.child-garbage.<stamp>`` (a hard link, else a copy)."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    aside = free_name(path.with_name(f"{path.name}.{GARBAGE}.{stamp}"))
    for keep in (os.link, shutil.copyfile):
        try:
            keep(path, aside)
            os.chmod(aside, 0o600)
            return aside
        except OSError:
            continue
    atomic_write_bytes(aside, data or b"")
    return aside


def emptied_scopes(snap: Snapshot) -> list[str]:
    """The memory scopes of ``snap`` that held entries before the run and hold none now."""
    emptied = []
    for copy in snap.memory:
        before, problem = parse_memory(copy.file.data, copy.limit)
        if problem or len(before) < MIN_ENTRIES:
            continue
        try:
            now = Path(copy.file.path).read_bytes()
        except FileNotFoundError:
            now = None
        except OSError:
            continue
        after, problem = parse_memory(now, copy.limit)
        if not problem and not after:
            emptied.append(f"{copy.scope} ({len(before)} entries, {copy.file.path})")
    return emptied


def tell_emptied(cfg, job: dict, emptied: list[str]) -> None:
    """Queue the notice: what was emptied and how to undo it. Never raises."""
    try:
        with Ledger(cfg) as ledger:
            rows = history.group_of(ledger, f"job:{job.get('id', '')}")
            undo = f" Undo it with `tacit memory undo {rows[0].id}`." if rows else ""
            text = (f"A background tacit run ({job.get('kind')}) removed every entry of your "
                    f"{' and '.join(emptied)} memory; it was recorded as suspicious.{undo}")
            with ledger.write() as conn:
                notices.add(conn, text)
    except Exception:  # noqa: BLE001
        log_exception(cfg, f"telling the suspicious run of job {job.get('id')}")
