"""A memory file's entries: §-separated text, one entry a paragraph or more; what of a file far
over its limit goes into a session's context (``fit``: the rest is left out unread, and told).

Design notes: docs/design/stores.md#tacitstoresmemory"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable

ENTRY_DELIMITER = "\n§\n"
SEPARATOR_LINE = re.compile(r"\n[ \t]*§[ \t]*(?=\n)")  # '§ ' from an editor too (never text: separator_problem)
NOT_UTF8, NOT_ENTRIES, ENTRY_TOO_BIG = "not-utf8", "not-entries", "entry-too-big"  # FileCheck.problem
CONTEXT_FACTOR = 2  # a file is injected up to twice its limit: a lowered limit or a hand edit still shows whole
# a memory file is read this far at most: a clone's 100 MB team MEMORY.md is not read whole at every session start
MAX_FILE_BYTES = 2 * 1024 * 1024
_SEPARATOR_BYTES = re.compile(rb"\n[ \t]*\xc2\xa7[ \t]*\n")


def read_head(path) -> tuple[bytes, int]:
    """A memory file's bytes and its size; past ``MAX_FILE_BYTES`` only what comes before the last
    separator line within them (its cut entry left out). FileNotFoundError passes."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
        if len(data) <= MAX_FILE_BYTES:
            return data, len(data)
        size = os.fstat(handle.fileno()).st_size
    last = None
    for last in _SEPARATOR_BYTES.finditer(data, 0, MAX_FILE_BYTES):
        pass
    return data[:last.start() if last else 0], size


def too_long(path, size: int) -> str:
    """What is said of a memory file read only up to ``MAX_FILE_BYTES``."""
    return (f"{path} is {size:,} bytes, more than the {MAX_FILE_BYTES:,} tacit reads of a memory file: only the "
            f"entries in its first part were read, and tacit will not rewrite it. Cut it down by hand.")


def parse_entries(raw: str) -> list[str]:
    """Split a memory file's text into entries (whitespace-trimmed, no empties; CRLF read as LF)."""
    if not raw.strip():
        return []
    return [e.strip() for e in SEPARATOR_LINE.split(normal_lines(raw)) if e.strip()]


# the other line breaks str.splitlines knows (U+2028, U+2029, NEL, VT, FF, FS/GS/RS): read as LF, so
# no reader that splits lines sees a '§' line (a separator) that the '\n' reader did not refuse
_OTHER_BREAKS = dict.fromkeys(map(ord, "\v\f\x1c\x1d\x1e\x85\u2028\u2029"), "\n")


def normal_lines(raw: str) -> str:
    """CRLF, CR and every other line break as LF: a file saved by a Windows editor keeps its entries
    apart, and an entry pasted with U+2028 is stored as the lines it shows."""
    return raw.replace("\r\n", "\n").replace("\r", "\n").translate(_OTHER_BREAKS)


def join_entries(entries: Iterable[str]) -> str:
    return ENTRY_DELIMITER.join(entries)


@dataclass(frozen=True, slots=True)
class FileCheck:
    """A memory file's bytes read as entries, and why rewriting them would lose text (None: it would not)."""

    entries: list[str]  # [] when the bytes are not UTF-8
    problem: str | None = None  # NOT_UTF8, NOT_ENTRIES (not a clean §-separated list) or ENTRY_TOO_BIG
    biggest: int = 0  # the longest entry, in chars
    where: str = ""  # NOT_ENTRIES: the first line a rewrite would change ("line 3: '§ '")


def check_file(data: bytes, limit: int | None = None) -> FileCheck:
    """The one validity check of a memory file (the store's drift guard, the children's integrity
    check, ``tacit health``): UTF-8, a clean §-separated list, no entry over ``limit`` (None: any size)."""
    try:
        raw = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return FileCheck([], NOT_UTF8)
    entries = parse_entries(raw)
    biggest = max((len(e) for e in entries), default=0)
    if raw.strip() and join_entries(entries) != normal_lines(raw).strip():
        return FileCheck(entries, NOT_ENTRIES, biggest, _first_change(normal_lines(raw), join_entries(entries)))
    if limit is not None and biggest > limit:
        return FileCheck(entries, ENTRY_TOO_BIG, biggest)
    return FileCheck(entries, None, biggest)


def _first_change(text: str, clean: str) -> str:
    """Where rewriting ``text`` as ``clean`` first changes it: its line, shown with its white space."""
    lead = len(text) - len(text.lstrip())
    body = text[lead:]
    at = next((i for i, (a, b) in enumerate(zip(body, clean)) if a != b), min(len(body), len(clean)))
    number = text.count("\n", 0, lead + at) + 1 + (at >= len(clean) and body[at:at + 1] == "\n")  # text left over
    line = text.split("\n")[number - 1]
    return f"line {number}: {line[:60]!r}"


def unsafe_to_rewrite(path, check: FileCheck) -> str | None:
    """What ``tacit doctor`` and the page say of a file ``check`` found a problem in (None: no problem)."""
    if not check.problem:
        return None
    why = {NOT_UTF8: "is not valid UTF-8", NOT_ENTRIES: f"is not a clean list of §-separated entries ({check.where})",
           ENTRY_TOO_BIG: f"has one entry ({check.biggest:,} chars) larger than the whole limit"}[check.problem]
    return f"{path} {why}: tacit will not rewrite it (fix it by hand)"


def normalise_entry(text: str) -> str:
    """Line endings to ``\\n`` and outer whitespace trimmed: what is stored."""
    return normal_lines(text).strip()


def separator_problem(entry: str) -> str | None:
    """Why ``entry`` cannot be stored as one entry, or None."""
    if any(line.strip() == "§" for line in entry.split("\n")):
        return ("Entry contains '§' on a line of its own; that line is the separator between memory entries "
                "and would split this entry in two. Put the '§' inside a sentence or remove that line.")
    return None


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # \t and \n are writing; CR and the rest are made LF


def control_problem(entry: str, what: str = "Entry", keep: str = "") -> str | None:
    """Why ``entry`` cannot be stored: a control character but those in ``keep`` (a NUL makes the file
    binary to grep and git, an ESC sequence drives the terminal of whoever cats it), or None."""
    found = next((m for m in _CONTROL.finditer(entry) if m.group() not in keep), None)
    if found is None:
        return None
    return (f"{what} holds a control character (U+{ord(found.group()):04X}) that does not show in the file but "
            "a terminal or a tool acts on; remove it.")


def usage_text(current: int, limit: int) -> str:
    pct = min(100, int(current * 100 / limit)) if limit > 0 else 0
    return f"{pct}% — {current:,}/{limit:,} chars"


def replaced(entries: list[str], index: int, new_text: str) -> list[str]:
    """``entries`` with the one at ``index`` replaced (two becoming identical: a merge)."""
    new_entries = list(entries)
    new_entries[index] = new_text
    return list(dict.fromkeys(new_entries))


def removed(entries: list[str], index: int) -> list[str]:
    """``entries`` without the one at ``index`` (and any exact copy of it)."""
    gone = entries[index]
    return [e for e in entries if e != gone]


@dataclass(frozen=True, slots=True)
class Fit:
    """The entries that go in (a prefix of the file's, so their numbers stay), and what does not."""

    kept: list[str]
    left: int = 0  # entries left out, from number len(kept) + 1 to the end
    left_chars: int = 0

    def told(self, path, limit: int) -> str:
        """One sentence for the person ("" when nothing was left out)."""
        if not self.left:
            return ""
        first = len(self.kept) + 1
        which = f"entry {first}" if self.left == 1 else f"entries {first}-{first + self.left - 1}"
        return (f"{path} is far over its limit of {limit:,} characters: {which} ({self.left_chars:,} characters) "
                f"{'was' if self.left == 1 else 'were'} left out of the agent's context unread. They stay in the "
                f"file: remove or merge entries (`tacit memory show`, `tacit consolidate`) to bring it under "
                f"its limit.")


def fit(entries: list[str], limit: int) -> Fit:
    """``entries`` in file order while their joined text stays within ``CONTEXT_FACTOR`` × ``limit``;
    the first that does not fit and every one after it are left out unread."""
    budget = CONTEXT_FACTOR * max(int(limit), 0)
    used = 0
    for number, entry in enumerate(entries):
        used += len(entry) + (len(ENTRY_DELIMITER) if number else 0)
        if used > budget:
            rest = entries[number:]
            return Fit(entries[:number], len(rest), sum(map(len, rest)))
    return Fit(entries)


# --- the deterministic merge (no agent): duplicates, and entries whose words another's include ---
_WORD = re.compile(r"[\w./-]+", re.UNICODE)
# past this many entries only exact duplicates merge: each pair's containment check made a hand-grown file
# of 35,000 entries hang `tacit memory add` for hours; a file near its limit holds far fewer
CONTAINMENT_MAX_ENTRIES = 2000


def _normal(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".!;,: ")


def _words(text: str) -> set[str]:
    return {w.strip(".,;:") for w in _WORD.findall(text.casefold())} - {""}


def plan_merge(entries: list[str]) -> tuple[list[str], list[dict]]:
    """Pure: (kept entries in order, merges made); each group's first place, its fullest text."""
    if len(entries) > CONTAINMENT_MAX_ENTRIES:
        return _plan_duplicates(entries)
    kept: list[str] = []
    seen: list[tuple[str, set[str]]] = []  # each kept entry's (normal form, words), read once
    merges: list[dict] = []
    for entry in entries:
        norm, words = _normal(entry), _words(entry)
        for i, (ex_norm, ex_words) in enumerate(seen):
            same = norm == ex_norm
            contained = bool(words) and (words <= ex_words or ex_words <= words) and min(
                len(words), len(ex_words)) >= 3
            if same or contained:
                # the entry whose words include the other's carries more
                existing = kept[i]
                winner = entry if (not same and words > ex_words) else existing
                merges.append({"kept": winner, "dropped": entry if winner == existing else existing,
                               "why": "duplicate" if same else "contained"})
                kept[i] = winner
                if winner is entry:
                    seen[i] = (norm, words)
                break
        else:
            kept.append(entry)
            seen.append((norm, words))
    return kept, merges


def _plan_duplicates(entries: list[str]) -> tuple[list[str], list[dict]]:
    """``plan_merge`` of exact duplicates only (modulo case, space and end punctuation), in one pass."""
    first: dict[str, str] = {}
    merges = []
    for entry in entries:
        norm = _normal(entry)
        if norm in first:
            merges.append({"kept": first[norm], "dropped": entry, "why": "duplicate"})
        else:
            first[norm] = entry
    return list(first.values()), merges
