"""Rule phrasings restated in the grammar's own form before they are read: a prohibition said as
a predicate ("force pushing is forbidden"), as a noun ("no edits to `vendor/`"), a registry to
publish to, or a script run instead of another. ``restated_specs(clause, because, read)`` returns
the guards of the restated clause (``read``: derive's clause reader) or ``[]`` (docs/guards.md).
``said_as_run`` reads a quoted command said another way as that command run ("don't rely on `X`").
"""

from __future__ import annotations

import re
import threading

from tacit.lazyre import gate, lazy
from tacit.guards.lists import each
from tacit.guards.model import CommandMatch, GuardSpec, PathMatch
from tacit.guards.reason_words import _HARM
from tacit.guards.words import _CMD_WORD, _DONT, _FLAG_WORD, _KNOWN_PROGRAMS, _SCRIPT_LIKE, _unquote, verb_of

# "never run ./scripts/cargo/fix.sh" · "never run script/tag-release": a script of the project, by its path
_SCRIPT_PATH = lazy(r"(?:\./)?[\w.-]+(?:/[\w.-]+)+|\./[\w.-]+")

_BANNED = (r"(?:is|are)\s+(?:strictly\s+|absolutely\s+)?(?:forbidden|banned|prohibited|disallowed|not allowed|"
           r"not permitted|off-limits|off limits|never allowed|not ok|not okay|not acceptable|a\s+(?:hard\s+)?no-?go|a\s+no-no)|"
           r"(?:must|should|shall|may)\s+(?:not|never)\s+be\s+(?:done|used|run|performed|executed)")
_PASSIVE = lazy(rf"(?P<subj>\S.*?)\s+(?:{_BANNED})", re.I)
# "no edits to `vendor/`" · "no force-pushes" · "no direct commits to main"
_NOUNS = {"edits": "edit", "changes": "change", "modifications": "modify", "writes": "write to",
          "pushes": "push", "force-pushes": "force-push", "force pushes": "force-push", "commits": "commit"}
_NO_NOUN = lazy(r"(?:no|zero)\s+(?:direct\s+|manual\s+|hand\s+)?(?P<noun>edits|changes|modifications|writes|"
                r"force[- ]pushes|pushes|commits)(?:\s+(?P<rest>(?:to|on|in|into|under|inside)\s+.+))?", re.I)
_REGISTRY = {
    "npm": [(("npm", "pnpm", "yarn", "bun"), ("publish",)), (("yarn",), ("npm", "publish"))],  # yarn 2+: `yarn npm publish`
    "pypi": [(("twine",), ("upload",)), (("uv", "poetry", "hatch", "flit", "pdm"), ("publish",))],
    "crates.io": [(("cargo",), ("publish",))],
    "crates": [(("cargo",), ("publish",))],
}
_PUBLISH = lazy(rf"{_DONT}\s+publish(?:\s+(?:any|the|new|a))?(?:\s+(?:packages?|crates?|releases?|versions?|"
                r"anything|it|them))?\s+(?:to|on)\s+(?:the\s+)?`?(?P<registry>npm|pypi|crates(?:\.io)?)`?"
                r"(?:\s+(?:registry|index))?", re.I)


# "Publish from `main` only through `./scripts/publish-npm.sh`" · "always publish via `make release`": publishing any
# other way (the registry's own publish command) is what the rule forbids; the script names the registry when it can
_ONLY_THROUGH = lazy(r"(?:(?:always|only)\s+)?publish(?:\s+(?:packages?|releases?|new\s+versions?))?(?:\s+from\s+`?[\w./-]+`?)?"
                     r"\s+(?:only\s+)?(?:through|via|using|with|by running)\s+`(?P<how>[^`]+)`", re.I)
_HINTS = (("npm", "npm"), ("pnpm", "npm"), ("yarn", "npm"), ("pypi", "pypi"), ("twine", "pypi"), ("python", "pypi"),
          ("cargo", "crates"), ("crate", "crates"))


def _only_through(clause: str, because: str) -> list:
    m = _ONLY_THROUGH.fullmatch(clause)
    if not m or not re.search(r"\b(?:only|always)\b", because, re.I):
        return []
    how = m.group("how").lower()
    publishers = {p for entries in _REGISTRY.values() for programs, _ in entries for p in programs}
    if how.split()[0] in publishers:  # "only through `pnpm publish -r`": one publisher allowed, another not; no shape
        return []
    registries = list(dict.fromkeys(reg for hint, reg in _HINTS if hint in how)) or ["npm", "pypi", "crates"]
    return [GuardSpec(CommandMatch(programs, subs, (), True), because)
            for reg in registries for programs, subs in _REGISTRY[reg]]


def _subject_as_rule(subject: str) -> list:
    """What to try for a forbidden subject, in order: its gerund as a verb
    ("force pushing" → "never force push"), then the subject as a command."""
    words = subject.split()
    low = [w.lower() for w in words]
    out = []
    for verb in (verb_of, _NOUNS.get):  # "force pushing …" · "edits to …": its first two words, or its first
        head = next((h for n in (2, 1) if len(low) >= n and verb(h := " ".join(low[:n]))), None)
        if head:
            out.append(" ".join(["never", verb(head), *words[len(head.split()):]]))
    out.append(f"never use {subject}")
    quoted = re.findall(r"`[^`]+`", subject)
    if len(quoted) == 1 and subject.strip() != quoted[0]:
        out.append(f"never use {quoted[0]}")  # "staging everything with `git add -A`": the command named
    return out


# "running `pnpm test` breaks the lockfile. don't.": the act the first sentence names, then what it does
_THEN_DONT = lazy(r"(?P<subj>[a-z][a-z-]*\b(?:[^.!?;]|\.(?=\S))*?)\s+(?P<harm>" + _HARM.pattern + r"(?:[^.!?]|\.(?=\S))*)[.!]+\s+"
                  r"(?:(?:so|just|please)\s+)?(?:don'?t|do not|never)(?:\s+do\s+(?:it|that|this))?[.!\s]*", re.I)


def said_then_dont(text: str) -> str:
    """"running `x` breaks the lockfile. don't." as "never run `x` — breaks the lockfile" (else ``text``)."""
    m = _THEN_DONT.fullmatch(text)
    low = m.group("subj").lower().split() if m else []
    if not any(verb_of(" ".join(low[:n])) for n in (1, 2) if len(low) >= n):
        return text  # a gerund's act only: "the release build breaks. don't." says none
    return f"{_subject_as_rule(m.group('subj'))[0]} \u2014 {m.group('harm')}"


# "generated files such as `*.pb.go` must not be edited": the act, then what it is done to
# "The file `x` is auto-generated and must not be committed": the path, what it is said to be before the rule
_PASSIVE_VERB = lazy(r"(?:the\s+(?:file|folder|directory)\s+(?=`))?(?P<subj>\S.*?)"
                     r"(?:\s+(?:is|are)\s+(?:auto-?generated|generated|machine-generated|a build artifact|build artifacts)"
                     r"\s*(?:,\s*)?(?:and|so\s+(?:it|they))?)?\s+(?:must|should|shall|may|can)\s*(?:not|never|n't)\s+(?:ever\s+)?be\s+"
                     r"(?P<verb>edited|modified|changed|touched|updated|overwritten|deleted|removed|renamed|committed)"
                     r"(?:\s+(?:by hand|manually|directly))?", re.I)
_BASE = {"edited": "edit", "modified": "modify", "changed": "change", "touched": "touch", "updated": "update",
         "overwritten": "overwrite", "deleted": "delete", "removed": "remove", "renamed": "rename", "committed": "commit"}
# "never `rm -rf` the `data/` directory": the removal, of the path named
_QUOTED_RM = lazy(rf"{_DONT}\s+(?:run\s+|use\s+)?`rm(?:\s+-[a-zA-Z]+)*`\s+(?:on\s+)?(?P<what>.+)", re.I)
# "don't `git push --force` to `main`" · "never rewrite history on `main`"
_QUOTED_PUSH = lazy(rf"{_DONT}\s+(?:run\s+|use\s+)?`git push(?P<flags>(?:\s+-[-\w]+)*)`\s+(?:to|on|onto|into)\s+(?P<to>.+)", re.I)
_REWRITE = lazy(rf"{_DONT}\s+rewrite\s+(?:the\s+|any\s+)?(?:git\s+|published\s+|shared\s+|commit\s+)?history"
                r"(?:\s+(?:on|of|in)\s+(?P<to>.+))?", re.I)


# "never edit the lockfile": the lockfiles package managers write
_LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb",
              "Cargo.lock", "poetry.lock", "uv.lock", "Pipfile.lock", "pdm.lock", "Gemfile.lock", "composer.lock")
_LOCKFILE = lazy(rf"{_DONT}\s+(?:(?:manually|hand[- ]?)\s*)?(?:edit|modify|change|touch|update|alter|write to|"
                 r"overwrite|hand-edit)\s+(?:the\s+|any\s+|a\s+)?lock\s?files?(?:\s+(?:by hand|manually|directly))?",
                 re.I)
# "do not modify files matching `*.gen.go`": the pattern is the path
_MATCHING = lazy(r"(?P<pre>.*?\b)(?:any\s+|the\s+)?files?\s+(?:matching|named|that match|with the pattern|like)\s+"
                 r"(?P<rest>`[^`]+`.*)", re.I)
# "do not create commits on `main`": a commit to that branch
_MAKE_COMMITS = lazy(rf"{_DONT}\s+(?:create|make|add)\s+(?:any\s+|new\s+)?commits?\s+(?P<to>(?:on|to|in|into)\s+.+)", re.I)


# "treat `third_party/` as read-only" · "leave the `legacy/` code as-is" · "keep `LICENSE` unchanged"
_AS_IS = lazy(r"(?:treat\s+(?P<a>.+?)\s+as\s+read[- ]only|(?:leave|keep)\s+(?P<b>.+?)\s+(?:as[- ]is|untouched|unchanged|"
              r"intact|unmodified))", re.I)


# "never run the `db:reset` script": that package.json script, through any package manager
_SCRIPT = lazy(rf"{_DONT}\s+(?:run|execute|call|use)\s+(?:the\s+)?`(?P<name>[\w:.-]+)`\s+(?:npm\s+|pnpm\s+|yarn\s+|"
               r"package\.json\s+)?script", re.I)
_RUNS_SCRIPT = ((("npm", "pnpm", "yarn", "bun"), ("run",)), (("pnpm", "yarn"), ()))
# "never delete remote branches" · "do not delete branches"
_DELETE_BRANCHES = lazy(rf"{_DONT}\s+delete\s+(?:any\s+)?(?P<remote>remote\s+|local\s+)?branches", re.I)


# "never commit with `--no-verify`": the flag of that git command
_GIT_VERB_FLAG = lazy(rf"{_DONT}\s+(?P<verb>commit|push|merge|rebase|pull|tag)\s+(?:with|using|passing)\s+(?:the\s+)?"
                      r"(?P<flags>`-[^`]+`(?:\s*(?:,|or|and|/)\s*`-[^`]+`)*)(?:\s+(?:flags?|options?))?", re.I)


# "do not run `pnpm install` with `--no-frozen-lockfile`": the flags of that command
_CMD_WITH_FLAG = lazy(rf"{_DONT}\s+(?:run|use|call|invoke)\s+(?P<cmd>`[^`-][^`]*`)\s+with\s+(?:the\s+)?"
                      r"(?P<flags>`-[^`]+`(?:\s*(?:,|or|and|/)\s*`-[^`]+`)*)(?:\s+(?:flags?|options?))?", re.I)


# "never bypass the check with `git commit --no-verify`, by editing the hook, or …": the command among the means
_MEANS = lazy(rf"{_DONT}\s+(?:[\w'-]+\s+){{1,5}}?(?:with|using|via|through)\s+(?P<cmd>`[^`]+`)\s*,\s*(?:or\s+)?"
              r"(?:by|with|using|via|through)\b.*", re.I)
# "do not bypass it by creating draft PRs": the way around it is what to stop
_BY_DOING = lazy(rf"{_DONT}\s+(?:bypass|circumvent|get around|work around|evade|dodge)\s+(?:[\w'-]+\s+){{0,4}}?by\s+"
                 r"(?P<ing>[a-z-]+ing)\s+(?P<rest>\S.*)", re.I)


# "never run `psql -c \"DROP TABLE users\"`": the SQL given to a database client
_CLIENT_SQL = lazy(rf"{_DONT}\s+(?:run|execute|use)\s+`(?:psql|mysql|sqlite3|mariadb|duckdb|clickhouse(?:-client)?)\b[^`]*?"
                   r"[\"'](?P<sql>(?:drop|truncate|delete)\b[^\"'`]*)[\"'][^`]*`", re.I)


def _client_sql(m) -> tuple:
    sql = m.group("sql")
    if re.match(r"delete\b", sql, re.I):
        return () if re.search(r"\bwhere\b", sql, re.I) else ("never run DELETE without a WHERE clause",)
    return ("never run " + " ".join(sql.split()[:2]),)


def _delete_branches(m) -> tuple:
    remote = (m.group("remote") or "").strip().lower()
    pushed = ("never run `git push --delete`",) if remote != "local" else ()
    return pushed + (tuple(f"never run `git branch {f}`" for f in ("-d", "-D", "--delete")) if remote != "remote" else ())


def _as_is(m) -> str:
    what = re.sub(r"\s+(?:code|contents?|sources?)$", "", m.group("a") or m.group("b"), flags=re.I)
    return "leave " + re.sub(r"^the\s+", "", what, flags=re.I) + " alone"


def _quoted_push(m) -> str:
    force = re.search(r"--force|-f\b", m.group("flags") or "")
    return f"never {'force-push' if force else 'push'} to {m.group('to')}"


# each form said otherwise, in order, and what it says: a rule to read (or rules; None: not this form)
_SAID_OTHERWISE = (
    (_CLIENT_SQL, _client_sql),
    (_MEANS, lambda m: f"never run {m['cmd']}" if _unquote(m["cmd"]).split()[0].lower() in _KNOWN_PROGRAMS else None),
    (_BY_DOING, lambda m: f"never {verb_of(m['ing'])} {m['rest']}" if verb_of(m["ing"]) else None),
    (_GIT_VERB_FLAG, lambda m: f"never use {m['flags']} with `git {m['verb'].lower()}`"),
    (_DELETE_BRANCHES, _delete_branches),
    (_AS_IS, _as_is),
    (_MATCHING, lambda m: m["pre"] + m["rest"] if re.match(rf"{_DONT}\s", m["pre"], re.I) else None),
    (_MAKE_COMMITS, lambda m: f"never commit {m['to']}"),
    (_PASSIVE_VERB, lambda m: None if re.match(rf"{_DONT}\b", m["subj"], re.I)
     else f"never {_BASE[m['verb'].lower()]} {m['subj']}"),
    (_QUOTED_RM, lambda m: f"never delete {m['what']}"),
    (_QUOTED_PUSH, _quoted_push),
    (_REWRITE, lambda m: f"never force-push to {m['to']}" if m["to"] else "never force-push"),
    (_CMD_WITH_FLAG, lambda m: f"never use {m['flags']} with {m['cmd']}"),
)


def _said_otherwise(clause: str, because: str, read) -> list:
    m = _SCRIPT.fullmatch(clause)
    if m:
        name = m.group("name")
        return [GuardSpec(CommandMatch(programs, (*subs, name), (), True), because) for programs, subs in _RUNS_SCRIPT]
    if _LOCKFILE.fullmatch(clause):
        return [GuardSpec(PathMatch(_LOCKFILES), because)]
    for pattern, said in _SAID_OTHERWISE:
        m = pattern.fullmatch(clause)
        texts = said(m) if m else None
        if texts is not None:
            return [s for text in ([texts] if isinstance(texts, str) else texts) for s in read(text, because)]
    return []


# "don't write changeset files. An action adds `.changeset/*.md`": the files the line names by that word
_KIND_FILES = lazy(rf"{_DONT}\s+(?:(?:manually|hand[- ]?)\s*)?(?:edit|modify|change|touch|write|create|add|update|"
                   r"overwrite|hand-edit)\s+(?:any\s+|the\s+)?(?P<kind>[a-z][\w-]{2,})\s+files?", re.I)


def _kind_files(clause: str, because: str, lesson: str) -> list:
    m = _KIND_FILES.fullmatch(clause)
    if not m or not lesson:
        return []
    kind = m.group("kind").lower().rstrip("s")
    named = {q.strip("`") for q in re.findall(r"`[^`]+`", lesson)}
    paths = [p for p in named if kind in p.lower() and re.search(r"[/*]", p) and ".." not in p.split("/")]
    return [GuardSpec(PathMatch((paths[0],)), because)] if len(paths) == 1 and len(named) == 1 else []


# "use `pnpm install` instead of `npm install` or `yarn install`": one "use X instead of Y" per Y
_MANY_ALTERNATIVES = lazy(r"(?:(?:we\s+|you\s+)?(?:use|run|prefer)\s+)(?P<x>`[^`]+`)\s*,?\s*(?:instead of|rather than|"
                          r"not|never|over|and not)\s+(?P<ys>`[^`]+`(?:\s*(?:,\s*or|,\s*nor|,|or|nor|and)\s*`[^`]+`)+)",
                          re.I)


# "install with `uv add`, not `pip install`" · "format using `ruff format` instead of `black`": the job, then the rule
_JOB_WITH = lazy(r"(?:[a-z]+\s+){1,3}(?:with|using|via|through)\s+(?P<rest>`[^`]+`\s*,?\s*(?:not|never|instead of|rather than)"
                 r"\s+`.+)", re.I)


# "instead of `npm install`, use `pnpm install`" · "replace `npm` with `pnpm` in all commands"
_INSTEAD_FIRST = lazy(r"(?:instead of|rather than)\s+(?P<y>\S.*?)\s*,\s*(?:always\s+)?(?:use|run)\s+(?P<x>\S.*)|"
                      r"replace\s+(?P<y2>`[^`]+`|[\w.-]+)\s+with\s+(?P<x2>`[^`]+`|[\w.-]+)"
                      r"(?:\s+(?:in|for)\s+(?:all|every|any)\s+\w+)?", re.I)


# "no npm, no yarn": a list of prohibitions, each a rule
_NO_LIST = lazy(r"no\s+[\w.`-]+(?:\s*,\s*(?:or\s+|and\s+)?no\s+[\w.`-]+)+", re.I)


def _many_alternatives(clause: str, because: str, read) -> list:
    if _NO_LIST.fullmatch(clause):
        return each(re.split(r"\s*,\s*(?:or\s+|and\s+)?", clause), because, read)
    first = _INSTEAD_FIRST.fullmatch(clause)
    if first:
        x, y = first.group("x") or first.group("x2"), first.group("y") or first.group("y2")
        return read(f"use {x} instead of {y}", because)
    job = _JOB_WITH.fullmatch(clause)
    if job and not re.match(r"(?:never|don'?t|do not|no)\b", clause, re.I):
        return read(f"use {job.group('rest')}", because)
    m = _MANY_ALTERNATIVES.fullmatch(clause)
    ys = re.findall(r"`[^`]+`", m.group("ys")) if m else []
    return each((f"use {m.group('x')} instead of {y}" for y in ys), because, read) if ys else []


# "never commit sensitive data (.env files, credentials)": the examples in parentheses that are paths
_GENERIC_OBJECT = lazy(rf"{_DONT}\s+(?P<verb>commit|add|stage|check in|edit|modify|touch|change|delete|remove)\s+"
                       r"(?:any\s+|the\s+)?(?:[\w-]+\s+){0,2}(?:data|secrets?|credentials|files|artifacts|outputs?|code|keys|"
                       r"certificates|certs|tokens|dumps|backups|binaries)", re.I)
_PATH_LIKE = lazy(r"(?:\.[\w.-]+|[\w.-]*[/*][\w.*/-]*)(?:\s+(?:files?|folders?|directories|dirs?))?", re.I)


def aside_examples(main: str, aside: str, because: str, read) -> list:
    """The paths a generic object's parenthesised examples name, as that rule of each."""
    m = _GENERIC_OBJECT.fullmatch(main.strip().rstrip("."))
    if not m:
        return []
    items = [i.strip() for i in re.split(r"\s*(?:,\s*(?:or|and)\s+|,|\bor\b|\band\b)\s*", aside) if i.strip()]
    paths = [i for i in items if _PATH_LIKE.fullmatch(i.strip("`"))]
    if not paths:
        return []
    quoted = [re.sub(r"^`?([^`\s]+)`?", r"`\1`", p) for p in paths]
    return read(f"never {m.group('verb').lower()} {' or '.join(quoted)}", because)


def restated_specs(clause: str, because: str, read, lesson: str = "") -> list:
    """The guards of ``clause`` said in one of these forms (``read`` reads the restatement;
    a restatement is read at most three levels deep, and never as itself)."""
    if getattr(_DEPTH, "n", 0) >= 3:
        return []
    _DEPTH.n = getattr(_DEPTH, "n", 0) + 1
    try:
        return _restated(clause, because, read, lesson)
    finally:
        _DEPTH.n -= 1


_DEPTH = threading.local()


def _restated(clause: str, because: str, read, lesson: str) -> list:
    outer = read
    read = lambda text, why: outer(text, why) if " ".join(text.split()) != " ".join(clause.split()) else []  # noqa: E731
    found = (_said_otherwise(clause, because, read) or _kind_files(clause, because, lesson)
             or _many_alternatives(clause, because, read) or _only_through(clause, because))
    if found:
        return found
    m = _PUBLISH.fullmatch(clause)
    if m:
        registry = m.group("registry").lower()
        return [GuardSpec(CommandMatch(programs, subs, (), True), because) for programs, subs in _REGISTRY[registry]]
    m = _NO_NOUN.fullmatch(clause)
    if m:
        noun = " ".join(m.group("noun").lower().replace("-", " ").split())
        verb = _NOUNS.get(noun) or _NOUNS.get(noun.replace(" ", "-"))
        rest = m.group("rest") or ""
        if verb in ("edit", "change", "modify", "write to"):  # "no edits to `x/`": edit it · "in `x/`": files in it
            rest = re.sub(r"^(?:to|on|into)\s+", "", rest, flags=re.I)
            rest = re.sub(r"^(in|under|inside)\s+", r"files \1 ", rest, flags=re.I)
        return read(f"never {verb} {rest}".strip(), because) if verb else []
    m = _PASSIVE.fullmatch(clause)
    if not m or re.match(rf"{_DONT}\b", m.group("subj"), re.I):
        return []
    for text in _subject_as_rule(m.group("subj").strip()):
        found = read(text, because)
        if found:
            return found
    return []


def script_instead(x: str, ys: list, because: str, run) -> GuardSpec | None:
    """"use `python3 test.py` instead of `./test.py`" · "use `make test`, not
    `./scripts/test.sh`": a quoted command over one of the project's scripts,
    run by its path (the script is what to stop)."""
    if len(ys) != 1 or not x.startswith("`") or not ys[0].startswith("`"):
        return None
    words, over = _unquote(ys[0]).split(), _unquote(x).split()
    if not words or not _SCRIPT_PATH.fullmatch(words[0]) or not re.search(r"\.\w{1,4}$|^\./", words[0]):
        return None
    # "`vu = import ../lib.nix`, not `./lib.nix`": code over a file, no command over a script
    if not over or "=" in over or "." in words[0].rsplit("/", 1)[-1].lstrip(".") \
            and not _SCRIPT_LIKE.fullmatch(words[0].lstrip("./")):
        return None
    if any(not (_CMD_WORD.fullmatch(w) or _FLAG_WORD.fullmatch(w)) for w in words[1:]) or len(words) > 3:
        return None
    return run(f"never run {ys[0]}", because)


# "do not rely on `python3 -m ruff check .`" · "don't attempt `git push origin main`": running the quoted command
_TRIED = lazy(r"\b((?:never|don'?t|do not|dont)\s+)(?:even\s+)?(?:attempt|try|rely\s+on|resort\s+to|fall\s+back\s+(?:on|to)|"
              r"depend\s+on)\s+(?=\x00(\d+)\x00)", re.I)
# "`tsc` directly or via `npx tsc`": the same program run through a package runner is the program
_SAME_VIA = lazy(r"\x00(\d+)\x00\s+(?:(?:directly|itself|alone|on its own)\s*,?\s+)?(?:or|nor|and)\s+(?:via|through|using|with)\s+"
                 r"\x00(\d+)\x00", re.I)
_PACKAGE_RUNNERS = ("npx", "bunx", "pnpx", "pnpm dlx", "pnpm exec", "yarn dlx", "yarn exec", "yarn", "uvx", "uv run",
                    "poetry run", "pipx run")


def _tried(m, spans: list) -> str:
    words = spans[int(m.group(2))].strip("`").split()
    return m.group(1) + "run " if len(words) > 1 and words[0] in _KNOWN_PROGRAMS else m.group(0)


def _same_via(m, spans: list) -> str:
    program, via = spans[int(m.group(1))].strip("`").strip(), spans[int(m.group(2))].strip("`").strip()
    runs = any(via == f"{runner} {program}" for runner in _PACKAGE_RUNNERS)
    return f"\x00{m.group(1)}\x00" if runs and " " not in program else m.group(0)


# "NO history modification: `git reset --hard`, `git rebase`": a label naming an act, then only the commands
_NO_ACT_COLON = lazy(r"^no\s+(?:[a-z-]+\s+){0,3}?(?:history|rewrit\w*|modif\w*|destructive|delet\w*|reset\w*|rebas\w*|"
                     r"push\w*|force\w*|publish\w*|deploy\w*|amend\w*|drop\w*)(?:\s+[a-z-]+){0,3}?\s*:\s*"
                     r"(?=\x00\d+\x00(?:\s*(?:,|or|and|,\s*or|,\s*and)\s*\x00\d+\x00)*\s*\.?\s*$)", re.I)


# "Ensure pnpm is used (not npm/yarn)": the order "use pnpm", said in the passive
_IS_USED = lazy(r"^(?:ensure|make sure)\s+(?:that\s+)?(?=(?:\x00\d+\x00|[\w.-]+)\s+is\s+used\b)", re.I)


# "`.env*` — never commit" · "`main` — never push" · "secrets — never commit": what stands before the
# dash is the act's object (a heading word before a colon, "Note: never push", is none)
_FRONTED = lazy(r"^(?P<obj>\x00(?P<i>\d+)\x00|[\w~*./-]+(?:\s+[\w~*./-]+){0,2})\s*(?:\u2014|--?|:|,)\s*"
                r"(?P<rule>(?:never|don'?t|do not|must not)\s+(?P<verb>commit|push|edit|modify|touch|delete|remove|change))"
                r"\s*(?:[.!:]?$|(?=,\s))", re.I)  # "**Secrets** (never commit, use env vars):": a list follows
_LEAD_WORD = lazy(r"(?:important|note|nb|warning|caution|critical|rule|remember|reminder|tip|also|and|so|"
                  r"please|again|ps|heads up|never|always|git|workflow)", re.I)
_BRANCH = lazy(r"`[\w][\w.-]*`|main|master|develop|dev|trunk|production|prod|staging|release", re.I)


def _fronted(m, spans: list) -> str:
    if not m["i"] and _LEAD_WORD.fullmatch(m["obj"]):
        return m[0]
    if m["verb"].lower() == "push":  # a branch: one word, no path
        name = spans[int(m["i"])] if m["i"] else m["obj"]
        return f"{m['rule']} to {m['obj']}" if _BRANCH.fullmatch(name) else m[0]
    return f"{m['rule']} {m['obj']}"


# "read *that*, never `scripts/ship`": the verb left out is the one before, reading a file, not running it
_READ_NOT = lazy(r"\b(?:read|look at|inspect|study|consult|view)\b[^,;]{0,60},\s*(?:never|not)\s+(?=\x00(?P<i>\d+)\x00)", re.I)


def _read_not(m, spans: list) -> str:
    name = spans[int(m["i"])].strip("`")
    return m[0] + "read " if " " not in name and re.search(r"[./]", name) else m[0]


# "(`bun` not `node`, `bun install` not `npm install`)": an aside of pairs only, each "use A, not B" a rule
_PAIR = r"\x00\d+\x00\s+(?:not|over|instead of|rather than)\s+\x00\d+\x00"
_PAIRS = lazy(rf"\(\s*({_PAIR}(?:\s*,\s*{_PAIR})*)\s*\)", re.I)


def _pairs(m) -> str:
    return "".join(f"; use {p[0]}, not {p[1]}" for p in re.findall(r"(\x00\d+\x00)\s+\S+(?:\s+(?:of|than))?\s+(\x00\d+\x00)", m[1]))


# "Generated files (NEVER edit): `a`, `b`": the rule in the label's parenthesis, the files after the colon
_LABEL_RULE = lazy(r"^((?:[\w-]+\s+){0,3}(?:files?|folders?|directories|paths|outputs?|artifacts?))\s*[(,]\s*"
                   r"((?:never|do not|don'?t)\s+(?:edit|modify|touch|change|hand-edit))\s*\)?\s*:\s*(?=\x00)", re.I)


def said_as_run(sentence: str, spans: list) -> str:
    """The sentence with "rely on `X`" read as "run `X`", "`p` or via `npx p`" as one `p` and
    "no <act>: `a`, `b`" as "never run `a`, `b`", "ensure X is used" as "use X", "`x` — never
    commit" as "never commit `x`", "read X, never `y`" as "… never read `y`"."""
    sentence = _FRONTED.sub(lambda m: _fronted(m, spans), _NO_ACT_COLON.sub("never run ", sentence))
    sentence = _READ_NOT.sub(lambda m: _read_not(m, spans), sentence)
    sentence = _PAIRS.sub(_pairs, _LABEL_RULE.sub(r"\2 \1: ", sentence))
    if _IS_USED.match(sentence):
        sentence = re.sub(r"^(\S+)\s+is\s+used\b", r"use \1", _IS_USED.sub("", sentence))
    return _TRIED.sub(lambda m: _tried(m, spans), _SAME_VIA.sub(lambda m: _same_via(m, spans), sentence))


gate(_TRIED, _READ_NOT, _LABEL_RULE)  # tried on every sentence, seldom there (same answers, found faster)
