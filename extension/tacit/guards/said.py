"""A quoted command said another way is still that command run: "don't rely on `X`" runs X,
"`tsc` directly or via `npx tsc`" is one program. Works on a protected sentence (spans as ``\x00N\x00``).
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.words import _KNOWN_PROGRAMS

# "do not rely on `python3 -m ruff check .`" · "don't attempt `git push origin main`": running the quoted command
_TRIED = lazy(r"\b((?:never|don'?t|do not|dont)\s+)(?:attempt|try|rely\s+on|resort\s+to|fall\s+back\s+(?:on|to)|"
              r"depend\s+on)\s+(?=\x00(\d+)\x00)", re.I)
# "`tsc` directly or via `npx tsc`": the same program run through a package runner is the program
_SAME_VIA = lazy(r"\x00(\d+)\x00\s+(?:(?:directly|itself|alone|on its own)\s*,?\s+)?(?:or|nor|and)\s+(?:via|through|using|with)\s+"
                 r"\x00(\d+)\x00", re.I)
_PACKAGE_RUNNERS = ("npx", "bunx", "pnpx", "pnpm dlx", "pnpm exec", "yarn dlx", "yarn exec", "yarn", "uvx", "uv run",
                    "poetry run", "pipx run")


def _tried(m, spans: list) -> str:
    words = spans[int(m.group(2))].strip("`").split()
    return m.group(1) + "run " if len(words) > 1 and words[0] in _KNOWN_PROGRAMS else m.group(0)


def _same_via(m, spans: list) -> str:
    program, via = spans[int(m.group(1))].strip("`").strip(), spans[int(m.group(2))].strip("`").strip()
    runs = any(via == f"{runner} {program}" for runner in _PACKAGE_RUNNERS)
    return f"\x00{m.group(1)}\x00" if runs and " " not in program else m.group(0)


def said_as_run(sentence: str, spans: list) -> str:
    """The sentence with "rely on `X`" read as "run `X`" and "`p` or via `npx p`" as one `p`."""
    return _TRIED.sub(lambda m: _tried(m, spans), _SAME_VIA.sub(lambda m: _same_via(m, spans), sentence))
