"""Shell command lines → the programs they run and the files they change.

``scan(command, cwd)`` reads a command line the way a POSIX shell would
split it, far enough to answer two questions exactly: which programs run
(with which argv, from which folder), and which paths are written.

Design notes: docs/design/guards.md#tacitguardsshell
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from tacit.guards.shell_lex import (_ASSIGN, _KEYWORDS, _OUT_REDIRS, _SKIP_HEADS, _TILDE, DYN, MAX_CHARS, MAX_DEPTH,
                                    _Lexer, _Simple, _simples)
from tacit.guards.wrappers import _inner, _resolve, program_name, skip_options
from tacit.guards.writes import _writes


@dataclass(frozen=True, slots=True)
class Invocation:
    """One program run: its argv (words as the program receives them), the
    normalised program name (``/usr/bin/npm`` → ``npm``, ``npm.cmd`` →
    ``npm``; "" when the name is dynamic), the folder it runs in, and the
    wrappers it runs under (outermost first)."""

    argv: tuple[str, ...]
    program: str
    cwd: str | None
    cwd_exact: bool = True
    via: tuple[str, ...] = ()
    upstream: tuple[str, ...] = ()  # programs earlier in its pipeline (``curl x | sh``: sh's is curl)
    stdin: tuple[str, ...] = ()  # here-documents and here-strings it reads


@dataclass(frozen=True, slots=True)
class Write:
    """A path a command changes (absolute, normalised), and the argv that
    changes it (for the reason shown to the agent)."""

    path: str
    argv: tuple[str, ...]
    redirect: str = ""  # "> .env": the redirection that writes it, for the reason (not part of argv)


COMMANDS = 2000  # simple commands a scan reads of one call


@dataclass(frozen=True, slots=True)
class Scan:
    invocations: tuple[Invocation, ...]
    writes: tuple[Write, ...]
    reads: tuple[Write, ...] = ()  # files read through a ``<`` redirection
    cut: bool = False  # part of it was not read: past MAX_CHARS, the simple-command budget or MAX_DEPTH


@dataclass(slots=True)
class _Walk:
    home: str | None
    invocations: list = field(default_factory=list)
    writes: list = field(default_factory=list)
    reads: list = field(default_factory=list)
    budget: int = COMMANDS  # simple commands per scan: bounds eval/bash -c loops
    upstream: tuple = ()  # the programs of the pipeline so far
    cut: bool = False  # something was left unread

    def script(self, text: str, cwd: str | None, exact: bool, via: tuple, depth: int) -> None:
        if depth > MAX_DEPTH or not text:
            self.cut = self.cut or bool(text)
            return
        self.cut = self.cut or len(text) > MAX_CHARS
        self.sequence(_simples(_Lexer(text[:MAX_CHARS], depth).tokens()), cwd, exact, via, depth)

    def sequence(self, items: list, cwd: str | None, exact: bool, via: tuple, depth: int) -> None:
        stack = []
        for item in items:
            if item.__class__ is str:
                if item == "(":
                    stack.append((cwd, exact))
                    continue
                if stack:
                    cwd, exact = stack.pop()
            else:
                self.budget -= 1
                if self.budget < 0:
                    self.cut = True
                    return
                prior = self.upstream
                for toks in item.nested:
                    self.sequence(_simples(toks), cwd, exact, via, depth + 1)
                pipeline = prior if item.piped else ()
                self.upstream = pipeline
                start = len(self.invocations)
                cwd, exact = self.simple(item, cwd, exact, via, depth)
                self.upstream = pipeline + tuple(i.program for i in self.invocations[start:] if i.program)

    def simple(self, cmd: _Simple, cwd, exact: bool, via: tuple, depth: int):
        words = cmd.words
        while words and words[0] in _KEYWORDS:
            words = words[1:]
        for op, target in cmd.redirs:
            if op in _OUT_REDIRS or (op == ">&" and not target.isdigit() and target != "-"):
                self.write(target, cwd, exact, tuple(words) or (op + target,), f"{op} {target}" if words else "")
            elif op == "<" and (path := _resolve(cwd if exact else None, target, self.home)) is not None:
                self.reads.append(Write(path, tuple(words) or ("<",), f"< {target}"))
        if not words or words[0] in _SKIP_HEADS:
            return cwd, exact
        head = words[0]
        if head in ("cd", "pushd", "chdir"):
            args = [w for w in words[1:] if not (w.startswith("-") and len(w) > 1)]
            if not args:
                return (self.home, True) if self.home is not None else (cwd, False)
            target = _resolve(cwd if exact else None, args[0], self.home)
            return (target, True) if target is not None else (cwd, False)
        if head == "popd":
            return cwd, False
        self.argv(tuple(words), cmd.inputs, cwd, exact, via, depth)
        return cwd, exact

    def argv(self, argv: tuple, inputs: list, cwd, exact: bool, via: tuple, depth: int) -> None:
        if depth > MAX_DEPTH or not argv:
            return
        head = argv[0]
        if head.startswith(_TILDE):
            head = _resolve(cwd, head, self.home) or DYN
        prog = program_name(head)
        self.invocations.append(Invocation(argv, prog, cwd, exact, via, self.upstream,
                                           tuple(i for i in inputs if isinstance(i, str))))
        if not prog:
            return
        for word in _writes(prog, argv):
            self.write(word, cwd, exact, argv)
        if prog in ("apply_patch", "applypatch"):  # Codex runs patches through its shell too
            for text in argv[1:] + tuple(inputs):
                for word in patch_paths(text):
                    self.write(word, cwd, exact, (prog, word))
        inner_via = via + (prog,)
        for kind, value, inner_cwd in _inner(prog, argv, inputs, cwd, self.home):
            inner_exact = exact and (inner_cwd is not None or cwd is None)
            inner_cwd = inner_cwd if inner_cwd is not None else cwd
            if kind == "argv":
                words = tuple(value)
                while words and _ASSIGN.match(words[0]):
                    words = words[1:]
                self.argv(words, [], inner_cwd, inner_exact, inner_via, depth + 1)
            else:
                self.script(value, inner_cwd, inner_exact, inner_via, depth + 1)

    def write(self, word: str, cwd, exact: bool, argv: tuple, redirect: str = "") -> None:
        path = _resolve(cwd if exact else None, word, self.home)
        if path is not None:
            self.writes.append(Write(path, argv, redirect))


def scan(command, cwd: str | None = None, *, home: str | None = None) -> Scan:
    """The programs a command line runs and the paths it writes.

    ``command`` is a shell string or an argv list (Codex's ``shell`` tool:
    ``["bash", "-lc", "npm i"]``); ``cwd`` the folder it starts in; ``home``
    expands ``~`` (unknown: ``~`` paths are not resolved). Never raises."""
    walk = _Walk(home if isinstance(home, str) and home.startswith("/") else None)
    cwd = posixpath.normpath(cwd) if isinstance(cwd, str) and cwd.startswith("/") else None
    try:
        if isinstance(command, str):
            walk.cut = len(command) > MAX_CHARS
            walk.script(_clean(command), cwd, True, (), 0)
        elif isinstance(command, (list, tuple)) and all(isinstance(w, str) for w in command):
            walk.cut = len(command) > 4096 or any(len(w) > MAX_CHARS for w in command[:4096])
            walk.argv(tuple(_clean(w) for w in command[:4096]), [], cwd, True, (), 0)
    except RecursionError:  # pragma: no cover - depth is bounded; belt and braces
        walk.cut = True
    return Scan(tuple(walk.invocations), tuple(walk.writes), tuple(walk.reads), walk.cut)


_PATCH_FILE = re.compile(r"^\*\*\* (?:(Update|Add|Delete) File|Move to): (.+?)\s*$", re.MULTILINE)


def patch_paths(text, new_only: bool = False) -> list[str]:
    """The files an ``apply_patch`` patch changes: its ``*** Update File:``,
    ``*** Add File:``, ``*** Delete File:`` and ``*** Move to:`` lines
    (``new_only``: the files it creates, ``Add File`` and ``Move to``)."""
    if not isinstance(text, str) or "*** " not in text:
        return []
    return [m[2] for m in _PATCH_FILE.finditer(_clean(text)) if not new_only or m[1] in (None, "Add")]


def _clean(text: str) -> str:
    """Lone surrogates (invalid UTF-8 from a host) become U+FFFD."""
    if text.isascii():
        return text[:MAX_CHARS]
    return text[:MAX_CHARS].encode("utf-8", "replace").decode("utf-8")


def display(argv: tuple, limit: int = 80) -> str:
    """An argv as one short line for a reason: dynamic parts shown as ``$…``."""
    text = " ".join(w.replace(DYN, "$…").replace(_TILDE, "~") for w in argv)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["DYN", "Invocation", "Write", "Scan", "scan", "program_name", "skip_options", "display",
           "patch_paths"]
