"""Read and merge rules: "never read `.env`", "never open .env", "don't cat .env.local" → a read
guard (with "or edit", also a path guard); "never merge into main" → a merge guard
(docs/guards.md, "Reads" and "git merge"). Only the whole clause in these words derives one.
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.code_names import _CODE_ROOTS, _FILE_EXTS, code_object
from tacit.guards.model import CommitPathMatch, GuardSpec, MergeMatch, PathMatch, ReadMatch
from tacit.guards.path_rules import _path_list
from tacit.guards.words import _DONT, _PATH_LIST_SPLIT, _path_pattern

# verbs of reading; "cat"/"print"/"display"/"show"/"dump": what shows the text (loading it stays allowed)
_SHOW = r"cat|print|display|show|dump"
_READ = rf"read|open|view|look\s+at|inspect|grep|{_SHOW}"
_EDIT = r"edit|modify|change|touch|write(?:\s+to)?|overwrite"
_COMMIT = r"commit|stage"
_SEP = r"\s*(?:,\s*or|,|or|and|/)\s*"
_READ_RULE = lazy(rf"{_DONT}\s+(?:ever\s+)?(?P<verbs>(?:{_READ}|{_EDIT})(?:{_SEP}(?:{_READ}|{_EDIT}|{_COMMIT}))*)\s+"
                  r"(?:(?:the|any|a|your)\s+)?(?:(?:contents?|files?|anything)\s+(?:of|in|under|inside|within)\s+)?"
                  r"(?P<paths>.+?)(?:\s+(?:contents?|itself|themselves|values))?"
                  # "… or secrets": a kind of file the check cannot tell, said beside the files named
                  r"(?:\s*,?\s*(?:or|and)\s+(?:other\s+)?(?:secrets?|secret\s+(?:files|values)|credentials|keys|"
                  r"files\s+(?:likely\s+|that\s+(?:may|might)\s+)?contain(?:ing)?\s+secrets))?"
                  # "never cat `.env` into context": where the agent's reads go anyway
                  r"(?:\s+(?:in|into)\s+(?:the\s+|your\s+)?(?:context|chat|conversation|transcript))?", re.I)
# an item of a list beside the files that names a kind ("saved authentication files", "private keys")
_KIND_ITEM = lazy(r"(?:[a-z]+\s+){0,3}[a-z]+", re.I)
_NOT_A_KIND = lazy(r"\b(?:unless|without|except|outside|other|than|but|when|if|only|any|all|every)\b", re.I)
# "never merge to main" · "do not merge into `main`/`master`" · "never merge locally to main"
_BRANCH = r"`[A-Za-z0-9][\w./*-]*`|main|master|development|develop|dev|trunk|staging"
_MERGE_RULE = lazy(rf"{_DONT}\s+(?:ever\s+)?merge\s+(?:(?P<local>locally)\s+)?(?:(?:(?:any|your|the|this|feature|other)\s+)*"
                   r"(?:anything|branch(?:es)?|changes|code|it|work|PRs?|pull\s+requests?)\s+)?(?:(?P<local2>locally)\s+)?(?:in)?to\s+"
                   rf"(?:the\s+)?(?P<branches>(?:{_BRANCH})(?:\s*(?:/|,|or|and)\s*(?:{_BRANCH}))*)"
                   r"(?:\s+branch)?(?:\s+(?:automatically|yourself|directly|(?P<local3>locally)))?", re.I)
# "… or push main": the second act of the same rule
_THEN = lazy(r"(?P<first>.+?\bmerge\b.+?)\s*(?:,\s*or|,|or|and)\s+(?P<rest>(?:push|commit)\b.+)", re.I)
_LOCALLY = lazy(r"\bmerge\s+(?:\w+\s+)?locally\b|\blocal\s+merges?\b", re.I)
# "- `solutions`: aggregate branch …; never merge into `main`": the rule is that branch's, not every merge's
_ABOUT_BRANCH = lazy(r"(?:^|\n)\W*(?:[-*+]\s+)?(?:\w+\s+)?\*{0,2}`[^`]+`\*{0,2}(?:\s+branch)?\s*:|\bon\s+(?:the\s+)?branch\b|"
                     r"\bbranch(?:es)?\s+(?:that|which)\b|\b(?:aggregate|long-lived|separate|orphan|state|data)\s+branch\b", re.I)
_DONT_HEAD = lazy(rf"^{_DONT}\s+", re.I)


def read_specs(sentence: str, because: str) -> list:
    """A read rule's guards (a read guard, and a path guard when it also says edit), or []."""
    m = _READ_RULE.fullmatch(sentence)
    if not m or not re.search(_READ, m.group("verbs"), re.I):
        return []
    patterns = _path_list(m.group("paths")) or _named_files(m.group("paths"))
    if not patterns or not all(_file(p) for p in patterns):
        return []  # "never read secrets": no file named; "never print `console.log`", "`user.password`": code
    verbs = {v.lower() for v in re.split(_SEP, m.group("verbs").strip()) if v}
    shows_only = all(re.fullmatch(_SHOW, v, re.I) for v in verbs if re.fullmatch(_READ, v, re.I))
    out = [GuardSpec(ReadMatch(patterns, shows_only), because)]
    if any(re.fullmatch(_EDIT, v, re.I) for v in verbs):
        out.append(GuardSpec(PathMatch(patterns), because))
    if any(re.fullmatch(_COMMIT, v, re.I) for v in verbs):
        out.append(GuardSpec(CommitPathMatch(patterns), because))
    return out


def _named_files(text: str) -> tuple | None:
    """"`.env`, saved authentication files, or environment values": the files named, when every other
    item is a kind in a few plain words (no exception, no place); None otherwise."""
    found = []
    for part in _PATH_LIST_SPLIT.split(text.strip()):
        p = _path_pattern(part)
        if p is not None and _file(p):
            found.append(p)
        elif not _KIND_ITEM.fullmatch(part.strip()) or _NOT_A_KIND.search(part):
            return None
    return tuple(dict.fromkeys(found)) or None


_SECRET_EXTS = frozenset(("env", "p12", "pfx", "jks", "keystore", "tfstate", "kdbx", "asc", "gpg"))


def _file(pattern: str) -> bool:
    """A pattern that can only be a file or folder: a slash, a glob, a dot-name, a known extension."""
    if code_object(pattern) or pattern.split(".")[0] in _CODE_ROOTS:
        return False
    ext = pattern.rsplit(".", 1)[-1].lower() if "." in pattern else ""
    return "/" in pattern or "*" in pattern or pattern.startswith(".") or ext in _FILE_EXTS or ext in _SECRET_EXTS


def merge_specs(sentence: str, because: str, own) -> list:
    """A merge rule's guard ("never merge into main"), with the act said after it ("or push main"), or []."""
    m = _MERGE_RULE.fullmatch(sentence)
    at = because.lower().find(sentence[:20].lower())
    if m and _ABOUT_BRANCH.search(because[:max(at, 0)]):
        return []
    if m:
        branches = tuple(dict.fromkeys(b.strip("`") if b.startswith("`") else b.lower()
                                       for b in re.findall(rf"(?:{_BRANCH})(?!\w)", m.group("branches"), re.I)))
        # "locally" may be read out of the clause before it gets here ("never merge locally to main")
        local = bool(m.group("local") or m.group("local2") or m.group("local3") or _LOCALLY.search(because))
        return [GuardSpec(MergeMatch(branches, local), because)]
    t = _THEN.fullmatch(sentence)
    head = _DONT_HEAD.match(sentence)
    if t and head and (first := merge_specs(t.group("first"), because, own)):
        rest = own(head.group(0) + t.group("rest"), because)
        return first + rest if rest else []
    return []


def read_merge_specs(sentence: str, because: str, own) -> list:
    """The guards of a read or a merge rule, or []."""
    if re.search(r"\bmerge\b", sentence, re.I):
        return merge_specs(sentence, because, own)
    return read_specs(sentence, because)
