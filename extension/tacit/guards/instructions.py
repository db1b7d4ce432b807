"""A repository's instruction files (AGENTS.md, CLAUDE.md, .cursorrules …) → the rule lines that
state an exact shape, and the *unread* lines a child may phrase (docs/guards.md, "Rules from the
repository's own files" and "Lines tacit cannot read").

``rules_in(text, name)`` / ``read_text`` read one file's text (lines in code fences, HTML comments
and example blocks are no rules; ``sections.Layout`` restates bullets and table cells); an
``.mdc`` file with broken frontmatter raises ``BadFile``. Pure: the store finds and reads the
files, scans each line and keeps the guards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tacit.guards.clauses import (_CONDITION_PLACE, _HEDGE, _NOT_A_BAN, _PLACEHOLDER, Clause, _protect, clean_line,
                                    veto)
from tacit.guards.derive import MAX_LESSON_CHARS, _prepare, derive_guards
from tacit.guards.model import GuardSpec, PathMatch
from tacit.guards.sections import Layout
from tacit.guards.spans import _command, _path, span_specs
from tacit.guards.words import _KNOWN_PROGRAMS

# file names tacit reads, at the project root and in subfolders
NAMES = ("AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", "CONVENTIONS.md", ".cursorrules",
         ".windsurfrules")
# files at a fixed place below a folder
NESTED = (".claude/CLAUDE.md", ".github/copilot-instructions.md")
MDC_DIR = ".cursor/rules"  # every *.mdc inside
MAX_FILE_BYTES = 512 * 1024
MAX_RULES_PER_FILE = 500

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_EXAMPLE_HEAD = re.compile(r"^\s{0,3}#{1,6}\s+.*\b(?:examples?|sample|e\.g\.|illustration|bad|wrong|"
                           r"anti-?patterns?|don'?t do this)\b", re.I)
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
    """The rule lines of one instruction file, in order. Raises ``BadFile``
    for an ``.mdc`` with broken frontmatter; anything else is skipped."""
    return read_text(text, name)[0]


def read_text(text: str, name: str = "AGENTS.md") -> tuple[list[FileRule], list[UnreadLine]]:
    """(the rule lines, the unread lines) of one instruction file."""
    if not isinstance(text, str):
        raise BadFile("not text")
    if "\0" in text[:8192]:
        raise BadFile("binary content")
    lines = text.splitlines()
    start = _frontmatter_end(lines) if name.endswith(".mdc") else 0
    out: list[FileRule] = []
    unread: list[UnreadLine] = []
    fence = None
    comment = example = False
    layout = Layout()
    for number in range(start, len(lines)):
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
        if _HEADING.match(raw):  # a heading opens a section, and may itself be a rule
            example = bool(_EXAMPLE_HEAD.match(raw))
        line = _QUOTE_MARK.sub("", raw.strip())  # "> **Warning:** never …": a callout of this file's own
        texts = layout.read(line)  # the line, a bullet under "## Don'ts", a cell of a "Never run" column
        if example or not line or len(line) > MAX_LESSON_CHARS or _EXAMPLE_LINE.match(line):
            continue
        shown = " ".join(clean_line(line).replace("**", "").split())  # as quoted back: no bullet, no bold
        found: list = []
        for text in texts:
            for spec in derive_guards(text):
                if isinstance(spec.match, PathMatch) and not all(_inside(p) for p in spec.match.patterns):
                    continue  # a path outside the project: never a guard of it
                if spec.match not in found:
                    found.append(spec.match)
                    out.append(FileRule(number + 1, shown, GuardSpec(spec.match, shown, spec.instead, "ask")))
        if not found and len(unread) < MAX_RULES_PER_FILE and unread_rule(shown):
            spans = [s for s in span_specs(line) if not isinstance(s.match, PathMatch) or
                     all(_inside(p) for p in s.match.patterns)]  # the refused quoted span (guards/spans.py)
            for spec in spans:
                out.append(FileRule(number + 1, shown, GuardSpec(spec.match, shown, None, "ask")))
            if not spans:
                unread.append(UnreadLine(number + 1, shown))
        if len(out) >= MAX_RULES_PER_FILE:
            break
    return out, unread


_NAMED = re.compile(r"`[^`\n]{2,80}`|(?<![\w/.-])(?:\.?[\w-]+/[\w./*-]*|[\w-]+\.(?:json|lock|ya?ml|toml|md|env|py|ts|js|sql|sh|lock))(?![\w-])")


# a word of refusal, said outright (the deriver's own pre-filter is looser: "lint" ends in "nt");
# "instead" and "rather" name what to do, so they are not in it
_FORBIDS = re.compile(r"\b(?:never|not|no|nor|don'?t|doesn'?t|won'?t|mustn'?t|shouldn'?t|can'?t|cannot|avoid|"
                      r"refrain|forbidden|prohibited|banned|disallowed|off[- ]limits|hands off|keep off|alone|"
                      r"read[- ]only|untouched|unchanged|intact)\b", re.I)


def refusing_text(line: str) -> str:
    """The clauses of ``line`` that say no (not its reason, not what to do
    instead): what a phrasing of it must be grounded in. The whole line when
    no clause says no on its own."""
    prepared = _prepare(line)
    said = [c.text for found in (prepared[1] if prepared else ()) for c in found
            if not c.reason and _FORBIDS.search(c.text.replace("\u2019", "'"))]
    return " ".join(dict.fromkeys(said)) or line


def unread_rule(line: str) -> bool:
    """A refusal that names an exact thing but that no reading turned into a
    guard, with no exception or hedge on it: what a child may phrase. Read per
    clause, as the deriver reads: a clause that says no and names the thing,
    not a reason, and not vetoed (``clauses.veto``) — a hedge in the reason ("—
    it may break CI"), a condition of another sentence's order or one that only
    says the act ("when running commands, do not use `git -C`") keep nothing out."""
    prepared = _prepare(line)
    sentences = [[_unscened(c) for c in found] for found in (prepared[1] if prepared else ())]
    return any(not c.reason and _refuses(c.text) and _names(_refused(c.text)) and veto(sentences, c) is None
               for found in sentences for c in found)


# "when running commands" · "while passing test filters to pnpm": the act the rule is about, not a case of it
_SCENE = re.compile(r"\b(?:when(?:ever)?|while)\s+(?:you(?:'re| are)?\s+)?(?:running|passing|invoking|calling|"
                    r"executing|using)\b[^,;]*", re.I)
# a negation that states a fact: "they do not duplicate …", "`x` is not picklable", "doesn't", "has no", "no longer"
_STATED = re.compile(r"\b(?!(?:you|we|i|agents?|claude|and|or|but|so|then|please|just|also|always|simply)\s)"
                     r"[\w`'-]+\s+(?:is|are|was|were|be|been|does|did|has|have|had|will|would|do)\s+not\b"
                     r"(?!\s+(?:allowed|permitted|to be)\b)|\b(?:doesn|won|isn|aren|wasn|didn|hasn|haven)'?t\b|"
                     r"\b(?:has|have|had|with|is|are|was|were|there'?s)\s+no\b|\bno longer\b", re.I)
# "use `make` instead of `swift`": an order whose "instead of" says what not to use
_INSTEAD_OF = re.compile(r"^(?:always\s+|only\s+)?(?:use|run|call|invoke|execute|prefer)\b.*?\b(?:instead of|"
                         r"rather than)\b", re.I)
_RUN = re.compile(r"\b(?:run|runs|running|execute|executing|invoke|invoking)\b", re.I)
_SAID_COMMAND = re.compile(r"[a-z][\w.-]*(?: [\w.:/=-]+)*")
_FLAG_OR_CONFIG = re.compile(r"-{1,2}(?:\w[\w-]*)?|[\w-]+\.(?:config|props|targets)")


def _unscened(c: Clause) -> Clause:
    """The clause with a condition that only says the act read as no condition (a place still is one)."""
    scenes = [m.group(0) for m in _SCENE.finditer(c.text)]
    if c.exception or not scenes or any(_CONDITION_PLACE.search(scene) for scene in scenes):
        return c
    rest = _PLACEHOLDER.sub(" ", _protect(_SCENE.sub(" ", c.text))[0])
    return replace(c, head_hedge=bool(_HEDGE.match(rest.strip(" ,"))), hedged=bool(_HEDGE.search(rest)))


def _says_no(text: str) -> bool:
    return bool(_FORBIDS.search(_NOT_A_BAN.sub(" ", text.replace("\u2019", "'"))))


def _refuses(text: str) -> bool:
    """Whether a clause says no to someone (not "`x` does not download them", "it is no longer …")."""
    return _says_no(_STATED.sub(" ", text.replace("\u2019", "'"))) or bool(_INSTEAD_OF.search(text))


def _refused(text: str) -> str:
    """What a clause refuses: what follows "instead of" when that alone says no ("use `make` instead of swift")."""
    m = _INSTEAD_OF.search(text)
    return text if m is None or _says_no(text) else text[m.end():]


def _names(text: str) -> bool:
    """Whether a clause names a thing with an exact shape: a quoted command (of a known
    program, or said to be run), path or flag; unquoted, a path or a known program."""
    run = bool(_RUN.search(text))
    for span in (s.strip() for s in re.findall(r"`([^`\n]{1,80})`", text)):
        if _command(span, "run") or _path(span) or _FLAG_OR_CONFIG.fullmatch(span) or \
                run and _SAID_COMMAND.fullmatch(span):
            return True
    bare = re.sub(r"`[^`\n]*`", " ", text)
    return bool(_NAMED.search(bare)) or any(w in _KNOWN_PROGRAMS for w in re.findall(r"[a-z][\w.-]*", bare.lower()))


def _inside(pattern: str) -> bool:
    p = pattern.strip()
    return not (p.startswith(("/", "~")) or ".." in p.split("/"))


__all__ = ["NAMES", "NESTED", "MDC_DIR", "MAX_FILE_BYTES", "FileRule", "UnreadLine", "BadFile", "rules_in", "read_text",
           "unread_rule", "refusing_text"]
