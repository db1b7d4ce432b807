"""One gate for everything tacit injects into an agent's context.

``gate_context(blocks)`` takes the pieces about to be injected at session start or next to a prompt
— memory blocks, skill names, descriptions and category folder names, fix patterns, notices — and
returns the ones that may go in, cleaned, plus what was left out and why.
``clean_for_context(text)`` is the cleaning step on its own.

Design notes: docs/design/safety.md#tacitsafetycontext_gate"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from dataclasses import dataclass

from tacit.safety import commands, invisible, scanner
from tacit.safety.text import as_text

MEMORY, SKILL_NAME, SKILL_DESCRIPTION, SKILL_CATEGORY, SKILL_BODY, FIX_PATTERN, NOTICE = (
    "memory", "skill_name", "skill_description", "skill_category", "skill_body", "fix_pattern", "notice")
NAME_KINDS = frozenset((SKILL_NAME, SKILL_CATEGORY))
ENTRY_SEPARATOR = "\n§\n"
NAME_MAX = 128
DESCRIPTION_MAX = 1024
_MAX_SPLITS = 16  # split injections searched for in one memory block before the rest is left out
# what a saved entry may not tell the agent to run (a fix pattern may do none of commands.REASONS)
MEMORY_DANGERS = frozenset(("pipe_to_shell", "delete_outside_project", "disk_overwrite", "tls_disabled",
                            "world_writable", "security_disabled"))
_PAIR_CHARS = 160  # of an entry's end and the next's start read together across other entries
_PAIR_BUDGET = 512  # pairs read one by one in one gate call; past it, entries that end mid-sentence are left out
_PAIR_SEPARATOR = "\n\n§§§\n\n"  # between the pairs of one batch: no pattern reads across it
_ENDS_SENTENCE = tuple('.!?)]"\'`:;*') + ("。", "！", "？")

# Cleaning
# ANSI escape sequences (CSI and OSC) go whole, not just their ESC byte
_ANSI = re.compile(r"\x1b\[[0-?]{0,32}[ -/]{0,8}[@-~]|\x1b\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)?|\x9b[0-?]{0,32}[ -/]{0,8}[@-~]")
_STRIP_ASCII = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# C0 (but \t \n), DEL, C1, soft hyphen, Arabic letter mark, Mongolian vowel separator, zero-width
# and directional marks, bidi controls, invisible operators, deprecated format characters, BOM,
# interlinear annotation, noncharacters, lone surrogates; tag characters as runs (a subdivision flag
# is kept whole)
_STRIP = re.compile(
    "[\U000e0000-\U000e007f]+"
    "|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb\ufdd0-\ufdef\ufffe\uffff\ud800-\udfff]"
)
_LINE_BREAKS = str.maketrans({"\x85": "\n", "\u2028": "\n", "\u2029": "\n"})


def clean_for_context(text) -> str:
    """``text`` safe for an agent's context: ``\\n`` line endings; no ANSI escapes, control, invisible
    or bidi characters, lone surrogates (joiners and tags that are visible writing are kept)."""
    text = as_text(text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.isascii():
        if _STRIP_ASCII.search(text) is None:
            return text
        if "\x1b" in text:
            text = _ANSI.sub("", text)
        return _STRIP_ASCII.sub("", text)
    text = text.translate(_LINE_BREAKS)
    if "\x1b" in text or "\x9b" in text:
        text = _ANSI.sub("", text)
    if _STRIP.search(text) is None:
        return text

    def kept(match) -> str:  # joiners and tags that are visible writing stay
        return match.group() if invisible.legitimate(text, *match.span()) else ""

    return _STRIP.sub(kept, text)


# Values
@dataclass(frozen=True, slots=True)
class Block:
    """One piece tacit wants to inject."""

    kind: str  # MEMORY, SKILL_NAME, SKILL_DESCRIPTION, SKILL_CATEGORY, SKILL_BODY, FIX_PATTERN, NOTICE …
    label: str  # where it comes from: "USER.md", a skill folder, a pattern id
    text: str
    group: str | None = None  # pieces of one group are injected together or not at all


@dataclass(frozen=True, slots=True)
class LeftOut:
    """One piece (or memory entry) the gate refused."""

    kind: str
    label: str  # as given: for logs, never for the context
    shown: str  # safe to show a person or an agent
    reason: str  # a fixed phrase
    pattern_id: str  # a scanner id, a tacit.safety.commands id, or "control_characters",
    # "too_long", "malformed", "group" (left out with a refused piece of its group)


@dataclass(frozen=True, slots=True)
class GateResult:
    allowed: tuple  # Blocks that may be injected, cleaned, in input order
    left_out: tuple  # LeftOut, in the order found

    def text_of(self, kind: str) -> list[str]:
        """The allowed texts of one kind."""
        return [block.text for block in self.allowed if block.kind == kind]

    def notice(self) -> str:
        """One line for the person: what was left out of the context and why.
        Empty when nothing was. It never quotes a refused text."""
        if not self.left_out:
            return ""
        # entries refused together (a split injection) are one item
        unique = list(dict.fromkeys(f"{item.shown} ({item.reason}) [{item.pattern_id}]" for item in self.left_out))
        items = unique[:8]
        more = len(unique) - len(items)
        tail = f"; and {more} more" if more > 0 else ""
        count = len(unique)
        return (f"tacit left {count} item{'s' if count != 1 else ''} out of the agent's context because "
                f"{'they' if count != 1 else 'it'} looked unsafe: " + "; ".join(items) + tail
                + ". Run `tacit scan` on the file to see the finding.")


# Verdicts
_CATEGORY_REASONS = {
    "invisible_unicode": "invisible or bidirectional characters",
    "injection": "a prompt-injection pattern",
    "hidden_instruction": "a hidden instruction",
    "exfiltration": "an exfiltration pattern",
    "secret": "a secret",
}
_VERDICTS_MAX = 20_000  # memoised verdicts, and memoised scans of joined entries


def clear_memo() -> None:
    """Forget memoised verdicts (benchmarks, tests): results never depend on them."""
    _verdict.cache_clear()
    _first_finding.cache_clear()


def _scan_verdict(text: str, cleaned: str):
    finding = scanner.first_finding(text)
    if finding is None and cleaned != text:
        finding = scanner.first_finding(cleaned)
    if finding is None:
        return None
    return finding.pattern_id, _CATEGORY_REASONS[finding.category]


@lru_cache(maxsize=_VERDICTS_MAX)
def _verdict(kind: str, text: str):
    """``(cleaned text, None)`` or ``(None, (pattern_id, reason))`` for one piece."""
    cleaned = clean_for_context(text)
    problem = None
    if kind in NAME_KINDS:
        name = text.strip()
        if cleaned != text or "\n" in text or "\t" in text:
            problem = ("control_characters", "a line break or control character in a name")
        elif not name:
            problem = ("malformed", "an empty name")
        elif len(name) > NAME_MAX:
            problem = ("too_long", f"a name longer than {NAME_MAX} characters")
        cleaned = name
    elif kind == SKILL_DESCRIPTION:
        cleaned = " ".join(cleaned.split())
        if len(cleaned) > DESCRIPTION_MAX:
            problem = ("too_long", f"a description longer than {DESCRIPTION_MAX} characters")
    problem = problem or _scan_verdict(text, cleaned)
    if problem is None and kind in (FIX_PATTERN, MEMORY):
        danger = [d for d in commands.find_dangers(cleaned) if kind == FIX_PATTERN or d.id in MEMORY_DANGERS]
        if danger:
            problem = (danger[0].id, danger[0].reason)
    return (None, problem) if problem else (cleaned, None)


_SAFE_LABEL = re.compile(r"[\w .,:/()#@+-]{1,80}")
_KIND_NAMES = {
    MEMORY: "memory", SKILL_NAME: "a skill", SKILL_DESCRIPTION: "a skill description",
    SKILL_CATEGORY: "a skill category", SKILL_BODY: "a skill", FIX_PATTERN: "a fix pattern", NOTICE: "a notice",
}


def _shown(kind: str, label: str) -> str:
    """The label when it is a short, clean, one-line name; else a generic phrase."""
    name = _KIND_NAMES.get(kind, "an item")
    if label and _SAFE_LABEL.fullmatch(label) and scanner.first_finding(label) is None \
            and not commands.find_dangers(label):
        return f"{name.removeprefix('a ').removeprefix('an ')} {label}"
    return f"{name} with an unsafe name"


def _left_out(kind: str, label: str, reason: str, pattern_id: str, shown_label: str | None = None) -> LeftOut:
    return LeftOut(kind, label, _shown(kind, label if shown_label is None else shown_label), reason, pattern_id)


def _as_block(item) -> Block | None:
    if isinstance(item, Block):
        item = (item.kind, item.label, item.text, item.group)
    elif isinstance(item, dict):
        item = tuple(item.get(key) for key in ("kind", "label", "text", "group"))
    if not (isinstance(item, (tuple, list)) and len(item) in (3, 4)):
        return None
    kind, label, text, group = (*item, None)[:4]
    if not isinstance(kind, str):
        return None
    return Block(kind, as_text(label), as_text(text), None if group is None else as_text(group))


# Memory blocks: entries, and entries joined
def _culprit_run(entries: list) -> tuple[int, int]:
    """The first run ``i..j`` of adjacent entries whose join fails (the whole
    list's join is known to fail, every single entry to pass)."""
    lo, hi = 0, len(entries) - 1
    while lo < hi:  # the shortest failing prefix ends at j
        mid = (lo + hi) // 2
        if _joined_finding(entries[:mid + 1]):
            hi = mid
        else:
            lo = mid + 1
    j = lo
    while j > 0 and _joined_finding(entries[:j]):  # a finding that is not monotone in the prefix
        j -= 1
    i = j - 1
    while i > 0 and _joined_finding(entries[i:j + 1]) is None:
        i -= 1
    return max(i, 0), j


_first_finding = lru_cache(maxsize=_VERDICTS_MAX)(scanner.first_finding)


def _joined_finding(texts: list):
    """The first finding in the entries joined by newlines (memoised)."""
    return _first_finding("\n".join(texts))


def _gate_memory(block: Block, left_out: list, numbers: list) -> Block | None:
    """``block`` without its refused entries; ``numbers`` receives the
    (1-based) numbers of the entries kept."""
    raw_entries = block.text.split(ENTRY_SEPARATOR)
    kept: list[tuple[int, str]] = []
    for number, entry in enumerate(raw_entries, 1):
        if not entry.strip():
            continue
        cleaned, problem = _verdict(MEMORY, entry)
        if problem:
            left_out.append(_left_out(MEMORY, f"{block.label} entry {number}", problem[1], problem[0]))
        else:
            kept.append((number, cleaned))
    for attempt in range(len(kept) + 1):
        texts = [text for _number, text in kept]
        finding = _joined_finding(texts) if len(texts) > 1 else None
        if finding is None:
            break
        if attempt == _MAX_SPLITS:  # a file built to make this search slow: leave the rest out
            for number, _text in kept:
                left_out.append(_left_out(MEMORY, f"{block.label} entry {number}", _split_reason(finding),
                                          finding.pattern_id, f"{block.label} entries"))
            return None
        i, j = _culprit_run(texts)
        culprit = _joined_finding(texts[i:j + 1])
        for number, _text in kept[i:j + 1]:
            left_out.append(_left_out(MEMORY, f"{block.label} entry {number}", _split_reason(finding),
                                      culprit.pattern_id, f"{block.label} entries {kept[i][0]}-{kept[j][0]}"))
        kept = kept[:i] + kept[j + 1:]
    if not kept:
        return None
    numbers.extend(number for number, _text in kept)
    return Block(MEMORY, block.label, ENTRY_SEPARATOR.join(text for _number, text in kept), block.group)


def _split_reason(finding) -> str:
    return _CATEGORY_REASONS[finding.category] + " split across entries"


def _continues(entry: str) -> bool:
    """Does ``entry`` open mid-sentence rather than as a sentence of its own?"""
    head = entry.lstrip()[:1]
    return bool(head) and not (head.isupper() or head.isdigit() or head in "#*-•>[(\"'`")


def _gate_across(allowed: list, left_out: list, numbering: dict) -> list:
    """Memory entries read together across blocks (an injection split over two scopes), and an entry
    ending mid-sentence with the start of every later one; failing entries are left out."""
    spots = [(b, numbering[id(block)][k], entry) for b, block in enumerate(allowed) if block.kind == MEMORY
             for k, entry in enumerate(block.text.split(ENTRY_SEPARATOR))]
    if len(spots) < 2:
        return allowed
    refused: dict = {}  # (block index, entry number) -> (reason, pattern id)
    # where one block ends and the next begins (within a block, _gate_memory read the entries joined)
    for first, second in zip(spots, spots[1:]):
        if first[0] != second[0]:
            finding = _joined_finding([first[2][-_PAIR_CHARS:], second[2][:_PAIR_CHARS]])
            if finding is not None:
                for one in (first, second):
                    refused[(one[0], one[1])] = (_split_reason(finding), finding.pattern_id)
    budget = _PAIR_BUDGET
    for i, (b, number, entry) in enumerate(spots):
        if (b, number) in refused or entry.rstrip().endswith(_ENDS_SENTENCE):
            continue
        tail = entry[-_PAIR_CHARS:]
        # a second half reads on from the first: it does not open like a sentence of its own
        later = [spot for spot in spots[i + 2:] if (spot[0], spot[1]) not in refused and _continues(spot[2])]
        # one scan for all of this entry's pairs; each pair on its own only when it finds something
        pairs = [f"{tail}\n{spot[2][:_PAIR_CHARS]}" for spot in later]
        if not pairs or _first_finding(_PAIR_SEPARATOR.join(pairs)) is None:
            continue
        for spot, pair in zip(later, pairs):
            if budget <= 0:
                refused[(b, number)] = ("an unfinished entry not checked against the rest (too many)", "budget")
                break
            budget -= 1
            finding = _first_finding(pair)
            if finding is not None:
                for one in ((b, number), (spot[0], spot[1])):
                    refused[one] = (_split_reason(finding), finding.pattern_id)
                break
        else:  # the batch found something no single pair holds: fail closed on the unfinished entry
            refused.setdefault((b, number), ("an unfinished entry read with later ones", "split"))
    if not refused:
        return allowed
    out = []
    for b, block in enumerate(allowed):
        if block.kind != MEMORY:
            out.append(block)
            continue
        entries = []
        for number, entry in zip(numbering[id(block)], block.text.split(ENTRY_SEPARATOR)):
            if (b, number) in refused:
                left_out.append(_left_out(MEMORY, f"{block.label} entry {number}", *refused[(b, number)]))
            else:
                entries.append(entry)
        if entries:
            out.append(Block(MEMORY, block.label, ENTRY_SEPARATOR.join(entries), block.group))
    return out


# The gate
def gate_context(blocks: Iterable) -> GateResult:
    """The pieces of ``blocks`` (``Block`` values, ``(kind, label, text[, group])`` tuples or dicts)
    that may be injected, cleaned, and what was left out; an unknown kind is scanned like a notice
    (kinds: docs/design/safety.md). Never raises."""
    left_out: list[LeftOut] = []
    allowed: list[Block] = []
    refused_groups: set = set()
    numbering: dict = {}  # id(allowed memory block) -> the numbers of its kept entries
    try:
        items = list(blocks)
    except Exception:  # a broken iterable is nothing to inject
        items = []
    for item in items:
        block = _as_block(item)
        if block is None:
            left_out.append(LeftOut("?", "", "an item that is not a (kind, label, text) piece",
                                    "not a piece tacit can check", "malformed"))
            continue
        if block.kind == MEMORY:
            numbers: list = []
            gated = _gate_memory(block, left_out, numbers)
            if gated is not None:
                numbering[id(gated)] = numbers
                allowed.append(gated)
            continue
        cleaned, problem = _verdict(block.kind, block.text)
        if problem:
            left_out.append(_left_out(block.kind, block.label, problem[1], problem[0]))
            if block.group is not None:
                refused_groups.add(block.group)
            continue
        allowed.append(Block(block.kind, block.label, cleaned, block.group))
    left_out += [_left_out(block.kind, block.label, "part of a group with a refused piece", "group")
                 for block in allowed if block.group in refused_groups]
    allowed = _gate_across([block for block in allowed if block.group not in refused_groups], left_out, numbering)
    return GateResult(tuple(allowed), tuple(left_out))
