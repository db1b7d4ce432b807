"""The engine's commands: ``tacit serve``, ``tacit service status|stop``,
``tacit hook HOST EVENT``, ``tacit child run JOB_ID``, and the slash commands
``tacit consolidate`` and ``tacit skills``."""

from __future__ import annotations

import argparse
import os
import sys

from tacit.app import Actor
from tacit.children.launch import run_job_id
from tacit.commands import command, emit, exit_code, project_folder
from tacit.hosts.hooks import run_in_process
from tacit.projects import project_for
from tacit.service import client
from tacit.service.server import serve
from tacit.slash import memory_consolidate, memory_skills


def add_parser(subparsers) -> None:
    p = command(subparsers, "consolidate", _consolidate,
                help="merge the memory that is near its limit, every scope here (/memory-consolidate)")
    p.add_argument("--deterministic", action="store_true", help="merge duplicates only; no child agent")
    p.add_argument("--force", action="store_true", help="also scopes that are not near their limit")
    p.add_argument("--project", metavar="DIR", help="the project whose memory (default: the working folder)")
    p.add_argument("--session", metavar="ID", default="consolidate", help=argparse.SUPPRESS)  # whose slash command

    command(subparsers, "skills", _skills, help="list skills with their files (/memory-skills)")
    command(subparsers, "serve", lambda args, cfg: serve(cfg),
            help="run the engine service of this data folder (started on demand)")

    p = command(subparsers, "service", _service, help="the engine service: status or stop")
    p.add_argument("action", choices=("status", "stop"),
                   help="status: is it running; stop: stop it (the next hook starts a fresh one)")

    p = command(subparsers, "hook", _hook,
                help="run one hook event in this process (what a hook falls back to)")
    p.add_argument("host", help="the host whose hook this is, as the installed hook command names it")
    p.add_argument("event", help="the hook event (SessionStart, PreToolUse …); the payload is read on stdin")

    p = subparsers.add_parser("child", help="child-agent jobs (internal)")
    sub = p.add_subparsers(dest="child_command", required=True)
    run = command(sub, "run", _child_run, help="run one queued job (started detached by the engine)")
    run.add_argument("job_id", help="the queued job's id")


def _consolidate(args, cfg) -> int:
    result = memory_consolidate(args.tacit, use_agent=False if args.deterministic else None, force=args.force,
                                project=project_for(project_folder(args, cfg)),
                                session_id=args.session)
    emit(result, text=result["text"])
    return exit_code(result)


def _skills(args, cfg) -> int:
    result = memory_skills(cfg, project=project_for(cfg.env.get("TACIT_PROJECT") or os.getcwd()))
    emit(result, text=result["text"])
    return 0


def _service(args, cfg) -> int:
    if args.action == "status":
        result = {"success": True, **client.status(cfg.state_dir_str)}  # the command's result shape
        if args.json:
            emit(result)
        elif result.get("running"):
            print(f"tacit service running: pid {result['pid']}, tacit {result['version']}, "
                  f"up {result['uptime_seconds']:.0f} s, {result['events']} events, "
                  f"idle {result['idle_seconds']:.0f} s of {result['idle_exit_seconds']} s, "
                  f"memory {result['rss_kb'] // 1024} MB\nsocket: {result['socket']}")
            if result.get("jobs_held"):  # tacit.service.launches
                print(f"{result['jobs_held']} background job(s) wait for their session's next hook "
                      "(the environment its agent was launched with)")
        else:
            print(f"tacit service not running (the next hook starts it)\nsocket: {result['socket']}")
        return 0
    result = client.stop(cfg.state_dir_str)
    result = {"success": bool(result["stopped"] or not result["running"]), **result}
    emit(result) if args.json else print(result["message"])
    return 0 if result["success"] else 1


def _hook(args, cfg) -> int:
    out = run_in_process(args.host, args.event, sys.stdin.buffer.read())
    if out:
        sys.stdout.write(out)
    return 0


def _child_run(args, cfg) -> int:
    # the runner is tacit's own doing, whoever's environment started it (a Claude Code-started
    # service passes its shell's marker on): the job's child, fallback or integrity check
    # names its actor for what it writes; anything else is the runner's
    with args.tacit.as_actor(Actor(kind="learner", name="child runner")).acting():
        record = run_job_id(cfg, args.job_id)
    if record is None:  # no such job, or not queued (another runner took it): nothing to run
        emit({"success": False, "job_id": args.job_id, "error": f"no queued job {args.job_id}"},
             lambda o: f"tacit: {o['error']}")
        return 1
    emit({"success": bool(record.get("ok")), "job_id": args.job_id, "record": record},
         lambda o: f"tacit: job {o['job_id']}: {o['record'].get('mode', '?')}, {'ok' if o['success'] else 'failed'}")
    return 0 if record.get("ok") else 1
