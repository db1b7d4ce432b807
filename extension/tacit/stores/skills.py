"""SkillStore — one folder per skill, ``skills/<name>/SKILL.md``, plus its index.

Design notes: docs/design/stores.md#tacitstoresskills"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from tacit.failures import failed
from tacit.fsutil import LockTimeout, atomic_write_text, ensure_private_dir, free_name, lock_for, mode_of
from tacit.log import log_exception
from tacit.resources import resource_dir
from tacit.stores import history
from tacit.stores.entries import control_problem
from tacit.stores.skill_catalog import (
    SKILL_FILE, Catalog, Problem, build_catalog, inside_root, is_dir, jsonable, read_checked, render_index,
    scan_text,
)
from tacit.stores.skill_format import (
    INITIAL_VERSION, MAX_SKILL_CHARS, body_frontmatter_problem, bump_version, clean_section_title,
    content_heading_problem, description_problem, missing_sections, now_iso, one_line, parse_skill, render_skill,
    replace_section, rerender_skill, title_from_name, validate_name,
)

TRASH_DIR = ".trash"
MAX_SUPPORTING_FILE_CHARS = MAX_SKILL_CHARS


@dataclass(slots=True, eq=False)
class _Live:
    """The catalog and its rendered index texts, shared by one ``SkillStore.session()`` family
    (locked: the service reads from handler threads while its watcher refreshes)."""

    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    catalog: Catalog | None = None
    rendered: dict = dataclasses.field(default_factory=dict)  # budget (or a gate's key) -> text


def _never_raise(method: Callable[..., dict]) -> Callable[..., dict]:
    """Store operations return an error result instead of raising (they run in host processes)."""

    @functools.wraps(method)
    def wrapper(self: "SkillStore", *args: Any, **kwargs: Any) -> dict:
        try:
            return method(self, *args, **kwargs)
        except LockTimeout:
            return _fail("another process is still writing this skill (lock timed out); try again in a moment")
        except Exception as exc:  # noqa: BLE001 — a storage fault named as one (read-only, a file for a folder)
            log_exception(self.cfg, f"skills.{method.__name__}", exc)
            return failed(exc)

    return wrapper


def _acted(method: Callable[..., dict]) -> Callable[..., dict]:
    """A write: refused (``NoActor``) before any file changes when nobody is declared to make it."""

    @functools.wraps(method)
    def wrapper(self: "SkillStore", *args: Any, **kwargs: Any) -> dict:
        history.current_actor(self.actor)
        return method(self, *args, **kwargs)

    return wrapper


def _fail(error: str, **extra: Any) -> dict[str, Any]:
    return {"success": False, "error": error, **extra}


def _changed(change: int | None) -> dict[str, Any]:
    """A write's change id, or what a write the history could not record says."""
    return {"change_id": change, **({} if change is not None else {"unrecorded": history.UNRECORDED})}


class SkillStore:
    """create / view / patch / edit / delete / list skills, and the index."""

    def __init__(self, cfg, *, root: Path | str | None = None, scope: str = "global",
                 _live: _Live | None = None, actor: "history.Actor | None" = None):
        self.cfg = cfg
        self.scope = scope  # global | project | team (tacit.stores.skill_scopes)
        self.skills_dir = Path(root) if root is not None else Path(cfg.skills_dir)
        self._snapshot: str | None = None
        self._live = _live if _live is not None else _Live()
        self.actor = actor  # who its writes are recorded as (else the engine's acting handler)

    def session(self) -> "SkillStore":
        """A store for one session: this store's catalog, its own frozen ``snapshot()``."""
        return SkillStore(self.cfg, root=self.skills_dir, scope=self.scope, _live=self._live, actor=self.actor)

    def _record(self, action: str, path: Path, before, after, group: str = "") -> int | None:
        """The change in the history, as this store's actor."""
        return history.record(self.cfg, action=action, scope=f"skill:{self.scope}", target=str(path),
                              before=before, after=after, actor=self.actor, group=group)

    def _lock_for(self, name: str):
        folder = "" if self.scope == "global" else hashlib.sha256(
            str(self.skills_dir).encode("utf-8", "surrogateescape")).hexdigest()[:12] + "-"
        return lock_for(Path(self.cfg.state_dir) / "locks" / f"skill-{folder}{name}")

    def _inside_root(self, path: str | Path) -> bool:
        return inside_root(path, os.path.realpath(self.skills_dir))

    def _top_level(self, name: str) -> Path:
        return self.skills_dir / name / SKILL_FILE

    def _locate(self, name: str) -> tuple[Path | None, str | None, str | None]:
        """``(SKILL.md path, category, error)`` of an existing skill; name checked."""
        top = self._top_level(name)
        if os.path.lexists(top.parent):
            if not self._inside_root(top.parent) or (os.path.lexists(top) and not self._inside_root(top)):
                return None, None, (f"refused: {top} is a symlink that points outside the "
                                    f"skills folder {self.skills_dir}")
            if top.is_file():
                return top, None, None
        try:
            entries = sorted(os.scandir(self.skills_dir), key=lambda e: e.name)
        except OSError:
            entries = []
        for entry in entries:
            if entry.name.startswith(".") or entry.name == name or not is_dir(entry):
                continue
            candidate = Path(entry.path) / name / SKILL_FILE
            if candidate.is_file():
                if not self._inside_root(candidate):
                    return None, None, (f"refused: {candidate} points outside the skills "
                                        f"folder {self.skills_dir}")
                return candidate, entry.name, None
        return None, None, None

    def _existing(self, name: str, *, writable: bool = False) -> tuple[Path, str | None, dict[str, Any] | None]:
        """``(SKILL.md path, category, refusal or None)``; ``writable``: only a top-level skill."""
        path, category, error = self._locate(name)
        if error:
            return path, category, _fail(error, name=name)
        if path is None:
            return path, category, _fail(f"no skill named {name!r} in {self.skills_dir}; `tacit skill list` "
                                         "shows the skills there", name=name)
        if writable and category is not None:
            return path, category, _fail(
                f"skill {name!r} lives in a category folder ({path}); tacit only changes top-level skills. "
                "Edit that file by hand or with the tool that made it.", name=name, path=str(path))
        return path, category, None

    @_never_raise
    def view(self, name: str, file: str | None = None) -> dict[str, Any]:
        """The full SKILL.md text, or with ``file`` a supporting file (``references/api.md``)."""
        problem = validate_name(name)
        if problem:
            return _fail(problem)
        path, category, refusal = self._existing(name)
        if refusal:
            return refusal
        if file is not None:
            return self._view_supporting(name, path.parent, file)
        text, problem = self._read_checked(path, name)
        if problem:
            return _fail(f"skill {name!r} cannot be used: {problem}. The file is at {path}; "
                         "fix it by hand.", name=name, path=str(path))
        verdict = scan_text(text)
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
        verdict = scan_text(text)
        if verdict:
            return _fail(f"{file!r} was blocked by the content scanner: {verdict}",
                         name=name, path=str(target))
        return {"success": True, "name": name, "path": str(target), "content": text}

    def _read_checked(self, path: Path, folder: str) -> tuple[str | None, str | None]:
        """``(text, problem)`` for a SKILL.md: the same checks as the catalog."""
        try:
            size = os.stat(path).st_size
        except OSError as exc:
            return None, f"cannot read: {exc.strerror or exc}"
        text, _meta, problem = read_checked(path, size, folder)
        return text, problem

    @_never_raise
    def list(self) -> dict[str, Any]:
        """Every valid skill and every file that could not be used, with the reason."""
        catalog = self.catalog()
        return {"success": True, "skills": [s.listing() for s in catalog.usable],
                "problems": [dataclasses.asdict(p) for p in catalog.problems],
                "skills_dir": str(self.skills_dir)}

    def catalog(self) -> Catalog:
        """Every skill and every problem, built on first use, kept until ``refresh()``; never raises."""
        live = self._live
        with live.lock:
            if live.catalog is None:
                try:
                    live.catalog = build_catalog(self.cfg, str(self.skills_dir))
                except Exception as exc:  # noqa: BLE001 — a host must not break on a folder
                    log_exception(self.cfg, "skills.catalog", exc)
                    return Catalog(problems=(Problem(str(self.skills_dir),
                                                     f"cannot read the skills folder: {exc}"),))
            return live.catalog

    def refresh(self) -> None:
        """Forget the catalog for the whole ``session()`` family (a frozen ``snapshot()`` stays)."""
        live = self._live
        with live.lock:
            live.catalog = None
            live.rendered.clear()

    def index_text(self, budget: int | None = None) -> str:
        """Name + description of every usable skill within ``budget`` characters ("" for none)."""
        try:
            if budget is None:
                budget = int(getattr(self.cfg, "skill_index_budget", 6000))
            return self.kept_render(budget, lambda catalog: render_index(catalog.usable, budget,
                                                                         str(self.skills_dir)))
        except Exception as exc:  # noqa: BLE001 — the index feeds a host's prompt
            log_exception(self.cfg, "skills.index_text", exc)
            return ""

    def kept_render(self, key, make):
        """``make(catalog)``'s result, kept with this catalog under ``key`` until ``refresh()``."""
        catalog, live = self.catalog(), self._live
        with live.lock:
            found = live.rendered.get(key)
        if found is None:
            found = make(catalog)
            with live.lock:
                if live.catalog is catalog:  # not refreshed meanwhile
                    if len(live.rendered) >= 8:
                        live.rendered.clear()
                    live.rendered[key] = found
        return found

    def snapshot(self) -> str:
        """The index as it was at the first call on this store (session start)."""
        if self._snapshot is None:
            self._snapshot = self.index_text()
        return self._snapshot

    @_never_raise
    @_acted
    def create(self, name: str, description: str, body: str | None = None, *,
               keep: dict[str, Any] | None = None, files_from: Path | None = None) -> dict[str, Any]:
        """A new skill ``skills/<name>/SKILL.md`` (without ``body``: the template's sections); a
        moved skill ``keep``s its frontmatter (created, version …) and its folder's other files."""
        problem = validate_name(name) or description_problem(description) or control_problem(description, "description")
        if problem:
            return _fail(problem)
        description = description.strip()
        if body is None:
            body = default_body(name, description)
        problem = _text_problem(body, "body")
        if problem:
            return _fail(problem)
        now = now_iso()
        meta = {"version": INITIAL_VERSION, "created": now, "updated": now, **(keep or {}),
                "name": name, "description": description}
        text = render_skill(meta, body)
        problem = _size_problem(text) or _scan_problem(text)
        if problem:
            return _fail(problem, name=name)
        path = self._top_level(name)
        with self._lock_for(name):
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
            made = not path.parent.is_dir()
            ensure_private_dir(path.parent)
            try:
                if files_from is not None:  # references/, scripts/ …: links copied as links, never followed
                    shutil.copytree(files_from, path.parent, symlinks=True, dirs_exist_ok=True,
                                    ignore=lambda folder, names: [SKILL_FILE] if Path(folder) == files_from else [])
                atomic_write_text(path, text)
            except BaseException:
                if made:  # a create that failed (a full disk) leaves no empty folder `skill list` calls unusable
                    shutil.rmtree(path.parent, ignore_errors=True)
                raise
            change = self._record("skill_create", path, None, text)
        self.refresh()
        result = {"success": True, "message": f"Created skill {name!r} at {path}.",
                  "name": name, "path": str(path), "version": INITIAL_VERSION, **_changed(change)}
        return _with_section_hint(result, body, name)

    @_never_raise
    @_acted
    def patch(self, name: str, section: str, content: str) -> dict[str, Any]:
        """Replace the text of one ``## section`` (or append it); bumps the patch version."""
        problem = validate_name(name)
        if problem:
            return _fail(problem)
        title, problem = clean_section_title(section)
        problem = (problem or _text_problem(content, "content") or content_heading_problem(content)
                   or _scan_problem(f"## {title}\n{content}"))
        if problem:
            return _fail(problem, name=name)

        def change(meta: dict[str, Any], body: str):
            new_body, replaced = replace_section(body, title, content)
            meta["version"] = bump_version(meta.get("version"), "patch")
            return meta, new_body, {"section": title, "action": "replaced" if replaced else "appended"}

        result = self._rewrite(name, change, "patch")
        if result.get("success"):
            result["message"] = (f"{result['action'].capitalize()} section {title!r} of skill "
                                 f"{name!r} (version {result['version']}).")
        return result

    @_never_raise
    @_acted
    def edit(self, name: str, description: str | None = None, body: str | None = None) -> dict[str, Any]:
        """Replace the description and/or the whole body; bumps the minor version."""
        problem = validate_name(name)
        if problem:
            return _fail(problem)
        if description is None and body is None:
            return _fail("nothing to change: give a new description and/or body", name=name)
        problem = ((description is not None and (description_problem(description)
                                                 or control_problem(description, "description")))
                   or (body is not None and _text_problem(body, "body")))
        if problem:
            return _fail(problem, name=name)
        description = description.strip() if description is not None else None
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

        result = self._rewrite(name, change, "edit")
        if result.get("success"):
            result["message"] = (f"Updated the {' and '.join(result['changed'])} of skill "
                                 f"{name!r} (version {result['version']}).")
            if body is not None:
                result = _with_section_hint(result, body, name)
        return result

    def _rewrite(self, name: str, change, action: str) -> dict[str, Any]:
        """Lock, re-read, apply ``change(meta, body) -> (meta, body, extra)``, check, write."""
        with self._lock_for(name):
            path, _category, refusal = self._existing(name, writable=True)
            if refusal:
                return refusal
            text, problem = self._read_checked(path, name)
            if problem:
                return _fail(f"skill {name!r} was not changed: {problem}. The file at {path} "
                             "is untouched; fix it by hand first.", name=name, path=str(path))
            meta, body = parse_skill(text)
            meta, body, extra = change(meta, body)
            meta["updated"] = now_iso()
            new_text = rerender_skill(text, meta, body)  # a person's comments and layout kept
            problem = _size_problem(new_text)
            if problem:
                return _fail(problem, name=name, path=str(path))
            # the whole file too: never rewrite text a person added that the scanner blocks
            verdict = scan_text(new_text)
            if verdict:
                return _fail(f"skill {name!r} was not changed: the file at {path} contains text "
                             f"the content scanner blocks ({verdict}); fix it by hand first.",
                             name=name, path=str(path))
            target = Path(os.path.realpath(path))  # through a symlink: the real file, not a copy
            atomic_write_text(target, new_text, mode=mode_of(target, 0o600))  # a person's permissions kept
            change = self._record(f"skill_{action}", path, text, new_text)
        self.refresh()
        return {"success": True, "name": name, "path": str(path),
                "version": jsonable(meta["version"]), **extra, **_changed(change)}

    @_never_raise
    @_acted
    def delete(self, name: str) -> dict[str, Any]:
        """Move ``skills/<name>/`` to ``skills/.trash/<name>-<timestamp>/``."""
        problem = validate_name(name)
        if problem:
            return _fail(problem)
        with self._lock_for(name):
            path, _category, refusal = self._existing(name, writable=True)
            if refusal:
                return refusal
            folder = path.parent
            text, _problem = self._read_checked(path, name)
            trash = self.skills_dir / TRASH_DIR
            ensure_private_dir(trash)
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            target = free_name(trash / f"{name}-{stamp}", sep="-", first=2)
            os.rename(folder, target)
            os.utime(target)  # the trash's retention counts from the delete, not the last edit
            change = self._record("skill_delete", path, text, {"trash_path": str(target)})
        self.refresh()
        return {"success": True, "name": name, "trash_path": str(target), **_changed(change),
                "message": f"Moved skill {name!r} to {target}; move the folder back to "
                           "restore it."}

    @_never_raise
    @_acted
    def install_starters(self) -> dict[str, Any]:
        """Copy the shipped starter skills in; a name that already exists is left alone."""
        starters = resource_dir("skills_template") / "starters"
        installed, skipped, change, group = [], [], None, f"starters-{time.time_ns()}"
        for folder in sorted(p for p in starters.iterdir() if p.is_dir()):
            meta, body = parse_skill((folder / SKILL_FILE).read_text(encoding="utf-8"))
            name = meta["name"]
            with self._lock_for(name):
                existing, _category, error = self._locate(name)
                if existing is not None or error:
                    skipped.append(name)
                    continue
                now = now_iso()
                meta.update(created=now, updated=now)
                target = self._top_level(name)
                ensure_private_dir(target.parent)
                text = render_skill(meta, body)
                atomic_write_text(target, text)
                change = self._record("skill_create", target, None, text, group)  # one undo takes all back
                installed.append(name)
        if installed:
            self.refresh()
        message = (f"Installed {len(installed)} starter skill(s)" +
                   (f"; already present: {', '.join(skipped)}" if skipped else "") + ".")
        return {"success": True, "installed": installed, "skipped": skipped, "message": message,
                **(_changed(change) if installed else {})}


# helpers
def _holds_skill_folders(folder: Path) -> bool:
    try:
        return any((child / SKILL_FILE).exists() for child in folder.iterdir()
                   if child.is_dir() and not child.name.startswith("."))
    except OSError:
        return False


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
    if problem := control_problem(text, what, keep="\r\x0b\x0c"):  # a Windows file's CR is a line end
        return problem
    if not text.strip():
        return f"{what} is empty"
    if len(text) > MAX_SKILL_CHARS:
        return f"{what} is {len(text):,} characters; a SKILL.md may hold {MAX_SKILL_CHARS:,}"
    return body_frontmatter_problem(text) if what == "body" else None


def _size_problem(text: str) -> str | None:
    if len(text) > MAX_SKILL_CHARS:
        return (f"the SKILL.md would be {len(text):,} characters; the limit is "
                f"{MAX_SKILL_CHARS:,}. Move long material into a supporting file or shorten it.")
    return None


def _scan_problem(text: str) -> str | None:
    verdict = scan_text(text)
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
    import jinja2  # only a new skill needs it: hooks importing this module do not pay for it

    source = (resource_dir("skills_template") / "SKILL.md.j2").read_text(encoding="utf-8")
    env = jinja2.Environment(autoescape=False, keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    return env.from_string(source).render(name=name, title=title_from_name(name),
                                          description=one_line(description)).strip()


