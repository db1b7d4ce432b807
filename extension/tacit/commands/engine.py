"""Engine plumbing and the slash commands: ``tacit consolidate``,
``tacit skills``, ``tacit child run``, ``tacit drain``."""

from __future__ import annotations

from tacit.commands import emit


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("consolidate", help="consolidate MEMORY.md and USER.md (/memory-consolidate)")
    p.add_argument("--deterministic", action="store_true", help="merge duplicates only; no child agent")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=_consolidate)

    p = subparsers.add_parser("skills", help="list skills with their files (/memory-skills)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_skills)

    p = subparsers.add_parser("child", help="child-agent jobs (internal)")
    sub = p.add_subparsers(dest="child_command", required=True)
    run = sub.add_parser("run", help="run one job file (started detached by hook hosts)")
    run.add_argument("job_file")
    run.set_defaults(func=_child_run)

    p = subparsers.add_parser("drain", help="replay the background journal (internal)")
    p.set_defaults(func=_drain)


def _consolidate(args, cfg) -> int:
    from tacit.slash import memory_consolidate

    result = memory_consolidate(cfg, use_agent=False if args.deterministic else None)
    if args.json:
        emit(result)
    else:
        print(result["text"])
    return 0


def _skills(args, cfg) -> int:
    from tacit.slash import memory_skills

    result = memory_skills(cfg)
    if args.json:
        emit(result)
    else:
        print(result["text"])
    return 0


def _child_run(args, cfg) -> int:
    from tacit.child import run_job_file

    record = run_job_file(cfg, args.job_file)
    return 0 if record.get("ok") else 1


def _drain(args, cfg) -> int:
    from tacit.background import drain
    from tacit.hosts.runtime import build_engine

    engine = build_engine(cfg, mode="drain")
    handled = drain(cfg, engine)
    emit({"success": True, "handled": handled})
    return 0
