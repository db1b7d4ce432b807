"""``tacit install <host>`` / ``tacit uninstall <host>``.

Design notes: docs/design/commands.md#tacitcommandsinstall
"""

from __future__ import annotations

import os

from tacit.commands import reply
from tacit.hosts import installs
from tacit.hosts import spec as host_specs


def installable() -> list[str]:
    """The hosts with an installer, by name (a host's own package included)."""
    host_specs.discover()
    return sorted(name for name, host in host_specs.registry().items() if host.installer)


def add_parser(subparsers) -> None:
    for verb in ("install", "uninstall"):
        p = subparsers.add_parser(verb, help=f"{verb} tacit {'into' if verb == 'install' else 'from'} an agent host")
        p.add_argument("host", choices=installable())
        p.add_argument("--scope", choices=["user", "project"], default="user",
                       help="user: for every project (default); project: this folder only")
        p.add_argument("--project-dir", default=".", metavar="DIR", help="the project folder for --scope project")
        p.set_defaults(func=_run, verb=verb)


def _run(args, cfg) -> int:
    refused = _project_dir_problem(args, cfg) if args.verb == "install" and args.scope == "project" else None
    if refused:
        return reply({"success": False, "error": refused})
    host = host_specs.get(args.host)
    fn = getattr(host.load("installer"), args.verb)
    user = args.scope == "user"
    if user and args.verb == "uninstall":  # where the install wrote, from a shell without its CODEX_HOME too
        cfg = installs.for_uninstall(cfg, host)
    result = fn(cfg, args.scope, project_dir=os.path.expanduser(args.project_dir))  # a quoted '~/app' too
    if user and result.get("success"):
        try:
            (installs.remember if args.verb == "install" else installs.forget)(cfg, host)
        except OSError as exc:  # done all the same: only a shell without its home variable misses it
            result.setdefault("warnings", []).append(f"where it was installed is not recorded: {exc}")
    return reply(result)


def _project_dir_problem(args, cfg) -> str | None:
    """Why ``--scope project`` cannot install into ``--project-dir``: a typo made its folders, and the
    home folder (never a project) is where the user-scope install lives."""
    folder = os.path.realpath(os.path.expanduser(args.project_dir))
    if not os.path.isdir(folder):
        return f"--project-dir {args.project_dir}: no such folder; nothing was installed"
    home = os.path.realpath(cfg.env.get("HOME") or os.path.expanduser("~"))
    if folder in (home, os.path.dirname(folder)):
        return (f"{folder} is {'your home folder' if folder == home else 'the root folder'}, never a project: "
                f"run `tacit install {args.host}` (--scope user) for every project, or --scope project in one")
    return None
