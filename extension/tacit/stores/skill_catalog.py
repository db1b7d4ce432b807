"""What a skills folder holds: the catalog built from its ``SKILL.md`` files, and the index text
rendered from it. ``tacit.stores.skills.SkillStore`` keeps one catalog per folder and writes the files.

Design notes: docs/design/stores.md#tacitstoresskills"""

from __future__ import annotations

import bisect
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from tacit.safety import scanner as scan
from tacit.stores import file_memo
from tacit.stores.skill_format import (
    MAX_SKILL_BYTES, MAX_SKILL_CHARS, SkillFormatError, metadata_problem, one_line, parse_skill,
)

SKILL_FILE = "SKILL.md"


@dataclass(frozen=True, slots=True)
class Skill:
    """One usable SKILL.md as the catalog knows it (its frontmatter, not its body)."""

    name: str
    description: str
    version: Any
    updated: Any
    path: str
    category: str | None = None
    mtime_ns: int = 0
    blocked: str | None = None  # the content scanner's verdict on the description

    def listing(self) -> dict[str, Any]:
        """The entry ``list()`` returns."""
        item = {"name": self.name, "description": self.description, "version": self.version,
                "updated": self.updated, "path": self.path}
        if self.category:
            item["category"] = self.category
        return item


@dataclass(frozen=True, slots=True)
class Problem:
    """A file or folder in the skills folder that could not be used, and why."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class Catalog:
    """Every skill found (by name; blocked ones carry ``blocked``) and every problem (by path)."""

    skills: tuple[Skill, ...] = ()
    problems: tuple[Problem, ...] = ()

    @property
    def usable(self) -> tuple[Skill, ...]:
        """The skills that may go into the index."""
        return tuple(s for s in self.skills if not s.blocked)


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A SKILL.md found while listing the folder, not yet read."""

    path: str
    folder: str
    category: str | None
    size: int
    mtime_ns: int
    sig: list | None = None  # tacit.stores.file_memo.signature


def jsonable(value: Any) -> Any:
    """Frontmatter values as JSON-friendly scalars (dates -> ISO text)."""
    if value is None or isinstance(value, (str, int)) and not isinstance(value, bool):
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def scan_text(text: str) -> str | None:
    """The scanner's verdict on ``text`` as a sentence, or None when clean."""
    finding = scan.first_finding(text)
    return scan.describe([finding]) if finding else None


def _text_of(data: bytes) -> tuple[str | None, str | None]:
    """``(text, problem)``: a SKILL.md's bytes as text, or why they are not."""
    if len(data) > MAX_SKILL_BYTES:
        return None, f"too large: over {MAX_SKILL_BYTES:,} bytes (limit {MAX_SKILL_CHARS:,} characters)"
    if b"\x00" in data:
        return None, "binary file (contains NUL bytes), not a text SKILL.md"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not valid UTF-8 (bad byte at offset {exc.start}); binary file?"
    if len(text) > MAX_SKILL_CHARS:
        return None, f"too large: {len(text):,} characters (limit {MAX_SKILL_CHARS:,})"
    return text, None


def read_skill_file(path: str | Path, size: int) -> tuple[str | None, str | None]:
    """``(text, problem)`` for the SKILL.md at ``path`` whose stat size is ``size``: read whole
    (its UTF-8 and length checked), never past the byte limit even if it grew since the stat."""
    if size > MAX_SKILL_BYTES:
        return None, f"too large: {size:,} bytes (limit {MAX_SKILL_CHARS:,} characters)"
    try:
        with open(path, "rb") as handle:
            data = handle.read(size + 1)  # not read(limit): it allocates 400 KB a file first
            if len(data) > size:  # grew since the stat: read on, never past the limit
                data += handle.read(MAX_SKILL_BYTES + 1 - len(data))
    except OSError as exc:
        return None, f"cannot read: {exc.strerror or exc}"
    return _text_of(data)


def read_checked(path: str | Path, size: int, folder: str) -> tuple[str | None, dict | None, str | None]:
    """``(text, frontmatter, problem)`` of a SKILL.md: read, parsed and checked (as in the catalog)."""
    text, problem = read_skill_file(path, size)
    if problem:
        return None, None, problem
    try:
        meta, _body = parse_skill(text)
    except SkillFormatError as exc:
        return None, None, str(exc)
    problem = metadata_problem(meta, folder)
    return (None, None, problem) if problem else (text, meta, None)


def _load(candidate: _Candidate) -> Skill | Problem:
    """Read, parse, check and scan one SKILL.md."""
    path = candidate.path
    _text, meta, problem = read_checked(path, candidate.size, candidate.folder)
    if problem:
        return Problem(path, problem)
    # The name is a checked slug; the description is the free text that reaches the system prompt.
    return Skill(name=meta["name"], description=meta["description"],
                 version=jsonable(meta.get("version")), updated=jsonable(meta.get("updated")),
                 path=path, category=candidate.category, mtime_ns=candidate.mtime_ns,
                 blocked=scan_text(meta["description"]))


def _load_kept(candidate: _Candidate, memo) -> Skill | Problem:
    """``_load``, from the memo when the file is as it was (a new process reads no file)."""
    kept = memo.get(candidate.path, candidate.sig)
    if isinstance(kept, dict) and isinstance(kept.get("p"), str):
        return Problem(candidate.path, kept["p"])
    if isinstance(kept, dict) and isinstance(kept.get("s"), list) and len(kept["s"]) == 5:
        name, description, version, updated, blocked = kept["s"]
        return Skill(name=name, description=description, version=version, updated=updated,
                     path=candidate.path, category=candidate.category, mtime_ns=candidate.mtime_ns,
                     blocked=blocked)
    loaded = _load(candidate)
    if isinstance(loaded, Problem):
        if not loaded.reason.startswith("cannot read"):  # a passing fault is not kept
            memo.put(candidate.path, candidate.sig, {"p": loaded.reason})
    else:
        memo.put(candidate.path, candidate.sig, {"s": [loaded.name, loaded.description, loaded.version,
                                                       loaded.updated, loaded.blocked]})
    return loaded


def _dedupe(skills: list[Skill], problems: list[Problem]) -> list[Skill]:
    """Skills sorted by name, one per name: a top-level skill wins over a category skill."""
    if not any(s.category for s in skills):
        # top-level folder names are unique and each name equals its folder's
        return sorted(skills, key=lambda s: s.name)
    unique: dict[str, Skill] = {}
    for skill in sorted(skills, key=lambda s: (s.category is not None, s.name, s.category or "")):
        first = unique.get(skill.name)
        if first is not None:
            problems.append(Problem(skill.path, f"duplicate skill name {skill.name!r} "
                                                 f"(also at {first.path}); this one is ignored"))
            continue
        unique[skill.name] = skill
    return sorted(unique.values(), key=lambda s: s.name)


def build_catalog(cfg, root: str) -> Catalog:
    """Every skill and every problem in the skills folder ``root``, from its files (or the memo of them)."""
    candidates, problems = _candidates(root)
    skills: list[Skill] = []
    memo = file_memo.memo_for(cfg, "skills", root)
    for candidate in candidates:
        loaded = _load_kept(candidate, memo)
        if isinstance(loaded, Problem):
            problems.append(loaded)
            continue
        if loaded.blocked:
            problems.append(Problem(loaded.path, f"blocked by the content scanner: {loaded.blocked}"))
        skills.append(loaded)
    memo.save(prune=True)
    skills = _dedupe(skills, problems)
    problems.sort(key=lambda p: p.path)
    return Catalog(tuple(skills), tuple(problems))


def _candidates(root: str) -> tuple[list[_Candidate], list[Problem]]:
    """Every ``<name>/SKILL.md`` and ``<category>/<name>/SKILL.md`` that can be read, and the
    problems met while looking (links out of the folder, no SKILL.md, one that is not a file)."""
    found: list[_Candidate] = []
    problems: list[Problem] = []
    try:
        with os.scandir(root) as iterator:
            entries = sorted(iterator, key=lambda e: e.name)
    except FileNotFoundError:
        return found, problems
    except OSError as exc:
        return found, [Problem(root, f"cannot list the skills folder: {exc}")]
    root_real = os.path.realpath(root)

    def skill_file(folder_path: str) -> os.stat_result | str | None:
        """stat of folder/SKILL.md; None when absent; a reason when unusable."""
        path = os.path.join(folder_path, SKILL_FILE)
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            return f"cannot read: {exc.strerror or exc}"
        if stat.S_ISLNK(st.st_mode):
            if not inside_root(path, root_real):
                return "SKILL.md is a symlink pointing outside the skills folder (refused)"
            try:
                st = os.stat(path)
            except OSError:
                return "SKILL.md is a broken symlink"
        if not stat.S_ISREG(st.st_mode):
            return "SKILL.md is not a regular file"
        return st

    def usable_folder(entry: os.DirEntry) -> bool:
        if entry.name.startswith(".") or not is_dir(entry):
            return False
        if entry.is_symlink() and not inside_root(entry.path, root_real):
            problems.append(Problem(entry.path, "symlink pointing outside the skills folder (refused)"))
            return False
        return True

    def add(entry: os.DirEntry, category: str | None) -> bool:
        """Record ``entry``'s SKILL.md; False when it has none."""
        result = skill_file(entry.path)
        if isinstance(result, os.stat_result):
            found.append(_Candidate(os.path.join(entry.path, SKILL_FILE), entry.name,
                                    category, result.st_size, result.st_mtime_ns,
                                    [result.st_size, result.st_mtime_ns, result.st_ctime_ns, result.st_ino]))
        elif isinstance(result, str):
            problems.append(Problem(os.path.join(entry.path, SKILL_FILE), result))
        return result is not None

    for entry in entries:
        if not usable_folder(entry) or add(entry, None):
            continue
        # No SKILL.md: a Hermes category folder holding skill folders?
        try:
            with os.scandir(entry.path) as iterator:
                subs = sorted(iterator, key=lambda e: e.name)
        except OSError:
            subs = []
        in_category = False
        for sub in subs:
            if sub.name.startswith(".") or not is_dir(sub):
                continue
            if not usable_folder(sub) or add(sub, entry.name):
                in_category = True
        if not in_category:
            problems.append(Problem(entry.path, "folder has no SKILL.md (and holds no skill folders)"))
    return found, problems


def inside_root(path: str | Path, root_real: str) -> bool:
    """Whether ``path``, links resolved, lies inside the folder whose real path is ``root_real``."""
    return os.path.realpath(path).startswith(root_real + os.sep)


def is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _ellipsize(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending in "…" (on a word boundary if near)."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return "…"[:limit]
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    if space >= max(1, limit - 16):
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def render_index(records: Iterable[Skill], budget: int, skills_dir: str) -> str:
    """The index text for ``records`` (sorted by name) within ``budget`` characters: descriptions
    shortened evenly first; a short header when the full one leaves no room for the names; only
    when the bare names do not fit even then, the least recent skills left out."""
    records = list(records)
    if not records:
        return ""
    prefixes = [f"- {r.name} [{r.category}]" if r.category else f"- {r.name}" for r in records]
    names = sum(len(p) for p in prefixes) + len(prefixes)
    short = (f"## Skills ({len(records)})\nSaved procedures, as `name: when to use it`. Before a task one "
             "matches, load it: `tacit skill view <name>`.\n\n")
    for header in (_index_header(records, skills_dir), short):
        if len(header) + names <= budget:
            return header + _described(records, prefixes, budget - len(header) - names)
    return _most_recent(records, prefixes, budget, short)


def _index_header(records: list[Skill], skills_dir: str) -> str:
    return (
        f"## Skills ({len(records)})\n"
        "Procedures saved from earlier sessions, one per line as `name: when to use it`. "
        "When a task matches one, load its full text before you start: run "
        f"`tacit skill view <name>` or read the file at {skills_dir}/<name>/SKILL.md"
        + (f" (a skill marked [category] is at {skills_dir}/<category>/<name>/SKILL.md)"
           if any(r.category for r in records) else "")
        + ".\n\n"
    )


def _described(records: list[Skill], prefixes: list[str], room: int) -> str:
    """Every skill's line, descriptions shortened evenly to fit ``room`` more characters."""
    descriptions = [one_line(r.description) for r in records]

    def size(cap: int) -> int:  # per skill: ": " + description (if any)
        return sum(min(len(d), cap) + 2 for d in descriptions if cap)

    longest = max(len(d) for d in descriptions)
    fits = bisect.bisect_right(range(longest + 1), room, key=size) - 1  # the longest that fits
    cap = fits if fits >= 8 or fits == longest else 0  # a few characters of a cut one help nobody
    if not cap:
        return "\n".join(prefixes) + "\n"
    return "\n".join(f"{p}: {_ellipsize(d, cap)}" for p, d in zip(prefixes, descriptions)) + "\n"


def _most_recent(records: list[Skill], prefixes: list[str], budget: int, header: str) -> str:
    """Not even the bare names fit: the most recently updated skills that do, and how many are not."""
    def tail(left_out: int) -> str:
        return (f"- … and {left_out} more skill(s) not shown: run `tacit skill list` "
                "to see them all")

    recency = [(str(r.updated or ""), r.mtime_ns) for r in records]
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
    return header + "\n".join(prefixes[i] for i in keep) + "\n" + tail(len(records) - len(keep)) + "\n"
