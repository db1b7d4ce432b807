"""The ``tacit`` command line.

Design notes: docs/design/core.md#tacitcli
"""

from __future__ import annotations

import functools
import os
import sys

# The modules of tacit.commands, in --help order, and the top-level commands each registers
# (``add_parser(subparsers)``).
_MODULES = {
    "memory": ("memory", "forget"), "share": ("share",), "skill": ("skill",), "guard": ("guard",),
    "scan": ("scan",), "status": ("status",), "health": ("doctor",),
    "engine": ("consolidate", "skills", "child", "serve", "service", "hook"),
    "install": ("install", "uninstall"), "learn": ("learn",), "detect": ("detect",), "observe": ("observe",),
    "memories": ("memories",), "habits": ("habits",), "bridge": ("bridge",), "patterns": ("patterns", "stats"),
    "review": ("review",), "privacy": ("off", "on"), "cost": ("cost",), "search": ("search",), "ui": ("ui",),
}
COMMANDS = {name: f"tacit.commands.{module}" for module, names in _MODULES.items() for name in names}
COMMAND_MODULES = [f"tacit.commands.{module}" for module in _MODULES]

EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


@functools.cache
def _parser_class():
    """argparse.ArgumentParser with tacit's usage errors, for the whole tree (imported here: the
    hook path never builds a parser)."""
    import argparse

    class TacitArgumentParser(argparse.ArgumentParser):
        wants_json = False  # --json was on the command line: set on the class, so every sub-parser sees it

        def __init__(self, *args, **kwargs):  # sub-parsers are made of this class too
            kwargs.setdefault("allow_abbrev", False)  # `--content x` is not `--content-file x`: a usage error
            super().__init__(*args, **kwargs)

        def error(self, message: str):  # type: ignore[override]
            if message.startswith("unrecognized arguments: -"):  # `tacit search git push --force`
                message += " (words that start with '-' are read as options: put them after '--')"
            if self.wants_json:  # one JSON object, said once (not again as text on stderr)
                from tacit.commands import emit

                emit({"success": False, "error": f"usage: {message}",
                      "usage": " ".join(self.format_usage().split())})
            else:
                self.print_usage(sys.stderr)
                sys.stderr.write(f"{self.prog}: error: {message}\n")
            sys.exit(EXIT_USAGE)

    return TacitArgumentParser


def command_in(argv: list[str]) -> str | None:
    """The top-level command ``argv`` invokes, when ``COMMANDS`` knows its module."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def build_parser(argv: list[str] | None = None):
    """The argument parser; with ``argv``, only the invoked command's module is imported."""
    import importlib

    from tacit import __version__

    parser = _parser_class()(
        prog="tacit",
        description="Memory for coding agents that they never have to be told to keep.",
    )
    parser.add_argument("--version", action="version", version=f"tacit {__version__}")
    command = command_in(argv) if argv is not None else None
    type(parser).wants_json = argv is not None and "--json" in argv
    if argv == ["--version"]:
        return parser  # nothing else to parse: import no command module
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in [COMMANDS[command]] if command else COMMAND_MODULES:
        importlib.import_module(module_name).add_parser(subparsers)
    _add_json_flag(parser)
    return parser


def _add_json_flag(parser) -> None:
    """Every command takes ``--json`` (one JSON object on stdout), whether or not its module declared it."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in set(action.choices.values()):
                if "--json" not in sub._option_string_actions:
                    sub.add_argument("--json", action="store_true", help="print one JSON object")
                _add_json_flag(sub)


def main(argv: list[str] | None = None) -> int:
    os.umask(0o077)  # what tacit creates is private to its user (tacit.safety.file_modes)
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["search"]:  # the running service answers it when it can (docs/search.md)
        from tacit.service.search_client import via_service

        answered = via_service(argv[1:])
        if answered is not None:
            return answered
    if argv == ["serve"]:  # a hook started it and waits for its answer: no parser, no front door
        from tacit.service.server import serve

        try:
            cfg = _config()
        except Exception as exc:  # noqa: BLE001 — never a traceback
            return _failed(exc)
        return serve(cfg)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from tacit.commands import JSON_OUTPUT

    if "--json" in argv[:argv.index("--") if "--" in argv else len(argv)]:
        args.json = True  # given to a group (`tacit memory --json show`): its action's own default said False
    JSON_OUTPUT["on"] = bool(getattr(args, "json", False))
    folder = getattr(args, "project", None)  # a typo there must not send a project's note to the global one
    if isinstance(folder, str) and not os.path.isdir(os.path.expanduser(folder)):
        from tacit.failures import InputError

        return _failed(InputError(f"--project {folder}: no such folder; nothing was changed"))
    if isinstance(folder, str):
        args.project = os.path.expanduser(folder)  # a quoted '~/src/app': every command reads it alike
    try:
        cfg = _config()
        from tacit.app import Tacit
        from tacit.children.allowed import refusal
        from tacit.children.env import actor_from_env
        from tacit.children.orphans import reap

        reap(cfg, quick=True)  # the child of a runner that was killed does not outlive it (issue 21)
        actor = actor_from_env(cfg.env)
        refused = refusal(actor, args)  # a child reading a repository's text runs its own task only
        if refused:
            from tacit.failures import InputError

            return _failed(InputError(refused))
        with Tacit(cfg, actor=actor) as front:
            args.tacit = front  # the command's front door; older commands write through its acting block
            with front.acting():
                return int(args.func(args, cfg) or 0)
    except BrokenPipeError:
        # the reader went away (`tacit memory log | head`): nothing to say, and
        # Python's own flush at exit must not print a traceback either
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 — the contract: one error object, never a traceback
        return _failed(exc)
    finally:  # a corrupt ledger this command moved aside, said on stderr (with --json: in its one object)
        from tacit.commands import JSON_OUTPUT, moved_aside_told

        for line in [] if JSON_OUTPUT["on"] else moved_aside_told():
            sys.stderr.write(f"tacit: {line}\n")


def _config():
    from tacit.config import load_config
    from tacit.hosts import spec as host_specs

    cfg = load_config()  # a host shipped as its own package is discovered there
    host = host_specs.get(cfg.host or "")
    if host is not None and host.adapt_config:
        cfg = host.load("adapt_config")(cfg)  # its own settings first (Hermes: its memory limits)
    return cfg


def _failed(exc: BaseException) -> int:
    from tacit.commands import JSON_OUTPUT, emit
    from tacit.failures import describe_failure

    error, kind = describe_failure(exc)
    if JSON_OUTPUT["on"]:
        emit({"success": False, "error": error, "error_kind": kind})
    else:
        sys.stderr.write(f"tacit: {error}\n")
    return EXIT_REFUSED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
