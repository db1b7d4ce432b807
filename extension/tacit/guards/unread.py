"""Which instruction-file lines go to the rule reader (``unread_rule``) and what a phrasing of one
must be grounded in (``refusing_text``). Read per clause, as the deriver reads: a clause that says
no to someone, names a thing with an exact shape — in itself, in its sentence's parentheses, or as
the item the line opens with when it has no object of its own — and is not vetoed. Design notes:
docs/guards.md ("Lines tacit cannot read").
"""

from __future__ import annotations

import re
from dataclasses import replace

from tacit.guards.clauses import _CONDITION_PLACE, _EXCEPTION, _HEDGE, _NOT_A_BAN, _PLACEHOLDER, Clause, _protect, veto
from tacit.guards.derive import _prepare
from tacit.guards.patterns import spec_from_pattern
from tacit.guards.spans import _command, _path
from tacit.guards.words import _KNOWN_PROGRAMS

# a word of refusal, said outright (the deriver's own pre-filter is looser: "lint" ends in "nt");
# "instead" and "rather" name what to do, so they are not in it
_FORBIDS = re.compile(r"\b(?:never|not|no|nor|don'?t|doesn'?t|won'?t|mustn'?t|shouldn'?t|can'?t|cannot|avoid|"
                      r"refrain|forbidden|prohibited|banned|disallowed|off[- ]limits|hands off|keep off|alone|"
                      r"read[- ]only|untouched|unchanged|intact)\b", re.I)
# a negation that states a fact: "they do not duplicate …", "`x` is not picklable", "doesn't", "has no", "no longer"
_STATED = re.compile(r"\b(?!(?:you|we|i|agents?|claude|and|or|but|so|then|please|just|also|always|simply)\s)"
                     r"[\w`'-]+\s+(?:is|are|was|were|be|been|does|did|has|have|had|will|would|do)\s+not\b"
                     r"(?!\s+(?:allowed|permitted|to be)\b)|\b(?:doesn|won|isn|aren|wasn|didn|hasn|haven)'?t\b|"
                     r"\b(?:has|have|had|with|is|are|was|were|there'?s)\s+no\b|\bno longer\b", re.I)
# "use `make` instead of `swift`": an order whose "instead of" says what not to use
_INSTEAD_OF = re.compile(r"^(?:always\s+|only\s+)?(?:use|run|call|invoke|execute|prefer)\b.*?\b(?:instead of|"
                         r"rather than)\b", re.I)
# "when running commands" · "while passing test filters to pnpm": the act the rule is about, not a case of it
_SCENE = re.compile(r"\b(?:when(?:ever)?|while)\s+(?:you(?:'re| are)?\s+)?(?:running|passing|invoking|calling|"
                    r"executing|using)\b[^,;]*", re.I)
# "don't hand-edit" · "Do not edit it by hand" · "DO NOT MODIFY" · "never edit the generated files":
# a refusal with no object of its own, said of the item the line is about
_POINTS_BACK = re.compile(r"^(?:do not|don'?t|never|must not|should not)\s+(?:ever\s+)?(?:hand-)?(?:edit|modify|change|touch|"
                          r"alter|update|write|overwrite|commit|delete|remove|rename|move|create|format|reformat|run|use|"
                          r"push|bump)(?:s|ed|ing)?(?:\s+(?:(?:it|them|this|"
                          r"that|these|those)(?:\s+(?:files?|folders?|director(?:y|ies)|dirs?))?|(?:the\s+|any\s+|new\s+)?"
                          r"(?:generated\s+|[\w-]+\s+)?(?:files?|code|output|types)))?(?:\s+(?:by hand|directly|manually|"
                          r"either))?\s*[.!]*$", re.I)
_MAKER = re.compile(r"\b(?:by|from|via|using|with)(?:\s+the)?(?:\s+[\w-]+){0,3}\s*$", re.I)
_ASIDE = re.compile(r"([^.;:()\u2014\u2013]+)\(([^()]{1,200})\)")  # words, then what they name in parentheses
_HEAD = re.compile(r"`[^`\n]{1,80}`|[\w.-]+/[\w./*-]*|[\w-]+\.\w{1,6}")
_NAMED = re.compile(r"(?<![\w/.-])(?:\.?[\w-]+/[\w./*-]*|[\w-]+\.(?:json|lock|ya?ml|toml|md|env|py|ts|js|sql|sh)|"
                    r"\.[a-z][\w-]*(?=\s+files?\b|\s*[,)]|$))(?![\w-])")
_RUN = re.compile(r"\b(?:run|runs|running|execute|executing|invoke|invoking)\b", re.I)
_GIT_ACT = re.compile(r"\b(?:push|commit|merge|rebase|force-push|check ?out|reset)(?:es|ed|ing|s)?\b", re.I)
_BRANCH = re.compile(r"[\w.-]+(?:/[\w.*-]+)*")  # "never push `develop`"
_SAID_COMMAND = re.compile(r"[a-z][\w.-]*(?: [\w.:/=-]+)*")
_SQL = re.compile(r"(?:drop|truncate|delete\s+from|alter\s+table)\b", re.I)
_FLAG_OR_CONFIG = re.compile(r"-{1,2}(?:\w[\w-]*)?|[\w-]+\.(?:config|props|targets)")


def unread_rule(line: str) -> bool:
    """A refusal that names an exact thing, with no exception or hedge on it (``clauses.veto``
    decides, as for a guard): what a child may phrase when no reading made it a guard."""
    if line.startswith("|") and line.count("|") > 2:  # a table row: each cell says its own thing
        return any(unread_rule(cell) for cell in line.strip("| ").split("|") if cell.strip())
    prepared = _prepare(line)
    sentences = [[_unscened(c) for c in found] for found in (prepared[1] if prepared else ())]
    return any(named and veto(sentences, c, _specs_of(" ".join(named))) is None
               for c, named in _refusals(sentences, line))


# "never use `npm run db:migrate` against the real database": a target the check cannot see
_AGAINST = re.compile(r"\bagainst\s+(?:the\s+|a\s+|any\s+|our\s+|your\s+)?[\w`]", re.I)


def plain_refusal(line: str) -> bool:
    """A line that says no, names something and carries no exception or hedge word anywhere (in
    its reason too): where a quoted span may be a guard with no reader (``spans``) — stricter than
    ``unread_rule``, because no one reads the line before the guard stops a call."""
    return _says_no(line) and not _EXCEPTION.search(line) and not _HEDGE.search(line) and \
        not _AGAINST.search(line) and not _CONDITION_PLACE.search(line) and \
        ("`" in line or bool(_NAMED.search(line)) or any(w in _KNOWN_PROGRAMS for w in re.findall(r"[a-z][\w.-]*",
                                                                                                   line.lower())))


def refusing_text(line: str) -> str:
    """The clauses of ``line`` that say no (not its reason, not what to do
    instead) with what they name: what a phrasing of it must be grounded in.
    The whole line when no clause says no."""
    prepared = _prepare(line)
    sentences = prepared[1] if prepared else []
    said = [c.text for found in sentences for c in found if not c.reason and _says_no(c.text)]
    said += [text for _, named in _refusals(sentences, line) for text in named]
    return " ".join(dict.fromkeys(said)) or line


def _refusals(sentences: list, line: str) -> list[tuple[Clause, list[str]]]:
    """Each clause that says no to someone, with where what it refuses is named: itself (what
    follows an order's "instead of"), a parenthesis right after its words ("never skip hooks
    (`--no-verify`)"), or the item the line opens with ("`dist/` — generated, don't hand-edit")."""
    head = _head(sentences)
    asides = [(" ".join(pre.split()[-2:]), aside) for pre, aside in _ASIDE.findall(line) if _refuses(pre) and _names(aside)]
    out = []
    for found in sentences:
        for c in found:
            back = (head or _before(line, c.text)) if _POINTS_BACK.match(c.text) else None
            if (c.reason and not (c.aside and back)) or not _refuses(c.text):
                continue
            own = _refused(c.text)
            out.append((c, ([own] if _names(own) else []) + [aside for pre, aside in asides if pre in c.text]
                        + ([back] if back else [])))
    return out


def _before(line: str, clause: str) -> str | None:
    """The last name said before ``clause`` in ``line`` ("Generated docs: `make style` writes
    `docs/cli.md`. Don't edit that file by hand"): what a refusal with no object points back at."""
    at = line.lower().find(clause[:20].lower())
    names = [m for m in _HEAD.finditer(line[:at if at > 0 else 0]) if _names(m.group(0))]
    if not names or _MAKER.search(line[:names[-1].start()]):
        return None  # "generated by the scripts in `scripts/`. Do not edit them": the maker is not what is made
    return names[-1].group(0)


def _head(sentences: list) -> str | None:
    """The item a line opens with, alone ("`dist/` — …", "**prefect.ts** - …") or as the subject of
    its first sentence ("`prefect.ts` is auto-generated …"), after a label ("IMPORTANT: …")."""
    for clause in sentences[0][:3] if sentences else ():
        first = clause.text.strip(" *_:,")
        m = _HEAD.match(first)
        if m and (m.end() == len(first) or first[m.end():].lstrip().startswith(("is ", "are "))) and _names(m.group(0)):
            return m.group(0)
    return None


def _unscened(c: Clause) -> Clause:
    """The clause with a condition that only says the act read as no condition (a place still is one)."""
    scenes = [m.group(0) for m in _SCENE.finditer(c.text)]
    if c.exception or not scenes or any(_CONDITION_PLACE.search(scene) for scene in scenes):
        return c
    rest = _PLACEHOLDER.sub(" ", _protect(_SCENE.sub(" ", c.text))[0])
    return replace(c, head_hedge=bool(_HEDGE.match(rest.strip(" ,"))), hedged=bool(_HEDGE.search(rest)))


def _says_no(text: str) -> bool:
    plain = re.sub(r"`[^`\n]*`", " ", text.replace("\u2019", "'"))  # "`--no-verify`" says no to nothing
    return bool(_FORBIDS.search(_NOT_A_BAN.sub(" ", plain)))


def _refuses(text: str) -> bool:
    """Whether a clause says no to someone (not "`x` does not download them", "it is no longer …")."""
    return _says_no(_STATED.sub(" ", text.replace("\u2019", "'"))) or bool(_INSTEAD_OF.search(text))


def _refused(text: str) -> str:
    """What a clause refuses: what follows "instead of" when that alone says no ("use `make` instead of swift")."""
    m = _INSTEAD_OF.search(text)
    return text if m is None or _says_no(text) else text[m.end():]


def _names(text: str) -> bool:
    """Whether a text names a thing with an exact shape: a quoted command (of a known program, or
    said to be run), path, flag or branch of a git act; unquoted, a path or a known program."""
    run, git = bool(_RUN.search(text)), bool(_GIT_ACT.search(text))
    for span in _spans(text):
        if span.split()[0] in _KNOWN_PROGRAMS or _path(span) or _FLAG_OR_CONFIG.fullmatch(span) or \
                _SQL.match(span) or span.startswith("./") or run and _SAID_COMMAND.fullmatch(span) or \
                git and _BRANCH.fullmatch(span):
            return True
    bare = re.sub(r"`[^`\n]*`", " ", text)
    return bool(_NAMED.search(bare)) or any(w in _KNOWN_PROGRAMS for w in re.findall(r"[a-z][\w.-]*", bare.lower()))


def _specs_of(text: str) -> tuple:
    """What the quoted commands and paths of ``text`` would stop: the terms by which a later
    sentence's condition is told to be its own ("… If `.js` files appear, run `git clean`")."""
    patterns = (_command(span, "run") or ("path:" + span if _path(span) else None) for span in _spans(text))
    return tuple(filter(None, (spec_from_pattern(pattern, text) for pattern in patterns)))


def _spans(text: str) -> list[str]:
    return [s.strip() for s in re.findall(r"`([^`\n]{1,80})`", text) if s.strip()]
