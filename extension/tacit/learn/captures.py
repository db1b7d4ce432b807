"""Importance captures — the model: what a user message amounts to, how a capture ages, merges and
is settled. No SQL, no I/O.

Design notes: docs/design/learn.md#tacitlearncaptures"""

from __future__ import annotations

import calendar
import datetime as dt
import re
import time
from contextlib import suppress
from dataclasses import asdict, dataclass

from tacit.detect.fix_tokens import tokenize_code_aware
from tacit.learn.fix_patterns import index_terms
from tacit.safety.scanner import first_finding
from tacit.safety.secrets import was_redacted

SOURCE = "importance"
HIGH = 0.85  # > HIGH: the "high" review group
LOW = 0.60  # < LOW: the "low" review group
GROUPS = ("high", "medium", "low")
MAX_CONTENT = 280
FORGET_MATCH = 0.6  # share of the forget phrase's terms a capture must contain
MERGE_SIMILARITY = 0.8  # Jaccard of terms for two captures to be one
DAY = 86400.0
DEFAULT_REVIEW_TIME = (21, 0)
MAX_TEXT = 20_000  # a pasted log is judged by its head


# Settings
def category_minimums(cfg) -> tuple[dict, list[str]]:
    """``importance_category_minimums`` ("fact=0.6", …) as a dict, and the
    entries that could not be read."""
    out: dict = {}
    bad = []
    for item in cfg.settings.get("importance_category_minimums") or ():
        name, _, value = str(item).partition("=")
        try:
            out[name.strip().lower()] = float(value)
        except ValueError:
            bad.append(str(item))
    return out, bad


def review_clock(cfg) -> tuple[int, int]:
    text = str(cfg.review_time or "").strip()
    with suppress(ValueError):
        hours, minutes = (int(part) for part in text.split(":"))
        if 0 <= hours <= 23 and 0 <= minutes <= 59:
            return hours, minutes
    return DEFAULT_REVIEW_TIME


def local_day(now: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(now))


# Expiry hints -> dates
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
            "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "few": 3, "a": 1, "an": 1}


def _end_of(day: dt.date) -> float:
    return dt.datetime.combine(day, dt.time(23, 59, 59)).timestamp()


def _month_end(year: int, month: int) -> dt.date:
    return dt.date(year, month, calendar.monthrange(year, month)[1])


def _add_months(day: dt.date, months: int) -> dt.date:
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return dt.date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


_ALIASES = {"tonight": "today", "eod": "today", "end of day": "today", "end of sprint": "this sprint",
            "eow": "this week", "end of week": "this week", "end of month": "this month",
            "end of quarter": "this quarter", "end of year": "this year"}


def _named_day(hint: str, today: dt.date) -> dt.date | None:
    """The day a fixed hint ("tomorrow", "next month", "q3" …) names, or None."""
    week_end = today + dt.timedelta(days=6 - today.weekday())
    month = _add_months(today.replace(day=1), 1)
    quarter = (today.month - 1) // 3  # this one, from 0
    if len(hint) == 2 and hint[0] == "q" and hint[1] in "1234":
        end = _month_end(today.year, int(hint[1]) * 3)
        return end if end >= today else _month_end(today.year + 1, int(hint[1]) * 3)
    days = {"today": today, "tomorrow": today + dt.timedelta(days=1),
            "this sprint": today + dt.timedelta(days=14), "next sprint": today + dt.timedelta(days=28),
            "this week": week_end, "next week": week_end + dt.timedelta(days=7),
            "this month": _month_end(today.year, today.month), "next month": _month_end(month.year, month.month),
            "this quarter": _month_end(today.year, quarter * 3 + 3),
            "next quarter": _month_end(today.year + (quarter == 3), (quarter + 1) % 4 * 3 + 3),
            "this year": dt.date(today.year, 12, 31), "next year": dt.date(today.year + 1, 12, 31)}
    return days.get(_ALIASES.get(hint, hint))


def resolve_expiry(hint, now: float) -> float | None:
    """The end (23:59:59 local) of the day a hint names, from ``now``, or None ("friday": the coming one,
    today included; "this week": Sunday; "march 15": next year once passed; docs/importance.md)."""
    if not isinstance(hint, str) or not hint.strip():
        return None
    hint = hint.strip().lower()[:60]
    today = dt.date.fromtimestamp(now)
    named = _named_day(hint, today)
    if named is not None:
        return _end_of(named)
    words = hint.replace("a few", "few").split()
    if words and words[-1] in _WEEKDAYS:
        ahead = (_WEEKDAYS.index(words[-1]) - today.weekday()) % 7
        if words[0] == "next":
            ahead += 7
        return _end_of(today + dt.timedelta(days=ahead))
    if len(words) == 3 and words[0] == "in":
        count = _NUMBERS.get(words[1]) or (int(words[1]) if words[1].isdigit() and len(words[1]) < 4 else None)
        if count:
            unit = words[2].rstrip("s")
            if unit in ("day", "week"):
                return _end_of(today + dt.timedelta(days=count * (7 if unit == "week" else 1)))
            if unit == "month":
                return _end_of(_add_months(today, count))
    if len(words) == 2 and words[0] in _MONTHS and words[1].isdigit() and len(words[1]) < 3:
        month, day = _MONTHS.index(words[0]) + 1, int(words[1])
        try:
            date = dt.date(today.year, month, day)
            if date < today:
                date = dt.date(today.year + 1, month, day)
            return _end_of(date)
        except ValueError:
            return None
    try:
        return _end_of(dt.date.fromisoformat(hint))
    except ValueError:
        return None


# Assessing one message
@dataclass(frozen=True, slots=True)
class Assessment:
    """What a user message amounts to: ``action`` is ``capture``, ``forget``, ``review``, ``skip``
    (trivial or below its category minimum) or ``refuse`` (a secret)."""

    action: str
    category: str | None = None
    importance: float = 0.0
    content: str = ""
    markers: tuple = ()
    emphasis: bool = False
    expiry_hint: str | None = None
    reason: str = ""
    forget_what: str | None = None
    is_correction: bool = False
    phrased: bool = False  # content is tacit's phrasing of a rule, not the user's words

    def as_dict(self) -> dict:
        return asdict(self)


_NOT_AN_END = re.compile(r"(?:^|\s)(?:\d{1,2}|e\.g|i\.e|vs)\.$", re.IGNORECASE)  # "leagues 1. BL", "e.g. X"


def _sentences(flat: str) -> list[str]:
    """``flat`` cut into sentences, never after a list number or an abbreviation ("the two leagues 1.")."""
    out: list[list[str]] = []
    for piece in re.split(r"(?<=[.!?。！？])\s+", flat):
        if out and _NOT_AN_END.search(out[-1][-1]):
            out[-1].append(piece)  # glued to the sentence it continues
        else:
            out.append([piece])
    return [s for s in (" ".join(parts).strip() for parts in out) if s]


def summarise(text: str, markers) -> str:
    """The sentences that carry the markers (at most two), one line, at most
    ``MAX_CONTENT`` characters."""
    flat = " ".join(text[:MAX_TEXT].split())
    sentences = _sentences(flat) or [flat]
    wanted = [m.lower() for m in markers or () if m and m != "statement"]
    chosen = [s for s in sentences if any(m in s.lower() for m in wanted)][:2] or sentences[:1]
    content = " ".join(chosen)
    if len(content) > MAX_CONTENT:
        cut = content[:MAX_CONTENT].rsplit(" ", 1)[0]
        content = (cut if len(cut) > MAX_CONTENT // 2 else content[:MAX_CONTENT]).rstrip(",;:") + "…"
    return content


_PICK = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|yeah|sure|great|good|fine)[,!.\s]+)?"
    r"(?:let'?s\s+(?:go\s+with|do|use|try|pick)\s+|go\s+(?:with|for)\s+"
    r"|i(?:'d|\s+will|\s+would)?\s+(?:choose|pick|take|go\s+with|prefer)\s+|(?:choose|pick|take|do)\s+)?"
    r"(?:the\s+)?(?:option|approach|plan|choice|variant|solution|alternative|#)?\s*(?:[a-z]|\d{1,2})"
    r"(?:\s+(?:please|then|is\s+good|sounds\s+good))?$"
    r"|^(?:实现|选|选择|用|采用|就)?(?:方案|选项)\s*(?:[0-9一二三四五]|[a-z])$")


def picks_an_option(text) -> bool:
    """"option 1", "B", "let's go with option A", "实现方案1": a pick among choices the agent listed,
    which says nothing on its own (not a decision to keep or to tell the user about)."""
    if not isinstance(text, str) or len(text) > 80:
        return False
    return bool(_PICK.match(" ".join(text.lower().split()).strip(" .!。！")))


def assess(text, analysis, minimums: dict) -> Assessment:
    """Decide what to do with one user message, from its analysis."""
    text = text.strip() if isinstance(text, str) else ""
    if not text or analysis is None:
        return Assessment("skip", reason="empty")
    if analysis.forget:
        return Assessment("forget", forget_what=analysis.forget)
    if analysis.wants_review:
        return Assessment("review")
    from tacit.detect.importance import importance_from  # the detectors: at the first user message

    scored = importance_from(analysis)
    values = dict(category=scored.category, importance=float(scored.importance),
                  markers=tuple(scored.markers or ()), emphasis=bool(scored.emphasis),
                  expiry_hint=scored.expires_at_hint, is_correction=bool(analysis.is_correction))
    if scored.category == "none":
        return Assessment("skip", reason="nothing worth keeping", **values)
    if picks_an_option(text):
        return Assessment("skip", reason="a pick among the agent's options, meaningless on its own", **values)
    minimum = minimums.get(scored.category, 0.0)
    if scored.importance < minimum:
        return Assessment("skip", reason=f"{scored.category} below its minimum {minimum:.2f}", **values)
    if was_redacted(text):  # the boundary took a secret out: what is left is not worth keeping
        return Assessment("refuse", reason="scanner: the message held a secret (redacted)", **values)
    finding = first_finding(text[:MAX_TEXT])
    if finding is not None:
        return Assessment("refuse", reason=f"scanner: {finding.reason} [{finding.pattern_id}]", **values)
    rule = getattr(analysis, "rule", None)
    if rule:
        return Assessment("capture", content=rule, phrased=True, **values)
    content = summarise(text, scored.markers)
    if content.rstrip().endswith(("?", "？")):  # "why is the lock even used?": asked, not something to keep
        return Assessment("skip", reason="a question, not a statement to keep", **values)
    return Assessment("capture", content=content, **values)


def acknowledgement(assessment: Assessment, threshold: float) -> str | None:
    """"Noted: …" for a capture at or above ``importance_threshold``."""
    if assessment.action != "capture" or assessment.importance < threshold:
        return None
    summary = assessment.content if len(assessment.content) <= 100 else assessment.content[:99] + "…"
    return f"Noted ({assessment.category}): {summary}"


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


def terms(text: str) -> set:
    return set(index_terms(text))


def tags(assessment: Assessment) -> list:
    out = [assessment.category]
    if assessment.emphasis:
        out.append("emphasis")
    if assessment.expiry_hint:
        out.append("time-limited")
    for token in tokenize_code_aware(assessment.content or ""):
        if len(out) >= 6:
            break
        if (any(c in token for c in "._/:@") or any(c.isdigit() for c in token)) and token not in out:
            out.append(token)
    return out


def capture_data(assessment: Assessment, *, session_id, host, text: str, now: float) -> dict:
    """The ``data`` of a new capture row."""
    return {"category": assessment.category, "importance": assessment.importance,
            "effective": assessment.importance, "markers": list(assessment.markers),
            "emphasis": assessment.emphasis, "mentions": 1, "first_at": now, "last_mention_at": now,
            "tags": tags(assessment), "expiry_hint": assessment.expiry_hint, "day": local_day(now),
            "session_id": session_id, "host": host, "text": (text or "")[:500],
            "terms": " ".join(sorted(terms(assessment.content))), "phrased": assessment.phrased}


def forgotten(content_terms: set, forgotten_terms) -> bool:
    """Is a capture like something the user asked to forget?"""
    return any(wanted and len(wanted & content_terms) / len(wanted) >= FORGET_MATCH for wanted in forgotten_terms)


# Ageing, grouping, merging
def boost(mentions: int) -> float:
    """+0.15 for the 2nd mention, +0.10 for the 3rd, +0.05 for each after."""
    if mentions <= 1:
        return 0.0
    if mentions == 2:
        return 0.15
    return 0.25 + 0.05 * (mentions - 3)


def age_multiplier(age_seconds: float) -> float:
    days = age_seconds / DAY
    return next((multiplier for older_than, multiplier in ((90, 0.5), (30, 0.7), (7, 0.9)) if days > older_than), 1.0)


def effective_importance(base: float, mentions: int, last_mention_at: float, now: float) -> float:
    return round(min(1.0, base + boost(mentions)) * age_multiplier(max(0.0, now - last_mention_at)), 4)


def group_of(importance: float) -> str:
    if importance > HIGH:
        return "high"
    if importance >= LOW:
        return "medium"
    return "low"


def importance_in(data: dict) -> float:
    return float(data.get("effective", data.get("importance", 0.0)))


def similar(a: set, b: set) -> bool:
    return bool(a and b) and len(a & b) / len(a | b) >= MERGE_SIMILARITY


def folded(twin: dict, row: dict, now: float) -> dict:
    """The data of ``twin`` after ``row`` is merged into it."""
    data = dict(twin)
    data["importance"] = max(float(twin.get("importance", 0)), float(row.get("importance", 0)))
    data["last_mention_at"] = max(float(twin.get("last_mention_at", 0)), float(row.get("last_mention_at", 0)))
    data["first_at"] = min(float(twin.get("first_at", now)), float(row.get("first_at", now)))
    data["phrased"] = bool(twin.get("phrased") or row.get("phrased"))
    return data


def default_action(data: dict, *, created: float, today: str, include_today: bool, threshold: float,
                   minimums: dict) -> str | None:
    """What the review defaults do with an undecided candidate: ``promote``
    (high, eligible, and phrased by tacit), ``discard`` (low, not kept),
    ``defer`` (anything else, recorded once), or None (not yet: today's)."""
    day = data.get("day") or local_day(created)
    if day > today or (day == today and not include_today):
        return None
    importance = importance_in(data)
    group = group_of(importance)
    eligible = importance >= threshold and importance >= minimums.get(data.get("category"), 0.0)
    if group == "high" and eligible and data.get("phrased"):
        return "promote"
    if group == "low" and not data.get("kept"):
        return "discard"
    return None if data.get("deferred") else "defer"
