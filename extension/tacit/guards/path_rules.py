"""Path rules: "don't edit `dist/`", "`gen/` must not be edited", "never
delete files in `migrations/`", "leave `vendor/` alone" → path and removal
guards (the path grammar of ``tacit.guards.derive``)."""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.model import GuardSpec, PathMatch, RemoveMatch
from tacit.guards.words import _DONT, _PATH_LIST_SPLIT, _PATH_VERB, _path_pattern

_SEP = r"\s*(?:,\s*or|,\s*and|,|or|and)\s*"
_ALSO = rf"(?:{_PATH_VERB}|create|add|suggest|delete|remove|rename|replace)"
_PATH_VERBS = rf"{_PATH_VERB}(?:{_SEP}{_ALSO})*|create(?:{_SEP}{_ALSO})*?{_SEP}{_PATH_VERB}(?:{_SEP}{_ALSO})*"
_EDITED = (r"(?:edited|modified|changed|touched|updated|altered|overwritten|written(?:\s+to)?|hand-edited)"
           r"(?:\s+(?:by hand|manually|directly))?")
_EDIT_VERB = r"(?:touch|edit|modify|change|alter|overwrite|update|hand-edit|hand edit)"
_EDIT_VERBS = rf"{_EDIT_VERB}(?:{_SEP}{_EDIT_VERB})*"  # not write/create: "don't write tests in src/" is about new files
_THINGS = (r"files?|code|sources?|modules?|scripts?|migrations?|tests?|snapshots?|fixtures?|assets?|images?|"
           r"artifacts?|outputs?|templates?|configs?|configuration|schemas?|types|definitions|docs|stubs|bindings|"
           r"interfaces|headers|clients|models|classes")
_PATH_LESSONS = [lazy(p, re.I) for p in (
    # "do not edit generated files such as `src/gen/api.ts`": the examples named
    rf"{_DONT}\s+(?:{_PATH_VERBS})\s+(?:(?:any|the|all)\s+)?(?:[\w-]+\s+){{0,2}}(?:(?:lock|dot)?files?|folders?|directories|"
    r"dirs?|code|sources?|artifacts?|outputs?|docs?|documents?|notes|reports?|logs?|scripts?|configs?|templates?)"
    r"\s*,?\s+(?:such as|like|e\.?g\.?,?|including|namely)\s+(?P<paths>.+?)"
    r"(?:\s+(?:by hand|manually|directly|yourself))?",
    # "`dist/` must not be edited" · "files in `gen/` are generated and should never be modified"
    r"(?:(?:all\s+|the\s+)?(?:files|anything|everything|code|contents?)\s+(?:in|under|inside|within|of)\s+)?"
    r"(?P<paths>.+?)\s+(?:(?:is|are)\s+(?:auto-?generated|generated|machine-generated|build artifacts?|"
    r"build outputs?)(?:\s+(?:from|by)\s+[^,;`]{1,60}?)?(?:\s*,\s*|\s+and\s+|\s*,\s*and\s+|\s*,?\s*so\s+(?:it|they)\s+))?"
    rf"(?:must|should|shall)\s+(?:not|never)\s+be\s+{_EDITED}",
    rf"{_DONT}\s+(?:{_PATH_VERBS})\s+(?:(?:any|the|an?|every|each|anything|files?|code|contents?|stuff)\s+)*"
    r"(?:(?:in|under|inside|within|of|from)\s+)?(?:(?:auto-?generated|generated|compiled|vendored)\s+)?(?P<paths>.+?)"
    r"(?:\s+(?:by hand|manually|directly|yourself))?",
    # "never edit generated files in `src/gen/`" · "existing migration files under `db/migrate/`"
    rf"{_DONT}\s+(?:{_EDIT_VERBS})\s+(?:(?:any|the|all|existing)\s+)?(?:[\w-]+\s+){{0,2}}(?:{_THINGS})\s+"
    r"(?:in|under|inside|within)\s+(?P<paths>.+?)(?:\s+(?:by hand|manually|directly|yourself))?",
    # "never write the changelog files in `.changes/` by hand": written by a tool, not by the agent
    rf"{_DONT}\s+(?:write|create|add)\s+(?:(?:any|the|new)\s+)?(?:[\w-]+\s+){{0,2}}(?:{_THINGS})\s+"
    r"(?:in|under|inside|within|to)\s+(?P<paths>.+?)\s+(?:by hand|manually)",
    # "`.api` files are generated, never hand-edited" · "`dist/` is never edited by hand"
    r"(?P<paths>.+?)\s+(?:is|are)\s+(?:(?:auto-?generated|generated|machine-generated)\s*(?:,|;|and|,\s*and)\s*)?"
    rf"(?:never|not)\s+(?:to\s+be\s+)?{_EDITED}",
    r"leave\s+(?P<paths>.+?)\s+alone",
    r"(?:keep (?:your hands )?off|hands off)\s+(?P<paths>.+)",
    r"(?P<paths>.+?)\s+(?:is|are)\s+(?:read-only|read only|off-limits|off limits|generated, "
    r"(?:never|don'?t|do not) edit(?: (?:it|them))?)",
)]


# "never edit vendored files": the conventional folder of vendored code
_VENDORED = lazy(rf"{_DONT}\s+(?:{_EDIT_VERBS})\s+(?:(?:any|the|all)\s+)?vendored\s+"
                       r"(?:files?|code|sources?|dependencies|deps|packages|libraries|modules)", re.I)


# "never edit existing migrations": files that exist; a new one may be created
_EXISTING = lazy(r"\b(?:existing|already[- ](?:applied|run|merged|released|committed|published|deployed)|"
                 r"(?:applied|released|published|shipped|merged)\s+migrations?)\b", re.I)


_ANY_FOLDER = lazy(r"^(?:any|every|all)\s+(`[^`]+/`)\s+(?:directory|directories|folders?|dirs?)$", re.I)


# "don't create new agent files in `.claude/agents/`": new files only; editing one that is there stays allowed
_NEW_FILES = lazy(rf"{_DONT}\s+(?:create|add|make|write)\s+(?:any\s+)?(?:more\s+)?new\s+(?:[\w-]+\s+){{0,2}}(?:{_THINGS})\s+"
                  r"(?:in|under|inside|within|to|into)\s+(?P<paths>.+?)", re.I)


# "Never create new `.html` files" · "do not create additional `.md` files": a kind of file, new ones only
_NEW_KIND = lazy(rf"{_DONT}\s+(?:create|add|make|write)\s+(?:any\s+)?(?:more\s+)?(?:new|additional|extra)\s+"
                 r"(?P<paths>(?:`[^`]+`|\.[a-z][a-z0-9]{0,7})\s+files?)", re.I)  # "new .md files": typed unquoted too


# "never write migrations by hand": the conventional folder of migrations
_MIGRATIONS = lazy(rf"{_DONT}\s+(?:write|create|author|hand-write|edit|modify)\s+(?:any\s+|new\s+|the\s+)?(?:django\s+|database\s+|"
                   r"db\s+|schema\s+)?migrations?(?:\s+files?)?\s+(?:by hand|manually|yourself)", re.I)


# "modify `docs/` … as part of broader changes": a case of the edit, which the matcher cannot see
_AS_PART_OF = lazy(r"\bas\s+part\s+of\b", re.I)


def _paths(sentence: str, because: str) -> GuardSpec | None:
    if _AS_PART_OF.search(sentence):
        return None
    if _VENDORED.fullmatch(sentence):
        return GuardSpec(PathMatch(("vendor/",)), because)
    if _MIGRATIONS.fullmatch(sentence):
        return GuardSpec(PathMatch(("migrations/",)), because)
    m = _NEW_FILES.fullmatch(sentence)
    patterns = _path_list(m.group("paths")) if m else None
    if patterns and all(p.endswith(("/", "*")) for p in patterns):
        return GuardSpec(PathMatch(patterns, new_only=True), because)
    m = _NEW_KIND.fullmatch(sentence)
    patterns = _path_list(m.group("paths")) if m else None
    if patterns and all(p.startswith("*.") for p in patterns):
        return GuardSpec(PathMatch(patterns, new_only=True), because)
    for pattern in _PATH_LESSONS:
        m = pattern.fullmatch(sentence)
        if not m:
            continue
        paths = _ANY_FOLDER.sub(r"\1", m.group("paths"))  # "any `dist/` directory": every dist/ folder
        patterns = _path_list(paths) or _quoted_paths(paths)
        if patterns:
            return GuardSpec(PathMatch(patterns, bool(_EXISTING.search(sentence))), because)
    return None


def _quoted_paths(text: str) -> tuple | None:
    """"`docs/contracts/`, `docs/layers/`, or registry facet values": the quoted
    paths of a list that also names things that are not paths."""
    parts = _PATH_LIST_SPLIT.split(text.strip())
    if len(parts) < 2 or any("`" in p and not p.strip().startswith("`") for p in parts):
        return None  # "edit `a.ts`, modify `b/`": a list of rules, not of paths
    found = [_path_pattern(p) for p in parts if p.strip().startswith("`")]
    found = [p for p in found if p and ("/" in p or "." in p or "*" in p)]
    return tuple(dict.fromkeys(found)) or None


_REMOVE_VERB = r"(?:delete|remove|rename|move)"
_REMOVALS = lazy(rf"{_DONT}\s+(?P<verbs>{_REMOVE_VERB}(?:{_SEP}{_REMOVE_VERB})*)\s+"
                       r"(?:(?:any|the|existing|anything|files?|folders?)\s+)*"
                       rf"(?:(?:[\w-]+\s+)?(?:{_THINGS})\s+)?(?:(?:in|under|inside|within|from)\s+)?"
                       r"(?P<paths>.+?)", re.I)


def _removals(sentence: str, because: str) -> GuardSpec | None:
    """"don't delete or rename files in `docs/images/`": deleting or renaming, not editing."""
    m = _REMOVALS.fullmatch(sentence)
    patterns = _path_list(m.group("paths")) if m else None
    if not patterns:
        return None
    verbs = m.group("verbs").lower()
    ops = tuple(op for op, words in (("delete", ("delete", "remove")), ("rename", ("rename", "move")))
                if any(re.search(rf"\b{w}\b", verbs) for w in words))
    return GuardSpec(RemoveMatch(patterns, ops), because)


_RC_FILE = lazy(r"(?:[\w.\-/]*/)?\.[a-z][\w-]*rc")


def _path_list(text: str) -> tuple | None:
    """"`a/` or `b.json`" · "dist/ in packages/bot" → path patterns, or None."""
    # "`docs/images/` as frozen snapshots": what the quoted path is, not a second path
    # ("… as part of broader changes" is a case of it: no path list)
    text, below = re.sub(r"(`[^`]+`)\s+as\s+(?!part\s+of\b)(?:an?\s+|the\s+)?[a-z][a-z -]*", r"\1", text.strip(),
                         flags=re.I), None
    where = re.fullmatch(r"(.+?)\s+(?:in|under|inside|within)\s+(`[^`]+`|\S+/\S*)", text)
    if where and (folder := _path_pattern(where.group(2))):
        text, below = where.group(1), folder.rstrip("/")  # "dist/ in packages/bot"
    patterns = []
    for part in _PATH_LIST_SPLIT.split(text):
        # "`a.go`, everything under `gen/`, and `static/`": a folder's contents are the folder
        p = _path_pattern(re.sub(r"^\s*(?:everything|anything|all(?:\s+files)?|(?:any\s+)?files)\s+(?:under|in|inside|within)\s+"
                                 r"(?=`)", "", part, flags=re.I))
        if p is None:
            return None
        if below:
            p = f"{below}/{p}" if "/" in p.rstrip("/") else f"{below}/**/{p}"
        patterns.append(p)
        if _RC_FILE.fullmatch(p):
            patterns.append(p + ".*")  # "`.eslintrc`": also .eslintrc.json, .eslintrc.js …
    return tuple(dict.fromkeys(patterns)) or None
