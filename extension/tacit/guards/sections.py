"""Rules an instruction file states by its layout: a bullet list under a heading that prohibits
("## Don'ts", "**Never:**") and a table column that says what not to run or edit ("| Never run |").
``Layout`` reads a file's lines in order and says what to read each as: the line, a bullet restated
under its heading ("never " + the bullet) or a prohibiting column's cell. Pure.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.clauses import clean_line
from tacit.guards.words import _KNOWN_PROGRAMS, verb_of

# a heading (or a line alone that ends in a colon) that says what follows is not to be done
_HEAD_VERB = r"edit|modify|touch|change|delete|remove|commit|push to|run|use|call|install|execute|invoke"
_PROHIBIT_HEAD = lazy(
    r"(?:(?:things|what|actions?|commands?|operations?)\s+(?:to\s+)?(?:never|not to|to avoid|you must not)\b.*|"
    rf"(?:never|don'?t|do not|must not)\s+(?:ever\s+)?(?:{_HEAD_VERB})\b(?:\s+[\w'-]+){{0,4}}|"
    r"(?:never|don'?ts?|do not|must not|forbidden|prohibited|banned|not allowed|disallowed|avoid|"
    r"hard (?:rules|limits|boundaries)|off[- ]limits)"
    r"(?:\s+(?:do|run|use|ever|do this|do these|do the following|actions?|commands?|operations?|"
    r"allowed|list|rules?|\(.*\)))*)\s*:?", re.I)
_HEADING = lazy(r"^\s{0,3}#{1,6}\s+(?P<text>.+?)\s*#*\s*$")
# "Never edit these files" · "Do not modify": the verb the bullets are objects of
_VERB_HEAD = lazy(rf"(?:never|don'?t|do not|must not)\s+(?:ever\s+)?(?P<verb>{_HEAD_VERB})\b.*", re.I)
# "❌ ABSOLUTELY FORBIDDEN COMMANDS - NEVER USE": warning signs and an adverb before, halves joined by a dash
_HEAD_LEAD = lazy(r"^[^\w`]*(?:(?:absolutely|strictly|critical(?:ly)?)\s+)?", re.I)
# "AI agents must not run:" · "Local / AI suggestions MUST NOT use": who, then a verb whose objects the bullets are
_WHO_HEAD = lazy(r"[\w/ .-]{1,40}?\s+(?:must not|must never|should never|should not|may not|shall not|never)\s+"
                 rf"(?:ever\s+)?(?P<verb>{_HEAD_VERB})", re.I)
# "- **Never edit these files**" then its bullets: the object points at what follows
_POINTS = lazy(r"\b(?:these|those|the following|following|such|below)\b", re.I)
_HEAD_HALVES = lazy(r"\s+[-\u2013\u2014]\s+")
_LONE = lazy(r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?P<text>[^*_`|]{2,60}?)(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*$")
_GERUND = lazy(r"(?P<before>[^\w`]*)(?P<g>(?:force[- ])?[A-Za-z]+ing)\b")
_BULLET = lazy(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)])\s+(?P<text>\S.*)$")
_NEGATED = lazy(r"\b(?:never|not|no|don'?t|do not|avoid|forbidden|banned|prohibited)\b(?!-)|n't\b", re.I)  # not `--no-verify`
# "`dist/`" · "`src/gen/api.ts`" · "`*.lock`": a bullet that is one path
_PATH_ITEM = lazy(r"`(?:[\w.*@~-]+/[\w.*@/-]*|[\w*-]*\.[\w.*-]+|\*[\w.*-]*)`\s*(?:[\u2014:(-].*)?")
_CELL_PROHIBIT = lazy(r"(?:never|don'?t|do not|avoid|forbidden|banned|prohibited|not allowed|instead of|bad|wrong|"
                      r"dangerous|destructive)\b", re.I)
_CELL_EDIT = lazy(r"\b(?:edit|modify|change|touch|write|paths?|files?|folders?|directories)\b", re.I)
_SEPARATOR = lazy(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


class Layout:
    """What each line of a file is read as, given the lines before it."""

    def __init__(self) -> None:
        self.prohibit = False  # inside a list under a prohibiting heading
        self.header: list[str] | None = None  # the current table's header row
        self.columns: list[int] = []  # the table's prohibiting columns
        self.pending: list[str] | None = None  # a row that may be a header (its separator comes next)
        self.lead = "never"  # what a bullet under the heading is prefixed with
        self.bare = False  # the heading names a verb and no object

    def _open(self, text: str) -> bool:
        """Whether a heading's text prohibits; remembers its verb ("## Never edit these files:")."""
        text = " ".join(clean_line(text).replace("*", "").split()).rstrip(":").strip()
        halves = [_HEAD_LEAD.sub("", h) for h in _HEAD_HALVES.split(text)]
        if len(halves) > 1 and all(_PROHIBIT_HEAD.fullmatch(h) for h in halves):
            text = halves[-1]  # "FORBIDDEN COMMANDS - NEVER USE": the half that names the verb
        text = _HEAD_LEAD.sub("", text)
        who = _WHO_HEAD.fullmatch(text)
        if who:  # "Local / AI suggestions MUST NOT use:": its bullets are what not to use
            text = f"never {who.group('verb')}"
        if not _PROHIBIT_HEAD.fullmatch(text):
            return False
        verb = _VERB_HEAD.fullmatch(text)
        self.lead = f"never {verb.group('verb').lower()}" if verb else "never"
        self.bare = bool(verb) and verb.end("verb") == len(text)  # "## Never Commit": its bullets are the objects
        return True

    def read(self, raw: str) -> list[str]:
        """The texts to derive guards from for one line (none, the line, or restated)."""
        line = raw.strip()
        if line.startswith("|"):
            return self._table(line)
        self.header, self.pending = None, None
        if not line:
            return []
        heading = _HEADING.match(raw)
        if heading:  # it opens a section, prohibiting or not; "## Never Commit" says no rule of its own
            self.prohibit = self._open(heading.group("text"))
            return [] if self.prohibit and self.bare else [line]
        lone = _LONE.fullmatch(line)
        bullet = _BULLET.match(line)
        text = " ".join(clean_line(lone.group("text")).split()) if lone else ""
        if lone and not re.search(r":\s*(?:\*\*|__)?\s*$|^(?:[-*+]\s+)?(?:\*\*|__).*(?:\*\*|__):?$", line):
            lone = None  # a heading line ends in a colon or is bold: "NEVER:", "**Never**"
        if lone and not bullet and self._open(text):
            self.prohibit = True  # "**Never:**" or "NEVER:" on a line of its own
            return []
        if bullet and self.prohibit:
            item = bullet.group("text")
            if _NEGATED.search(item):
                return [line]
            lead = self.lead
            if lead == "never" and _PATH_ITEM.fullmatch(item.strip()):
                lead = "never edit"  # "- `dist/`" under "## Don'ts": a path, not a program
            gerund = _GERUND.match(item) if lead == "never" else None
            verb = verb_of(gerund.group("g")) if gerund else None
            if verb:  # "- ❌ Skipping git hooks (`--no-verify`)" under "### Forbidden": never skip them
                item = gerund.group("before") + verb + item[gerund.end("g"):]
            return [line, f"{lead} {item}"]
        if bullet and lone and self._open(text) and (line.rstrip("*_ ").endswith(":") or self.bare or self.lead == "never"
                                                     or _POINTS.search(text)):
            self.prohibit = True  # "- Never:" then indented bullets ("- **NEVER push to main**" is a rule of its own)
            return []
        if not bullet:
            self.prohibit = False  # a paragraph ends the list
        return [line]

    def _table(self, line: str) -> list[str]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if _SEPARATOR.match(line):
            if self.pending is not None:
                self.header = self.pending
                self.columns = [i for i, c in enumerate(self.header) if _CELL_PROHIBIT.search(clean_line(c))]
            self.pending = None
            return []
        if self.header is None:
            self.pending = cells
            return []
        out = []
        for i in self.columns or ([0] if self.prohibit else []):
            if i < len(cells) and re.fullmatch(r"`[^`]+`", cells[i]):
                head = self.header[i] if i < len(self.header) else ""
                verb = "edit" if _CELL_EDIT.search(head) and not re.search(r"\b(?:run|commands?)\b", head, re.I) else "run"
                first = cells[i].strip("`").split()[0] if cells[i].strip("` ") else ""
                if verb == "run" and first.lower() not in _KNOWN_PROGRAMS and not first.startswith("./"):
                    continue  # "| `std::string` | `kj::String` |": a type of code, not a command
                out.append(f"never {verb} {cells[i]}")
        return out
