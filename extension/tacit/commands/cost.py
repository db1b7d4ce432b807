"""``tacit cost [--days N] [--json]`` — what background work spent, and what it changed.

Design notes: docs/design/commands.md#tacitcommandscost
"""

from __future__ import annotations

from tacit.children.budget import report
from tacit.commands import command, emit, positive


def add_parser(subparsers) -> None:
    p = command(subparsers, "cost", lambda args, cfg: emit(report(cfg, args.days), text=format_report) or 0,
                help="what background child agents spent, by day, kind and host",
                description="Spend of tacit's background child agents (tokens, USD) by day, kind and host, "
                            "today's budget, waiting jobs, and what each run changed (docs/cost.md).")
    p.add_argument("--days", type=positive(), default=7, help="how many local days, today included (default 7)")


def _usd(bucket: dict) -> str:
    """Its dollars; a run whose agent reported no cost is said to be unknown, never counted as $0."""
    unknown = bucket["usd_unknown_runs"]
    if unknown and unknown == bucket["runs"]:
        return "cost unknown"
    return f"${bucket['usd']:.4f}" + (f" (+ {unknown} of unknown cost)" if unknown else "")


def _runs(n: int) -> str:
    return f"{n:>4} run{'s' if n != 1 else ' '}"


def format_report(data: dict) -> str:
    t = data["totals"]
    lines = [f"tacit cost: {data['days']} day{'s' if data['days'] != 1 else ''} since {data['since']}: "
             f"{t['runs']} background run{'s' if t['runs'] != 1 else ''}, {t['tokens']:,} tokens, {_usd(t)}"]
    b = data["budget"]
    limit = []
    if b["child_daily_tokens"]:
        limit.append(f"{b['today']['tokens']:,} of the {b['child_daily_tokens']:,} tokens a day allows "
                     "(child_daily_tokens)")
    if b["child_daily_usd"]:
        limit.append(f"${b['today']['usd']:.2f} of the ${b['child_daily_usd']:.2f} a day allows (child_daily_usd)")
    lines.append("today: " + (" and ".join(limit) if limit else "no daily limit")
                 + ("" if b["allows_a_child"] else " — budget spent, new jobs wait"))
    if data["waiting"]:
        lines.append(f"waiting for the budget: {len(data['waiting'])} job(s) ("
                     + ", ".join(sorted({w['kind'] for w in data['waiting']})) + ")")
    if data["by_day"]:
        lines.append("\nby day:")
        lines += [f"  {d['day']}  {_runs(d['runs'])}  {d['tokens']:>12,} tokens  {_usd(d)}" for d in data["by_day"]]
    for title, key in (("by kind", "by_kind"), ("by host", "by_host")):
        if data[key]:
            lines.append(f"\n{title}:")
            lines += [f"  {name:<12} {_runs(v['runs'])}  {v['tokens']:>12,} tokens  {_usd(v)}"
                      for name, v in sorted(data[key].items())]
    changed = [r for r in data["runs"] if r["changes"]]
    if changed:
        lines.append("\nwhat the runs changed:")
        for run in changed[-20:]:
            what = ", ".join(f"#{c['id']} {c['action']} {c['scope']}" for c in run["changes"])
            lines.append(f"  {run['day']} {'+'.join(run['kinds'])} ({run['host'] or '?'}, {run['tokens']:,} tokens): {what}")
    return "\n".join(lines)
