"""Fix patterns: forge them from the agent's replies, inject them when the
problem comes back, learn from what the user says next.

``register(engine)`` subscribes three handlers:

* ``fixes.inject`` — FOREGROUND on the user's ``message_end``: finds stored
  patterns relevant to the message and returns
  ``InjectContext("<learned-patterns>…</learned-patterns>", scope="prompt")``.
* ``fixes.outcome`` — background on the user's ``message_end``: the message
  after an injection decides it (thanks / it works = success; a correction or
  "still failing" = failure), and the turn's metrics are recorded.
* ``fixes.forge`` — background on ``turn_end``: ``detect_fix`` on the
  assistant's final reply; a hit is scanned and stored.

Design decisions
- **Nothing to inject costs one ``stat``.** The injection runs in every
  ``UserPromptSubmit`` hook process, whose budget is about one interpreter
  start-up. A marker file (``<state>/fix_patterns.active``, holding the
  count) exists exactly while the ledger holds an active pattern; without it
  the handler returns before importing ``sqlite3`` or a detector. Forge,
  retire and delete keep it in step; a lookup that finds the index empty
  removes a stale one.
- **A lookup costs little more than SQLite's own import.** When patterns
  exist, the hook tokenises with ``tacit.detect.fix_tokens`` (no ``re``, not
  the detector), reads through the ledger's lean reader (``_sqlite3``
  without the ``sqlite3`` package, no pragmas, no migration check, no
  ``threading``) and takes IDF values from SQLite's ``ln()`` rather than
  importing ``math``; results are bit for bit those of the full path
  (tests/unit/test_fix_lookup_fast.py). What cannot be read that way (no
  file, an older schema, corruption) goes through a full ``Ledger`` open.
- **Lexical relevance, with SQLite's own FTS5.** The indexed terms are
  ``tokenize_code_aware(lookup_text(fix) + title)`` (identifiers split and
  kept whole, paths and versions whole), lightly stemmed, joined by spaces,
  in an FTS5 column whose ``tokenchars`` stop it from splitting them again;
  queries are tokenised the same way. Candidates come from ``bm25()``; to keep
  a lookup over 10,000 patterns within a few milliseconds, candidate
  generation uses the query's rarest terms up to a postings budget (terms in
  thousands of patterns say little and cost a full scan).
- **What "similarity ≥ 0.6" means.** Raw term overlap between a paraphrased
  problem and a stored one is low whatever the normalisation (measured: the
  median for a correct match is 0.35–0.5 for cosine, Dice, coverage and
  self-match-normalised BM25), so 0.6 on any of them would inject almost
  nothing. tacit treats every shared term as independent evidence, weighted
  by how rare it is among the stored patterns (its BM25 IDF divided by the
  IDF of a term found in one pattern): ``similarity = 1 − Π(1 − 0.3·rarity)``
  over the distinct shared terms. 0.6 then reads as "about three distinctive
  terms in common" (1 − 0.7³ = 0.66); common words add little. On the
  labelled set (tests/data/retrieval.jsonl) it is the measure whose best
  threshold sits at the configured 0.6. See docs/fix-patterns.md.
- **A success rate needs evidence.** Outcomes count only when the next
  message says something (neutral follow-ups are not failures), and the
  ``min_success_rate`` filter applies from ``RATE_MIN_USES`` decided
  outcomes on. A pattern below 30% over 10+ outcomes is *retired*: removed
  from the index, kept in the table for ``tacit patterns list --all``.
  ``decay_after_days`` counts from the last success or re-forge, so a fix
  that keeps working never ages out.
- **Foreground writes nothing to SQLite.** The injection remembers what it
  injected (and how long the lookup took) in the session state
  (``marks["fixes.turns"]``, keyed by the message's time); the background
  handler for the same message reads it from there. Ledger rows keyed by
  (pattern, session, message time) make journal replays harmless.
- **Never store a secret.** Title, problem and solution are scanned
  (``tacit.scan``) before storing; a finding drops the pattern.
"""

from __future__ import annotations

import os
import time

PLUGIN_NAME = "tacit.learn.fixes"
MARKER_NAME = "fix_patterns.active"
MARK_TURNS = "fixes.turns"  # session marks: [{at, injected, lookup_ms, outcome_for}]
MARK_INJECTED = "fixes.injected"  # session marks: the previous message's injection
KEEP_TURNS = 12  # turn entries kept in the session state (drain lag is a turn or two)

EVIDENCE_PER_TERM = 0.3  # a shared term found in only one pattern
CANDIDATES = 32  # BM25 candidates re-scored per lookup
MAX_QUERY_TERMS = 64  # distinct query terms considered (pasted logs are long)
POSTINGS_BUDGET = 500  # postings candidate generation may touch (measured: docs/fix-patterns.md)
RATE_MIN_USES = 3  # decided outcomes before min_success_rate can exclude a pattern
RETIRE_MIN_USES = 10
RETIRE_BELOW = 0.30
METRICS_RETENTION_DAYS = 180
TOKEN_CHARS = "._/-~:@+#"  # must match the FTS5 tokenchars in stores/ledger.py
DAY = 86400.0


# ---------------------------------------------------------------------------
# The marker: "is there anything to inject at all?"
# ---------------------------------------------------------------------------
def marker_path(cfg) -> str:
    return os.path.join(cfg.state_dir_str, MARKER_NAME)


def has_patterns(cfg) -> bool:
    """One ``stat``: True while the ledger holds at least one active pattern."""
    return os.path.exists(marker_path(cfg))


def write_marker(cfg, active: int) -> None:
    path = marker_path(cfg)
    try:
        if active > 0:
            os.makedirs(cfg.state_dir_str, exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(f"{active}\n")
            os.replace(tmp, path)
        elif os.path.exists(path):
            os.unlink(path)
    except OSError:
        pass


def count_active(conn) -> int:
    return conn.execute("SELECT count(*) FROM fix_patterns WHERE status = 'active'").fetchone()[0]


def _store_active_count(conn) -> int:
    from tacit.stores.ledger import Ledger

    active = count_active(conn)
    Ledger.meta_set(conn, "fix_patterns.active", active)
    return active


# ---------------------------------------------------------------------------
# Terms
# ---------------------------------------------------------------------------
def _stem(token: str) -> str:
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


def _fts_safe(token: str) -> list[str]:
    """Split a token where FTS5's unicode61 (with our tokenchars) would, so
    the terms we count are exactly the terms the index holds."""
    parts, current = [], []
    for char in token:
        if char.isalnum() or char in TOKEN_CHARS:
            current.append(char)
        elif current:
            parts.append("".join(current))
            current = []
    if current:
        parts.append("".join(current))
    return parts


def index_terms(text: str) -> list[str]:
    """Terms for the index and for queries (order and repeats kept)."""
    from tacit.detect.fix_tokens import iter_tokens

    out = []
    for token in iter_tokens(text or ""):
        for part in _fts_safe(token):
            out.append(_stem(part))
    return out


def query_terms(text: str) -> list[str]:
    """Distinct terms of a message, first ``MAX_QUERY_TERMS`` (the same as
    ``index_terms`` deduplicated and cut; tokenising stops once there are
    enough, so a pasted log costs no more than its head)."""
    from tacit.detect.fix_tokens import iter_tokens

    distinct: dict = {}  # insertion-ordered set
    for token in iter_tokens(text or ""):
        for part in _fts_safe(token):
            distinct[_stem(part)] = None
            if len(distinct) >= MAX_QUERY_TERMS:
                return list(distinct)
    return list(distinct)


# ---------------------------------------------------------------------------
# Similarity
# ---------------------------------------------------------------------------
def _idf_argument(doc_freq: int, n_docs: int) -> float:
    return 1.0 + (n_docs - doc_freq + 0.5) / (doc_freq + 0.5)


def idf(doc_freq: int, n_docs: int) -> float:
    """BM25's IDF, kept positive (Lucene's form): FTS5 clamps IDF to ~0 for
    terms in more than half the documents, which makes raw bm25() values
    meaningless in the small stores most people have."""
    import math

    return math.log(_idf_argument(doc_freq, n_docs))


def sqlite_idfs(conn, doc_freqs, n_docs: int) -> dict:
    """``{df: idf(df, n_docs)}`` computed by SQLite's ``ln()``, in one
    statement. ``ln()`` is the C library's ``log()``, which ``math.log``
    calls too, so the values are the same (a test checks it); a hook process
    is spared importing ``math`` (~0.3 ms). Empty when this SQLite was built
    without math functions: ``similarity`` then computes what it needs."""
    import sqlite3

    dfs = sorted(set(doc_freqs))
    out: dict = {}
    for start in range(0, len(dfs), 500):  # a result row holds at most 2,000 columns
        chunk = dfs[start:start + 500]
        try:
            row = conn.execute("SELECT " + ", ".join(["ln(?)"] * len(chunk)),
                               [_idf_argument(df, n_docs) for df in chunk]).fetchone()
        except sqlite3.OperationalError:  # "no such function: ln"
            return {}
        out.update(zip(chunk, row))
    return out


def similarity(shared_terms, doc_freq: dict, n_docs: int, *, idfs: dict | None = None) -> float:
    """``1 − Π(1 − 0.3 · rarity(t))`` over distinct shared terms, where
    ``rarity = idf(df) / idf(1)`` is 1 for a term in one pattern and falls
    towards 0 for a term in every pattern. ``idfs``: IDF values already
    computed for this ``n_docs`` (``sqlite_idfs``), by document frequency."""
    n_docs = max(1, n_docs)
    known = idfs or {}

    def idf_of(df: int) -> float:
        value = known.get(df)
        return idf(df, n_docs) if value is None else value

    top = idf_of(1)
    remaining = 1.0
    for term in set(shared_terms):
        df = max(1, min(n_docs, doc_freq.get(term, 1)))
        remaining *= 1.0 - EVIDENCE_PER_TERM * (idf_of(df) / top)
    return 1.0 - remaining


# ---------------------------------------------------------------------------
# Lookup
# ---------------------------------------------------------------------------
class Match:
    __slots__ = ("id", "title", "problem", "solution", "similarity", "bm25", "successes",
                 "failures", "shared")

    def __init__(self, **values):
        for name in self.__slots__:
            setattr(self, name, values.get(name))

    @property
    def uses(self) -> int:
        return (self.successes or 0) + (self.failures or 0)

    def as_dict(self) -> dict:
        out = {name: getattr(self, name) for name in self.__slots__}
        out["similarity"] = round(self.similarity, 3)
        out["shared"] = sorted(self.shared or ())
        return out


def _index_kind(conn) -> str:
    from tacit.stores.ledger import Ledger

    return Ledger.meta_get(conn, "fix_patterns.index", "fts5")


def find_patterns(conn, text: str, cfg, *, now: float | None = None, limit: int | None = None,
                  threshold: float | None = None, filters: bool = True) -> list[Match]:
    """Patterns relevant to ``text``, best first.

    ``filters`` applies the injection rules (fresh within
    ``decay_after_days``; success rate ≥ ``min_success_rate`` once rated);
    ``threshold`` defaults to ``cfg.similarity`` and ``limit`` to
    ``cfg.max_injected``. Read-only.
    """
    now = time.time() if now is None else now
    limit = cfg.max_injected if limit is None else limit
    threshold = cfg.similarity if threshold is None else threshold
    terms = query_terms(text)
    if not terms or limit <= 0:
        return []
    from tacit.stores.ledger import Ledger

    n_docs = int(Ledger.meta_get(conn, "fix_patterns.active", 0) or 0)
    if n_docs <= 0:
        return []
    where, params = "", []
    if filters:
        where = ("AND (p.successes + p.failures < ? OR "
                 "CAST(p.successes AS REAL) / (p.successes + p.failures) >= ?) ")
        params = [RATE_MIN_USES, float(cfg.min_success_rate)]
        if cfg.decay_after_days > 0:
            where += "AND p.fresh_at >= ? "
            params.append(now - cfg.decay_after_days * DAY)
    columns = "p.id, p.title, p.problem, p.solution, p.successes, p.failures"
    if _index_kind(conn) == "fts5":
        placeholders = ",".join("?" * len(terms))
        doc_freq = dict(conn.execute(
            f"SELECT term, doc FROM fix_patterns_vocab WHERE term IN ({placeholders})", terms))
        known = sorted((t for t in terms if t in doc_freq), key=lambda t: doc_freq[t])
        use, postings = [], 0
        for term in known:  # rarest first, within the postings budget
            if use and postings + doc_freq[term] > POSTINGS_BUDGET:
                break
            use.append(term)
            postings += doc_freq[term]
        if not use:
            return []
        expr = " OR ".join('"' + t.replace('"', '""') + '"' for t in use)
        rows = conn.execute(
            f"SELECT {columns}, fix_patterns_fts.tokens, bm25(fix_patterns_fts) AS score "
            f"FROM fix_patterns_fts JOIN fix_patterns p ON p.id = fix_patterns_fts.rowid "
            f"WHERE fix_patterns_fts MATCH ? AND p.status = 'active' {where}"
            f"ORDER BY score LIMIT ?", [expr, *params, CANDIDATES]).fetchall()
    else:  # no FTS5 in this SQLite: score every active pattern in Python
        rows = conn.execute(
            f"SELECT {columns}, f.tokens, 0.0 FROM fix_patterns_fts f JOIN fix_patterns p ON p.id = f.id "
            f"WHERE p.status = 'active' {where}", params).fetchall()
        doc_freq = {}
        wanted = set(terms)
        for row in rows:
            for term in set(row[6].split()) & wanted:
                doc_freq[term] = doc_freq.get(term, 0) + 1
    wanted = set(terms)
    # every document frequency a shared term (a query term) can have, clamped as similarity() clamps it
    idfs = sqlite_idfs(conn, [1, *(max(1, min(n_docs, doc_freq.get(t, 1))) for t in wanted)], n_docs) \
        if rows else {}
    matches = []
    for pid, title, problem, solution, successes, failures, tokens, score in rows:
        shared = wanted.intersection(tokens.split())
        if not shared:
            continue
        sim = similarity(shared, doc_freq, n_docs, idfs=idfs)
        if sim >= threshold:
            matches.append(Match(id=pid, title=title, problem=problem, solution=solution,
                                 similarity=sim, bm25=score, successes=successes,
                                 failures=failures, shared=shared))
    matches.sort(key=lambda m: (-m.similarity, m.bm25 or 0.0, m.id))
    return matches[:limit]


def render_block(matches: list[Match]) -> str:
    """The ``<learned-patterns>`` block injected next to the user's message."""
    lines = ["<learned-patterns>",
             "Fixes that worked before for problems like this one (recorded by tacit from "
             "earlier sessions). Check that one applies before using it."]
    for n, m in enumerate(matches, 1):
        if m.uses:
            record = f"worked {m.successes} of {m.uses} times"
        else:
            record = "not yet confirmed"
        lines.append(f"{n}. {_clean(m.title)} ({record}, similarity {m.similarity:.2f})")
        lines.append(f"   Problem: {_clean(m.problem)}")
        lines.append(f"   Fix: {_clean(m.solution)}")
    lines.append("</learned-patterns>")
    return "\n".join(lines)


def _clean(text: str) -> str:
    text = " ".join(str(text or "").split())
    return text.replace("<learned-patterns>", "").replace("</learned-patterns>", "")


# ---------------------------------------------------------------------------
# Storing
# ---------------------------------------------------------------------------
def title_from(user_text: str, fallback: str) -> str:
    """A short title from the user's message: its first non-empty line, at
    most 100 characters, cut at a word."""
    for line in (user_text or "").splitlines():
        line = " ".join(line.split())
        if line:
            break
    else:
        line = " ".join((fallback or "").split())
    if len(line) > 100:
        cut = line[:100].rsplit(" ", 1)[0]
        line = (cut if len(cut) > 40 else line[:100]) + "…"
    return line


def tags_for(problem: str, solution: str, cwd: str | None = None) -> list[str]:
    """Error names, HTTP statuses, file names and packages mentioned, plus
    the project (working folder) — for listing and filtering, not ranking."""
    import re

    tags: list[str] = []
    text = f"{problem} {solution}"
    for match in re.finditer(r"\b[A-Z][A-Za-z]+(?:Error|Exception|Warning)\b|\bE[A-Z]{4,}\b"
                             r"|\b[45]\d\d\b|[\w.-]+\.(?:py|js|ts|tsx|jsx|json|ya?ml|toml|cfg|ini|go|rs"
                             r"|java|rb|sh|md|txt|lock|sql|env)\b", text):
        tag = match.group(0).lower()
        if tag not in tags:
            tags.append(tag)
        if len(tags) >= 6:
            break
    if cwd:
        project = os.path.basename(os.path.normpath(str(cwd)))
        if project:
            tags.append(f"project:{project[:60]}")
    return tags


def _pattern_key(problem: str, solution: str) -> str:
    import hashlib

    basis = " ".join(sorted(set(index_terms(problem)))) + "|" + " ".join(sorted(set(index_terms(solution))))
    return hashlib.sha1(basis.encode("utf-8")).hexdigest()[:16]


def _jaccard(a, b) -> float:
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a or b else 0.0


def forge(ledger, cfg, fix, *, title: str, session_id: str | None = None, cwd: str | None = None,
          now: float | None = None) -> dict:
    """Store one fix statement. Returns ``{"action": "created"|"merged"|"refused", …}``.

    Refused when the scanner finds a secret or injection in it. A pattern
    whose problem and solution are (nearly) the same as a stored one is
    merged into it: ``times_forged`` +1 and fresh again (a retired one stays
    retired)."""
    import json

    from tacit.detect.fix import lookup_text
    from tacit.scan import first_finding

    now = time.time() if now is None else now
    title = title_from(title, fix.problem)
    for part in (title, fix.problem, fix.solution):
        finding = first_finding(part)
        if finding is not None:
            return {"action": "refused", "reason": f"scanner: {finding.reason} [{finding.pattern_id}]"}
    lookup = lookup_text(fix)
    terms = index_terms(f"{title} {lookup}")
    key = _pattern_key(fix.problem, fix.solution)
    problem_terms, solution_terms = set(index_terms(fix.problem)), set(index_terms(fix.solution))
    with ledger.write() as conn:
        row = conn.execute("SELECT id, status FROM fix_patterns WHERE key = ?", (key,)).fetchone()
        if row is None:
            row = _near_duplicate(conn, cfg, fix, problem_terms, solution_terms)
        if row is not None:
            pattern_id, status = row
            conn.execute("UPDATE fix_patterns SET times_forged = times_forged + 1, updated_at = ?, "
                         "fresh_at = CASE WHEN status = 'active' THEN ? ELSE fresh_at END "
                         "WHERE id = ?", (now, now, pattern_id))
            return {"action": "merged", "id": pattern_id, "status": status}
        cur = conn.execute(
            "INSERT INTO fix_patterns (key, title, problem, solution, lookup_text, lookup_tokens, tags, "
            "trigger, confidence, session_id, created_at, updated_at, fresh_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (key, title, fix.problem, fix.solution, lookup, " ".join(terms),
             json.dumps(tags_for(fix.problem, fix.solution, cwd), ensure_ascii=False),
             fix.pattern, float(fix.confidence), session_id, now, now, now))
        pattern_id = cur.lastrowid
        _index_insert(conn, pattern_id, terms)
        active = _store_active_count(conn)
    write_marker(cfg, active)
    return {"action": "created", "id": pattern_id, "title": title}


def _index_insert(conn, pattern_id: int, terms: list[str]) -> None:
    column = "rowid" if _index_kind(conn) == "fts5" else "id"
    conn.execute(f"INSERT INTO fix_patterns_fts ({column}, tokens) VALUES (?, ?)",
                 (pattern_id, " ".join(terms)))


def _index_delete(conn, pattern_id: int) -> None:
    column = "rowid" if _index_kind(conn) == "fts5" else "id"
    conn.execute(f"DELETE FROM fix_patterns_fts WHERE {column} = ?", (pattern_id,))


def _near_duplicate(conn, cfg, fix, problem_terms, solution_terms):
    """An existing pattern with nearly the same problem and solution."""
    for match in find_patterns(conn, fix.problem, cfg, limit=5, threshold=0.0, filters=False):
        if (_jaccard(problem_terms, index_terms(match.problem)) >= 0.75
                and _jaccard(solution_terms, index_terms(match.solution)) >= 0.5):
            return match.id, "active"
    return None


def retire(conn, pattern_id: int, reason: str, now: float) -> bool:
    """Inside a write transaction: stop injecting a pattern (kept for the record)."""
    cur = conn.execute("UPDATE fix_patterns SET status = 'retired', retired_at = ?, retired_reason = ?, "
                       "updated_at = ? WHERE id = ? AND status = 'active'", (now, reason, now, pattern_id))
    if cur.rowcount != 1:
        return False
    _index_delete(conn, pattern_id)
    _store_active_count(conn)
    return True


# ---------------------------------------------------------------------------
# Outcomes
# ---------------------------------------------------------------------------
_SUCCESS = None
_FAILURE = None


def _outcome_patterns():
    global _SUCCESS, _FAILURE
    if _SUCCESS is None:
        import re

        _SUCCESS = re.compile(
            r"\b(?:thanks?|thank\s+you|thx|ty|cheers|kudos)\b"
            r"|\b(?:that|it|this|which)(?:'s|\s+is|\s+has)?\s+(?:worked|works|did\s+it|did\s+the\s+trick|fixed\s+it"
            r"|solved\s+it|helped|sorted\s+it)\b"
            r"|\bworks?\s+(?:now|again|perfectly|great|fine)\b|\bworking\s+(?:now|again)\b"
            r"|^\s*(?:perfect|great|awesome|excellent|nice|brilliant|sweet|yay)\b"
            r"|^\s*(?:fixed|solved|resolved|sorted)\b|\b(?:problem|issue|bug)\s+(?:is\s+)?(?:gone|solved|fixed)\b"
            r"|\ball\s+(?:good|green|set)\b|\b(?:tests?|build|ci|pipeline)\s+(?:is\s+|are\s+)?(?:pass(?:es|ing)?|green)\b"
            r"|好了|可以了|成功了|解决了|谢谢|多谢|搞定|没问题了|能用了|正常了",
            re.IGNORECASE)
        _FAILURE = re.compile(
            r"\bstill\s+(?:not\b|fail|failing|fails|broken|crash|crashes|crashing|errors?|erroring|get|getting"
            r"|see|seeing|happen|happens|happening|the\s+same|doesn'?t|does\s+not|don'?t|can'?t|won'?t|hangs?"
            r"|times?\s+out|returns?|throws?)"
            r"|\b(?:same|another|new)\s+(?:error|exception|problem|issue|failure|traceback)\b"
            r"|\b(?:doesn'?t|does\s+not|didn'?t|did\s+not|isn'?t|is\s+not|wasn'?t|not)\s+(?:work|working|help|helping"
            r"|fix|fixed|change|changed|solve|solved)\b"
            r"|\bno\s+luck\b|\bno\s+(?:change|difference)\b|^\s*nope\b|\bmade\s+(?:it|things)\s+worse\b"
            r"|还是不行|还是报错|还是一样|没用|不行|依然|仍然|没有解决|没解决",
            re.IGNORECASE)
    return _SUCCESS, _FAILURE


def classify_outcome(text: str, prev_assistant: str | None = None) -> str | None:
    """What the user's message after an injection says about it:
    ``"failure"`` (a correction, or "still failing"), ``"success"`` (thanks,
    it works) or None (neither: not counted). Failure wins over success
    ("thanks, but it still fails")."""
    if not isinstance(text, str) or not text.strip():
        return None
    success, failure = _outcome_patterns()
    head = text.strip()[:2000]
    if failure.search(head):
        return "failure"
    from tacit.detect.correction import detect_correction

    if detect_correction(head, prev_assistant).is_correction:
        return "failure"
    if success.search(head):
        return "success"
    return None


def apply_outcome(conn, pattern_ids, outcome: str, *, session_id: str, at: float, now: float) -> list[int]:
    """Inside a write transaction: count one outcome for each pattern (once
    per message, whatever replays it); retire those that fall below 30% over
    10+ outcomes. Returns the ids retired."""
    retired = []
    for pattern_id in dict.fromkeys(pattern_ids):
        cur = conn.execute("INSERT OR IGNORE INTO fix_pattern_events (pattern_id, session_id, at, kind) "
                           "SELECT id, ?, ?, ? FROM fix_patterns WHERE id = ?",
                           (session_id, at, outcome, pattern_id))
        if cur.rowcount != 1:
            continue
        if outcome == "success":
            conn.execute("UPDATE fix_patterns SET successes = successes + 1, fresh_at = max(fresh_at, ?), "
                         "updated_at = ? WHERE id = ?", (at, now, pattern_id))
        else:
            conn.execute("UPDATE fix_patterns SET failures = failures + 1, updated_at = ? WHERE id = ?",
                         (now, pattern_id))
        successes, failures = conn.execute("SELECT successes, failures FROM fix_patterns WHERE id = ?",
                                           (pattern_id,)).fetchone()
        uses = successes + failures
        if uses >= RETIRE_MIN_USES and successes / uses < RETIRE_BELOW:
            reason = f"success rate {successes}/{uses} ({successes / uses:.0%}) below {RETIRE_BELOW:.0%}"
            if retire(conn, pattern_id, reason, now):
                retired.append(pattern_id)
    return retired


def record_injections(conn, pattern_ids, *, session_id: str, at: float) -> None:
    for pattern_id in dict.fromkeys(pattern_ids):
        cur = conn.execute("INSERT OR IGNORE INTO fix_pattern_events (pattern_id, session_id, at, kind) "
                           "SELECT id, ?, ?, 'injected' FROM fix_patterns WHERE id = ?",
                           (session_id, at, pattern_id))
        if cur.rowcount == 1:
            conn.execute("UPDATE fix_patterns SET times_injected = times_injected + 1, "
                         "last_injected_at = max(coalesce(last_injected_at, 0), ?) WHERE id = ?",
                         (at, pattern_id))


# ---------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------
def record_metric(conn, session_id: str, turn_at: float, name: str, value: float,
                  now: float | None = None) -> None:
    conn.execute("INSERT INTO turn_metrics (session_id, turn_at, name, value, recorded_at) "
                 "VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id, turn_at, name) "
                 "DO UPDATE SET value = excluded.value, recorded_at = excluded.recorded_at",
                 (session_id, turn_at, name, float(value), time.time() if now is None else now))


def turn_of(conn, session_id: str, at: float) -> float:
    """The start (user message time) of the session's turn that ``at`` falls in."""
    row = conn.execute("SELECT max(turn_at) FROM turn_metrics WHERE session_id = ? AND "
                       "name = 'patterns.injected' AND turn_at <= ?", (session_id, at)).fetchone()
    return row[0] if row and row[0] is not None else at


def prune_metrics(conn, cfg, now: float) -> None:
    """Daily task: drop per-turn metrics older than the retention window."""
    conn.execute("DELETE FROM turn_metrics WHERE turn_at < ?", (now - METRICS_RETENTION_DAYS * DAY,))


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def stats(ledger, *, since: float | None = None) -> dict:
    """``tacit stats``: per-turn metrics and the pattern store at a glance."""
    import statistics

    since = 0.0 if since is None else since
    with ledger.read() as conn:
        def values(name):
            return [r[0] for r in conn.execute(
                "SELECT value FROM turn_metrics WHERE name = ? AND turn_at >= ?", (name, since))]

        injected, forged, lookup = values("patterns.injected"), values("patterns.forged"), values(
            "patterns.lookup_ms")
        store = conn.execute(
            "SELECT count(*), coalesce(sum(status = 'active'), 0), coalesce(sum(status = 'retired'), 0), "
            "coalesce(sum(times_injected), 0), coalesce(sum(successes), 0), coalesce(sum(failures), 0) "
            "FROM fix_patterns").fetchone()
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
            "median": round(statistics.median(lookup), 3) if lookup else None,
            "p95": round(_percentile(lookup, 0.95), 3) if lookup else None,
            "max": round(max(lookup), 3) if lookup else None,
            "mean": round(statistics.fmean(lookup), 3) if lookup else None},
        "patterns": {"total": total, "active": active, "retired": retired,
                     "times_injected": times_injected, "successes": successes, "failures": failures,
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


# ---------------------------------------------------------------------------
# Listing and managing (tacit patterns …)
# ---------------------------------------------------------------------------
_FIELDS = ("id", "key", "title", "problem", "solution", "lookup_text", "tags", "trigger", "confidence",
           "status", "session_id", "times_forged", "times_injected", "successes", "failures",
           "created_at", "updated_at", "fresh_at", "last_injected_at", "retired_at", "retired_reason")


def _row_dict(row) -> dict:
    import json

    out = dict(zip(_FIELDS, row))
    out["tags"] = json.loads(out["tags"] or "[]")
    uses = out["successes"] + out["failures"]
    out["success_rate"] = round(out["successes"] / uses, 3) if uses else None
    return out


def list_patterns(ledger, *, include_retired: bool = False) -> list[dict]:
    where = "" if include_retired else "WHERE status = 'active'"
    with ledger.read() as conn:
        rows = conn.execute(f"SELECT {', '.join(_FIELDS)} FROM fix_patterns {where} "
                            f"ORDER BY status, fresh_at DESC, id DESC").fetchall()
    return [_row_dict(r) for r in rows]


def get_pattern(ledger, pattern_id: int) -> dict | None:
    with ledger.read() as conn:
        row = conn.execute(f"SELECT {', '.join(_FIELDS)} FROM fix_patterns WHERE id = ?",
                           (pattern_id,)).fetchone()
    return None if row is None else _row_dict(row)


def retire_pattern(ledger, cfg, pattern_id: int, reason: str = "retired by hand",
                   now: float | None = None) -> dict:
    now = time.time() if now is None else now
    with ledger.write() as conn:
        row = conn.execute("SELECT status FROM fix_patterns WHERE id = ?", (pattern_id,)).fetchone()
        if row is None:
            return {"success": False, "error": f"no fix pattern has id {pattern_id} (see tacit patterns list)"}
        if row[0] == "retired":
            return {"success": True, "id": pattern_id, "message": f"pattern {pattern_id} was already retired"}
        retire(conn, pattern_id, reason, now)
        active = count_active(conn)
    write_marker(cfg, active)
    return {"success": True, "id": pattern_id, "message": f"retired pattern {pattern_id}: no longer injected"}


def delete_pattern(ledger, cfg, pattern_id: int) -> dict:
    with ledger.write() as conn:
        row = conn.execute("SELECT status FROM fix_patterns WHERE id = ?", (pattern_id,)).fetchone()
        if row is None:
            return {"success": False, "error": f"no fix pattern has id {pattern_id} (see tacit patterns list)"}
        if row[0] == "active":
            _index_delete(conn, pattern_id)
        conn.execute("DELETE FROM fix_patterns WHERE id = ?", (pattern_id,))
        active = _store_active_count(conn)
    write_marker(cfg, active)
    return {"success": True, "id": pattern_id, "message": f"deleted pattern {pattern_id} and its history"}


def sync_marker(ledger, cfg) -> int:
    """Make the marker agree with the ledger (after recovery, hand edits)."""
    with ledger.write() as conn:
        active = _store_active_count(conn)
    write_marker(cfg, active)
    return active


# ---------------------------------------------------------------------------
# The plugin
# ---------------------------------------------------------------------------
def register(engine) -> None:
    engine.on("message_end", inject_on_user_message, name="fixes.inject", priority=40)
    engine.on("message_end", after_user_message, name="fixes.outcome", background=True)
    engine.on("turn_end", forge_on_turn_end, name="fixes.forge", background=True)


def _ensure_daily_task() -> None:
    """Metrics pruning rides on the lifecycle's once-a-day trigger. Added from
    the background handlers, not ``register``: the hook path must not import
    the lifecycle."""
    from tacit.learn import lifecycle

    task = f"{PLUGIN_NAME}:prune_metrics"
    if task not in lifecycle.DAILY_TASKS:
        lifecycle.DAILY_TASKS.append(task)


_READERS: dict = {}  # (ledger path, lean?) -> a Ledger kept for foreground lookups


def _reader(cfg, *, lean: bool = False):
    """A ledger of its own for foreground lookups: its own connection (WAL
    readers never wait for a writer) and a short busy timeout, so a lookup
    never queues behind the background worker's transactions. Opened the way
    every ledger user opens it (creating, migrating, recovering), or with
    ``lean=True`` as ``Ledger(reader=True)``: an existing file only, no
    pragmas, no migration check, no ``sqlite3`` package, no ``threading``."""
    from tacit.stores.ledger import Ledger

    key = (os.path.join(cfg.state_dir_str, "ledger.db"), lean)
    ledger = _READERS.get(key)
    if ledger is None:
        ledger = _READERS[key] = Ledger(cfg, busy_timeout=0.5)
    return ledger


def _lookup(ledger, cfg, text: str, now: float) -> tuple[list[Match], bool]:
    """(matches, whether the ledger holds no active pattern)."""
    from tacit.stores.ledger import Ledger

    with ledger.read() as conn:
        matches = find_patterns(conn, text, cfg, now=now)
        empty = not matches and not int(Ledger.meta_get(conn, "fix_patterns.active", 0) or 0)
    return matches, empty


def _busy(exc: BaseException) -> bool:
    """The ledger (or its cause) was locked: waiting again would only double the wait."""
    while exc is not None:
        if (getattr(exc, "sqlite_errorname", "") or "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            return True
        exc = exc.__cause__
    return False


def lookup_for_prompt(cfg, text: str, now: float, ledger=None) -> tuple[list[Match], float]:
    """(matches, milliseconds) for one user message; never raises."""
    started = time.perf_counter()
    try:
        matches, empty = _lookup(ledger or _reader(cfg), cfg, text, now)
        if empty:
            write_marker(cfg, 0)  # stale marker (ledger recreated, patterns deleted by hand)
    except Exception as exc:  # noqa: BLE001 — never break the host
        from tacit.log import log

        log(cfg, "warning", "fixes.inject", f"lookup skipped: {type(exc).__name__}: {exc}")
        matches = []
    return matches, (time.perf_counter() - started) * 1000.0


def inject_on_user_message(event, ctx):
    if event.role != "user":
        return None
    marks = ctx.state.marks
    previous = marks.pop(MARK_INJECTED, None)
    entry: dict = {}
    if previous and previous.get("ids"):
        entry["outcome_for"] = list(previous["ids"])
    cfg = ctx.cfg
    effect = None
    if cfg.max_injected > 0 and event.text.strip() and has_patterns(cfg):
        from tacit.hookspecs import ContextResult, Injection

        matches, elapsed = lookup_for_prompt(cfg, event.text, event.ts, ctx.ledger)
        entry["lookup_ms"] = round(elapsed, 3)
        entry["injected"] = [m.id for m in matches]
        if matches:
            marks[MARK_INJECTED] = {"ids": entry["injected"], "at": event.ts}
            effect = ContextResult(context=[Injection(render_block(matches), priority=40)])
    if entry:
        entry["at"] = event.ts
        turns = list(marks.get(MARK_TURNS) or [])
        turns.append(entry)
        marks[MARK_TURNS] = turns[-KEEP_TURNS:]
    return effect


def previous_assistant(state, user_text: str) -> str | None:
    """The agent's reply before ``user_text`` in the session's recent
    messages (background handlers run later; the message itself anchors it)."""
    recent = list(state.recent or [])
    anchor = (user_text or "")[:4000]
    for i in range(len(recent) - 1, -1, -1):
        if recent[i].get("role") == "user" and recent[i].get("text") == anchor:
            for j in range(i - 1, -1, -1):
                if recent[j].get("role") == "assistant":
                    return recent[j].get("text")
            return None
    return None


def _turn_entry(state, at: float) -> dict | None:
    for entry in state.marks.get(MARK_TURNS) or ():
        if entry.get("at") == at:
            return dict(entry)
    return None


from tacit.learn import guarded as _guarded  # noqa: E402 — shared learner guard


def after_user_message(event, ctx):
    """Background: decide the previous injection's outcome; record the
    turn's ``patterns.injected`` and ``patterns.lookup_ms``."""
    cfg = ctx.cfg
    if event.role != "user" or not cfg.learning_enabled:
        return None
    entry = _turn_entry(ctx.state, event.ts) or {}

    def work():
        _ensure_daily_task()
        outcome = None
        if entry.get("outcome_for"):
            outcome = classify_outcome(event.text, previous_assistant(ctx.state, event.text))
        now = time.time()
        retired = []
        with ctx.ledger.write() as conn:
            if outcome:
                retired = apply_outcome(conn, entry["outcome_for"], outcome, session_id=event.session_id,
                                        at=event.ts, now=now)
            if entry.get("injected"):
                record_injections(conn, entry["injected"], session_id=event.session_id, at=event.ts)
            record_metric(conn, event.session_id, event.ts, "patterns.injected",
                          len(entry.get("injected") or ()), now)
            if "lookup_ms" in entry:
                record_metric(conn, event.session_id, event.ts, "patterns.lookup_ms", entry["lookup_ms"], now)
            active = count_active(conn) if retired else None
        if retired:
            write_marker(cfg, active)
            from tacit.log import log

            log(cfg, "info", "fixes.outcome", f"retired pattern(s) {retired}: success rate below 30%")
        return outcome

    _guarded("fixes.outcome", cfg, work)
    return None


def _turn_failed(event) -> bool:
    calls = event.tool_calls or ()
    return bool(calls) and not calls[-1].ok


def forge_on_turn_end(event, ctx):
    """Background: forge a pattern from the final reply (``forge_on_success``);
    record ``patterns.forged`` for the turn either way."""
    cfg = ctx.cfg
    if not cfg.learning_enabled:
        return None

    def work():
        _ensure_daily_task()
        created = 0
        result = None
        if cfg.forge_on_success and event.assistant_text and not _turn_failed(event):
            from tacit.detect.fix import detect_fix

            fix = detect_fix(event.assistant_text)
            if fix is not None:
                result = forge(ctx.ledger, cfg, fix, title=event.user_text, session_id=event.session_id,
                               cwd=event.cwd, now=event.ts)
                created = int(result["action"] == "created")
                if result["action"] == "refused":
                    from tacit.log import log

                    log(cfg, "warning", "fixes.forge", f"fix pattern not stored: {result['reason']}")
        with ctx.ledger.write() as conn:
            record_metric(conn, event.session_id, turn_of(conn, event.session_id, event.ts),
                          "patterns.forged", created)
        return result

    _guarded("fixes.forge", cfg, work)
    return None
