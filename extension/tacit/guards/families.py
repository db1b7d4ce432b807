"""Rule families of the eighth corpus round: a command said to need a flag ("never run X without
F"), an example after a file-arguments rule, any folder of a name at any depth, pull requests
opened to the project, comments or reviews on pull requests and issues, and a version bumped in a
manifest. ``family_specs``
returns [] when a clause is none of them. Design notes: docs/guards.md.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.model import CommandMatch, GuardSpec, PathMatch
from tacit.guards.qualified import _command_and_flags
from tacit.guards.words import _DONT, _FAMILY_OF, _PATH_VERB, _unquote, first_match

# programs that do one job: "never run `pytest` without `--no-cov`" needs no subcommand
_ONE_JOB = {"js_test", "py_test", "py_lint", "py_types", "js_lint", "bundler", "ts_run", "go_fmt"}


_CMD = r"`[^`]{1,60}`|[a-z][\w.-]*(?:\s+[a-z][\w:.-]*)?"
_FLAG = r"`--?[\w-]+`|--?[\w-]+"
# "never run `cargo test` without `--all-features`" · "`cargo test` must be run with `--all-features`"
# ("run X with F", "pass F to X" and "when running X, use F" are qualified._with_flag's)
_NEEDS_FLAG = [lazy(p, re.I) for p in (
    rf"(?P<cmd>{_CMD})\s+(?:must|should|has to|needs to)\s+(?:always\s+)?be\s+run\s+with\s+(?:the\s+)?(?P<flags>{_FLAG})"
    r"(?:\s+(?:flag|option))?",
    rf"{_DONT}\s+run\s+(?P<cmd>{_CMD})\s+without\s+(?:the\s+)?(?P<flags>{_FLAG})(?:\s+(?:flag|option))?",
)]


def _needs_flag(clause: str, because: str, run) -> list:
    m = first_match(_NEEDS_FLAG, clause)
    base = _command_and_flags(m, because, run)[0] if m else None
    if base is None:
        return []
    c = base.match
    one_job = any(_FAMILY_OF.get(p, set()) & _ONE_JOB for p in c.programs)
    if c.programs == ("*",) or not (c.subcommands or one_job) or c.unless:
        return []  # "run git with -C": a whole program of many commands is too wide to need one flag
    flag = _unquote(m.group("flags"))
    return [GuardSpec(CommandMatch(c.programs, c.subcommands, (), True, unless=(flag,)), because,
                      f"{_unquote(m.group('cmd'))} {flag}")]


# "never run `tsc` with file arguments (e.g., `tsc src/file.ts`)": the example shows the rule, it is not part of it
_EXAMPLE_TAIL = lazy(r"(?P<head>.+?\bfiles?\b.*?)\s*,?\s+(?:with|e\.?g\.?,?|such as|like|for example,?)\s+`[^`]+`", re.I)


def _example_tail(clause: str, because: str, run) -> list:
    m = _EXAMPLE_TAIL.fullmatch(clause)
    found = run(m.group("head"), because) if m else []
    ok = found and all(isinstance(s.match, CommandMatch) and s.match.on == ("*",) for s in found)
    return found if ok else []


_VERB = rf"(?:{_PATH_VERB}(?:\s*(?:,|or|,\s*or)\s*{_PATH_VERB})*)"
# "do not modify generated code, found in `generated` subdirectories" · "never edit files in any `gen` folder"
_ANY_FOLDER = lazy(rf"{_DONT}\s+(?P<verb>{_VERB})\s+(?:(?:the|any)\s+)?(?P<what>(?:[\w-]+\s+){{0,2}}(?:code|files?|"
                   r"sources?|anything))\s*,?\s*(?:(?:found|located|that (?:live|are|sit))\s+)?(?:in|under|inside)\s+"
                   r"(?:any\s+|the\s+|all\s+)?(?P<name>`[\w.-]+/?`|[\w.-]+)\s+(?:sub)?(?:director(?:y|ies)|folders?|dirs?)",
                   re.I)
# "never comment on or review pull requests" · "don't approve PRs" · "never comment on issues" ·
# "never reply to an issue" (a reply is a comment) · "don't approve or request changes on any pull request"
_ACT = (r"(?:comment(?:\s+on)?|review|approve|(?:reply|respond)(?:\s+to)?|request\s+changes(?:\s+(?:on|to))?|"
        r"(?:post|leave|add|write)\s+(?:review\s+)?comments?\s+(?:on|to))")
# "never post comments on GitHub": its pull requests and issues
_PR_ACTS = lazy(rf"{_DONT}\s+(?P<acts>{_ACT}(?:\s*(?:,|or|and|,\s*or)\s*{_ACT})*)\s+(?:on\s+)?(?:any\s+|the\s+)?(?:(?!(?:pull|prs?|issues?|github)\b)\[?[\w.-]+\]?\s+)?"
                r"(?P<what>(?:pull requests?|prs?|issues?|github)(?:\s*(?:,|or|and|,\s*or)\s*(?:pull requests?|prs?|issues?))*)"
                r"(?:\s*,?\s*etc\.*)?(?:\s+(?:on|to|in|for)\s+\[?[\w./-]+\]?)?", re.I)


# "never open pull requests to [Wasmtime]": the project a rule file belongs to (a branch is another reading)
_PR_TO = lazy(rf"{_DONT}\s+(?:open|create|submit|file|raise|send|make)\s+(?:any\s+|a\s+|new\s+)?(?:pull requests?|prs?)\s+"
              r"(?:to|against|on|for|in|into)\s+(?:the\s+)?\[?(?P<x>[\w.-]+(?:/[\w.-]+)?)\]?(?:\s+(?:repo|repository|project))?",
              re.I)
_NOT_PROJECT = frozenset(("main", "master", "develop", "trunk", "it", "them", "this", "that", "any", "branches",
                          "branch", "release", "production", "prod", "staging", "default"))
_RELATIVE = frozenset(("upstream", "origin", "parent", "original", "source", "base", "fork", "forks"))


def _pr_to(clause: str, because: str) -> list:
    m = _PR_TO.fullmatch(clause)
    if not m or m.group("x").lower() in _NOT_PROJECT or "/" not in m.group("x") and "." in m.group("x"):
        return []
    x = m.group("x")  # "upstream": which repository that is, a --repo value does not say
    return [GuardSpec(CommandMatch(("gh",), ("pr", "create"), (), True, repo="" if x.lower() in _RELATIVE else x), because)]


def _any_folder(clause: str, because: str) -> list:
    m = _ANY_FOLDER.fullmatch(clause)
    if not m:
        return []
    name = _unquote(m.group("name")).rstrip("/")
    quoted = m.group("name").startswith("`")
    if not re.fullmatch(r"[\w.-]+", name) or not quoted and name.lower() not in m.group("what").lower().split():
        return []  # an unquoted name must be the object's own word: "generated code in generated folders"
    return [GuardSpec(PathMatch((name + "/",)), because)]


# a reply is a comment; "request changes" is a review's verdict, like "approve"
_ACT_OF = {"reply": "comment", "respond": "comment"}


def _pr_acts(clause: str, because: str) -> list:
    m = _PR_ACTS.fullmatch(clause)
    if not m:
        return []
    acts = {_ACT_OF.get(a.lower(), a.lower()) for a in re.findall(r"comment|review|approve|reply|respond|request",
                                                                  m.group("acts"), re.I)}
    what = m.group("what").lower()
    nouns = (["pr"] if re.search(r"pull|pr|github", what) else []) + (["issue"] if re.search(r"issue|github", what) else [])
    out = []
    for noun in nouns:
        for act in ("comment", "review"):
            if act == "review" and noun == "issue":
                continue
            if act in acts:
                out.append(GuardSpec(CommandMatch(("gh",), (noun, act), (), True), because))
            else:  # an approval is a review with --approve (a change request with --request-changes), not any review
                out.extend(GuardSpec(CommandMatch(("gh",), (noun, act), (flag,), True), because)
                           for verdict, flag in (("approve", "--approve"), ("request", "--request-changes"))
                           if act == "review" and verdict in acts)
    return out


# "never bump the version in `package.json`" · "do not manually increment the `version` field in `Cargo.toml`"
_BUMP = lazy(rf"{_DONT}\s+(?:manually\s+|ever\s+)?(?:bump|increment|change|edit|update|modify|touch|set)\s+(?:the\s+|any\s+)?"
             r"(?:package\s+|crate\s+|project\s+)?`?version`?(?:\s+(?:field|number|string|key|value))?\s+(?:in|of)\s+(?:the\s+|any\s+)?"
             r"(?P<path>`[\w./*-]+`|[\w./*-]+\.(?:json|toml|cfg|gradle|xml|csproj|props|yaml|yml))"
             r"(?:\s+files?)?(?:\s+(?:by hand|manually|directly|yourself))?", re.I)


def _version_bump(clause: str, because: str) -> list:
    m = _BUMP.fullmatch(clause)
    path = _unquote(m.group("path")) if m else ""
    return [GuardSpec(PathMatch((path,)), because)] if "." in path.rsplit("/", 1)[-1] else []


def family_specs(clause: str, because: str, own) -> list:
    """The guards of one clause read as one of this module's families, or []."""
    found = _example_tail(clause, because, own) if "file" in clause.lower() and "`" in clause else []
    if not found and "-" in clause:
        found = _needs_flag(clause, because, own)
    return (found or _any_folder(clause, because) or _pr_acts(clause, because) or _pr_to(clause, because)
            or _version_bump(clause, because))
