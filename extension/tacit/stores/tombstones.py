"""Tombstones: what the user asked to forget, so it is not learned again.

Design notes: docs/design/stores.md#tacitstorestombstones"""

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
#: generic words: part of what a forget says, but not what it is about
WEAK = frozenset("""
use uses used using prefer prefers preferred like likes liked want wants wanted need needs needed make makes run runs
work works project repo repository here now should must instead keep keeps go goes get gets put puts
""".split())
_SUFFIXES = (("ies", "y"), ("es", ""), ("s", ""), ("ing", ""), ("ed", ""))


def forms(word: str) -> set[str]:
    """A word and its plain forms for matching: "uses" ~ "use", "using" ~ "use", "deploys" ~ "deploy"."""
    word = word[:-2] if word.endswith("'s") else word
    out = {word}
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 2:
            base = word[: len(word) - len(suffix)] + repl
            out |= {base, base + "e"}
            break
    return out


@dataclass(frozen=True, slots=True)
class Tombstone:
    id: int
    text: str
    created_at: float


def key_words(text: str) -> tuple[str, ...]:
    """The content words of ``text`` (lower case, punctuation trimmed), in order."""
    if not isinstance(text, str):
        return ()
    words = (w.strip(".,;:!?-/").casefold() for w in _WORD.findall(text[:2000]))
    return tuple(dict.fromkeys(w for w in words if w and w not in STOPWORDS))


def _word_in(word: str, words: set[str]) -> bool:
    if word in words:
        return True
    mine = forms(word)
    if any(mine & forms(w) for w in words):
        return True
    if len(word) < MIN_STEM:
        return False
    return any(len(w) >= MIN_STEM and (w.startswith(word) or word.startswith(w)) for w in words)


def strong_words(keys: tuple[str, ...]) -> list[str]:
    """The content words that say what a forget is about (not "use", "prefer", "project" …)."""
    return [k for k in keys if not forms(k) & WEAK]


def match_kind(forgotten: str, text: str) -> str | None:
    """How ``text`` matches ``forgotten``: ``clear`` (every content word), ``partial`` or None."""
    keys = key_words(forgotten)
    strong = strong_words(keys)
    if not strong:  # "a", "never", "we use", "§": it matched nearly every entry (and refused every save)
        return None
    words = set(key_words(text))
    present = [k for k in keys if _word_in(k, words)]
    if len(present) == len(keys):
        return "clear"
    if any(k in present for k in strong):
        return "partial"
    return None


def matches(forgotten: str, text: str) -> bool:
    """Does ``text`` say what ``forgotten`` said (every content word of it in ``text``, in any form)?"""
    return match_kind(forgotten, text) == "clear"


def add(conn, text: str, *, history_id: int | None = None, now: float | None = None) -> int:
    cur = conn.execute("INSERT INTO tombstones (text, norm, created_at, history_id) VALUES (?, ?, ?, ?)",
                       (text, " ".join(key_words(text)), time.time() if now is None else now, history_id))
    return int(cur.lastrowid)


def live(conn) -> list[Tombstone]:
    rows = conn.execute("SELECT id, text, created_at FROM tombstones WHERE lifted_at IS NULL ORDER BY id").fetchall()
    return [Tombstone(*row) for row in rows]


def lift(conn, tombstone_id: int, now: float | None = None) -> None:
    conn.execute("UPDATE tombstones SET lifted_at = ? WHERE id = ?",
                 (time.time() if now is None else now, tombstone_id))


def teaches(actor) -> bool:
    """Is this the user teaching (which lifts a tombstone), not new evidence?"""
    return actor.kind == "user" or (actor.kind == "child" and actor.name == "correction")


def check_save(cfg, text: str, actor) -> str | None:
    """None when ``text`` may be saved (the user teaching it lifts a tombstone), else why not."""
    try:
        with history.ledger_for(cfg) as ledger:
            with ledger.read() as conn:
                found = next((t for t in live(conn) if matches(t.text, text)), None)
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
