"""Tombstones: what the user asked to forget, so it is not learned again.

Design decisions
- **Matched by words, not by string.** "forget that we use pnpm" must find
  the child's paraphrase "Use pnpm, never npm": a text matches a tombstone
  when every content word of the tombstone is in it (a word matches its
  plural or a longer form: "deploy" ~ "deploys"). One-word forgets
  ("forget pnpm") are broad on purpose: that is what the user said.
- **Lifted only by the user teaching it again**: ``tacit memory add``,
  ``/memory-teach``, or a new correction in the user's own words. New
  evidence (usage patterns, reviews, other children) is refused while the
  tombstone stands.
- **In the ledger** (``tombstones``, migration 0006_history); ``live`` is one
  indexed scan of a table the user fills by hand, so it stays small.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from tacit.stores import history

_STOPWORDS = """
a an the and or but if of to in on at for by with about from as into onto than then that this these those
it its is are was were be been being do does did done have has had i me my mine we us our ours you your
yours he she they them their please pls just also too very really always never not no
forget remember stop remembering memory memories note notes entry entries thing things fact
"""
STOPWORDS = frozenset(_STOPWORDS.split())
_WORD = re.compile(r"[\w][\w./@+#-]*", re.UNICODE)
MIN_STEM = 4  # shorter words match only exactly


@dataclass(frozen=True, slots=True)
class Tombstone:
    id: int
    text: str
    created_at: float


def key_words(text: str) -> tuple[str, ...]:
    """The content words of ``text`` (lower case, punctuation trimmed), in order."""
    if not isinstance(text, str):
        return ()
    words = [w.strip(".,;:!?-/").casefold() for w in _WORD.findall(text[:2000])]
    out: list[str] = []
    for word in words:
        if word and word not in STOPWORDS and word not in out:
            out.append(word)
    return tuple(out)


def _word_in(word: str, words: set[str]) -> bool:
    if word in words:
        return True
    if len(word) < MIN_STEM:
        return False
    return any(len(w) >= MIN_STEM and (w.startswith(word) or word.startswith(w)) for w in words)


def matches(forgotten: str, text: str) -> bool:
    """Does ``text`` say what ``forgotten`` said (every content word of it in ``text``)?"""
    keys = key_words(forgotten)
    if not keys:
        return bool(forgotten.strip()) and forgotten.strip().casefold() in str(text).casefold()
    words = set(key_words(text))
    return all(_word_in(k, words) for k in keys)


def add(conn, text: str, *, history_id: int | None = None, now: float | None = None) -> int:
    cur = conn.execute("INSERT INTO tombstones (text, norm, created_at, history_id) VALUES (?, ?, ?, ?)",
                       (text, " ".join(key_words(text)), time.time() if now is None else now, history_id))
    return int(cur.lastrowid)


def live(conn) -> list[Tombstone]:
    rows = conn.execute("SELECT id, text, created_at FROM tombstones WHERE lifted_at IS NULL ORDER BY id").fetchall()
    return [Tombstone(*row) for row in rows]


def covering(conn, text: str) -> Tombstone | None:
    """The live tombstone ``text`` would bring back, if any."""
    return next((t for t in live(conn) if matches(t.text, text)), None)


def lift(conn, tombstone_id: int, now: float | None = None) -> None:
    conn.execute("UPDATE tombstones SET lifted_at = ? WHERE id = ?",
                 (time.time() if now is None else now, tombstone_id))


def teaches(actor) -> bool:
    """Is this the user teaching (which lifts a tombstone), not new evidence?"""
    return actor.kind == "user" or (actor.kind == "child" and actor.name == "correction")


def check_save(cfg, text: str, actor) -> str | None:
    """Before ``text`` is saved: None when it may be (a tombstone it matches is
    lifted when the user is the one teaching it), else why it is refused."""
    try:
        with history.ledger_for(cfg) as ledger:
            with ledger.read() as conn:
                found = covering(conn, text)
            if found is None:
                return None
            if teaches(actor):
                with ledger.write() as conn:
                    lift(conn, found.id)
                return None
    except history.LedgerUnavailable:
        return None  # no ledger, no tombstones to honour: saving beats losing the lesson
    when = time.strftime("%Y-%m-%d", time.localtime(found.created_at))
    return (f"Not saved: the user asked on {when} to forget {found.text!r}; it is learned again only when "
            "the user teaches it (tacit memory add, /memory-teach).")
