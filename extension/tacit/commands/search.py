"""``tacit search QUERY`` — search every past session, in every host.

Design notes: docs/design/commands.md#tacitcommandssearch
"""

from __future__ import annotations

import os
import sys

from tacit.commands import JSON_OUTPUT, command, emit, one_line_json, positive, refuse
from tacit.display import clip, session_label


NO_SESSIONS = ("No session of any agent was found to search: tacit reads the files each host keeps where it "
               "keeps them (docs/guide.md#searching-past-sessions), and copies none.")


def add_parser(subparsers) -> None:
    from tacit.search.source import host_names as hosts

    p = command(subparsers,
        "search", _search, help="search past sessions of every host (this project by default)",
        description="Search what was said in past sessions of Claude Code, Codex, Hermes and pi: "
                    "each result is an exchange, a message and the agent's reply to it.")
    _arguments(p, hosts())


def _arguments(p, hosts) -> None:
    p.add_argument("query", nargs="*", metavar="WORDS", help="what to look for, in plain words")
    p.add_argument("--all-projects", action="store_true", help="search every project, not only this one")
    p.add_argument("--host", choices=hosts, default=None, help="only sessions of this host")
    p.add_argument("--since", default=None, metavar="WHEN",
                   help="only since then: 2026-11-30, 2026-11-30T09:00, today, yesterday, 30m, 12h, 7d, 2w, 6mo, 1y")
    p.add_argument("--limit", type=positive(), default=5, metavar="N", help="at most N exchanges (default 5, max 50)")
    p.add_argument("--cwd", default=None, metavar="DIR", help="the folder whose project is searched (default: here)")
    p.add_argument("--reindex", action="store_true", help="build the index again from the hosts' session files")


def answer(cfg, request: dict, index) -> dict | None:
    """The service's side of ``search_client.via_service``: ``{"code", "out"}``, or None (not a search,
    or one asked from another time zone than ours: the CLI answers it in local time)."""
    import argparse

    from tacit.search.searcher import search
    from tacit.timespan import parse_since
    from tacit.search.source import host_names
    from tacit.paths import time_zone

    if request.get("tz", "") != time_zone():  # its times (and "today") are read in the client's zone
        return None
    if isinstance(request.get("env"), dict):  # the session files where the client's hosts keep them
        cfg = cfg.for_session(cfg.host, request["env"])

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            raise ValueError(message)

    p = Parser(add_help=False, exit_on_error=False, allow_abbrev=False)
    _arguments(p, host_names())
    p.add_argument("--json", action="store_true")
    try:
        args = p.parse_args(request["argv"])
        text = " ".join(args.query).strip()
        since = parse_since(args.since)
    except (ValueError, argparse.ArgumentError):
        return None
    if not text or args.reindex:
        return None
    cwd = os.path.join(request["cwd"], args.cwd) if args.cwd else request["cwd"]  # --cwd is the CLI's, not ours
    if not os.path.isdir(cwd):
        return None  # the CLI says so
    result = search(cfg, text, cwd=cwd, all_projects=args.all_projects, host=args.host, since=since,
                    limit=args.limit, index=index)
    if args.json:
        return {"code": 0, "out": one_line_json(result) + "\n"}
    return {"code": 0, "out": format_results(result, color=bool(request.get("tty"))) + "\n"}


def _search(args, cfg) -> int:
    import sqlite3

    from tacit.search.indexer import INDEX_FILE, rebuild
    from tacit.search.searcher import search
    from tacit.timespan import parse_since

    text = " ".join(args.query).strip()
    if not text and not args.reindex:
        return refuse("what should I search for? e.g. tacit search how did we fix the CORS error")
    try:
        since = parse_since(args.since)
    except ValueError as exc:
        return refuse(str(exc))
    if args.cwd and not os.path.isdir(args.cwd):
        return refuse(f"--cwd {args.cwd}: no such folder")
    try:
        if args.reindex:
            rebuilt = rebuild(cfg)
            if not text:
                emit(rebuilt, lambda r: f"Index rebuilt: {r['messages']:,} messages from {r['sessions']:,} "
                                        f"sessions ({r['files']:,} files).")
                return 0
        result = search(cfg, text, cwd=args.cwd or os.getcwd(), all_projects=args.all_projects, host=args.host,
                        since=since, limit=args.limit)
    except sqlite3.OperationalError as exc:  # a read-only data folder, a search.db that is a folder
        return refuse(f"the search index ({cfg.state_dir / INDEX_FILE}) cannot be used: {exc}; "
                     "tacit needs its data folder writable (tacit doctor)")
    except sqlite3.DatabaseError as exc:  # damaged inside ("malformed"): only a cache of the hosts' files
        return refuse(f"the search index ({cfg.state_dir / INDEX_FILE}) is damaged: {exc}; "
                      "`tacit search --reindex` builds it again")
    emit(result, lambda r: format_results(r, color=not JSON_OUTPUT["on"] and sys.stdout.isatty()))
    return 0


def _halves(text: str) -> tuple[str, str]:
    """The user's message and the agent's reply of an exchange's text (tool lines left out)."""
    user = agent = ""
    for block in text.split("\n\n"):
        if block.startswith("User: "):
            user = block[len("User: "):]
        elif block.startswith("Agent: "):
            agent = text[text.index(block) + len("Agent: "):]
            break
    return user, agent


def format_results(result: dict, color: bool = False) -> str:
    from tacit.search.query import snippet

    mark = ("\033[1m", "\033[0m") if color else ("**", "**")
    scope = result["scope"]
    where = f"in {scope['project']['name']}" if scope.get("project") else "in all projects"
    if scope.get("host"):
        where += f", {scope['host']} only"
    if scope.get("since"):  # said, as --host is: "0 exchanges" may only mean none that recent
        import time

        where += f", since {time.strftime('%Y-%m-%d %H:%M', time.localtime(scope['since']))}"
    results = result["results"]
    query = clip(result["query"], 200)  # a pasted page is named, not repeated whole
    out = [f"{len(results)} exchange{'s' if len(results) != 1 else ''} for \"{query}\" {where}"
           + (":" if results else ".")]
    for r in results:
        when = r["time"][:16].replace("T", " ")
        out += ["", f"{when}  {r['host']}  {r['project'] or '-'}  "
                    f"session {session_label(r['session_id'])}, turn {r['turn']}"]
        user, agent = _halves(r["text"])
        if user:
            out.append("  you:   " + snippet(user, result["query"], width=160, mark=mark))
        if agent:
            out.append("  agent: " + snippet(agent, result["query"], width=240, mark=mark))
    if result.get("left_out"):
        out += ["", f"({result['left_out']} left out: they failed tacit's context gate)"]
    if not results and result.get("indexed") and not result["indexed"]["files"]:
        out.append(NO_SESSIONS)
    elif not results and scope.get("project") is not None:
        out.append("Try --all-projects, or other words.")
    return "\n".join(out)
