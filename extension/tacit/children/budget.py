"""A daily budget for background work: what child agents spend, and when they wait.

Design notes: docs/design/children.md#tacitchildrenbudget
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from tacit.children.commands import timeout_for
from tacit.children.prices import price_for
from tacit.hookspecs import CHILD_KINDS
from tacit.hosts import spec as host_specs
from tacit.stores import jobs, notices
from tacit.stores.ledger import Ledger

ESTIMATE_RUNS = 20  # recent runs averaged to count a run under way
NOTICE_KEY = "budget.notice"  # ledger_meta: {"day", "id"} of the day's budget notice
MERGE_WINDOW = 5.0  # seconds: jobs of one session claimed this close together ran as one turn's work


@dataclass(frozen=True, slots=True)
class Spend:
    tokens: int = 0
    input: int = 0  # without cached tokens
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    usd: float | None = None
    usd_source: str = "unknown"  # host | price_table | unknown
    model: str = ""


def as_float(value) -> float | None:
    """A reported count or cost: a number (not a bool) that is not negative, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return float(value)


def as_int(value) -> int:
    number = as_float(value)
    return int(value) if number is not None and number >= 0 else 0  # NaN is 0


def priced(cfg, model: str, **tokens) -> tuple[float | None, str]:
    price = price_for(cfg, model)
    if price is None:
        return None, "unknown"
    return round(price.cost(**tokens), 8), "price_table"


def reported(cfg, model: str, usd, inp, out, read=0, write=0, tokens=0) -> Spend:
    """A child's report as a ``Spend``: the host's cost (``usd``) when it gave one, else the price
    table's; ``tokens`` when it gave a total, else the sum (each count read with ``as_int``)."""
    counts = dict(input=as_int(inp), output=as_int(out), cache_read=as_int(read), cache_write=as_int(write))
    usd, source = as_float(usd), "host"
    if usd is None:
        usd, source = priced(cfg, model, **counts)
    return Spend(as_int(tokens) or sum(counts.values()), **counts, usd=usd, usd_source=source, model=model)


def normalise(cfg, usage, *, model: str = "") -> Spend | None:
    """A ``Spend`` from what a host reported (``output.parse_usage``), or None; ``model``: the
    child's model when the report does not name it."""
    if not isinstance(usage, dict):
        return None
    host = host_specs.get(str(usage.get("format") or ""))
    reader = host.load("child") if host is not None else None
    if reader is None:
        return None
    return reader.spend(cfg, usage, model)


def day_of(ts: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(ts))


def day_start(ts: float) -> float:
    t = time.localtime(ts)
    return time.mktime((t.tm_year, t.tm_mon, t.tm_mday, 0, 0, 0, 0, 0, -1))


def spend_of(record) -> dict | None:
    if not isinstance(record, dict):
        return None
    spend = record.get("spend")
    return spend if isinstance(spend, dict) else None


def spent(conn, start: float, end: float) -> tuple[int, float]:
    """(tokens, USD) of the runs that finished in ``[start, end)``."""
    tokens, usd = 0, 0.0
    for record in jobs.records_finished(conn, start, end):
        spend = spend_of(record)
        if spend:
            tokens += as_int(spend.get("tokens"))
            usd += as_float(spend.get("usd")) or 0.0
    return tokens, usd


def _estimate(conn) -> tuple[int, float]:
    """The average spend of recent agent runs: what one run under way will cost."""
    spends = [s for s in map(spend_of, jobs.recent_records(conn, ESTIMATE_RUNS * 3)) if s][:ESTIMATE_RUNS]
    if not spends:
        return 0, 0.0
    return (sum(as_int(s.get("tokens")) for s in spends) // len(spends),
            sum(as_float(s.get("usd")) or 0.0 for s in spends) / len(spends))


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    day: str
    tokens: int  # spent today (runs under way at the estimate)
    usd: float
    limit_tokens: int
    limit_usd: float

    def describe(self) -> str:
        parts = []
        if self.limit_tokens:
            parts.append(f"{self.tokens:,} of {self.limit_tokens:,} tokens")
        if self.limit_usd:
            parts.append(f"${self.usd:.2f} of ${self.limit_usd:.2f}")
        return " and ".join(parts) or "no limit"


def limits(cfg) -> tuple[int, float]:
    return max(0, int(cfg.settings.get("child_daily_tokens") or 0)), \
        max(0.0, float(cfg.settings.get("child_daily_usd") or 0.0))


def check(cfg, conn, now: float | None = None, *, exclude_job: str = "") -> Verdict:
    """May one more child start now? (inside the caller's transaction)"""
    now = time.time() if now is None else now
    limit_tokens, limit_usd = limits(cfg)
    start = day_start(now)
    tokens, usd = spent(conn, start, start + 86400 + 3600)  # a DST day is 25 hours long
    # a runner that died leaves its row 'running': only runs that may still be alive count
    alive_since = now - max(timeout_for(cfg, kind) for kind in CHILD_KINDS) - 120
    running = jobs.running_count(conn, exclude=exclude_job, alive_since=alive_since)
    if running:
        est_tokens, est_usd = _estimate(conn)
        tokens += running * est_tokens
        usd += running * est_usd
    over = (limit_tokens and tokens >= limit_tokens) or (limit_usd and usd >= limit_usd)
    return Verdict(not over, day_of(now), tokens, round(usd, 6), limit_tokens, limit_usd)


def hold(cfg, conn, job: dict, verdict: Verdict, now: float | None = None, *, variables: dict | None = None) -> dict:
    """Park ``job`` (waiting, variables kept; an older one of its session and kind folded in) and
    tell the user once a day; the job's record."""
    now = time.time() if now is None else now
    variables = dict(job.get("variables") or {}) if variables is None else dict(variables)
    folded = []
    for old_id, older in jobs.waiting_like(conn, job):
        if job.get("kind") == "correction":
            earlier = [t for t in [*older.get("earlier_corrections", []), older.get("correction", "")]
                       if isinstance(t, str) and t.strip()]
            mine = [t for t in variables.get("earlier_corrections", []) if isinstance(t, str)]
            variables["earlier_corrections"] = list(dict.fromkeys(earlier + mine))
        folded.append(old_id)
        jobs.finish(conn, old_id, "done", {"ok": True, "mode": "folded", "folded_into": job.get("id"),
                                           "kind": job.get("kind")}, now)
    record = {"ok": True, "mode": "waiting", "waiting": True, "budget": verdict.describe(), "day": verdict.day,
              "folded": folded}
    jobs.set_waiting(conn, job.get("id"), variables, record)
    _tell(conn, verdict, now)
    return record


def _tell(conn, verdict: Verdict, now: float) -> None:
    count = jobs.waiting_count(conn)
    text = (f"tacit's background budget for today is spent ({verdict.describe()}): {count} background "
            f"job{'s' if count != 1 else ''} (memory saves, reviews) wait{'' if count != 1 else 's'} until the "
            "budget allows, tomorrow. `tacit cost` shows the spend; child_daily_tokens / child_daily_usd in "
            "config.toml set the budget.")
    seen = jobs.loads(Ledger.meta_get(conn, NOTICE_KEY)) or {}
    if seen.get("day") == verdict.day:
        notices.retell(conn, seen.get("id"), text)
        return  # once a day: already told (or about to be, with the new count)
    notice_id = notices.add(conn, text, now=now)
    Ledger.meta_set(conn, NOTICE_KEY, json.dumps({"day": verdict.day, "id": notice_id}))


def release(cfg, ledger, now: float | None = None, *, limit: int = 1) -> list[str]:
    """Queue again the oldest waiting jobs (up to ``limit``) when the budget allows; their ids."""
    now = time.time() if now is None else now
    with ledger.write() as conn:
        if not jobs.waiting_count(conn) or not check(cfg, conn, now).allowed:
            return []
        out = [jid for group in jobs.oldest_waiting(conn, limit, MERGE_WINDOW) for jid in group]
        for jid in out:
            jobs.requeue(conn, jid)
        return out
