"""MemoryStore — the memory files of one scope set: USER.md, the global MEMORY.md, and a project's
MEMORY.md (private, and the team's shared one); and their deterministic merge (consolidation without an agent).

Design notes: docs/design/stores.md#tacitstoresmemory"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from tacit import memory_folder
from tacit.fsutil import LOCK_TIMEOUT_SECONDS, LockTimeout, atomic_write_text, keep_copy, lock_for
from tacit.projects import Project, project_dir
from tacit.safety.context_gate import MEMORY as GATE_MEMORY
from tacit.safety.context_gate import NOTICE as GATE_NOTICE
from tacit.safety.context_gate import SKILL_NAME as GATE_NAME
from tacit.safety.context_gate import Block, clean_for_context, gate_context
from tacit.safety.scanner import describe, scan
from tacit.scopes import MEMORY, SCOPES  # user, global, project, team; MEMORY: the project's when there is one
from tacit.stores import history, tombstones
from tacit.stores.entries import (  # noqa: F401 — the file format, imported from here by the store's callers
    ENTRY_DELIMITER, control_problem, join_entries, normalise_entry, parse_entries, removed, replaced,
    separator_problem, usage_text,
)
from tacit.stores.entries import ENTRY_TOO_BIG, NOT_ENTRIES, NOT_UTF8, check_file, fit, read_head, too_long
from tacit.stores.entries import plan_merge  # noqa: F401 — the deterministic merge, imported from here too
from tacit.stores.file_memo import settled
from tacit.stores.shared_text import shared

TARGETS = (MEMORY, *SCOPES)  # every name a caller may pass
LIMIT_SETTINGS = {"user": "user_char_limit", "global": "memory_char_limit",
                  "project": "project_char_limit", "team": "team_char_limit"}
RULE_LINE = "═" * 46
SNAPSHOT_LABELS = {"user": "USER.md", "global": "MEMORY.md", "project": "project MEMORY.md",
                   "team": "team MEMORY.md"}  # how a left-out entry's file is named in a notice
HEADERS = {"user": "USER PROFILE (who the user is, in every project)", "global": "GLOBAL NOTES (true in every project)",
           "project": "PROJECT MEMORY: {project.name} ({project.root})",
           "team": "TEAM MEMORY: {project.name} (shared in {project.shared_dir}, reviewed through git)"}


class _Refusal(ValueError):
    """Ends an operation with a refusal result (a ValueError to a reader asking for a path)."""

    def __init__(self, target: Any, error: str, **extra: Any):
        super().__init__(error)
        self.target, self.error, self.extra = target, error, extra


def _refusals_are_results(method):
    """Public writers answer bad input and a busy lock with a refusal result; they never raise."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except _Refusal as refusal:
            return self._fail(refusal.target, refusal.error, **refusal.extra)

    return wrapper


@dataclass(frozen=True, slots=True)
class Operation:
    """One step of a batch: action is add | replace | remove."""

    action: str
    target: str = "memory"
    content: str = ""  # add: the entry; replace: the new text
    old_text: str = ""  # replace/remove: unique substring of the entry

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Operation":
        return cls(action=str(data.get("action", "")), target=str(data.get("target", "memory")),
                   content=str(data.get("content", data.get("new_text", "")) or ""),
                   old_text=str(data.get("old_text", "") or ""))


@contextlib.contextmanager
def _lock_if_possible(path: Path) -> Iterator[None]:
    """``path``'s file lock (5 s, a timeout raises); none when its folder is missing or read-only."""
    with contextlib.ExitStack() as held:
        try:
            if path.parent.is_dir():
                held.enter_context(lock_for(path, timeout=5.0))
        except LockTimeout:
            raise
        except OSError:
            pass
        yield


class MemoryStore:
    """The memory files of one scope set; one instance per session (its snapshot is frozen)."""

    def __init__(self, cfg, project: Project | None = None, *, actor: "history.Actor | None" = None):
        self.cfg = cfg
        self.project = project
        self.actor = actor  # who its writes are recorded as (else the engine's acting handler)
        self._snapshot: dict[str, str] | None = None
        self.left_out: list[str] = []  # what the context gate kept out of the snapshot, for a person
        self.gated_out: list = []  # the same, as tacit.safety.LeftOut items
        self.unread: list[str] = []  # files far over their limit: what was left out unread (entries.fit)
        self.too_long: dict[str, str] = {}  # target -> what is said of its file, read only in part or not UTF-8
        self.last_change: int | None = None  # the history id of the last write

    # scopes, paths and limits
    def targets(self) -> tuple[str, ...]:
        """The scopes this store can read and write."""
        out = ["user", "global"]
        if self.project is not None:
            out.append("project")
            if self.project.is_shared:
                out.append("team")
        return tuple(out)

    def resolve(self, target: str) -> str:
        """``memory`` → ``project`` (inside a project) or ``global``."""
        if target == MEMORY:
            return "project" if self.project is not None else "global"
        return target

    def path_for(self, target: str) -> Path:
        target = self._check_target(target)
        if target == "user":
            return self.cfg.user_file
        if target == "global":
            return self.cfg.memory_file
        if target == "project":
            return project_dir(self.cfg, self.project) / "MEMORY.md"
        return Path(self.project.shared_dir) / "MEMORY.md"

    def limit_for(self, target: str) -> int:
        return int(self.cfg.settings[LIMIT_SETTINGS[self._check_target(target)]])

    def _check_target(self, target: str) -> str:
        resolved = self.resolve(target)
        if resolved not in self.targets():
            raise _Refusal(target, self._unknown(target))
        return resolved

    def _unknown(self, target: Any) -> str:
        if target in ("project", "team"):
            where = "not inside a project" if self.project is None else "this project shares no memory"
            return f"no {target} memory here ({where}); use 'global' or 'user'"
        return f"unknown target {target!r}: use {', '.join(repr(t) for t in (MEMORY, *self.targets()))}"

    @staticmethod
    def _text_arg(target: str, value: Any, what: str) -> str:
        """``value`` normalised as an entry, or a refusal when it is not text."""
        if not isinstance(value, str):
            raise _Refusal(target, f"{what} must be text, not {type(value).__name__}.")
        text = normalise_entry(value)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise _Refusal(target, f"{what} is not valid Unicode text (it holds a lone "
                                   "surrogate) and cannot be written to a UTF-8 file.") from None
        return text

    def header(self, target: str) -> str:
        return HEADERS[self._check_target(target)].format(project=self.project)

    # reading (no lock: writes are atomic renames)
    def read_raw(self, target: str) -> str:
        path = self.path_for(target)
        try:
            data, size = read_head(path)
        except FileNotFoundError:
            return ""
        if size > len(data):
            self.too_long[target] = too_long(path, size)
        try:  # an editor's byte-order mark is not "poison"
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:  # never crash on a hand edit's invalid UTF-8, and say so
            self.too_long[target] = (f"{path} is not valid UTF-8 (bad byte at offset {exc.start}): what is not was "
                                     "read as U+FFFD, and tacit will not write to it until you fix it by hand.")
            return data.decode("utf-8-sig", errors="replace")

    def entries(self, target: str) -> list[str]:
        return parse_entries(self.read_raw(target))

    def usage(self, target: str, entries: list[str] | None = None) -> dict[str, Any]:
        entries = self.entries(target) if entries is None else entries
        current, limit = len(join_entries(entries)), self.limit_for(target)
        return {"current": current, "limit": limit, "text": usage_text(current, limit)}

    # Every scope passes the one context gate (tacit.safety.gate_context); what fails is left out,
    # never shown as a "[BLOCKED …]" line: ``left_out`` says so for a person, ``gated_out`` holds it.
    def snapshot(self, targets: Iterable[str] | None = None) -> str:
        """The system-prompt block of every scope (or of ``targets``), frozen at the first call."""
        if self._snapshot is None:
            self.notice_edits()  # a hand edit is noticed on load (and recorded as one)
            self._snapshot = {t: shared(b) for t, b in self.render_blocks(self.targets()).items()}
        wanted = self.targets() if targets is None else [self.resolve(t) for t in targets]
        return "\n\n".join(self._snapshot[t] for t in wanted if self._snapshot.get(t))

    def render_blocks(self, targets: list) -> dict:
        """Every scope's block (``_rendered``); what it left out goes to ``unread``, ``left_out``, ``gated_out``."""
        blocks, unread, left_out, gated_out = _rendered(tuple(
            (t, self.read_raw(t), self.limit_for(t), str(self.path_for(t)), self.header(t)) for t in targets),
            self.project)
        self.unread.extend(unread)
        self.unread.extend(self.too_long[t] for t in targets if t in self.too_long)
        self.left_out.extend(left_out)
        self.gated_out.extend(gated_out)
        return dict(blocks)

    def prompt_header(self, target: str) -> str:
        return _shown_header(target, self.header(target), self.project)

    def _ok(self, target: str, message: str, entries: list[str]) -> dict[str, Any]:
        return {"success": True, "target": target, "message": message,
                "usage": self.usage(target, entries)["text"], "entry_count": len(entries)}

    def _fail(self, target: str, error: str, entries: list[str] | None = None, **extra) -> dict[str, Any]:
        result: dict[str, Any] = {"success": False, "target": target, "error": error}
        if entries is not None:
            result.update(usage=self.usage(target, entries)["text"], entry_count=len(entries), current_entries=entries)
        return {**result, **extra}

    # validation shared by add/replace/batch
    def _check_content(self, target: str, content: str) -> str | None:
        if not content:
            return "Content cannot be empty."
        problem = separator_problem(content) or control_problem(content)
        if problem:
            return problem
        if len(content) > self.limit_for(target):
            return None  # refused by the limit under the lock; no need to scan it
        findings = scan(content)
        if findings:
            return f"Refused by the content scanner: {describe(findings)}"
        # what the user asked to forget comes back only when they teach it again
        return tombstones.check_save(self.cfg, content, history.current_actor(self.actor))

    def _load_for_write(self, target: str, *, roundtrip_guard: bool) -> list[str]:
        """Re-read under the lock; a file a rewrite would lose text of is backed up and refused."""
        path = self.path_for(target)
        try:
            data, size = read_head(path)
        except FileNotFoundError:
            return []
        if size > len(data):  # a rewrite of its first part would drop the rest
            raise _Refusal(target, f"Refusing to rewrite {path.name}; nothing was changed. {too_long(path, size)}")
        check = check_file(data, self.limit_for(target))
        if check.problem == NOT_UTF8 or (roundtrip_guard and check.problem):
            why = {NOT_UTF8: "the file is not valid UTF-8",
                   NOT_ENTRIES: f"the file does not round-trip as §-separated entries ({check.where})",
                   ENTRY_TOO_BIG: f"one entry ({check.biggest:,} chars) is larger than the whole limit",
                   }[check.problem]
            backup = keep_copy(path, data)  # 0600; one copy per content, not per refusal
            raise _Refusal(
                target, f"Refusing to rewrite {path.name}: {why}, so rewriting it could lose text someone "
                        f"added by hand. A copy was saved to {backup}.", drift_backup=str(backup),
                remediation=f"Open {path} and make it a clean list of entries separated by a line holding only "
                            f"'§' (entries shorter than the limit), re-adding anything from the backup with "
                            f"`tacit memory add`; then retry.")
        return check.entries

    @contextlib.contextmanager
    def _lock(self, target: str) -> Iterator[None]:
        """Hold a target's file lock (a timeout is a refusal); a folder made a link is refused first."""
        path = self.path_for(target)
        if target != "team" and (moved := memory_folder.problem(self.cfg, path.parent)):
            raise _Refusal(target, moved)
        if linked := memory_folder.file_problem(path):
            raise _Refusal(target, linked)
        try:
            lock = lock_for(path).acquire()
        except LockTimeout:
            raise _Refusal(target, f"Another process is still writing {path.name} (its lock "
                                   f"was busy for {LOCK_TIMEOUT_SECONDS:g} s); nothing was "
                                   "changed. Try again in a moment.", lock_busy=True) from None
        try:
            yield
        finally:
            lock.release()

    def _write(self, target: str, before: list[str], entries: list[str], action: str,
               group: str = "") -> int | None:
        """Write the file, then record the change in the history; its id."""
        actor = history.current_actor(self.actor)  # no actor, no write
        if target == "project":
            remember_project(self.cfg, self.project)
        path = self.path_for(target)
        project = self._project_key(target)
        # an edit made since tacit's last write is recorded first, as what it
        # is, so undoing this change never undoes the edit too
        history.notice_edit(self.cfg, scope=target, target=str(path), entries=list(before), project=project)
        atomic_write_text(path, join_entries(entries))
        self.last_change = history.record(
            self.cfg, action=action, scope=target, target=str(path), before=list(before), after=list(entries),
            project=project, actor=actor, group=group)
        return self.last_change

    def _project_key(self, target: str) -> str:
        return self.project.main_root if self.project is not None and target in ("project", "team") else ""

    def notice_edits(self, actor: "history.Actor | None" = None, baselines: dict | None = None) -> list[int]:
        """Record every file changed since tacit's last write (by hand, or a host's tool; with ``baselines``,
        only those files, compared with these entries when no write is recorded); the ids."""
        found = []
        for target in (self.targets() if baselines is None else baselines):
            path = self.path_for(target)
            sig = settled(str(path)) if baselines is None else None
            if history.agrees(self.cfg, str(path), sig):
                continue  # each session's start read, locked and looked up every file again
            try:
                # under the file's lock: a write between its file and its history row is no edit
                with _lock_if_possible(path):
                    change = history.notice_edit(self.cfg, scope=target, target=str(path),
                                                 entries=self.entries(target), project=self._project_key(target),
                                                 actor=actor, baseline=(baselines or {}).get(target), sig=sig)
            except OSError:  # LockTimeout too: the writer holding it records the edit itself before writing
                continue
            if change is not None:
                found.append(change)
        return found

    def unrecorded(self) -> dict[str, list[str]]:
        """The entries now of each file no recorded change wrote (a host's file from before tacit)."""
        with history.ledger_for(self.cfg) as ledger:
            return {t: self.entries(t) for t in self.targets() if history.last_state(ledger, str(self.path_for(t))) is None}

    @_refusals_are_results
    def add(self, target: str, content: str, *, group: str = "") -> dict[str, Any]:
        """Append an entry. An exact duplicate is a successful no-op."""
        target = self._check_target(target)
        content = self._text_arg(target, content, "Content")
        return self._put(target, content, "add", "Entry added.",
                         lambda entries: None if content in entries else entries + [content], group)

    def _put(self, target: str, text: str, action: str, done: str, change: Callable,
             group: str = "") -> dict[str, Any]:
        """add/replace: ``text`` checked, then under the lock ``change(entries)`` (None: a duplicate) within
        the limit, written."""
        problem = self._check_content(target, text)
        if problem:
            return self._fail(target, problem)
        with self._lock(target):
            entries = self._load_for_write(target, roundtrip_guard=action != "add")
            new_entries = change(entries)
            if new_entries is None:
                return self._ok(target, "Entry already exists (no duplicate added).", entries)
            total, limit = len(join_entries(new_entries)), self.limit_for(target)
            if len(text) > limit:  # no consolidation makes room for it (consolidating_helps)
                return self._fail(target, f"This entry is {len(text):,} chars, longer than the whole limit of "
                                          f"{self.path_for(target).name} ({limit:,} chars); shorten it. Nothing "
                                          "was changed.", entries, over_limit=True, too_long=True)
            if total > limit:
                return self._fail(
                    target, f"{self.path_for(target).name} is at {len(join_entries(entries)):,}/{limit:,} chars; "
                            f"this change ({len(text):,} chars) would make it {total:,}, over the limit. "
                            "Consolidate: merge overlapping entries with 'replace' or remove stale ones, then retry.",
                    entries, over_limit=True)
            self._write(target, entries, new_entries, action, group)
        return self._changed(self._ok(target, done, new_entries))

    def _match(self, target: str, entries: list[str], old_text: Any) -> int:
        """Index of the one entry containing ``old_text`` (else a refusal)."""
        old_text = self._text_arg(target, old_text, "old_text")
        if not old_text:
            raise _Refusal(target, "old_text cannot be empty.")
        hits = [i for i, e in enumerate(entries) if old_text in e]
        if not hits:
            raise _Refusal(target, f"No entry contains {old_text!r}.", entries=entries)
        distinct = {entries[i] for i in hits}
        if len(distinct) > 1 and old_text.strip() in distinct:  # the whole of one entry picks it (else "5"
            return entries.index(old_text.strip())             # could never be told from "port 5173")
        if len(distinct) > 1:
            previews = [e[:80] + ("…" if len(e) > 80 else "") for e in sorted(distinct)]
            raise _Refusal(target, f"{len(distinct)} different entries contain {old_text!r}; use a "
                                   "longer, unique substring.", entries=entries, matches=previews)
        return hits[0]

    @_refusals_are_results
    def replace(self, target: str, old_text: str, new_text: str) -> dict[str, Any]:
        """Replace the one entry containing ``old_text`` with ``new_text``."""
        target = self._check_target(target)
        new_text = self._text_arg(target, new_text, "New text")
        if not new_text:
            return self._fail(target, "New text cannot be empty; use remove to delete an entry.")
        return self._put(target, new_text, "replace", "Entry replaced.",
                         lambda entries: replaced(entries, self._match(target, entries, old_text), new_text))

    @_refusals_are_results
    def remove(self, target: str, old_text: str, *, group: str = "") -> dict[str, Any]:
        """Remove the one entry containing ``old_text``."""
        target = self._check_target(target)
        self._text_arg(target, old_text, "old_text")  # refused before the lock
        with self._lock(target):
            entries = self._load_for_write(target, roundtrip_guard=True)
            new_entries = removed(entries, self._match(target, entries, old_text))
            self._write(target, entries, new_entries, "remove", group)
        return self._changed(self._ok(target, "Entry removed.", new_entries))

    @_refusals_are_results
    def rewritable(self, target: str) -> dict[str, Any]:
        """Success when ``target``'s file can be rewritten without losing text; else the refusal a
        rewrite would get (its backup made). A move asks before it copies anything."""
        target = self._check_target(target)
        with self._lock(target):
            self._load_for_write(target, roundtrip_guard=True)
        return {"success": True, "target": target}

    @_refusals_are_results
    def batch(self, operations: list[Operation | dict]) -> dict[str, Any]:
        """Apply all operations or none; limits are checked on the final state."""
        if not isinstance(operations, (list, tuple)) or not all(
                isinstance(op, (Operation, dict)) for op in operations):
            return {"success": False, "error": "A batch is a list of operations "
                                               "({action, target, content|old_text})."}
        ops = [op if isinstance(op, Operation) else Operation.from_dict(op) for op in operations]
        if not ops:
            return {"success": False, "error": "Empty batch."}
        ops = [dataclasses.replace(op, target=self.resolve(op.target)) for op in ops]
        for op in ops:
            if op.target not in self.targets():
                return {"success": False, "error": self._unknown(op.target)}
            if op.action not in ("add", "replace", "remove"):
                return {"success": False, "error": f"unknown action {op.action!r}"}
            if op.action in ("add", "replace"):
                problem = self._check_content(op.target, self._text_arg(op.target, op.content, "Content"))
                if problem:
                    return {"success": False, "target": op.target, "error": problem}
        targets = sorted({op.target for op in ops})
        with contextlib.ExitStack() as held:
            # Locks in a fixed order so two batches never deadlock each other;
            # if one stays busy, the ones already held are released.
            for t in targets:
                held.enter_context(self._lock(t))
            rewritten = {op.target for op in ops if op.action != "add"}
            before = {t: self._load_for_write(t, roundtrip_guard=t in rewritten) for t in targets}
            state = {t: list(entries) for t, entries in before.items()}
            for n, op in enumerate(ops, 1):
                entries = state[op.target]
                if op.action == "add":
                    content = normalise_entry(op.content)
                    if content not in entries:
                        entries.append(content)
                    continue
                old_text = self._text_arg(op.target, op.old_text, "old_text")
                try:
                    index = self._match(op.target, entries, old_text)
                except _Refusal as refusal:
                    raise _Refusal(refusal.target, f"operation {n} ({op.action}): {refusal.error}",
                                   **refusal.extra, applied=False) from None
                state[op.target] = (replaced(entries, index, normalise_entry(op.content))
                                    if op.action == "replace" else removed(entries, index))
            for t in targets:
                total, limit = len(join_entries(state[t])), self.limit_for(t)
                if total > limit:
                    return self._fail(t, f"Batch would leave {self.path_for(t).name} at {total:,}/{limit:,} "
                                         "chars, over the limit; nothing was changed.",
                                      before[t], over_limit=True, applied=False)
            group = f"batch-{time.time_ns()}"
            written = [t for t in targets if state[t] != before[t]]
            for t in written:
                self._write(t, before[t], state[t], "batch", group)
        result = {"success": True, "message": f"Batch of {len(ops)} operation(s) applied.",
                  "targets": {t: self._ok(t, "ok", state[t]) for t in targets}}
        return self._changed(result) if written else result  # its change_id undoes the whole batch

    @_refusals_are_results
    def rewrite(self, target: str, change: Callable[[list[str]], list[str]], *,
                action: str = "consolidate", group: str = "") -> dict[str, Any]:
        """Under the lock, write ``change(entries)`` when it differs; for changes made of the file's
        own entries (the deterministic merge): not scanned, no limit. The result carries ``entries``."""
        target = self._check_target(target)
        with self._lock(target):
            entries = self._load_for_write(target, roundtrip_guard=True)
            new_entries = list(change(list(entries)))
            changed = new_entries != entries
            if changed:
                self._write(target, entries, new_entries, action, group)
        result = self._ok(target, "Entries rewritten." if changed else "Nothing changed.", new_entries)
        result["entries"] = new_entries
        return self._changed(result) if changed else result

    @_refusals_are_results
    def take_unrecorded(self, target: str, wanted: Callable[[str], bool]) -> dict[str, Any]:
        """Remove the entries ``wanted`` picks that no recorded change wrote (another tool's carrier,
        re-saved where it belongs), unrecorded; the result's ``taken`` lists them."""
        target = self._check_target(target)
        with self._lock(target):
            entries = self._load_for_write(target, roundtrip_guard=True)
            path = self.path_for(target)
            with history.ledger_for(self.cfg) as ledger:
                known = history.last_state(ledger, str(path)) or []
            taken = [e for e in entries if wanted(e) and e not in known]
            kept = [e for e in entries if e not in taken]
            if taken:
                atomic_write_text(path, join_entries(kept))
        return {**self._ok(target, f"{len(taken)} unrecorded entries taken.", kept), "taken": taken}

    def _changed(self, result: dict[str, Any]) -> dict[str, Any]:
        if self.last_change is not None:
            result["change_id"] = self.last_change
        else:  # written, but history.record could not reach the ledger (logged)
            result["unrecorded"] = history.UNRECORDED
        return result

    @_refusals_are_results
    def show(self, target: str) -> dict[str, Any]:
        """The live entries on disk, with the file's path and usage."""
        target = self._check_target(target)
        entries = self.entries(target)
        result = self._ok(target, f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}.", entries)
        return {**result, "entries": entries, "path": str(self.path_for(target))}


def consolidating_helps(result: dict[str, Any]) -> bool:
    """A refused add or replace that consolidating its file could make room for: one longer than
    the whole limit would have the person's memory rewritten (by a paid child) for nothing."""
    return bool(result.get("over_limit")) and not result.get("too_long")


def remember_project(cfg, project: Project) -> None:
    """``project.json`` beside a project's memory: which repository it is (written once)."""
    meta = project_dir(cfg, project) / "project.json"
    if meta.exists():
        return
    atomic_write_text(meta, json.dumps({"name": project.name, "root": project.main_root, "key": project.key,
                                        "kind": project.kind, "created": time.time()}, indent=2) + "\n")


@functools.lru_cache(maxsize=16)
def _rendered(scopes: tuple, project: Project | None) -> tuple:
    """``(blocks, unread, left_out, gated_out)`` of ``scopes`` (target, file text, limit, path, header), gated
    together (an injection split across scopes is caught too); kept by all they are made of: a session starting
    on unchanged memory is not scanned and rendered again (the gate is a pure function)."""
    entries = {target: parse_entries(text) for target, text, *_ in scopes}
    fits = {target: fit(entries[target], limit) for target, _, limit, *_ in scopes}  # only what is injected is scanned
    gated = gate_context([Block(GATE_MEMORY, SNAPSHOT_LABELS[t], join_entries(fits[t].kept), t)
                          for t in entries if fits[t].kept])
    shown = {block.group: parse_entries(block.text) for block in gated.allowed}
    blocks, unread, left_out, gated_out = dict.fromkeys(entries, ""), [], [], []
    for target, _, limit, path, header in scopes:
        if not entries[target]:
            continue
        told = fits[target].told(path, limit)
        if told:
            unread.append(told)
            left_out.append(told)
        mine = [item for item in gated.left_out if item.label.startswith(f"{SNAPSHOT_LABELS[target]} entr")]
        if mine:
            gated_out.extend(mine)
            count = len({item.label for item in mine})
            reasons = sorted({f"{item.reason} [{item.pattern_id}]" for item in mine})
            left_out.append(f"{count} entr{'y' if count == 1 else 'ies'} of {path} failed the content scanner and "
                            f"{'was' if count == 1 else 'were'} left out of the agent's context: {'; '.join(reasons)}")
        if shown.get(target):  # usage is of what is on disk: the limit applies to the file
            head = f"{_shown_header(target, header, project)} [{usage_text(len(join_entries(entries[target])), limit)}]"
            blocks[target] = f"{RULE_LINE}\n{head}\n{RULE_LINE}\n{join_entries(shown[target])}"
    return blocks, unread, left_out, gated_out


def _shown_header(target: str, header: str, project: Project | None) -> str:
    """A block's header as the agent may see it: a project's name (a folder name anyone can choose) that is
    not one clean line, or that the scanner refuses, is not shown."""
    if project is None or target not in ("project", "team"):
        return header
    gated = gate_context([Block(GATE_NAME, "project", project.name), Block(GATE_NOTICE, "project", header)])
    if gated.left_out or "\n" in header or clean_for_context(header) != header:
        return "PROJECT MEMORY (this project)" if target == "project" else "TEAM MEMORY (this repository)"
    return header


# the deterministic merge: what consolidation does without an agent
def merge_duplicates(store: MemoryStore, target: str) -> dict:
    """Apply ``plan_merge`` to a target of ``store``: ``{"merged", "merges", "usage", "still_over"}``,
    or ``{"merged": 0, "error"}`` when the file drifted or its lock stayed busy."""
    merges: list[dict] = []

    def merge(entries: list[str]) -> list[str]:
        kept, made = plan_merge(entries)
        merges.extend(made)
        return kept

    result = store.rewrite(target, merge)
    if not result["success"]:
        return {"merged": 0, "error": result["error"]}
    usage = store.usage(target, result["entries"])
    return {"merged": len(merges), "merges": merges, "usage": usage["text"],
            "still_over": usage["current"] > usage["limit"]}
