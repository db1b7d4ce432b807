"""The SKILL.md format: names, frontmatter, sections, versions — text in, text out.

Design decisions
- **Pure functions, no file system.** The store (``tacit.stores.skills``)
  decides where files live and how they are locked; this module only knows
  what a valid SKILL.md looks like, so every rule is testable on strings.
- **Agent Skills names.** Lowercase ASCII letters, digits and single hyphens,
  1–64 characters, no leading/trailing hyphen, equal to the folder name: the
  same rule Claude Code, Hermes Agent and pi apply, so a skill tacit writes
  loads everywhere. ``slugify`` turns free text into such a name.
- **Written with python-frontmatter, read fast.** Writing goes through
  python-frontmatter (PyYAML's safe dumper) so quoting is always right; the
  dumper is told not to fold lines, which keeps every value we write on one
  line. Reading happens for every skill on every index build, and PyYAML costs
  ~80 µs a file plus ~25 ms to import — more than reading the files
  themselves. So ``parse_metadata`` first tries a tiny parser for the one
  shape we write (``key: scalar`` lines, plain / 'single' / "double"
  quoted) and falls back to real YAML (python-frontmatter's SafeLoader)
  whenever a file contains anything else: block scalars, nesting, lists,
  comments after values, anything that YAML 1.1 would resolve to a non-string
  type we do not recognise exactly. A property test checks the fast path
  against PyYAML. Within it, the exact five-line shape ``render_skill``
  writes is matched by one regex (straight from the file's text in
  ``parse_frontmatter``), and line by line the commonest values
  (prose starting with a letter, 'single quoted' text, a dotted version)
  are recognised in line; property tests check both shortcuts against the
  general per-value path.
- **Sections are level-2 headings outside code fences.** A ``## install``
  comment inside a fenced bash block is not a section; a section runs until
  the next level-1 or level-2 heading.
- **Versions are semver strings** ("1.0.0"): a section ``patch`` bumps the
  patch number, an ``edit`` (new description or body) bumps the minor number.
  A hand-written integer version stays an integer (+1); anything else
  unrecognisable restarts at "1.0.0" bumped.
"""

from __future__ import annotations

import re
import time
import unicodedata
from dataclasses import dataclass
from typing import Any

MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_SKILL_CHARS = 100_000
# UTF-8 needs at most 4 bytes a character: a file larger than this cannot be
# within MAX_SKILL_CHARS, so it is refused without being read.
MAX_SKILL_BYTES = MAX_SKILL_CHARS * 4
MAX_SECTION_TITLE_CHARS = 80

STANDARD_SECTIONS = ("When to Use", "Procedure", "Pitfalls", "Verification")
# Frontmatter keys tacit owns, in the order they are written. Other keys a
# person or another tool added (license, metadata, tags…) are kept, after these.
FIELD_ORDER = ("name", "description", "version", "created", "updated")
INITIAL_VERSION = "1.0.0"

_NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class SkillFormatError(ValueError):
    """A SKILL.md text that does not have the required shape (reason in str())."""


# ---------------------------------------------------------------------------
# names
# ---------------------------------------------------------------------------
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
    """Free text -> a valid skill name ("Deploy to Staging!" -> "deploy-to-staging").

    Accents are folded to ASCII, every other run of non-alphanumerics becomes
    one hyphen, and the result is cut at a hyphen boundary within 64
    characters. Text with nothing usable gives "skill".
    """
    folded = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    if len(slug) > MAX_NAME_CHARS:
        cut = slug[:MAX_NAME_CHARS]
        # prefer ending on a whole word
        if "-" in cut and slug[MAX_NAME_CHARS] != "-":
            cut = cut.rsplit("-", 1)[0]
        slug = cut.strip("-")
    return slug or "skill"


def title_from_name(name: str) -> str:
    """"deploy-to-staging" -> "Deploy to staging" (the body's H1)."""
    words = name.replace("-", " ").strip()
    return words[:1].upper() + words[1:] if words else name


# ---------------------------------------------------------------------------
# descriptions and free text
# ---------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------
# reading: split + metadata
# ---------------------------------------------------------------------------
_OPENING = re.compile(r"(?:[ \t]*\n)*---[ \t]*(?:\n|\Z)")
_CLOSING = re.compile(r"^---[ \t]*$", re.MULTILINE)


def _normalise(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _frontmatter_span(text: str) -> tuple[int, int, int]:
    """``(yaml_start, yaml_end, body_start)`` offsets in a normalised text."""
    if text.startswith("---\n"):  # the usual shape: two str.find calls
        close = text.find("\n---", 3)
        if close != -1 and text[close + 4:close + 5] in ("\n", ""):
            return 4, close + 1, close + 4
    opening = _OPENING.match(text)
    if not opening:
        raise SkillFormatError("no frontmatter: SKILL.md must start with a '---' line")
    yaml_start = opening.end()
    if opening.group(0).endswith("\n"):
        closing = _CLOSING.search(text, yaml_start)
    else:
        closing = None
    if not closing:
        raise SkillFormatError("frontmatter is not closed: no second '---' line")
    return yaml_start, closing.start(), closing.end()


def split_frontmatter(text: str) -> tuple[str, str]:
    """``(yaml_text, body)`` of a SKILL.md text; raises SkillFormatError.

    The text must start (after a BOM and blank lines) with a ``---`` line and
    the frontmatter ends at the next line that is ``---``. Line endings are
    normalised to ``\\n`` first, as YAML itself does. The body is stripped.
    """
    text = _normalise(text)
    yaml_start, yaml_end, body_start = _frontmatter_span(text)
    return text[yaml_start:yaml_end].rstrip("\n"), text[body_start:].strip()


def frontmatter_text(text: str) -> str:
    """Just the YAML of a SKILL.md (what the index needs; the body is not copied)."""
    text = _normalise(text)
    yaml_start, yaml_end, _body_start = _frontmatter_span(text)
    return text[yaml_start:yaml_end].rstrip("\n")


# Characters PyYAML refuses in a stream, plus the YAML 1.1 line breaks other
# than \n: the fast parser leaves any text containing them to PyYAML.
# Compiled on first use: this character class costs ~10 ms to compile, and
# only frontmatter with non-ASCII text needs it.
_YAML_SPECIAL_PATTERN = (
    "[^\x09\x0a\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
_yaml_special: re.Pattern | None = None


def _has_yaml_special(text: str) -> bool:
    global _yaml_special
    if _yaml_special is None:
        _yaml_special = re.compile(_YAML_SPECIAL_PATTERN)
    return _yaml_special.search(text) is not None


_DOUBLE_QUOTED_INNER = re.compile(r'(?:[^"\\]|\\.)*')
_DOUBLE_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
    "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
    "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}
_HEX_ESCAPE_LENGTH = {"x": 2, "u": 4, "U": 8}
# Words YAML 1.1 (PyYAML) resolves to booleans or null.
_YAML_WORDS = {
    "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False",
    "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~",
}
_PLAIN_START_INDICATORS = set("-?:,[]{}#&*!|>'\"%@`=<~")
_DECIMAL_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
# Dotted numbers with two or more dots ("1.0.0") are strings to YAML 1.1.
_DOTTED_VERSION = re.compile(r"[0-9]+(?:\.[0-9]+){2,}")
# Could be a YAML 1.1 int, float, sexagesimal, timestamp: leave it to PyYAML.
_NUMERIC_LOOKING = re.compile(r"[-+.0-9][-+.0-9a-fA-FxXoObB_:eEtTzZ \t]*")


class _NotSimple(Exception):
    """The fast parser met something outside its subset: use PyYAML."""


def _unescape_double(inner: str) -> str:
    out: list[str] = []
    i = 0
    n = len(inner)
    while i < n:
        ch = inner[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        esc = inner[i + 1]
        if esc in _DOUBLE_ESCAPES:
            out.append(_DOUBLE_ESCAPES[esc])
            i += 2
        elif esc in _HEX_ESCAPE_LENGTH:
            width = _HEX_ESCAPE_LENGTH[esc]
            digits = inner[i + 2:i + 2 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise _NotSimple
            code = int(digits, 16)
            if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
                raise _NotSimple
            out.append(chr(code))
            i += 2 + width
        else:
            raise _NotSimple
    return "".join(out)


def _plain_scalar(value: str) -> Any:
    """A plain (unquoted) one-line scalar as PyYAML 1.1 reads it, or _NotSimple."""
    if "\t" in value or ": " in value or " #" in value or value[-1] == ":":
        raise _NotSimple
    if value in _YAML_WORDS:
        raise _NotSimple
    first = value[0]
    if first.isalpha() and first.isascii():
        return value  # the common case: prose
    if _DOTTED_VERSION.fullmatch(value):
        return value
    if _DECIMAL_INT.fullmatch(value):
        # PyYAML reads "012" as octal: _DECIMAL_INT has no leading zeros
        return int(value)
    if first in _PLAIN_START_INDICATORS or _NUMERIC_LOOKING.fullmatch(value):
        raise _NotSimple
    return value


def _fast_value(value: str) -> Any:
    """One line's value (after ``key: ``) as PyYAML reads it, or _NotSimple."""
    value = value.strip(" ")
    if not value:
        raise _NotSimple  # "key:" — null, or a nested block on the next lines
    first = value[0]
    if first == "'":
        inner = value[1:-1]
        # a lone quote inside would end the scalar early: only '' pairs allowed
        if len(value) < 2 or value[-1] != "'" or "'" in inner.replace("''", ""):
            raise _NotSimple
        return inner.replace("''", "'")
    if first == '"':
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != '"':
            raise _NotSimple
        if "\\" not in inner:
            if '"' in inner:
                raise _NotSimple
            return inner
        if not _DOUBLE_QUOTED_INNER.fullmatch(inner):
            raise _NotSimple  # e.g. the closing quote is escaped
        return _unescape_double(inner)
    return _plain_scalar(value)


# ASCII bytes YAML refuses in a stream (controls other than tab and newline,
# DEL) map to 0, every other byte to 1: one translate() and one search
# replace a per-character isprintable() over the frontmatter.
_ASCII_REFUSED = bytes(0 if (b < 32 and b not in (9, 10)) or b == 127 else 1 for b in range(256))
# Keys tacit writes: known to be plain identifiers that are not YAML words.
_KNOWN_KEYS = frozenset(FIELD_ORDER)
_LONGEST_YAML_WORD = max(map(len, _YAML_WORDS))


# The frontmatter exactly as tacit writes it (render_skill): the five keys in
# their order, a slug name, a plain or 'single quoted' description, a dotted
# version, quoted timestamps; printable ASCII (a tab only inside quotes or
# prose, where _fast_parse_lines allows it too). Compiled on first use.
_TACIT_SHAPE_PATTERN = (
    r"name: ([a-z][a-z0-9-]*)\n"
    r"description: (?:'((?:[\t\x20-\x26\x28-\x7e]|'')*)'|([A-Za-z][\t\x20-\x7e]*))\n"
    r"version: ([0-9]+(?:\.[0-9]+){2,})\n"
    r"created: '([\t\x20-\x26\x28-\x7e]*)'\n"
    r"updated: '([\t\x20-\x26\x28-\x7e]*)'"
)
_tacit_shape: re.Pattern | None = None
# The same at the start of a whole SKILL.md: "---", the frontmatter, then a
# closing "---" line that _frontmatter_span's quick path would find.
_tacit_file_head: re.Pattern | None = None


def _tacit_metadata(match: re.Match | None) -> dict[str, Any] | None:
    """The metadata from a match of the tacit shape, or None (then the
    line-by-line parser decides). Each value is read as ``_fast_parse_lines``
    reads it (a property test compares them)."""
    if match is None:
        return None
    name, quoted, prose, version, created, updated = match.groups()
    if name in _YAML_WORDS:
        return None
    if prose is None:
        description = quoted.replace("''", "'")
    elif (prose[-1] not in ": " and "\t" not in prose and ": " not in prose
          and " #" not in prose
          and (len(prose) > _LONGEST_YAML_WORD or prose not in _YAML_WORDS)):
        description = prose  # the prose case of _fast_parse_lines, same checks
    else:
        return None
    return {"name": name, "description": description, "version": version,
            "created": created, "updated": updated}


def _parse_tacit_shape(yaml_text: str) -> dict[str, Any] | None:
    """The metadata of a frontmatter in the exact shape tacit writes, or
    None. One regex match instead of a Python loop over the lines: most
    SKILL.md files are tacit's own."""
    global _tacit_shape
    if _tacit_shape is None:
        _tacit_shape = re.compile(_TACIT_SHAPE_PATTERN)
    return _tacit_metadata(_tacit_shape.fullmatch(yaml_text))


def _parse_tacit_file(text: str) -> dict[str, Any] | None:
    """``_parse_tacit_shape`` straight from a whole SKILL.md text (no copy of
    the frontmatter), or None."""
    global _tacit_file_head
    if _tacit_file_head is None:
        _tacit_file_head = re.compile(r"---\n" + _TACIT_SHAPE_PATTERN + r"\n---(?:\n|\Z)")
    return _tacit_metadata(_tacit_file_head.match(text))


def fast_parse_metadata(yaml_text: str) -> dict[str, Any] | None:
    """Parse the one-line ``key: scalar`` subset of YAML exactly as PyYAML
    would, or return None when the text is outside that subset.

    This runs once per skill on every cold index build: the exact shape
    tacit writes is matched by one regex (``_parse_tacit_shape``), anything
    else goes line by line (``_fast_parse_lines``).
    """
    parsed = _parse_tacit_shape(yaml_text)
    return parsed if parsed is not None else _fast_parse_lines(yaml_text)


def _fast_parse_lines(yaml_text: str) -> dict[str, Any] | None:
    """``fast_parse_metadata`` line by line, with plain string methods and no
    regex per line. The two commonest values — prose that starts with an
    ASCII letter, and a 'single quoted' scalar without inner quotes — are
    recognised inline; everything else goes through ``_fast_value``.
    """
    if yaml_text.isascii():  # O(1) in CPython
        if b"\x00" in yaml_text.encode("ascii").translate(_ASCII_REFUSED):
            return None
    elif _has_yaml_special(yaml_text):
        return None
    result: dict[str, Any] = {}
    known_keys, yaml_words, longest_word = _KNOWN_KEYS, _YAML_WORDS, _LONGEST_YAML_WORD
    try:
        for line in yaml_text.split("\n"):
            key, separator, value = line.partition(": ")
            if not separator:
                return None
            if key not in known_keys and (
                    not (key.isascii() and key.replace("-", "_").isidentifier())
                    or key in yaml_words):
                return None
            first = value[:1]
            if first == "'":
                if value[-1] == "'" and len(value) > 1 and "'" not in value[1:-1]:
                    result[key] = value[1:-1]
                    continue
            elif (first.isalpha() and first.isascii() and value[-1] not in ": "
                  and "\t" not in value and ": " not in value and " #" not in value
                  and (len(value) > longest_word or value not in yaml_words)):
                # _plain_scalar's prose case, without the strip (no space at
                # either end) and with its checks in the same order
                result[key] = value
                continue
            elif first.isdigit() and _DOTTED_VERSION.fullmatch(value):
                result[key] = value  # "1.0.0": what _plain_scalar returns for it
                continue
            result[key] = _fast_value(value)
    except _NotSimple:
        return None
    return result


def parse_metadata(yaml_text: str) -> dict[str, Any]:
    """The frontmatter mapping; raises SkillFormatError for bad YAML or a
    frontmatter that is not a mapping."""
    fast = fast_parse_metadata(yaml_text)
    if fast is not None:
        if not fast:
            raise SkillFormatError("frontmatter is empty")
        return fast
    from frontmatter.default_handlers import YAMLHandler  # heavy: only when needed
    import yaml

    try:
        data = YAMLHandler().load(yaml_text)
    except yaml.YAMLError as exc:
        reason = " ".join(str(exc).split())
        raise SkillFormatError(f"bad YAML in frontmatter: {reason[:300]}") from None
    except RecursionError:
        raise SkillFormatError("bad YAML in frontmatter: nested too deeply") from None
    if data is None:
        raise SkillFormatError("frontmatter is empty")
    if not isinstance(data, dict):
        raise SkillFormatError(
            f"frontmatter must be a YAML mapping (key: value lines), not {type(data).__name__}"
        )
    return data


def parse_frontmatter(text: str) -> dict[str, Any]:
    """The metadata of a SKILL.md text; raises SkillFormatError."""
    parsed = _parse_tacit_file(text)
    return parsed if parsed is not None else parse_metadata(frontmatter_text(text))


def parse_skill(text: str) -> tuple[dict[str, Any], str]:
    """``(metadata, body)`` of a SKILL.md text; raises SkillFormatError."""
    yaml_text, body = split_frontmatter(text)
    return parse_metadata(yaml_text), body


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


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------
def ordered_metadata(meta: dict[str, Any]) -> dict[str, Any]:
    ordered = {key: meta[key] for key in FIELD_ORDER if key in meta}
    ordered.update((key, value) for key, value in meta.items() if key not in ordered)
    return ordered


def render_skill(meta: dict[str, Any], body: str) -> str:
    """The SKILL.md text: ``---``, YAML frontmatter, ``---``, blank line, body."""
    import frontmatter  # heavy: write path only

    post = frontmatter.Post(body.strip())
    post.metadata.update(ordered_metadata(meta))
    # width: never fold a long description over several lines (keeps the file
    # greppable and inside the fast parser's subset); sort_keys: keep our order.
    return frontmatter.dumps(post, sort_keys=False, width=1 << 30) + "\n"


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
    if not match:
        major, minor, patch = 1, 0, 0
    else:
        major, minor, patch = (int(g) if g else 0 for g in match.groups())
    if level == "minor":
        minor, patch = minor + 1, 0
    else:
        patch += 1
    return f"{major}.{minor}.{patch}"


# ---------------------------------------------------------------------------
# sections
# ---------------------------------------------------------------------------
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


@dataclass
class Section:
    title: str          # heading text as written
    start: int          # offset of the heading line
    content_start: int  # offset just after the heading line
    end: int            # offset of the next level-1/2 heading (or len(body))


def _headings(body: str):
    """Yield ``(level, title, line_start, line_end)`` for ATX headings outside
    fenced code blocks."""
    fence: str | None = None
    pos = 0
    length = len(body)
    while pos < length:
        end = body.find("\n", pos)
        end = length if end == -1 else end
        line = body[pos:end]
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
                yield len(heading.group(1)), title, pos, min(end + 1, length)
        pos = end + 1


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
    # use the standard spelling when the caller means a standard section
    for standard in STANDARD_SECTIONS:
        if section_key(standard) == section_key(title):
            return standard, None
    return title, None


def content_heading_problem(content: str) -> str | None:
    """Section content may not contain level-1/2 headings (they would start
    new sections and silently take over the ones after them)."""
    for level, title, _start, _end in _headings(content):
        if level <= 2:
            return (f"content contains the heading {'#' * level} {title!r}; patch one "
                    "section at a time (use ### for sub-headings)")
    return None


def replace_section(body: str, title: str, content: str) -> tuple[str, bool]:
    """``(new_body, replaced)``: the section's text replaced by ``content``,
    or the section appended at the end when the body has none by that name."""
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
