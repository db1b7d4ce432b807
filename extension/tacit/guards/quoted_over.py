"""One quoted command over another: "Use `git add <file>`, not `git add -A`" · "Stage files by name, not
`git add -A` or `git add .`" · "use `git mv`, not `mv`" · "Push with `--force-with-lease`, never `--force`" (``flag_over``). An imperative clause that names, after "not",
"never", "rather than" or "instead of", quoted commands of known programs: each is a guard, unless it
would stop a command the clause says to use (docs/guards.md, "one quoted command over another").
"""

from __future__ import annotations

import re
from dataclasses import replace

from tacit.lazyre import lazy
from tacit.guards.model import CommandMatch, GuardSpec, PushMatch
from tacit.guards.words import _KNOWN_PROGRAMS

# the verb of an imperative: a clause led by a noun ("`npm test` runs unit tests, not …") describes, it rules nothing
_IMPERATIVE = (r"(?:use|run|stage|add|prefer|call|invoke|execute|type|install|build|start|launch|deploy|commit|"
               r"format|lint|test|create|rename|move|delete|remove|restore|reset|check\s+out|switch|update|upgrade)")
_QUOTED_OVER = lazy(rf"(?:only\s+)?{_IMPERATIVE}\b(?P<a>[^`]*?(?:`[^`]+`[^`]*?)?)\s*[,;]?\s*(?:and\s+)?"
                    r"(?:not|never|rather than|instead of)\s+(?:(?:use|run|using|with|via)\s+)?"
                    r"(?P<ys>`[^`]+`(?:\s*(?:,\s*or|,\s*nor|,|or|nor)\s*`[^`]+`)*)", re.I)
# "`bun install` instead of `npm install` or `yarn install`": a line of a list of commands to use, no verb
_BARE_OVER = lazy(r"(?P<a>`[^`]+`)\s*,?\s*(?:instead of|rather than)\s+"
                  r"(?P<ys>`[^`]+`(?:\s*(?:,\s*or|,|or)\s*`[^`]+`)*)", re.I)


def _fires(m: CommandMatch, command: str) -> bool:
    """Whether ``m`` would stop ``command`` as written (its program, subcommands and flags present)."""
    words = command.split()
    if not words or words[0].rsplit("/", 1)[-1] not in m.programs:
        return False
    rest = words[1:]
    if tuple(rest[:len(m.subcommands)]) != m.subcommands:
        return False
    said = set(rest) | ({"-A"} if "." in rest else set())
    return all(f in said for f in m.flags)


def quoted_over(sentence: str, because: str, run) -> list:
    """The guards of "<do it> `a`, not `b`" (``run`` reads "never run `b`"), or ``[]``."""
    m = _QUOTED_OVER.fullmatch(sentence) or _BARE_OVER.fullmatch(sentence)
    if not m or m.re is _BARE_OVER and m.group("a").strip("`").split()[0].lower() not in _KNOWN_PROGRAMS:
        return []
    alternatives = re.findall(r"`([^`]+)`", m.group("a") or "")
    out: list = []
    for y in re.findall(r"`([^`]+)`", m.group("ys")):
        words = y.split()
        if not words or words[0].rsplit("/", 1)[-1].lower() not in _KNOWN_PROGRAMS:
            return []  # "use `Result`, not `unwrap()`": code, not a command
        spec = run(f"never run `{y}`", because)
        if spec is None or not isinstance(spec.match, CommandMatch) or \
                any(_fires(spec.match, a) for a in alternatives) or \
                any("/" in w or w != w.lower() for w in spec.match.subcommands):
            return []  # "use `npm run test`, not `npm run`" would stop the way the line says; "… `Feature/X`": an example
        spec = GuardSpec(spec.match, because, alternatives[0] if alternatives else None)
        out.extend([spec] if spec not in out else [])
    return out


# "Push with `--force-with-lease`, never `--force`": one flag of a git verb over another
_FLAG_OVER = lazy(r"(?P<verb>push|commit|rebase|merge|pull|reset|clean|checkout)\s+(?:with|using)\s+`?(?P<a>--?[\w-]+)`?"
                  r"\s*[,;]?\s*(?:but\s+)?(?:not|never)\s+(?:use\s+|with\s+)?`?(?P<b>--?[\w-]+)`?", re.I)


def flag_over(sentence: str, because: str, read) -> list:
    """The guards of "<git verb> with `a`, never `b`" (``read`` reads "never <verb> with `b`"), or ``[]``;
    a force push said over ``--force-with-lease`` lets the lease through."""
    m = _FLAG_OVER.fullmatch(sentence)
    found = read(f"never {m.group('verb').lower()} with `{m.group('b')}`", because) if m else []
    lease = m is not None and m.group("a") == "--force-with-lease"
    return [replace(s, match=replace(s.match, lease_ok=True)) if lease and isinstance(s.match, PushMatch) else s
            for s in found]


__all__ = ["flag_over", "quoted_over"]
