"""From a person's words to ranked exchanges (design: docs/search.md, "Ranking").

Design notes: docs/design/search.md#tacitsearchquery
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass

from tacit.search.source import ASSISTANT, TOOL, USER

STOPWORDS = frozenset("""a about above after again all also am an and any are as at be been before being
below between both but by can could did do does doing done during each else ever few for from further get
got had has have having he her here hers him his how i if in into is it its itself just last let like made
make me more most my myself no nor not now of off on once only or other our ours out over own please same
she should so some such than that the their theirs them then there these they this those through to too
under until up us use used very was way we were what when where which while who whom why will with would
yesterday you your yours week ago again earlier remember""".split())
SYNONYMS = {
    "db": ("database",), "database": ("db",), "repo": ("repository",), "repository": ("repo",),
    "config": ("configuration",), "configuration": ("config",), "auth": ("authentication",),
    "authentication": ("auth",), "env": ("environment",), "environment": ("env",), "deps": ("dependencies",),
    "dependencies": ("deps",), "dir": ("directory", "folder"), "directory": ("dir", "folder"),
    "folder": ("directory", "dir"), "pkg": ("package",), "msg": ("message",), "err": ("error",),
    "k8s": ("kubernetes",), "kubernetes": ("k8s",), "js": ("javascript",), "ts": ("typescript",),
    "py": ("python",), "docs": ("documentation",), "tests": ("test",), "perf": ("performance",),
    "performance": ("perf",), "fn": ("function",), "func": ("function",), "impl": ("implementation",),
}
RECENCY = 0.1  # weight of recency next to relevance
HALF_LIFE_DAYS = 30.0
CANDIDATES = 400  # message hits read before grouping into exchanges
PROBE = 1_000  # a word with at least this many matches is common
EXACT = 2_000  # matches ranked by bm25 at most (5–20 µs each)
NEWEST = 500  # matches scored when every word is common
EXCHANGE_CHARS = 4000
TOOL_LINES = 5
_WORD = re.compile(r"\w+", re.UNICODE)
_BOLD = re.compile(r"(?<![\w*])\*\*(?=[^\s*])(.+?)(?<=[^\s*])\*\*(?![\w*])")  # **text**, not 2**8
_SPLIT_MIN = 3
_SPLIT_MAX = 40  # longer "words" (a pasted hash, a 100 kB argument) are never split: a probe per cut


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]{2,}")  # written without spaces
_CJK_LETTER = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def cjk_pairs(text: str) -> str:
    """Each run of CJK letters in ``text`` as its overlapping pairs ("日本語" → "日本 本語"): the
    tokenizer reads a whole run as one word, so a word inside it is found as a phrase of pairs."""
    return " ".join(run[i:i + 2] for run in _CJK.findall(text) for i in range(len(run) - 1))


def cjk_terms(text: str) -> str:
    """What a chunk's CJK runs add to the index: their pairs and each run's last letter, so a
    one-letter query (a prefix) finds a letter anywhere in a run, the last one too."""
    return " ".join(p for run in _CJK.findall(text) for p in (cjk_pairs(run), run[-1]))


def words(query: str) -> list:
    found = [w for w in _WORD.findall(query.lower()) if w != "_"]
    kept = [w for w in found if w not in STOPWORDS]
    return list(dict.fromkeys(kept or found))[:32]


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def alternatives(index, query: str) -> list:
    """Per word, the FTS5 terms or phrases that count as it (pairs joined: "time out")."""
    groups = []
    for w in words(query):
        alts = [_quote(w)] + [_quote(s) for s in SYNONYMS.get(w, ())]
        pairs = cjk_pairs(w)
        if pairs and pairs != w:
            alts.append(_quote(pairs))
        elif _CJK_LETTER.fullmatch(w):
            alts.append(_quote(w) + " *")  # the pairs and runs that start with it, a run's last letter
        if 2 * _SPLIT_MIN <= len(w) <= _SPLIT_MAX and not w.isdigit():
            for i in range(_SPLIT_MIN, len(w) - _SPLIT_MIN + 1):
                if index.has_term(w[:i]) and index.has_term(w[i:]):
                    alts.append(_quote(f"{w[:i]} {w[i:]}"))
        groups.append(alts)
    every = [w for w in _WORD.findall(query.lower()) if w != "_"][:32]
    for first, second in zip(every, every[1:]):
        if index.has_term(first + second):
            groups.append([_quote(first + second)])
    return groups


def _expression(groups: list, tags: list) -> str:
    """Any of ``groups`` in the text, and every tag (a tuple of tags: any one of them)."""
    expr = "text : (" + " OR ".join(a for alts in groups for a in alts) + ")"
    for tag in tags:
        expr += " AND (" + " OR ".join(f"tags : {_quote(t)}" for t in (tag if isinstance(tag, tuple) else (tag,))) + ")"
    return expr


def candidates(index, query: str, tags: list, since: float | None) -> list:
    """Chunk hits for ``query`` in scope: (bm25, id, sess, turn, role, ts); bounded by counts: all
    ranked (≤ ``EXACT``), else the rare words' alone, else the newest scored (``_newest``)."""
    if not words(query):
        return []
    groups = alternatives(index, query)
    counts = [index.count(_expression([alts], tags), PROBE) for alts in groups]
    if max(counts) < PROBE and sum(counts) <= EXACT:
        return index.hits(_expression(groups, tags), since, CANDIDATES)
    rare, taken = [], 0
    for n, alts in sorted((n, alts) for n, alts in zip(counts, groups) if 0 < n < PROBE):
        if taken + n > EXACT:
            break
        rare.append(alts)
        taken += n
    if rare:
        return index.hits(_expression(rare, tags), since, CANDIDATES)
    return _newest(index, groups, tags, since)


def _newest(index, groups: list, tags: list, since: float | None) -> list:
    """The newest ``NEWEST`` matches, scored by the words each holds (rare ones weigh more), as
    ``hits`` rows (the score negative)."""
    ids = index.newest_ids(_expression(groups, tags), NEWEST)
    if not ids:
        return []
    score = dict.fromkeys(ids, 0.0)
    for alts in groups:
        held = index.ids_from(_expression([alts], tags), ids[-1]) & score.keys()
        weight = math.log((len(ids) + 1) / (len(held) + 0.5))
        for mid in held:
            score[mid] -= weight
    return [(score[mid], mid, sess, turn, role, ts) for mid, sess, turn, role, ts in index.messages(ids, since)]


@dataclass
class Hit:
    sess: int
    turn: int
    score: float
    role: str
    ts: float


def rank(rows) -> list:
    """Hits grouped by exchange, best first: rows are (rank, id, sess, turn, role, ts)."""
    now = time.time()
    turns: dict = {}
    for bm25, _mid, sess, turn, role, ts in rows:
        scores = turns.setdefault((sess, turn), [[], role, ts])
        scores[0].append(-bm25)
        scores[2] = max(scores[2], ts)
    hits = []
    for (sess, turn), (scores, role, ts) in turns.items():
        scores.sort(reverse=True)
        relevance = scores[0] + 0.5 * sum(scores[1:4])
        age_days = max(0.0, now - ts) / 86400.0
        score = relevance * (1.0 + RECENCY * math.exp(-age_days * math.log(2) / HALF_LIFE_DAYS))
        hits.append(Hit(sess, turn, score, role, ts))
    hits.sort(key=lambda h: (-h.score, -h.ts))
    return hits


def exchange_text(parts: list) -> str:
    """"User: …" and "Agent: …" (with up to ``TOOL_LINES`` tool excerpts), bounded."""
    user = [t for r, t in parts if r == USER]
    agent = [t for r, t in parts if r == ASSISTANT]
    tools = [t for r, t in parts if r == TOOL][:TOOL_LINES]
    out = []
    if user:
        out.append("User: " + "\n".join(user).strip())
    if tools:
        out.append("\n".join("· " + t for t in tools))
    if agent:
        out.append("Agent: " + "\n".join(agent).strip())
    text = "\n\n".join(out)
    if len(text) > EXCHANGE_CHARS:
        head = EXCHANGE_CHARS // 3
        text = text[:head] + "\n[…]\n" + text[-(EXCHANGE_CHARS - head):]
    return text


def snippet(text: str, query: str, width: int = 240, mark=("**", "**")) -> str:
    """A window of ``text`` around its first matching word, matches marked. Marked with ``**``, the
    text's own ``**bold**`` is unbolded first: "****Export** **CSV****" read as neither."""
    terms = words(query)
    terms += [s for w in terms for s in SYNONYMS.get(w, ())]

    def matches(word: str) -> bool:
        low = word.lower()
        return any(low == t or (len(t) > 3 and low.startswith(t[:5] if len(t) > 5 else t)) for t in terms)

    flat = " ".join(text.split())
    if "**" in mark:
        flat = _BOLD.sub(r"\1", flat)
    first = next((m.start() for m in _WORD.finditer(flat) if matches(m.group())), 0)
    start = max(0, first - width // 3)
    if start:
        space = flat.find(" ", start, first)
        start = space + 1 if space >= 0 else start
    window = flat[start:start + width]
    window = _WORD.sub(lambda m: f"{mark[0]}{m.group()}{mark[1]}" if matches(m.group()) else m.group(), window)
    return ("…" if start else "") + window + ("…" if start + width < len(flat) else "")
