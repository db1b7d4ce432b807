"""``tacit status`` — one screen: the hosts tacit is installed in, the
service, memory per scope with usage, what was learned since yesterday,
background work today and anything that needs attention."""

from __future__ import annotations

import os
import time

from tacit.commands import command, emit
from tacit.commands.memory import project_of
from tacit.display import clip

DAY = 86400


def add_parser(subparsers) -> None:
    from tacit.hosts import spec as host_specs

    host_specs.discover()  # before the config is read: a host shipped as its own package is listed too
    p = command(subparsers, "status", run, help="hosts, service, memory, what was learned, cost, problems")
    p.add_argument("--project", metavar="DIR", help="the project of this folder (default: the working folder)")


def gather(tacit, project) -> dict:
    cfg = tacit.cfg
    from tacit.commands.health import check
    from tacit.privacy.exclusion import why_excluded
    from tacit.service import client
    from tacit.stores.ledger import LedgerUnavailable

    report = check(cfg, project)
    try:
        learned = [c.as_dict() for c in tacit.changes(since=time.time() - DAY, limit=500)
                   if c.actor.kind != "user" and c.action not in ("undo",)]
    except LedgerUnavailable:  # the health check names it among the problems: the screen still shows
        learned = []
    elsewhere: dict[str, str] = {}
    hosts = installed_hosts(cfg, elsewhere)
    return {
        "success": True,  # it ran (exit 0); the health verdict is "problems" (`tacit doctor` exits on it)
        "hosts": hosts,
        "hosts_elsewhere": elsewhere,  # installed with other home-folder variables than this shell's
        "service": client.status(cfg.state_dir_str),
        "project": None if project is None else {"name": project.name, "root": project.root},
        "off": None if project is None else why_excluded(cfg, project.root),  # why tacit keeps nothing here
        "memory": {scope: {"usage": e["usage"], "path": e["path"], "entries": e.get("entries", 0)}
                   for scope, e in report["memory"].items()},
        "learned": learned,
        "background": background_today(cfg),
        "problems": report["problems"],
        "warnings": report["warnings"],
        "guards": _guards(cfg, project),
    }


def installed_hosts(cfg, elsewhere: dict | None = None) -> dict[str, str | None]:
    """host → its user-scope install manifest when tacit is installed there, else None: read from each
    installer's own manifest (its spec's ``installer``), never by running the host; where this shell's
    environment says, else where the install recorded it wrote (``elsewhere`` gets host → what to tell)."""
    from tacit.hosts import installs
    from tacit.hosts import spec as host_specs

    found: dict[str, str | None] = {}
    for name, host in host_specs.registry().items():
        try:
            if not host.installer:
                continue
            _, path, env = installs.installed_at(cfg, host)
            found[name] = None if path is None else str(path)
            if env and path is not None and elsewhere is not None:
                elsewhere[name] = installs.elsewhere(host, path, env)
        except Exception:  # noqa: BLE001 — a broken host's package never breaks `tacit status`
            continue
    return found


def _guards(cfg, project) -> dict | None:
    """This project's guard figures (``tacit guard stats``), or None."""
    try:
        from tacit.stores.guard_stats import stats
        from tacit.stores.guards import GuardStore
        from tacit.stores.ledger import Ledger

        with Ledger(cfg) as ledger:
            rows = stats(cfg, GuardStore(cfg, ledger), only=project)["projects"]
        return {k: v for k, v in rows[0].items() if k != "per_guard"} if rows else None
    except Exception:  # noqa: BLE001 — a status line, never a failure
        return None


def background_today(cfg) -> dict:
    """Child-agent runs since midnight, their cost against the daily budget, how many wait."""
    from tacit.children import budget
    from tacit.stores import jobs
    from tacit.stores.ledger import Ledger, LedgerUnavailable

    now = time.time()
    midnight = budget.day_start(now)
    limit_tokens, limit_usd = budget.limits(cfg)
    out = {"runs": 0, "failed": 0, "cost_usd": 0.0, "tokens": 0, "waiting": 0,
           "limit_tokens": limit_tokens, "limit_usd": limit_usd}
    if not os.path.exists(cfg.ledger_path):
        return out
    try:
        with Ledger(cfg) as led, led.read() as conn:
            for status, count in jobs.finished_by_status(conn, midnight).items():
                out["runs"] += count
                out["failed"] += count if status == "failed" else 0
            out["tokens"], usd = budget.spent(conn, midnight, now + 1)
            out["cost_usd"] = round(usd, 4)
            out["waiting"] = jobs.waiting_count(conn)
    except LedgerUnavailable as exc:
        out["error"] = str(exc)
    return out


def run(args, cfg) -> int:
    emit(gather(args.tacit, project_of(args)), text=render)
    return 0


def render(status: dict) -> str:
    hosts = status["hosts"]
    on = [h for h, where in hosts.items() if where]
    lines = [f"Hosts: {', '.join(on) if on else 'none yet (tacit install claude-code | codex | hermes | pi)'}"]
    lines.extend(f"  {note}" for note in status.get("hosts_elsewhere", {}).values())
    service = status["service"]
    lines.append(f"Service: running (pid {service.get('pid')}, version {service.get('version', '?')})"
                 if service.get("running") else "Service: not running (it starts with the next session"
                 + (")" if on else " once a host is installed)"))
    project = status["project"]
    if status.get("off"):
        back = "remove it there" if status["off"].startswith("exclude") else "`tacit on` turns it back on"
        lines.append(f"Off here: tacit keeps and learns nothing in this project ({status['off']}); {back}")
    lines.append("Memory" + (f" ({project['name']}):" if project else ":"))
    for scope, entry in status["memory"].items():
        lines.append(f"  {scope:<8} {entry['usage']:<28} {entry['entries']} entr{'y' if entry['entries'] == 1 else 'ies'}")
    learned = status["learned"]
    lines.append(f"Learned since yesterday: {len(learned) or 'nothing'}")
    for change in learned[:5]:
        lines.append(f"  #{change['id']} {change['action']} {change['scope']}: {clip(change['text'], 90)} "
                     f"({change['actor']})")
    if len(learned) > 5:
        lines.append(f"  … {len(learned) - 5} more: tacit memory log --since yesterday")
    bg = status["background"]
    parts = [f"{bg['runs']} child run(s)"]
    if bg["failed"]:
        parts.append(f"{bg['failed']} failed")
    if bg["cost_usd"]:
        parts.append(f"${bg['cost_usd']:.2f}")
    if bg["tokens"] or bg["limit_tokens"]:
        parts.append(f"{bg['tokens']:,} tokens" + (f" of the {bg['limit_tokens']:,} a day allows"
                                                    if bg["limit_tokens"] else ""))
    if bg["waiting"]:
        parts.append(f"{bg['waiting']} waiting for the budget (tacit cost)")
    lines.append("Background today: " + ", ".join(parts))
    guards = status.get("guards")
    if guards:
        files = f" ({guards['from_files']} from instruction files)" if guards.get("from_files") else ""
        lines.append(f"Guards: {guards['guards']} active{files}, {guards['stopped']} call(s) stopped, "
                     f"{guards.get('prevented', 0)} mistake(s) prevented, {guards['repeats']} repeat mistake(s)")
    if status["problems"]:
        lines.append(f"Problems ({len(status['problems'])}): run tacit doctor")
        lines.extend(f"  ✗ {p}" for p in status["problems"][:5])
    else:
        lines.append("Problems: none")
    if status.get("warnings"):  # a file tacit could not read, a handler failing: said in full by tacit doctor
        lines.append(f"Worth knowing ({len(status['warnings'])}): run tacit doctor")
    return "\n".join(lines)
