"""What of a memory file goes into a session's context: a file far over its limit is injected
only up to a budget; the rest stays in the file, is left out unread and is told.

Design notes: docs/design/stores.md#tacitstoresmemory"""

from __future__ import annotations

from dataclasses import dataclass

from tacit.stores.entries import ENTRY_DELIMITER

CONTEXT_FACTOR = 2  # a file is injected up to twice its limit: a lowered limit or a hand edit still shows whole


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
