"""What background child runs spent and changed, as data (``tacit cost``, the viewer).

Design notes: docs/design/children.md#tacitchildrencost
"""

from __future__ import annotations

import time

from tacit.children import budget
from tacit.stores import history, jobs
from tacit.stores.ledger import Ledger


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
    since = budget.day_start(now) - (days - 1) * 86400
    with Ledger(cfg) as ledger, ledger.read() as conn:
        rows = jobs.since(conn, since - 3600)
        runs, waiting = [], []
        for job_id, kind, session_id, host, status, created, started, finished, text in rows:
            record = jobs.loads(text)
            record = record if isinstance(record, dict) else {}
            if status == "waiting":
                waiting.append({"job_id": job_id, "kind": kind, "session_id": session_id, "host": host,
                                "since": budget.day_of(created), "budget": record.get("budget")})
                continue
            if status not in ("done", "failed") or record.get("mode") not in ("agent", "deterministic"):
                continue  # merged into another run, folded into a later job, or skipped
            at = finished or created
            if at < since:
                continue
            spend = budget.spend_of(record)
            start = float(record.get("start") or started or created)
            end = start + float(record.get("duration") or 0) + 1.0 if record.get("duration") is not None \
                else (finished or now) + 1.0
            kinds = record.get("kinds") or [kind]
            runs.append({"job_id": job_id, "day": budget.day_of(at), "kind": kind,
                         "kinds": kinds, "host": host or record.get("host") or "",
                         "session_id": session_id, "mode": record.get("mode"), "ok": bool(record.get("ok")),
                         "tokens": int(spend.get("tokens") or 0) if spend else 0,
                         "usd": spend.get("usd") if spend else (0.0 if record.get("mode") == "deterministic" else None),
                         "usd_source": spend.get("usd_source") if spend else "none",
                         "model": spend.get("model") if spend else "",
                         "changes": history.child_rows(conn, session_id, "+".join(kinds), start - 0.5, end)})
        verdict = budget.check(cfg, conn, now)
    totals, by_day, by_kind, by_host = _bucket(), {}, {}, {}
    for run in runs:
        for bucket in (totals, by_day.setdefault(run["day"], _bucket()),
                       by_kind.setdefault(run["kind"], _bucket()), by_host.setdefault(run["host"] or "?", _bucket())):
            _add(bucket, run)
    limit_tokens, limit_usd = budget.limits(cfg)
    return {"success": True, "days": days, "since": budget.day_of(since),
            "budget": {"child_daily_tokens": limit_tokens, "child_daily_usd": limit_usd, "today": {
                "tokens": verdict.tokens, "usd": verdict.usd}, "allows_a_child": verdict.allowed},
            "totals": totals,
            "by_day": [{"day": day, **bucket} for day, bucket in sorted(by_day.items())],
            "by_kind": by_kind, "by_host": by_host, "waiting": waiting, "runs": runs}
