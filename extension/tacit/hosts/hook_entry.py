"""``tacit hook <host> <Event>``: the entry point hook-based hosts call.

Never break the host: whatever happens — bad JSON on stdin, an unreadable
data folder, a bug — this logs it and exits 0 with no output, so the host
carries on as if tacit were not there. With ``TACIT_CHILD=1`` it returns at
once: a child agent's hooks must do nothing.

Speed: a hook runs as its own process on every prompt and every tool call,
so its whole budget is about one interpreter start-up. Installed hooks call
``main`` through ``python -P -c "from tacit.hosts.hook_entry import main;
main()" <host> <Event>`` rather than the ``tacit`` console script (whose
wrapper imports ``re``, ~7 ms) or ``python -m tacit.cli`` (``runpy`` pulls in
``importlib.util`` and ``contextlib``, ~8 ms); ``-P`` keeps the project folder
(the hook's cwd) off ``sys.path`` so a project's own ``tacit/`` or ``json.py``
can never shadow ours. This module imports only ``sys``; the host module is
imported only for a known host. ``main`` ends the process with ``os._exit``
after flushing, skipping the interpreter's teardown (see
``docs/hosts/claude-code.md`` for the measured figures).
"""

from __future__ import annotations

import sys

HOSTS = {
    "claude-code": "tacit.hosts.claude_code.hook",
    "codex": "tacit.hosts.codex.hook",
}


def run_hook(argv: list) -> int:
    cfg = None
    try:
        from tacit.config import load_config

        host = argv[0] if argv else ""
        cfg = load_config(host=host or None)
        if cfg.is_child or host not in HOSTS:
            _drain_stdin()
            return 0
        module = __import__(HOSTS[host], fromlist=["handle"])
        payload = sys.stdin.buffer.read()
        output = module.handle(cfg, argv[1] if len(argv) > 1 else "", payload)
        if output:
            sys.stdout.write(output)
            sys.stdout.flush()
    except BaseException as exc:  # noqa: BLE001 — including SystemExit/KeyboardInterrupt
        try:
            from tacit.log import log_exception

            log_exception(cfg, f"hook {' '.join(argv)}", exc)
        except BaseException:  # noqa: BLE001
            pass
    return 0


def main() -> None:
    """``python -c "from tacit.hosts.hook_entry import main; main()" HOST EVENT``.

    Ends the process with ``os._exit`` once stdout and stderr are flushed:
    the hook's work is done and written (every file on the hook path is
    written inside a ``with`` block or by ``os.write``, SQLite commits inside
    the ledger's context managers, and the OS drops our ``flock`` locks with
    the descriptors), so the interpreter's teardown — freeing every module and
    object, ~2 ms in a hook process — would only make the host wait longer.
    No output is lost either way, and a host that closed our stdout cannot
    turn exit 0 into 120 (the interpreter's own flush at exit never runs)."""
    code = run_hook(sys.argv[1:])
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # the host closed it: nothing to tell it anyway
    import os

    os._exit(code)


def _drain_stdin() -> None:
    # Read what the host wrote so it never sees a broken pipe.
    try:
        if not sys.stdin.isatty():
            sys.stdin.buffer.read()
    except (OSError, ValueError):
        pass
