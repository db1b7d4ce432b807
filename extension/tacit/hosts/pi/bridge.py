"""``tacit bridge --stdio``: the pi extension's fallback when the service
cannot be reached, and the server of a pi child agent's tools.

Design notes: docs/design/hosts.md#tacithostspibridge
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

from tacit.config import load_config
from tacit.hosts.pi.protocol import HOST, PROTOCOL_VERSION, PiSession
from tacit.hosts.runtime import build_engine
from tacit.log import log, log_exception

BACKGROUND_FLUSH_SECONDS = 10.0


def run_stdio() -> int:
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    proto_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    cfg = None
    try:
        cfg = load_config(host=HOST)
        engine = build_engine(cfg, "inprocess", host=HOST)
        log(cfg, "info", "pi.bridge", f"start: pid={os.getpid()} child={int(cfg.is_child)} "
                                      f"protocol={PROTOCOL_VERSION}")
        with os.fdopen(proto_fd, "wb", buffering=0) as out:
            try:
                return PiSession(engine, sys.stdin.buffer, out).serve()
            finally:
                engine.drain(BACKGROUND_FLUSH_SECONDS)
                engine.close()
    except Exception as exc:  # noqa: BLE001
        log_exception(cfg, "pi.bridge", exc)
        sys.stderr.write(f"tacit bridge failed: {type(exc).__name__}: {exc}\n")
        return 1
