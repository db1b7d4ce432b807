"""Rule shapes beyond the core grammar of ``derive``: git (amend, hooks,
commits on a branch or of a file), ``gh … create``, pipes into a shell, SQL,
and an edit prohibition with no object ("`x.ts` — generated, do not edit")."""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.model import (CommandMatch, CommitMatch, CommitPathMatch, GuardSpec, PathMatch, PipeMatch, RebaseMatch,
                                SqlMatch)
from tacit.guards.words import _DONT, _EXTENSIONLESS_FILES, _PATH_LIST_SPLIT, _PATH_VERB, _path_pattern, _targets

# "never amend commits" · "don't amend" · "no amending"
_AMEND = lazy(rf"(?:{_DONT}|stop)\s+(?:use\s+|run\s+)?(?:git\s+)?amend(?:ing)?"
                    r"(?:\s+(?:a|any|the|your|existing|previous|prior|old)?\s*(?:last\s+)?commits?)?", re.I)
# "never use --no-verify" · "never skip hooks" · "don't bypass the hooks"
_NO_VERIFY = lazy(rf"{_DONT}\s+(?:(?:use|pass|add)\s+(?:the\s+)?`?--no-verify`?(?:\s+flag)?|"
                        r"(?:skip|bypass|disable)\s+(?:the\s+)?(?:(?:git|pre-commit|pre-push|commit)(?:\s+(?:or|and)\s+|\s*/\s*|\s+))*hooks"
                        r"(?:\s+(?:with|using|via|by passing|by using)\s+`?--no-verify`?)?)"
                        # "… to bypass the hooks": the purpose of the flag, not a condition
                        r"(?:\s+to\s+(?:bypass|skip|disable|avoid)\s+(?:the\s+)?(?:(?:git|pre-commit|pre-push|commit)(?:\s+(?:or|and)\s+|\s*/\s*|\s+))*"
                        r"(?:hooks?|checks?|linting|lint|tests))?", re.I)
# "never rebase onto main" · "don't rebase on top of `develop`" · "never rebase" (any rebase)
_REBASE = lazy(rf"{_DONT}\s+(?:(?:run|use|do)\s+)?`?(?:git\s+)?rebase`?(?:\s+(?:anything|branches|commits|your branch))?"
                     r"(?:\s+(?:onto|on to|on top of|on|against|over)\s+(?P<branches>.+))?", re.I)
_SRC = r"(?:`?(?:curl|wget)`?(?:\s*(?:/|or|and|,)\s*`?(?:curl|wget)`?)?|remote scripts?|scripts? from the (?:internet|web)|downloads?|downloaded scripts?)"
_SINK = r"(?:`?(?:sh|bash|zsh|shell)`?(?:\s*(?:/|or|and|,)\s*`?(?:sh|bash|zsh)`?)?|a shell|the shell|an? interpreter)"
_PIPE = [lazy(p, re.I) for p in (
    rf"{_DONT}\s+(?:run\s+)?(?:pipe|piping)\s+(?:the\s+)?(?:output\s+of\s+)?{_SRC}(?:\s+(?:output|results?))?"
    rf"\s+(?:in)?to\s+(?:sudo\s+)?{_SINK}",
    rf"{_DONT}\s+(?:run\s+|use\s+)?`?(?:curl|wget)(?:\s+[^|`]*)?\s*\|\s*(?:sudo\s+)?(?:sh|bash|zsh)`?(?:\s+(?:scripts?|installs?|installers?))?",
    rf"{_DONT}\s+(?:run\s+|use\s+)?`?(?:curl|wget)\s+(?:\S+\s+)?\|\s*(?:sudo\s+)?(?:sh|bash)`?\s+(?:patterns?|style installs?)",
)]
_SQL_VERB = r"(?:run|execute|issue|use|do|perform|write)"
_SQL_WHERE = r"(?:\s+(?:on|against|in|to)\s+(?:the|a|any|our)\s+(?:\w+\s+)?(?:database|db|tables?))?"
_SQL = [
    (lazy(rf"{_DONT}\s+(?:{_SQL_VERB}\s+)?(?:a\s+|any\s+)?`?drop\s+(?:table|tables)`?(?:\s+(?:statements?|commands?|queries))?|"
                rf"{_DONT}\s+drop\s+(?:any\s+|the\s+)?(?:database\s+)?tables", re.I), ("drop_table",)),
    (lazy(rf"{_DONT}\s+(?:{_SQL_VERB}\s+)?`?drop\s+(?:database|schema)`?|"
                rf"{_DONT}\s+drop\s+(?:the|a|any)\s+(?:database|db|schema)s?", re.I), ("drop_database",)),
    (lazy(rf"{_DONT}\s+(?:{_SQL_VERB}\s+)?`?truncate`?(?:\s+(?:any|the)?\s*tables?)?", re.I), ("truncate",)),
    (lazy(rf"{_DONT}\s+(?:{_SQL_VERB}\s+)?(?:a\s+|any\s+)?(?:raw\s+|bare\s+|plain\s+)?`?delete(?:\s+from)?`?(?:\s+(?:statements?|queries|rows))?"
                r"\s+without\s+(?:a\s+)?`?where`?(?:\s+clause)?", re.I), ("delete_without_where",)),
]


# after a first edit verb, more things not to do to it: "do not modify, refactor, or lint them" (a lint or a
# format edits nothing more; the edit is what is stopped)
_OBJECTLESS_VERB = rf"(?:{_PATH_VERB}|replace|delete|remove|rename|move|bypass|refactor|reformat|format|lint)"
_OBJECTLESS_EDIT = lazy(rf"(?:{_DONT}|never)\s+(?:{_PATH_VERB}|replace)(?:\s*(?:,\s*or|,|or|and)\s*{_OBJECTLESS_VERB})*"
                              r"(?:\s+(?:it|them|this file|that file|these files|"
                              r"those files|the file|this|that|these|those))?(?:\s+(?:by hand|manually|directly|yourself))?", re.I)
_OBJECTLESS_COMMIT = lazy(rf"(?:{_DONT}|never)\s+(?:git\s+)?(?:commit|check in|stage|add)\s+(?:it|them|this file|"
                                r"that file|these files|those files|the file|this|that)(?:\s+to\s+git)?", re.I)
_COMMIT_TO = lazy(rf"{_DONT}\s+`?(?:git\s+)?commit`?(?:\s+(?:anything|changes|code))?\s+(?:to|on|onto|into)\s+(?P<branches>.+)",
                        re.I)
_COMMIT_PATH = lazy(rf"{_DONT}\s+(?:git\s+)?(?:commit|stage|check in|add)\s+(?:any\s+)?(?:changes\s+to\s+)?"
                          r"(?:(?:any\s+)?(?:files|anything)\s+(?:in|under|from|inside)\s+)?(?:the\s+|(?:(?<=commit\s)|(?<=stage\s))an?\s+)?"
                          r"(?:(?:actual|real|local|private)\s+)?(?P<paths>.+?)"
                          # "never commit .env files to version control": where a commit goes is no path
                          r"(?:\s+(?:to|into|in)\s+(?:the\s+|your\s+|our\s+|this\s+)?(?:git(?:\s+repo(?:sitory)?)?|"
                          r"version\s+control|source\s+control|vcs|repo|repository|github|gitlab|codebase|history))?", re.I)
_COMMIT_ANY = lazy(rf"{_DONT}\s+(?:(?:create|make)\s+(?:any\s+|new\s+)?(?:git\s+)?commits|`?(?:git\s+)?commit`?"
                         r"(?:\s+(?:anything|changes|your changes|the changes|code|your work))?)"
                         r"(?P<push>\s*(?:,\s*)?(?:or|and|nor)\s+push(?:\s+(?:anything|changes|code))?)?"
                         r"(?:\s+(?:to|into)\s+git(?:hub)?)?", re.I)  # "never commit or push to git": any commit
_GH_CREATE = lazy(rf"{_DONT}\s+(?P<verb>create|open|file|submit|merge|close)\s+(?:a|an|any|new|the)?\s*(?:new\s+)?"
                        r"(?P<draft>drafts?\s+)?(?P<what>pr|prs|pull requests?|issues?|releases?)", re.I)


# the file a tool writes: "auto-regenerates `docs/cli.md`" · "commit the regenerated `x.md`"
_GENERATED = lazy(r"\b(?:auto-?)?(?:re)?(?:generates|generated|writes|produces)\**\s+(?:the\s+)?"
                  r"(?:(?:[\w-]+\s+){1,4}(?:shipped|stored|placed|written|kept|saved|emitted|output)?\s*(?:in|into|under|to)\s+)?"
                  r"(`[^`]+`)", re.I)


# "build outputs live in `package-dev/`; do not hand-edit generated assemblies": the things the
# line says live in its one folder, named by what made them
_MADE = r"(?:generated|built|compiled|downloaded|vendored|bundled)"
_DESCRIBED_EDIT = lazy(rf"(?:{_DONT}|never)\s+{_PATH_VERB}\s+(?:the\s+|any\s+)?{_MADE}(?:\s+[\w-]+){{1,2}}"
                       rf"(?:\s+(?:or|and)\s+(?:the\s+|any\s+)?{_MADE}(?:\s+[\w-]+){{1,2}})?"
                       r"(?:\s+(?:by hand|manually|directly|yourself))?", re.I)
# … or "JSON schemas in `schemas/` are generated from it": the folder the things made are said to be in
_LIVE_IN = lazy(r"\b(?:(?:live|lives|go|goes|sit|sits|are kept|is kept|are stored|is stored)\s+(?:in|under|inside)\s+|"
                r"(?:in|under|inside)\s+(?=`[^`]+/`\s+(?:is|are)\s+(?:auto-?)?(?:generated|built|compiled)\b))(`[^`]+/`)", re.I)


# a list item's bare lower-case name, then a dash or colon and what it holds: a folder of the repository
_BARE_HEAD = lazy(r"\s*[-*+]\s+([a-z][a-z0-9_-]{2,30})\s+(?:-|\u2014|\u2013)\s+\S")


# "… are generated by the scripts in `scripts/`. Do not edit them": what makes the files is not what "them" is
_MADE_BY = lazy(r"\b(?:by|from|via|using)\s+(?:(?:the|a|an|our|its|their|this|that)\s+)?(?:[\w-]+\s+){0,3}$", re.I)


def _objectless_edit(sentence: str, because: str, lesson: str) -> GuardSpec | None:
    """"`x.ts` — generated, do not edit directly" ("… never commit it"): an
    edit (or commit) prohibition with no object, in a lesson that names
    exactly one path."""
    commit = bool(_OBJECTLESS_COMMIT.fullmatch(sentence))
    head = re.match(r"[\s*>#+\d.)-]*(?:`([^`]+)`(?P<more>(?:\s*(?:,|\band\b|\bor\b|&)\s*`[^`]+`)*)|\*\*([^*`]+)\*\*)\**(?:(?:\s+(?:is|are)\s+(?:\*\*)?[\w-]+(?:\*\*)?"
                    r"(?:\s+[\w-]+){0,3})?\s*(?:[\u2014\u2013:]|\s-\s|-\s)|\s+(?:is|are)\s+(?:auto-?)?generated\b|"
                    # "`x/` contains vendored bindings. Do not modify them": the line's subject, then what it holds
                    r"(?P<holds>\s+(?:contains|holds|houses|keeps|vendors|includes)\b))", lesson)
    subject = head and _path_pattern(f"`{head.group(1) or head.group(3)}`")
    if not commit and _DESCRIBED_EDIT.fullmatch(sentence):
        if head and head.group("holds"):  # "`src/` contains sources and generated code. Do not edit generated
            return None  # files": the folder holds more than what the rule is about

        homes = _LIVE_IN.findall(lesson)
        if len(homes) == 1 and len(re.findall(r"`[^`]+`", lesson)) == 1:
            folder = _path_pattern(homes[0])
            return GuardSpec(PathMatch((folder,)), because) if folder else None
        return _described_subject(subject, head, lesson, because)
    if not commit and not _OBJECTLESS_EDIT.fullmatch(sentence):
        return None
    if head and head.group("holds") and re.search(r"\band\b|,|;", re.split(r"[.!?](?:\s|$)", lesson[head.end():], 1)[0]):
        return None  # "`src/` contains sources and generated files. Do not edit them": which of them is not said
    quoted = [q for q in re.findall(r"`[^`]+`", lesson) if not _MADE_BY.search(lesson[:lesson.index(q)])]
    subjects = _subjects(head)
    if len(subjects) > 1 and re.search(r"\b(?:it|this|that)(?:\s+file)?\b", sentence, re.I):
        return None  # "`a/`, `b/` — data; don't touch it": which one "it" is is not said
    if subjects:  # "`x/` — …", "`a.py`, `b.py` — …": the line's subject (not "**IMPORTANT**: …")
        quoted = subjects
    elif subject and re.search(r"[/.*]", subject):  # "**prefect.ts** - …"
        quoted = [f"`{subject}`"]
    bare = _BARE_HEAD.match(lesson) if not quoted and not commit and not head else None
    if bare:  # "- conformance - Typing conformance tests pulled from upstream. Don't edit": a folder of a list
        return GuardSpec(PathMatch((bare.group(1) + "/",)), because)
    made = {_path_pattern(q) for q in _GENERATED.findall(lesson)} - {None}
    if len(quoted) > 1 and len(made) == 1:  # "`make style` regenerates `cli.md` … don't edit that file"
        quoted = [f"`{next(iter(made))}`"]
    found = {p for p in (_path_pattern(q) for q in quoted) if p}
    if subjects and len(found) == len(subjects):  # every subject a path (checked by _subjects)
        return GuardSpec(CommitPathMatch(tuple(sorted(found))) if commit else PathMatch(tuple(sorted(found))), because)
    if len(found) != 1 or len(quoted) != 1 or not (re.search(r"[/.*]", next(iter(found)))
                                                  or next(iter(found)).lower() in _EXTENSIONLESS_FILES):
        return None  # one path, and one that looks like a path (not "`pnpm`")
    return GuardSpec(CommitPathMatch(tuple(found)) if commit else PathMatch(tuple(found)), because)


def _subjects(head) -> list:
    """The paths a line opens with, as quoted spans ("`a/{x,y}/...`" read as "`a/x/`", "`a/y/`"), when
    each one is clearly a path; [] otherwise."""
    if not head or not head.group(1):
        return []
    out = []
    for name in [head.group(1)] + re.findall(r"`([^`]+)`", head.group("more") or ""):
        name = re.sub(r"/(?:\.\.\.|\u2026|\*\*)$", "/", name)  # "libs/...": everything below
        brace = re.fullmatch(r"([^{}]*)\{([\w.-]+(?:,[\w.-]+)+)\}([^{}]*)", name)
        names = [brace.group(1) + part + brace.group(3) for part in brace.group(2).split(",")] if brace else [name]
        for one in names:
            pattern = _path_pattern(f"`{one}`")
            if not pattern or not (re.search(r"[/*]", pattern) or re.search(r"[^./]\.[A-Za-z0-9]{1,10}$", pattern)):
                return []
            out.append(f"`{one}`")
    return out if len(out) > 1 or (head.group("more") or "{" in head.group(1) or "..." in head.group(1)) else []


# "`docs/cli.md` is generated from `cmd/` — edit the Go source instead": what a tool makes, and the
# order to change its source, say not to edit the made file
_MADE_SUBJECT = lazy(r"[\s*>#+\d.)-]*(?:the\s+)?`(?P<path>[^`]+)`\**(?:\s+(?:files?|folders?|directory|dir))?\s+"
                     r"(?:is|are)\s+(?:(?:always|fully|now)\s+)?(?:auto-?)?(?:re)?(?:generated|built|compiled|produced)\b", re.I)
_EDIT_INSTEAD = lazy(r"(?:(?:please|always)\s+)?(?:edit|change|modify|update|fix)\s+(?P<what>.+?)\s+instead", re.I)


def _generated_instead(sentence: str, because: str, lesson: str) -> GuardSpec | None:
    """"`x` is generated from `y` — edit `y` instead": the made file (or
    folder, or glob) the line opens with, never the source it names."""
    m = _EDIT_INSTEAD.fullmatch(sentence)
    head = _MADE_SUBJECT.match(lesson) if m else None
    if not head:
        return None
    made = _path_pattern(f"`{head.group('path')}`")
    if not made or not re.search(r"[/.*]", made) or head.group("path") in m.group("what"):
        return None
    return GuardSpec(PathMatch((made,)), because)


# "**`.claude/agents/` is deprecated.** Do not create new agent files": a folder the line says is
# closed, and a prohibition of new or changed files with no other place named
_CLOSED_FOLDER = lazy(r"[\s*>#+\d.)-]*(?:the\s+)?`(?P<path>[^`]+/)`\**(?:\s+(?:folder|directory|dir))?\s+(?:is|are)\s+"
                      r"(?:now\s+)?(?:\*\*)?(?:deprecated|frozen|legacy|archived|read-only|vendored|(?:auto-?|machine-)?generated|"
                      r"build (?:output|artifacts?))\b", re.I)
_FILES_THERE = lazy(rf"{_DONT}\s+(?:create|add|put|write|edit|modify|change)\s+(?:(?:new|any|more|additional)\s+)?"
                    r"(?:[\w-]+\s+)?(?:files?|folders?|directories|code)(?:\s+(?:there|here|in it|in there|inside it))?",
                    re.I)


def _closed_folder(sentence: str, because: str, lesson: str) -> GuardSpec | None:
    """"`x/` is deprecated. Do not create new agent files": changes below the
    folder the line opens with, when the line quotes no other path."""
    head = _CLOSED_FOLDER.match(lesson) if _FILES_THERE.fullmatch(sentence) else None
    if not head or len(set(re.findall(r"`[^`]+`", lesson))) != 1:
        return None
    folder = _path_pattern(f"`{head.group('path')}`")
    return GuardSpec(PathMatch((folder,)), because) if folder else None


def _described_subject(subject, head, lesson: str, because: str) -> GuardSpec | None:
    """"- `shared/`: Generated types (`shared/types.ts`) … Do not edit generated
    files": the folder the line is about, said to hold what a tool made, when
    every path the line names lies inside it."""
    if not subject or not subject.endswith("/") or not head:
        return None
    said = re.split(r"(?<=[.!?])\s", lesson[head.end():], maxsplit=1)[0]
    if not re.search(rf"\b{_MADE}\b", said, re.I):
        return None
    named = {_path_pattern(q) for q in re.findall(r"`[^`]+`", lesson)} - {None}
    if not all(p.startswith(subject) for p in named):
        return None
    return GuardSpec(PathMatch((subject,)), because)


# "build artifacts like `*.dll`, `*.pdb` or `bin/`": what the kind is said to be, the paths after it
_KIND_LIKE = lazy(r"^(?:[\w-]+\s+){1,3}?(?:(?:that|which)\s+(?:look|looks|seem|seems)\s+like\s+[\w-]+\s+)?"
                  r"(?:such as|like|e\.?g\.?,?|including)\s+(?=\S)", re.I)  # "files that look like secrets such as …"


def _pathish(pattern: str | None) -> bool:
    """A pattern that names a path: a slash, a dot or a glob in it, or ``node_modules``, ``Makefile`` …"""
    return bool(pattern) and ("/" in pattern or "." in pattern or "*" in pattern
                              or pattern.lower() in _EXTENSIONLESS_FILES)


# an unquoted item of a commit list that can only be a path: ".env files", "*.pem", ".dshx/", "node_modules"
_BARE_PATH = lazy(r"(?:the\s+)?(?:\.\w[\w.-]*|[\w.~-]*(?:/|\*)[\w.*/~-]*|node_modules)"
                  r"(?:\s+(?:files?|folders?|directory|directories|dirs?))?", re.I)


def _other_shapes(sentence: str, because: str) -> GuardSpec | None:
    m = _COMMIT_PATH.fullmatch(sentence)
    if m and not re.match(r"(?:to|on|onto|into|in)\s", m.group("paths").strip(), re.I):  # "commit to main": a branch
        parts = _PATH_LIST_SPLIT.split(_KIND_LIKE.sub("", m.group("paths").strip()))
        patterns = [_path_pattern(p) for p in parts]
        if patterns and all(_pathish(p) for p in patterns):
            return GuardSpec(CommitPathMatch(tuple(dict.fromkeys(patterns))), because)
        # "never commit `.env` files, tokens or credentials" (or .env unquoted, but "add" may be a label): the paths
        bare = not re.match(rf"{_DONT}\s+(?:git\s+)?add\b", sentence, re.I)
        quoted = [p for p, part in zip(patterns, parts)
                  if _pathish(p) and ("`" in part or bare and _BARE_PATH.fullmatch(part))]
        if quoted and len(parts) > 1:
            return GuardSpec(CommitPathMatch(tuple(dict.fromkeys(quoted))), because)
    m = _COMMIT_TO.fullmatch(sentence)
    if m:
        found = _targets(m.group("branches"))
        if found and found[0] and not found[1]:
            return GuardSpec(CommitMatch(found[0]), because)
        return None
    m = _COMMIT_ANY.fullmatch(sentence)
    if m:  # any commit; "commit or push": the commit here, the push below
        return GuardSpec(CommandMatch(("git",), ("commit",), (), True), because)
    m = _GH_CREATE.fullmatch(sentence)
    if m:
        what = m.group("what").lower()
        sub = "pr" if what.startswith("p") else "issue" if what.startswith("i") else "release"
        verb = m.group("verb").lower()
        action = verb if verb in ("merge", "close") else "create"
        if action == "merge" and sub != "pr" or action == "close" and sub == "release" or m.group("draft") and action != "create":
            return None
        flags = ("--draft",) if m.group("draft") and sub == "pr" else ()
        return GuardSpec(CommandMatch(("gh",), (sub, action), flags, True), because)
    return None


def _content_shapes(sentence: str, because: str) -> GuardSpec | None:
    """Pipes into a shell, and SQL through a database client."""
    if any(pattern.fullmatch(sentence) for pattern in _PIPE):
        return GuardSpec(PipeMatch(), because)
    for pattern, statements in _SQL:
        if pattern.fullmatch(sentence) or pattern.fullmatch(re.sub(_SQL_WHERE + "$", "", sentence, flags=re.I)):
            return GuardSpec(SqlMatch(statements), because)
    m = _SQL_LIST.fullmatch(sentence.replace("`", ""))
    if m:  # "never run DROP TABLE, TRUNCATE or a DELETE without a WHERE clause"
        items = re.split(r"\s*(?:,\s*or|,\s*and|,|\bor\b|\band\b)\s*", m.group("items"))
        found = [next((name for rx, name in _SQL_ITEMS if rx.fullmatch(i.strip())), None) for i in items if i.strip()]
        if len(found) >= 2 and all(found):  # a bare "DROP": of a table or a database
            names = [n for name in found for n in (("drop_table", "drop_database") if name == "drop" else (name,))]
            return GuardSpec(SqlMatch(tuple(dict.fromkeys(names))), because)
    return None


_SQL_ITEMS = [(lazy(p, re.I), name) for p, name in (
    (r"(?:a\s+|any\s+)?drop\s+tables?(?:\s+statements?)?", "drop_table"),
    (r"(?:a\s+|any\s+)?drop\s+(?:database|schema)s?(?:\s+statements?)?", "drop_database"),
    (r"(?:a\s+|any\s+)?truncate(?:\s+tables?)?(?:\s+statements?)?", "truncate"),
    (r"(?:a\s+|any\s+)?drop(?:\s+statements?)?", "drop"),
    (r"(?:a\s+|an\s+|any\s+)?delete(?:\s+from)?(?:\s+statements?|\s+queries)?\s+without\s+(?:a\s+)?where(?:\s+clause)?",
     "delete_without_where"),
)]
_SQL_ITEM = r"(?:(?:a|an|any)\s+)?(?:drop|truncate|delete)\b[\w\s]*?"
_SQL_LIST = lazy(rf"{_DONT}\s+(?:{_SQL_VERB}\s+)?(?:(?:destructive|dangerous|raw)\s+)?(?:(?:sql|queries|statements|commands)"
                       rf"\s*,?\s*(?:like|such as|e\.?g\.?,?|including)\s+)?(?P<items>{_SQL_ITEM}(?:\s*(?:,\s*or|,\s*and|,|or|and)\s*{_SQL_ITEM})+)"
                       r"(?:\s+(?:statements|queries|commands))?" + _SQL_WHERE, re.I)


def _git_shapes(sentence: str, because: str) -> GuardSpec | None:
    if _AMEND.fullmatch(sentence):
        return GuardSpec(CommandMatch(("git",), ("commit",), ("--amend",), True), because)
    if _NO_VERIFY.fullmatch(sentence):
        return GuardSpec(CommandMatch(("git",), (), ("--no-verify",), True), because)
    m = _REBASE.fullmatch(sentence)
    if m:
        if m.group("branches") is None:
            return GuardSpec(CommandMatch(("git",), ("rebase",), (), True), because)
        found = _targets(m.group("branches"))
        if found and found[0] and not found[1]:
            return GuardSpec(RebaseMatch(found[0]), because)
    return None
