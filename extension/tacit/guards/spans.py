"""The refused quoted span: a last, generic reading of an instruction-file line that no phrase
reading turned into a guard. ``span_specs(line)`` keeps a quoted span with an exact shape in a
clause that says no, unless a word of the clause narrows it; the rules are in docs/guards.md
("The refused quoted span"). Each guard asks first; the caller names its line.
"""

from __future__ import annotations

import re

from tacit.guards.code_names import code_object
from tacit.guards.derive import _prepare
from tacit.guards.patterns import spec_from_pattern
from tacit.guards.model import CommandMatch, GuardSpec, PathMatch, PushMatch
from tacit.guards.not_rules import about_file_content
from tacit.guards.words import _EXTENSIONLESS_FILES, _KNOWN_PROGRAMS

# the plain words of refusal; softer ones ("avoid", "refrain from", "try not to") are a preference as often
# as a rule, and are left to the phrase readings and the rule-reading child
_CUE = (r"(?:never|don'?t|do not|dont|must not|mustn'?t|must never|should not|shouldn'?t|should never|"
        r"shall not|cannot|can'?t|may not|(?:are|is)?\s*not allowed to|no)")
_RUN_VERBS = ("run", "execute", "invoke", "call", "running", "executing", "invoking", "calling")
_USE_VERBS = ("use", "using", "type", "typing")
_EDIT_VERBS = ("edit", "modify", "change", "touch", "alter", "overwrite", "rewrite", "update", "hand-edit",
               "editing", "modifying", "changing", "touching", "altering", "overwriting", "rewriting", "updating",
               "hand-editing", "write to", "writing to")
_VERB = "|".join(sorted((v.replace(" ", r"\s+") for v in _RUN_VERBS + _USE_VERBS + _EDIT_VERBS), key=len, reverse=True))
_EDIT_ALT = "|".join(v.replace(" ", r"\s+") for v in _EDIT_VERBS)
_EDIT_VERB_RE = re.compile(rf"\b(?:{_EDIT_ALT})\b", re.I)
# "files under `x/`", "anything in `x/`": where the files are that an edit rule is about
_FILES_IN = re.compile(r"\b(?:(?:the|any)\s+)?(?:files?|anything|code|contents?)\s+(?:under|in|inside|within)"
                       r"(?:\s+the)?(?=\s+`[^`\n]+`(?:\s+(?:folders?|directory|directories|dirs?|subdirectories))?"
                       r"\s*[.!]*$)", re.I)
_VERB_RE = re.compile(rf"\b(?:{_VERB})\b", re.I)
# words that narrow what is refused to a case, a place, a purpose or a manner a check cannot see
_NARROW = frozenset("""with without w/o for in on from to into inside outside under within when whenever after before
during unless except as via by until till only if while than instead rather of at like such alone that which who where
whose these those this other new existing same more less too also just first yet still bare plain raw system global
root top-level toplevel beside besides alongside""".split())  # "`research/` root": its top level only, which no pattern says

# the subject of the refusal is other people: "users never …", "end users do not …"
_OTHERS = re.compile(r"\b(?:users|customers|visitors|clients|end\s+users|humans|people)\s*$", re.I)

# adverbs that change nothing of what is refused; any other ("blindly", "casually") says how, which a check cannot see
_PLAIN_LY = frozenset(("directly", "manually", "really", "absolutely", "strictly", "simply", "truly"))

_FILE_EXT = ("json", "jsonc", "lock", "yaml", "yml", "toml", "md", "mdx", "txt", "env", "ini", "cfg", "conf", "xml",
             "py", "pyi", "ts", "tsx", "js", "jsx", "mjs", "cjs", "go", "rs", "rb", "java", "kt", "cs", "cpp", "c",
             "h", "hpp", "swift", "sql", "sh", "proto", "snap", "csv", "html", "css", "scss", "svg", "png", "mod",
             "sum", "gradle", "properties", "props", "targets", "csproj", "sln", "lcl", "resx", "pbxproj", "plist")
_PATHLIKE = re.compile(r"(?:\.?[\w*?\[\]-][\w.*?\[\]-]*/)*[\w.*?\[\]-]+/?")
_HOSTLIKE = re.compile(r"^[\w-]+\.(?:com|org|net|io|dev|app)(?:/|$)", re.I)
_CODE = re.compile(r"[()<>{}$=;,'\"|\\@#]|\.\.\.|::|:\s|:$")  # a call, a placeholder, a key or a value
_WORD = re.compile(r"^(?:-{1,2}[a-z0-9][\w-]*|[a-z0-9][\w.:/+-]*)$")


def _command(span: str, verb: str) -> str | None:
    """The span as a command pattern, or None when it is not one."""
    if _CODE.search(span):
        return None
    words = span.split()
    if not words or not all(_WORD.match(w) for w in words) or words[0] not in _KNOWN_PROGRAMS:
        return None
    if len(words) == 1 and verb not in _RUN_VERBS + _USE_VERBS:
        return None  # "no `git`": a program named without a verb may be a word of prose
    return " ".join(words)


def _path(span: str) -> str | None:
    """The span as a path pattern, or None when it is not one."""
    if _CODE.search(span) or ":" in span or not _PATHLIKE.fullmatch(span) or _HOSTLIKE.match(span) or \
            span.startswith(("/", "~")) or code_object(span):
        return None
    name = span.rstrip("/").rsplit("/", 1)[-1]
    if "/" in span or "*" in span:
        return span if not span.startswith("-") else None
    if name.lower() in _EXTENSIONLESS_FILES or re.fullmatch(r"\.[\w-]+", name):
        return span
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return span if ext in _FILE_EXT else None


def _plain(pre: str, mid: str) -> bool:
    """No word before the span narrows what is refused; what leads the refusal
    is a subject, not a place or a condition."""
    if _OTHERS.search(pre):
        return False  # "normal users never edit `.env`": what other people do, not the agent's rule
    said = re.sub(r"\b(?:by hand|write to|writing to)\b", " ", (pre + " " + mid).lower())
    words = said.split()
    return not any(w in _NARROW or (w.endswith("ly") and w not in _PLAIN_LY) for w in words)


def span_specs(line: str) -> list[GuardSpec]:
    """Guards (ask) for the quoted spans with an exact shape that a refusing clause of ``line`` refuses."""
    prepared = _prepare(line)
    if prepared is None or about_file_content(prepared[0]):
        return []
    out: list[GuardSpec] = []
    for found in prepared[1]:
        for clause in found:
            if clause.reason or clause.exception or clause.hedged or clause.head_hedge:
                continue
            cue = re.search(rf"\b{_CUE}\b", clause.text, re.I)
            if not cue:
                continue
            text = clause.text[cue.start():].strip()  # what the refusal says, from its word on
            said = text[cue.end() - cue.start():]
            bare = re.sub(r"`[^`\n]+`", " ", said)
            if _EDIT_VERB_RE.search(bare):  # "edit files under `x/`": the place is the path, not a narrowing
                bare = re.sub(r"`[^`\n]+`", " ", _FILES_IN.sub(" ", said))
            if not _plain(clause.text[:cue.start()], bare) or re.search(r"[+&|]", bare):
                continue
            verbs = _VERB_RE.findall(bare)
            verb = " ".join(verbs[-1].lower().split()) if verbs else ""
            if re.search(r"(?:,|\b(?:or|and|nor))\s*$", text):
                continue  # the sentence goes on in the next line: what it adds is not read
            for spec in _clause_specs(text, cue.end() - cue.start(), verb, line):
                if all(s.match != spec.match for s in out):
                    out.append(spec)
    return out


# words that may follow a refused command and leave it whole
_AFTER_COMMAND = frozenset(("command", "commands", "cli", "directly", "manually", "ever", "again", "yourself", "at", "all",
                            "anymore", "please"))
_SAYS_RUN = re.compile(rf"\b(?:{'|'.join(_RUN_VERBS + _USE_VERBS)})\b", re.I)


def _clause_specs(text: str, cue_end: int, verb: str, line: str) -> list[GuardSpec]:
    """The guards of one refusing clause (``text`` from its refusal word on):
    every quoted span in it must have the shape, or nothing is read ("never use
    `git stash` or `any` casts" is a mixed list)."""
    edit = verb in _EDIT_VERBS
    out: list[GuardSpec] = []
    after = re.sub(r"^.*`", "", text, flags=re.S).lower()
    if not edit and any(w not in _AFTER_COMMAND for w in re.findall(r"[a-z][\w-]*", after)):
        return []  # "NEVER use `wget`/`curl` healthchecks": the programs name a kind of thing, not a command run
    for sm in re.finditer(r"`([^`\n]+)`", text):
        span = sm.group(1).strip()
        said = re.sub(r"`[^`\n]+`", " ", text[cue_end:sm.start()])
        if re.search(r"[,;\u2014]\s*(?:and\s+)?(?:use|run|prefer|try|call)\b", said, re.I):
            break  # "never call `npm` directly, use `pnpm`": what follows the order is the way to do it
        if not edit and said.split() and not _SAYS_RUN.search(said):
            return []  # "never suggest `pip install`": the words before the command do not say to run it
        if edit and re.fullmatch(r"\.\w+", span) and span != ".env" and re.match(r"\s+files\b", text[sm.end():], re.I):
            span = "*" + span  # "`.api` files": every file with that extension
        pattern = _path(span) if edit else _command(span, verb)
        spec = spec_from_pattern(("path:" if edit else "") + pattern, line) if pattern else None
        if spec is None or not isinstance(spec.match, (CommandMatch, PathMatch, PushMatch)):
            return []
        out.append(GuardSpec(spec.match, spec.because, None, "ask"))
    return out
