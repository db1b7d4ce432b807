"""What a child agent printed, read by its host's spec (``child``).

Each host's module (``tacit.hosts.<name>.child``) has ``usage(stdout,
usage_file)`` (its report of tokens and cost, or None when the output is not
its own), ``spend(cfg, usage, model)`` (that report as a ``Spend``) and
``reply(stdout)`` (the child's final reply when it printed JSON). The job's
host is asked first, then every other host (a configured ``child_command``
may run another agent). ``json_lines`` and ``read_tail`` are shared.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tacit.hosts import spec as host_specs

USAGE_FILE_CAP = 64_000  # bytes of a usage report read (Hermes's is a few hundred)


def _readers(host: str | None) -> list:
    return [(h.name, h.load("child")) for h in host_specs.with_own_first(host) if h.child]


def parse_usage(stdout: bytes, usage_file: Path, host: str | None = None) -> dict | None:
    """The usage a host reported, as it reported it, with ``"format"``: the
    host whose report it is; None when no host recognises the output."""
    for name, reader in _readers(host):
        usage = reader.usage(stdout, usage_file)
        if isinstance(usage, dict):
            return {**usage, "format": name}
    return None


def reply_text(stdout: str, host: str | None = None) -> str | None:
    """The child's final reply when its host printed it in its own format; None for plain text."""
    for _, reader in _readers(host):
        reply = reader.reply(stdout)
        if reply is not None:
            return reply
    return None


def json_lines(text: str):
    """Each line of ``text`` that is a JSON object."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                data = json.loads(line)
            except ValueError:
                continue
            if isinstance(data, dict):
                yield data


def json_output(text: str):
    """The JSON-object lines of an output that is JSON (its first character
    is ``{``); nothing for plain text."""
    text = text.strip()
    return json_lines(text) if text.startswith("{") else iter(())


def json_tail(text: str, lines: int = 5):
    """The whole text as one JSON object, then each of its last ``lines`` lines, newest first."""
    for candidate in (text, *reversed(text.splitlines()[-lines:])):
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            yield data


def read_tail(path: Path, cap: int) -> bytes:
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > cap:
                handle.seek(size - cap)
            return handle.read(cap)
    except OSError:
        return b""
