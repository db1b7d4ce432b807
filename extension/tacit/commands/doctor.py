"""``tacit doctor`` — is everything where it should be, writable and working?

Design notes: docs/design/commands.md#tacitcommandsdoctor"""

from __future__ import annotations

from tacit.commands import JSON_OUTPUT, emit
from tacit.commands.memory import project_of


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("doctor", help="check storage, memory files, skills, the ledger and sessions")
    p.add_argument("--project", metavar="DIR", help="the project of this folder (default: the working folder)")
    p.set_defaults(func=run)


def run(args, cfg) -> int:
    from tacit.commands.health import check

    try:
        report = check(cfg, project_of(args))
    except Exception as exc:  # noqa: BLE001 — a doctor reports, never crashes
        report = broken_report(cfg, exc)
    # a report, not a refusal: stdout even when it lists problems (`tacit doctor | less`)
    if JSON_OUTPUT["on"]:
        emit(report)
    else:
        print(render(report))
    return 0 if report["success"] else 1


def broken_report(cfg, exc: BaseException) -> dict:
    """What ``tacit doctor`` says when one of its own checks fails."""
    from tacit import __version__

    problem = f"tacit doctor could not finish its checks: {type(exc).__name__}: {exc} (details in {cfg.log_file})"
    from tacit.log import log_exception

    log_exception(cfg, "doctor", exc)
    return {"success": False, "version": __version__, "paths": {"home": cfg.home_str}, "storage": {},
            "memory": {}, "ledger": {"ok": False, "path": str(cfg.ledger_path), "error": "not checked"},
            "skills": {"count": 0, "problems": []}, "child_agent": {"command": None, "available": False},
            "problems": [problem], "warnings": []}


def render(report: dict) -> str:
    lines = [f"tacit {report['version']} — data folder {report['paths']['home']}", "Storage:"]
    for name, entry in report["storage"].items():
        free = entry.get("free_bytes")
        space = f", {free / 1e9:.1f} GB free" if free is not None else ""
        state = "ok" if entry["ok"] else entry["error"]
        lines.append(f"  {'✓' if entry['ok'] else '✗'} {name}: {entry['path']} ({state}{space})")
    lines.append("Memory:")
    for scope, entry in report["memory"].items():
        detail = entry.get("problem") or (f"{entry.get('usage')}, mode {entry.get('mode')}" if entry["exists"]
                                          else f"{entry.get('usage')} (no file yet)")
        lines.append(f"  {'✗' if entry.get('problem') else '✓'} {scope}: {detail}")
    ledger = report["ledger"]
    lines.append(f"Ledger: {'ok' if ledger['ok'] else ledger.get('error')} ({ledger['path']})")
    skills = report["skills"]
    lines.append(f"Skills: {skills['count']} ({len(skills['problems'])} unreadable)")
    child = report["child_agent"]
    lines.append(f"Child agent: {child['command'] or 'none (deterministic fallbacks)'}"
                 f"{'' if child['available'] or not child['command'] else ' — not found'}")
    if report["problems"]:
        lines.append(f"{len(report['problems'])} problem(s):")
        lines.extend(f"  ✗ {p}" for p in report["problems"])
    if report["warnings"]:
        lines.append("Worth knowing:")
        lines.extend(f"  ! {w}" for w in report["warnings"])
    if not report["problems"]:
        lines.append("Nothing needs your attention.")
    return "\n".join(lines)
