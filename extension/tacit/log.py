"""The data folder's log: where every swallowed error goes.

Design notes: docs/design/core.md#tacitlog"""

from __future__ import annotations

import contextlib
import os
import time
import traceback
from pathlib import Path

from tacit.fsutil import append_private_line, atomic_write_text
from tacit.safety.secrets import redact_secrets

_MAX_BYTES = 2_000_000  # rotate once: tacit.log -> tacit.log.1


def log(cfg, level: str, where: str, message: str) -> None:
    """Append one line: ``<iso time> <LEVEL> [pid] where: message``."""
    with contextlib.suppress(Exception):  # logging must never break the caller
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        message = redact_secrets(message)  # an error may quote what it failed on
        # 0600 in a 0700 folder whatever the process's umask (Hermes runs tacit in its own process)
        line = f"{stamp} {level.upper()} [{os.getpid()}] {where}: {message}\n"
        append_private_line(cfg.log_file, line, rotate_at=_MAX_BYTES)


def log_exception(cfg, where: str, exc: BaseException | None = None) -> None:
    """Log an exception with its traceback. Safe to call with cfg=None."""
    with contextlib.suppress(Exception):
        text = "".join(traceback.format_exception(exc)) if exc else traceback.format_exc()
        if cfg is None:
            return
        log(cfg, "error", where, text.rstrip())


def report_config_problems(cfg) -> None:
    """Log config problems once per distinct set (remembered in the logs folder), not on every hook."""
    with contextlib.suppress(Exception):
        if not cfg.problems:
            return
        text = "\n".join(cfg.problems)
        mark = os.path.join(cfg.state_dir_str, "logs", ".config-problems")
        with contextlib.suppress(OSError):
            with open(mark, encoding="utf-8") as handle:
                if handle.read() == text:
                    return
        for problem in cfg.problems:
            log(cfg, "warning", "config", f"{problem} (see `tacit doctor`)")
        atomic_write_text(Path(mark), text)
