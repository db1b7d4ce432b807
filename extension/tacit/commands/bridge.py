"""``tacit bridge --stdio`` — a host extension's fallback transport.

Design notes: docs/design/commands.md#tacitcommandsbridge
"""

from __future__ import annotations

import argparse

from tacit.commands import command, reply
from tacit.hosts import spec as host_specs


def add_parser(subparsers) -> None:
    p = command(subparsers, "bridge", _run, help="serve a host extension over stdio (internal)")
    p.add_argument("--stdio", action="store_true", required=True,
                   help="speak the JSON-lines protocol on stdin/stdout")
    p.add_argument("--host", default="", help=argparse.SUPPRESS)  # default: the one host that has a bridge


def _run(args, cfg) -> int:
    host = host_specs.first_with("stdio_session", args.host)
    if host is None:
        return reply({"success": False, "error": f"no host{f' {args.host!r}' if args.host else ''} "
                                                 "serves a session over stdio"})
    # the bridge loads its own config for its host (``cfg`` here is host-less)
    return host.load("stdio_session")()
