"""What happens around a stop: the call's identity, and the user's answer.

Design notes: docs/design/guards.md#tacitguardsoutcome
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Iterable

from tacit.lazyre import lazy
from tacit.events import TOOL_ARG_CHARS, clip_tool_args
from tacit.guards.shell import MAX_CHARS

GUARD_ARG_CHARS = MAX_CHARS  # what the shell scan reads of a command
_KEY_FIELDS = ("command", "cmd", "file_path", "notebook_path", "path", "filename", "file", "input", "patch")
MAX_REPLY_CHARS = 200


def tool_call_args(tool_input: Any) -> dict:
    """A ``tool_call``'s arguments for the guards: string keys, strings kept
    up to ``GUARD_ARG_CHARS``, nested values kept. Anything but a dict → {}."""
    # one character over: the scan knows the call was longer than it reads (``Scan.cut``)
    return clip_tool_args(tool_input, keep_nested=True, limit=GUARD_ARG_CHARS + 1, mark="")


def call_key(name: Any, args: Any) -> str:
    """The same 16 hex digits for a call's ``tool_call`` and its ``tool_result``."""
    parts = [name.lower() if isinstance(name, str) else ""]
    if isinstance(args, dict):
        action = args.get("action")
        if isinstance(action, dict):  # Codex's local_shell: {"action": {"command": …}}
            args = {**action, **args}
        for field in _KEY_FIELDS:
            value = args.get(field)
            if isinstance(value, list):  # an argv list
                value = " ".join(str(v) for v in value)
            if isinstance(value, str):
                parts.append(f"{field}={value[:TOOL_ARG_CHARS]}")
    text = "\0".join(parts)
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).hexdigest()


_LEAD = r"^(?:(?:no|nah|nope|ok|okay|yes|yeah|yep|sure|well|hey|actually|honestly|come on)\b[\s,.!:;—–-]*)*"
_OVERRIDE = lazy(
    _LEAD + r"(?:(?:please|just)\s+)?(?:"
    r"(?:run|do|execute|allow|use|try|go ahead(?: and (?:run|do|use))?|proceed|continue)\b"
    r"(?:\s+(?:it|that|this|the command|them))?\s+(?:anyway|anyways|regardless)"
    r"|(?:ignore|override|skip|bypass)\s+(?:the|that|this|your|tacit'?s?)\s+(?:rule|guard|lesson|check|block)"
    r"|(?:it'?s|that'?s|this is)\s+(?:fine|ok|okay|allowed),?\s+(?:run|do)\s+(?:it|that)"
    r")\b", re.I)
_WRONG_RULE = lazy(
    _LEAD + r"(?:(?:the|that|this|your|tacit'?s?)\s+)?(?:rule|guard|lesson)\s+(?:is\s+(?:wrong|outdated|"
    r"obsolete|stale|out of date|not right|mistaken)|(?:doesn'?t|does not|no longer)\s+(?:apply|applies|hold|holds)|"
    r"is\s+no longer\s+(?:true|right|valid))\b", re.I)
_HEDGE = lazy(r"\b(?:but|unless|except|not|never|don'?t|do not|only|if|when)\b", re.I)
_OK_WORDS = r"(?:fine|ok|okay|allowed|alright|all right|good|correct|right|what we use|ok to use)"


def _program_patterns(programs: Iterable[str]) -> re.Pattern | None:
    names = sorted({p for p in programs if isinstance(p, str) and re.fullmatch(r"[\w.+-]{1,40}", p)},
                   key=len, reverse=True)
    if not names:
        return None
    prog = "(?:" + "|".join(re.escape(n) for n in names) + ")"
    quoted = rf"[`'\"]?{prog}[`'\"]?"
    return lazy(
        _LEAD + r"(?:"
        rf"{quoted}\s+(?:is|'s)\s+(?:totally\s+|perfectly\s+|actually\s+|just\s+)?{_OK_WORDS}"
        rf"|(?:you\s+)?(?:can|may)\s+(?:use|run)\s+{quoted}"
        rf"|(?:it'?s|it is)\s+(?:fine|ok|okay|allowed)\s+to\s+(?:use|run)\s+{quoted}"
        rf"|(?:we|i)\s+(?:do\s+)?use\s+{quoted}(?:\s+(?:here|now|too|as well))*\s*[.!]?$"
        r")", re.I)


def read_reply(text: Any, programs: Iterable[str] = ()) -> str | None:
    """``"override"`` ("run it anyway"), ``"wrong"`` ("npm is fine here",
    "that rule is wrong") or None, for the user's message right after a stop.
    ``programs``: what the stopped guards stop (``npm``), for "X is fine"."""
    if not isinstance(text, str) or len(text) > 4 * MAX_REPLY_CHARS:
        return None
    message = " ".join(text.split())
    if not message or len(message) > MAX_REPLY_CHARS:
        return None
    message = message.replace("\u2019", "'")
    named = _program_patterns(programs)
    for pattern, answer in ((_WRONG_RULE, "wrong"), (named, "wrong"), (_OVERRIDE, "override")):
        found = pattern.search(message) if pattern is not None else None
        if found is not None:
            # "npm is fine, but not here": a hedge after it and it is no answer
            return None if _HEDGE.search(message, found.end()) else answer
    return None
