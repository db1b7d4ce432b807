"""Command rules narrowed by where, on what, through which wrapper, with which flag or output a
command runs ("don't use npm in `ui/`", "always run ruff through uv", "never use -- with pnpm test"),
read around a rule the grammar already reads (``read``: derive's clause reader); ``tail_specs``: a
rule before its alternative after the last comma. Design notes: docs/guards.md ("Shapes").
"""

from __future__ import annotations

import re
from dataclasses import replace

from tacit.lazyre import gate, lazy
from tacit.guards.clauses import _EXCEPTION, _HEDGE
from tacit.guards.model import CommandMatch, GuardSpec, PipeMatch
from tacit.guards.words import _DONT, _KNOWN_PROGRAMS, _path_pattern, _unquote, first_match

_DIR = (r"(?:the\s+)?(?:`[^`]+`|(?:repo(?:sitory)?\s+|project\s+|any\s+)?[\w.~/-]+)"
        r"(?:\s+(?:folder|directory|dir|package|subfolder|subdirectory|workspace)s?)?")
_DIRS = rf"{_DIR}(?:\s*(?:,\s*(?:or|and)\s+|,|\s+or\s+|\s+and\s+)\s*{_DIR})*"
_PLACE = lazy(rf"(?P<head>.+?),?\s+(?P<prep>in|inside|within|under|on)\s+(?P<where>{_DIRS})", re.I)
# "in `ui/`, never use npm": the place first
_PLACE_FIRST = lazy(rf"(?P<prep>in|inside|within|under)\s+(?P<where>{_DIR}(?:\s+(?:or|and)\s+{_DIR})*)\s*,?\s+(?P<head>.+)",
                    re.I)
# "in the root folder": the project's root itself ("."); "in subdirectories": any folder below it ("*")
_ROOT = lazy(r"(?:the\s+)?(?:(?:repo(?:sitory)?|project|workspace)\s+root|root(?:\s+(?:folder|directory|dir))?|top[- ]level"
             r"(?:\s+(?:folder|directory|dir))?|(sub-?(?:directories|folders|dirs|packages)|any\s+sub-?(?:directory|folder|dir|package)))",
             re.I)
_ON_EXISTING = lazy(r"(?P<head>.+?)\s+on\s+(?:the\s+|any\s+)?existing\s+(?:files|code(?:base)?|sources?|modules)", re.I)
_INTERPRETERS = frozenset(("bash", "sh", "zsh", "ruby", "perl", "php", "node", "deno", "bun", "pwsh", "powershell"))
# wrappers the shell reader sees through (``uv run x``: x runs via uv), and their kin
_WRAPPERS = {"uv": ("uv", "uvx"), "uvx": ("uv", "uvx"), "poetry": ("poetry",), "pipenv": ("pipenv",), "pdm": ("pdm",),
             "rye": ("rye",), "hatch": ("hatch",), "npx": ("npx", "pnpx", "bunx"), "pnpm": ("pnpm", "pnpx"),
             "yarn": ("yarn",), "bun": ("bun", "bunx"), "bunx": ("bun", "bunx")}
_W = r"`?(?P<w>uv|uvx|poetry|pipenv|pdm|rye|hatch|npx|pnpm|yarn|bunx|bun)(?:\s+(?:run|exec|x|dlx))?`?"
_ITEMS = r"(?P<ys>[\w`.+-]+(?:(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+|\s+)[\w`.+-]+){0,12}?)(?:\s*,?\s*etc\.?)?"
_THROUGH = [lazy(p, re.I) for p in (
    rf"(?:run|use|invoke|call|execute)\s+{_ITEMS}\s+(?:only\s+)?(?:through|via|using|with|under)\s+{_W}",
    rf"use\s+{_W}\s+(?:to\s+)?(?:run|invoke|call|execute)\s+{_ITEMS}",
    rf"use\s+{_W}\s+(?:for|with)\s+(?:all\s+|every\s+|any\s+)?{_ITEMS}(?:\s+(?:commands?|calls?|invocations?))?",
)]
# "python related commandline tools like isort, ruff": the tools named are the items
_LIKE = lazy(r"(?:[\w-]+\s+){0,4}(?:tools?|commands?|clis?|linters?|formatters?)\s*,?\s+(?:like|such as|e\.?g\.?,?|including)\s+",
             re.I)
_FLAGS = r"`?--?[\w-]*=?(?:\s+<[\w -]+>)?`?(?:\s*(?:,|or|and|/)\s*`?--?[\w-]*=?(?:\s+<[\w -]+>)?`?)*"  # `--hooks=`
_CMD = r"(?P<cmd>`[^`]+`|[a-z][\w.-]*(?:\s+[a-z][\w:.-]*){0,2})"
_FLAG_WITH = [lazy(p, re.I) for p in (
    rf"{_DONT}\s+(?:use|pass|add|append|put)\s+(?:the\s+)?(?P<flags>{_FLAGS})"
    rf"(?:\s+(?:flags?|options?|switch(?:es)?|separators?))?\s+(?:with|to|for|on|in)\s+{_CMD}",
    # "never run `cargo update` without `-p`": the flag is the allowed way
    rf"{_DONT}\s+(?:run|use|call|invoke)\s+{_CMD}\s+(?P<without>without)\s+(?:the\s+|a\s+)?(?P<flags>{_FLAGS})"
    r"(?:\s+(?:flags?|options?|switch(?:es)?))?(?:\s+<[\w -]+>)?",
    # "never run pnpm install with --no-frozen-lockfile"
    rf"{_DONT}\s+(?:run|use|call|invoke)\s+{_CMD}\s+(?:with|using|passing)\s+(?:the\s+)?(?P<flags>{_FLAGS})"
    r"(?:\s+(?:flags?|options?|switch(?:es)?))?",
)]
# after the last comma, what to do instead or why: "…, rebase onto it" · "…, pnpm drops the filter then"
_TAIL = lazy(r"(?P<head>.+),\s+(?P<tail>[^,]+)", re.I)
# a tail that may be another item, a condition, a place or a rule of its own is part of the rule: no reading
_LIST_WORD = lazy(r"\b(?:or|and|nor|unless|except|only|but|instead)\b", re.I)
_NOT_TAIL = lazy(r"^(?:in|on|at|for|from|to|into|during|against|with|without|within|inside|under|outside|via|through|"
                 r"ever|even|either|also|too|then|just|especially|including|e\.?g|like|such|as|any|all|prefer|use|not|"
                 r"never|no(?!\s+one\b)|don'?t|do|nor|avoid|stop|always|please|pls)\b|(?:^|\s)-", re.I)
# "…, npm doesn't support workspaces": a negation after a subject is a statement, a reason
# "…, dev deps don't count" · "…, docs are fine": an exception said as a statement
_PERMITS = lazy(r"\b(?:counts?|appl(?:y|ies)|matters?|fine|ok|okay|exempt|allowed|excepted|excluded|permitted)\b", re.I)
_NEGATION = lazy(r"\b(?:not|never|no)\b|n'?t\b", re.I)
gate(_LIST_WORD, _PERMITS, _NEGATION)  # searched in a rule's tail (same answers, found faster)
_ALT_VERBS = frozenset(("rebase", "squash", "ask", "merge", "revert"))


# "use python3 test.py, not ./test.py": a command over a script of the project, run by its path, both unquoted
_SCRIPT = r"\./[\w.-]+(?:/[\w.-]+)*|[\w.-]+(?:/[\w.-]+)+\.\w{1,4}"
_SCRIPT_OVER = lazy(rf"(?:use\s+)?(?P<x>[a-z][\w.-]*(?:\s+[\w./-]+){{1,3}}?)\s*,?\s+(?:not|never|instead of|rather than)\s+"
                    rf"(?P<y>{_SCRIPT})", re.I)
# "never pipe MSBuild output to a file": the program run with its output sent to a file (``> log``, ``| tee log``)
_TO_FILE = lazy(rf"{_DONT}\s+(?:pipe|redirect|write|send|save|dump|tee)\s+(?:the\s+)?(?P<p>`[^`]+`|[\w.-]+(?:\s+[a-z][\w-]*)?)(?:'s)?\s+"
                r"(?:output|logs?|stdout)\s+(?:in)?to\s+(?:a\s+|any\s+)?(?:log\s+)?files?", re.I)
_OUTPUT_OF = {"msbuild": ("msbuild", "dotnet")}  # `dotnet build` is MSBuild


def _items(text: str) -> list[str]:
    """"`a`, b and c" → the names, unquoted and in lower case."""
    return [_unquote(i).lower() for i in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", text) if i.strip()]


def _commands(specs: list) -> bool:
    return bool(specs) and all(isinstance(s.match, CommandMatch) and not (s.match.under or s.match.on or s.match.not_via)
                               for s in specs)


def _placed(clause: str, because: str, read) -> list:
    """"don't use npm or npx in `ui/`" · "in `ui/`, never use npm" · "don't run prettier on `tasks/`"."""
    m = _ON_EXISTING.fullmatch(clause)
    if m:
        specs = read(m.group("head").rstrip(", "), because)  # "on existing files": on any file there is
        return specs if _commands(specs) else []
    m = _PLACE.fullmatch(clause) or _PLACE_FIRST.fullmatch(clause)
    if not m:
        return []
    on = m.group("prep").lower() == "on"
    folders = []
    for part in re.split(r"\s*(?:,\s*(?:or|and)\s+|,|\s+or\s+|\s+and\s+)\s*", m.group("where")):
        root = None if on else _ROOT.fullmatch(part)
        if root:
            folders.append("*" if root.group(1) else ".")
            continue
        where = _path_pattern(part)
        if not where or where.startswith(("/", "~")) or "*" in where or not on and not where.endswith("/"):
            return []  # "in CI", "in production", "in `main.py`": not a folder of the project
        folders.append(where.removeprefix("./").rstrip("/"))
    specs = read(m.group("head").rstrip(", "), because)
    if not _commands(specs):
        return []
    folders = tuple(dict.fromkeys(folders))
    return [replace(s, match=replace(s.match, on=folders) if on else replace(s.match, under=folders)) for s in specs]


def _through(clause: str, because: str) -> list:
    """"always run python, ruff and pyright through uv": those tools, not run through uv."""
    m = first_match(_THROUGH, clause)
    items = _items(_LIKE.sub(", ", m.group("ys"))) if m else []
    if not items or any(i not in _KNOWN_PROGRAMS or i in _WRAPPERS for i in items):
        return []
    wrapper = m.group("w").lower()
    return [GuardSpec(CommandMatch(tuple(dict.fromkeys(items)), (), (), True, not_via=_WRAPPERS[wrapper]), because,
                      f"{wrapper} run …")]


def _flag_with(clause: str, because: str, read) -> list:
    """"never use -- with pnpm test" · "never pass `--watch` to `pnpm test`"."""
    m = first_match(_FLAG_WITH, clause)
    if not m:
        return []
    base, flags = _command_and_flags(m, because, read)
    if base is None or not flags or any(not re.fullmatch(r"--?[\w-]*", f) or f == "-" for f in flags):
        return []
    if "without" in m.groupdict() and m.group("without"):
        return [replace(base, match=replace(base.match, unless=tuple(flags)))]  # any of them makes it allowed
    return [replace(base, match=replace(base.match, flags=(f,))) for f in flags]


def _command_and_flags(m, because: str, read) -> tuple:
    """The plain command (no flags, not bare) ``m`` names, and its flags; (None, []) when it names none."""
    cmd = _unquote(m.group("cmd"))
    if re.fullmatch(r"[a-z][\w.-]*\s+commands?", m.group("cmd")):  # "git commands with the -i flag": any of them
        cmd = cmd.split()[0]
    if not cmd or cmd.split()[0].lower() not in _KNOWN_PROGRAMS and not m.group("cmd").startswith("`"):
        return None, []
    if not m.group("cmd").startswith("`"):  # "--no-verify on Git commits": git's commit, not a `Git commits` command
        cmd = re.sub(r"^git\s+(commit|push)(?:s|es|ting|ing)$", r"git \1", cmd.lower(), flags=re.I) \
            if re.fullmatch(r"git\s+(?:commit|push)(?:s|es|ting|ing)", cmd, re.I) else cmd
    base = read(f"never run `{cmd}`", because)
    if len(base) != 1 or not _commands(base) or base[0].match.flags or base[0].match.bare:
        return None, []
    return base[0], [_unquote(f).rstrip("=") for f in re.split(r"\s*(?:,|\bor\b|\band\b|/)\s*", m.group("flags"))
                     if f.strip()]


def tail_specs(clause: str, because: str, read) -> list:
    """"never merge main into the feature branch, rebase": the rule before its alternative or reason."""
    m = _TAIL.fullmatch(clause)
    tail = m.group("tail").strip() if m else ""
    if not m or "`" in tail or len(tail.split()) < 2 and tail.lower() not in _ALT_VERBS:
        return []
    if any(p.search(tail) for p in (_NOT_TAIL, _LIST_WORD, _HEDGE, _EXCEPTION, _PERMITS)) \
            or _NEGATION.search(tail) and len(tail.split()) < 3:
        return []
    return read(m.group("head"), because)


def _script_over(clause: str, because: str, read) -> list:
    """"use python3 test.py, not ./test.py": read as if both were quoted."""
    m = _SCRIPT_OVER.fullmatch(clause)
    if not m or m.group("x").split()[0].lower() not in _KNOWN_PROGRAMS | _INTERPRETERS:
        return []
    return read(f"use `{m.group('x')}`, not `{m.group('y')}`", because)


def _to_file(clause: str, because: str, read) -> list:
    """"never pipe msbuild output to a file": the program, when its output goes to a file."""
    m = _TO_FILE.fullmatch(clause)
    words = _unquote(m.group("p")).lower().split() if m else []
    if not words or words[0] not in _KNOWN_PROGRAMS and words[0] not in _OUTPUT_OF:
        return []
    if len(words) == 1:
        return [GuardSpec(CommandMatch(_OUTPUT_OF.get(words[0], (words[0],)), (), (), True, to_file=True), because)]
    specs = read(f"never run `{' '.join(words)}`", because)  # "dotnet test output": that command
    return [replace(s, match=replace(s.match, to_file=True)) for s in specs] if _commands(specs) else []


# "never install packages globally" · "no global installs": the package managers' global installs
_GLOBAL = lazy(rf"(?:{_DONT}\s+install\s+(?:any\s+|new\s+)?(?:packages?|anything|dependencies|deps|modules|tools|"
               rf"(?:npm|node)\s+packages)?\s*globally|no\s+global\s+(?:installs?|packages)|{_DONT}\s+install\s+"
               r"(?:any\s+)?global\s+(?:packages?|modules|dependencies|tools))", re.I)
_GLOBAL_SHAPES = ((("npm",), ("install",), ("-g",)), (("pnpm",), ("add",), ("-g",)), (("pnpm",), ("install",), ("-g",)),
                  (("yarn",), ("global", "add"), ()), (("bun",), ("add",), ("-g",)), (("bun",), ("install",), ("-g",)))


def _global(clause: str, because: str) -> list:
    """"never install packages globally": `npm i -g`, `pnpm add -g`, `yarn global add`, `bun add -g`."""
    if not _GLOBAL.fullmatch(clause):
        return []
    return [GuardSpec(CommandMatch(p, sub, flags, True), because) for p, sub, flags in _GLOBAL_SHAPES]


# "never pipe Gradle output through `tail`, `head`, `grep`, etc.": a program's output into filters
_FILTERS = frozenset(("tail", "head", "grep", "egrep", "rg", "less", "more", "sed", "awk", "cut", "sort", "uniq", "wc",
                      "jq", "tee", "cat", "tr", "xargs"))
_KIN_PROGRAMS = {"gradle": ("gradle", "gradlew"), "gradlew": ("gradle", "gradlew"), "mvn": ("mvn", "mvnw"),
                 "mvnw": ("mvn", "mvnw")}
_PIPED = lazy(rf"{_DONT}\s+(?:pipe|piping)\s+(?:the\s+)?(?:output\s+of\s+)?(?P<src>`?[\w.-]+`?)(?:'s)?"
              rf"(?:\s+(?:output|results?|logs?))?\s+(?:through|into|to)\s+{_ITEMS}", re.I)
# "always use `make` commands instead of direct `xcodebuild` or `swift` commands": a task runner over the tools it wraps
_RUNNER_OVER = lazy(r"use\s+`?(?:make|just|task|mage)`?(?:\s+(?:commands?|targets?|recipes?))?\s+(?:instead of|rather than|over)\s+"
                    r"(?:calling\s+|running\s+|using\s+|invoking\s+)?(?:the\s+)?(?:direct\s+|raw\s+|bare\s+|plain\s+)?"
                    rf"{_ITEMS}?(?:\s+(?:commands?|invocations?|calls?|directly))*", re.I)
# "run cargo test with --all-features" · "always pass `--frozen` to `uv sync`": without the flag it is stopped
_WITH_FLAG = [lazy(p, re.I) for p in (
    rf"(?:run|use|call|invoke)\s+{_CMD}\s+(?:only\s+)?with\s+(?:the\s+)?(?P<flags>{_FLAGS})(?:\s+(?:flags?|options?))?",
    rf"(?:pass|use|add)\s+(?:the\s+)?(?P<flags>{_FLAGS})(?:\s+(?:flags?|options?))?\s+(?:with|to|for)\s+(?:every\s+|each\s+|all\s+)?"
    rf"{_CMD}(?:\s+(?:calls?|runs?|invocations?|commands?))?",
)]
# "never run `tsc` or `yarn lint:types` with file arguments": any argument that is a file
_FILE_ARGS = lazy(rf"{_DONT}\s+(?:run|call|invoke|use)\s+(?P<cmds>.+?)\s+(?:with|on)\s+(?:(?:a|any)\s+)?(?:file\s+(?:arguments?|"
                  r"paths?|names?)|(?:individual|single|specific|explicit)\s+files?|paths?\s+arguments?)"
                  r"(?:\s+(?:with|such as)\s+`[^`]+`(?:\s*,?\s*(?:or|and)?\s*`[^`]+`)*)?", re.I)  # its examples


def _piped(clause: str, because: str) -> list:
    m = _PIPED.fullmatch(clause)
    if not m:
        return []
    src = _unquote(m.group("src")).lower()
    sinks = _items(m.group("ys"))
    if src not in _KNOWN_PROGRAMS or not sinks or any(k not in _FILTERS for k in sinks):
        return []
    return [GuardSpec(PipeMatch(_KIN_PROGRAMS.get(src, (src,)), tuple(dict.fromkeys(sinks)), False), because)]


def _runner_over(clause: str, because: str) -> list:
    m = _RUNNER_OVER.fullmatch(clause)
    items = _items(m.group("ys") or "") if m else []
    if not items or any(i not in _KNOWN_PROGRAMS or i in ("make", "just", "task", "mage") for i in items):
        return []
    return [GuardSpec(CommandMatch(tuple(dict.fromkeys(items)), (), (), True), because)]


def _with_flag(clause: str, because: str, read) -> list:
    m = first_match(_WITH_FLAG, clause)
    if not m or not m.group("flags").lstrip("`").startswith("-"):
        return []
    base, flags = _command_and_flags(m, because, read)
    if base is None or not flags or any(not re.fullmatch(r"--?[\w-]+", f) for f in flags):
        return []
    subs = base.match.subcommands
    if subs[-1:] in (("commands",), ("command",), ("calls",), ("invocations",)):  # "to all uv commands": uv's every one
        programs = tuple(p.lower() for p in base.match.programs)
        base = replace(base, match=replace(base.match, programs=programs, subcommands=subs[:-1]))
    return [replace(base, match=replace(base.match, unless=tuple(flags)))]


def _file_args(clause: str, because: str, read) -> list:
    m = _FILE_ARGS.fullmatch(clause)
    specs = read(f"never run {m.group('cmds')}", because) if m else []
    return [replace(s, match=replace(s.match, on=("*",))) for s in specs] if _commands(specs) else []


def qualified_specs(clause: str, because: str, read) -> list:
    """The guards of a command rule narrowed by a place, a wrapper, a flag or its output."""
    return (_through(clause, because) or _flag_with(clause, because, read) or _placed(clause, because, read)
            or _script_over(clause, because, read) or _to_file(clause, because, read) or _global(clause, because)
            or _piped(clause, because) or _runner_over(clause, because) or _with_flag(clause, because, read)
            or _file_args(clause, because, read))
