"""SkillStore — one folder per skill, ``skills/<name>/SKILL.md``, plus its index.

Design decisions
- **Hermes Agent's layout.** ``<home>/skills/<name>/SKILL.md`` (Agent Skills
  format, see ``skill_format``). Hermes also files skills under a category,
  ``skills/<category>/<name>/SKILL.md``: list, index and view find those too,
  but tacit only *writes* top-level skills (category skills are read-only
  here — they belong to whoever put them there). Dot-folders (``.trash``,
  Hermes's ``.hub``) are never skills.
- **Every write: scan → lock → re-read → change → atomic write.** The new
  text is scanned before anything is touched (and the whole resulting file
  before it is written, so tacit never rewrites blocked text a person added);
  the per-skill lock lives in ``<state_dir>/locks/`` (not in the skill folder,
  so a delete can move the whole folder and a hand editor never sees lock
  files); the file is re-read under the lock so concurrent patchers never lose
  each other's changes; ``atomic_write_text`` means a killed writer leaves the
  old file or the new one. Readers take no lock.
- **Nothing is lost.** ``delete`` moves the folder to
  ``skills/.trash/<name>-<UTC timestamp>/``; ``create`` refuses an existing
  name; a malformed file is never rewritten or removed.
- **Hand edits are expected.** Listing and indexing never raise: a file with
  bad YAML, no frontmatter, a name that differs from its folder, binary or
  non-UTF-8 bytes, over 100,000 characters, or a missing description is
  reported as ``{"path", "reason"}`` and skipped. A skill whose description
  fails the content scanner is reported and left out of the index (the index
  goes into the system prompt), and ``view`` refuses it.
- **Paths come only from names.** A name is checked against the Agent Skills
  rule before it becomes a path; a supporting-file argument must be relative
  without ``..``; anything that resolves (through symlinks) outside the skills
  folder is refused, and reported when listing.
- **The index is cheap.** Every build lists the folder and stats each
  SKILL.md. Two caches keyed on ``(path, mtime_ns, size, inode)`` then avoid
  the rest: parsed frontmatter per file, and the rendered index text for the
  whole set (keyed on a digest of all the stats, the budget and a fingerprint
  of parser and scanner). Both live in memory per process and in small JSON
  files under ``<state_dir>/cache`` so a fresh hook process benefits; when
  nothing changed a build costs the stats plus one small file read, when one
  skill changed only that file is parsed. Cache files are written without
  fsync — a torn, stale or foreign file just fails to match and is rebuilt.
- **A cold build is cheap too** (nothing cached: a first run, a new tacit
  version). Each SKILL.md is read whole with one ``os.read`` of its stat
  size (no buffered file object), parsed by the fast frontmatter parser and
  checked; the descriptions are then scanned as one batch (the scanner's
  code and tables stay hot), and each cache file is written once, at the
  end. The whole file is still read and decoded, so the UTF-8, NUL and
  100,000-character checks hold for every file reported as malformed.
  Figures: docs/skills.md, "Speed".
- **Frozen snapshot.** ``snapshot()`` renders the index once per store
  instance — the copy the session started with — while ``index_text()`` and
  a ``watch()``-ed live index follow the files.
- **Results are data** shaped like the memory tool's: ``success`` plus
  ``message`` or ``error`` and the fields a caller needs next.
"""

from __future__ import annotations

import functools
import json
import operator
import os
import stat
import threading
import time
from pathlib import Path
from typing import Any, Callable
from tacit.fsutil import LockTimeout

from tacit.stores.skill_format import (
    INITIAL_VERSION,
    MAX_SKILL_BYTES,
    MAX_SKILL_CHARS,
    SkillFormatError,
    bump_version,
    clean_section_title,
    content_heading_problem,
    description_problem,
    metadata_problem,
    missing_sections,
    now_iso,
    one_line,
    parse_frontmatter,
    parse_skill,
    render_skill,
    replace_section,
    slugify,
    title_from_name,
    validate_name,
)

__all__ = ["SkillStore", "Watcher", "slugify", "validate_name"]

SKILL_FILE = "SKILL.md"
TRASH_DIR = ".trash"
CACHE_FORMAT = 2
MAX_SUPPORTING_FILE_CHARS = MAX_SKILL_CHARS

# path of a SKILL.md -> ((mtime_ns, size, inode), entry). Shared by every store
# in the process: the key is the file's identity, so sharing is always safe.
_MEMO: dict[str, tuple[tuple[int, int, int], dict[str, Any]]] = {}


# index signature -> rendered index text (see SkillStore.index_text)
_INDEX_MEMO: dict[str, str] = {}


def clear_memo() -> None:
    """Forget everything held in memory (benchmarks, tests)."""
    _MEMO.clear()
    _INDEX_MEMO.clear()


def _never_raise(method: Callable[..., dict]) -> Callable[..., dict]:
    """Store operations return an error result instead of raising: they are
    called from host processes, which a memory extension must never break."""

    @functools.wraps(method)
    def wrapper(self: "SkillStore", *args: Any, **kwargs: Any) -> dict:
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            if isinstance(exc, LockTimeout):
                return _fail("another process is still writing this skill (lock timed out); "
                             "try again in a moment")
            from tacit.log import log_exception

            log_exception(self.cfg, f"skills.{method.__name__}", exc)
            return _fail(f"unexpected error: {type(exc).__name__}: {exc}")

    return wrapper


def _fail(error: str, **extra: Any) -> dict[str, Any]:
    return {"success": False, "error": error, **extra}


def _jsonable(value: Any) -> Any:
    """Frontmatter values as JSON-friendly scalars (dates -> ISO text)."""
    if value is None or isinstance(value, (str, int)) and not isinstance(value, bool):
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


# tacit.scan, imported on first use (an import statement per call costs ~1 µs)
_SCANNER: Any = None


def _scan_text(text: str) -> str | None:
    """The scanner's verdict on ``text`` as a sentence, or None when clean."""
    global _SCANNER
    if _SCANNER is None:
        import tacit.scan

        _SCANNER = tacit.scan
    finding = _SCANNER.first_finding(text)
    return _SCANNER.describe([finding]) if finding else None


@functools.cache
def _scanner_fingerprint() -> str:
    """Changes whenever the parser or the scanner changes: cached verdicts
    and parses from another version are then ignored. Computed once per
    process: it stands for the code this process runs, which a later change
    of the files on disk does not change."""
    from tacit import __version__

    here = Path(__file__).resolve().parent
    parts = [__version__]
    for path in (here / "skill_format.py", here / "skills.py", here.parent / "scan.py"):
        try:
            st = os.stat(path)
            parts.append(f"{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            parts.append("-")
    return "|".join(parts)


def _text_of(data: bytes) -> tuple[str | None, str | None]:
    """``(text, problem)``: a SKILL.md's bytes as text, or why they are not."""
    if len(data) > MAX_SKILL_BYTES:
        return None, f"too large: {len(data):,} bytes (limit {MAX_SKILL_CHARS:,} characters)"
    if b"\x00" in data:
        return None, "binary file (contains NUL bytes), not a text SKILL.md"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not valid UTF-8 (bad byte at offset {exc.start}); binary file?"
    if len(text) > MAX_SKILL_CHARS:
        return None, f"too large: {len(text):,} characters (limit {MAX_SKILL_CHARS:,})"
    return text, None


def _read_skill_bytes(path: str | Path, size: int) -> tuple[bytes | None, str | None]:
    """``(bytes, problem)`` of the file at ``path`` whose stat size is ``size``.

    The whole file is read (its UTF-8 validity and length are checked, not
    only the frontmatter's), with ``os.open``/``os.read``: one ``read`` of the
    size stat reported plus one byte is the whole file in one system call,
    without the buffered file object ``open()`` builds — that object, and the
    extra ``fstat``/``lseek``/``read`` calls it makes, cost more than the read
    itself for a 2 KB file. A short or long read (the file changed since it
    was stat'ed) reads on to the end, never past the size limit.
    """
    if size > MAX_SKILL_BYTES:  # refused unread
        return None, f"too large: {size:,} bytes (limit {MAX_SKILL_CHARS:,} characters)"
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        return None, f"cannot read: {exc.strerror or exc}"
    try:
        data = os.read(fd, size + 1)
        if len(data) != size:  # changed since the stat (or a short read): read to the end
            chunks, total = [data], len(data)
            while total <= MAX_SKILL_BYTES:
                chunk = os.read(fd, max(MAX_SKILL_BYTES + 1 - total, 1))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
            data = b"".join(chunks)
    except OSError as exc:
        return None, f"cannot read: {exc.strerror or exc}"
    finally:
        os.close(fd)
    return data, None


def _read_skill_file(path: str | Path, size: int) -> tuple[str | None, str | None]:
    """``(text, problem)`` for the file at ``path`` whose stat size is ``size``."""
    data, problem = _read_skill_bytes(path, size)
    if problem:
        return None, problem
    if len(data) <= MAX_SKILL_CHARS and b"\x00" not in data:
        # the common case, in line: at most 100,000 bytes are at most
        # 100,000 characters, so only the decoding can fail
        try:
            return data.decode("utf-8"), None
        except UnicodeDecodeError:
            pass
    return _text_of(data)


def _load_entry(path: str, folder: str, st: os.stat_result) -> dict[str, Any]:
    """Read and check one SKILL.md: the index entry, or ``{"problem": …}``.

    The description is not scanned here: ``_scan_entries`` scans a whole
    batch of entries afterwards (see there why)."""
    text, problem = _read_skill_file(path, st.st_size)
    if problem:
        return {"problem": problem}
    try:
        meta = parse_frontmatter(text)
    except SkillFormatError as exc:
        return {"problem": str(exc)}
    problem = metadata_problem(meta, folder)
    if problem:
        return {"problem": problem}
    version, updated = meta.get("version"), meta.get("updated")
    return {
        "name": meta["name"],
        "description": meta["description"],
        "version": version if type(version) is str else _jsonable(version),
        "updated": updated if type(updated) is str else _jsonable(updated),
    }


def _scan_entries(entries: list[dict[str, Any]]) -> None:
    """Mark the entries whose description the content scanner blocks.

    The name is a checked slug; the description is the free text that
    reaches the system prompt. Scanning the batch in one loop after all the
    reading and parsing (rather than file by file) keeps the scanner's code
    and tables hot in the CPU caches: a cold 1,000-skill build measured
    ~5% faster (26.8 ms against 28.1 ms, medians of 40 interleaved builds)."""
    scan_text = _scan_text
    for entry in entries:
        if "problem" not in entry:
            verdict = scan_text(entry["description"])
            if verdict:
                entry["blocked"] = verdict


class SkillStore:
    """create / view / patch / edit / delete / list skills, and the index."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.skills_dir = Path(cfg.skills_dir)
        self._snapshot: str | None = None

    # ------------------------------------------------------------------ paths
    @property
    def cache_file(self) -> Path:
        return Path(self.cfg.state_dir) / "cache" / "skill-index.json"

    def _lock(self, name: str):
        from tacit.fsutil import lock_for

        return lock_for(Path(self.cfg.state_dir) / "locks" / f"skill-{name}")

    def _root_real(self) -> str:
        return os.path.realpath(self.skills_dir)

    def _inside_root(self, path: str | Path, root_real: str | None = None) -> bool:
        root_real = root_real or self._root_real()
        real = os.path.realpath(path)
        return real.startswith(root_real + os.sep)

    def _top_level(self, name: str) -> Path:
        return self.skills_dir / name / SKILL_FILE

    def _locate(self, name: str) -> tuple[Path | None, str | None, str | None]:
        """``(SKILL.md path, category, error)`` of an existing skill; name checked."""
        top = self._top_level(name)
        if os.path.lexists(top.parent):
            if not self._inside_root(top.parent) or (
                os.path.lexists(top) and not self._inside_root(top)
            ):
                return None, None, (f"refused: {top} is a symlink that points outside the "
                                    f"skills folder {self.skills_dir}")
            if top.is_file():
                return top, None, None
        try:
            entries = sorted(os.scandir(self.skills_dir), key=lambda e: e.name)
        except OSError:
            entries = []
        for entry in entries:
            if entry.name.startswith(".") or entry.name == name or not _is_dir(entry):
                continue
            candidate = Path(entry.path) / name / SKILL_FILE
            if candidate.is_file():
                if not self._inside_root(candidate):
                    return None, None, (f"refused: {candidate} points outside the skills "
                                        f"folder {self.skills_dir}")
                return candidate, entry.name, None
        return None, None, None

    def _not_found(self, name: str) -> dict[str, Any]:
        return _fail(f"no skill named {name!r} in {self.skills_dir}; "
                     "`tacit skill list` shows the skills there", name=name)

    # --------------------------------------------------------------- reading
    @_never_raise
    def view(self, name: str, file: str | None = None) -> dict[str, Any]:
        """The full SKILL.md text (or, with ``file``, a supporting file inside
        the skill's folder, e.g. ``references/api.md``)."""
        problem = validate_name(name)
        if problem:
            return _fail(problem)
        path, category, error = self._locate(name)
        if error:
            return _fail(error, name=name)
        if path is None:
            return self._not_found(name)
        if file is not None:
            return self._view_supporting(name, path.parent, file)
        text, problem = self._read_checked(path, name)
        if problem:
            return _fail(f"skill {name!r} cannot be used: {problem}. The file is at {path}; "
                         "fix it by hand.", name=name, path=str(path))
        verdict = _scan_text(text)
        if verdict:
            return _fail(f"skill {name!r} was blocked by the content scanner: {verdict}. "
                         f"Review the file at {path} by hand.", name=name, path=str(path))
        result = {"success": True, "name": name, "path": str(path), "content": text}
        if category:
            result["category"] = category
        return result

    def _view_supporting(self, name: str, folder: Path, file: str) -> dict[str, Any]:
        problem = _relative_path_problem(file)
        if problem:
            return _fail(problem, name=name)
        target = folder / file
        # ".." and absolute paths are refused above; a symlink may point
        # elsewhere inside the skills folder (shared notes), never outside it.
        if not self._inside_root(target):
            return _fail(f"refused: {file!r} resolves outside the skills folder "
                         f"{self.skills_dir}", name=name)
        if not target.is_file():
            return _fail(f"skill {name!r} has no file {file!r}", name=name)
        if target.stat().st_size > MAX_SUPPORTING_FILE_CHARS * 4:
            return _fail(f"{file!r} is too large to view", name=name)
        try:
            text = target.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            return _fail(f"{file!r} is not a UTF-8 text file", name=name, path=str(target))
        verdict = _scan_text(text)
        if verdict:
            return _fail(f"{file!r} was blocked by the content scanner: {verdict}",
                         name=name, path=str(target))
        return {"success": True, "name": name, "path": str(target), "content": text}

    def _read_checked(self, path: Path, folder: str) -> tuple[str | None, str | None]:
        """``(text, problem)`` for a SKILL.md: the same checks as the index."""
        try:
            size = os.stat(path).st_size
        except OSError as exc:
            return None, f"cannot read: {exc.strerror or exc}"
        text, problem = _read_skill_file(path, size)
        if problem:
            return None, problem
        try:
            meta, _body = parse_skill(text)
        except SkillFormatError as exc:
            return None, str(exc)
        problem = metadata_problem(meta, folder)
        return (None, problem) if problem else (text, None)

    @_never_raise
    def list(self) -> dict[str, Any]:
        """Every valid skill (name, description, version, updated, path) and
        every file that could not be used, with the reason."""
        records, problems = self._catalog()
        skills = []
        for record in records:
            if record.get("blocked"):
                continue
            item = {key: record[key] for key in ("name", "description", "version", "updated", "path")}
            if record.get("category"):
                item["category"] = record["category"]
            skills.append(item)
        return {"success": True, "skills": skills, "problems": problems,
                "skills_dir": str(self.skills_dir)}

    # ------------------------------------------------------------ the index
    def index_text(self, budget: int | None = None) -> str:
        """Name + description of every usable skill within ``budget``
        characters (default ``cfg.skill_index_budget``), with a header telling
        the agent how to load a skill's full text. "" when there are none.

        When no SKILL.md changed since the last build (same paths, mtimes,
        sizes, inodes, budget, parser and scanner), the text rendered then is
        reused — from memory, or from a small cache file in a fresh process.
        """
        try:
            if budget is None:
                budget = int(getattr(self.cfg, "skill_index_budget", 6000))
            candidates, problems = self._candidates()
            signature = self._signature(candidates, problems, budget)
            text = _INDEX_MEMO.get(signature)
            if text is not None:
                return text
            text = self._read_index_cache(signature)
            if text is None:
                records, _problems = self._catalog(candidates, problems)
                usable = [r for r in records if not r.get("blocked")]
                text = render_index(usable, budget, str(self.skills_dir))
                self._write_index_cache(signature, text)
            if len(_INDEX_MEMO) >= 8:
                _INDEX_MEMO.clear()
            _INDEX_MEMO[signature] = text
            return text
        except Exception as exc:  # noqa: BLE001 — the index feeds a host's prompt
            from tacit.log import log_exception

            log_exception(self.cfg, "skills.index_text", exc)
            return ""

    def _signature(self, candidates, problems, budget: int) -> str:
        """A digest of everything the index text depends on."""
        import hashlib

        parts = [f"{CACHE_FORMAT}\0{self.skills_dir}\0{budget}\0{_scanner_fingerprint()}"]
        parts += [f"{path}\0{st.st_mtime_ns}\0{st.st_size}\0{st.st_ino}\0{category}"
                  for path, _folder, category, st in candidates]
        parts.extend(f"{p['path']}\0{p['reason']}" for p in problems)
        return hashlib.blake2b("\n".join(parts).encode("utf-8", "surrogateescape"),
                               digest_size=16).hexdigest()

    @property
    def index_cache_file(self) -> Path:
        return Path(self.cfg.state_dir) / "cache" / "skill-index-text.json"

    def _read_index_cache(self, signature: str) -> str | None:
        try:
            with open(self.index_cache_file, "rb") as handle:
                data = json.loads(handle.read())
        except (OSError, ValueError):
            return None
        if isinstance(data, dict) and data.get("signature") == signature \
                and isinstance(data.get("text"), str):
            return data["text"]
        return None

    def _write_index_cache(self, signature: str, text: str) -> None:
        _write_cache_file(self.index_cache_file, json.dumps({"signature": signature, "text": text}))

    def snapshot(self) -> str:
        """The index as it was at the first call on this store (session start);
        later edits show up in ``index_text()`` and watchers, never here."""
        if self._snapshot is None:
            self._snapshot = self.index_text()
        return self._snapshot

    def watch(self, on_change: Callable[[str], Any] | None = None,
              debounce_seconds: float = 0.2) -> "Watcher":
        """Start a watchdog observer that keeps a live index current and calls
        ``on_change(index_text)`` when it changes. ``.stop()`` ends it."""
        return Watcher(self, on_change, debounce_seconds)

    def _catalog(self, candidates=None, problems=None):
        """``(records, problems)``: every skill found (records sorted by name;
        blocked ones carry ``blocked``), and every file that could not be used."""
        if candidates is None:
            candidates, problems = self._candidates()
        problems = list(problems or [])
        disk: dict[str, Any] | None = None
        # Entries come from the memo or the cache file; the rest are read and
        # parsed file by file, then scanned as one batch, and only then
        # remembered (an entry is never memoised unscanned).
        resolved: list[tuple[str, str | None, tuple[int, int, int], dict[str, Any]]] = []
        loaded: list[tuple[str, tuple[int, int, int], dict[str, Any]]] = []
        load_entry, memo = _load_entry, _MEMO
        for path, folder, category, st in candidates:
            key = (st.st_mtime_ns, st.st_size, st.st_ino)
            hit = memo.get(path)
            if hit is not None and hit[0] == key:
                entry = hit[1]
            else:
                if disk is None:
                    disk = self._read_cache()
                cached = disk.get(path)
                if cached is not None and cached[0] == key:
                    entry = cached[1]
                    memo[path] = (key, entry)
                else:
                    entry = load_entry(path, folder, st)
                    loaded.append((path, key, entry))
            resolved.append((path, category, key, entry))
        if loaded:
            _scan_entries([entry for _path, _key, entry in loaded])
            for path, key, entry in loaded:
                memo[path] = (key, entry)
        if loaded or (disk is not None and set(disk) != {item[0] for item in resolved}):
            self._write_cache(resolved)
        records: list[dict[str, Any]] = []
        any_category = False
        for path, category, key, entry in resolved:
            if "problem" in entry:
                problems.append({"path": path, "reason": entry["problem"]})
                continue
            record = dict(entry, path=path, category=category, mtime_ns=key[0])
            if category is not None:
                any_category = True
            if entry.get("blocked"):
                problems.append({"path": path, "reason": "blocked by the content scanner: "
                                                          + entry["blocked"]})
            records.append(record)
        by_name = operator.itemgetter("name")
        if not any_category:
            # Top-level folder names are unique and every name equals its
            # folder's: no duplicates to look for.
            records.sort(key=by_name)
        else:
            # Top-level skills win over category skills of the same name, as
            # a lookup by name (view) finds them first.
            records.sort(key=lambda r: (r["category"] is not None, r["name"], r["category"] or ""))
            unique: dict[str, dict[str, Any]] = {}
            for record in records:
                first = unique.get(record["name"])
                if first is not None:
                    problems.append({"path": record["path"],
                                     "reason": f"duplicate skill name {record['name']!r} "
                                               f"(also at {first['path']}); this one is ignored"})
                    continue
                unique[record["name"]] = record
            records = sorted(unique.values(), key=by_name)
        problems.sort(key=lambda p: p["path"])
        return records, problems

    def _candidates(self):
        """``([(SKILL.md path, folder name, category, stat)], problems)``.

        The common case — ``<root>/<name>/SKILL.md``, a regular file, no
        symlinks — costs one ``lstat`` per skill; everything else (category
        folders, symlinks, stray files) takes the careful path.
        """
        root = str(self.skills_dir)
        found: list[tuple[str, str, str | None, os.stat_result]] = []
        problems: list[dict[str, str]] = []
        try:
            with os.scandir(root) as iterator:
                entries = list(iterator)
        except FileNotFoundError:
            return found, problems
        except OSError as exc:
            return found, [{"path": root, "reason": f"cannot list the skills folder: {exc}"}]
        lstat, is_regular, suffix = os.lstat, stat.S_ISREG, os.sep + SKILL_FILE
        careful = []
        for entry in entries:
            name = entry.name
            if name[0] == ".":
                continue
            path = entry.path + suffix
            try:
                st = lstat(path)
            except (FileNotFoundError, NotADirectoryError):
                careful.append(entry)
                continue
            except OSError:
                careful.append(entry)
                continue
            if is_regular(st.st_mode) and not entry.is_symlink():
                found.append((path, name, None, st))
            else:
                careful.append(entry)
        if careful:
            self._careful_candidates(careful, found, problems)
        problems.sort(key=lambda p: p["path"])
        return found, problems

    def _careful_candidates(self, entries, found, problems) -> None:
        """Symlinks, category folders, stray files and folders without SKILL.md."""
        root_real = self._root_real()

        def skill_file(folder_path: str) -> os.stat_result | str | None:
            """stat of folder/SKILL.md; None when absent; a reason when unusable."""
            path = folder_path + os.sep + SKILL_FILE
            try:
                st = os.lstat(path)
            except (FileNotFoundError, NotADirectoryError):
                return None
            except OSError as exc:
                return f"cannot read: {exc.strerror or exc}"
            if stat.S_ISLNK(st.st_mode):
                if not self._inside_root(path, root_real):
                    return "SKILL.md is a symlink pointing outside the skills folder (refused)"
                try:
                    st = os.stat(path)
                except OSError:
                    return "SKILL.md is a broken symlink"
            if not stat.S_ISREG(st.st_mode):
                return "SKILL.md is not a regular file"
            return st

        def usable_folder(entry: os.DirEntry) -> bool:
            if entry.name.startswith(".") or not _is_dir(entry):
                return False
            if entry.is_symlink() and not self._inside_root(entry.path, root_real):
                problems.append({"path": entry.path,
                                 "reason": "symlink pointing outside the skills folder (refused)"})
                return False
            return True

        for entry in entries:
            if not usable_folder(entry):
                continue
            result = skill_file(entry.path)
            if isinstance(result, os.stat_result):
                found.append((entry.path + os.sep + SKILL_FILE, entry.name, None, result))
                continue
            if isinstance(result, str):
                problems.append({"path": entry.path + os.sep + SKILL_FILE, "reason": result})
                continue
            # No SKILL.md: a Hermes category folder holding skill folders?
            in_category = False
            try:
                with os.scandir(entry.path) as iterator:
                    subs = list(iterator)
            except OSError:
                subs = []
            for sub in subs:
                if sub.name.startswith(".") or not _is_dir(sub):
                    continue
                if not usable_folder(sub):
                    in_category = True
                    continue
                sub_result = skill_file(sub.path)
                if isinstance(sub_result, os.stat_result):
                    found.append((sub.path + os.sep + SKILL_FILE, sub.name, entry.name, sub_result))
                    in_category = True
                elif isinstance(sub_result, str):
                    problems.append({"path": sub.path + os.sep + SKILL_FILE, "reason": sub_result})
                    in_category = True
            if not in_category:
                problems.append({"path": entry.path,
                                 "reason": "folder has no SKILL.md (and holds no skill folders)"})

    def _read_cache(self) -> dict[str, Any]:
        """Cached entries by SKILL.md path, or {} when the cache is missing,
        torn, for another folder, or from another parser/scanner version."""
        try:
            with open(self.cache_file, "rb") as handle:
                data = json.loads(handle.read())
        except (OSError, ValueError):
            return {}
        if (not isinstance(data, dict) or data.get("format") != CACHE_FORMAT
                or data.get("skills_dir") != str(self.skills_dir)
                or data.get("fingerprint") != _scanner_fingerprint()
                or not isinstance(data.get("entries"), dict)):
            return {}
        root = str(self.skills_dir) + os.sep
        try:
            return {root + rel: ((row[0], row[1], row[2]), _entry_from_row(row))
                    for rel, row in data["entries"].items()}
        except (TypeError, IndexError, KeyError, ValueError):
            return {}

    def _write_cache(self, resolved) -> None:
        """Write every ``(path, category, key, entry)`` of a build, once, at its end."""
        root_length = len(str(self.skills_dir)) + 1
        entries = {path[root_length:]: [*key, *_row_from_entry(entry)]
                   for path, _category, key, entry in resolved}
        payload = json.dumps({"format": CACHE_FORMAT, "skills_dir": str(self.skills_dir),
                              "fingerprint": _scanner_fingerprint(), "entries": entries},
                             separators=(",", ":"), check_circular=False)
        _write_cache_file(self.cache_file, payload)

    # --------------------------------------------------------------- writing
    @_never_raise
    def create(self, name: str, description: str, body: str | None = None) -> dict[str, Any]:
        """A new skill ``skills/<name>/SKILL.md``; refuses an existing name.
        Without ``body`` the four standard sections come from the template."""
        problem = validate_name(name) or description_problem(description)
        if problem:
            return _fail(problem)
        description = description.strip()
        if body is None:
            body = default_body(name, description)
        problem = _text_problem(body, "body")
        if problem:
            return _fail(problem)
        now = now_iso()
        meta = {"name": name, "description": description, "version": INITIAL_VERSION,
                "created": now, "updated": now}
        text = render_skill(meta, body)
        problem = _size_problem(text) or _scan_problem(text)
        if problem:
            return _fail(problem, name=name)
        path = self._top_level(name)
        with self._lock(name):
            existing, _category, error = self._locate(name)
            if error:
                return _fail(error, name=name)
            if existing is not None:
                return _fail(f"skill {name!r} already exists at {existing}; use patch or edit "
                             "to change it (or choose another name)", name=name,
                             path=str(existing))
            if os.path.lexists(path.parent) and not path.parent.is_dir():
                return _fail(f"{path.parent} exists and is not a folder", name=name)
            if path.parent.is_dir() and _holds_skill_folders(path.parent):
                return _fail(f"{path.parent} is a category folder holding other skills; "
                             "choose another name", name=name)
            from tacit.fsutil import atomic_write_text

            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, text)
        result = {"success": True, "message": f"Created skill {name!r} at {path}.",
                  "name": name, "path": str(path), "version": INITIAL_VERSION}
        return _with_section_hint(result, body, name)

    @_never_raise
    def patch(self, name: str, section: str, content: str) -> dict[str, Any]:
        """Replace the text of one ``## section`` (or append the section),
        bump the patch version, set ``updated``."""
        problem = validate_name(name)
        if problem:
            return _fail(problem)
        title, problem = clean_section_title(section)
        if problem:
            return _fail(problem, name=name)
        problem = _text_problem(content, "content") or content_heading_problem(content)
        if problem:
            return _fail(problem, name=name)
        problem = _scan_problem(f"## {title}\n{content}")
        if problem:
            return _fail(problem, name=name)

        def change(meta: dict[str, Any], body: str):
            new_body, replaced = replace_section(body, title, content)
            meta["version"] = bump_version(meta.get("version"), "patch")
            return meta, new_body, {"section": title,
                                    "action": "replaced" if replaced else "appended"}

        result = self._rewrite(name, change)
        if result.get("success"):
            result["message"] = (f"{result['action'].capitalize()} section {title!r} of skill "
                                 f"{name!r} (version {result['version']}).")
        return result

    @_never_raise
    def edit(self, name: str, description: str | None = None,
             body: str | None = None) -> dict[str, Any]:
        """Replace the description and/or the whole body; bumps the minor version."""
        problem = validate_name(name)
        if problem:
            return _fail(problem)
        if description is None and body is None:
            return _fail("nothing to change: give a new description and/or body", name=name)
        if description is not None:
            problem = description_problem(description)
            if problem:
                return _fail(problem, name=name)
            description = description.strip()
        if body is not None:
            problem = _text_problem(body, "body")
            if problem:
                return _fail(problem, name=name)
        problem = _scan_problem("\n".join(t for t in (description, body) if t is not None))
        if problem:
            return _fail(problem, name=name)

        def change(meta: dict[str, Any], old_body: str):
            if description is not None:
                meta["description"] = description
            meta["version"] = bump_version(meta.get("version"), "minor")
            changed = [field for field, value in (("description", description), ("body", body))
                       if value is not None]
            return meta, old_body if body is None else body, {"changed": changed}

        result = self._rewrite(name, change)
        if result.get("success"):
            result["message"] = (f"Updated the {' and '.join(result['changed'])} of skill "
                                 f"{name!r} (version {result['version']}).")
            if body is not None:
                result = _with_section_hint(result, body, name)
        return result

    def _rewrite(self, name: str, change) -> dict[str, Any]:
        """Lock, re-read, apply ``change(meta, body) -> (meta, body, extra)``,
        check, atomic write. Only top-level skills are written."""
        from tacit.fsutil import atomic_write_text

        with self._lock(name):
            path, category, error = self._locate(name)
            if error:
                return _fail(error, name=name)
            if path is None:
                return self._not_found(name)
            if category is not None:
                return _read_only_category(name, path)
            text, problem = self._read_checked(path, name)
            if problem:
                return _fail(f"skill {name!r} was not changed: {problem}. The file at {path} "
                             "is untouched; fix it by hand first.", name=name, path=str(path))
            meta, body = parse_skill(text)
            meta, body, extra = change(meta, body)
            meta["updated"] = now_iso()
            new_text = render_skill(meta, body)
            problem = _size_problem(new_text)
            if problem:
                return _fail(problem, name=name, path=str(path))
            # The new parts were scanned before the lock; the whole file is
            # scanned too, so tacit never rewrites text a person added by
            # hand that the scanner blocks (fix it by hand first).
            verdict = _scan_text(new_text)
            if verdict:
                return _fail(f"skill {name!r} was not changed: the file at {path} contains text "
                             f"the content scanner blocks ({verdict}); fix it by hand first.",
                             name=name, path=str(path))
            # Through a symlink (checked to stay inside the skills folder) the
            # real file is updated, not replaced by a copy.
            target = Path(os.path.realpath(path))
            atomic_write_text(target, new_text, mode=_existing_mode(target))
        return {"success": True, "name": name, "path": str(path),
                "version": _jsonable(meta["version"]), **extra}

    @_never_raise
    def delete(self, name: str) -> dict[str, Any]:
        """Move ``skills/<name>/`` to ``skills/.trash/<name>-<timestamp>/``."""
        problem = validate_name(name)
        if problem:
            return _fail(problem)
        with self._lock(name):
            path, category, error = self._locate(name)
            if error:
                return _fail(error, name=name)
            if path is None:
                return self._not_found(name)
            if category is not None:
                return _read_only_category(name, path)
            folder = path.parent
            trash = self.skills_dir / TRASH_DIR
            trash.mkdir(parents=True, exist_ok=True)
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            target = trash / f"{name}-{stamp}"
            counter = 2
            while os.path.lexists(target):
                target = trash / f"{name}-{stamp}-{counter}"
                counter += 1
            os.rename(folder, target)
        return {"success": True, "name": name, "trash_path": str(target),
                "message": f"Moved skill {name!r} to {target}; move the folder back to "
                           "restore it."}

    @_never_raise
    def install_starters(self) -> dict[str, Any]:
        """Copy the starter skills shipped in ``skills_template/starters`` into
        the skills folder; a name that already exists is left alone."""
        from tacit.fsutil import atomic_write_text
        from tacit.resources import resource_dir

        starters = resource_dir("skills_template") / "starters"
        installed, skipped = [], []
        for folder in sorted(p for p in starters.iterdir() if p.is_dir()):
            meta, body = parse_skill((folder / SKILL_FILE).read_text(encoding="utf-8"))
            name = meta["name"]
            with self._lock(name):
                existing, _category, error = self._locate(name)
                if existing is not None or error:
                    skipped.append(name)
                    continue
                now = now_iso()
                meta.update(created=now, updated=now)
                target = self._top_level(name)
                target.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(target, render_skill(meta, body))
                installed.append(name)
        message = (f"Installed {len(installed)} starter skill(s)" +
                   (f"; already present: {', '.join(skipped)}" if skipped else "") + ".")
        return {"success": True, "installed": installed, "skipped": skipped, "message": message}


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _row_from_entry(entry: dict[str, Any]) -> list[Any]:
    """Cache rows are lists, not dicts: a third less JSON to write and read."""
    if "problem" in entry:
        return [None, entry["problem"]]
    return [entry["name"], entry["description"], entry.get("version"), entry.get("updated"),
            entry.get("blocked")]


def _entry_from_row(row: list[Any]) -> dict[str, Any]:
    if row[3] is None:
        return {"problem": str(row[4])}
    name, description, version, updated, blocked = row[3:8]
    if not isinstance(name, str) or not isinstance(description, str):
        raise ValueError("bad cache row")
    entry = {"name": name, "description": description, "version": version, "updated": updated}
    if blocked:
        entry["blocked"] = blocked
    return entry


def _write_cache_file(target: Path, payload: str) -> None:
    """Replace a cache file. No fsync: a torn or lost cache file fails to
    parse or to match and is rebuilt; the rename means a reader never sees
    half of one. Errors are ignored — a cache is optional."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as handle:  # bytes: no text wrapper and encoder to build
            handle.write(payload.encode("utf-8"))
        os.replace(tmp, target)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _holds_skill_folders(folder: Path) -> bool:
    try:
        return any((child / SKILL_FILE).exists() for child in folder.iterdir()
                   if child.is_dir() and not child.name.startswith("."))
    except OSError:
        return False


def _existing_mode(path: Path) -> int:
    """Keep the permissions a person gave the file; new files get 0600."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o600


def _read_only_category(name: str, path: Path) -> dict[str, Any]:
    return _fail(f"skill {name!r} lives in a category folder ({path}); tacit only changes "
                 "top-level skills. Edit that file by hand or with the tool that made it.",
                 name=name, path=str(path))


def _relative_path_problem(file: Any) -> str | None:
    """Why ``file`` is not a safe path relative to a skill folder."""
    if not isinstance(file, str) or not file.strip():
        return "file must be a relative path inside the skill folder"
    if "\x00" in file:
        return "refused: file path contains a NUL character"
    if file.startswith(("/", "\\", "~")) or os.path.isabs(file) or (len(file) > 1 and file[1] == ":"):
        return f"refused: {file!r} is an absolute path; give a path relative to the skill folder"
    parts = file.replace("\\", "/").split("/")
    if ".." in parts:
        return f"refused: {file!r} climbs out of the skill folder ('..')"
    return None


def _text_problem(text: Any, what: str) -> str | None:
    if not isinstance(text, str):
        return f"{what} must be text"
    if "\x00" in text:
        return f"{what} contains a NUL character"
    if not text.strip():
        return f"{what} is empty"
    if len(text) > MAX_SKILL_CHARS:
        return f"{what} is {len(text):,} characters; a SKILL.md may hold {MAX_SKILL_CHARS:,}"
    return None


def _size_problem(text: str) -> str | None:
    if len(text) > MAX_SKILL_CHARS:
        return (f"the SKILL.md would be {len(text):,} characters; the limit is "
                f"{MAX_SKILL_CHARS:,}. Move long material into a supporting file or shorten it.")
    return None


def _scan_problem(text: str) -> str | None:
    verdict = _scan_text(text)
    return f"refused by the content scanner: {verdict}" if verdict else None


def _with_section_hint(result: dict[str, Any], body: str, name: str) -> dict[str, Any]:
    missing = missing_sections(body)
    if missing:
        result["missing_sections"] = missing
        result["message"] += (f" It has no {', '.join(missing)} section(s); add them with "
                              f"`tacit skill patch {name} --section <Section> --content-file -`.")
    return result


def default_body(name: str, description: str) -> str:
    """The body of a new skill from ``skills_template/SKILL.md.j2``."""
    import jinja2

    from tacit.resources import resource_dir

    source = (resource_dir("skills_template") / "SKILL.md.j2").read_text(encoding="utf-8")
    env = jinja2.Environment(autoescape=False, keep_trailing_newline=True,
                             undefined=jinja2.StrictUndefined)
    return env.from_string(source).render(name=name, title=title_from_name(name),
                                          description=one_line(description)).strip()


# ---------------------------------------------------------------------------
# index rendering
# ---------------------------------------------------------------------------
def _ellipsize(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending in "…", on a word
    boundary when one is near."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return "…"[:limit]
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    if space >= max(1, limit - 16):
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def render_index(records: list[dict[str, Any]], budget: int, skills_dir: str) -> str:
    """The index text for ``records`` within ``budget`` characters.

    Descriptions are shortened evenly (the longest first) before any skill is
    left out; only when even the bare names do not fit are the least recently
    updated skills left out, and a last line says how many and how to list them.
    """
    if not records:
        return ""
    has_category = any(r.get("category") for r in records)
    header = (
        f"## Skills ({len(records)})\n"
        "Procedures saved from earlier sessions, one per line as `name: when to use it`. "
        "When a task matches one, load its full text before you start: run "
        f"`tacit skill view <name>` or read the file at {skills_dir}/<name>/SKILL.md"
        + (f" (a skill marked [category] is at {skills_dir}/<category>/<name>/SKILL.md)"
           if has_category else "")
        + ".\n\n"
    )

    prefixes = [f"- {r['name']} [{r['category']}]" if r.get("category") else f"- {r['name']}"
                for r in records]
    names_only = len(header) + sum(len(p) for p in prefixes) + len(prefixes)
    if names_only <= budget:
        descriptions = [one_line(r["description"]) for r in records]

        def size(cap: int) -> int:
            # header + per skill: prefix, ": " + description (if any), newline
            return names_only + sum(min(len(d), cap) + 2 for d in descriptions if cap)

        def lines(cap: int) -> str:
            if not cap:
                return "\n".join(prefixes)
            return "\n".join(f"{p}: {_ellipsize(d, cap)}" for p, d in zip(prefixes, descriptions))

        longest = max(len(d) for d in descriptions)
        if size(longest) <= budget:
            return header + lines(longest) + "\n"
        low, high = 0, longest  # the largest description length that fits
        while low < high:
            mid = (low + high + 1) // 2
            if size(mid) <= budget:
                low = mid
            else:
                high = mid - 1
        cap = low if low >= 8 else 0  # a few characters of description help nobody
        return header + lines(cap) + "\n"

    # Not even the bare names fit: keep the most recently updated skills.
    def tail(left_out: int) -> str:
        return (f"- … and {left_out} more skill(s) not shown: run `tacit skill list` "
                "to see them all")

    recency = [(str(r.get("updated") or ""), r.get("mtime_ns", 0)) for r in records]
    order = sorted(range(len(records)), key=recency.__getitem__, reverse=True)
    used = len(header) + len(tail(len(records))) + 1
    keep: list[int] = []
    for i in order:
        cost = len(prefixes[i]) + 1
        if used + cost <= budget:
            keep.append(i)
            used += cost
    if not keep:
        minimal = (f"{len(records)} saved skills: run `tacit skill list`, then "
                   "`tacit skill view <name>`.\n")
        return minimal if len(minimal) <= budget else minimal[:max(budget, 0)]
    keep.sort()  # records are sorted by name
    return (header + "\n".join(prefixes[i] for i in keep) + "\n"
            + tail(len(records) - len(keep)) + "\n")


# ---------------------------------------------------------------------------
# watching
# ---------------------------------------------------------------------------
class Watcher:
    """A live index kept current by a watchdog observer on the skills folder.

    Events are debounced (an editor's save is several events) and our own
    reads (inotify "opened"/"closed_no_write") are ignored, otherwise every
    rebuild would trigger the next. ``on_change(index)`` runs on a timer
    thread only when the index text actually changed; its exceptions are
    logged, never raised. The store's frozen ``snapshot()`` is not touched.
    """

    _IGNORED_EVENTS = {"opened", "closed_no_write"}

    def __init__(self, store: SkillStore, on_change: Callable[[str], Any] | None = None,
                 debounce_seconds: float = 0.2):
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        self.store = store
        self.on_change = on_change
        self.debounce_seconds = debounce_seconds
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._stopped = False
        self.index = store.index_text()
        self.changes = 0  # how many times the index changed (tests, diagnostics)

        watcher = self

        class _Handler(FileSystemEventHandler):
            def on_any_event(self, event):  # noqa: D401 — watchdog callback
                if event.event_type in Watcher._IGNORED_EVENTS:
                    return
                if str(event.src_path).endswith(".lock"):
                    return
                watcher._schedule()

        self.active = False
        self._observer = None
        try:
            store.skills_dir.mkdir(parents=True, exist_ok=True)
            observer = Observer()
            observer.daemon = True
            observer.schedule(_Handler(), str(store.skills_dir), recursive=True)
            observer.start()
            self._observer, self.active = observer, True
        except Exception as exc:  # noqa: BLE001 — e.g. inotify watch limit reached
            # A watcher that cannot watch still works by hand (refresh());
            # the host must not break because the OS refused a watch.
            from tacit.log import log_exception

            log_exception(store.cfg, "skills.watch (observer not started)", exc)

    def _schedule(self) -> None:
        with self._lock:
            if self._stopped:
                return
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.debounce_seconds, self.refresh)
            self._timer.daemon = True
            self._timer.start()

    def refresh(self) -> str:
        """Rebuild the live index now; call ``on_change`` if it changed."""
        try:
            new = self.store.index_text()
            if new == self.index:
                return new
            self.index = new
            self.changes += 1
            if self.on_change is not None:
                self.on_change(new)
        except Exception as exc:  # noqa: BLE001 — runs on a watchdog/timer thread
            from tacit.log import log_exception

            log_exception(self.store.cfg, "skills.watch", exc)
        return self.index

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._timer is not None:
                self._timer.cancel()
        if self._observer is None:
            return
        try:
            self._observer.stop()
            self._observer.join(timeout=5)
        except Exception:  # noqa: BLE001
            pass

    def __enter__(self) -> "Watcher":
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()
