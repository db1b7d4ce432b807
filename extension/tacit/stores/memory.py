"""MemoryStore — MEMORY.md (the agent's notes) and USER.md (who the user is).

Design decisions
- **Hermes Agent's format, byte for byte.** Entries are joined by ``"\\n§\\n"``;
  the files live in ``<home>/memories/``; the limit is on the length of the
  joined text (characters, not tokens: model-independent). A Hermes user has
  one memory, not two, and can hand-edit it.
- **Frozen snapshot.** ``snapshot()`` renders the system-prompt block the
  first time it is asked for and never changes afterwards, whatever is
  written mid-session: the host's prompt prefix (and its cache) stays stable;
  the next session sees the new entries. Live reads go to disk every time.
- **Every write: scan → lock → re-read → change → atomic write.** The scan
  keeps injection and secrets out of a future system prompt; the lock is the
  same sibling ``.lock`` + ``flock`` Hermes takes, so both can write one file;
  re-reading under the lock means concurrent writers never lose each other's
  entries; the atomic rename means a killed writer never leaves half a file.
  Readers take no lock. A lock still held by another writer after
  ``fsutil.LOCK_TIMEOUT_SECONDS`` is a refusal ("try again"), not an
  exception: callers get a result dict either way.
- **``§`` on a line of its own is refused**, not escaped: it is the entry
  separator, and any escape would show up verbatim in Hermes (which shares the
  file) and in the agent's prompt. An inline ``§`` ("see § 3") is fine.
- **Drift guard.** A hand-edited file that would not survive a
  parse → serialise round trip (or is not UTF-8, or holds one entry larger
  than the whole limit — free text appended by hand) is backed up to
  ``<file>.bak.<timestamp>`` and replace/remove is refused with remediation
  text: rewriting it would silently drop what the person wrote. ``add`` only
  appends, so it skips the round-trip check but still refuses a file that is
  not valid UTF-8.
- **Results are data.** Every operation returns the dict the agent-facing tool
  returns (``success``, ``message``/``error``, ``usage``, ``entry_count``, and
  ``current_entries`` on failure) — the CLI prints it, hosts hand it back.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from tacit.fsutil import LOCK_TIMEOUT_SECONDS, atomic_write_text, lock_for

ENTRY_DELIMITER = "\n§\n"
TARGETS = ("memory", "user")
BLOCK_HEADERS = {
    "memory": "MEMORY (your personal notes)",
    "user": "USER PROFILE (who the user is)",
}
RULE_LINE = "═" * 46


class _LockBusy(Exception):
    """Another writer held the file's lock past the timeout."""

    def __init__(self, target: str):
        super().__init__(target)
        self.target = target


class _TargetLock:
    """``with`` a target's file lock; a timeout becomes ``_LockBusy``."""

    __slots__ = ("target", "lock")

    def __init__(self, target: str, lock):
        self.target, self.lock = target, lock

    def __enter__(self):
        try:
            self.lock.acquire()
        except TimeoutError:  # fsutil.LockTimeout
            raise _LockBusy(self.target) from None
        return self

    def __exit__(self, *exc) -> None:
        self.lock.release()


def _busy_is_a_refusal(method):
    """Public writers return a refusal when the lock stays busy (never raise)."""

    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except _LockBusy as busy:
            return self._fail(
                busy.target,
                f"Another process is still writing {self.path_for(busy.target).name} "
                f"(its lock was busy for {LOCK_TIMEOUT_SECONDS:g} s); nothing was changed. "
                f"Try again in a moment.",
                lock_busy=True,
            )

    wrapper.__name__, wrapper.__doc__ = method.__name__, method.__doc__
    return wrapper


class DriftError(Exception):
    """The file on disk would not survive a rewrite; it has been backed up."""

    def __init__(self, path: Path, backup: Path, why: str):
        super().__init__(why)
        self.path, self.backup, self.why = path, backup, why


def parse_entries(raw: str) -> list[str]:
    """Split a memory file's text into entries (whitespace-trimmed, no empties)."""
    if not raw.strip():
        return []
    return [e.strip() for e in raw.split(ENTRY_DELIMITER) if e.strip()]


def join_entries(entries: Iterable[str]) -> str:
    return ENTRY_DELIMITER.join(entries)


def normalise_entry(text: str) -> str:
    """Line endings to ``\\n`` and outer whitespace trimmed: what is stored."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def separator_problem(entry: str) -> str | None:
    """Why ``entry`` cannot be stored as one entry, or None."""
    if any(line.strip() == "§" for line in entry.split("\n")):
        return (
            "Entry contains '§' on a line of its own; that line is the separator "
            "between memory entries and would split this entry in two. "
            "Put the '§' inside a sentence or remove that line."
        )
    return None


def usage_text(current: int, limit: int) -> str:
    pct = min(100, int(current * 100 / limit)) if limit > 0 else 0
    return f"{pct}% — {current:,}/{limit:,} chars"


@dataclass(frozen=True)
class Operation:
    """One step of a batch: action is add | replace | remove."""

    action: str
    target: str = "memory"
    content: str = ""  # add: the entry; replace: the new text
    old_text: str = ""  # replace/remove: unique substring of the entry

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Operation":
        return cls(
            action=str(data.get("action", "")),
            target=str(data.get("target", "memory")),
            content=str(data.get("content", data.get("new_text", "")) or ""),
            old_text=str(data.get("old_text", "") or ""),
        )


class MemoryStore:
    """Bounded, file-backed memory for both targets. One instance per session."""

    def __init__(self, cfg):
        self.cfg = cfg
        self._snapshot: dict[str, str] | None = None

    # -- paths and limits -------------------------------------------------
    def path_for(self, target: str) -> Path:
        self._check_target(target)
        return self.cfg.user_file if target == "user" else self.cfg.memory_file

    def limit_for(self, target: str) -> int:
        self._check_target(target)
        return int(self.cfg.user_char_limit if target == "user" else self.cfg.memory_char_limit)

    @staticmethod
    def _check_target(target: str) -> None:
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r}: use 'memory' or 'user'")

    # -- reading (no lock: writes are atomic renames) ----------------------
    def read_raw(self, target: str) -> str:
        try:
            data = self.path_for(target).read_bytes()
        except FileNotFoundError:
            return ""
        # A hand edit may leave invalid UTF-8; readers must never crash on it.
        # utf-8-sig: a file saved by an editor that writes a byte-order mark
        # must not show its first entry as invisible-unicode "poison"
        return data.decode("utf-8-sig", errors="replace")

    def entries(self, target: str) -> list[str]:
        """The live entries on disk now."""
        return parse_entries(self.read_raw(target))

    def usage(self, target: str, entries: list[str] | None = None) -> dict[str, Any]:
        entries = self.entries(target) if entries is None else entries
        current, limit = len(join_entries(entries)), self.limit_for(target)
        return {"current": current, "limit": limit, "text": usage_text(current, limit)}

    # -- the frozen snapshot -----------------------------------------------
    def snapshot(self) -> str:
        """The system-prompt block for both targets, frozen at first call."""
        if self._snapshot is None:
            self._snapshot = {t: self._render_block(t) for t in TARGETS}
        return "\n\n".join(block for block in self._snapshot.values() if block)

    def snapshot_block(self, target: str) -> str:
        self.snapshot()
        assert self._snapshot is not None
        return self._snapshot[target]

    def _render_block(self, target: str) -> str:
        entries = self.entries(target)
        if not entries:
            return ""
        shown = [self._screen_for_prompt(target, entry) for entry in entries]
        # Usage is of what is on disk: the limit applies to the file.
        head = f"{BLOCK_HEADERS[target]} [{usage_text(len(join_entries(entries)), self.limit_for(target))}]"
        return f"{RULE_LINE}\n{head}\n{RULE_LINE}\n{join_entries(shown)}"

    def _screen_for_prompt(self, target: str, entry: str) -> str:
        from tacit.scan import scan

        findings = scan(entry)
        if not findings:
            return entry
        ids = ", ".join(f.pattern_id for f in findings)
        name = self.path_for(target).name
        # Visible, not silent: the agent (and the person reading the prompt)
        # learns that an entry was held back and how to clear it.
        return (
            f"[BLOCKED: {name} entry contained threat pattern(s): {ids}. Removed from the "
            f"system prompt; run `tacit memory remove --target {target} <text>` to delete it.]"
        )

    # -- results -----------------------------------------------------------
    def _ok(self, target: str, message: str, entries: list[str]) -> dict[str, Any]:
        return {
            "success": True,
            "target": target,
            "message": message,
            "usage": self.usage(target, entries)["text"],
            "entry_count": len(entries),
        }

    def _fail(self, target: str, error: str, entries: list[str] | None = None, **extra) -> dict[str, Any]:
        result: dict[str, Any] = {"success": False, "target": target, "error": error}
        if entries is not None:
            result["usage"] = self.usage(target, entries)["text"]
            result["entry_count"] = len(entries)
            result["current_entries"] = entries
        result.update(extra)
        return result

    # -- validation shared by add/replace/batch ----------------------------
    def _check_content(self, content: str) -> str | None:
        if not content:
            return "Content cannot be empty."
        problem = separator_problem(content)
        if problem:
            return problem
        from tacit.scan import describe, scan

        findings = scan(content)
        if findings:
            return f"Refused by the content scanner: {describe(findings)}"
        return None

    # -- guarded read-modify-write ----------------------------------------
    def _load_for_write(self, target: str, *, roundtrip_guard: bool) -> list[str]:
        """Re-read under the lock; raise DriftError if a rewrite would lose text."""
        path = self.path_for(target)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return []
        try:
            raw = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise self._backup(path, data, "the file is not valid UTF-8") from None
        entries = parse_entries(raw)
        if roundtrip_guard and raw.strip():
            if join_entries(entries) != raw.strip():
                raise self._backup(path, data, "the file does not round-trip as §-separated entries")
            biggest = max((len(e) for e in entries), default=0)
            if biggest > self.limit_for(target):
                raise self._backup(
                    path, data, f"one entry ({biggest:,} chars) is larger than the whole limit"
                )
        return entries

    @staticmethod
    def _backup(path: Path, data: bytes, why: str) -> DriftError:
        stamp = time.strftime("%Y%m%dT%H%M%S")
        backup = path.with_name(f"{path.name}.bak.{stamp}")
        n = 1
        while backup.exists():
            backup = path.with_name(f"{path.name}.bak.{stamp}.{n}")
            n += 1
        backup.write_bytes(data)
        return DriftError(path, backup, why)

    def _drift_result(self, target: str, exc: DriftError) -> dict[str, Any]:
        return self._fail(
            target,
            f"Refusing to rewrite {exc.path.name}: {exc.why}, so rewriting it could lose "
            f"text someone added by hand. A copy was saved to {exc.backup}.",
            drift_backup=str(exc.backup),
            remediation=(
                f"Open {exc.path} and make it a clean list of entries separated by a line "
                f"holding only '§' (entries shorter than the limit), re-adding anything "
                f"from the backup with `tacit memory add`; then retry."
            ),
        )

    def _lock(self, target: str) -> _TargetLock:
        return _TargetLock(target, lock_for(self.path_for(target)))

    def _write(self, target: str, entries: list[str]) -> None:
        atomic_write_text(self.path_for(target), join_entries(entries))

    # -- operations ----------------------------------------------------------
    @_busy_is_a_refusal
    def add(self, target: str, content: str) -> dict[str, Any]:
        """Append an entry. An exact duplicate is a successful no-op."""
        self._check_target(target)
        content = normalise_entry(content)
        problem = self._check_content(content)
        if problem:
            return self._fail(target, problem)
        with self._lock(target):
            try:
                entries = self._load_for_write(target, roundtrip_guard=False)
            except DriftError as exc:
                return self._drift_result(target, exc)
            if content in entries:
                return self._ok(target, "Entry already exists (no duplicate added).", entries)
            new_entries = entries + [content]
            over = self._over_limit(target, entries, new_entries, content)
            if over:
                return over
            self._write(target, new_entries)
        return self._ok(target, "Entry added.", new_entries)

    def _over_limit(self, target, entries, new_entries, content) -> dict[str, Any] | None:
        limit = self.limit_for(target)
        total = len(join_entries(new_entries))
        if total <= limit:
            return None
        current = len(join_entries(entries))
        return self._fail(
            target,
            f"{self.path_for(target).name} is at {current:,}/{limit:,} chars; this change "
            f"({len(content):,} chars) would make it {total:,}, over the limit. Consolidate: "
            f"merge overlapping entries with 'replace' or remove stale ones, then retry.",
            entries,
            over_limit=True,
        )

    def _match(self, target: str, entries: list[str], old_text: str) -> tuple[int | None, dict | None]:
        """Index of the one entry containing ``old_text``, or a failure result."""
        old_text = normalise_entry(old_text)
        if not old_text:
            return None, self._fail(target, "old_text cannot be empty.")
        hits = [i for i, e in enumerate(entries) if old_text in e]
        if not hits:
            return None, self._fail(target, f"No entry contains {old_text!r}.", entries)
        distinct = {entries[i] for i in hits}
        if len(distinct) > 1:
            previews = [e[:80] + ("…" if len(e) > 80 else "") for e in sorted(distinct)]
            return None, self._fail(
                target,
                f"{len(distinct)} different entries contain {old_text!r}; use a longer, "
                f"unique substring.",
                entries,
                matches=previews,
            )
        return hits[0], None

    def _load_and_match(self, target: str, old_text: str) -> tuple[list[str], int | None, dict | None]:
        """Under the target's lock: (entries, index of the one entry containing
        ``old_text``, None), or a failure result (drift or no unique match) in
        the last place. Replace and remove both start here."""
        try:
            entries = self._load_for_write(target, roundtrip_guard=True)
        except DriftError as exc:
            return [], None, self._drift_result(target, exc)
        index, failure = self._match(target, entries, old_text)
        return entries, index, failure

    @_busy_is_a_refusal
    def replace(self, target: str, old_text: str, new_text: str) -> dict[str, Any]:
        self._check_target(target)
        new_text = normalise_entry(new_text)
        if not new_text:
            return self._fail(target, "New text cannot be empty; use remove to delete an entry.")
        problem = self._check_content(new_text)
        if problem:
            return self._fail(target, problem)
        with self._lock(target):
            entries, index, failure = self._load_and_match(target, old_text)
            if failure:
                return failure
            new_entries = _replaced(entries, index, new_text)
            over = self._over_limit(target, entries, new_entries, new_text)
            if over:
                return over
            self._write(target, new_entries)
        return self._ok(target, "Entry replaced.", new_entries)

    @_busy_is_a_refusal
    def remove(self, target: str, old_text: str) -> dict[str, Any]:
        self._check_target(target)
        with self._lock(target):
            entries, index, failure = self._load_and_match(target, old_text)
            if failure:
                return failure
            new_entries = _removed(entries, index)
            self._write(target, new_entries)
        return self._ok(target, "Entry removed.", new_entries)

    @_busy_is_a_refusal
    def batch(self, operations: list[Operation | dict]) -> dict[str, Any]:
        """Apply all operations or none; limits are checked on the final state."""
        ops = [op if isinstance(op, Operation) else Operation.from_dict(op) for op in operations]
        if not ops:
            return {"success": False, "error": "Empty batch."}
        for op in ops:
            if op.target not in TARGETS:
                return {"success": False, "error": f"unknown target {op.target!r}"}
            if op.action not in ("add", "replace", "remove"):
                return {"success": False, "error": f"unknown action {op.action!r}"}
            if op.action in ("add", "replace"):
                problem = self._check_content(normalise_entry(op.content))
                if problem:
                    return {"success": False, "target": op.target, "error": problem}
        targets = sorted({op.target for op in ops})
        # Locks in a fixed order so two batches never deadlock each other;
        # if one stays busy, the ones already held are released.
        locks: list = []
        try:
            for t in targets:
                locks.append(self._lock(t).__enter__())
        except _LockBusy:
            for held in reversed(locks):
                held.__exit__(None, None, None)
            raise
        try:
            state: dict[str, list[str]] = {}
            before: dict[str, list[str]] = {}
            for t in targets:
                needs_guard = any(op.target == t and op.action != "add" for op in ops)
                try:
                    state[t] = self._load_for_write(t, roundtrip_guard=needs_guard)
                except DriftError as exc:
                    return self._drift_result(t, exc)
                before[t] = list(state[t])
            for n, op in enumerate(ops, 1):
                entries = state[op.target]
                if op.action == "add":
                    content = normalise_entry(op.content)
                    if content not in entries:
                        entries.append(content)
                    continue
                index, failure = self._match(op.target, entries, op.old_text)
                if failure:
                    failure["error"] = f"operation {n} ({op.action}): {failure['error']}"
                    failure["applied"] = False
                    return failure
                if op.action == "replace":
                    state[op.target] = _replaced(entries, index, normalise_entry(op.content))
                else:
                    state[op.target] = _removed(entries, index)
            for t in targets:
                total, limit = len(join_entries(state[t])), self.limit_for(t)
                if total > limit:
                    return self._fail(
                        t,
                        f"Batch would leave {self.path_for(t).name} at {total:,}/{limit:,} chars, "
                        f"over the limit; nothing was changed.",
                        before[t],
                        over_limit=True,
                        applied=False,
                    )
            for t in targets:
                if state[t] != before[t]:
                    self._write(t, state[t])
        finally:
            for held in reversed(locks):
                held.__exit__(None, None, None)
        return {
            "success": True,
            "message": f"Batch of {len(ops)} operation(s) applied.",
            "targets": {t: self._ok(t, "ok", state[t]) for t in targets},
        }

    def show(self, target: str) -> dict[str, Any]:
        entries = self.entries(target)
        result = self._ok(target, f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}.", entries)
        result["entries"] = entries
        result["path"] = str(self.path_for(target))
        return result


def _replaced(entries: list[str], index: int, new_text: str) -> list[str]:
    """``entries`` with the one at ``index`` replaced; two entries becoming
    identical is a merge, not a duplicate."""
    new_entries = list(entries)
    new_entries[index] = new_text
    return _dedupe(new_entries)


def _removed(entries: list[str], index: int) -> list[str]:
    """``entries`` without the one at ``index`` (and any exact copy of it)."""
    removed = entries[index]
    return [e for e in entries if e != removed]


def _dedupe(entries: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for e in entries:
        if e not in seen:
            seen.add(e)
            out.append(e)
    return out
