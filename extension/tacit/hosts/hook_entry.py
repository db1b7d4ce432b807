"""``tacit hook <host> <Event>``: the entry point hook-based hosts call.

Never break the host: whatever happens — bad JSON on stdin, an unreadable
data folder, a bug — this logs it and exits 0 with no output, so the host
carries on as if tacit were not there. With ``TACIT_CHILD=1`` it returns at
once: a child agent's hooks must do nothing. Imports stay minimal (``json``,
``os``, ``sys``); the host module is imported only for a known host.
"""

from __future__ import annotations

import sys

HOSTS = {
    "claude-code": "tacit.hosts.claude_code.hook",
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
        import importlib

        module = importlib.import_module(HOSTS[host])
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


def _drain_stdin() -> None:
    # Read what the host wrote so it never sees a broken pipe.
    try:
        if not sys.stdin.isatty():
            sys.stdin.buffer.read()
    except (OSError, ValueError):
        pass
