"""The ``tacit`` command line.

Every command group lives in its own module under ``tacit/commands/`` and adds
its sub-parser through ``add_parser(subparsers)``; this module only lists them.
Store commands print exactly one JSON object and exit 0 (done), 1 (refused:
limit, scan, no match) or 2 (usage error) — later checks and child agents
rely on that contract.

``tacit hook …`` is dispatched before argparse is even built: it runs on every
host event and must import as little as possible.
"""

from __future__ import annotations

import sys

# Order = order in --help. Each module defines add_parser(subparsers).
COMMAND_MODULES = [
    "tacit.commands.memory",
    "tacit.commands.skill",
    "tacit.commands.scan",
    "tacit.commands.doctor",
    "tacit.commands.engine",
    "tacit.commands.install",
    "tacit.commands.learn",
    "tacit.commands.detect",
    "tacit.commands.observe",
    "tacit.commands.memories",
    "tacit.commands.habits",
    "tacit.commands.bridge",
]

EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


def build_parser():
    import argparse
    import importlib

    from tacit import __version__

    parser = argparse.ArgumentParser(
        prog="tacit",
        description="Memory for coding agents that they never have to be told to keep.",
    )
    parser.add_argument("--version", action="version", version=f"tacit {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:
        from tacit.hosts.hook_entry import run_hook  # light, never raises

        return run_hook(argv[1:])

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from tacit.config import load_config

    cfg = load_config()
    return int(args.func(args, cfg) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
