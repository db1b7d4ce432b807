"""Readings of rule families seen in the eighth corpus round: a command
said to need a flag ("never run X without F", "X must be run with F") and an
example after a file-arguments rule; the path and project-act families are
``family_paths`` (pipes, task runners, "run X with F", file arguments and
"on existing files" are ``qualified``'s, a lone flag of any program is
``git_verbs``'s). ``family_specs`` returns [] when a clause is none of them.
Design notes: docs/guards.md.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.family_paths import path_family_specs
from tacit.guards.model import CommandMatch, GuardSpec
from tacit.guards.words import _DONT, _FAMILY_OF, _KNOWN_PROGRAMS, _unquote

# programs that do one job: "never run `pytest` without `--no-cov`" needs no subcommand
_ONE_JOB = {"js_test", "py_test", "py_lint", "py_types", "js_lint", "bundler", "ts_run", "go_fmt"}


_CMD = r"`[^`]{1,60}`|[a-z][\w.-]*(?:\s+[a-z][\w:.-]*)?"
_FLAG = r"`--?[\w-]+`|--?[\w-]+"
# "never run `cargo test` without `--all-features`" · "`cargo test` must be run with `--all-features`"
# ("run X with F", "pass F to X" and "when running X, use F" are qualified._with_flag's)
_NEEDS_FLAG = [lazy(p, re.I) for p in (
    rf"(?P<cmd>{_CMD})\s+(?:must|should|has to|needs to)\s+(?:always\s+)?be\s+run\s+with\s+(?:the\s+)?(?P<flag>{_FLAG})"
    r"(?:\s+(?:flag|option))?",
    rf"{_DONT}\s+run\s+(?P<cmd>{_CMD})\s+without\s+(?:the\s+)?(?P<flag>{_FLAG})(?:\s+(?:flag|option))?",
)]


def _needs_flag(clause: str, because: str, run) -> list:
    for pattern in _NEEDS_FLAG:
        m = pattern.fullmatch(clause)
        if m:
            break
    else:
        return []
    cmd, flag = _unquote(m.group("cmd")), _unquote(m.group("flag"))
    if not cmd or cmd.split()[0].lower() not in _KNOWN_PROGRAMS and not m.group("cmd").startswith("`"):
        return []
    base = run(f"never run `{cmd}`", because)
    if len(base) != 1 or not isinstance(base[0].match, CommandMatch) or base[0].match.flags or base[0].match.bare:
        return []
    c = base[0].match
    one_job = any(_FAMILY_OF.get(p, set()) & _ONE_JOB for p in c.programs)
    if c.programs == ("*",) or not (c.subcommands or one_job) or c.unless:
        return []  # "run git with -C": a whole program of many commands is too wide to need one flag
    return [GuardSpec(CommandMatch(c.programs, c.subcommands, (), True, unless=(flag,)), because, f"{cmd} {flag}")]


# "never run `tsc` with file arguments (e.g., `tsc src/file.ts`)": the example shows the rule, it is not part of it
_EXAMPLE_TAIL = lazy(r"(?P<head>.+?\bfiles?\b.*?)\s*,?\s+(?:with|e\.?g\.?,?|such as|like|for example,?)\s+`[^`]+`", re.I)


def _example_tail(clause: str, because: str, run) -> list:
    m = _EXAMPLE_TAIL.fullmatch(clause)
    found = run(m.group("head"), because) if m else []
    ok = found and all(isinstance(s.match, CommandMatch) and s.match.on == ("*",) for s in found)
    return found if ok else []


def family_specs(clause: str, because: str, own, lesson: str = "") -> list:
    """The guards of one clause read as one of this module's families, or []."""
    low = clause.lower()
    if "file" in low and "`" in clause:
        found = _example_tail(clause, because, own)
        if found:
            return found
    if "-" in clause:
        found = _needs_flag(clause, because, own)
        if found:
            return found
    return path_family_specs(clause, because, own, lesson)


__all__ = ["family_specs"]
