"""GuardStore: every guard a session sees, where it came from, and what it did.

Design notes: docs/design/stores.md#tacitstoresguards"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from tacit.fsutil import atomic_write_text, read_json_or_none
from tacit.guards import ACTIONS, Guard, GuardSpec, derive_guards, spec_from_pattern
from tacit.projects import Project
from tacit.safety.scanner import scan
from tacit.stores import history
from tacit.stores.file_memo import DerivedMemo
from tacit.stores.ledger import Ledger, loads, next_id
from tacit.stores.memory import MemoryStore
from tacit.stores.entries import fit

REV_KEY = "guards.rev"
REV_FILE = "guards.rev"  # in the state folder: the revision, for cheap change detection
STRIKES_TO_REMOVE = 2
SYNC_BATCH = 500  # rows per write transaction of a sync
GLOBAL_SCOPES = ("user", "global")  # memory scopes whose guards are global
EVENT_KINDS = ("stop", "override", "wrong", "repeat")
_COLUMNS = ("id", "key", "origin", "scope", "project", "project_root", "memory_scope", "lesson", "spec",
            "action", "status", "strikes", "lesson_at", "by_user", "created_at", "updated_at",
            "removed_at", "removed_why")
_SELECT = f"SELECT {', '.join(_COLUMNS)} FROM guards"
# a new row: key, origin, scope, project, project_root, memory_scope, lesson, spec, action, lesson_at, by_user, now
INSERT = ("INSERT OR IGNORE INTO guards (id, key, origin, scope, project, project_root, memory_scope, lesson, "
          f"spec, action, lesson_at, by_user, created_at, updated_at) VALUES ({next_id('guards')}, "
          "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


@dataclass(frozen=True, slots=True)
class GuardRecord:
    """One row of the ``guards`` table, its spec parsed."""

    id: int
    key: str
    origin: str  # memory | user
    scope: str  # project | global
    project: str  # the project's key; "" for global guards
    project_root: str  # the project's main checkout, for people
    memory_scope: str  # user | global | project | team, for origin memory
    lesson: str
    spec: GuardSpec
    action: str
    status: str  # active | removed | gone
    strikes: int
    lesson_at: float
    by_user: bool
    created_at: float
    updated_at: float
    removed_at: float | None = None
    removed_why: str | None = None

    def guard(self, root: str | None) -> Guard:
        """The guard as ``tacit.guards`` checks it; a project guard placed at the session's ``root``."""
        if self.file is not None and root:
            from tacit.stores.guard_files import applies_at
            below = applies_at(self.file.rsplit(":", 1)[0])
            root = os.path.join(root, below) if below else root
            return Guard(replace(self.spec, action=self.action), id=self.id, scope="project",
                         project_root=root, source="file:" + self.file)
        return Guard(replace(self.spec, action=self.action), id=self.id, scope=self.scope,
                     project_root=root if self.scope == "project" else None, source=self.source())

    @property
    def file(self) -> str | None:
        """``AGENTS.md:42`` for a rule line of an instruction file."""
        return self.memory_scope[5:] if self.memory_scope.startswith("file:") else None

    def source(self) -> str:
        if self.origin == "user":
            return "added with tacit guard add"
        if self.file is not None:
            return self.file
        return f"{self.memory_scope} memory"

    @property
    def date(self) -> str:
        return time.strftime("%Y-%m-%d", time.localtime(self.lesson_at))

    def as_dict(self) -> dict:
        return {"id": self.id, "status": self.status, "action": self.action, "scope": self.scope,
                "project_root": self.project_root or None, "origin": self.origin,
                "memory_scope": self.memory_scope or None, "source": self.source(), "because": self.lesson,
                "kind": self.spec.kind, "match": self.spec.match.to_dict(), "instead": self.spec.instead,
                "strikes": self.strikes, "lesson_date": self.date, "said_by_user": self.by_user,
                "created_at": self.created_at, "removed_why": self.removed_why}


def _record(row) -> GuardRecord | None:
    data = dict(zip(_COLUMNS, row))
    try:
        spec = _spec_of(json.loads(data["spec"]))
        return GuardRecord(**{**data, "spec": spec, "by_user": bool(data["by_user"])})
    except (TypeError, ValueError):
        return None


def _spec_of(data) -> GuardSpec:
    """A kept spec (``tacit.stores.file_memo.DerivedMemo``); ValueError for a malformed one."""
    spec = GuardSpec.from_dict(data)
    if spec is None:
        raise ValueError("not a guard spec")
    return spec


@lru_cache(maxsize=16384)
def derived(entry: str) -> tuple[GuardSpec, ...]:
    """The guards a memory entry states (cached: entries are few and stable)."""
    return derive_guards(entry)


@lru_cache(maxsize=16384)
def guard_key(prefix: str, *parts: str, spec: GuardSpec) -> str:
    """A guard row's key: ``prefix`` and a hash of ``parts`` and what the rule matches."""
    match = json.dumps({"kind": spec.kind, **spec.match.to_dict()}, sort_keys=True)
    raw = "\0".join((*parts, match)).encode("utf-8", "surrogatepass")
    return prefix + hashlib.sha256(raw).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one strike did: ``demoted`` or ``removed`` (or nothing)."""

    record: GuardRecord
    change: str  # demoted | removed | none
    history_id: int | None = None


class GuardStore:
    """The guards of one data folder, on one ledger connection."""

    def __init__(self, cfg, ledger: Ledger):
        self.cfg = cfg
        self.ledger = ledger
        self.files_cut: tuple = ()  # the instruction files the last sync read only in part (time ran out)

    def _signal(self, export: bool = True) -> None:
        """Tell other processes the guards changed (after the change is written); ``export``: the
        hand-made ones may have changed too (a sync changes them only when it restores them)."""
        try:
            with self.ledger.read() as conn:
                rev = str(Ledger.meta_get(conn, REV_KEY, "0"))
                if export:
                    export_hand_made(self.cfg, conn)  # hand-made guards outlive a corrupt ledger
            write_rev_file(self.cfg, rev)
        except OSError:
            pass  # a read-only state folder: readers fall back to the ledger

    def revision(self) -> str:
        with self.ledger.read() as conn:
            return str(Ledger.meta_get(conn, REV_KEY, "0"))

    def get(self, guard_id) -> GuardRecord | None:
        with self.ledger.read() as conn:
            return self._get(conn, guard_id)

    def applying(self, project: Project | None, *, statuses=("active",)) -> list[GuardRecord]:
        """The guards (of ``statuses``) that apply in ``project``: every global one and this project's."""
        key, root = (project.key, project.root) if project is not None else (None, None)
        # an instruction file's rule: only in the checkout it was read from (a worktree reads its own)
        return self._select(statuses, " AND (scope = 'global' OR project = ?) AND (memory_scope NOT LIKE 'file:%' "
                            "OR project_root = ?)", (key, root))

    def all(self, *, statuses=("active", "removed", "gone")) -> list[GuardRecord]:
        return self._select(statuses)

    def _select(self, statuses, where: str = "", args: tuple = ()) -> list[GuardRecord]:
        marks = ", ".join("?" for _ in statuses)
        with self.ledger.read() as conn:
            rows = conn.execute(f"{_SELECT} WHERE status IN ({marks}){where} ORDER BY id",
                                (*statuses, *args)).fetchall()
        return [r for r in map(_record, rows) if r is not None]

    def derive(self, project: Project | None) -> dict[str, tuple]:
        """``key -> (memory scope, guard scope, entry, spec)`` of every guard ``project``'s memory states."""
        store = MemoryStore(self.cfg, project)
        found: dict[str, tuple] = {}
        memo = DerivedMemo(self.cfg, "guards", project.root if project is not None else "")
        for memory_scope in store.targets():
            # a file far over its limit: only what the session's context holds (the rest is unread, told)
            entries = fit(store.entries(memory_scope), store.limit_for(memory_scope)).kept
            if memory_scope == "team":  # a clone's memory is untrusted, as in the snapshot
                entries = [e for e in entries if not scan(e)]
            guard_scope = "global" if memory_scope in GLOBAL_SCOPES else "project"
            project_key = project.key if guard_scope == "project" and project is not None else ""
            for entry in entries:
                for spec in memo.kept(entry, lambda e=entry: derived(e), GuardSpec.to_dict, _spec_of):
                    found[guard_key("m:", memory_scope, project_key, entry, spec=spec)] = (
                        memory_scope, guard_scope, entry, spec)
        memo.save()
        return found

    def sync(self, project: Project | None, *, now: float | None = None, files: tuple | None = None) -> bool:
        """Bring the derived guards of ``project``'s scopes in line with its memory files; True when
        anything changed. Derived outside any write, written in small transactions."""
        from tacit.stores.guard_files import sync_files  # it imports this module

        from_files, self.files_cut = sync_files(self.ledger, self.cfg, project, files=files, now=now)
        changed = self._sync_memory(project, now=now)
        if from_files and not changed:
            self._signal(export=False)
        return from_files or changed

    def _sync_memory(self, project: Project | None, *, now: float | None = None) -> bool:
        live = self.derive(project)
        now = time.time() if now is None else now
        project_key = project.key if project is not None else ""
        restored = False
        if saved_hand_made(self.cfg):  # a fresh ledger: the hand-made ones come back
            with self.ledger.write() as conn:
                restored = bool(restore_hand_made(self.cfg, conn))
        with self.ledger.read() as conn:
            rows = conn.execute(
                "SELECT id, key, status FROM guards WHERE origin = 'memory' AND memory_scope NOT LIKE 'file:%' "
                "AND ((memory_scope IN ('user', 'global') AND project = '') OR project = ?)",
                (project_key or "\0none",)).fetchall()
        existing = {key: (gid, status) for gid, key, status in rows}
        revive = [existing[k][0] for k in live if k in existing and existing[k][1] == "gone"]
        gone = [gid for key, (gid, status) in existing.items() if status == "active" and key not in live]
        fresh = [(k, v) for k, v in live.items() if k not in existing]
        if not (revive or gone or fresh):
            if restored:
                self._signal()
            return restored
        origins = self._origins(fresh, project)
        root = project.main_root if project is not None else ""
        inserts = []
        for key, (memory_scope, guard_scope, entry, spec) in fresh:
            at, by_user = origins.get((memory_scope, entry), (None, False))
            inserts.append((key, "memory", guard_scope, project_key if guard_scope == "project" else "",
                            root if guard_scope == "project" else "", memory_scope, entry, spec_json(spec),
                            spec.action, at if at else now, int(by_user), now, now))
        for start in range(0, max(len(inserts), len(revive), len(gone)), SYNC_BATCH):
            with self.ledger.write() as conn:
                conn.executemany(INSERT, inserts[start:start + SYNC_BATCH])
                conn.executemany("UPDATE guards SET status = 'active', updated_at = ? WHERE id = ?",
                                 [(now, gid) for gid in revive[start:start + SYNC_BATCH]])
                conn.executemany("UPDATE guards SET status = 'gone', updated_at = ? WHERE id = ? AND status = 'active'",
                                 [(now, gid) for gid in gone[start:start + SYNC_BATCH]])
                bump(conn)
        self._signal(export=restored)
        return True

    def _origins(self, fresh: list, project: Project | None) -> dict:
        """``(memory scope, entry) -> (first saved at, said by the user)``: one pass per scope's history."""
        wanted: dict[str, set] = {}
        for _key, (memory_scope, _scope, entry, _spec) in fresh:
            wanted.setdefault(memory_scope, set()).add(entry)
        out: dict = {}
        root = project.main_root if project is not None else ""
        with self.ledger.read() as conn:
            for memory_scope, entries in wanted.items():
                # sorted here, not by SQLite: its index is (scope, target, id), and an ORDER BY id
                # copied every row, each the whole file, into a temporary tree first
                query = "SELECT id, at, actor_kind, actor_name, after FROM history WHERE scope = ?"
                args: list = [memory_scope]
                if memory_scope not in GLOBAL_SCOPES:
                    query += " AND project = ?"
                    args.append(root)
                seen: set = set()  # every entry an earlier row held: a row saved what is new in it
                last = None  # the previous row's list, as text: a row that appends to it is read from there on
                for _id, at, kind, name, after in sorted(conn.execute(query, args)):
                    held, last = _entries_after(after, last)
                    added = (held - seen) & entries
                    seen |= held
                    # "you" when quoted back: the user, a hand edit, or a correction the user made
                    # (saved by the correction child or its fallback)
                    by_user = kind in ("user", "hand") or "correction" in (name or "")
                    out.update({(memory_scope, entry): (float(at), by_user) for entry in added})
                    entries -= added
                    if not entries:
                        break
        return out

    def add(self, pattern: str, because: str, *, scope: str, project: Project | None,
            action: str = "ask") -> dict:
        """``tacit guard add``: ``{"success", "guard"|"error", "created"}``."""
        if not isinstance(because, str) or not " ".join(because.split()):
            return {"success": False, "error": "--because is required: the reason the agent is told"}
        if action not in ACTIONS:
            return {"success": False, "error": f"action must be one of {', '.join(ACTIONS)}, not {action!r}"}
        if scope not in ("project", "global"):
            return {"success": False, "error": f"scope must be project or global, not {scope!r}"}
        if scope == "project" and project is None:
            return {"success": False, "error": "not inside a project: use --scope global or --project DIR"}
        because = " ".join(because.split())
        spec = spec_from_pattern(pattern, because, action=action)
        if spec is None:
            return {"success": False, "error": f"not a guard pattern: {pattern!r} (a command like `npm` or "
                                               "`terraform apply`, path:GLOB, read:GLOB, push[:BRANCH], "
                                               "force-push[:BRANCH], merge[:BRANCH], sudo, pipe (curl|wget into a shell) "
                                               "or sql:drop_table,drop_database,truncate,delete_without_where)"}
        project_key = project.key if scope == "project" else ""
        root = project.main_root if scope == "project" else ""
        key = guard_key("u:", scope, project_key, spec=spec)
        now = time.time()
        with history.using(self.ledger), self.ledger.write() as conn:
            row = conn.execute("SELECT id FROM guards WHERE key = ?", (key,)).fetchone()
            if row is not None:
                gid, created = row[0], False
                conn.execute("UPDATE guards SET status = 'active', lesson = ?, spec = ?, action = ?, strikes = 0, "
                             "updated_at = ?, removed_at = NULL, removed_why = NULL WHERE id = ?",
                             (because, spec_json(spec), action, now, gid))
            else:
                row = (key, "user", scope, project_key, root, "", because, spec_json(spec), action, now, 1, now, now)
                gid, created = int(conn.execute(INSERT, row).lastrowid), True
            record, _hid = self._changed(conn, None, gid, "guard_add")
        self._signal()
        return {"success": True, "created": created, "guard": record.as_dict()}

    def add_for_lesson(self, change_id: int, pattern: str, *, scope: str, project: Project | None) -> dict:
        """A child's proposal: a guard (``ask``) for the lesson change ``change_id`` saved, accepted
        only when every word of ``pattern`` occurs in the lesson or the user's message behind it."""
        from tacit.guards.why import ungrounded
        change = history.get(self.ledger, int(change_id))
        if change is None:
            return {"success": False, "error": f"no change {change_id} (see `tacit memory log`)"}
        added = [e for e in change.added() if isinstance(e, str)]
        if not added and isinstance(change.after, str):
            added = [change.after]
        if not added:
            return {"success": False, "error": f"change {change_id} saved no lesson"}
        lessons = [" ".join(e.split()) for e in reversed(added)]  # a batch saves several: the one it is grounded in
        spec = spec_from_pattern(pattern, lessons[0])
        if spec is None:
            return {"success": False, "error": f"not a guard pattern: {pattern!r}"}
        lesson = next((e for e in lessons if not ungrounded(spec, e, change.actor.cause or "")), lessons[0])
        missing = ungrounded(spec, lesson, change.actor.cause or "")
        if missing:
            return {"success": False, "refused": True, "lesson": lesson,
                    "error": f"refused: {', '.join(repr(m) for m in missing)} occur(s) in neither the lesson nor "
                             "the user's message; the lesson stays a memory"}
        already = self._derived(lesson, spec, project)
        if already is not None:  # the lesson is a guard already: a second one would fire twice, strike apart
            return {"success": True, "created": False, "already": True, "guard": already.as_dict()}
        return self.add(pattern, lesson, scope=scope, project=project, action="ask")

    def _derived(self, lesson: str, spec: GuardSpec, project: Project | None) -> GuardRecord | None:
        """The active guard the memory sync derived from ``lesson`` that matches what ``spec`` does."""
        match = (spec.kind, spec.match.to_dict())
        with self.ledger.read() as conn:
            rows = conn.execute(f"{_SELECT} WHERE origin = 'memory' AND status = 'active' AND lesson = ? "
                                "AND project IN (?, '')", (lesson, project.key if project else "")).fetchall()
        return next((r for r in map(_record, rows) if r and (r.spec.kind, r.spec.match.to_dict()) == match), None)

    def remove(self, guard_id, *, why: str = "removed by hand") -> dict:
        return self._set_status(guard_id, "removed", why, action="guard_remove")

    def restore(self, guard_id) -> dict:
        return self._set_status(guard_id, "active", None, action="guard_restore")

    def set_action(self, guard_id, action: str) -> dict:
        if action not in ACTIONS:
            return {"success": False, "error": f"action must be one of {', '.join(ACTIONS)}, not {action!r}"}
        with history.using(self.ledger), self.ledger.write() as conn:
            record = self._get(conn, guard_id)
            if record is None:
                return _no_guard(guard_id)
            conn.execute("UPDATE guards SET action = ?, strikes = 0, updated_at = ? WHERE id = ?",
                         (action, time.time(), record.id))
            after, _hid = self._changed(conn, record, record.id, "guard_set")
        self._signal()
        return {"success": True, "guard": after.as_dict()}

    def _set_status(self, guard_id, status: str, why, *, action: str) -> dict:
        with history.using(self.ledger), self.ledger.write() as conn:
            record = self._get(conn, guard_id)
            if record is None:
                return _no_guard(guard_id)
            if record.status == status:
                return {"success": True, "changed": False, "guard": record.as_dict()}
            if status == "active" and record.status == "gone":
                return {"success": False, "error": f"guard {record.id}'s lesson is no longer in memory; "
                                                   "teach it again to bring the guard back",
                        "guard": record.as_dict()}
            now = time.time()
            conn.execute("UPDATE guards SET status = ?, strikes = CASE WHEN ? = 'active' THEN 0 ELSE strikes END, "
                         "updated_at = ?, removed_at = ?, removed_why = ? WHERE id = ?",
                         (status, status, now, now if status == "removed" else None, why, record.id))
            after, _hid = self._changed(conn, record, record.id, action)
        self._signal()
        return {"success": True, "changed": True, "guard": after.as_dict()}

    def record_event(self, guard_id: int, kind: str, *, project: str = "", session_id: str = "",
                     host: str = "", subject: str = "", ref: str | None = None, at: float | None = None) -> bool:
        """One outcome row (``ref`` makes it once per event); True if new."""
        if kind not in EVENT_KINDS:
            raise ValueError(f"kind must be one of {EVENT_KINDS}")
        with self.ledger.write() as conn:
            cur = conn.execute(
                "INSERT OR IGNORE INTO guard_events (guard_id, kind, project, session_id, host, subject, at, ref) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (int(guard_id), kind, project, session_id, host, (subject or "")[:200],
                 time.time() if at is None else at, ref))
            return cur.rowcount > 0

    def strike(self, guard_id, kind: str, *, project: str = "", session_id: str = "", host: str = "",
               subject: str = "", ref: str | None = None) -> Outcome | None:
        """An override or a "wrong": demote, or (second strike) remove; None if not active or counted."""
        if kind not in ("override", "wrong"):
            raise ValueError("a strike is an override or a wrong")
        with history.using(self.ledger), self.ledger.write() as conn:
            record = self._get(conn, guard_id)
            if record is None or record.status != "active":
                return None
            if not self.record_event(record.id, kind, project=project, session_id=session_id, host=host,
                                     subject=subject, ref=ref):
                return None
            strikes = record.strikes + 1
            now = time.time()
            if strikes >= STRIKES_TO_REMOVE:
                why = {"override": "overridden", "wrong": "called wrong"}[kind] + f" {strikes} times"
                conn.execute("UPDATE guards SET status = 'removed', strikes = ?, updated_at = ?, removed_at = ?, "
                             "removed_why = ? WHERE id = ?", (strikes, now, now, why, record.id))
                change, action = "removed", "guard_remove"
            else:
                conn.execute("UPDATE guards SET action = 'ask', strikes = ?, updated_at = ? WHERE id = ?",
                             (strikes, now, record.id))
                change, action = "demoted", "guard_demote"
            after, hid = self._changed(conn, record, record.id, action, because_of=kind)
        self._signal()
        return Outcome(after, change, hid)

    def counts(self, *, project: str | None = None) -> dict[str, int]:
        """Outcome rows by kind (of calls in ``project``, a key; None: all)."""
        per = self.per_guard(project=project).values()
        return {kind: sum(counts[kind] for counts in per) for kind in EVENT_KINDS}

    def per_guard(self, *, project: str | None = None) -> dict[int, dict]:
        """Outcome rows by guard: ``{id: {"stop", "override", "wrong", "repeat"}}``."""
        where, args = ("", ()) if project is None else (" WHERE project = ?", (project,))
        out: dict[int, dict] = {}
        with self.ledger.read() as conn:
            for gid, kind, n in conn.execute(f"SELECT guard_id, kind, count(*) FROM guard_events{where} "
                                             "GROUP BY guard_id, kind", args):
                out.setdefault(int(gid), dict.fromkeys(EVENT_KINDS, 0))[kind] = int(n)
        return out

    def _get(self, conn, guard_id) -> GuardRecord | None:
        try:
            gid = int(guard_id)
        except (TypeError, ValueError):
            return None
        row = conn.execute(f"{_SELECT} WHERE id = ?", (gid,)).fetchone()
        return _record(row) if row else None

    def _changed(self, conn, before: GuardRecord | None, gid: int, action: str, **extra) -> tuple:
        """After guard ``gid`` was written: the revision moved, the change recorded; (its row, the id)."""
        bump(conn)
        after = self._get(conn, gid)
        return after, history.record(self.cfg, action=action, scope=after.scope, target=f"guard {gid}",
                                     before=_state(before), after={**_state(after), **extra},
                                     project=after.project_root)


def write_rev_file(cfg, rev: str) -> None:
    """The revision, by rename; not synced to disk (after a crash every cache is gone anyway)."""
    path = os.path.join(cfg.state_dir_str, REV_FILE)
    tmp = f"{path}.{os.getpid()}.tmp"
    Path(tmp).write_text(rev, encoding="utf-8")
    os.replace(tmp, path)


def read_rev_file(cfg, cached: tuple | None = None) -> tuple:
    """``(stat, revision)`` of the revision file (no file: "0"); ``cached`` when it did not change."""
    path = os.path.join(cfg.state_dir_str, REV_FILE)
    try:
        st = os.stat(path)
    except OSError:
        return (None, "0")
    stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    if cached is not None and cached[0] == stamp:
        return cached
    try:
        with open(path, encoding="utf-8") as handle:
            return (stamp, handle.read(64).strip() or "0")
    except OSError:
        return (None, "?")


def bump(conn) -> None:
    """Move the guard table's revision (inside the writing transaction)."""
    current = Ledger.meta_get(conn, REV_KEY, "0")
    Ledger.meta_set(conn, REV_KEY, int(current) + 1 if str(current).isdigit() else 1)


def spec_json(spec: GuardSpec) -> str:
    return json.dumps(spec.to_dict(), ensure_ascii=False)


def _state(record: GuardRecord | None) -> dict | None:
    if record is None:
        return None
    return {"status": record.status, "action": record.action, "strikes": record.strikes, "because": record.lesson,
            "kind": record.spec.kind, "match": record.spec.match.to_dict()}


def _no_guard(guard_id) -> dict:
    return {"success": False, "error": f"no guard {guard_id!r} (see `tacit guard list --all`)"}


def _entries_after(value, last: str | None) -> tuple[set, str | None]:
    """``(entries, value when it is a list)`` of a history row; when ``value`` is ``last`` (a
    list) with items appended, only those (the rest were seen): each row holds the whole file,
    so reading every row whole is n²."""
    if last is not None and last.endswith("]") and isinstance(value, str) and value.startswith(last[:-1]):
        rest = value[len(last) - 1:].lstrip()
        if rest.startswith(","):
            data = loads("[" + rest[1:])
            if isinstance(data, list):
                return {e for e in data if isinstance(e, str)}, value
    data = loads(value)
    if isinstance(data, list):
        return {e for e in data if isinstance(e, str)}, value
    return ({data} if isinstance(data, str) else set()), None


# the guards made by hand, kept outside the ledger too (a corrupt ledger moved aside loses none)
HAND_MADE_FILE = "guards.json"  # in the state folder
_HAND_MADE_FIELDS = ("key", "scope", "project", "project_root", "lesson", "spec", "action", "status", "created_at")


def _hand_made_path(cfg) -> str:
    return os.path.join(cfg.state_dir_str, HAND_MADE_FILE)


def export_hand_made(cfg, conn) -> None:
    """Rewrite the file from the table's hand-made rows, keeping saved rows the table lacks (a fresh
    ledger not restored yet); OSError when it cannot be written."""
    rows = conn.execute(f"SELECT {', '.join(_HAND_MADE_FIELDS)} FROM guards WHERE origin = 'user' ORDER BY id")
    guards = [dict(zip(_HAND_MADE_FIELDS, row)) for row in rows]
    have = {g["key"] for g in guards}
    data = {"version": 1, "guards": [r for r in saved_hand_made(cfg) if r["key"] not in have] + guards}
    atomic_write_text(Path(_hand_made_path(cfg)), json.dumps(data, ensure_ascii=False, indent=1))


def saved_hand_made(cfg) -> list[dict]:
    """The hand-made guards the file holds ([] when there is none or it is unreadable)."""
    rows = (read_json_or_none(_hand_made_path(cfg)) or {}).get("guards")
    return [r for r in rows or []
            if isinstance(r, dict) and all(isinstance(r.get(f), str) for f in _HAND_MADE_FIELDS[:-1])]


def hand_made_problem(cfg) -> str | None:
    """What is wrong with the file, for ``tacit doctor`` (None: absent or sound)."""
    target = _hand_made_path(cfg)
    if not os.path.lexists(target):
        return None
    try:
        data = json.loads(Path(target).read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("guards"), list):
            return None
        why = "not a guard list"
    except (OSError, ValueError, RecursionError) as exc:
        why = f"unreadable: {exc.strerror if isinstance(exc, OSError) and exc.strerror else exc}"
    return (f"{target} is {why}: the guards you added by hand are not kept outside the ledger; "
            "move it away (the next change to a guard writes it again)")


def restore_hand_made(cfg, conn) -> list[str]:
    """Insert the saved hand-made guards the table lacks; their keys."""
    rows = saved_hand_made(cfg)
    if not rows:
        return []
    have = {key for (key,) in conn.execute("SELECT key FROM guards WHERE origin = 'user'")}
    now = time.time()
    restored = []
    for row in (r for r in rows if r["key"] not in have):
        cur = conn.execute(
            "INSERT OR IGNORE INTO guards (id, key, origin, scope, project, project_root, memory_scope, lesson, "
            f"spec, action, status, lesson_at, by_user, created_at, updated_at) VALUES ({next_id('guards')}, "
            "?, 'user', ?, ?, ?, '', ?, ?, ?, ?, ?, 1, ?, ?)",
            (row["key"], row["scope"], row["project"], row["project_root"], row["lesson"], row["spec"],
             row["action"], row["status"], row.get("created_at") or now, row.get("created_at") or now, now))
        if cur.rowcount:
            restored.append(row["key"])
    return restored
