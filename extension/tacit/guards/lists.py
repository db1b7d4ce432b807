"""Lists in a rule clause, each item read as a rule of its own: a list of prohibited acts
(``verb_list``), acts sharing a target (``shared_target``), programs named with their job
(``for_its_job``), one prohibition with two objects (``either``) and unquoted commands (``command_list``). ``specs_of(text, because)``
is the caller's reading of one clause (``derive``).
"""

from __future__ import annotations

import re

from tacit.lazyre import lazy
from tacit.guards.cli_items import cli_item
from tacit.guards.model import CommandMatch
from tacit.guards.words import _DONT, _ENGLISH_TOOLS, _KNOWN_PROGRAMS, _PURPOSE

_RUN_VERBS = ("run", "use", "execute")

_VERB_LIST = lazy(rf"(?P<dont>{_DONT})\s+(?P<items>[a-z][^,]*(?:,\s*(?:or\s+|and\s+|nor\s+)?[a-z][^,]*)+)", re.I)
# the verbs of a list of prohibitions (not "use", which names the alternative)
_LIST_VERB = lazy(r"(?:commit|push|force-push|force push|merge|rebase|amend|stash|tag|publish|deploy|release|"
                  r"edit|modify|change|touch|alter|overwrite|write to|delete|remove|rename|move|open|create|"
                  r"close|stage|check in|skip|bypass|drop|truncate|comment|review|approve|reply|post|run|execute|read|print|"
                  r"rewrite|upload|copy|expose|log)\b", re.I)
# "do not <verb> A or B": A and B are what the verb acts on (no comma, no semicolon inside)
_EITHER = lazy(rf"(?P<dont>{_DONT})\s+(?P<verb>[a-z][a-z-]*)\s+(?P<a>[^,;]+?)\s*,?\s+(?:or|nor)\s+(?P<b>[^,;]+)", re.I)
# "never mix unrelated changes in the same edit or commit": a lone word after a noun phrase ends that
# phrase ("the same commit"), it is no act of its own ("never commit" stopped every commit)
_NOUN_ENDS = lazy(r"\b(?:the|a|an|one|same|each|every|any|your|its|their|single)\s+(?:[\w-]+\s+)?[\w-]+$", re.I)
_EXAMPLES = lazy(r"\b(?:such as|like|e\.?g|including|for example|for instance|i\.?e)\b", re.I)
# "… or run `y`": the second item is an act of its own
_ACT = lazy(r"(?:run|use|execute|call|invoke)\b", re.I)
# "… or pull requests without the user's instruction": a qualifier that may reach back to the first item
_TAIL = lazy(r"\b(?:without|unless|except|when|while|if|until|before|after|during|outside|beyond|for|in|on|to|"
             r"with|from|by|as|than|so|because)\b", re.I)

_INSTEAD_AFTER = lazy(r"\s*[,;]\s*(?:and\s+|but\s+)?(?:use|prefer|run|try)\s+(?!\S+\s*,).*$", re.I)
_COMMAND_LIST = lazy(rf"(?:{_DONT})\s+(?:run|use|execute|call|invoke)\s+(?P<items>[^`]+)", re.I)
# the last item of a list of commands that is an act of its own, with no exact shape ("or create new projects")
# (not one said of a place: "…, or create new projects from the root" may place every item)
# … or a kind the commands are of ("or any remote-syncing command", "or network commands", "or any command
# that deletes untracked work", "or anything of that sort"), its words no program's
_OTHER_ACT = lazy(r"(?!.*\b(?:from|in|on|at|inside|within|outside|against|under|into|to|unless|except|without)\b)"
                  r"(?:(?:create|make|start|stop|open|add|delete|remove|edit|modify|change|write|touch)\s+"
                  r"[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}|"
                  r"(?:(?:any|other|any other)\s+)?(?P<kind>(?:[\w/-]+\s+){0,2})(?:commands?|operations?)"
                  r"(?:\s+(?:that|which)\s+[a-z][\w\s-]*)?|anything\s+(?:else\s+)?(?:of\s+that\s+sort|like\s+that))", re.I)


def command_list(sentence: str, because: str, run) -> list:
    """"never run npm install, npm update or npx cap sync": each command, when every item is a known
    program's (``run`` reads one command); [] otherwise."""
    # "…, npm update or npx cap sync, use pnpm": the way to do it, after the list, is no item of it
    m = _COMMAND_LIST.fullmatch(_INSTEAD_AFTER.sub("", sentence))
    if not m:
        return []
    items = [i for i in re.split(r"\s*(?:,\s*or|,\s*and|,|\bor\b|\band\b)\s*", m.group("items")) if i]
    same = len({i.split()[0].lower() for i in items}) == 1 and all(len(i.split()) > 1 for i in items)  # "git add, git push"
    last = _OTHER_ACT.fullmatch(items[-1]) if len(items) > 2 else None
    if last and not set(re.split(r"[\s/]+", (last.group("kind") or "").lower())) & _KNOWN_PROGRAMS:
        items = items[:-1]  # "never run npm install, npm run dev, or create new projects": an act of its own
    elif not (same or re.search(r"\b(?:or|and|nor)\b", m.group("items"), re.I)) and (len(items) < 3 or not all(
            len(i.split()) > 1 and i.split()[0].lower() in _KNOWN_PROGRAMS - _ENGLISH_TOOLS for i in items)) or \
            re.search(r"\b(?:or|and|nor)\b[^,]*,", m.group("items"), re.I):
        # "never use git commit --amend, make new commits" · "…, pnpm install works" · "… nvm or fnm, volta
        return []  # pins node": no list (with no "or", three commands are one)

    def known(i: str) -> bool:
        return i.split()[0].lower() in _KNOWN_PROGRAMS and len(i.split()) > 1 or i.lower() in _KNOWN_PROGRAMS
    if len(items) < 2 or not any(known(i) for i in items) or not all(known(i) or cli_item(i, because) for i in items):
        return []  # "go test, go build or golangci-lint": an unknown program's command beside known ones
    out = [run(f"never run {i}", because) if known(i) else cli_item(i, because) for i in items]
    return out if all(out) else []


# "…, or any build commands from a parent directory": a place said after the last item is every item's
_PLACED = lazy(r".*\s(?:from|in|inside|within|outside|under)\s+(?:a|an|the|any|your|our)\s+[\w\s/.-]+", re.I)


def placed_list(sentence: str) -> bool:
    """A list of commands whose last item ends in a place: the place may hold for every item, so
    no item is a rule alone ("never run npm install, npm run dev, or any build commands from a parent
    directory")."""
    m = _COMMAND_LIST.fullmatch(sentence)
    items = [i for i in re.split(r"\s*(?:,\s*or|,\s*and|,|\bor\b|\band\b)\s*", m.group("items")) if i] if m else []
    return len(items) > 1 and bool(_PLACED.fullmatch(items[-1])) and all(
        len(i.split()) > 1 and i.split()[0].lower() in _KNOWN_PROGRAMS for i in items[:-1])


def each(readings, because: str, read) -> list:
    """The guards of every reading (no duplicates), or [] when one of them has none."""
    out: list = []
    for text in readings:
        specs = read(text, because) if text else []
        if not specs:
            return []
        out.extend(s for s in specs if s not in out)
    return out


def verb_list(sentence: str, because: str, specs_of) -> list:
    """"never commit, push, or open PRs": each comma-separated phrase a rule of
    its own, and every one of them exact (or nothing)."""
    m = _VERB_LIST.fullmatch(sentence)
    if not m:
        return []
    phrases = re.split(r",\s*(?:or\s+|and\s+|nor\s+)?", m.group("items"))
    if not re.search(r",\s*(?:or|and|nor)\s+[^,]*$", m.group("items"), re.I):
        return []  # "never push to main, open a PR": the last phrase says what to do, not a list
    # "never commit to `main`, force-push, or use a hook override": after a last "or", "use" is forbidden too
    or_use = re.search(r",\s*(?:or|nor)\s+use\s+[^,]*$", m.group("items"), re.I)
    if not 2 <= len(phrases) <= 6 or not all(_LIST_VERB.match(p) or or_use and i == len(phrases) - 1
                                             for i, p in enumerate(phrases)):
        return []  # "don't use npm commands, use pnpm": the second phrase says what to do
    found = [specs_of(f"never {p.strip()}", because) for p in phrases]
    if not all(found) and (_TAIL.search(phrases[-1]) or re.search(r"\w{3,}ly\b", phrases[-1])
                           or any(len(p.split()) < 2 for p, f in zip(phrases, found) if not f)):
        return []  # "… or merge without review" · "commit, print, or upload API keys": one tail, one object for all
    out: list = []  # "never read the credential store, run `git credential fill`, or print a token": the exact ones
    for spec in (s for specs in found for s in specs):
        out.extend([spec] if spec not in out else [])
    return out


# "never commit or push directly to `main`" · "do not create or commit `package-lock.json`": acts sharing a target
_GIT_ACT = (r"(?:commit|push|force[- ]push|merge|create|edit|modify|change|touch|delete|remove|rename|move|stage|"
            r"overwrite|hand-edit)")
_SHARED = lazy(rf"(?P<dont>{_DONT})\s+(?:git\s+)?(?P<acts>{_GIT_ACT}(?:\s*(?:,\s*or|,\s*and|,|or|and|nor|/)\s*{_GIT_ACT})+)"
               r"\s+(?P<rest>(?:(?:directly|straight)\s+)?(?:to|into|on|onto)\s+.+|"
               # … or one written unquoted that can only be a path: ".env files", "package-lock.json", "dist/"
               r"(?:(?:an?|the)\s+)?(?:`[^`]+`(?:\s*(?:,\s*or|,|or|and)\s*`[^`]+`)*|\.\w[\w.-]*|[\w.-]*/[\w./*-]*|"
               r"[\w-]+\.(?:json|lock|ya?ml|toml|env|md|txt|py|js|ts|sql))"
               r"(?:\s+(?:files?|folders?|directory))?)", re.I)


def shared_target(sentence: str, because: str, specs_of) -> list:
    """"never commit or push directly to `main`" → "never commit to `main`" and
    "never push to `main`"; "do not create or commit `x`" → each act on the
    quoted object: every act exact (or nothing)."""
    m = _SHARED.fullmatch(sentence)
    if not m:
        return []
    acts = re.findall(_GIT_ACT, m.group("acts"), re.I)
    return each((f"{m.group('dont')} {act} {m.group('rest')}" for act in acts), because, specs_of)


# "never use `rm`, `rmdir`, or `unlink` to delete files or directories": each a program whose job the verb names
_GENERIC = r"(?:files?|folders?|directories|dirs?|things|anything|stuff|them|it|process(?:es)?)"
_FOR_JOB = lazy(rf"(?P<dont>{_DONT})\s+(?:use|run)\s+(?P<cmds>`[^`]+`(?:\s*(?:,\s*or|,\s*and|,|or|and|/)\s*`[^`]+`)*)"
                rf"\s+(?:to|for)\s+(?P<verb>[a-z]+)(?:\s+(?:any|the|a)\s+)?(?P<kind>\s+[A-Za-z][\w.+-]*(?=\s+{_GENERIC}))?"
                rf"(?:\s+{_GENERIC}(?:\s+(?:or|and)\s+{_GENERIC})?)?", re.I)


def for_its_job(sentence: str, because: str, specs_of) -> list:
    """"never use `rm` to delete files": the programs (``mv``, ``rm``, ``cp``,
    ``kill`` …) whose job the verb names, with any flags written; a narrower
    object ("to copy secrets") is no job."""
    m = _FOR_JOB.fullmatch(sentence)
    if not m:
        return []
    verb = m.group("verb").lower()
    out: list = []
    for cmd in re.findall(r"`([^`]+)`", m.group("cmds")):
        words = cmd.split()
        own = verb in (w.lower() for w in words[1:])  # "`npm run compile` to compile TypeScript files": its own word
        if not words or not (own or not m.group("kind") and any(verb.startswith(job) for job in
                                                                 _PURPOSE.get(words[0].lower(), ()))):
            return []  # "deletions", "renaming": the job's stem begins the word
        out.extend(s for s in specs_of(f"{m.group('dont')} run `{cmd}`", because) if s not in out)
    return out


def either(sentence: str, because: str, specs_of) -> list:
    """"do not bypass git hooks or CI checks" → "do not bypass git hooks" and
    "do not bypass CI checks": the guards of the items that have a shape."""
    m = _EITHER.fullmatch(sentence)
    if not m or _EXAMPLES.search(m.group("a")):
        return []  # "commands such as `a` or `b`": a list of examples has its own reading
    dont, verb, a, b = m.group("dont"), m.group("verb"), m.group("a").strip(), m.group("b").strip()
    if " " not in b and _NOUN_ENDS.search(a):
        b = ""  # "in the same edit or commit": the lone word is a noun of that phrase, no act of its own
    act = bool(_LIST_VERB.match(b) or _ACT.match(b))
    if not act and "`" in a and "`" in b and (a.startswith("`") or b.startswith("`")):
        return []  # "never use `git stash` or `any` casts": a quoted list has its own reading (not "files matching `a` or …")
    again = b.lower().startswith(verb.lower() + " ")  # "never git reset --hard or git clean -fd": b says the verb
    readings = [f"{dont} {verb} {a}", f"{dont} {b}" if act or again else f"{dont} {verb} {b}"]
    first, second = specs_of(readings[0], because), specs_of(readings[1], because) if b else []
    if not second and first and b and verb.lower() in _RUN_VERBS and all(isinstance(s.match, CommandMatch) for s in first):
        second = [spec] if (spec := cli_item(b, because)) else []  # "… bundle install or jekyll build"
    if not second and (act or _TAIL.search(b) or re.search(r"\w{3,}ly\b", b)):
        return []  # "… or delete rows casually": what qualifies the second item may qualify the first
    if not first and not act:
        return []  # "do not use system python or pip": what qualifies the first item may qualify the second
    out: list = []
    for spec in first + second:
        if all(spec.match != s.match for s in out):
            out.append(spec)
    return out
