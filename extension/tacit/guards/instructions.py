"""A repository's instruction files (AGENTS.md, CLAUDE.md, .cursorrules …) → the rule lines that
state an exact shape, and the *unread* lines a child may phrase (docs/guards.md, "Rules from the
repository's own files" and "Lines tacit cannot read"). ``read_text(text, name)`` reads one file's
text; an ``.mdc`` file with broken frontmatter raises ``BadFile``. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tacit.guards.clauses import clean_line
from tacit.guards.derive import MAX_LESSON_CHARS, derive_guards
from tacit.guards.model import GuardSpec, PathMatch
from tacit.guards.sections import Layout
from tacit.guards.spans import span_specs
from tacit.guards.unread import plain_refusal, refusing_text, unread_rule

# file names tacit reads, at the project root and in subfolders
NAMES = ("AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", "CONVENTIONS.md", ".cursorrules",
         ".windsurfrules")
# files at a fixed place below a folder
NESTED = (".claude/CLAUDE.md", ".github/copilot-instructions.md")
MDC_DIR = ".cursor/rules"  # every *.mdc inside
MAX_FILE_BYTES = 512 * 1024
MAX_RULES_PER_FILE = 500

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_EXAMPLE_HEAD = re.compile(r"^\s{0,3}#{1,6}\s+.*\b(?:examples?|sample|e\.g\.|illustration)\b", re.I)
# "## Anti-Patterns", "### Bad": what follows shows what not to do; a line there that says no itself is a rule
_BAD_HEAD = re.compile(r"^\s{0,3}#{1,6}\s+.*\b(?:bad|wrong|anti-?patterns?|don'?t do this)\b", re.I)
_SAYS_NO = re.compile(r"\b(?:never|don'?t|do not|must not|should not)\b", re.I)
_QUOTE_MARK = re.compile(r"^(?:>\s*)+(?:\[!(?:note|tip|important|warning|caution)\]\s*)?", re.I)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_EXAMPLE_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*|_)?(?:e\.g\.|for example|example|bad|wrong|"
                           r"incorrect|\u274c)\b", re.I)


@dataclass(frozen=True, slots=True)
class FileRule:
    line: int  # 1-based
    text: str  # the line as written (stripped)
    spec: GuardSpec


@dataclass(frozen=True, slots=True)
class UnreadLine:
    line: int  # 1-based
    text: str  # the line as written (stripped, no bullet or bold)


class BadFile(ValueError):
    """A file that cannot be read as instructions (the reason is the message)."""


def _frontmatter_end(lines: list[str]) -> int:
    """The index of the first line after an ``.mdc`` frontmatter block."""
    if not lines or lines[0].strip() != "---":
        raise BadFile("no frontmatter (an .mdc file opens with ---)")
    for i in range(1, min(len(lines), 200)):
        if lines[i].strip() == "---":
            for line in lines[1:i]:
                if line.strip() and not line.startswith((" ", "\t", "#", "-")) and ":" not in line:
                    raise BadFile(f"broken frontmatter at line {lines.index(line) + 1}")
            return i + 1
    raise BadFile("frontmatter never closed")


def rules_in(text: str, name: str = "AGENTS.md") -> list[FileRule]:
    """The rule lines of one instruction file, in order (``read_text``'s first part)."""
    return read_text(text, name)[0]


_LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d{1,3}[.)])\s")


def read_text(text: str, name: str = "AGENTS.md") -> tuple[list[FileRule], list[UnreadLine]]:
    """(the rule lines, the unread lines) of one instruction file; lines in code fences, HTML
    comments and example blocks are no rules, ``sections.Layout`` restates bullets and cells."""
    if not isinstance(text, str):
        raise BadFile("not text")
    if "\0" in text[:8192]:
        raise BadFile("binary content")
    lines = text.splitlines()
    start = _frontmatter_end(lines) if name.endswith(".mdc") else 0
    out: list[FileRule] = []
    unread: list[UnreadLine] = []
    fence = None
    comment, example = False, ""
    code, listed, blank = False, False, False  # an indented code block: 4 spaces or a tab after a blank line, no list
    layout = Layout()
    joined = -1  # the last line a wrapped line took in
    for number in range(start, len(lines)):
        if number <= joined:
            continue
        raw = lines[number]
        m = _FENCE.match(raw)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        if comment:
            comment = "-->" not in raw
            continue
        if "<!--" in raw:
            comment = "-->" not in raw.split("<!--", 1)[1]
            continue
        indented = raw.startswith(("    ", "\t")) and bool(raw.strip()) and not _LIST_ITEM.match(raw)
        code = indented and (code or blank) and not listed
        if raw.strip() and not indented:
            listed = bool(_LIST_ITEM.match(raw))
        blank = not raw.strip()
        if code:  # "    Never run `make delta`." after a paragraph: Markdown shows it as code, not a rule
            continue
        if _HEADING.match(raw):  # a heading opens a section, and may itself be a rule
            example = "example" if _EXAMPLE_HEAD.match(raw) else "bad" if _BAD_HEAD.match(raw) else ""
        line = _QUOTE_MARK.sub("", raw.strip())  # "> **Warning:** never …": a callout of this file's own
        wrapped = [] if _HEADING.match(raw) or line.startswith("|") else _continued(lines, number)
        if wrapped:  # a hard-wrapped sentence is one line: "Do NOT manually edit" / "version strings. …"
            line, joined = " ".join([line] + wrapped), number + len(wrapped)
        texts = layout.read(line)  # the line, a bullet under "## Don'ts", a cell of a "Never run" column
        if example == "example" or example and not _SAYS_NO.search(line) or not line or len(line) > MAX_LESSON_CHARS \
                or _EXAMPLE_LINE.match(line):
            continue
        shown = " ".join(clean_line(line).replace("**", "").split())  # as quoted back: no bullet, no bold
        found: list = []
        for text in texts:
            for spec in derive_guards(text):
                if _in_project(spec) and spec.match not in found:  # a path outside the project: never a guard
                    found.append(spec.match)
                    out.append(FileRule(number + 1, shown, GuardSpec(spec.match, shown, spec.instead, "ask")))
        if not found and len(unread) < MAX_RULES_PER_FILE:
            # the refused quoted span
            spans = [s for s in span_specs(line) if _in_project(s)] if plain_refusal(shown) else []
            out.extend(FileRule(number + 1, shown, GuardSpec(spec.match, shown, None, "ask")) for spec in spans)
            if not spans and unread_rule(shown):
                unread.append(UnreadLine(number + 1, shown))
        if len(out) >= MAX_RULES_PER_FILE:
            break
    return out, unread


_WRAP_AT = 60  # a line this long that stops mid-sentence was wrapped by its writer
_OPENS_RULE = re.compile(r"(?:never|don'?t|do not|always|avoid|prefer|use|run|only)\b", re.I)  # a rule a line
_ENDS_SENTENCE = re.compile(r"(?:[.!?:;]|[.!?]\W{1,3})$|\s{2}$|\\$")


def _continued(lines: list[str], number: int) -> list[str]:
    """The lines that go on the sentence line ``number`` leaves open: each starts lower-case and is no
    list item, and the line before it is long and ends mid-sentence (at most four)."""
    out: list[str] = []
    here = lines[number]
    while len(out) < 4 and number + 1 + len(out) < len(lines):
        after = lines[number + 1 + len(out)]
        text = after.strip()
        if len(here.strip()) < _WRAP_AT or _ENDS_SENTENCE.search(here) or not text or not text[0].islower() \
                or _LIST_ITEM.match(after) or "<!--" in after or _OPENS_RULE.match(text):
            break
        out.append(text)
        here = after
    return out


def _in_project(spec: GuardSpec) -> bool:
    return not isinstance(spec.match, PathMatch) or all(_inside(p) for p in spec.match.patterns)


def _inside(pattern: str) -> bool:
    p = pattern.strip()
    return not (p.startswith(("/", "~")) or ".." in p.split("/"))


__all__ = ["NAMES", "NESTED", "MDC_DIR", "MAX_FILE_BYTES", "FileRule", "UnreadLine", "BadFile", "rules_in", "read_text",
           "unread_rule", "refusing_text"]
