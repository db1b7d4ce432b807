"""``tacit learn PATH...`` — replay recorded sessions and show what tacit learns.

Design notes: docs/design/commands.md#tacitcommandslearn
"""

from __future__ import annotations

import sys

from tacit.commands import command, emit
from tacit.display import clip
from tacit.hosts import spec as host_specs
from tacit.hosts.runtime import build_engine
from tacit.learn.replay import formats, replay
from tacit.safety.secrets import redact_secrets

_KIND_LABEL = {"correction": "correction save", "review": "background review",
               "skill": "skill extraction", "flush": "flush", "consolidate": "consolidation"}


def add_parser(subparsers) -> None:
    host_specs.discover()  # a host shipped as its own package: its transcripts and its child too
    hosts = sorted(_agents())
    read = " or ".join(formats().values())
    p = command(subparsers,
        "learn", _learn, help=f"replay recorded sessions ({read}) through tacit",
        description="Replay recorded sessions through tacit's engine and report what it detects: "
                    "corrections, background reviews, skill extractions, flushes. Without --apply "
                    "nothing is written.")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="a .jsonl file or a folder of them, e.g. ~/.claude/projects/<project>/")
    p.add_argument("--apply", action="store_true",
                   help="run the handlers for real: save corrections, run reviews/skills/flushes "
                        "(with an agent for --host, else the deterministic fallbacks)")
    p.add_argument("--host", choices=hosts, default=None,
                   help="whose child agent runs the jobs with --apply (default: none → fallbacks)")
    p.add_argument("--json", action="store_true", help="print the full report as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr")


def _agents() -> list[str]:
    """The hosts whose child agent can run the jobs."""
    return [name for name, host in host_specs.registry().items() if host.child_command]


def _progress_printer(stream):
    state = {"shown": False}

    def show(info: dict) -> None:
        if info.get("file") is None:
            if state["shown"]:
                stream.write("\r\033[K")
                stream.flush()
            return
        state["shown"] = True
        stream.write(f"\r\033[Ktacit learn: file {info['files_done'] + 1}/{info['files_total']}, "
                     f"{info['events']:,} events…")
        stream.flush()

    return show


def _learn(args, cfg) -> int:
    shown = not args.no_progress and sys.stderr.isatty()
    progress = _progress_printer(sys.stderr) if shown else None
    report = replay(cfg, args.paths, apply=args.apply, host=args.host, progress=progress, build_engine=build_engine)
    readable = [f for f in report["files"] if not f.get("error")]
    if not readable:
        report["success"] = False
        report["error"] = "nothing readable: " + ("; ".join(f"{f['path']}: {f.get('error')}" for f in report["files"])
                                                  or "no session files there")
    if args.json:
        emit(report)
    else:
        print(format_report(report))
    return 0 if readable else 1


def _quote(text: str, limit: int = 100) -> str:
    return f'"{clip(redact_secrets(str(text)), limit)}"'  # what a transcript said is never printed with its secrets


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


def _job_line(job: dict, dry_run: bool) -> str:
    kind = job["kind"]
    label = _KIND_LABEL.get(kind, kind)
    if kind == "correction":
        what = _quote(job.get("correction", ""), 70)
        if job.get("earlier"):
            what += f" (+ {_plural(len(job['earlier']), 'earlier one')})"
    elif kind == "review":
        what = f"{job.get('reason', '')} since the last review"
    elif kind == "skill":
        names = ", ".join(job.get("tool_names", []))
        what = f"{job.get('tool_call_count', 0)} tool calls in one turn ({names})"
    elif kind == "flush":
        what = "before compaction" if job.get("why") == "compact" else "at session end"
    else:
        what = ""
    line = f"turn {job['turn']:>3}  {label}: {what}"
    if not dry_run and "ok" in job:
        if job.get("nothing_to_save"):
            line += "  → nothing to save"
        elif job["ok"] and job.get("refused") and not job.get("saved"):
            line += f"  → not saved: {clip(job['refused'][0], 110)}"
        elif job["ok"] and job.get("left_for_review") and not job.get("saved"):
            line += "  → nothing saved: no rule tacit can phrase exactly (an agent can)"
        elif job["ok"]:
            line += f"  → done ({job.get('mode')})"
        elif job.get("skipped"):
            line += "  → skipped (needs an agent)"
        else:
            line += f"  → failed ({job.get('error') or 'see logs/children.jsonl'})"
    return line


def format_report(report: dict) -> str:
    totals = report["totals"]
    dry = report["dry_run"]
    head = (f"tacit learn: {_plural(totals['files'], 'file')}, {_plural(totals['sessions'], 'session')}, "
            f"{_plural(totals['turns'], 'turn')}, {_plural(totals['tool_calls'], 'tool call')}")
    out = [head + (" — dry run, nothing was written" if dry else " — applied")]
    if report.get("is_child"):
        out.append("(TACIT_CHILD=1 is set: tacit is inert inside a child agent, so nothing is detected)")

    out += [f"! {f['path']}: {f['error']}" for f in report["files"] if f.get("error")]

    labels = formats()
    for s in report["sessions"]:
        fmt = labels.get(s["format"], s["format"])
        out += ["", f"{s['file']}  ({fmt}, session {s['session_id']})",
                f"  {_plural(s['turns'], 'turn')}, {_plural(s['tool_calls'], 'tool call')}"]
        if s["corrections"]:
            out.append(f"  corrections detected ({len(s['corrections'])}):")
            out += [f"    turn {c['turn']:>3}  {_quote(c['text'])}" for c in s["corrections"]]
        else:
            out.append("  corrections detected: none")
        if s["jobs"]:
            out.append("  would start:" if dry else "  ran:")
            out += ["    " + _job_line(job, dry) for job in s["jobs"]]
        if s.get("pending_correction"):
            out.append(f"  still pending at the end (rate limit): {_quote(s['pending_correction'], 70)}")

    malformed = totals.get("malformed_lines", 0)
    if malformed:
        examples = [e for f in report["files"] for e in f.get("malformed_examples", [])][:3]
        out += ["", f"{_plural(malformed, 'malformed line')} skipped ({'; '.join(examples)})"]

    out.append("")
    if not report["sessions"]:
        out.append("No conversation found in these files.")
        return "\n".join(out)
    parts = [_plural(totals["corrections"], "correction")]
    for kind, word in (("correction", "correction save"), ("review", "review"),
                       ("skill", "skill extraction"), ("flush", "flush"), ("consolidate", "consolidation")):
        n = totals.get(f"{kind}_jobs", 0)
        if n or kind in ("correction", "review", "skill"):
            parts.append(_plural(n, word, "flushes" if word == "flush" else None))
    out.append("Summary: " + ", ".join(parts) + ".")
    notes = report.get("review_notes", 0)
    if dry:
        out.append(f"Review notes: {notes} would be made (what was said that may be worth keeping).")
        out.append("Nothing was written. `tacit learn --apply PATH…` runs these for real: a correction is "
                   f"saved to memory by a child agent (--host {'|'.join(_agents())}), or without one "
                   "only as a rule tacit can phrase exactly (\"Use pnpm, not npm.\"); reviews, skill "
                   "extractions and flushes need that agent.")
    else:
        added = report.get("added", {})
        for target, entries in sorted(added.items(), key=lambda item: item[0] != "user"):
            if entries:
                scope, _, root = target.partition(":")
                name = {"user": "USER.md", "memory": "MEMORY.md"}.get(scope) or f"the {scope} memory of {root}"
                out.append(f"Added to {name}:")
                out.extend(f"  + {_quote(e, 110)}" for e in entries)
        skipped = sum(1 for s in report["sessions"] for j in s["jobs"] if j.get("skipped"))
        if skipped and not report.get("agent") and report.get("host"):
            out.append(f"{_plural(skipped, 'job')} skipped: reviews, skill extractions and flushes need a "
                       f"child agent, and {report['host']}'s cannot run here: {report.get('no_agent')}.")
        elif skipped and not report.get("agent"):
            out.append(f"{_plural(skipped, 'job')} skipped: reviews, skill extractions and flushes need "
                       f"a child agent (--host {'|'.join(_agents())}, or child_command in config.toml).")
        if not any(added.values()):
            out.append("Memory unchanged.")
        for how, names in (report.get("skills") or {}).items():
            if names:
                out.append(f"Skills {how}: {', '.join(names)} (`tacit skill view NAME`).")
        out.append(f"Review notes: {notes} new, undecided: `tacit review --all` lists them (each is dated the day "
                   "it was said)." if notes else "Review notes: none new.")
    return "\n".join(out)
