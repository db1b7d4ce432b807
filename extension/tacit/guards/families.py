"""Readings of rule families seen in the eighth corpus round: a pipeline stage
after a command, a lone distinctive flag of any program, a command that needs
a flag, a command with file arguments, a task runner instead of the tools
it wraps, a command on existing files; the path and project-act families are
``family_paths``. ``family_specs`` returns [] when a clause is none of them.
Design notes: docs/guards.md.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.family_paths import path_family_specs
from tacit.guards.git_verbs import _FLAG_OF, _OTHER_FLAG_OF
from tacit.guards.model import CommandMatch, GuardSpec, PathMatch, PipeMatch
from tacit.guards.words import _DONT, _FAMILY_OF, _KNOWN_PROGRAMS, _unquote

_ITEM = r"`[^`]{1,60}`|[A-Za-z0-9][\w.+:-]*"
_ITEMS = rf"(?:{_ITEM})(?:\s*(?:,\s*or|,\s*and|,|\bor\b|\band\b|/)\s*(?:{_ITEM}))*"
_ETC = r"(?:\s*,?\s*(?:etc\.?|and so on|or similar|or the like|or any(?:thing| other(?: \w+)?)?))?"
_ANY_ITEM = lazy(r"`[^`]+`|[^\s,/]+")

# programs whose wrapper script is the same tool: "Gradle" is ./gradlew too
_SAME_TOOL = {"gradle": ("gradle", "gradlew"), "gradlew": ("gradle", "gradlew"), "mvn": ("mvn", "mvnw"),
              "maven": ("mvn", "mvnw"), "xcode": ("xcodebuild",)}
# programs that read a pipeline's output to cut or filter it
_FILTERS = frozenset(("tail", "head", "grep", "egrep", "fgrep", "rg", "less", "more", "sed", "awk", "cut", "sort",
                      "uniq", "wc", "tr", "tee"))
# programs that do one job: "never run `pytest` without `--no-cov`" needs no subcommand
_ONE_JOB = {"js_test", "py_test", "py_lint", "py_types", "js_lint", "bundler", "ts_run", "go_fmt"}
_SHELLS = frozenset(("sh", "bash", "zsh", "dash", "ksh", "fish"))


def _items(text: str) -> list[str]:
    found = [_unquote(i).lower() for i in _ANY_ITEM.findall(re.sub(r"\b(?:or|and)\b", " ", text))]
    return [i for i in found if i.rstrip(".") not in ("etc", "")]


def _programs(word: str) -> tuple[str, ...] | None:
    w = _unquote(word).lower()
    if w in _SAME_TOOL:
        return _SAME_TOOL[w]
    return (w,) if w in _KNOWN_PROGRAMS else None


# "never pipe Gradle output through `tail`, `head`, `grep`, etc." · "don't pipe the output of cargo into head"
_PIPE = lazy(rf"{_DONT}\s+pipe\s+(?:the\s+)?(?:output\s+of\s+)?(?P<src>{_ITEM})(?:'s)?(?:\s+(?:output|logs?))?\s+"
             rf"(?:through|into|to)\s+(?P<sinks>{_ITEMS}){_ETC}", re.I)


def _pipe(clause: str, because: str) -> list:
    m = _PIPE.fullmatch(clause)
    sources = _programs(m.group("src")) if m else None
    if not sources:
        return []
    sinks = _items(m.group("sinks"))
    if not sinks or any(s not in _FILTERS for s in sinks) or "tee" in sinks and len(sinks) == 1:
        return []  # into a shell, or to a file: their own readings
    return [GuardSpec(PipeMatch(sources, tuple(dict.fromkeys(sinks))), because)]


# "never use `--rerun-tasks`": a flag with a hyphen inside is one program's own word, whatever runs it
_LONE_FLAG = lazy(rf"{_DONT}\s+(?:use|pass|add|run\s+(?:anything\s+)?with)\s+(?:the\s+)?`?(?P<flag>--[a-z0-9]+(?:-[a-z0-9]+)+)`?"
                  r"(?:\s+(?:flag|option|switch))?", re.I)
_COMMON_FLAGS = frozenset(("--dry-run", "--no-verify", "--force-with-lease", "--no-cache", "--no-edit"))


def _lone_flag(clause: str, because: str) -> list:
    m = _LONE_FLAG.fullmatch(clause)
    if not m or m.group("flag").lower() in _COMMON_FLAGS | set(_FLAG_OF) | set(_OTHER_FLAG_OF):
        return []  # a flag of many programs, or one git_verbs knows the command of
    return [GuardSpec(CommandMatch(("*",), (), (m.group("flag").lower(),), True), because)]


_CMD = r"`[^`]{1,60}`|[a-z][\w.-]*(?:\s+[a-z][\w:.-]*)?"
_FLAG = r"`--?[\w-]+`|--?[\w-]+"
# "run cargo test with --all-features" · "never run `cargo test` without `--all-features`" ·
# "when running `cargo test`, use `--all-features`" · "always pass --all-features to cargo test"
_NEEDS_FLAG = [lazy(p, re.I) for p in (
    rf"(?P<cmd>{_CMD})\s+(?:must|should|has to|needs to)\s+(?:always\s+)?be\s+run\s+with\s+(?:the\s+)?(?P<flag>{_FLAG})"
    r"(?:\s+(?:flag|option))?",
    rf"(?:always\s+)?run\s+(?P<cmd>{_CMD})\s+with\s+(?:the\s+)?(?P<flag>{_FLAG})(?:\s+(?:flag|option))?",
    rf"{_DONT}\s+run\s+(?P<cmd>{_CMD})\s+without\s+(?:the\s+)?(?P<flag>{_FLAG})(?:\s+(?:flag|option))?",
    rf"when(?:ever)?\s+running\s+(?P<cmd>{_CMD})\s*,?\s*(?:always\s+)?(?:use|pass|add|include)\s+(?:the\s+)?"
    rf"(?P<flag>{_FLAG})(?:\s+(?:flag|option))?",
    rf"(?:always\s+)?(?:use|pass|add)\s+(?:the\s+)?(?P<flag>{_FLAG})(?:\s+(?:flag|option))?\s+(?:with|to|for|"
    rf"when running)\s+(?P<cmd>{_CMD})",
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


# "never run `tsc` or `yarn lint:types` with file arguments" · "don't run eslint on individual files"
_FILE_ARGS = lazy(rf"{_DONT}\s+run\s+(?P<cmds>[`\w][\w\s:.`,/-]{{0,80}}?)\s+(?:with\s+(?:any\s+|a\s+)?(?:file|path)\s*(?:arguments|args|"
                  r"paths?|names?)|with\s+(?:individual\s+|single\s+|specific\s+)?files|on\s+(?:individual|single|"
                  r"specific)\s+files)(?:\s*,?\s*(?:with|e\.?g\.?,?|such as|like)\s+`[^`]+`)?", re.I)


def _file_args(clause: str, because: str, run) -> list:
    m = _FILE_ARGS.fullmatch(clause)
    if not m:
        return []
    out = []
    for item in re.findall(r"`[^`]+`|[^\s,`]+(?:\s+[a-z][\w:.-]*)?", re.sub(r"\b(?:or|and)\b", ",", m.group("cmds"))):
        base = run(f"never run {item if item.startswith('`') else '`' + item.strip() + '`'}", because)
        if len(base) != 1 or not isinstance(base[0].match, CommandMatch) or base[0].match.flags:
            return []
        out.append(GuardSpec(CommandMatch(base[0].match.programs, base[0].match.subcommands, (), True, on=("*",)),
                             because))
    return out


_TASK_RUNNERS = frozenset(("make", "just", "task", "mage", "gmake"))
# "always use `make` commands instead of direct `xcodebuild` or `swift` commands" ·
# "use make instead of calling xcodebuild or swift directly"
_RUNNER_INSTEAD = lazy(rf"(?:always\s+)?use\s+(?P<x>{_ITEM})(?:\s+(?:commands?|targets?|recipes?|tasks?))?\s+"
                       r"(?:instead\s+of|rather\s+than)\s+(?:(?:calling|running|using|invoking)\s+)?(?:the\s+)?(?:direct\s+|raw\s+|bare\s+)?"
                       rf"(?P<ys>{_ITEMS})(?:\s+(?:commands?|directly|invocations?|calls?|cli))*", re.I)


def _runner_instead(clause: str, because: str) -> list:
    m = _RUNNER_INSTEAD.fullmatch(clause)
    if not m or _unquote(m.group("x")).lower() not in _TASK_RUNNERS:
        return []
    programs: list = []
    for y in _items(m.group("ys")):
        found = _programs(y)
        if not found or set(found) & _TASK_RUNNERS:
            return []
        programs.extend(found)
    return [GuardSpec(CommandMatch(tuple(dict.fromkeys(programs)), (), (), True), because,
                      _unquote(m.group("x")).lower())] if programs else []


# "no `ruff format` on existing files": every file an agent formats exists
_EXISTING = lazy(r"(?P<head>.+?)\s+on\s+(?:any\s+|the\s+)?existing\s+(?:files|code|sources|modules)", re.I)


def _on_existing(clause: str, because: str, run) -> list:
    m = _EXISTING.fullmatch(clause)
    found = run(m.group("head"), because) if m else []
    ok = found and all(isinstance(s.match, CommandMatch) and not s.match.on and not s.match.under for s in found)
    return found if ok else []


def family_specs(clause: str, because: str, own, lesson: str = "") -> list:
    """The guards of one clause read as one of this module's families, or []."""
    low = clause.lower()
    if "existing" in low:
        found = _on_existing(clause, because, own)
        if found:
            return found
    if "pipe" in low:
        found = _pipe(clause, because)
        if found:
            return found
    if "-" in clause:
        found = _lone_flag(clause, because) or _needs_flag(clause, because, own)
        if found:
            return found
    if "file" in low:
        found = _file_args(clause, because, own)
        if found:
            return found
    if "instead" in low or "rather" in low:
        found = _runner_instead(clause, because)
        if found:
            return found
    return path_family_specs(clause, because, own, lesson)


__all__ = ["family_specs"]
