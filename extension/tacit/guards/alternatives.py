"""The way a lesson says to do it instead is allowed, not stopped: ``narrow(spec, rule, lesson)``
narrows a guard so that the alternative the lesson names passes ("never `git push --force`; use
`--force-with-lease`"). Design notes: docs/design/guards.md#tacitguardsalternatives.
"""

from __future__ import annotations

import re
from dataclasses import replace

from tacit.lazyre import gate, lazy
from tacit.guards.model import CommandMatch, GuardSpec, PushMatch
from tacit.guards.words import _FAMILY_OF, _KNOWN_PROGRAMS, _STOP_WORDS, shell_words

_PIECES = lazy(r"[.;:!?\u2014\u2013]\s+|\s+-\s+|,\s+|\n|\s*[()]\s*")
_QUOTED = lazy(r"`([^`\n]{1,120})`")
_LEASE = lazy(r"(?<![\w-])--force-with-lease(?![\w-])")
_FORCE = lazy(r"(?<![\w-])(?:-f|--force)\b(?!-)")  # a plain force beside the lease
_SAYS_USE = lazy(r"\b(?:use|prefer|run|instead|rather|try|only)\b", re.I)
_FORBIDS = lazy(r"\b(?:never|not|no|don'?t|do not|avoid|nor)\b|n't\b", re.I)


# "use uv run pytest" · "run it through uv run" · "only npm run test:unit": a command typed without quotes
_USE_CMD = lazy(r"\b(?:use|run|prefer|try|only|call|invoke)\s+(?:(?:it|them)\s+(?:with|through|via|using)\s+)?"
                r"(?P<cmd>[a-z][\w.-]*(?:\s+[^\s,;`]+){0,6})", re.I)
# "cargo update -p foo is fine": a command said to be allowed
_IS_FINE = lazy(r"^(?:but\s+)?(?P<cmd>[a-z][\w.-]*(?:\s+[^\s,;`]+){0,6}?)\s+(?:is|are)\s+(?:fine|ok|okay|allowed|"
                r"acceptable|good|enough|the way)\b", re.I)
gate(_SAYS_USE, _FORBIDS, _USE_CMD)  # searched in every piece of a lesson (same answers, found faster)
_WRAPS = frozenset(("uv", "uvx", "poetry", "pipenv", "pdm", "rye", "hatch", "pnpm", "yarn", "bun", "npx", "bunx", "pnpx",
                    "npm"))


def _unquoted(piece: str) -> str | None:
    """The command a piece says to use, typed without quotes: a known
    program and its words, up to the first word of prose."""
    m = _USE_CMD.search(piece) or _IS_FINE.match(piece.strip())
    if not m:
        return None
    words = []
    for w in m.group("cmd").split():
        if w.lower() in _STOP_WORDS or w.lower() in ("instead", "rather", "directly", "here", "everywhere", "always"):
            break
        words.append(w)
    if not words or words[0].lower() not in _KNOWN_PROGRAMS and words[0].lower() not in _WRAPS:
        return None
    return " ".join(words)


def _alternatives(rule: str, lesson: str) -> list[str]:
    """The commands (and ``--force-with-lease``) of the lesson's clauses
    that say to use them or allow them and forbid nothing, outside the rule:
    quoted, or typed without quotes."""
    in_rule = set(_QUOTED.findall(rule)) | set(_LEASE.findall(rule))
    out = []
    for piece in _PIECES.split(lesson):
        if _FORBIDS.search(_QUOTED.sub(" ", piece)):
            continue
        if _SAYS_USE.search(piece):
            out.extend(q for q in _QUOTED.findall(piece) + _LEASE.findall(piece) if q not in in_rule)
        if "`" not in piece and (_SAYS_USE.search(piece) or _IS_FINE.match(piece.strip())):
            typed = _unquoted(piece)
            out.extend([typed] if typed else [])
    return out


# a wrapper's verb that runs another program (``uv run x``, ``npx x``), and the names it runs as
_RUNS = {"uv": ("run",), "poetry": ("run",), "pipenv": ("run",), "pdm": ("run",), "rye": ("run",), "hatch": ("run",),
         "pnpm": ("exec", "dlx"), "yarn": ("dlx", "exec"), "bun": ("x", "run"), "npm": ("exec", "x"), "uvx": (), "npx": (),
         "bunx": (), "pnpx": ()}
# runners that also run a package's binary named right after them (``pnpm vitest``, ``yarn jest``)
_DIRECT_BIN = frozenset(("pnpm", "yarn"))
# the project-environment runners that run python when named alone ("use uv instead of python")
PY_ENVS = frozenset(("uv", "poetry", "pipenv", "pdm", "rye", "hatch"))
# "don't run python directly": the program said, then "directly"
_PY_DIRECTLY = lazy(r"\b`?python[\d.]*`?\s+directly\b", re.I)
_PY_RUNNERS = ("uv", "uvx", "poetry", "pipenv", "pdm", "rye", "hatch")
_KIN = {"uv": ("uv", "uvx"), "uvx": ("uv", "uvx"), "npx": ("npx", "pnpx", "bunx", "npm"), "bunx": ("bun", "bunx"),
        "bun": ("bun", "bunx"), "pnpm": ("pnpm", "pnpx"), "pnpx": ("pnpm", "pnpx"), "npm": ("npm", "npx")}


_BARE = lazy(r"\b(?:bare|raw|plain|direct|directly)\b", re.I)
_BARE_USE = lazy(r"\b(?:use|always|(?P<via>via|through|using))\s+`?(?P<w>uv|uvx|poetry|pipenv|pdm|rye|hatch|npx|bunx)`?"
                 r"(?:\s+run)?\b", re.I)
# "`uv` for everything — never bare pytest": the wrapper said as what everything goes through
_FOR_ALL = lazy(r"(?<![\w-])`?(?P<w>uv|uvx|poetry|pipenv|pdm|rye|hatch|npx|bunx)`?\s+for\s+(?:everything|all\b)", re.I)


def _through_wrapper(words: list, m) -> tuple:
    """The wrappers an alternative runs the guarded program through: "`uv run pytest`", "uv run", "`npx jest`"."""
    if not isinstance(m, CommandMatch) or m.not_via or not words or words[0] not in _RUNS or words[0] in m.programs \
            or any(p in _RUNS for p in m.programs):
        return ()  # "use `pnpm exec x` rather than `npx x`": npx is the runner not to use
    if len(words) == 1 and words[0] in PY_ENVS and not m.subcommands \
            and all("python" in _FAMILY_OF.get(p, ()) for p in m.programs):
        return _KIN.get(words[0], (words[0],))  # "use uv instead of python": python through uv
    verbs = _RUNS[words[0]]
    direct = words[0] in _DIRECT_BIN and len(words) > 1 and words[1] in m.programs  # `pnpm vitest run`
    rest = words[1 + bool(verbs) - direct:]
    if verbs and not direct and (len(words) < 2 or words[1] not in verbs):
        return ()
    if rest and rest[0] not in m.programs:
        return ()  # "use `uv run ruff`" says nothing of python
    return _KIN.get(words[0], (words[0],))


def narrow(spec: GuardSpec, rule: str, lesson: str) -> GuardSpec:
    """``spec`` narrowed so that the alternative the lesson names passes."""
    m = spec.match
    said = _BARE_USE.search(lesson) or _FOR_ALL.search(lesson) if _BARE.search(rule) or _BARE.search(lesson) else None
    if said and said.groupdict().get("via") and _FORBIDS.search(re.split(r"[,;.!?]", lesson[:said.start()])[-1]):
        said = None  # "don't use `tsc` directly or via `npx tsc`": a way the rule forbids
    if said and isinstance(m, CommandMatch) and not m.not_via and said["w"].lower() not in m.programs:
        # "use uv for everything, never bare python" · "run python via uv run, never bare python": through uv is the way
        by_name = m.by_name or not m.subcommands and bool(_BARE.search(rule))  # "bare python": by its name
        return replace(spec, match=replace(m, not_via=_KIN.get(said["w"].lower(), (said["w"].lower(),)), by_name=by_name))
    if not isinstance(m, (PushMatch, CommandMatch)):
        return spec
    if _PY_DIRECTLY.search(lesson) and isinstance(m, CommandMatch) and not m.not_via and not m.subcommands \
            and all("python" in _FAMILY_OF.get(p, ()) for p in m.programs):
        return replace(spec, match=replace(m, not_via=_PY_RUNNERS))  # "don't run python directly": through uv it is not
    for alt in ([spec.instead] if spec.instead else []) + _alternatives(rule, lesson):
        if isinstance(m, PushMatch):
            if m.force_only and not m.lease_ok and _LEASE.search(alt) and not _FORCE.search(alt):
                return replace(spec, match=replace(m, lease_ok=True))
            continue
        try:
            words = shell_words(alt)
        except ValueError:
            continue
        via = _through_wrapper(words, m)
        if via:  # "never run pytest, use `uv run pytest`": run through the wrapper it is the way
            return replace(spec, match=replace(m, not_via=via))
        head = len(m.subcommands) + 1
        if (m.subcommands and not m.flags and not m.bare and len(words) > head and words[0] in m.programs
                and tuple(words[1:head]) == m.subcommands):
            flags = tuple(w.split("=", 1)[0] for w in words[head:] if w.startswith("-") and len(w) > 1)
            if flags:  # "run `cargo update -p x` instead": with -p it is the way
                return replace(spec, match=replace(m, unless=flags))
            return replace(spec, match=replace(m, bare=True))  # "run `pytest tests/unit` instead": a bare one
    return spec
