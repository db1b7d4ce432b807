"""CLI command groups, one module each (see tacit.cli).

Shared helpers for the JSON-output contract live here.
"""

from __future__ import annotations

import json
import os
import sys

from tacit.display import printable
from tacit.failures import InputError, LedgerUnavailable, describe_failure

JSON_OUTPUT = {"on": False}  # set by tacit.cli from ``--json``


def command(subparsers, name: str, func, **options):
    """``subparsers.add_parser(name, **options)``, run by ``func`` (its ``args.func``)."""
    parser = subparsers.add_parser(name, **options)
    parser.set_defaults(func=func)
    return parser


def project_folder(args, cfg) -> str:
    """The folder a command works in: ``--project DIR``, ``$TACIT_PROJECT`` (a child's), or the cwd."""
    return getattr(args, "project", None) or cfg.env.get("TACIT_PROJECT") or os.getcwd()


def emit(obj, text=None) -> None:
    """Print the result: one JSON object with ``--json`` (or no ``text``), else ``text`` for a person."""
    if JSON_OUTPUT["on"] or text is None:
        told = moved_aside_told()
        if told and isinstance(obj, dict):
            obj = {**obj, "ledger_moved_aside": told}
        sys.stdout.write(one_line_json(obj) + "\n")
        sys.stdout.flush()
        return
    failed = isinstance(obj, dict) and obj.get("success") is False
    out = printable(text(obj) if callable(text) else text)  # a clone's memory or skill cannot drive the terminal
    stream = sys.stderr if failed else sys.stdout  # a refusal is an error message, for a person
    stream.write(out if out.endswith("\n") else out + "\n")
    stream.flush()


def moved_aside_told() -> list[str]:
    """A sentence for each corrupt ledger this command moved aside, told once: its history seemed
    gone ("No changes recorded.") with no word of why."""
    ledger = sys.modules.get("tacit.stores.ledger")  # not imported: nothing was moved aside
    if ledger is None or not ledger.MOVED_ASIDE:
        return []
    told = [f"the ledger was corrupt: tacit moved it aside to {path} (what it held is kept there) and "
            "started a fresh one, so the history starts again here (tacit doctor)" for path in ledger.MOVED_ASIDE]
    ledger.MOVED_ASIDE.clear()
    return told


def one_line_json(obj) -> str:
    """``obj`` as JSON on one line for every line reader: U+2028, U+2029 and NEL (raw in JSON strings,
    yet line breaks to str.splitlines and others) escaped."""
    text = json.dumps(obj, ensure_ascii=False, indent=None)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("\x85", "\\u0085")


def say(result: dict) -> str:
    """The text of a store result: its message (or error, with what to do)."""
    if result.get("success") is False:
        lines = [f"tacit: {result.get('error', 'failed')}"]
        if result.get("remediation"):
            lines.append(str(result["remediation"]))
        for match in result.get("matches") or []:
            lines.append(f"  - {match}")
        return "\n".join(lines)
    line = str(result.get("message") or "Done.")
    if result.get("usage"):
        line += f" [{result['target']}: {result['usage']}]" if result.get("target") else f" [{result['usage']}]"
    if result.get("change_id"):
        line += f" (undo: tacit memory undo {result['change_id']})"
    if result.get("unrecorded"):
        line += f" ({result['unrecorded']})"
    return line


def exit_code(result: dict) -> int:
    """0 when the store operation succeeded, 1 when it was refused."""
    return 0 if result.get("success") else 1


def answer(work) -> int:
    """Emit ``work()``'s result and return its exit code; an unavailable learning ledger is answered as one error."""
    try:
        result = work()
    except LedgerUnavailable as exc:
        return unavailable(exc)
    return reply(result)


def unavailable(exc: LedgerUnavailable, what: str = "learning ledger", who: str = "tacit") -> int:
    """An unusable ledger, answered as one error (exit 1) with its kind: a read-only or full disk is
    said as that (``storage``, as every command says it), anything else as ``what`` unavailable."""
    error, kind = describe_failure(exc)
    if kind != "storage":
        error = f"{what} unavailable: {exc}"
    emit({"success": False, "error": error, "error_kind": kind}, text=lambda r: f"{who}: {r['error']}")
    return 1


def reply(result: dict) -> int:
    """Emit a command's result (text: ``say``) and return its exit code."""
    emit(result, text=say)
    return exit_code(result)


def refuse(error: str, code: int = 1, who: str = "tacit") -> int:
    """Emit a refusal (text: ``who: error``) and return ``code``, its exit code."""
    emit({"success": False, "error": error}, text=lambda r: f"{who}: {r['error']}")
    return code


def positive(kind=int):
    """An argparse type for a count (``--limit``, ``--days``): a finite number above zero.
    ``--limit 0`` or ``--days -5`` is a usage error, not quietly read as 1."""
    import argparse
    import math

    def count(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {'whole ' if kind is int else ''}number") from None
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"give a number above 0, not {text}")
        return value

    return count


MAX_INPUT_BYTES = 32 * 1024 * 1024  # read from stdin or a file argument at most: /dev/zero is refused, not read


def read_bounded(handle, what: str) -> bytes:
    """At most ``MAX_INPUT_BYTES`` of ``handle``; more is an InputError naming ``what``."""
    data = handle.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"{what} holds more than {MAX_INPUT_BYTES // 2 ** 20} MiB; nothing was changed")
    return data


def read_text_arg(value: str, *, lenient: bool = False) -> str:
    """``-``: the text from stdin, invalid UTF-8 refused (or replaced when ``lenient``)."""
    if value == "-":
        data = read_bounded(sys.stdin.buffer, "stdin")
        try:
            return data.decode("utf-8", errors="replace" if lenient else "strict")
        except UnicodeDecodeError as exc:
            raise InputError(f"stdin is not valid UTF-8 (bad byte at offset {exc.start}); nothing was changed") from None
    return value
