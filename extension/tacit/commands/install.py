"""``tacit install <host>`` / ``tacit uninstall <host>``.

Design notes: docs/design/commands.md#tacitcommandsinstall
"""

from __future__ import annotations

from tacit.commands import reply
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
        p.add_argument("--project-dir", default=".", help="the project folder for --scope project")
        p.set_defaults(func=_run, verb=verb)


def _run(args, cfg) -> int:
    module = host_specs.get(args.host).load("installer")
    fn = getattr(module, args.verb)
    return reply(fn(cfg, args.scope, project_dir=args.project_dir))
