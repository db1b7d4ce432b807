"""An unknown program's command said as one item of a list beside a known program's: "never run go test, go build
or golangci-lint" · "never run bundle install or jekyll build". Alone such words may be prose ("never run deploy"),
but beside a known program's command the list is one of commands, so the item is read as typed: lower-case words,
a hyphenated name (``golangci-lint``) or a name and a subcommand that says an act (``jekyll build``). Pure.
"""

from __future__ import annotations

import re

from tacit.guards.model import CommandMatch, GuardSpec
from tacit.guards.unknown_cli import named_cli
from tacit.guards.words import _CLI_VERBS, _STOP_WORDS

_ITEM_VERBS = _CLI_VERBS | frozenset(("build", "test", "serve", "lint", "format", "fmt", "start", "dev", "exec",
                                      "check", "generate", "compile", "watch", "bundle"))
_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def cli_item(item: str, because: str) -> GuardSpec | None:
    """The guard of one list item typed as a command line (``jekyll build``, ``golangci-lint``), or None."""
    words = re.sub(r"\s+directly$", "", item.strip()).split()  # "… or golangci-lint directly": as typed
    if not 1 <= len(words) <= 3 or not all(_WORD.fullmatch(w) and w not in _STOP_WORDS for w in words):
        return None
    if len(words) == 1 and not ("-" in words[0] or named_cli(words)):
        return None  # "never run npm install or deploy": a word, not a program
    if len(words) > 1 and words[1] not in _ITEM_VERBS and not named_cli(words):
        return None  # "… or jekyll sites": no act
    return GuardSpec(CommandMatch((words[0],), tuple(words[1:]), (), True), because)
