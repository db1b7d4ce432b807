"""Quoting the clause reader reads as backticks, while the rule as quoted back keeps the line's own:
a known program's command line in double quotes, quoted items joined by slashes, and a known file
extension named as a kind of file (``.ts`` after "files" is ``*.ts``). Design notes: docs/guards.md.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.code_names import _FILE_EXTS
from tacit.guards.words import _KNOWN_PROGRAMS, _STOP_WORDS

# "never run "git reset --hard", "git clean"": a known program's command line in double quotes is quoted code
_DQ_COMMAND = lazy(r'"([a-z][\w.-]*(?:\s+[^"\s]+){1,6})"', re.I)


def _dq_command(m) -> str:
    words = m.group(1).lower().split()
    # do not "make them consistent": a phrase in quotes, with a word no command takes
    command = words[0] in _KNOWN_PROGRAMS and not any(w in _STOP_WORDS for w in words[1:])
    return f"`{m.group(1)}`" if command else m.group(0)


def as_quoted(text: str) -> str:
    """Quoting read as backticks (the line as quoted back keeps its own): a command line in double
    quotes, and "`.env*`/`*.key`/`*.pem`" a list."""
    text = _DQ_COMMAND.sub(_dq_command, text) if '"' in text else text
    return text.replace("`/`", "`, `")


def as_extension(name: str, other: str) -> str:
    """``*.ts`` for ``.ts`` (a known file extension, not a file named so), else ``other``."""
    ext = name[1:].lower() if name.startswith(".") and name.count(".") == 1 else ""
    return (f"`*{name}`" if other.startswith("`") else f"*{name}") if ext in _FILE_EXTS else other
