"""``tacit bridge --stdio`` — the long-lived process the pi extension talks to.

The pi extension (TypeScript) starts this once per session and exchanges JSON
lines with it on stdin/stdout; the protocol is in ``docs/hosts/pi.md`` and the
server in ``tacit.hosts.pi.bridge``. ``--stdio`` is the only transport (and
required, so a later socket transport can be added without changing what a
bare ``tacit bridge`` means).
"""

from __future__ import annotations


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("bridge", help="serve the pi extension over stdio (internal)")
    p.add_argument("--stdio", action="store_true", required=True,
                   help="speak the JSON-lines protocol on stdin/stdout")
    p.set_defaults(func=_run)


def _run(args, cfg) -> int:
    from tacit.hosts.pi.bridge import run_stdio

    # the bridge loads its own config for host "pi" (``cfg`` here is host-less)
    return run_stdio()
