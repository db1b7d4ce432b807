"""The repository's instruction files on disk → their rule lines, safely.

``found(root)`` lists the instruction files of a checkout (root and subfolders; ``.git``, dependency
and build folders pruned; bounded), and ``read(root)`` reads each: a symlink out of the checkout, a
file over ``MAX_FILE_BYTES``, binary content, an ``.mdc`` with broken frontmatter, a line the
content scanner flags — each is skipped with a notice, never a crash. ``signature(root, files)`` is
what a check stats to notice a change. The files are untrusted input: their guards can only stop
(``ask``), and they apply below the folder the file is in."""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass

from tacit.guards.instructions import MAX_FILE_BYTES, MDC_DIR, NAMES, BadFile, FileRule, rules_in
from tacit.guards.model import GuardSpec
from tacit.safety.scanner import scan
from tacit.stores.guard_memo import DerivedMemo

MAX_ENTRIES = 20000  # folder entries looked at per discovery
MAX_DEPTH = 6
_PRUNE = frozenset((".git", "node_modules", "vendor", ".venv", "venv", "__pycache__", "dist", "build",
                    "target", ".tox", ".mypy_cache", ".pytest_cache", ".next", ".cache", "site-packages",
                    ".tacit"))
_KEEP_HIDDEN = frozenset((".claude", ".github", ".cursor"))


@dataclass(frozen=True, slots=True)
class Read:
    rules: list  # (relative path, FileRule)
    notices: list  # one line per file or line skipped
    files: tuple  # relative paths read


def found(root: str) -> tuple[str, ...]:
    """Relative paths of the instruction files below ``root`` (sorted)."""
    out: list[str] = []
    seen = 0
    root = os.path.normpath(root)
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        depth = 0 if rel == "." else rel.count(os.sep) + 1
        seen += len(dirs) + len(files)
        dirs[:] = sorted(d for d in dirs if d not in _PRUNE and (not d.startswith(".") or d in _KEEP_HIDDEN)
                         and depth < MAX_DEPTH)
        names = set(files)
        prefix = "" if rel == "." else rel + "/"
        out.extend(prefix + n for n in NAMES if n in names)
        base = os.path.basename(folder)
        if rel == MDC_DIR or rel.endswith("/" + MDC_DIR):
            out.extend(prefix + n for n in sorted(names) if n.endswith(".mdc"))
        if base == ".github" and "copilot-instructions.md" in names:
            out.append(prefix + "copilot-instructions.md")
        if seen > MAX_ENTRIES:
            break
    return tuple(sorted(set(out)))


def applies_at(rel: str) -> str:
    """The folder (relative) below which a file's rules apply: its own, or
    the one holding ``.claude/``, ``.github/`` or ``.cursor/rules/``."""
    folder = os.path.dirname(rel)
    for nested in (".claude", ".github", ".cursor/rules"):
        if folder == nested or folder.endswith("/" + nested):
            folder = folder[: -len(nested)].rstrip("/")
    return folder


def _text(root: str, rel: str) -> str:
    path = os.path.join(root, rel)
    real = os.path.realpath(path)
    real_root = os.path.realpath(root)
    if real != real_root and not real.startswith(real_root + os.sep):
        raise BadFile("a symlink out of the repository")
    if not os.path.isfile(real):
        raise BadFile("not a regular file")
    size = os.path.getsize(real)
    if size > MAX_FILE_BYTES:
        raise BadFile(f"{size // 1024} KiB, over the {MAX_FILE_BYTES // 1024} KiB read")
    with open(real, "rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if b"\0" in data[:8192]:
        raise BadFile("binary content")
    return data.decode("utf-8", "replace")


def read(root: str, files: tuple[str, ...] | None = None, cfg=None) -> Read:
    """Every rule line of the instruction files below ``root`` (with ``cfg``:
    each file's rules kept by its text, ``tacit.stores.guard_memo``)."""
    files = found(root) if files is None else files
    rules: list = []
    notices: list = []
    memo = DerivedMemo(cfg, "guard-files", root) if cfg is not None else None
    for rel in files:
        try:
            text = _text(root, rel)
            if memo is None:
                found_rules = rules_in(text, rel)
            else:
                found_rules = memo.kept(f"{rel}\0{text}", lambda t=text, r=rel: rules_in(t, r), _encode, _decode)
        except BadFile as exc:
            notices.append(f"{rel}: skipped ({exc})")
            continue
        except OSError as exc:
            notices.append(f"{rel}: skipped (unreadable: {exc.strerror or exc})")
            continue
        for rule in found_rules:
            findings = scan(rule.text)
            if findings:
                notices.append(f"{rel}:{rule.line}: skipped (the content scanner flagged it: "
                               f"{findings[0].pattern_id})")
                continue
            rules.append((rel, rule))
    if memo is not None:
        memo.save()
    return Read(rules, notices, tuple(files))


def _encode(rule: FileRule) -> list:
    return [rule.line, rule.text, rule.spec.to_dict()]


def _decode(item) -> FileRule:
    line, text, data = item
    spec = GuardSpec.from_dict(data)
    if spec is None or not isinstance(line, int) or not isinstance(text, str):
        raise ValueError("not a kept rule")
    return FileRule(line, text, spec)


def signature(root: str, files: tuple[str, ...]) -> tuple:
    """(mtime, size, inode) of each file, to notice edits."""
    out = []
    for rel in files:
        try:
            st = os.stat(os.path.join(root, rel))
            out.append((st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            out.append(None)
    return tuple(out)


class Finder:
    """The instruction files of each checkout, re-discovered every
    ``every`` seconds (a new file in a subfolder is seen within that)."""

    def __init__(self, every: float = 30.0):
        self.every = every
        self._found: dict[str, tuple] = {}

    def files(self, root: str) -> tuple[str, ...]:
        now = time.monotonic()
        cached = self._found.get(root)
        if cached is not None and now - cached[0] < self.every:
            return cached[1]
        files = found(root)
        if len(self._found) > 256:
            self._found.clear()
        self._found[root] = (now, files)
        return files


NOTICE_KEY = "guards.files."  # + the project's key: the notices of its last read


def _key(project_key: str, rel: str, rule: FileRule) -> str:
    match = json.dumps({"kind": rule.spec.kind, **rule.spec.match.to_dict()}, sort_keys=True)
    raw = "\0".join((project_key, rel, rule.text, match)).encode("utf-8", "surrogatepass")
    return "f:" + hashlib.sha256(raw).hexdigest()[:32]


def sync_files(ledger, cfg, project, *, files: tuple | None = None, now: float | None = None) -> bool:
    """Bring the guards of ``project``'s instruction files in line with the
    files (``instruction_files = false``: none); True when anything changed.
    A row's ``memory_scope`` is ``file:<path>:<line>`` (its provenance); its
    id stays while the line's text stays, wherever the line moves."""
    from tacit.stores.guards import bump  # the table's revision; no cycle at import time
    if project is None:
        return False
    enabled = bool(cfg.settings.get("instruction_files", True))
    got = read(project.root, files, cfg) if enabled else Read([], [], ())
    now = time.time() if now is None else now
    live = {}
    for rel, rule in got.rules:
        live.setdefault(_key(project.key, rel, rule), (f"file:{rel}:{rule.line}", rule))
    with ledger.read() as conn:
        rows = conn.execute("SELECT id, key, status, memory_scope FROM guards WHERE origin = 'memory' "
                            "AND project = ? AND memory_scope LIKE 'file:%'", (project.key,)).fetchall()
        old_notices = ledger.meta_get(conn, NOTICE_KEY + project.key, None)
    existing = {key: (gid, status, where) for gid, key, status, where in rows}
    inserts, moves, revive, gone = [], [], [], []
    for key, (where, rule) in live.items():
        if key not in existing:
            inserts.append((key, project.key, project.main_root, where, rule.text,
                            json.dumps(rule.spec.to_dict(), ensure_ascii=False), now, now, now))
            continue
        gid, status, old = existing[key]
        if status == "gone":
            revive.append((where, now, gid))
        elif old != where:
            moves.append((where, gid))
    gone = [(now, gid) for key, (gid, status, _) in existing.items() if status == "active" and key not in live]
    notices = json.dumps(got.notices)
    if not (inserts or moves or revive or gone) and old_notices == notices:
        return False
    with ledger.write() as conn:
        conn.executemany(
            "INSERT OR IGNORE INTO guards (key, origin, scope, project, project_root, memory_scope, lesson, spec, "
            "action, lesson_at, by_user, created_at, updated_at) "
            "VALUES (?, 'memory', 'project', ?, ?, ?, ?, ?, 'ask', ?, 0, ?, ?)", inserts)
        conn.executemany("UPDATE guards SET memory_scope = ? WHERE id = ?", moves)
        conn.executemany("UPDATE guards SET status = 'active', memory_scope = ?, updated_at = ? WHERE id = ?",
                         revive)
        conn.executemany("UPDATE guards SET status = 'gone', updated_at = ? WHERE id = ?", gone)
        ledger.meta_set(conn, NOTICE_KEY + project.key, notices)
        changed = bool(inserts or moves or revive or gone)
        if changed:
            bump(conn)
    return changed


def notices(ledger, project) -> list[str]:
    """What the last read of ``project``'s instruction files skipped."""
    if project is None:
        return []
    with ledger.read() as conn:
        raw = ledger.meta_get(conn, NOTICE_KEY + project.key, None)
    try:
        found_notices = json.loads(raw) if raw else []
    except (TypeError, ValueError):
        return []
    return [n for n in found_notices if isinstance(n, str)]


__all__ = ["Read", "FileRule", "found", "read", "signature", "applies_at", "Finder", "MAX_ENTRIES", "sync_files", "notices"]
