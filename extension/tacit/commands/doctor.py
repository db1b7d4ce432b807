"""``tacit doctor`` — is everything where it should be, and readable?

Reports (one JSON object): version, host, resolved paths, config problems
(wrong types, unknown keys — the values that fell back to defaults), file
permissions of the memory files, malformed skills (path and reason), the
state of the ledger, and which child-agent command would run. Exit 0 when
nothing needs attention, 1 otherwise.
"""

from __future__ import annotations

import os

from tacit.commands import emit


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("doctor", help="check config, paths, permissions and skills")
    p.set_defaults(func=run)


def check(cfg) -> dict:
    from tacit import __version__

    problems: list[str] = list(cfg.problems)
    paths = {
        "home": cfg.home_str,
        "state_dir": cfg.state_dir_str,
        "memory_file": str(cfg.memory_file),
        "user_file": str(cfg.user_file),
        "skills_dir": str(cfg.skills_dir),
        "config_file": str(cfg.config_file),
        "ledger": str(cfg.ledger_path),
        "log": str(cfg.log_file),
    }
    files = {}
    for name in ("memory_file", "user_file"):
        path = paths[name]
        if not os.path.exists(path):
            files[name] = "absent (created on first save)"
            continue
        mode = os.stat(path).st_mode & 0o777
        files[name] = f"mode {mode:o}"
        if mode & 0o077:
            problems.append(f"{path} is readable by others (mode {mode:o}); run chmod 600")
        if not os.access(path, os.R_OK | os.W_OK):
            problems.append(f"{path} is not readable and writable by you")
    for folder in (cfg.home_str, cfg.state_dir_str):
        if os.path.exists(folder) and not os.access(folder, os.W_OK):
            problems.append(f"{folder} is not writable")

    skills = {"count": 0, "problems": []}
    try:
        from tacit.stores.skills import SkillStore

        listing = SkillStore(cfg).list()
        skills["count"] = len(listing.get("skills", []))
        skills["problems"] = listing.get("problems", [])
        problems.extend(f"skill {p.get('path')}: {p.get('reason')}" for p in skills["problems"])
    except Exception as exc:  # noqa: BLE001
        problems.append(f"skills: {type(exc).__name__}: {exc}")

    from tacit.children.commands import agent_available, command_template

    template = command_template(cfg, cfg.host)
    child = {
        "host": cfg.host,
        "command": template[0] if template else None,
        "available": agent_available(cfg, cfg.host),
    }
    from tacit.stores.memory import MemoryStore

    store = MemoryStore(cfg)
    usage = {t: store.usage(t)["text"] for t in ("memory", "user")}
    return {
        "success": not problems,
        "version": __version__,
        "paths": paths,
        "files": files,
        "usage": usage,
        "skills": skills,
        "child_agent": child,
        "settings": cfg.settings,
        "problems": problems,
    }


def run(args, cfg) -> int:
    report = check(cfg)
    emit(report)
    return 0 if report["success"] else 1
