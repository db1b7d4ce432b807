"""sudo narrowed to one program: "never use `sudo npm`", "don't use sudo for npm installs", "never run pip
with sudo". The guard stops sudo running that program (``SudoMatch.runs``), not every sudo and not the
program run plainly; a word no program's ("sudo for the first command") gives nothing. Pure."""

from __future__ import annotations

import re

from tacit.guards.model import GuardSpec, SudoMatch
from tacit.guards.words import _DONT, _KNOWN_PROGRAMS, _SUDO_WORDS
from tacit.lazyre import lazy

_KIND = r"(?:\s+(?:installs?|installations?|commands?|packages?|operations?|tasks?))?"
# "don't use sudo for npm installs" · "never use sudo with docker"
_SUDO_FOR = lazy(rf"{_DONT}\s+(?:use|run)\s+`?sudo`?\s+(?:for|with)\s+`?(?P<p>[a-z][\w.-]*)`?{_KIND}", re.I)
# "never run npm install with sudo" · "don't run pip under sudo"
_WITH_SUDO = lazy(rf"{_DONT}\s+(?:use|run)\s+`?(?P<p>[a-z][\w.-]*)`?(?:\s+install)?\s+(?:with|under|via|through)\s+"
                  r"`?sudo`?", re.I)


def sudo_for(sentence: str, because: str) -> GuardSpec | None:
    """The guard of sudo said with the one program it must not run."""
    m = _SUDO_FOR.fullmatch(sentence) or _WITH_SUDO.fullmatch(sentence)
    match = m and sudo_running([m.group("p")], [])
    return GuardSpec(match, because) if match and match.runs else None


def sudo_running(subs: list, flags: list) -> SudoMatch | None:
    """`sudo` said with its words: alone, any sudo; before a known program (`sudo npm install -g`), sudo
    running that program; anything else (`sudo -u postgres psql`), None."""
    if not subs:
        return None if flags else SudoMatch()
    program = subs[0].lower()
    return SudoMatch(runs=(program,)) if program in _KNOWN_PROGRAMS and program not in _SUDO_WORDS else None
