"""``tacit bridge --stdio`` — the pi extension's fallback transport.

The pi extension talks to the engine service's socket; when no service can
start it runs this once per session instead and exchanges JSON lines with it
on stdin/stdout (the same protocol: ``docs/hosts/pi.md``; the server is
``tacit.hosts.pi.bridge``). ``--stdio`` is required, so what a bare
``tacit bridge`` means can still change.
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
