"""``tacit doctor`` — is everything where it should be, writable, and working? (Also the problems
line of ``tacit status``.)

Design notes: docs/design/commands.md#tacitcommandshealth
"""

from __future__ import annotations

import contextlib
import glob
import os
import time

from tacit import __version__, memory_folder
from tacit.commands import JSON_OUTPUT, command, emit
from tacit.commands.memory import project_of
from tacit.display import session_label
from tacit.failures import describe_failure, failing_handlers, failing_sessions
from tacit.fsutil import write_fault
from tacit.log import log_exception
from tacit.stores.guards import hand_made_problem
from tacit.stores.ledger import GAP_KEY, Ledger, LedgerUnavailable
from tacit.stores.entries import NOT_UTF8, check_file, fit, read_head, too_long, unsafe_to_rewrite
from tacit.stores.memory import MemoryStore

LOW_SPACE_BYTES = 20 * 1024 * 1024  # below this a folder's device is "nearly full"
FAILURE_WINDOW = 7 * 86400  # failing sessions are looked for over the last week


def storage(cfg) -> dict[str, dict]:
    """folder → {ok, error?, free_bytes}; every folder tacit writes."""
    folders = {"data folder": cfg.home_str, "memories": str(cfg.memory_file.parent),
               "skills": str(cfg.skills_dir), "logs": str(cfg.log_file.parent),
               "projects": os.path.join(cfg.home_str, "projects"), "locks": os.path.join(cfg.state_dir_str, "locks")}
    if cfg.state_dir_str != cfg.home_str:
        folders["state folder"] = cfg.state_dir_str
    out: dict[str, dict] = {}
    for name, folder in folders.items():
        entry: dict = {"path": folder, "ok": True}
        if name != "memories" and os.path.lexists(folder) and not os.path.isdir(folder):  # (memories: memory_folder)
            out[name] = {**entry, "ok": False, "error": "not a folder; move it away (tacit recreates the folder)"}
            continue
        if not os.path.isdir(folder):
            entry["absent"] = True  # created on first use: where it would be made must take it
            folder, blocker = _creatable_in(folder)
            if blocker:
                out[name] = {**entry, "ok": False,
                             "error": f"cannot be created: {blocker} is not a folder; move it away"}
                continue
        if folder:
            fault = write_fault(folder, folder)  # named as the folder, not the scratch file it tried
            if fault is not None:
                entry.update(ok=False, error=describe_failure(fault)[0])
            with contextlib.suppress(OSError):
                stats = os.statvfs(folder)
                entry["free_bytes"] = stats.f_bavail * stats.f_frsize
        out[name] = entry
    return out


def _creatable_in(folder: str) -> tuple[str | None, str | None]:
    """(the nearest existing folder above ``folder``, None), or (None, the file on the way that
    makes ``folder`` impossible to create)."""
    path = folder.rstrip("/") or "/"
    while True:
        parent = os.path.dirname(path) or "/"
        if os.path.isdir(parent):
            return parent, None
        if os.path.lexists(parent):
            return None, parent
        if parent == path:
            return None, None
        path = parent


def memory_files(cfg, project=None) -> dict[str, dict]:
    """scope → {path, exists, mode, entries, usage, problem?}."""
    store = MemoryStore(cfg, project)
    out: dict[str, dict] = {}
    for scope in store.targets():
        path = store.path_for(scope)
        entry: dict = {"path": str(path), "exists": path.exists()}
        if entry["exists"]:
            try:
                entry["mode"] = f"{os.stat(path).st_mode & 0o777:o}"
                data, size = read_head(path)
                check = check_file(data, store.limit_for(scope))
                if check.problem != NOT_UTF8:
                    entry["entries"] = len(check.entries)
                    entry["usage"] = store.usage(scope, check.entries)["text"]
                    if told := fit(check.entries, store.limit_for(scope)).told(path, store.limit_for(scope)):
                        entry["warning"] = told  # what a session leaves out of its context unread
                if check.problem:
                    entry["problem"] = unsafe_to_rewrite(path, check)
                if size > len(data):
                    entry["problem"] = too_long(path, size)
            except OSError as exc:
                entry["problem"] = f"{path} cannot be read: {describe_failure(exc)[0]}"
            entry.setdefault("usage", "unreadable")
        else:
            entry["usage"] = store.usage(scope, [])["text"]
        out[scope] = entry
    return out


def ledger(cfg) -> dict:
    """The ledger's state: readable, and any corrupt copies moved aside."""
    out: dict = {"path": str(cfg.ledger_path), "ok": True}
    moved = sorted(glob.glob(f"{glob.escape(str(cfg.ledger_path))}.corrupt-*"))
    out["moved_aside"] = [{"path": p, "at": time.strftime("%Y-%m-%d %H:%M", time.localtime(os.path.getmtime(p)))}
                          for p in moved if not p.endswith(("-wal", "-shm"))]
    try:
        with Ledger(cfg) as led:
            verdict, out["last_event"] = led.check()
            with led.read() as conn:  # a ledger moved aside could not be read: change numbers began at 1
                out["numbers_restarted"] = bool(Ledger.meta_get(conn, GAP_KEY))
        out["ok"] = verdict == "ok"
        if verdict != "ok":
            out["error"] = f"quick_check: {verdict}"
    except (LedgerUnavailable, OSError) as exc:
        out.update(ok=False, error=describe_failure(exc)[0])
    except Exception as exc:  # noqa: BLE001 — a doctor reports, never crashes
        out.update(ok=False, error=f"{type(exc).__name__}: {exc}")
    return out


def _moved_aside(led: dict) -> list[str]:
    """What doctor says of the corrupt ledgers moved aside, and of numbers that began again."""
    told = [f"a corrupt ledger was moved aside on {moved['at']} to {moved['path']} "
            "(what it held is kept there; tacit started a fresh one)" for moved in led["moved_aside"]]
    if led.get("numbers_restarted"):
        told.append("change and guard numbers started again at 1 (a ledger moved aside was unreadable): an undo "
                    "or guard number printed before then may now name another one; check `tacit memory log` or "
                    "`tacit guard list` first")
    return told


def children(cfg) -> dict:
    """Child jobs whose runner was gone (now settled as failed) or running past their timeout."""
    from tacit.children.commands import timeout_for
    from tacit.children.orphans import reap
    from tacit.stores import jobs as job_rows

    out: dict = {"settled": reap(cfg), "orphaned_recently": [], "overdue": []}
    now = time.time()
    with Ledger(cfg) as led, led.read() as conn:
        out["orphaned_recently"] = job_rows.orphaned_since(conn, now - 86400)
        for job in job_rows.running(conn):
            limit = timeout_for(cfg, job["kind"]) + 60
            if now - job["started_at"] > limit:
                out["overdue"].append({**job, "running_for": int(now - job["started_at"])})
    return out


def service(cfg) -> dict:
    """Can the service run? Running now, or its folder usable for its socket and lock."""
    from tacit.paths import run_dir, socket_path
    from tacit.service import client

    out: dict = {"running": False, "ok": True}
    try:
        status = client.status(cfg.state_dir_str)
        out["running"] = bool(status.get("running"))
    except Exception as exc:  # noqa: BLE001
        out["status_error"] = f"{type(exc).__name__}: {exc}"
    if out["running"]:
        return out
    folder = run_dir(cfg.state_dir_str)
    try:
        if os.path.lexists(folder) and (os.path.islink(folder) or not os.path.isdir(folder)):
            raise OSError(f"{folder} is not a folder")
        if len(socket_path(cfg.state_dir_str).encode()) > 107:
            raise OSError(f"the socket path {socket_path(cfg.state_dir_str)} is longer than the system allows")
        if os.path.isdir(folder):
            fault = write_fault(folder, folder)
            if fault is not None:
                raise fault
        elif os.path.isdir(cfg.state_dir_str):
            os.mkdir(folder, 0o700)
    except OSError as exc:
        out.update(ok=False, error=str(exc) if not exc.errno else describe_failure(exc)[0])
    return out


def _jobs_and_service(cfg, problems: list, warnings: list) -> tuple[dict, dict]:
    """The child-job and service checks, their findings added to ``problems``/``warnings``."""
    try:
        jobs = children(cfg)
    except Exception as exc:  # noqa: BLE001 — a doctor reports, never crashes
        jobs = {"settled": [], "orphaned_recently": [], "overdue": []}
        warnings.append(f"child jobs not checked: {describe_failure(exc)[0]}")
    for job in jobs["orphaned_recently"]:
        problems.append(f"child job {job['id']} ({job['kind']}) lost its runner (killed?) and was marked failed "
                        f"on {time.strftime('%Y-%m-%d %H:%M', time.localtime(job['finished_at']))}; its child was "
                        "stopped. What it had saved is undoable with `tacit memory log` / `undo`")
    problems.extend(f"child job {job['id']} ({job['kind']}) has been running for {job['running_for']} s, past "
                    f"its timeout (runner pid {job['pid']})" for job in jobs["overdue"])
    svc = _guarded("service", service, {"running": False, "ok": None}, problems, cfg)
    if svc["ok"] is False:
        problems.append(f"the tacit service cannot start: {svc['error']} (hooks run more slowly, in-process)")
    fault = _guarded("service fault", service_fault, None, problems, cfg)
    if fault:
        svc["fault"] = fault
        problems.append(fault["told"])
    return jobs, svc


def service_fault(cfg) -> dict | None:
    """The fault the hook client recorded (``tacit.service.faults``), or None."""
    from tacit.service import faults

    fault = faults.told(cfg.state_dir_str)
    if fault is None:
        return None
    if "unreadable" in fault:
        fault["told"] = (f"the service's fault record {fault['file']} cannot be read ({fault['unreadable']}): "
                         "remove it; the next hook records the fault again if it still holds")
        return fault
    try:
        when = f" (since {time.strftime('%Y-%m-%d %H:%M', time.localtime(fault['at']))})" if fault["at"] else ""
    except (OverflowError, ValueError, OSError):  # a time no clock shows
        when = ""
    fault["told"] = (f"something else holds the service's socket path: {fault['problem']}{when}. Hooks run "
                     f"in-process, more slowly, until it is fixed: {fault['advice']}. The next hook that "
                     "reaches your own service clears this")
    return fault


def _disk_problems(disks: dict) -> list[str]:
    out = []
    for name, entry in disks.items():
        if not entry["ok"]:
            out.append(f"{name} {entry['path']}: {entry['error']}")
        elif entry.get("free_bytes") is not None and entry["free_bytes"] < LOW_SPACE_BYTES:
            out.append(f"{name} {entry['path']}: the disk is nearly full ({entry['free_bytes'] // 1024:,} KB left)")
    return out


def skill_files(cfg, project=None) -> dict:
    """How many skills apply here (global, the project's, the team's), and those that cannot be read."""
    from tacit.stores.skill_scopes import ScopedSkills

    listing = ScopedSkills(cfg, project).list()
    return {"count": len(listing.get("skills", [])), "problems": listing.get("problems", [])}


def child_agent(cfg) -> dict:
    """The background agent's command for this host, and whether it is found; run from a shell (no
    host), each installed host's (``by_host``): its sessions' corrections are saved by it."""
    from tacit.children.commands import agent_available, command_template, why_no_agent

    template = command_template(cfg, cfg.host)
    out = {"host": cfg.host, "command": template[0] if template else None,
           "available": agent_available(cfg, cfg.host)}
    if cfg.host is None and not cfg.child_command:
        from tacit.commands.status import installed_hosts

        out["by_host"] = {host: {"command": (command_template(cfg, host) or [None])[0],
                                 "available": agent_available(cfg, host), "why_not": why_no_agent(cfg, host)}
                          for host, manifest in installed_hosts(cfg).items() if manifest}
    return out


def hosts_waiting(cfg) -> list[str]:
    """What each host tacit is installed into still needs from you before tacit runs there (its
    installer's ``waiting(cfg)``, when it has one)."""
    from tacit.hosts import installs
    from tacit.hosts import spec as host_specs

    found: list[str] = []
    for host in host_specs.registry().values():
        installer = host.load("installer")
        if installer is not None and hasattr(installer, "waiting"):
            found.extend(installer.waiting(installs.installed_at(cfg, host)[0]))  # where it was installed
    return found


def hosts_elsewhere(cfg) -> list[str]:
    """The hosts installed with other home-folder variables than this shell's (``CODEX_HOME=/x``), and where."""
    from tacit.commands.status import installed_hosts

    elsewhere: dict[str, str] = {}
    installed_hosts(cfg, elsewhere)
    return list(elsewhere.values())


def _guarded(name: str, fn, fallback, problems: list, cfg, *args, **kwargs):
    """``fn(cfg, *args, **kwargs)``; when it raises, ``fallback`` and a problem naming the check."""
    try:
        return fn(cfg, *args, **kwargs)
    except Exception as exc:  # noqa: BLE001 — a doctor reports, never crashes
        log_exception(cfg, "doctor", exc)
        problems.append(f"tacit doctor could not finish its {name} check: {type(exc).__name__}: {exc} "
                        f"(details in {cfg.log_file})")
        return fallback


def check(cfg, project=None) -> dict:
    """Everything ``tacit doctor`` reports; ``success`` when nothing needs the user."""
    problems: list[str] = list(cfg.problems)
    warnings: list[str] = []
    paths = {"home": cfg.home_str, "state_dir": cfg.state_dir_str, "memory_file": str(cfg.memory_file),
             "user_file": str(cfg.user_file), "skills_dir": str(cfg.skills_dir),
             "config_file": str(cfg.config_file), "ledger": str(cfg.ledger_path), "log": str(cfg.log_file)}

    disks = _guarded("storage", storage, {}, problems, cfg)
    problems.extend(_disk_problems(disks))

    memory = _guarded("memory files", memory_files, {}, problems, cfg, project)
    problems.extend(entry["problem"] for entry in memory.values() if entry.get("problem"))
    warnings.extend(entry["warning"] for entry in memory.values() if entry.get("warning"))
    for scope, entry in memory.items():
        moved = memory_folder.problem(cfg, os.path.dirname(entry["path"])) if scope != "team" else None
        if moved and moved not in problems:
            problems.append(moved)
        # modes: every file and folder at once below (tacit.safety.file_modes), not twice
    try:
        from tacit.safety import file_modes

        loose = file_modes.check(cfg)
        problems.extend(p.describe() + "; run chmod go-rwx on it" if p.kind in ("file", "folder", "other")
                        else p.describe() for p in loose)
        for entry in memory.values():  # its Memory line is marked too, not ✓ beside the mode it names
            entry["loose_mode"] = any(p.path == entry["path"] for p in loose)
    except Exception as exc:  # noqa: BLE001
        warnings.append(f"file modes not checked: {type(exc).__name__}: {exc}")
    files = {name: ("not checked" if scope not in memory else
                    "absent (created on first save)" if not memory[scope]["exists"] else
                    f"mode {memory[scope].get('mode', '?')}")
             for name, scope in (("memory_file", "global"), ("user_file", "user"))}

    skills = _guarded("skills", skill_files, {"count": 0, "problems": []}, problems, cfg, project)
    problems.extend(f"skill {p.get('path')}: {p.get('reason')}" for p in skills["problems"])

    led = _guarded("ledger", ledger, {"path": str(cfg.ledger_path), "ok": None, "error": "not checked",
                                      "moved_aside": []}, problems, cfg)
    if led["ok"] is False:
        problems.append(f"ledger {led['path']}: {led.get('error')}")
    warnings.extend(_moved_aside(led))

    now = time.time()
    sessions = _guarded("failing sessions", failing_sessions, [], problems, cfg, since=now - FAILURE_WINDOW,
                        applied=led.get("last_event") or {})
    problems.extend(f"session {session_label(s['session_id'], 12)} on {s['host'] or 'a host'} fails on every event "
                    f"({s['failures']} in a row since {time.strftime('%Y-%m-%d %H:%M', time.localtime(s['since']))}): "
                    f"{s['last_error']} — details in {cfg.log_file}" for s in sessions)
    handlers = _guarded("failing handlers", failing_handlers, {}, problems, cfg, since=now - 86400)
    warnings.extend(f"handler {name} failed {info['count']} time(s) today: {info['last_error']}"
                    for name, info in handlers.items())

    if project is not None and os.path.lexists(team := os.path.join(project.shared_dir, "MEMORY.md")) \
            and (outside := project.shared_outside()):
        problems.append(f"{team} is a link to {outside}, outside the repository: tacit does not read it as "
                        "team memory (remove the link, or make it a file of the repository)")
    if (kept := hand_made_problem(cfg)) is not None:  # hand-made guards outlive a corrupt ledger only through it
        problems.append(kept)
    if project is not None and cfg.settings.get("instruction_files", True):
        try:  # the repository's AGENTS.md, CLAUDE.md …: what was not read as rules (docs/guards.md)
            from tacit.stores.guard_files import read as read_instructions

            warnings.extend(f"instruction file {n}" for n in read_instructions(project.root).notices)
        except Exception as exc:  # noqa: BLE001
            warnings.append(f"instruction files not checked: {type(exc).__name__}: {exc}")

    problems.extend(_guarded("hosts", hosts_waiting, [], problems, cfg))  # e.g. Codex hooks not trusted yet
    warnings.extend(_guarded("hosts", hosts_elsewhere, [], problems, cfg))
    jobs, svc = _jobs_and_service(cfg, problems, warnings)
    child = _guarded("child agent", child_agent, {"host": cfg.host, "command": None, "available": False},
                     problems, cfg)
    usage = {scope: entry.get("usage", "unknown") for scope, entry in memory.items()}
    usage["memory"] = usage.get("project", usage.get("global"))
    return {"success": not problems, "version": __version__, "paths": paths, "files": files,
            "storage": disks, "memory": memory, "usage": usage, "skills": skills,
            "ledger": {k: v for k, v in led.items() if k != "last_event"},
            "failing_sessions": sessions, "failing_handlers": handlers, "child_agent": child,
            "child_jobs": jobs, "service": svc,
            "settings": cfg.settings, "problems": problems, "warnings": warnings}


def add_parser(subparsers) -> None:
    p = command(subparsers, "doctor", run,
                help="check storage, memory files, skills, the ledger and sessions")
    p.add_argument("--project", metavar="DIR", help="the project of this folder (default: the working folder)")


def run(args, cfg) -> int:
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
    problem = f"tacit doctor could not finish its checks: {type(exc).__name__}: {exc} (details in {cfg.log_file})"
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
        mark = "✗" if entry.get("problem") or entry.get("loose_mode") else "!" if entry.get("warning") else "✓"
        lines.append(f"  {mark} {scope}: {detail}")  # over its limit: "!", as its warning below
    ledger = report["ledger"]
    lines.append(f"Ledger: {'ok' if ledger['ok'] else ledger.get('error')} ({ledger['path']})")
    skills = report["skills"]
    lines.append(f"Skills: {skills['count']} ({len(skills['problems'])} unreadable)")
    child = report["child_agent"]
    if child.get("by_host"):  # from a shell: the agent each installed host's sessions use
        lines.append("Child agent: " + "; ".join(
            f"{a['command'] or 'none'} in {host} sessions" + ("" if a["available"] else f" — {a['why_not']}")
            for host, a in child["by_host"].items()))
    else:
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
