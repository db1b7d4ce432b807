"""Rules as people type them to an agent ("dont use npm use bun", "no npm, pnpm", "give me
commands with uv run not with python", "*.token should never be commited"): ``spoken(text)``
puts a typed rule in the form the readers know (typos, run-on clauses, a correction's "no");
``spoken_specs(clause, because, own)`` reads the forms only said aloud (co-author trailers,
"with X not with Y"). Examples from real user messages: tests/unit/test_guards_user_messages.py.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.model import GuardSpec, OptionMatch
from tacit.guards.words import _DONT, _FAMILY_OF, _KNOWN_PROGRAMS

# misspellings seen in real messages, and the word each reader needs
_TYPOS = {"commited": "committed", "comitted": "committed", "comited": "committed", "commiting": "committing",
          "comitting": "committing", "forbiden": "forbidden", "fobidden": "forbidden", "forbbiden": "forbidden",
          "stricly": "strictly", "intead": "instead", "insted": "instead", "isntead": "instead"}
_TYPO = lazy(r"\b(?:" + "|".join(_TYPOS) + r")\b", re.I)
_PROG = r"[A-Za-z][\w.+-]*"
# "dont use npm use bun": two clauses with no comma between them
_NOT_A_SUBWORD = r"(?!(?:use|but|and|or|then|so|just|only|instead|please|pls|we|i|you)\b)"
_RUN_ON = lazy(rf"(?P<a>\b(?:{_DONT}|stop)\s+(?:use|using|run|running)\s+(?P<x>{_PROG})"
               rf"(?:\s+{_NOT_A_SUBWORD}[a-z][\w:-]*){{0,2}}?)\s+(?P<b>(?:just\s+|only\s+)?use\s+(?P<y>{_PROG})\b)", re.I)
# "no npm, pnpm" leading a sentence: the one not to use, then the one to use (a list says "or")
_NO_THEN = lazy(rf"(?:^|(?<=[.!?\n]\s)|(?<=\n))(?P<no>no|nope)\s+(?P<x>{_PROG})\s*,\s*(?P<y>{_PROG})"
                r"(?=\s*(?:$|[.;!\n]|instead\b|only\b|please\b))", re.I)
# "no use pnpm not npm": a correction's "no" with no comma after it
_NO_USE = lazy(rf"(?:^|(?<=[.!?\n]\s))(?:no|nope|nah)\s+(?=(?:just\s+)?use\s+(?P<y>{_PROG})\b)", re.I)
# "we're using pnpm not npm": said as what the team does now
_USE_VERB = frozenset(("nvm", "fnm", "mise", "asdf", "corepack", "rtx", "n", "nodenv", "volta", "sdk", "jenv", "rbenv"))
_CODE = lazy(r"(`[^`\n]*`)")
_USING = lazy(r"\b(?:we'?re|we are)\s+(?:only\s+)?using\b", re.I)
_TYPO_HINTS = ("commi", "comit", "forb", "fobid", "stricly", "intead", "insted", "isntead")
_LEADS_NO = lazy(r"(?:^|[.!?\n]\s?)(?:no|nope|nah)\s")


def _program(word: str) -> bool:
    return word.lower() in _KNOWN_PROGRAMS


def _kin(x: str, y: str) -> bool:
    return bool(_FAMILY_OF.get(x.lower(), set()) & _FAMILY_OF.get(y.lower(), set()))


def _run_on(m) -> bool:
    """"dont use npm use bun" · "dont run npm run dev use the vscode task": a second order, not a subcommand"""
    x = m["x"].lower()
    if not _program(x) or x in _USE_VERB or " env" in m["a"].lower():
        return False  # `nvm use 18`, `pnpm env use`: "use" is the program's own
    return _program(m["y"]) or m["y"].lower() in ("the", "a", "an", "my", "our", "your", "this")


def spoken(text: str) -> str:
    """``text`` with a typed rule's slips put right outside backticks; unchanged when it has none."""
    if "`" in text:
        return "".join(p if i % 2 else _unquoted(p) for i, p in enumerate(_CODE.split(text)))
    return _unquoted(text)


def _unquoted(text: str) -> str:
    low = text.lower()  # each reading only where the words it needs are (most lessons have none)
    if any(t in low for t in _TYPO_HINTS):
        text = _TYPO.sub(lambda m: _TYPOS[m.group(0).lower()], text)
    if low.count("use ") + low.count("using ") + low.count("run") >= 2:
        text = _RUN_ON.sub(lambda m: f"{m['a']}, {m['b']}" if _run_on(m) else m.group(0), text)
    if _LEADS_NO.search(low):
        text = _NO_THEN.sub(lambda m: f"{m['no']} {m['x']}, use {m['y']}" if _kin(m["x"], m["y"]) and
                            m["x"].lower() != m["y"].lower() else m.group(0), text)
        text = _NO_USE.sub(lambda m: "" if _program(m["y"]) else m.group(0), text)
    return _USING.sub("we use", text) if "using" in low else text


# "give me commands with uv run not with python": an order, the way to run, then the way not to
_WITH_NOT = lazy(r"(?:(?:please\s+|always\s+|only\s+|just\s+)*(?:give|run|write|execute|do|show|make|start|launch|"
                 r"call|invoke|install|test|build|deploy|use)\b[^,;]*?\s)?"
                 rf"(?:with|using|via|through)\s+(?P<x>{_PROG}(?:\s+run)?)\s*,?\s+(?:and\s+)?not\s+"
                 rf"(?:with|using|via|through)\s+(?P<y>{_PROG})(?:\s+(?:directly|anymore|any more))?", re.I)
_COMMITS = r"(?:\s+(?:to|in|on|from)\s+(?:the\s+|your\s+|any\s+|my\s+)?(?:git\s+)?commits?(?:\s+messages?)?)"
_PRS = r"(?:\s+(?:or|and|/)\s+(?:the\s+|any\s+)?(?:prs?|pull requests?))?"
_CO_AUTHOR = r"co-?authou?r(?:ed)?"
_TRAILER_SAID = [lazy(p, re.I) for p in (
    # "never include a Co-Authored-By in your commits": the trailer's name, no "trailer", in commits
    rf"{_DONT}\s+(?:add|include|put|write|append)\s+(?:the\s+|any\s+|a\s+|an\s+)?`?{_CO_AUTHOR}-by:?`?"
    rf"(?:\s+(?:lines?|trailers?|footers?|messages?))?{_COMMITS}{_PRS}",
    # "Do not co-author the commits or pr"
    rf"{_DONT}\s+{_CO_AUTHOR}\s+(?:the\s+|your\s+|any\s+|my\s+)?commits?{_PRS}",
    # "Do not include yourself as a coauthor"
    rf"{_DONT}\s+(?:add|include|list|put|credit|mention)\s+(?:(?:yourself|claude|the agent|the ai)\s+)?as\s+(?:an?\s+)?"
    rf"{_CO_AUTHOR}s?(?:{_COMMITS}|\s+(?:of|on)\s+(?:the\s+|any\s+)?(?:commits?|changes))?{_PRS}",
)]


def _co_author(because: str) -> GuardSpec:
    return GuardSpec(OptionMatch("git", ("commit",), ("--trailer", "-m", "--message"), ("Co-authored-by",), True),
                     because)


def spoken_specs(clause: str, because: str, own) -> list:
    """The guards a clause states in a form only said aloud, or ``[]``."""
    if any(p.fullmatch(clause) for p in _TRAILER_SAID):
        return [_co_author(because)]
    m = _WITH_NOT.fullmatch(clause)
    if m and _program(m["x"].split()[0]) and _program(m["y"]) and m["x"].split()[0].lower() != m["y"].lower():
        return own(f"use {m['x']}, not {m['y']}", because)
    return []
