"""Words about the act a rule's commands belong to, which the matcher sees in the commands themselves.

A kind of act, then its exact commands in parentheses: "never run destructive deletions (`rm -rf`)" · "never use
destructive git commands (`push --force`, `reset --hard`)" are the commands named, as in "… such as `rm -rf`"; a
program said in the kind ("git commands") is the program of an item that leaves it out. ``kind_named(before,
items, spans)`` returns " such as <items>" (rewriting ``spans`` where an item gains its program) or None.

The act a tool swap is about: "always use `bun`, never `npm`, when running scripts" · "use `uv`, not `pip`, when
installing packages": running scripts is what both tools do, no condition the matcher cannot see.
``without_activity(sentence)`` drops that tail from a protected sentence.

A purpose said of a command that an alternative for it follows: "never run `go build` to verify code. Use `go vet`
instead" is `go build` refused, as "never run `go build`; use `go vet` instead" is. ``without_purpose(text)`` drops
such a purpose from protected text. Pure but for the rewrite of ``spans``.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.words import _KNOWN_PROGRAMS

# "destructive deletions" · "git operations" · "risky commands": a word for acts, the program said before it
_KIND = lazy(r"(?:(?P<program>[\w.-]+)\s+)?(?:commands?|operations?|ops|deletions?|removals?|actions?)\s*$", re.I)


def kind_named(before: str, items: str, spans: list) -> str | None:
    """" such as " and the items when each names a known program's command (or the kind's program's)."""
    kind = _KIND.search(before)
    if not kind:
        return None
    program = (kind.group("program") or "").lower()
    indexes = [int(i) for i in re.findall(r"\x00(\d+)\x00", items)]
    if not indexes or re.sub(r"\x00\d+\x00|[\s,]|\bor\b|\band\b|etc\.?", "", items, flags=re.I):
        return None  # a bare word among them ("(`rm -rf`, scripts)"): no list of commands
    lines = []
    for i in indexes:
        words = spans[i].strip("`").split()
        if not words or not spans[i].startswith("`"):
            return None
        if words[0].lower() not in _KNOWN_PROGRAMS:
            if program not in _KNOWN_PROGRAMS or words[0].startswith("-"):
                return None  # "(`deploy.sh`)": no program's command · "(`--force`)": a flag, read as itself
            words = [program, *words]
        lines.append((i, "`" + " ".join(words) + "`"))
    if len(lines) == 1 and len(lines[0][1].split()) == 1:
        return None  # "risky commands (`rm`)": one bare program, the " with " reading's
    for i, line in lines:
        spans[i] = line
    return " such as " + items


# "use `bun`, never `npm`" · "use only `uv`, not `pip`": a swap of tools, its alternative first
_SWAP = lazy(r"\buse\s+(?:only\s+)?\x00\d+\x00\s*,?\s*(?:and\s+)?(?:never|not|rather than|instead of)\s+(?:use\s+)?"
             r"\x00\d+\x00", re.I)
# ", when running JavaScript in this project": an act both tools do; not "when running in CI", "when `x` exists"
_ACTIVITY = lazy(r"\s*,?\s+when(?:ever)?\s+(?:running|installing|adding|executing|invoking|calling|building|testing|"
                 r"managing|working with|writing|starting|launching)\s+(?!(?:in|on|inside|under|from|against|as|with|"
                 r"without|via|through)\b)[a-z][^,;\x00\u2014]*?(?=\s*(?:[;\u2014.!]|$))", re.I)


def without_activity(sentence: str) -> str:
    """``sentence`` without the act a tool swap in it is about (the swap before it, in the same sentence)."""
    m = _ACTIVITY.search(sentence)
    return sentence[:m.start()] + sentence[m.end():] if m and _SWAP.search(sentence[:m.start()]) else sentence


# "never run `go build` to verify code": the command, then what it would be run for
_FOR_PURPOSE = lazy(r"(?P<rule>\b(?:never|don'?t|do not)\s+(?:run|use|call|execute|invoke)\s+\x00\d+\x00)\s+to\s+"
                    r"(?!(?:the|a|an|any|your|our|this|that|it|them)\b)[a-z][a-z-]*(?:\s+[a-z][\w/-]*){0,5}"
                    r"(?=\s*(?:[.!;,]|$))", re.I)
# ". Use `go vet ./...` instead" · "; instead, run `x`": an alternative said right after it
_ALTERNATIVE = lazy(r"[\s.!;,]*(?:(?:always|just|please)\s+)?(?:use|run|call)\s+\x00\d+\x00(?:\s+\S+){0,2}?\s+instead\b|"
                    r"[\s.!;,]*instead\s*,?\s+(?:use|run|call)\s+\x00\d+\x00", re.I)


def without_purpose(text: str) -> str:
    """``text`` without the purpose of a refused command that an alternative follows."""
    return _FOR_PURPOSE.sub(lambda m: m.group("rule") if _ALTERNATIVE.match(m.string, m.end()) else m.group(0), text)
