"""A daily budget for background work: what child agents spend (a price table for hosts that report
tokens but no cost), and when they wait.

Design notes: docs/design/children.md#tacitchildrenbudget
"""

from __future__ import annotations

import fnmatch
import json
import time
from dataclasses import dataclass

from tacit.children.commands import timeout_for
from tacit.hookspecs import CHILD_KINDS
from tacit.hosts import spec as host_specs
from tacit.stores import history, jobs, notices
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


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens."""

    pattern: str
    input: float
    output: float
    cache_read: float
    cache_write: float

    def cost(self, *, input: int = 0, output: int = 0, cache_read: int = 0, cache_write: int = 0) -> float:
        """USD for these token counts (``input`` excludes cached tokens)."""
        return (input * self.input + output * self.output + cache_read * self.cache_read
                + cache_write * self.cache_write) / 1_000_000


# pattern, input, output, cache read, cache write (USD per million tokens)
DEFAULT_PRICES: tuple[Price, ...] = tuple(Price(*row) for row in (
    ("claude-opus-4-5*", 5.0, 25.0, 0.50, 6.25),
    ("claude-opus-4*", 15.0, 75.0, 1.50, 18.75),
    ("*opus*", 15.0, 75.0, 1.50, 18.75),
    ("*sonnet*", 3.0, 15.0, 0.30, 3.75),
    ("*haiku-3-5*", 0.80, 4.0, 0.08, 1.0),
    ("*haiku*", 1.0, 5.0, 0.10, 1.25),
    ("gpt-5*-mini*", 0.25, 2.0, 0.025, 0.25),
    ("gpt-5*-nano*", 0.05, 0.40, 0.005, 0.05),
    ("gpt-5*", 1.25, 10.0, 0.125, 1.25),
    ("codex-mini*", 1.50, 6.0, 0.375, 1.50),
    ("gpt-4.1-mini*", 0.40, 1.60, 0.10, 0.40),
    ("gpt-4.1-nano*", 0.10, 0.40, 0.025, 0.10),
    ("gpt-4.1*", 2.0, 8.0, 0.50, 2.0),
    ("gpt-4o-mini*", 0.15, 0.60, 0.075, 0.15),
    ("gpt-4o*", 2.50, 10.0, 1.25, 2.50),
    ("o4-mini*", 1.10, 4.40, 0.275, 1.10),
    ("o3*", 2.0, 8.0, 0.50, 2.0),
))


def parse_price(entry: str) -> Price | None:
    """``"model-glob=input,output[,cache_read[,cache_write]]"`` → Price, or None (cache prices:
    read a tenth of input, write = input, when missing)."""
    if not isinstance(entry, str) or "=" not in entry:
        return None
    pattern, _, numbers = entry.partition("=")
    try:
        values = [float(v) for v in numbers.split(",") if v.strip()]
    except ValueError:
        return None
    if not pattern.strip() or not 2 <= len(values) <= 4 or any(v < 0 for v in values):
        return None
    inp, out = values[0], values[1]
    cache_read = values[2] if len(values) > 2 else inp / 10
    cache_write = values[3] if len(values) > 3 else inp
    return Price(pattern.strip().lower(), inp, out, cache_read, cache_write)


def price_for(cfg, model: str | None) -> Price | None:
    """The first price whose pattern ``model`` matches: the user's (``child_prices``), then the defaults."""
    if not isinstance(model, str) or not model.strip():
        return None
    name = model.strip().lower()
    if "/" in name:  # "provider/model" (pi, OpenRouter)
        name = name.rsplit("/", 1)[1]
    own = tuple(p for p in (parse_price(e) for e in cfg.settings.get("child_prices") or ()) if p)
    return next((price for price in own + DEFAULT_PRICES if fnmatch.fnmatchcase(name, price.pattern)), None)


def as_float(value) -> float | None:
    """A reported count or cost: a number (not a bool) that is not negative, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return float(value)


def as_int(value) -> int:
    number = as_float(value)
    return int(value) if number is not None and number >= 0 else 0  # NaN is 0


def reported(cfg, model: str, usd, inp, out, read=0, write=0, tokens=0) -> Spend:
    """A child's report as a ``Spend``: the host's cost (``usd``) when it gave one, else the price
    table's; ``tokens`` when it gave a total, else the sum (each count read with ``as_int``)."""
    counts = dict(input=as_int(inp), output=as_int(out), cache_read=as_int(read), cache_write=as_int(write))
    usd, source = as_float(usd), "host"
    if usd is None:
        price = price_for(cfg, model)
        usd, source = (round(price.cost(**counts), 8), "price_table") if price else (None, "unknown")
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


# what runs spent and changed, as data (``tacit cost``, the viewer)
def _bucket() -> dict:
    return {"runs": 0, "tokens": 0, "usd": 0.0, "usd_unknown_runs": 0}


def _add(bucket: dict, run: dict) -> None:
    bucket["runs"] += 1
    bucket["tokens"] += run["tokens"]
    if run["usd"] is None:
        bucket["usd_unknown_runs"] += 1
    else:
        bucket["usd"] = round(bucket["usd"] + float(run["usd"]), 6)


def report(cfg, days: int = 7, now: float | None = None) -> dict:
    """The cost report as data (what ``--json`` prints)."""
    now = time.time() if now is None else now
    days = max(1, min(int(days), 366))
    since = day_start(now) - (days - 1) * 86400
    with Ledger(cfg) as ledger, ledger.read() as conn:
        rows = jobs.since(conn, since - 3600)
        runs, waiting = [], []
        for job_id, kind, session_id, host, status, created, started, finished, text in rows:
            record = jobs.loads(text)
            record = record if isinstance(record, dict) else {}
            if status == "waiting":
                waiting.append({"job_id": job_id, "kind": kind, "session_id": session_id, "host": host,
                                "since": day_of(created), "budget": record.get("budget")})
                continue
            if status not in ("done", "failed") or record.get("mode") not in ("agent", "deterministic") \
                    or record.get("skipped"):
                continue  # merged into another run, folded into a later job, or skipped (no agent: nothing ran)
            at = finished or created
            if at < since:
                continue
            spend = spend_of(record)
            start = float(record.get("start") or started or created)
            end = start + float(record.get("duration") or 0) + 1.0 if record.get("duration") is not None \
                else (finished or now) + 1.0
            kinds = record.get("kinds") or [kind]
            runs.append({"job_id": job_id, "day": day_of(at), "kind": kind,
                         "kinds": kinds, "host": host or record.get("host") or "",
                         "session_id": session_id, "mode": record.get("mode"), "ok": bool(record.get("ok")),
                         "tokens": int(spend.get("tokens") or 0) if spend else 0,
                         "usd": spend.get("usd") if spend else (0.0 if record.get("mode") == "deterministic" else None),
                         "usd_source": spend.get("usd_source") if spend else "none",
                         "model": spend.get("model") if spend else "",
                         "changes": history.child_rows(conn, session_id, "+".join(kinds), start - 0.5, end)})
        verdict = check(cfg, conn, now)
    totals, by_day, by_kind, by_host = _bucket(), {}, {}, {}
    for run in runs:
        for bucket in (totals, by_day.setdefault(run["day"], _bucket()),
                       by_kind.setdefault(run["kind"], _bucket()), by_host.setdefault(run["host"] or "?", _bucket())):
            _add(bucket, run)
    limit_tokens, limit_usd = limits(cfg)
    return {"success": True, "days": days, "since": day_of(since),
            "budget": {"child_daily_tokens": limit_tokens, "child_daily_usd": limit_usd, "today": {
                "tokens": verdict.tokens, "usd": verdict.usd}, "allows_a_child": verdict.allowed},
            "totals": totals,
            "by_day": [{"day": day, **bucket} for day, bucket in sorted(by_day.items())],
            "by_kind": by_kind, "by_host": by_host, "waiting": waiting, "runs": runs}
