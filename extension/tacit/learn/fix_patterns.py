"""Fix patterns ("the bug was X, the fix is Y") — the model: terms, similarity, outcomes,
retirement, text. No SQL.

Design notes: docs/design/learn.md#tacitlearnfix_patterns"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field

from tacit.lazyre import lazy
from tacit.detect.fix_tokens import iter_tokens
from tacit.stores.fix_patterns import Candidate

EVIDENCE_PER_TERM = 0.3  # a shared term found in only one pattern
CANDIDATES = 32  # BM25 candidates re-scored per lookup
MAX_QUERY_TERMS = 64  # distinct query terms considered (pasted logs are long)
POSTINGS_BUDGET = 500  # postings candidate generation may touch (docs/fix-patterns.md)
RETIRE_MIN_USES = 10
RETIRE_BELOW = 0.30
TOKEN_CHARS = "._/-~:@+#"  # must match the FTS5 tokenchars in stores/ledger.py
MAX_TITLE = 100
OUTCOME_CHARS = 2000


# Terms
def stem(token: str) -> str:
    """A light English suffix stripper for plain words ("loaded", "loads",
    "loading" → "load"); identifiers, paths, numbers and CJK pass untouched.
    Queries and patterns go through it alike, so it only has to be consistent."""
    if len(token) < 5 or not token.isascii() or not token.isalpha():
        return token
    for suffix in ("ing", "ed", "es", "s"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            token = token[: -len(suffix)]
            break
    if len(token) > 3 and token[-1] == token[-2] and token[-1] not in "ls":
        token = token[:-1]  # running -> runn -> run
    if len(token) > 3 and token.endswith("e"):
        token = token[:-1]  # cause / caused / causes -> caus
    return token


# a run of letters, digits (``[^\W_]`` is ``str.isalnum``) and token characters
_FTS_PART = lazy(r"(?:[^\W_]|[" + re.escape(TOKEN_CHARS) + r"])+")


def fts_parts(token: str) -> list[str]:
    """Split a token where FTS5's unicode61 (with our tokenchars) would."""
    return _FTS_PART.findall(token)


def index_terms(text) -> list[str]:
    """Terms for the index and for queries (order and repeats kept)."""
    if not isinstance(text, str):
        return []
    return [stem(part) for token in iter_tokens(text) for part in fts_parts(token)]


def query_terms(text) -> list[str]:
    """Distinct terms of a message, the first ``MAX_QUERY_TERMS`` (tokenising
    stops once there are enough, so a pasted log costs no more than its head)."""
    if not isinstance(text, str):
        return []
    return list(_query_terms(text))


@functools.lru_cache(maxsize=64)  # a pure function of the text: the hooks of one turn share it
def _query_terms(text: str) -> tuple[str, ...]:
    distinct: dict = {}  # insertion-ordered set
    for token in iter_tokens(text):
        for part in fts_parts(token):
            distinct[stem(part)] = None
            if len(distinct) >= MAX_QUERY_TERMS:
                return tuple(distinct)
    return tuple(distinct)


def choose_terms(terms: list[str], doc_freq: dict, budget: int = POSTINGS_BUDGET) -> list[str]:
    """The query's known terms, rarest first, within the postings budget (always at least one)."""
    chosen, postings = [], 0
    for term in sorted((t for t in terms if t in doc_freq), key=lambda t: doc_freq[t]):
        if chosen and postings + doc_freq[term] > budget:
            break
        chosen.append(term)
        postings += doc_freq[term]
    return chosen


# Similarity and ranking
def idf(doc_freq: int, n_docs: int) -> float:
    """BM25's IDF, kept positive (Lucene's form): FTS5 clamps IDF to ~0 for
    terms in more than half the documents, which makes raw bm25() values
    meaningless in the small stores most people have."""
    return math.log(1.0 + (n_docs - doc_freq + 0.5) / (doc_freq + 0.5))


def similarity(shared_terms, doc_freq: dict, n_docs: int) -> float:
    """``1 − Π(1 − 0.3 · rarity(t))`` over distinct shared terms, where
    ``rarity = idf(df) / idf(1)`` is 1 for a term in one pattern and falls
    towards 0 for a term in every pattern."""
    n_docs = max(1, n_docs)
    top = idf(1, n_docs)
    remaining = 1.0
    for term in set(shared_terms):
        df = max(1, min(n_docs, doc_freq.get(term, 1)))
        remaining *= 1.0 - EVIDENCE_PER_TERM * (idf(df, n_docs) / top)
    return 1.0 - remaining


@dataclass(frozen=True, slots=True)
class Match:
    id: int
    title: str
    problem: str
    solution: str
    similarity: float
    bm25: float
    successes: int
    failures: int
    shared: frozenset = field(default_factory=frozenset)

    @property
    def uses(self) -> int:
        return self.successes + self.failures

    def as_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "problem": self.problem, "solution": self.solution,
                "similarity": round(self.similarity, 3), "bm25": self.bm25, "successes": self.successes,
                "failures": self.failures, "shared": sorted(self.shared)}


def rank(candidates: list[Candidate], terms: list[str], doc_freq: dict, n_docs: int, *,
         threshold: float, limit: int) -> list[Match]:
    """Re-score candidates by ``similarity``; those at or above ``threshold``,
    best first, at most ``limit``."""
    wanted = set(terms)
    matches = []
    for c in candidates:
        shared = wanted.intersection(c.tokens.split())
        if not shared:
            continue
        sim = similarity(shared, doc_freq, n_docs)
        if sim >= threshold:
            matches.append(Match(c.id, c.title, c.problem, c.solution, sim, c.bm25, c.successes, c.failures,
                                 frozenset(shared)))
    matches.sort(key=lambda m: (-m.similarity, m.bm25 or 0.0, m.id))
    return matches[:limit]


def doc_freqs_of(candidates: list[Candidate], terms: list[str]) -> dict:
    """Document frequencies counted over candidates (no FTS5: every active pattern)."""
    wanted = set(terms)
    return dict(Counter(term for c in candidates for term in set(c.tokens.split()) & wanted))


def jaccard(a, b) -> float:
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a or b else 0.0


def near_duplicate(fix, match: Match) -> bool:
    """Nearly the same problem and solution as a stored pattern."""
    return (jaccard(index_terms(fix.problem), index_terms(match.problem)) >= 0.75
            and jaccard(index_terms(fix.solution), index_terms(match.solution)) >= 0.5)


# Stored text
_NO_TITLE = lazy(r"^(?:[@\[{\"<`$>#]|[\w.-]+@[\w.-]+[:~])")  # a file reference, pasted data, a shell prompt


def title_from(user_text, fallback) -> str:
    """A short title from the user's message: its first non-empty line, at most 100 characters, cut
    at a word; the problem (``fallback``) when that line names nothing ("yes, proceed", "error:",
    "@uv (807-821)", "root@box:/srv# python3 …")."""
    lines = (" ".join(raw.split()) for raw in (user_text if isinstance(user_text, str) else "").splitlines())
    line = next(filter(None, lines), "")
    if _NO_TITLE.match(line) or (len(line.split()) < 3 and not _CJK.search(line)):
        line = ""
    line = line or " ".join(str(fallback or "").split())
    if len(line) > MAX_TITLE:
        cut = line[:MAX_TITLE].rsplit(" ", 1)[0]
        line = (cut if len(cut) > 40 else line[:MAX_TITLE]) + "…"
    return line


_TAG_RE = lazy(r"\b[A-Z][A-Za-z]+(?:Error|Exception|Warning)\b|\bE[A-Z]{4,}\b"
                     r"|\b[45]\d\d\b|[\w.-]+\.(?:py|js|ts|tsx|jsx|json|ya?ml|toml|cfg|ini|go|rs"
                     r"|java|rb|sh|md|txt|lock|sql|env)\b")


def tags_for(problem: str, solution: str, cwd: str | None = None) -> list[str]:
    """Error names, HTTP statuses, file names and packages mentioned, plus
    the project (working folder) — for listing and filtering, not ranking."""
    found = _TAG_RE.finditer(f"{problem} {solution}"[:4000])
    tags = list(dict.fromkeys(match.group(0).lower() for match in found))[:6]
    if cwd:
        project = os.path.basename(os.path.normpath(str(cwd)))
        if project:
            tags.append(f"project:{project[:60]}")
    return tags


# What is worth storing: the detector finds fix statements; a stored pattern must also say something
# when it is injected later (docs/fix-patterns.md, "Forge").
_CHANGE_VERB = (r"(?:updated|added|removed|changed|created|implemented|pushed|simplified|enhanced|extended|moved"
                r"|marked|made|renamed|converted|downloaded|reverted|replaced|refactored|fixed|deleted|installed)")
_NOT_A_PROBLEM = lazy(
    r"^(?:\d+[.)]\s*)?" + _CHANGE_VERB + r"\b"  # a change made ("5. Updated summary text"), not what was wrong
    r"|^(?:let\s+me|let'?s|let\s+us|now\s+(?:let\s+me|i'?ll|update|add)|i'?ll|i\s+will|i\s+need\s+to"
    r"|i\s+have\s+no\s+questions)\b"  # a plan
    r"|^\d+[.)]\s"  # a list item cut out of its list
    r"|^(?:handles|runs|explains|shows|notes|provides|supports|extracts|auto-\w+)\b"  # what some code does
    r"|^(?:checking|verifying|reading|searching|looking\s+for|running)\b"  # a progress line
    r"|^(?:updating|fixing|adding|removing|making|implementing|creating)\b"  # ... saying no cause:
    r"(?!.*\b(?:because|caus\w*|due\s+to|since|missing|wrong|broke\w*|instead)\b)"
    r"|^if\b|^i'?m\s+(?:\w+ing|about|confident)\b"  # a condition; "I'm adding tests now"
    r"|^(?:[✅❌🆕|]|here'?s\s+what)"  # a status line, a table cell, a heading
    r"|\bsummary\s+of\s+(?:changes|what\s+was\s+done)\b"  # a heading glued to the sentence
    r"|\b(?:is\s+likely|probably|suggests|might\s+be|could\s+be)\b",  # a guess, not a cause found
    re.IGNORECASE)
_NOT_A_FIX = lazy(
    r"^(?:first,?\s+)?(?:let\s+me|let'?s|let\s+us|now\s+let\s+me|i'?ll|i\s+will|i\s+need\s+to|we\s+need\s+to)\b"
    r"|^(?:here\s+are|try\s+again|fixed\s+(?:it|the\s+issue))\b"  # says a fix exists, not which
    r"|\b(?:to|by|by\s+running|with|the|following|these|below|above|steps|in\s+order|as\s+follows)\s*[:.]?$",  # announced, or cut before the what
    re.IGNORECASE)
MIN_WORDS = 4  # "Issues", "text color", "Found it": a problem or a fix this short says nothing


_CJK = lazy(r"[\u3040-\u9fff\uac00-\ud7af]")
_CODE_OR_CJK = lazy(r"[=_./()\-:]|\d|[A-Z]{2,}|[\u3040-\u9fff]")


def _says_little(text: str, words: int) -> bool:
    """Fewer than ``words`` words and no identifier, value or CJK text ("set CRON_TZ=UTC" says enough)."""
    return len(text.split()) < words and not _CODE_OR_CJK.search(text)


def unfit(problem: str, solution: str) -> str | None:
    """Why a detected fix statement is not worth storing, or None: a half too short to say anything,
    the same sentence on both sides, a problem that is a change, a plan, a progress line or a guess,
    a fix that is only announced ("Let me fix this") or cut before it says what was done."""
    problem, solution = (" ".join(str(text or "").replace("\u2019", "'").split()) for text in (problem, solution))
    if _says_little(problem, MIN_WORDS) or _says_little(solution, MIN_WORDS - 1):
        return "a half too short to say anything"
    if index_terms(problem) == index_terms(solution):
        return "the problem and the fix are the same sentence"
    if _NOT_A_PROBLEM.search(problem):
        return "the problem is not what was wrong (a change, a plan, a progress line or a guess)"
    if _NOT_A_FIX.search(solution):
        return "the fix is only announced, or cut before it says what was done"
    return None


def pattern_key(problem: str, solution: str) -> str:
    basis = " ".join(sorted(set(index_terms(problem)))) + "|" + " ".join(sorted(set(index_terms(solution))))
    return hashlib.sha1(basis.encode("utf-8", "replace")).hexdigest()[:16]


def stored_terms(title: str, lookup: str) -> list[str]:
    return index_terms(f"{title} {lookup}")


def _clean(text) -> str:
    text = " ".join(str(text or "").split())
    return text.replace("<learned-patterns>", "").replace("</learned-patterns>", "")


def render_block(matches: list[Match]) -> str:
    """The ``<learned-patterns>`` block injected next to the user's message."""
    lines = ["<learned-patterns>",
             "Fixes that worked before for problems like this one (recorded by tacit from "
             "earlier sessions). Check that one applies before using it."]
    for n, m in enumerate(matches, 1):
        record = f"worked {m.successes} of {m.uses} times" if m.uses else "not yet confirmed"
        lines.append(f"{n}. {_clean(m.title)} ({record}, similarity {m.similarity:.2f})")
        lines.append(f"   Problem: {_clean(m.problem)}")
        lines.append(f"   Fix: {_clean(m.solution)}")
    lines.append("</learned-patterns>")
    return "\n".join(lines)


# Outcomes
_SUCCESS = lazy(
    r"\b(?:thanks?|thank\s+you|thx|ty|cheers|kudos)\b"
    r"|\b(?:that|it|this|which)(?:'s|\s+is|\s+has)?\s+(?:worked|works|did\s+it|did\s+the\s+trick|fixed\s+it"
    r"|solved\s+it|helped|sorted\s+it)\b"
    r"|\bworks?\s+(?:now|again|perfectly|great|fine)\b|\bworking\s+(?:now|again)\b"
    r"|^\s*(?:perfect|great|awesome|excellent|nice|brilliant|sweet|yay)\b"
    r"|^\s*(?:fixed|solved|resolved|sorted)\b|\b(?:problem|issue|bug)\s+(?:is\s+)?(?:gone|solved|fixed)\b"
    r"|\ball\s+(?:good|green|set)\b|\b(?:tests?|build|ci|pipeline)\s+(?:is\s+|are\s+)?(?:pass(?:es|ing)?|green)\b"
    r"|好了|可以了|成功了|解决了|谢谢|多谢|搞定|没问题了|能用了|正常了",
    re.IGNORECASE)
_FAILURE = lazy(
    r"\bstill\s+(?:not\b|fail|failing|fails|broken|crash|crashes|crashing|errors?|erroring|get|getting"
    r"|see|seeing|happen|happens|happening|the\s+same|doesn'?t|does\s+not|don'?t|can'?t|won'?t|hangs?"
    r"|times?\s+out|returns?|throws?)"
    r"|\b(?:same|another|new)\s+(?:error|exception|problem|issue|failure|traceback)\b"
    r"|\b(?:doesn'?t|does\s+not|didn'?t|did\s+not|isn'?t|is\s+not|wasn'?t|not)\s+(?:work|working|help|helping"
    r"|fix|fixed|change|changed|solve|solved)\b"
    r"|\bno\s+luck\b|\bno\s+(?:change|difference)\b|^\s*nope\b|\bmade\s+(?:it|things)\s+worse\b"
    r"|还是不行|还是报错|还是一样|没用|不行|依然|仍然|没有解决|没解决",
    re.IGNORECASE)


def classify_outcome(text, is_correction: bool = False) -> str | None:
    """What the user's message after an injection says about it: ``"failure"`` ("still failing", or
    a correction — the message analysis' verdict), ``"success"`` (thanks, it works) or None (not
    counted). Failure wins over success ("thanks, but it still fails")."""
    if not isinstance(text, str) or not text.strip():
        return None
    head = text.strip()[:OUTCOME_CHARS]
    if _FAILURE.search(head) or is_correction:
        return "failure"
    if _SUCCESS.search(head):
        return "success"
    return None


def retire_reason(successes: int, failures: int) -> str | None:
    """Why a pattern should stop being injected, or None."""
    uses = successes + failures
    if uses >= RETIRE_MIN_USES and successes / uses < RETIRE_BELOW:
        return f"success rate {successes}/{uses} ({successes / uses:.0%}) below {RETIRE_BELOW:.0%}"
    return None


# Stats
def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summarise(injected: list[float], forged: list[float], lookup: list[float], store: tuple,
              since: float | None) -> dict:
    """``tacit stats``: per-turn metrics and the pattern store at a glance."""
    turns = len(injected)
    total, active, retired, times_injected, successes, failures = store
    decided = successes + failures
    return {
        "success": True,
        "since": since or None,
        "turns": turns,
        "patterns.injected": {"total": int(sum(injected)), "turns_with_injection": sum(1 for v in injected if v),
                              "per_turn": round(sum(injected) / turns, 3) if turns else 0.0},
        "patterns.forged": {"total": int(sum(forged)), "turns": len(forged),
                            "per_turn": round(sum(forged) / len(forged), 3) if forged else 0.0},
        "patterns.lookup_ms": {
            "lookups": len(lookup),
            "median": round(percentile(lookup, 0.5), 3) if lookup else None,
            "p95": round(percentile(lookup, 0.95), 3) if lookup else None,
            "max": round(max(lookup), 3) if lookup else None,
            "mean": round(sum(lookup) / len(lookup), 3) if lookup else None},
        "patterns": {"total": total, "active": active, "retired": retired, "times_injected": times_injected,
                     "successes": successes, "failures": failures,
                     "success_rate": round(successes / decided, 3) if decided else None},
    }


def render_stats(data: dict) -> str:
    inj, forged, lookup, store = (data["patterns.injected"], data["patterns.forged"],
                                  data["patterns.lookup_ms"], data["patterns"])
    rate = "n/a" if store["success_rate"] is None else f"{store['success_rate']:.0%}"
    lines = [f"Turns recorded: {data['turns']}",
             f"patterns.injected: {inj['total']} in {inj['turns_with_injection']} turn(s) "
             f"({inj['per_turn']} per turn)",
             f"patterns.forged: {forged['total']} ({forged['per_turn']} per turn)"]
    if lookup["lookups"]:
        lines.append(f"patterns.lookup_ms: median {lookup['median']}, p95 {lookup['p95']}, "
                     f"max {lookup['max']} over {lookup['lookups']} lookup(s)")
    else:
        lines.append("patterns.lookup_ms: no lookups yet (nothing stored to look up)")
    lines.append(f"Fix patterns: {store['active']} active, {store['retired']} retired; "
                 f"injected {store['times_injected']}×, outcomes {store['successes']} success / "
                 f"{store['failures']} failure (rate {rate})")
    return "\n".join(lines)
