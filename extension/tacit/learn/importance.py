"""Importance captures: what the user says that is worth keeping, scored,
stored as candidate memories, kept fresh by a heartbeat, settled by a nightly
review.

``register(engine)`` subscribes:

* ``importance.capture`` — background, user ``message_end``: the correction
  detector (with the agent's previous reply) and the importance scorer decide
  category and importance; a capture becomes a ``memories`` row
  (``source = 'importance'``, status ``candidate``) through the shared
  lifecycle; a repeat adds a mention. "Forget that …" dismisses matching
  captures and is remembered so they are never stored again.
* ``importance.heartbeat`` — background on user messages, turn ends and
  session starts: at most once per ``heartbeat_interval`` minutes (a marker
  file's age, checked on events — no daemon) it expires time-limited items,
  merges duplicates, re-scores (repeat boosts, age multipliers) and settles
  past days' reviews by their defaults.
* ``importance.foreground`` — FOREGROUND on user ``message_end``,
  ``before_agent_start`` and ``turn_end``: the review on request ("review",
  "复盘" → the review is injected for the agent to walk through), the nightly
  review notice (first event at or after ``review_time``), and — at the end
  of the turn — the optional "Noted: …" acknowledgement.

Design decisions
- **Candidates first, memory after review.** A capture is evidence, not yet
  memory: it waits as a candidate until the review (or its defaults, applied
  the day after: high kept, low dropped, medium waits) promotes it into
  USER.md/MEMORY.md through ``lifecycle.finish`` — the same write path,
  adaptation log and ``/memory-forget`` as every other learned memory.
- **Two gates against flooding.** Per-category minimums
  (``importance_category_minimums``) decide what is worth a ledger row at
  all; ``importance_threshold`` decides what may reach a memory file (and
  what is acknowledged). Trivial messages (category ``none``) never get a row.
- **The heartbeat owns importance.** Effective importance is recomputed from
  scratch each beat — base score, plus +0.15 / +0.10 / +0.05… for the 2nd /
  3rd / later mentions, times 0.9 / 0.7 / 0.5 after 7 / 30 / 90 days without a
  mention — so it never compounds, and replays change nothing.
- **Nothing heavy in the foreground.** The foreground handler checks marker
  files (one ``stat``/read each) and a substring pre-filter before importing
  a detector; it touches SQLite only when the user asked for the review. The
  acknowledgement is the one exception — it scores the message in the
  foreground, only when ``acknowledge_captures`` is on, and at ``turn_end``
  (after the reply), never before the model starts: in a fresh hook process
  it costs ~40 ms (measured in docs/importance.md).
- **Never store what must not be stored.** A secret (``tacit.scan``) is never
  captured; a message asking to forget is never captured itself; captures
  like something forgotten are refused from then on.
"""

from __future__ import annotations

import os
import time

from tacit.hookspecs import ContextResult, Injection, Result

PLUGIN_NAME = "tacit.learn.importance"
SOURCE = "importance"
HEARTBEAT_MARKER = "importance.heartbeat"
REVIEW_MARKER = "importance.review"
TODAY_MARKER = "importance.today"
HIGH = 0.85  # > HIGH: the "high" review group
LOW = 0.60  # < LOW: the "low" review group
MAX_CONTENT = 280
MAX_MERGE_ROWS = 2000
FORGET_MATCH = 0.6  # share of the forget phrase's terms a capture must contain
MERGE_SIMILARITY = 0.8  # Jaccard of terms for two captures to be one
DAY = 86400.0
DEFAULT_REVIEW_TIME = (21, 0)


# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------
def category_minimums(cfg) -> dict:
    """``importance_category_minimums`` ("fact=0.6", …) as a dict; bad
    entries are logged and skipped."""
    out: dict = {}
    for item in cfg.settings.get("importance_category_minimums") or ():
        name, _, value = str(item).partition("=")
        try:
            out[name.strip().lower()] = float(value)
        except ValueError:
            from tacit.log import log

            log(cfg, "warning", "importance", f"importance_category_minimums: bad entry {item!r} ignored")
    return out


def review_clock(cfg) -> tuple[int, int]:
    text = str(cfg.review_time or "").strip()
    try:
        hours, minutes = (int(part) for part in text.split(":"))
        if 0 <= hours <= 23 and 0 <= minutes <= 59:
            return hours, minutes
    except ValueError:
        pass
    return DEFAULT_REVIEW_TIME


def local_day(now: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(now))


# ---------------------------------------------------------------------------
# Expiry hints -> dates
# ---------------------------------------------------------------------------
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
            "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "few": 3, "a": 1, "an": 1}


def resolve_expiry(hint: str | None, now: float) -> float | None:
    """The end (23:59:59 local) of the day a hint names, or None.

    "friday" is the coming Friday (today if it is Friday), "next friday" the
    one a week after; "this week"/"end of week"/"eow" end on Sunday;
    "tomorrow", "in two weeks", "end of month", "q3", "march 15" (next year
    once passed), "2025-07-01", "this sprint" (two weeks) and the like are
    resolved against ``now``."""
    import calendar
    import datetime as dt

    if not hint:
        return None
    hint = hint.strip().lower()
    today = dt.date.fromtimestamp(now)

    def end_of(day: dt.date) -> float:
        return dt.datetime.combine(day, dt.time(23, 59, 59)).timestamp()

    def month_end(year: int, month: int) -> dt.date:
        return dt.date(year, month, calendar.monthrange(year, month)[1])

    def add_months(day: dt.date, months: int) -> dt.date:
        index = day.month - 1 + months
        year, month = day.year + index // 12, index % 12 + 1
        return dt.date(year, month, min(day.day, calendar.monthrange(year, month)[1]))

    week_end = today + dt.timedelta(days=6 - today.weekday())
    if hint in ("today", "tonight", "eod", "end of day"):
        return end_of(today)
    if hint == "tomorrow":
        return end_of(today + dt.timedelta(days=1))
    if hint in ("eow", "this week", "end of week"):
        return end_of(week_end)
    if hint == "next week":
        return end_of(week_end + dt.timedelta(days=7))
    if hint in ("end of month", "this month"):
        return end_of(month_end(today.year, today.month))
    if hint == "next month":
        nxt = add_months(today.replace(day=1), 1)
        return end_of(month_end(nxt.year, nxt.month))
    if hint in ("this sprint", "end of sprint"):
        return end_of(today + dt.timedelta(days=14))
    if hint == "next sprint":
        return end_of(today + dt.timedelta(days=28))
    if hint in ("end of year", "this year"):
        return end_of(dt.date(today.year, 12, 31))
    if hint == "next year":
        return end_of(dt.date(today.year + 1, 12, 31))
    quarter = None
    if hint in ("end of quarter", "this quarter"):
        quarter, year = (today.month - 1) // 3 + 1, today.year
    elif hint == "next quarter":
        quarter, year = (today.month - 1) // 3 + 2, today.year
        if quarter > 4:
            quarter, year = 1, year + 1
    elif len(hint) == 2 and hint[0] == "q" and hint[1] in "1234":
        quarter, year = int(hint[1]), today.year
        if month_end(year, quarter * 3) < today:
            year += 1
    if quarter:
        return end_of(month_end(year, quarter * 3))
    words = hint.replace("a few", "few").split()
    if words and words[-1] in _WEEKDAYS:
        ahead = (_WEEKDAYS.index(words[-1]) - today.weekday()) % 7
        if words[0] == "next":
            ahead += 7
        return end_of(today + dt.timedelta(days=ahead))
    if len(words) == 3 and words[0] == "in":
        count = _NUMBERS.get(words[1]) or (int(words[1]) if words[1].isdigit() else None)
        if count:
            unit = words[2].rstrip("s")
            if unit == "day":
                return end_of(today + dt.timedelta(days=count))
            if unit == "week":
                return end_of(today + dt.timedelta(weeks=count))
            if unit == "month":
                return end_of(add_months(today, count))
    if len(words) == 2 and words[0] in _MONTHS and words[1].isdigit():
        month, day = _MONTHS.index(words[0]) + 1, int(words[1])
        try:
            date = dt.date(today.year, month, day)
            if date < today:
                date = dt.date(today.year + 1, month, day)
            return end_of(date)
        except ValueError:
            return None
    try:
        return end_of(dt.date.fromisoformat(hint))
    except ValueError:
        return None


# ---------------------------------------------------------------------------
# Assessing one message
# ---------------------------------------------------------------------------
class Assessment:
    """What a user message amounts to: ``action`` is ``capture``, ``forget``,
    ``review``, ``skip`` (trivial or below the category minimum) or
    ``refuse`` (a secret)."""

    __slots__ = ("action", "category", "importance", "content", "markers", "emphasis",
                 "expiry_hint", "reason", "forget_what", "is_correction")

    def __init__(self, action, **values):
        self.action = action
        for name in self.__slots__[1:]:
            setattr(self, name, values.get(name))

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}


def summarise(text: str, markers) -> str:
    """The sentences that carry the markers (at most two), one line,
    at most ``MAX_CONTENT`` characters."""
    import re

    flat = " ".join(text.split())
    sentences = [s.strip() for s in re.split(r"(?<=[.!?。！？])\s+", flat) if s.strip()] or [flat]
    wanted = [m.lower() for m in markers or () if m and m != "statement"]
    chosen = [s for s in sentences if any(m in s.lower() for m in wanted)][:2] or sentences[:1]
    content = " ".join(chosen)
    if len(content) > MAX_CONTENT:
        cut = content[:MAX_CONTENT].rsplit(" ", 1)[0]
        content = (cut if len(cut) > MAX_CONTENT // 2 else content[:MAX_CONTENT]).rstrip(",;:") + "…"
    return content


def assess(cfg, text: str, prev_assistant: str | None = None) -> Assessment:
    """Decide what to do with one user message (pure: no storage)."""
    from tacit.detect.importance import score_importance, wants_forget, wants_review

    text = (text or "").strip()
    if not text:
        return Assessment("skip", reason="empty")
    what = wants_forget(text)
    if what:
        return Assessment("forget", forget_what=what)
    if wants_review(text):
        return Assessment("review")
    from tacit.detect.correction import detect_correction

    verdict = detect_correction(text, prev_assistant)
    if verdict.is_correction and verdict.rule == "contextual":
        # A verdict from cue words alone ("we decided", "never …") yields to an
        # explicit preference/decision/goal marker (docs/importance.md): let
        # the scorer weigh it, and keep the correction only when nothing
        # stronger is said.
        scored = score_importance(text)
        if scored.category in ("none", "fact", "context"):
            scored = score_importance(text, is_correction=True)
    else:
        scored = score_importance(text, is_correction=verdict.is_correction)
    values = dict(category=scored.category, importance=scored.importance, markers=scored.markers,
                  emphasis=scored.emphasis, expiry_hint=scored.expires_at_hint,
                  is_correction=verdict.is_correction)
    if scored.category == "none":
        return Assessment("skip", reason="nothing worth keeping", **values)
    minimum = category_minimums(cfg).get(scored.category, 0.0)
    if scored.importance < minimum:
        return Assessment("skip", reason=f"{scored.category} below its minimum {minimum:.2f}", **values)
    from tacit.scan import first_finding

    finding = first_finding(text)
    if finding is not None:
        return Assessment("refuse", reason=f"scanner: {finding.reason} [{finding.pattern_id}]", **values)
    return Assessment("capture", content=summarise(text, scored.markers), **values)


def target_for(category: str, content: str) -> str:
    """USER.md for who the user is (preferences, corrections, facts about
    themselves); MEMORY.md for the work (decisions, goals, context, facts)."""
    if category in ("preference", "correction"):
        return "user"
    if category == "fact":
        lower = f" {content.lower()} "
        if any(cue in lower for cue in (" i am ", " i'm ", " my ", " i work ", " i live ", "我是", "我的")):
            return "user"
    return "memory"


def boost(mentions: int) -> float:
    """+0.15 for the 2nd mention, +0.10 for the 3rd, +0.05 for each after."""
    if mentions <= 1:
        return 0.0
    if mentions == 2:
        return 0.15
    return 0.25 + 0.05 * (mentions - 3)


def age_multiplier(age_seconds: float) -> float:
    days = age_seconds / DAY
    if days > 90:
        return 0.5
    if days > 30:
        return 0.7
    if days > 7:
        return 0.9
    return 1.0


def effective_importance(base: float, mentions: int, last_mention_at: float, now: float) -> float:
    return round(min(1.0, base + boost(mentions)) * age_multiplier(max(0.0, now - last_mention_at)), 4)


def group_of(importance: float) -> str:
    if importance > HIGH:
        return "high"
    if importance >= LOW:
        return "medium"
    return "low"


# ---------------------------------------------------------------------------
# Storing
# ---------------------------------------------------------------------------
def _terms(text: str) -> set:
    from tacit.learn.fixes import index_terms

    return set(index_terms(text))


def _forgotten(conn, content: str) -> bool:
    terms = _terms(content)
    for (tokens,) in conn.execute("SELECT tokens FROM importance_forgotten"):
        wanted = set(tokens.split())
        if wanted and len(wanted & terms) / len(wanted) >= FORGET_MATCH:
            return True
    return False


def _tags(assessment: Assessment) -> list:
    tags = [assessment.category]
    if assessment.emphasis:
        tags.append("emphasis")
    if assessment.expiry_hint:
        tags.append("time-limited")
    from tacit.detect.fix import tokenize_code_aware

    for token in tokenize_code_aware(assessment.content or ""):
        if len(tags) >= 6:
            break
        if any(c in token for c in "._/:@") or any(c.isdigit() for c in token):
            if token not in tags:
                tags.append(token)
    return tags


def capture(ledger, cfg, assessment: Assessment, *, session_id: str, now: float,
            host: str | None = None, text: str = "") -> dict:
    """Store one capture (or one more mention of it). Returns
    ``{"action": "captured"|"mentioned"|"refused", "key", …}``."""
    from tacit.learn import lifecycle

    key = "imp-" + lifecycle.slugify(assessment.content, 48)
    expires = resolve_expiry(assessment.expiry_hint, now)
    with ledger.write() as conn:
        row = conn.execute("SELECT id, status, data FROM memories WHERE key = ?", (key,)).fetchone()
        if row is None:
            if _forgotten(conn, assessment.content):
                return {"action": "refused", "key": key, "reason": "you asked to forget this"}
            result = _insert(conn, key, assessment, session_id=session_id, now=now, expires=expires,
                             host=host, text=text)
        else:
            result = _mention(conn, key, row, assessment, session_id=session_id, now=now, expires=expires)
    if result["action"] in ("captured", "mentioned") and not result.get("replayed"):
        _count_today(cfg, now)
    return result


def _insert(conn, key, assessment, *, session_id, now, expires, host, text) -> dict:
    from tacit.learn import lifecycle

    content = assessment.content
    data = {"category": assessment.category, "importance": assessment.importance,
            "effective": assessment.importance, "markers": list(assessment.markers or ()),
            "emphasis": bool(assessment.emphasis), "mentions": 1, "first_at": now,
            "last_mention_at": now, "tags": _tags(assessment), "expiry_hint": assessment.expiry_hint,
            "day": local_day(now), "session_id": session_id, "host": host, "text": text[:500],
            "terms": " ".join(sorted(_terms(content)))}
    proposal = lifecycle.Proposal(
        key, kind=assessment.category, source=SOURCE, content=content,
        adaptation=f'Now remembering "{content[:120]}"',
        confidence=round(assessment.importance * 100), target=target_for(assessment.category, content),
        data=data, ref=f"msg:{session_id}:{now!r}", session_key=session_id, create=True)
    lifecycle.advance(conn, [proposal], now)
    # a capture is a candidate until the review, whatever its score
    conn.execute("UPDATE memories SET status = 'candidate', expires_at = ? WHERE key = ?", (expires, key))
    memory_id = conn.execute("SELECT id FROM memories WHERE key = ?", (key,)).fetchone()[0]
    return {"action": "captured", "key": key, "id": memory_id, "category": assessment.category,
            "importance": assessment.importance, "expires_at": expires}


def _mention(conn, key, row, assessment, *, session_id, now, expires) -> dict:
    """One more mention of an existing capture (once per message: a replay
    of the same event finds its evidence row and changes nothing)."""
    import json

    memory_id, status, raw = row
    if status == "dismissed":
        return {"action": "refused", "key": key, "reason": "dropped or forgotten before"}
    cur = conn.execute("INSERT OR IGNORE INTO memory_evidence (memory_id, ref, session_key, role, at) "
                       "VALUES (?, ?, ?, 'confirm', ?)", (memory_id, f"msg:{session_id}:{now!r}", session_id, now))
    if cur.rowcount != 1:
        return {"action": "mentioned", "key": key, "id": memory_id, "replayed": True}
    data = json.loads(raw or "{}")
    mentions = conn.execute("SELECT count(*) FROM memory_evidence WHERE memory_id = ?", (memory_id,)).fetchone()[0]
    base = max(float(data.get("importance", 0.0)), assessment.importance)
    data.update(importance=base, mentions=mentions,
                last_mention_at=max(float(data.get("last_mention_at", 0)), now),
                effective=effective_importance(base, mentions, now, now))
    conn.execute("UPDATE memories SET data = ?, confidence = ?, times_confirmed = times_confirmed + 1, "
                 "last_used_at = max(last_used_at, ?), updated_at = ?, "
                 "expires_at = CASE WHEN ? IS NULL THEN expires_at ELSE max(coalesce(expires_at, 0), ?) END "
                 "WHERE id = ?", (json.dumps(data, ensure_ascii=False), round(data["effective"] * 100), now, now,
                                  expires, expires, memory_id))
    return {"action": "mentioned", "key": key, "id": memory_id, "mentions": mentions}


def _count_today(cfg, now: float) -> None:
    """``importance.today``: how many captures today, for the nightly notice
    (read in the foreground without SQLite)."""
    import json

    path = os.path.join(cfg.state_dir_str, TODAY_MARKER)
    day = local_day(now)
    count = 0
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        if data.get("day") == day:
            count = int(data.get("count", 0))
    except (OSError, ValueError, AttributeError):
        pass
    try:
        os.makedirs(cfg.state_dir_str, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump({"day": day, "count": count + 1}, handle)
        os.replace(tmp, path)
    except OSError:
        pass


def captures_today(cfg, now: float) -> int:
    import json

    try:
        with open(os.path.join(cfg.state_dir_str, TODAY_MARKER), encoding="utf-8") as handle:
            data = json.load(handle)
        return int(data.get("count", 0)) if data.get("day") == local_day(now) else 0
    except (OSError, ValueError, AttributeError):
        return 0


def apply_forget(ledger, cfg, what: str, *, session_id: str | None, now: float) -> dict:
    """"Forget that …": remember the request (future captures like it are
    refused) and forget every capture that matches it — dismissed, and
    removed from USER.md/MEMORY.md if it was promoted."""
    import json

    from tacit.learn import lifecycle
    from tacit.learn.review import record_decision

    wanted = _terms(what)
    keys = []
    with ledger.write() as conn:
        conn.execute("INSERT INTO importance_forgotten (text, tokens, session_id, created_at) VALUES (?, ?, ?, ?)",
                     (what[:500], " ".join(sorted(wanted)), session_id, now))
        if wanted:
            rows = conn.execute("SELECT id, key, content, data FROM memories WHERE source = ? "
                                "AND status != 'dismissed'", (SOURCE,)).fetchall()
            for memory_id, key, content, raw in rows:
                if len(wanted & _terms(content)) / len(wanted) >= FORGET_MATCH:
                    data = json.loads(raw or "{}")
                    record_decision(conn, memory_id, key, data, "forget", "user", content, None, now)
                    keys.append(key)
    results = [lifecycle.forget(cfg, key, ledger=ledger, now=now) for key in keys]
    if not cfg.silent:
        _notice(ledger, cfg, f"Forgotten: \"{what[:120]}\"" + (
            f" ({len(keys)} note(s) removed)" if keys else " — I won't note it.") , now)
    return {"action": "forgotten", "what": what, "keys": keys, "results": results}


def _notice(ledger, cfg, text: str, now: float) -> None:
    """A one-time notice for the next foreground point (see handlers/notices)."""

    with ledger.write() as conn:
        conn.execute("INSERT INTO notices (text, created_at) VALUES (?, ?)", (text, now))


# ---------------------------------------------------------------------------
# Heartbeat
# ---------------------------------------------------------------------------
def heartbeat(ledger, cfg, now: float | None = None) -> dict:
    """Expire, merge, re-score; then settle past days' reviews. Idempotent."""
    import json

    from tacit.learn import lifecycle
    from tacit.learn.review import record_decision
    from tacit.stores.ledger import Ledger

    now = time.time() if now is None else now
    removals, expired, merged, rescored = [], 0, 0, 0
    with ledger.write() as conn:
        previous_beat = float(Ledger.meta_get(conn, "importance.last_heartbeat", 0) or 0)
        rows = conn.execute(
            "SELECT id, key, content, status, data, expires_at, target, applied_text, created_at, confidence "
            "FROM memories WHERE source = ? AND status != 'dismissed' ORDER BY id LIMIT ?",
            (SOURCE, MAX_MERGE_ROWS)).fetchall()
        alive = []
        confidence_of = {}
        for memory_id, key, content, status, raw, expires_at, target, applied_text, created, conf in rows:
            confidence_of[memory_id] = conf
            data = json.loads(raw or "{}")
            if expires_at is not None and expires_at <= now:
                record_decision(conn, memory_id, key, data, "expire", "heartbeat", content, None, now)
                conn.execute("UPDATE adaptations SET status = 'reverted', reverted_at = ?, reason = 'expired' "
                             "WHERE memory_id = ? AND status = 'active'", (now, memory_id))
                conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
                removals.append((target, applied_text, key))
                expired += 1
                continue
            terms = set(data["terms"].split()) if data.get("terms") else _terms(content)
            # only captures new or mentioned since the last beat can have a new twin
            fresh = created >= previous_beat or float(data.get("last_mention_at", 0)) >= previous_beat
            alive.append([memory_id, key, content, status, data, created, terms, fresh])
        rank = {"applied": 0, "confirmed": 1, "candidate": 2}
        alive.sort(key=lambda r: (rank.get(r[3], 3), r[5], r[0]))  # survivors first
        survivors = []
        for row in alive:
            twin = None
            if row[7]:
                twin = next((s for s in survivors if _similar(s[6], row[6])), None)
            else:  # an old capture only merges into a fresh one
                twin = next((s for s in survivors if s[7] and _similar(s[6], row[6])), None)
            if twin is None or (twin[3] == "applied" and row[3] == "applied"):
                survivors.append(row)
                continue
            # fold row into twin: evidence, best base score, mention times, expiry
            conn.execute("INSERT OR IGNORE INTO memory_evidence (memory_id, ref, session_key, role, at) "
                         "SELECT ?, ref, session_key, 'confirm', at FROM memory_evidence WHERE memory_id = ?",
                         (twin[0], row[0]))
            twin[4]["importance"] = max(float(twin[4].get("importance", 0)), float(row[4].get("importance", 0)))
            twin[4]["last_mention_at"] = max(float(twin[4].get("last_mention_at", 0)),
                                             float(row[4].get("last_mention_at", 0)))
            twin[4]["first_at"] = min(float(twin[4].get("first_at", now)), float(row[4].get("first_at", now)))
            twin[4].setdefault("merged", []).append(row[1])
            record_decision(conn, row[0], row[1], row[4], "discard", "heartbeat", row[2],
                            f"merged into {twin[1]}", now)
            conn.execute("UPDATE adaptations SET memory_id = ? WHERE memory_id = ?", (twin[0], row[0]))
            conn.execute("DELETE FROM memories WHERE id = ?", (row[0],))
            merged += 1
        for memory_id, _key, _content, _status, data, _created, _terms_, _fresh in survivors:
            mentions = conn.execute("SELECT count(*) FROM memory_evidence WHERE memory_id = ?",
                                    (memory_id,)).fetchone()[0]
            base = float(data.get("importance", 0.0))
            last = float(data.get("last_mention_at", now))
            effective = effective_importance(base, max(1, mentions), last, now)
            confidence = max(0, min(100, round(effective * 100)))
            # confidence is rewritten even when nothing else changed: the
            # lifecycle's generic daily decay (−5 after 30 unused days) must not
            # erode a capture, whose ageing is the multipliers above
            if (data.get("effective") != effective or data.get("mentions") != mentions
                    or confidence_of.get(memory_id) != confidence):
                data.update(effective=effective, mentions=max(1, mentions))
                conn.execute("UPDATE memories SET data = ?, confidence = ?, updated_at = ? WHERE id = ?",
                             (json.dumps(data, ensure_ascii=False), confidence, now, memory_id))
                rescored += 1
        Ledger.meta_set(conn, "importance.last_heartbeat", now)
    lifecycle.revert_entries(cfg, removals)
    from tacit.learn.review import settle_past_days

    settled = settle_past_days(ledger, cfg, now)
    return {"expired": expired, "merged": merged, "rescored": rescored, "settled": settled}


def _similar(a: set, b: set) -> bool:
    if not a or not b:
        return False
    return len(a & b) / len(a | b) >= MERGE_SIMILARITY


def heartbeat_due(cfg, now: float) -> bool:
    """True (and the marker moved to ``now``) when ``heartbeat_interval``
    minutes have passed since the last beat; 0 turns the heartbeat off."""
    interval = cfg.heartbeat_interval
    if interval <= 0:
        return False
    path = os.path.join(cfg.state_dir_str, HEARTBEAT_MARKER)
    try:
        last = os.stat(path).st_mtime
    except OSError:
        last = None
    if last is not None and now - last < interval * 60:
        return False
    try:
        os.makedirs(cfg.state_dir_str, exist_ok=True)
        with open(path, "a"):
            pass
        os.utime(path, (now, now))
    except OSError:
        return False
    return True


# ---------------------------------------------------------------------------
# The nightly review trigger
# ---------------------------------------------------------------------------
def review_due(cfg, now: float) -> bool:
    """The first event at or after ``review_time`` today (marker in the data
    folder, so it is once a day across sessions and processes)."""
    hours, minutes = review_clock(cfg)
    local = time.localtime(now)
    if (local.tm_hour, local.tm_min) < (hours, minutes):
        return False
    try:
        offered = os.stat(os.path.join(cfg.state_dir_str, REVIEW_MARKER)).st_mtime
        if local_day(offered) == local_day(now):
            return False
    except OSError:
        pass
    return True


def mark_review_offered(cfg, now: float) -> None:
    path = os.path.join(cfg.state_dir_str, REVIEW_MARKER)
    try:
        os.makedirs(cfg.state_dir_str, exist_ok=True)
        with open(path, "a"):
            pass
        os.utime(path, (now, now))
    except OSError:
        pass


def nightly_notice(cfg, now: float) -> str | None:
    """The nightly review notice if it is due (marks it offered)."""
    if not review_due(cfg, now):
        return None
    mark_review_offered(cfg, now)
    count = captures_today(cfg, now)
    if count <= 0 or cfg.silent:
        return None
    return (f"Memory review: I noted {count} thing(s) today. Say \"review\" (or /memory-review) to keep, "
            f"drop or edit them. Otherwise tomorrow the high-importance ones are kept and the low ones dropped.")


# ---------------------------------------------------------------------------
# The plugin
# ---------------------------------------------------------------------------
def register(engine) -> None:
    engine.on("message_end", capture_on_user_message, name="importance.capture", background=True)
    engine.on("message_end", heartbeat_on_event, name="importance.heartbeat", background=True)
    engine.on("turn_end", heartbeat_on_event, name="importance.heartbeat_turn", background=True)
    engine.on("session_start", heartbeat_on_event, name="importance.heartbeat_start", background=True)
    engine.on("message_end", foreground_on_user_message, name="importance.foreground", priority=45)
    engine.on("before_agent_start", nightly_on_event, name="importance.nightly_start", priority=95)
    # turn_end also carries the optional "Noted: …": scoring in the foreground
    # costs ~40 ms in a fresh hook process (imports, regex compilation), too
    # much before the model starts; after the reply nobody waits for it
    engine.on("turn_end", nightly_on_event, name="importance.nightly_turn", priority=95)


def _enabled(cfg) -> bool:
    return bool(cfg.importance_enabled and cfg.learning_enabled)


from tacit.learn import guarded as _guarded  # noqa: E402 — shared learner guard


def capture_on_user_message(event, ctx):
    cfg = ctx.cfg
    if event.role != "user" or not _enabled(cfg) or not event.text.strip():
        return None

    def work():
        from tacit.learn.fixes import previous_assistant

        assessment = assess(cfg, event.text, previous_assistant(ctx.state, event.text))
        if assessment.action == "forget":
            return apply_forget(ctx.ledger, cfg, assessment.forget_what, session_id=event.session_id,
                                now=event.ts)
        if assessment.action == "review":
            from tacit.learn.review import record_review_shown

            return record_review_shown(ctx.ledger, cfg, "request", event.ts)
        if assessment.action == "refuse":
            from tacit.log import log

            log(cfg, "warning", "importance.capture", f"not stored: {assessment.reason}")
            return None
        if assessment.action != "capture":
            return None
        return capture(ctx.ledger, cfg, assessment, session_id=event.session_id, now=event.ts,
                       host=ctx.host, text=event.text)

    _guarded("importance.capture", cfg, work)
    return None


def heartbeat_on_event(event, ctx):
    cfg = ctx.cfg
    if getattr(event, "role", "user") != "user" or not _enabled(cfg):
        return None
    if not heartbeat_due(cfg, event.ts):
        return None
    _guarded("importance.heartbeat", cfg, lambda: heartbeat(ctx.ledger, cfg, event.ts))
    return None


def _might_be_review(text: str) -> bool:
    """A substring pre-filter, so the detector is imported only when the
    message could be a review request."""
    if len(text) > 300:
        return False
    lower = text.lower()
    return "review" in lower or "复盘" in text or "回顾" in text


def foreground_on_user_message(event, ctx):
    cfg = ctx.cfg
    if event.role != "user" or not _enabled(cfg):
        return None
    text = event.text.strip()
    if text and _might_be_review(text):
        from tacit.detect.importance import wants_review

        if wants_review(text):
            from tacit.learn.review import review_for_prompt

            block = review_for_prompt(cfg, event.ts)
            mark_review_offered(cfg, event.ts)
            return ContextResult(context=[Injection(block, priority=45)]) if block else None
    notice = nightly_notice(cfg, event.ts)
    return ContextResult(notices=[notice]) if notice else None


def acknowledgement(cfg, text: str, state) -> str | None:
    """"Noted: …" for a message that will be captured at or above
    ``importance_threshold`` (the same decision the background makes)."""
    try:
        from tacit.learn.fixes import previous_assistant

        assessment = assess(cfg, text, previous_assistant(state, text))
    except Exception:  # noqa: BLE001 — never break the host
        return None
    if assessment.action != "capture" or assessment.importance < cfg.importance_threshold:
        return None
    summary = assessment.content if len(assessment.content) <= 100 else assessment.content[:99] + "…"
    return f"Noted ({assessment.category}): {summary}"


def nightly_on_event(event, ctx):
    cfg = ctx.cfg
    if not _enabled(cfg):
        return None
    texts = []
    if event.kind == "turn_end" and cfg.acknowledge_captures and not cfg.silent and event.user_text.strip():
        ack = acknowledgement(cfg, event.user_text, ctx.state)
        if ack:
            texts.append(ack)
    notice = nightly_notice(cfg, event.ts)
    if notice:
        texts.append(notice)
    if not texts:
        return None
    return (ContextResult if event.kind == "before_agent_start" else Result)(notices=texts)
