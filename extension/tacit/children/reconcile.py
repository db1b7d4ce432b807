"""What a memory file should hold after a child's run: its entries before,
the run's history rows of it and what it holds now (pure; ``integrity`` acts on it).

Design notes: docs/design/children.md#tacitchildrenintegrity
"""

from __future__ import annotations

from dataclasses import dataclass

from tacit.stores import history
from tacit.stores.entries import ENTRY_TOO_BIG, NOT_ENTRIES, NOT_UTF8, check_file

MAX_FILE_BYTES = 2 * 1024 * 1024  # a memory file is a few KB, a SKILL.md at most 400 KB


def parse_memory(data: bytes | None, limit: int) -> tuple[list[str], str | None]:
    """``(entries, None)``, or ``([], why)`` when a rewrite would lose text (the store's drift guard)."""
    if data is None:
        return [], None
    if len(data) > MAX_FILE_BYTES:
        return [], f"{len(data):,} bytes, far over any memory file"
    check = check_file(data, limit)
    if check.problem is None:
        return check.entries, None
    return [], {NOT_UTF8: "not valid UTF-8", NOT_ENTRIES: "no longer §-separated entries",
                ENTRY_TOO_BIG: f"one entry ({check.biggest:,} chars) larger than the whole limit"}[check.problem]


@dataclass(frozen=True, slots=True)
class Reconciled:
    """What a memory file should hold after a (non-Hermes) child's run."""

    entries: tuple[str, ...]  # the file: what the child left, with ``vanished`` put back
    vanished: tuple[str, ...]  # gone without a trusted recorded removal
    direct: tuple[str, ...]  # added without a trusted recorded change (kept)


def reconcile(snap_entries: list[str], rows: list[history.Change], entries: list[str]) -> Reconciled:
    """Pure: the file before the run, the run's rows (oldest first) and what it holds -> what it should."""
    held, removed, added = _expectations(snap_entries, rows)
    vanished = [e for e in held if e not in entries and e not in removed]
    direct = [e for e in entries if e not in snap_entries and e not in added]
    last = rows[-1].after if rows and isinstance(rows[-1].after, list) else None
    base = list(last) if last is not None else list(snap_entries)
    # in the order of the last recorded state; entries it lacks, near where they were
    order = _put_back(base, [e for e in held if e not in base], held)
    return Reconciled(tuple(_put_back(entries, vanished, order)), tuple(vanished), tuple(direct))


def _expectations(snap_entries: list[str], rows: list[history.Change]) -> tuple[list[str], set[str], set[str]]:
    """Every entry the file held during the run, those a trusted change removed (not re-added) and
    those it added; a hand edit noticed during the run is not trusted (it may be the child's)."""
    held = list(snap_entries)
    removed: set[str] = set()
    added: set[str] = set()
    for row in rows:
        trusted = not (row.action == "edit" and row.actor.kind == "hand")
        for entry in row.added():
            if entry not in held:
                held.append(entry)
            removed.discard(entry)
            if trusted:
                added.add(entry)
        if trusted:
            removed.update(row.removed())
    return held, removed, added


def _put_back(entries: list[str], vanished: list[str], order: list[str]) -> list[str]:
    """``entries`` with ``vanished`` back, each after the nearest entry that preceded it in ``order``."""
    out = list(entries)
    for entry in vanished:
        earlier = order[:order.index(entry)]
        anchor = next((out.index(e) + 1 for e in reversed(earlier) if e in out), 0)
        out.insert(anchor, entry)
    return out
