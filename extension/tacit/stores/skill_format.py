"""The SKILL.md format: names, frontmatter, sections, versions — text in, text out.

Design notes: docs/design/stores.md#tacitstoresskill_format"""

from __future__ import annotations

import functools
import re
import time
import unicodedata
from dataclasses import dataclass
from typing import Any

MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_SKILL_CHARS = 100_000
MAX_SKILL_BYTES = MAX_SKILL_CHARS * 4  # at most 4 bytes a character: a larger file is refused unread
MAX_SECTION_TITLE_CHARS = 80

STANDARD_SECTIONS = ("When to Use", "Procedure", "Pitfalls", "Verification")
# Frontmatter keys tacit owns, in the order they are written; other keys are kept, after these.
FIELD_ORDER = ("name", "description", "version", "created", "updated")
INITIAL_VERSION = "1.0.0"

_NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class SkillFormatError(ValueError):
    """A SKILL.md text that does not have the required shape (reason in str())."""


# names
def validate_name(name: Any) -> str | None:
    """Why ``name`` is not a valid skill name, or None when it is."""
    if type(name) is str and len(name) <= MAX_NAME_CHARS and _NAME_RE.fullmatch(name):
        return None  # valid: the checks below only choose the message for an invalid name
    if not isinstance(name, str):
        return "skill name must be text"
    if not name:
        return "skill name is empty"
    if "\x00" in name:
        return "skill name contains a NUL character"
    if "/" in name or "\\" in name or name in (".", "..") or ".." in name:
        return (f"skill name {name[:80]!r} looks like a path; a name is one folder name "
                "(lowercase letters, digits, hyphens)")
    if len(name) > MAX_NAME_CHARS:
        return f"skill name is {len(name)} characters long; the limit is {MAX_NAME_CHARS}"
    if not _NAME_RE.fullmatch(name):
        return (f"invalid skill name {name!r}: use lowercase letters, digits and single "
                f"hyphens, not starting or ending with a hyphen (try {slugify(name)!r})")
    return None


def slugify(text: str) -> str:
    """Free text -> a valid skill name ("Deploy to Staging!" -> "deploy-to-staging"; nothing usable:
    "skill"), cut at a hyphen within 64 characters."""
    folded = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    if len(slug) > MAX_NAME_CHARS:
        cut = slug[:MAX_NAME_CHARS]
        if "-" in cut and slug[MAX_NAME_CHARS] != "-":  # end on a whole word
            cut = cut.rsplit("-", 1)[0]
        slug = cut.strip("-")
    return slug or "skill"


def title_from_name(name: str) -> str:
    """"deploy-to-staging" -> "Deploy to staging" (the body's H1)."""
    words = name.replace("-", " ").strip()
    return words[:1].upper() + words[1:] if words else name


# descriptions and free text
def description_problem(description: Any) -> str | None:
    """Why ``description`` cannot be a skill's description, or None."""
    if description is None:
        return "missing description"
    if not isinstance(description, str):
        return f"description must be text, not {type(description).__name__}"
    if not description or description.isspace():  # what strip() would leave empty
        return "description is empty"
    if "\x00" in description:
        return "description contains a NUL character"
    if len(description) > MAX_DESCRIPTION_CHARS:
        return (f"description is {len(description):,} characters long; "
                f"the limit is {MAX_DESCRIPTION_CHARS:,}")
    return None


def one_line(text: str) -> str:
    """Collapse all whitespace (newlines included) to single spaces."""
    return " ".join(text.split())


# reading: split + metadata (python-frontmatter's YAML handler, imported on first use: a new
# service's first answer reads every SKILL.md from its memo (tacit.stores.file_memo) and parses none)
@functools.cache
def _yaml():
    """``(handler, failures)``: what PyYAML raises for a frontmatter it cannot read (bad syntax,
    a date that does not exist, nesting deeper than the interpreter allows)."""
    import frontmatter
    import yaml

    return frontmatter.YAMLHandler(), (yaml.YAMLError, ValueError, OverflowError, RecursionError)


def _normalise(text: str) -> str:
    """A BOM dropped, line endings made ``\\n``, leading blanks removed (as python-frontmatter does)."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").lstrip()


def split_frontmatter(text: str) -> tuple[str, str]:
    """``(yaml_text, body)`` of a SKILL.md text (frontmatter between two ``---`` lines, at the
    start); raises SkillFormatError."""
    text = _normalise(text)
    handler = _yaml()[0]
    if not handler.detect(text):
        raise SkillFormatError("no frontmatter: SKILL.md must start with a '---' line")
    try:
        yaml_text, body = handler.split(text)
    except ValueError:  # no second delimiter to split on
        raise SkillFormatError("frontmatter is not closed: no second '---' line") from None
    return yaml_text.strip("\n"), body.strip()


def parse_skill(text: str) -> tuple[dict[str, Any], str]:
    """``(metadata, body)`` of a SKILL.md text; raises SkillFormatError."""
    yaml_text, body = split_frontmatter(text)
    handler, failures = _yaml()
    try:
        data = handler.load(yaml_text)
    except RecursionError:
        raise SkillFormatError("bad YAML in frontmatter: nested too deeply") from None
    except failures as exc:
        reason = " ".join(str(exc).split())
        raise SkillFormatError(f"bad YAML in frontmatter: {reason[:300]}") from None
    if data is None:
        raise SkillFormatError("frontmatter is empty")
    if not isinstance(data, dict):
        raise SkillFormatError("frontmatter must be a YAML mapping (key: value lines), "
                               f"not {type(data).__name__}")
    return data, body


def body_frontmatter_problem(body: str) -> str | None:
    """Why ``body`` (what goes below tacit's own frontmatter) cannot be one: a whole SKILL.md's text."""
    try:
        meta, _rest = parse_skill(body)
    except SkillFormatError:
        return None
    if {"name", "description"} & set(meta):
        return ("the body starts with a frontmatter block (a '---' line, name:, description:, '---'): give only "
                "the body, its ## sections; tacit writes the name, description and version itself")
    return None


def metadata_problem(meta: dict[str, Any], folder_name: str | None) -> str | None:
    """Why this frontmatter does not make a valid skill in ``folder_name``."""
    name = meta.get("name")
    if name is None:
        return "missing name in frontmatter"
    problem = validate_name(name)
    if problem:
        return problem
    if folder_name is not None and name != folder_name:
        return (f"name {name!r} does not match the folder name {folder_name!r} "
                "(rename the folder or fix the name)")
    return description_problem(meta.get("description"))


# writing
def render_skill(meta: dict[str, Any], body: str) -> str:
    """The SKILL.md text: ``---``, YAML frontmatter, ``---``, blank line, body."""
    import frontmatter

    post = frontmatter.Post(body.strip())
    post.metadata.update({key: meta[key] for key in FIELD_ORDER if key in meta})
    post.metadata.update(meta)  # the other keys, after tacit's
    # width: a long description stays on one line (greppable); sort_keys: keep our order
    return frontmatter.dumps(post, sort_keys=False, width=1 << 30) + "\n"


def rerender_skill(text: str, meta: dict[str, Any], body: str) -> str:
    """``render_skill``, keeping the hand-written frontmatter of ``text`` (its comments, order and style)
    where only some top-level keys changed: each changed key's lines are replaced (a new key appended),
    and the result must read back as ``meta``; otherwise the whole frontmatter is written anew."""
    import yaml

    try:
        yaml_text, _body = split_frontmatter(text)
        old = parse_skill(text)[0]
        lines = yaml_text.split("\n")
        for key, value in meta.items():
            if key in old and old[key] == value:
                continue
            dumped = yaml.safe_dump({key: value}, sort_keys=False, width=1 << 30).rstrip("\n").split("\n")
            at = next((i for i, line in enumerate(lines) if re.match(rf"{re.escape(str(key))}\s*:", line)), None)
            if at is None:
                lines += dumped
                continue
            end = at + 1  # the key's own lines: what follows it indented (or blank) up to the next key
            while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t", "-")):
                end += 1
            lines[at:end] = dumped
        kept = "\n".join(lines)
        if yaml.safe_load(kept) != meta:  # anything unusual (a key removed, a merge, an alias): written anew
            return render_skill(meta, body)
    except (SkillFormatError, yaml.YAMLError, ValueError, TypeError, RecursionError):
        return render_skill(meta, body)
    return f"---\n{kept}\n---\n\n{body.strip()}\n"


def now_iso() -> str:
    """UTC now as ``2025-01-31T12:00:00Z`` (what ``created``/``updated`` hold)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def bump_version(old: Any, level: str = "patch") -> Any:
    """The next version: ``level`` is "patch" (section patch) or "minor" (edit)."""
    if isinstance(old, bool):
        old = None
    if isinstance(old, int):
        return old + 1
    text = str(old).strip() if old is not None else ""
    match = re.fullmatch(r"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?", text)
    major, minor, patch = (int(g) if g else 0 for g in match.groups()) if match else (1, 0, 0)
    if level == "minor":
        minor, patch = minor + 1, 0
    else:
        patch += 1
    return f"{major}.{minor}.{patch}"


# sections
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


@dataclass
class Section:
    title: str          # heading text as written
    start: int          # offset of the heading line
    content_start: int  # offset just after the heading line
    end: int            # offset of the next level-1/2 heading (or len(body))


def _headings(body: str):
    """Yield ``(level, title, line_start, line_end)`` for ATX headings outside fenced code."""
    fence: str | None = None
    pos = 0
    for line in body.split("\n"):
        start, pos = pos, pos + len(line) + 1
        fence_match = _FENCE.match(line)
        if fence is not None:
            if fence_match and fence_match.group(1)[0] == fence[0] and \
                    len(fence_match.group(1)) >= len(fence) and \
                    not line.strip()[len(fence_match.group(1)):].strip():
                fence = None
        elif fence_match:
            fence = fence_match.group(1)
        else:
            heading = _HEADING.match(line)
            if heading:
                title = (heading.group(2) or "").rstrip("#").strip()
                yield len(heading.group(1)), title, start, min(pos, len(body))


def section_key(title: str) -> str:
    """Headings match case- and whitespace-insensitively."""
    return " ".join(title.split()).casefold()


def find_sections(body: str) -> list[Section]:
    """Level-2 sections of ``body`` in order."""
    sections: list[Section] = []
    for level, title, start, content_start in _headings(body):
        if level > 2:
            continue
        if sections and sections[-1].end == -1:
            sections[-1].end = start
        if level == 2:
            sections.append(Section(title, start, content_start, -1))
    if sections and sections[-1].end == -1:
        sections[-1].end = len(body)
    return sections


def missing_sections(body: str) -> list[str]:
    present = {section_key(s.title) for s in find_sections(body)}
    return [name for name in STANDARD_SECTIONS if section_key(name) not in present]


def clean_section_title(section: Any) -> tuple[str | None, str | None]:
    """``(title, error)``: "## Pitfalls" / "pitfalls" -> "Pitfalls"-ish title."""
    if not isinstance(section, str):
        return None, "section must be text"
    if "\x00" in section:
        return None, "section name contains a NUL character"
    if "\n" in section.strip() or "\r" in section.strip():
        return None, "section name must be a single line"
    title = section.strip().lstrip("#").strip()
    if not title:
        return None, "section name is empty"
    if len(title) > MAX_SECTION_TITLE_CHARS:
        return None, f"section name is longer than {MAX_SECTION_TITLE_CHARS} characters"
    # the standard spelling when the caller means a standard section
    return next((s for s in STANDARD_SECTIONS if section_key(s) == section_key(title)), title), None


def content_heading_problem(content: str) -> str | None:
    """Section content may not hold level-1/2 headings (they would take over the sections after)."""
    for level, title, _start, _end in _headings(content):
        if level <= 2:
            return (f"content contains the heading {'#' * level} {title!r}; patch one "
                    "section at a time (use ### for sub-headings)")
    return None


def replace_section(body: str, title: str, content: str) -> tuple[str, bool]:
    """``(new_body, replaced)``: the section's text replaced by ``content``, or the section appended."""
    content = content.strip("\n").rstrip()
    wanted = section_key(title)
    for section in find_sections(body):
        if section_key(section.title) == wanted:
            before = body[:section.content_start]
            if not before.endswith("\n"):
                before += "\n"
            after = body[section.end:]
            middle = "\n" + content + "\n" if content else ""
            if after:
                middle += "\n"
            return (before + middle + after).strip() , True
    stripped = body.strip()
    prefix = stripped + "\n\n" if stripped else ""
    return f"{prefix}## {title}\n\n{content}".strip(), False
