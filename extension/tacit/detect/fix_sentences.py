"""The prose of an agent reply as sentences, for the fix-statement parser.

Markdown is read into headings, list items and paragraphs (fenced code and tracebacks dropped, code
spans kept as placeholders), then cut into bounded sentences; a "Root cause:" / "Fix:" label gives the
sentences after it a role, and a "Fixed:"-like preamble is noted. Used by :mod:`tacit.detect.fix_parse`.

Design notes: docs/design/detect.md#tacitdetectfix_parse"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate, takewhile

from tacit.lazyre import lazy

#: real sentences are far shorter; longer runs (pasted data, minified code
#: outside fences) are cut into pieces so the trigger scan stays linear
MAX_SENTENCE_CHARS = 600
#: sentences analysed per reply (a fix statement does not hide in sentence 300)
MAX_SENTENCES = 160
#: prose characters analysed per reply (fenced code does not count)
MAX_PROSE_CHARS = 10_000


# Markdown / code handling

_PH_OPEN, _PH_CLOSE = "\ue000", "\ue001"
_PH_RE = lazy(_PH_OPEN + r"(\d+)" + _PH_CLOSE)
_CODE_SPAN_RE = lazy(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_FENCE_RE = lazy(r"^\s{0,3}(```+|~~~+)")
_HEADING_RE = lazy(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BOLD_LINE_RE = lazy(r"^\s*\*\*(.+?)\*\*\s*[:：]?\s*$")
_BULLET_RE = lazy(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+(.*)$")
_QUOTE_RE = lazy(r"^\s*>\s?")
_LINK_RE = lazy(r"\[([^\]\n]+)\]\([^)\s]+\)")
_TRACEBACK_LINE_RE = lazy(r'^\s*(?:Traceback \(most recent call last\)|File ".*", line \d+)')

_ABBREVIATIONS = {"e.g", "i.e", "vs", "cf", "approx", "mr", "mrs", "dr", "fig"}


def _protect_code_spans(text: str, spans: list[str]) -> str:
    def swap(match: re.Match) -> str:
        spans.append(match.group(2).strip())
        return f"{_PH_OPEN}{len(spans) - 1}{_PH_CLOSE}"

    return _CODE_SPAN_RE.sub(swap, text)


def restore(text: str, spans: list[str]) -> str:
    return _PH_RE.sub(lambda m: spans[int(m.group(1))], text)


@dataclass(slots=True)
class _Unit:
    text: str
    kind: str  # heading | item | para
    block: int


def _units(reply: str, spans: list[str]) -> list[_Unit]:
    """Split markdown into headings, list items and paragraphs (code removed)."""
    units: list[_Unit] = []
    block = 0
    in_fence = False
    current: _Unit | None = None
    for raw in reply.splitlines():
        fence = _FENCE_RE.match(raw)
        if fence or not (in_fence or raw.strip()):  # a fence, or a blank line outside one, ends a block
            in_fence ^= bool(fence)
            block += 1
            current = None
            continue
        if in_fence or _TRACEBACK_LINE_RE.match(raw):
            continue
        line = _QUOTE_RE.sub("", raw)
        line = _protect_code_spans(line, spans)
        line = _LINK_RE.sub(r"\1", line)
        heading = _HEADING_RE.match(line) or _BOLD_LINE_RE.match(line)
        if heading:
            units.append(_Unit(heading.group(1).replace("**", "").strip(), "heading", block))
            current = None
            continue
        line = line.replace("**", "")
        bullet = _BULLET_RE.match(line)
        if bullet:
            current = _Unit(bullet.group(1).strip(), "item", block)
            units.append(current)
        elif current is not None:
            current.text += " " + line.strip()
        else:
            current = _Unit(line.strip(), "para", block)
            units.append(current)
    return units


_SENT_END_RE = lazy(r"[.!?]+(?=\s|$)|[。！？]+")


def _split_sentences(text: str) -> list[str]:
    """Split at sentence ends that are really sentence ends (see module doc)."""
    out: list[str] = []
    start = 0
    for match in _SENT_END_RE.finditer(text):
        end = match.end()
        if match.group(0)[0] not in "。！？":
            rest = text[end:].lstrip()
            if rest and rest[0].islower():
                continue  # "e.g. in", "i.e. it", "v2. and"
            word = text[:match.start()].rsplit(None, 1)[-1].lower() if text[:match.start()].strip() else ""
            if word.strip("(") in _ABBREVIATIONS and match.group(0) == ".":
                continue
        _append_bounded(out, text[start:end])
        start = end
    _append_bounded(out, text[start:])
    return out


def _append_bounded(out: list[str], piece: str) -> None:
    piece = piece.strip()
    while len(piece) > MAX_SENTENCE_CHARS:
        cut = piece.rfind(" ", MAX_SENTENCE_CHARS // 2, MAX_SENTENCE_CHARS)
        cut = cut if cut > 0 else MAX_SENTENCE_CHARS
        out.append(piece[:cut].strip())
        piece = piece[cut:].strip()
    if piece:
        out.append(piece)


_PROBLEM_LABEL = (
    r"(?:the\s+)?(?:root[\s-]+cause|underlying\s+cause|cause|problem|issue|bug|diagnosis|culprit"
    r"|what\s+was\s+wrong|what\s+went\s+wrong|what\s+was\s+(?:happening|going\s+on|broken)|what\s+happened"
    r"|why\s+it\s+(?:failed|broke|happened)|reason|symptom|root\s+of\s+the\s+(?:problem|issue)"
    r"|根本原因|根因|原因|问题原因|问题)"
)
_SOLUTION_LABEL = (
    r"(?:the\s+)?(?:fix(?:es)?|solution|resolution|workaround|remedy|what\s+i\s+(?:changed|did|fixed)"
    r"|changes?\s+made|change|changes|修复方法|修复|解决方法|解决办法|解决方案|修改)"
)
_LABEL_HEADING_RE = lazy(
    rf"^\s*(?P<problem>{_PROBLEM_LABEL})?(?P<solution>{_SOLUTION_LABEL})?\s*[:：]?\s*$", re.IGNORECASE
)
_INLINE_LABEL_RE = lazy(
    rf"(?:^|(?<=[;.。；])\s*)(?:(?P<problem>{_PROBLEM_LABEL})|(?P<solution>{_SOLUTION_LABEL}))\s*[:：]\s*",
    re.IGNORECASE,
)
_PREAMBLE_RE = lazy(
    r"^(?:(?:great|good)\s+(?:news|question|catch)[!.,]?\s*)?"
    r"(?:fixed|solved|resolved|done|all\s+fixed|should\s+be\s+fixed(?:\s+now)?"
    r"|this\s+(?:is|should\s+be)\s+fixed(?:\s+now)?|it'?s\s+fixed(?:\s+now)?"
    r"|I'?ve\s+(?:made|applied|pushed)\s+the\s+fix|tracked\s+it\s+down|root-caused|problem\s+solved"
    r"|(?:ah,?\s+|ok(?:ay)?,?\s+)?I\s+see\s+(?:it|the\s+(?:problem|issue|bug))(?:\s+now)?|that\s+was\s+it"
    r"|(?:yep|yes|ok(?:ay)?|alright)[,!]?\s+(?:that\s+was\s+it|found\s+it)|修好了|已修复|搞定了?"
    r"|(?:I\s+)?found\s+the\s+(?:issue|problem|bug)\s+and\s+fixed\s+it|got\s+it\s+working"
    r"|(?:the\s+)?[\w\s'-]{1,40}?\s(?:has\s+been|is(?:\s+now)?)\s+fixed)\s*[:!.—–-]+\s*",
    re.IGNORECASE,
)


_QUESTION_START_RE = lazy(
    r"^\s*(?:should\s+i|shall\s+i|do\s+you\s+want|would\s+you\s+like|want\s+me\s+to|can\s+you"
    r"|could\s+you|which\b|what\b|why\b|how\b|is\s+it\b|are\s+you\b)",
    re.IGNORECASE,
)


@dataclass(slots=True)
class Sentence:
    """One sentence of a reply's prose (code blocks dropped; code spans as placeholders until restored)."""

    text: str
    section: int | None = None
    role: str | None = None  # "problem" | "solution" inside a labelled section ("Root cause:", "Fix:")
    item: bool = False
    heading: bool = False

    @property
    def question(self) -> bool:
        stripped = self.text.rstrip()
        return stripped.endswith(("?", "？")) or bool(_QUESTION_START_RE.match(stripped))


def _sentences(units: list[_Unit]) -> tuple[list[Sentence], bool]:
    """Sentences with section roles, within the budget; also reports a "Fixed:"-style preamble."""
    sentences: list[Sentence] = []
    done = False
    section_id = 0
    pending_role: str | None = None
    pending_block = -1
    pending_section = None
    for unit in units:
        text = unit.text
        label = _LABEL_HEADING_RE.match(text)
        # a "Root cause" heading (not one naming both parts) or a "Fix:" paragraph opens a section
        if label and (label.group("problem") or label.group("solution")) and (
            unit.kind == "heading" and not (label.group("problem") and label.group("solution"))
            or unit.kind == "para" and text.rstrip().endswith((":", "："))
        ):
            section_id += 1
            pending_role = "problem" if label.group("problem") else "solution"
            pending_section, pending_block = section_id, -1
            continue
        if unit.kind == "heading":
            pending_role = None
            sentences.append(Sentence(text, heading=True))
            continue
        pre = _PREAMBLE_RE.match(text)
        if pre:
            done = True
            text = text[pre.end():]
        role = section = None
        if pending_role is not None:
            if pending_block in (-1, unit.block):
                pending_block = unit.block
                role, section = pending_role, pending_section
            else:
                pending_role = None
        # inline labels: "Root cause: X. Fix: Y" / "cause: X; fix: Y" / "- **Fix:** Y"
        matches = list(_INLINE_LABEL_RE.finditer(text))
        # the text before the first label (an empty one yields no sentence), then each label's part
        segments = [(text[: matches[0].start()] if matches else text, role, section)]
        for match, seg_end in zip(matches, [m.start() for m in matches[1:]] + [len(text)]):
            section_id += 1
            seg_role = "problem" if match.group("problem") else "solution"
            segments.append((text[match.end():seg_end], seg_role, section_id))
        for seg_text, seg_role, seg_section in segments:
            for piece in _split_sentences(seg_text):
                sentences.append(Sentence(piece, seg_section, seg_role, item=unit.kind == "item"))
    return _within_budget(sentences), done


def text_weight(text: str) -> int:
    """Length where a CJK character counts double (it carries about a word)."""
    return len(text) + sum(1 for ch in text if "\u3400" <= ch <= "\u9fff")


def _within_budget(sentences: list[Sentence]) -> list[Sentence]:
    """The first sentences, up to ``MAX_SENTENCES`` and ``MAX_PROSE_CHARS``."""
    totals = accumulate(len(sentence.text) for sentence in sentences[:MAX_SENTENCES])
    return sentences[:sum(1 for _ in takewhile(lambda total: total <= MAX_PROSE_CHARS, totals))]


def read_sentences(reply: str, spans: list[str]) -> tuple[list[Sentence], bool]:
    """The sentences of ``reply`` (code spans appended to ``spans``) and whether it opens with a
    "Fixed:"-like preamble."""
    return _sentences(_units(reply, spans))
