"""The repository's instruction files on disk → their rule lines, safely (what cannot be read is
skipped with a notice). Untrusted input: their guards ask, below the file's folder. What no reading
turns into a guard (their unread lines, and saved lessons alike) is put to the rule reader.

Design notes: docs/guards.md#rules-from-the-repositorys-own-files"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass

from tacit.guards.instructions import (
    MAX_FILE_BYTES, MAX_RULES_PER_FILE, MDC_DIR, NAMES, BadFile, FileRule, ReadCut, UnreadLine, applies_at,
    generated_self, read_text, unread_rule,
)
from tacit.guards.model import GuardSpec
from tacit.projects import kept
from tacit.safety.scanner import scan
from tacit.stores import history
from tacit.stores.file_memo import DerivedMemo
from tacit.stores.guards import INSERT, bump, derived, guard_key, spec_json
from tacit.stores.ledger import loads
from tacit.stores.memory import MemoryStore

MAX_ENTRIES = 20000  # folder entries looked at per discovery
MAX_DEPTH = 6
READ_SECONDS = 1.5  # reading every file of a checkout, at most: a guard check must not miss its hook's deadline
_PRUNE = frozenset((".git", "node_modules", "vendor", ".venv", "venv", "__pycache__", "dist", "build",
                    "target", ".tox", ".mypy_cache", ".pytest_cache", ".next", ".cache", "site-packages",
                    ".tacit"))
_KEEP_HIDDEN = frozenset((".claude", ".github", ".cursor"))


@dataclass(frozen=True, slots=True)
class Read:
    rules: list  # (relative path, FileRule)
    notices: list  # one line per file or line skipped
    files: tuple  # relative paths read
    unread: list = ()  # (relative path, UnreadLine): refusals no reading turned into a guard
    cut: tuple = ()  # relative paths whose reading ran out of time (``ReadCut``): the rest is unknown


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
    return data.decode("utf-8-sig", "replace")  # an editor's byte-order mark is not part of line 1


def read(root: str, files: tuple[str, ...] | None = None, cfg=None) -> Read:
    """Every rule line of the instruction files below ``root`` (with ``cfg``: kept by their text)."""
    files = found(root) if files is None else files
    rules: list = []
    unread: list = []
    notices: list = []
    memo = DerivedMemo(cfg, "guard-files", root) if cfg is not None else None
    seen: set = set()  # (folder, line, spec): CLAUDE.md -> AGENTS.md, or a copy, says it once
    cut: list = []
    until = time.monotonic() + READ_SECONDS
    for rel in sorted(files, key=lambda r: _linked(root, r)):  # the real file first, then as found
        try:
            text = _text(root, rel)
            items = (_items(text, rel, until) if memo is None else
                     memo.kept(f"{rel}\0{text}", lambda t=text, r=rel: _items(t, r, until), _encode, _decode))
        except ReadCut as stop:  # kept by nobody: read again when next asked, further (``_reading``)
            notices.append(f"{rel}: {stop} (reading it took over {READ_SECONDS:g} s; the rest is read next time)")
            own = generated_self(text, rel)
            items = [*([own] if own else []), *stop.rules, *stop.unread]
            cut.append(rel)
        except BadFile as exc:
            notices.append(f"{rel}: skipped ({exc})")
            continue
        except OSError as exc:
            notices.append(f"{rel}: skipped (unreadable: {exc.strerror or exc})")
            continue
        found_rules = [i for i in items if isinstance(i, FileRule)]
        if len(found_rules) >= MAX_RULES_PER_FILE:  # silently dropping the rest hid a rule written last
            notices.append(f"{rel}: only its first {MAX_RULES_PER_FILE} rules are enforced, the most tacit takes "
                           f"from one file (lines after {found_rules[-1].line} are not read)")
        items = [i for i in items if _first(seen, rel, i)]
        for rule in (i for i in items if isinstance(i, FileRule)):
            findings = scan(rule.text)
            if findings:
                notices.append(f"{rel}:{rule.line}: skipped (the content scanner flagged it: "
                               f"{findings[0].pattern_id})")
                continue
            rules.append((rel, rule))
        unread.extend((rel, i) for i in items if isinstance(i, UnreadLine) and not scan(i.text))
    if memo is not None:
        memo.save()
    return Read(rules, notices, tuple(files), unread, tuple(cut))


def _linked(root: str, rel: str) -> bool:
    """Whether the path reaches its file through a symlink (``CLAUDE.md -> AGENTS.md``)."""
    path = os.path.join(root, rel)
    return os.path.realpath(path) != os.path.join(os.path.realpath(root), os.path.normpath(rel))


def _first(seen: set, rel: str, item) -> bool:
    """False for a line another file read from the same folder said already (same text, same guard)."""
    spec = spec_json(item.spec) if isinstance(item, FileRule) else None
    key = (applies_at(rel), item.text, spec)
    if key in seen:
        return False
    seen.add(key)
    return True


def _items(text: str, rel: str, until: float | None = None) -> list:
    found_rules, found_unread = read_text(text, rel, until=until)
    own = generated_self(text, rel)  # "<!-- GENERATED FILE. DO NOT EDIT -->": the file itself is asked for
    return [*([own] if own else []), *found_rules, *found_unread]


def _encode(rule) -> list:
    return [rule.line, rule.text, rule.spec.to_dict() if isinstance(rule, FileRule) else None]


def _decode(item):
    line, text, data = item
    if data is None and isinstance(line, int) and isinstance(text, str):
        return UnreadLine(line, text)
    spec = GuardSpec.from_dict(data)
    if spec is None or not isinstance(line, int) or not isinstance(text, str):
        raise ValueError("not a kept rule")
    return FileRule(line, text, spec)


class Finder:
    """The instruction files of each checkout, re-discovered every ``every`` seconds."""

    def __init__(self, every: float):
        self.every = every
        self._found: dict[str, tuple] = {}

    def files(self, root: str) -> tuple[str, ...]:
        """A file made at the root (``/init`` writes CLAUDE.md) or in its ``.claude``, ``.github`` or
        ``.cursor/rules`` changes their folder's mtime: found at once; deeper ones within ``every``."""
        return kept(self._found, (root, *map(_mtime, _watched(root))), lambda: found(root), seconds=self.every)


def _watched(root: str) -> tuple:
    """The folders whose mtime ``Finder.files`` keys on."""
    return (root, *(os.path.join(root, d) for d in (".claude", ".github", MDC_DIR)))


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


NOTICE_KEY = "guards.files."  # + the project's key: the notices of its last read
READ_BY_CHILD = "c:"  # the key prefix of a guard a child phrased for an unread line (add_for_line)


def checkout(project) -> tuple:
    """What tells a checkout's file guards apart: a worktree's files may say otherwise than the main
    checkout's (a branch dropped a line, added one), so its rows are its own (``project_root``)."""
    return (project.key,) if project.root == project.main_root else (project.key, project.root)


def sync_files(ledger, cfg, project, *, files: tuple | None = None, now: float | None = None) -> tuple[bool, tuple]:
    """Bring the guards of ``project``'s instruction files in line with the files; (whether anything
    changed, the files read only in part). ``memory_scope`` is ``file:<path>:<line>``; the id stays
    while the text does."""
    if project is None:
        return False, ()
    enabled = bool(cfg.settings.get("instruction_files", True))
    got = read(project.root, files, cfg) if enabled else Read([], [], ())
    now = time.time() if now is None else now
    live = {}
    for rel, rule in got.rules:
        key = guard_key("f:", *checkout(project), rel, rule.text, spec=rule.spec)
        live.setdefault(key, (f"file:{rel}:{rule.line}", rule))
    unread = {(rel, line.text): line.line for rel, line in got.unread}
    with ledger.read() as conn:
        rows = conn.execute("SELECT id, key, status, memory_scope, lesson FROM guards WHERE origin = 'memory' "
                            "AND project = ? AND project_root = ? AND memory_scope LIKE 'file:%'",
                            (project.key, project.root)).fetchall()
        old_notices = ledger.meta_get(conn, NOTICE_KEY + project.key, None)
    existing = {}
    for gid, key, status, where, text in rows:
        if key.startswith(READ_BY_CHILD):  # a child's phrasing lives while its line reads the same
            rel = where[5:].rsplit(":", 1)[0]
            if (rel, text) in unread:
                live[key] = (f"file:{rel}:{unread[rel, text]}", None)
        existing[key] = (gid, status, where)
    inserts, moves, revive, gone = [], [], [], []
    for key, (where, rule) in live.items():
        if key not in existing and rule is not None:
            inserts.append((key, "memory", "project", project.key, project.root, where, rule.text,
                            spec_json(rule.spec), "ask", now, 0, now, now))
            continue
        gid, status, old = existing[key]
        if status == "gone":
            revive.append((where, now, gid))
        elif old != where:
            moves.append((where, gid))
    # a file read only in part takes no guard away: its lines past the cut are not known to be gone
    gone = [(now, gid) for key, (gid, status, where) in existing.items()
            if status == "active" and key not in live and where[5:].rsplit(":", 1)[0] not in got.cut]
    notices = json.dumps(got.notices)
    if not (inserts or moves or revive or gone) and old_notices == notices:
        return False, got.cut
    with ledger.write() as conn:
        conn.executemany(INSERT, inserts)
        conn.executemany("UPDATE guards SET memory_scope = ? WHERE id = ?", moves)
        conn.executemany("UPDATE guards SET status = 'active', memory_scope = ?, updated_at = ? WHERE id = ?",
                         revive)
        conn.executemany("UPDATE guards SET status = 'gone', updated_at = ? WHERE id = ?", gone)
        ledger.meta_set(conn, NOTICE_KEY + project.key, notices)
        changed = bool(inserts or moves or revive or gone)
        if changed:
            bump(conn)
    return changed, got.cut


def add_for_line(store, where: str, pattern: str, project) -> dict:
    """A child's phrasing of an unread line (``tacit guard add --line AGENTS.md:42 PATTERN``),
    accepted only when every word of ``pattern`` occurs in that line; it asks, and lives with it."""
    from tacit.display import clip
    from tacit.guards import spec_from_pattern
    from tacit.guards.instructions import _inside, refusing_text
    from tacit.guards.model import PathMatch
    from tacit.guards.why import ungrounded
    if project is None:
        return {"success": False, "error": "not inside a project: --line reads the project's instruction files"}
    rel, _, number = (where or "").strip().rpartition(":")
    if not rel or not number.isdigit():
        return {"success": False, "error": f"--line takes FILE:LINE (e.g. AGENTS.md:42), not {clip(str(where), 80)!r}"}
    if not bool(store.cfg.settings.get("instruction_files", True)):
        return {"success": False, "error": "instruction_files = false in config.toml: tacit reads no instruction file"}
    got = read(project.root, None, store.cfg)
    line = next((u for r, u in got.unread if r == rel and u.line == int(number)), None)
    if line is None:
        ruled = any(r == rel and rule.line == int(number) for r, rule in got.rules)
        return {"success": False, "error": f"{clip(rel, 80)}:{clip(number, 12)} is " + (
            "a guard already (tacit guard list)" if ruled else "not an unread rule line of this project's "
            "instruction files (a refusal naming a command, program or path that tacit could not read)")}
    spec = spec_from_pattern(pattern, line.text, action="ask")
    if spec is None:
        return {"success": False, "error": f"not a guard pattern: {clip(str(pattern), 80)!r}"}
    if isinstance(spec.match, PathMatch) and not all(_inside(p) for p in spec.match.patterns):
        return {"success": False, "refused": True, "error": "refused: a path outside the project"}
    missing = ungrounded(spec, refusing_text(line.text))  # not in its reason or what it says to do instead
    if missing:
        return {"success": False, "refused": True, "line": line.text,
                "error": f"refused: {', '.join(repr(clip(m, 60)) for m in missing[:8])} occur(s) nowhere in what "
                         f"{rel}:{number} forbids (its reason and what it says to do instead do not count); "
                         "the line stays unread"}
    key = guard_key(READ_BY_CHILD, *checkout(project), rel, line.text, spec=spec)
    now = time.time()
    with history.using(store.ledger), store.ledger.write() as conn:
        row = conn.execute("SELECT id, status FROM guards WHERE key = ?", (key,)).fetchone()
        if row is not None and row[1] == "removed":  # lifted by someone: a phrasing does not undo that
            return {"success": False, "lifted": int(row[0]),
                    "error": f"guard {row[0]} for {rel}:{line.line} was lifted; bring it back with "
                             f"`tacit guard restore {row[0]}`"}
        if row is not None:
            conn.execute("UPDATE guards SET status = 'active', memory_scope = ?, updated_at = ? WHERE id = ? "
                         "AND status = 'gone'", (f"file:{rel}:{line.line}", now, row[0]))
            bump(conn)
            record = store._get(conn, row[0])
        else:
            gid = conn.execute(INSERT, (key, "memory", "project", project.key, project.root,
                                        f"file:{rel}:{line.line}", line.text, spec_json(spec), "ask", now, 0,
                                        now, now)).lastrowid
            record, _hid = store._changed(conn, None, gid, "guard_add")
    store._signal()
    created = row is None
    return {"success": True, "created": created, "guard": record.as_dict()}


ASKED_KEY = "guards.files.asked."  # + the project's key: the unread lines already put to a child


def unread_lines(ledger, cfg, project, *, files: tuple | None = None) -> list:
    """The unread lines of ``project``'s instruction files: ``{"where", "text", "asked"}``."""
    if project is None or not bool(cfg.settings.get("instruction_files", True)):
        return []
    got = read(project.root, files, cfg)
    asked = asked_ids(ledger, asked_key(project, ""))
    wheres = [(f"{rel}:{line.line}", line.text) for rel, line in got.unread]
    return [{"where": where, "text": text, "asked": asked_id(where, text) in asked}
            for where, text in wheres]


def unasked(ledger, cfg, project, *, limit: int = 40, files: tuple | None = None) -> list:
    """The unread lines no child was shown yet, at most ``limit``; a text said in two files once."""
    out, seen = [], set()
    for one in unread_lines(ledger, cfg, project, files=files):
        if not one["asked"] and one["text"] not in seen:
            seen.add(one["text"])
            out.append({"where": one["where"], "text": one["text"]})
    return out[:limit]


def mark_asked(ledger, project, lines: list) -> None:
    """Remember that ``lines`` (from ``unasked``, or lessons ``memory:…``) were put to a child."""
    _update_asked(ledger, project, lines, keep=False)


def unmark_asked(ledger, project, lines: list) -> None:
    """``lines`` were not read after all (no agent, a failed run): shown again next time."""
    _update_asked(ledger, project, lines, keep=True)


def asked_key(project, where: str) -> str:
    """Where the shown ids of ``where`` are kept: a lesson's for every project, a line's per project."""
    return ASKED_KEY + ("memory" if where.startswith("memory:") or project is None else project.key)


def asked_ids(ledger, key: str) -> set:
    """The ids kept under ``key`` (``asked_key``) of what a child was shown."""
    with ledger.read() as conn:
        return set(_strings(ledger.meta_get(conn, key, None)))


def asked_id(where: str, text: str) -> str:
    """The id of a line (``where``: FILE:LINE) or a lesson (``memory:SCOPE:CHANGE``) shown."""
    rel = where.rsplit(":", 1)[0]
    return hashlib.sha256(f"{rel}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _update_asked(ledger, project, lines: list, *, keep: bool) -> None:
    by_key: dict = {}
    for one in lines:
        if isinstance(one, dict) and isinstance(one.get("where"), str) and isinstance(one.get("text"), str):
            by_key.setdefault(asked_key(project, one["where"]), []).append(asked_id(one["where"], one["text"]))
    with ledger.write() as conn:
        for key, ids in by_key.items():
            asked = _strings(ledger.meta_get(conn, key, None))
            asked = [a for a in asked if a not in set(ids)] if keep else (asked + ids)[-2000:]
            ledger.meta_set(conn, key, json.dumps(asked))


def _strings(raw) -> list:
    """The texts of a kept JSON list (anything else: none)."""
    found = loads(raw)
    return [a for a in found if isinstance(a, str)] if isinstance(found, list) else []


def notices(ledger, project) -> list[str]:
    """What the last read of ``project``'s instruction files skipped."""
    if project is None:
        return []
    with ledger.read() as conn:
        return _strings(ledger.meta_get(conn, NOTICE_KEY + project.key, None))


# saved lessons tacit cannot read as a guard, for the rule reader
MAX_SEARCHED = 20  # lessons looked up in the history per call: a session's first turn end waits for it


def unasked_lessons(ledger, cfg, project, *, limit: int = 20) -> list:
    """``{"where": "memory:<scope>:<change>", "text", "change"}`` of each unread lesson seen from
    ``project`` no child was shown (``change`` None: no history row saved it; mark it all the same)."""
    store = MemoryStore(cfg, project)
    asked = asked_ids(ledger, asked_key(project, "memory:"))
    out, searched = [], 0
    for scope in store.targets():
        for entry in store.entries(scope):
            if len(out) >= limit or searched >= MAX_SEARCHED:
                return out
            if asked_id(f"memory:{scope}:0", entry) in asked or not unread_rule(entry) or derived(entry):
                continue
            searched += 1
            change = _saved_by(ledger, entry)
            out.append({"where": f"memory:{scope}:{change or 0}", "text": entry, "change": change})
    return out


def _saved_by(ledger, entry: str) -> int | None:
    """The newest change that added ``entry`` (its history row), if any."""
    pieces = re.split(r'["\\]', entry)  # the history keeps entries as JSON: these are escaped there
    probe = max(pieces, key=len).strip()[:80]
    if len(probe) < 8:
        return None
    for change in history.changes(ledger, text=probe, limit=20):
        if entry in change.added() or (isinstance(change.after, str) and change.after == entry):
            return change.id
    return None
