"""The data folder's log: where every swallowed error goes.

Never-break-the-host rule: a host entry point catches everything and calls
``log_exception``; this module must itself never raise. It uses plain file
appends rather than the ``logging`` package so a hook process pays nothing for
configuring handlers it will use once, if at all.
"""

from __future__ import annotations

import os
import time
import traceback
from pathlib import Path

from tacit.fsutil import append_private_line
from tacit.safety.secrets import redact_secrets

_MAX_BYTES = 2_000_000  # rotate once: tacit.log -> tacit.log.1


def _write(log_file: Path, line: str) -> None:
    try:
        try:
            if log_file.stat().st_size > _MAX_BYTES:
                os.replace(log_file, str(log_file) + ".1")
        except FileNotFoundError:
            pass
        # 0600 in a 0700 folder whatever the process's umask (Hermes runs tacit in its own process)
        append_private_line(log_file, line)
    except Exception:  # noqa: BLE001 — logging must never break the caller
        pass


def log(cfg, level: str, where: str, message: str) -> None:
    """Append one line: ``<iso time> <LEVEL> [pid] where: message``."""
    try:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        message = redact_secrets(message)  # an error may quote what it failed on
        _write(cfg.log_file, f"{stamp} {level.upper()} [{os.getpid()}] {where}: {message}\n")
    except Exception:  # noqa: BLE001
        pass


def log_exception(cfg, where: str, exc: BaseException | None = None) -> None:
    """Log an exception with its traceback. Safe to call with cfg=None."""
    try:
        text = "".join(traceback.format_exception(exc)) if exc else traceback.format_exc()
        if cfg is None:
            return
        log(cfg, "error", where, text.rstrip())
    except Exception:  # noqa: BLE001
        pass


def report_config_problems(cfg) -> None:
    """Log config problems (wrong types, unknown keys) once per distinct set,
    not on every hook: the last reported set is remembered in the logs folder.
    Costs nothing when there are no problems."""
    try:
        if not cfg.problems:
            return
        import os

        text = "\n".join(cfg.problems)
        mark = os.path.join(cfg.state_dir_str, "logs", ".config-problems")
        try:
            with open(mark, encoding="utf-8") as handle:
                if handle.read() == text:
                    return
        except OSError:
            pass
        for problem in cfg.problems:
            log(cfg, "warning", "config", f"{problem} (see `tacit doctor`)")
        fd = os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
    except Exception:  # noqa: BLE001
        pass
