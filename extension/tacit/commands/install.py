"""``tacit install <host>`` / ``tacit uninstall <host>``.

Each host's installer lives with its adapter (``tacit.hosts.<host>.install``)
and exposes ``install(cfg, scope, **options) -> dict`` and
``uninstall(cfg, scope) -> dict``; this module only routes. Installing twice
is idempotent; uninstall removes exactly what install added.
"""

from __future__ import annotations

from tacit.commands import emit, exit_code, say

INSTALLERS = {
    "claude-code": "tacit.hosts.claude_code.install",
    "codex": "tacit.hosts.codex.install",
    "hermes": "tacit.hosts.hermes.install",
    "pi": "tacit.hosts.pi.install",
}


def add_parser(subparsers) -> None:
    for verb in ("install", "uninstall"):
        p = subparsers.add_parser(verb, help=f"{verb} tacit into an agent host")
        p.add_argument("host", choices=sorted(INSTALLERS))
        p.add_argument("--scope", choices=["user", "project"], default="user",
                       help="user: for every project (default); project: this folder only")
        p.add_argument("--project-dir", default=".", help="the project folder for --scope project")
        p.set_defaults(func=_run, verb=verb)


def _run(args, cfg) -> int:
    import importlib

    module = importlib.import_module(INSTALLERS[args.host])
    fn = getattr(module, args.verb)
    result = fn(cfg, args.scope, project_dir=args.project_dir)
    emit(result, text=say)
    return exit_code(result)
