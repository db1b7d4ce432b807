"""Shell command lines → the programs they run and the files they change.

``scan(command, cwd)`` reads a command line the way a POSIX shell would
split it, far enough to answer two questions exactly: which programs run
(with which argv, from which folder), and which paths are written.

Design notes: docs/design/guards.md#tacitguardsshell
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache

DYN = "\ue000"  # stands for a part of a word only known at run time
_TILDE = "\ue001"  # an unquoted leading "~", expanded once the home folder is known
MAX_CHARS = 65536
MAX_DEPTH = 8


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


@dataclass(frozen=True, slots=True)
class Scan:
    invocations: tuple[Invocation, ...]
    writes: tuple[Write, ...]


# ---------------------------------------------------------------------------
# Lexer: text → tokens
#   ("w", value, nested, assign)  a word; nested = token lists of $( … ) in it
#   ("o", op)                     && || ; ;; | |& & ( ) and "\n"
#   ["r", op, None]               a redirection; its target is the next word
#   ["h", op, delim, body]        a here-document (body filled at the newline)
# ---------------------------------------------------------------------------
_PLAIN = re.compile(r"[^ \t\r\n'\"\\`$;&|()<>]+")
_DQ_PLAIN = re.compile(r"[^\"\\`$]+")
_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9?#@*!$-]")
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_OUT_REDIRS = frozenset((">", ">>", ">|", "&>", "&>>", "<>"))
_ANSI = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a",
         "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "v": "\v", "0": "\0"}


class _Lexer:
    __slots__ = ("s", "n", "i", "depth", "pending")

    def __init__(self, s: str, depth: int):
        self.s = s
        self.n = len(s)
        self.i = 0
        self.depth = depth
        self.pending: list = []

    def tokens(self, closer: bool = False) -> list:
        """Tokens up to the end, or (``closer``) up to the ``)`` that closes
        a ``$(`` — the index is left just after it."""
        s, n = self.s, self.n
        toks: list = []
        parens = 0
        while self.i < n:
            c = s[self.i]
            if c == " " or c == "\t" or c == "\r":
                self.i += 1
            elif c == "\\" and s.startswith("\n", self.i + 1):  # a line continuation between words
                self.i += 2
            elif c == "\n":
                self.i += 1
                toks.append(("o", "\n"))
                if self.pending:
                    self._bodies()
            elif c == "#":
                end = s.find("\n", self.i)
                self.i = n if end < 0 else end
            elif c == ";":
                if s.startswith(";;", self.i):
                    self.i += 2
                    if self.i < n and s[self.i] == "&":
                        self.i += 1
                else:
                    self.i += 1
                toks.append(("o", ";"))
            elif c == "&":
                if s.startswith("&&", self.i):
                    toks.append(("o", "&&"))
                    self.i += 2
                elif s.startswith("&>", self.i):
                    op = "&>>" if s.startswith("&>>", self.i) else "&>"
                    self.i += len(op)
                    toks.append(["r", op, None])
                else:
                    toks.append(("o", "&"))
                    self.i += 1
            elif c == "|":
                if s.startswith("||", self.i):
                    toks.append(("o", "||"))
                    self.i += 2
                else:
                    self.i += 2 if s.startswith("|&", self.i) else 1
                    toks.append(("o", "|"))
            elif c == "(":
                parens += 1
                self.i += 1
                toks.append(("o", "("))
            elif c == ")":
                self.i += 1
                if closer and parens == 0:
                    return toks
                parens -= 1
                toks.append(("o", ")"))
            elif (c == "<" or c == ">") and self.i + 1 < n and s[self.i + 1] == "(":
                toks.append(self._word())  # process substitution: a word (a /dev/fd path)
            elif c == "<" or c == ">":
                self._redir(toks)
            else:
                start = self.i
                tok = self._word()
                if self.i == start:  # cannot happen with the tables above; never loop
                    self.i += 1
                    continue
                # "2>file": a word of digits touching a redirection is its fd
                if (self.i < n and s[self.i] in "<>" and tok[1].isdigit() and tok[3] is None
                        and not s.startswith("(", self.i + 1)):
                    continue
                toks.append(tok)
        return toks

    def _redir(self, toks: list) -> None:
        s = self.s
        for op in ("<<<", "<<-", "<<", ">>", ">|", ">&", "<&", "<>", ">", "<"):
            if s.startswith(op, self.i):
                break
        self.i += len(op)
        if op in ("<<", "<<-"):
            while self.i < self.n and s[self.i] in " \t":
                self.i += 1
            delim = self._word()[1] if self.i < self.n and s[self.i] not in "\n;&|()<>" else ""
            tok = ["h", op, delim.replace(DYN, "").replace(_TILDE, "~"), ""]
            self.pending.append(tok)
            toks.append(tok)
        else:
            toks.append(["r", op, None])

    def _bodies(self) -> None:
        """Here-document bodies start after the newline that ends their line."""
        s, n = self.s, self.n
        for tok in self.pending:
            strip_tabs = tok[1] == "<<-"
            start = pos = self.i
            while True:
                end = s.find("\n", pos)
                line = s[pos:] if end < 0 else s[pos:end]
                if (line.lstrip("\t") if strip_tabs else line) == tok[2]:
                    tok[3] = s[start:pos]
                    self.i = n if end < 0 else end + 1
                    break
                if end < 0:
                    tok[3] = s[start:]
                    self.i = n
                    break
                pos = end + 1
        self.pending = []

    def _nested(self) -> list:
        """Tokens of a ``$( … )`` whose ``$(`` was just consumed."""
        if self.depth >= MAX_DEPTH:
            self._skip_parens()
            return []
        sub = _Lexer(self.s, self.depth + 1)
        sub.i = self.i
        toks = sub.tokens(closer=True)
        self.i = sub.i
        return toks

    def _skip_parens(self) -> None:
        depth = 1
        while self.i < self.n and depth:
            c = self.s[self.i]
            depth += (c == "(") - (c == ")")
            self.i += 1

    def _backtick(self) -> list:
        """Tokens of a backtick substitution whose opening ` was consumed."""
        s = self.s
        j = self.i
        parts = []
        while j < self.n and s[j] != "`":
            if s[j] == "\\" and j + 1 < self.n:
                parts.append(s[j + 1])
                j += 2
            else:
                parts.append(s[j])
                j += 1
        self.i = j + 1
        if self.depth >= MAX_DEPTH:
            return []
        return _Lexer("".join(parts), self.depth + 1).tokens()

    def _dollar(self, parts: list, nested: list) -> None:
        s = self.s
        i = self.i + 1
        nxt = s[i] if i < self.n else ""
        if nxt == "(":
            if s.startswith("((", i):  # arithmetic: skip to the matching "))"
                self.i = i + 1
                self._skip_parens()
            else:
                self.i = i + 1
                nested.append(self._nested())
            parts.append(DYN)
        elif nxt == "{":
            end = s.find("}", i)
            self.i = self.n if end < 0 else end + 1
            parts.append(DYN)
        elif nxt == "'":
            self.i = i + 1
            parts.append(self._ansi())
        elif nxt == '"':
            self.i = i
        else:
            m = _VAR.match(s, i)
            if m:
                self.i = m.end()
                parts.append(DYN)
            else:
                self.i = i
                parts.append("$")

    def _ansi(self) -> str:
        s = self.s
        out = []
        j = self.i
        while j < self.n and s[j] != "'":
            if s[j] == "\\" and j + 1 < self.n:
                out.append(_ANSI.get(s[j + 1], "\\" + s[j + 1]))
                j += 2
            else:
                out.append(s[j])
                j += 1
        self.i = j + 1
        return "".join(out)

    def _word(self):
        s, n = self.s, self.n
        parts: list[str] = []
        nested: list = []
        assign = None
        first = True
        while self.i < n:
            c = s[self.i]
            m = _PLAIN.match(s, self.i)
            if m:
                text = m.group()
                if first:
                    if text[0] == "~":
                        text = _TILDE + text[1:]
                    a = _ASSIGN.match(text)
                    if a:
                        assign = a.end()
                parts.append(text)
                self.i = m.end()
            elif c == "'":
                end = s.find("'", self.i + 1)
                if end < 0:
                    parts.append(s[self.i + 1:])
                    self.i = n
                else:
                    parts.append(s[self.i + 1:end])
                    self.i = end + 1
            elif c == '"':
                self.i += 1
                self._double(parts, nested)
            elif c == "\\":
                if self.i + 1 < n:
                    if s[self.i + 1] != "\n":  # a line continuation joins, adds nothing
                        parts.append(s[self.i + 1])
                    self.i += 2
                else:
                    self.i += 1
            elif c == "$":
                self._dollar(parts, nested)
            elif c == "`":
                self.i += 1
                nested.append(self._backtick())
                parts.append(DYN)
            elif (c == "<" or c == ">") and self.i + 1 < n and s[self.i + 1] == "(":
                self.i += 2
                nested.append(self._nested())
                parts.append(DYN)
            else:
                break
            first = False
        return ("w", "".join(parts), nested, assign)

    def _double(self, parts: list, nested: list) -> None:
        s, n = self.s, self.n
        while self.i < n:
            m = _DQ_PLAIN.match(s, self.i)
            if m:
                parts.append(m.group())
                self.i = m.end()
                continue
            c = s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\":
                nxt = s[self.i + 1] if self.i + 1 < n else ""
                if nxt in '$`"\\':
                    parts.append(nxt)
                elif nxt != "\n":
                    parts.append("\\" + nxt)
                self.i += 2
            elif c == "$":
                if self.i + 1 < n and s[self.i + 1] in "'\"":
                    parts.append("$")  # no $'…' inside double quotes
                    self.i += 1
                else:
                    self._dollar(parts, nested)
            else:  # backtick
                self.i += 1
                nested.append(self._backtick())
                parts.append(DYN)


# ---------------------------------------------------------------------------
# Tokens → simple commands, with subshell scopes
# ---------------------------------------------------------------------------
@dataclass(slots=True)
class _Simple:
    words: list
    redirs: list  # (op, target)
    inputs: list  # here-document / here-string bodies
    nested: list  # token lists of substitutions inside the words
    piped: bool = False  # its stdin is the previous command's output


_KEYWORDS = frozenset(("{", "}", "!", "then", "else", "elif", "fi", "do", "done", "if",
                       "while", "until", "esac"))
_SKIP_HEADS = frozenset(("for", "select", "case", "function", "[[", "]]", "declare",
                         "local", "export", "readonly", "typeset", "alias", "unset"))


def _simples(tokens: list) -> list:
    """Simple commands and "(" / ")" scope markers, in order."""
    out: list = []
    cur = _Simple([], [], [], [])
    want_target = None

    def flush():
        nonlocal cur
        if cur.words or cur.redirs or cur.inputs or cur.nested:
            out.append(cur)
        cur = _Simple([], [], [], [])

    for tok in tokens:
        kind = tok[0]
        if kind == "w":
            if tok[2]:
                cur.nested.extend(tok[2])
            if want_target is not None:
                if want_target == "<<<":
                    cur.inputs.append(tok[1])
                else:
                    cur.redirs.append((want_target, tok[1]))
                want_target = None
            elif not cur.words and tok[3] is not None:
                continue  # VAR=value before the command
            else:
                cur.words.append(tok[1])
        elif kind == "o":
            want_target = None
            flush()
            if tok[1] == "(" or tok[1] == ")":
                out.append(tok[1])
            elif tok[1] == "|" or tok[1] == "|&":
                cur.piped = True
        elif kind == "r":
            want_target = tok[1]
        else:  # here-document
            want_target = None
            cur.inputs.append(tok[3])
    flush()
    return out


# ---------------------------------------------------------------------------
# Program names
# ---------------------------------------------------------------------------
_WIN_EXT = (".exe", ".cmd", ".bat", ".ps1", ".com")


@lru_cache(maxsize=4096)
def program_name(word: str) -> str:
    """``/usr/bin/npm`` → ``npm``; ``C:\\node\\npm.CMD`` → ``npm``;
    ``./node_modules/.bin/jest`` → ``jest``; a dynamic word → ""."""
    if not word or DYN in word or _TILDE in word:
        return ""
    base = word.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    low = base.lower()
    for ext in _WIN_EXT:
        if low.endswith(ext) and len(low) > len(ext):
            base = low[: -len(ext)]
            break
    return base


def _pkg_program(word: str) -> str:
    """A package runner's argument → the program it runs: ``jest@29`` → ``jest``,
    ``@biomejs/biome@1`` → ``biome``, ``create-vite`` → ``create-vite``."""
    if word.startswith("@"):
        word = word[1:]
    word = word.split("@", 1)[0]
    return program_name(word)


# ---------------------------------------------------------------------------
# Option tables (only what decides where a command's own words begin)
# ---------------------------------------------------------------------------
_SUDO_VALUE = frozenset(("-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T",
                         "--user", "--group", "--host", "--prompt", "--close-from",
                         "--chdir", "--role", "--type", "--other-user", "--command-timeout"))
_ENV_VALUE = frozenset(("-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P"))
_NICE_VALUE = frozenset(("-n", "--adjustment"))
_IONICE_VALUE = frozenset(("-c", "-n", "-p", "-P", "-u", "--class", "--classdata"))
_TIMEOUT_VALUE = frozenset(("-s", "-k", "--signal", "--kill-after"))
_STDBUF_VALUE = frozenset(("-i", "-o", "-e", "--input", "--output", "--error"))
_XARGS_VALUE = frozenset(("-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--arg-file",
                          "--max-args", "--max-procs", "--max-chars", "--delimiter",
                          "--max-lines", "--process-slot-var"))
_WATCH_VALUE = frozenset(("-n", "--interval", "-q", "--equexit", "--differences"))
_SHELLS = frozenset(("bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash"))
_SHELL_VALUE = frozenset(("-o", "+o", "-O", "+O", "--rcfile", "--init-file"))
_NPX_VALUE = frozenset(("-p", "--package", "--cache", "--userconfig", "--registry"))
_UV_RUN_VALUE = frozenset(("--with", "--with-editable", "--with-requirements", "-p", "--python",
                           "--project", "--directory", "--package", "--extra", "--group",
                           "--env-file", "--index", "--index-url", "--extra-index-url",
                           "--from", "--only-group", "--no-group", "--cache-dir", "-C",
                           "--config-setting", "--python-preference", "--config-file"))
_CONDA_VALUE = frozenset(("-n", "--name", "-p", "--prefix", "--cwd"))
_PYTHON_VALUE = frozenset(("-X", "-W", "--check-hash-based-pycs"))
_POETRY_VALUE = frozenset(("-C", "--directory", "-P", "--project", "-e", "--env"))
_PNPM_VALUE = frozenset(("-C", "--dir", "-F", "--filter", "--filter-prod", "--workspace-concurrency",
                         "--reporter", "--loglevel", "--test-pattern", "--changed-files-ignore-pattern"))
_YARN_VALUE = frozenset(("--cwd", "--modules-folder", "--cache-folder", "--mutex"))
_NPM_VALUE = frozenset(("--prefix", "-w", "--workspace", "--registry", "--cache", "--userconfig",
                        "--loglevel", "-C", "--location"))
_PNPM_BUILTINS = frozenset((
    "add", "install", "i", "update", "up", "upgrade", "remove", "rm", "uninstall", "un", "link",
    "ln", "unlink", "import", "rebuild", "rb", "prune", "fetch", "install-test", "it", "patch",
    "patch-commit", "patch-remove", "audit", "list", "ls", "ll", "la", "outdated", "why",
    "licenses", "run", "run-script", "test", "t", "tst", "exec", "dlx", "create", "start",
    "publish", "pack", "root", "bin", "store", "config", "c", "get", "set", "init", "env",
    "setup", "server", "deploy", "doctor", "help", "dedupe", "cat-file", "cat-index",
    "find-hash", "self-update", "approve-builds", "ignored-builds", "stop", "restart",
    "recursive", "multi", "m", "view", "info", "show", "login", "logout", "whoami", "search",
    "owner", "dist-tag", "docs", "repo", "bugs", "version", "sbom", "completion", "cache",
    "catalog", "ci", "clean"))
_YARN_BUILTINS = frozenset((
    "add", "bin", "cache", "check", "config", "create", "dedupe", "dlx", "exec", "explain",
    "generate-lock-entry", "global", "help", "import", "info", "init", "install", "licenses",
    "link", "list", "login", "logout", "node", "npm", "outdated", "owner", "pack", "patch",
    "patch-commit", "plugin", "policies", "publish", "rebuild", "remove", "run", "search", "set",
    "tag", "team", "unlink", "unplug", "up", "upgrade", "upgrade-interactive", "version",
    "versions", "why", "workspace", "workspaces", "constraints", "stage", "test", "start",
    "audit", "autoclean", "sdks", "prepack", "dedupe"))
_PYTHONS = re.compile(r"(?:python|pypy|py)(?:\d+(?:\.\d+)*)?(?:-dbg)?|python\d+(?:\.\d+)*t")


def skip_options(argv, start: int, value_opts: frozenset) -> int:
    """Index of the first positional word at or after ``start``: options
    (``-x``, ``--long``, ``--long=v``) are skipped, with the value of those in
    ``value_opts`` written as the next word; ``--`` ends the options."""
    i = start
    n = len(argv)
    while i < n:
        a = argv[i]
        if a == "--":
            return i + 1
        if len(a) < 2 or a[0] != "-":
            return i
        if a in value_opts:
            i += 2
        else:
            i += 1
    return i


def _after_dashdash(argv, start: int) -> int:
    return start + 1 if start < len(argv) and argv[start] == "--" else start


# ---------------------------------------------------------------------------
# Wrappers: argv → the command lines / argvs that run inside it
# ---------------------------------------------------------------------------
def _inner(prog: str, argv: tuple, inputs: list, cwd: str | None, home: str | None):
    """What ``argv`` runs inside itself: a list of ("argv", argv, cwd) and
    ("script", text, cwd) items (empty for an ordinary program)."""
    n = len(argv)
    if prog in ("sudo", "doas", "run0", "pkexec"):
        if prog == "sudo" and any(a in ("-e", "--edit") for a in argv[1:skip_options(argv, 1, _SUDO_VALUE)]):
            return []
        i = skip_options(argv, 1, _SUDO_VALUE)
        while i < n and _ASSIGN.match(argv[i]):
            i += 1
        return [("argv", argv[i:], cwd)] if i < n else []
    if prog == "su":
        for j, a in enumerate(argv[1:-1], 1):
            if a in ("-c", "--command"):
                return [("script", argv[j + 1], cwd)]
            if a.startswith("--command="):
                return [("script", a.split("=", 1)[1], cwd)]
        return []
    if prog == "env":
        i = 1
        while i < n:
            a = argv[i]
            if a == "--":
                i += 1
                break
            if a in ("-C", "--chdir") and i + 1 < n:
                cwd = _resolve(cwd, argv[i + 1], home)
                i += 2
            elif a.startswith("--chdir="):
                cwd = _resolve(cwd, a.split("=", 1)[1], home)
                i += 1
            elif a in ("-S", "--split-string") and i + 1 < n:
                return [("script", argv[i + 1] + " " + " ".join(_quote(w) for w in argv[i + 2:]), cwd)]
            elif a in _ENV_VALUE:
                i += 2
            elif a.startswith("-") and len(a) > 1:
                i += 1
            elif _ASSIGN.match(a):
                i += 1
            else:
                break
        while i < n and _ASSIGN.match(argv[i]):
            i += 1
        return [("argv", argv[i:], cwd)] if i < n else []
    if prog == "cross-env" or prog == "cross-env-shell":
        i = 1
        while i < n and _ASSIGN.match(argv[i]):
            i += 1
        if prog == "cross-env-shell":
            return [("script", " ".join(argv[i:]), cwd)] if i < n else []
        return [("argv", argv[i:], cwd)] if i < n else []
    if prog in ("nohup", "builtin", "unbuffer", "caffeinate"):
        i = skip_options(argv, 1, frozenset(("-t", "-w")))
        return [("argv", argv[i:], cwd)] if i < n else []
    if prog == "time":
        i = skip_options(argv, 1, frozenset(("-f", "-o", "--format", "--output")))
        return [("argv", argv[i:], cwd)] if i < n else []
    if prog == "exec":
        i = skip_options(argv, 1, frozenset(("-a",)))
        return [("argv", argv[i:], cwd)] if i < n else []
    if prog == "command":
        if any(a in ("-v", "-V") for a in argv[1:skip_options(argv, 1, frozenset())]):
            return []  # a lookup, nothing runs
        i = skip_options(argv, 1, frozenset())
        return [("argv", argv[i:], cwd)] if i < n else []
    if prog == "nice":
        i = 1
        while i < n and argv[i].startswith("-") and argv[i] != "--":
            i += 2 if argv[i] in _NICE_VALUE else 1
        i = _after_dashdash(argv, i)
        return [("argv", argv[i:], cwd)] if i < n else []
    if prog == "ionice":
        i = skip_options(argv, 1, _IONICE_VALUE)
        return [("argv", argv[i:], cwd)] if i < n else []
    if prog == "timeout":
        i = skip_options(argv, 1, _TIMEOUT_VALUE) + 1  # then the duration
        return [("argv", argv[i:], cwd)] if i < n else []
    if prog == "stdbuf":
        i = skip_options(argv, 1, _STDBUF_VALUE)
        return [("argv", argv[i:], cwd)] if i < n else []
    if prog == "xargs":
        i = skip_options(argv, 1, _XARGS_VALUE)
        return [("argv", argv[i:] if i < n else ("echo",), cwd)]
    if prog == "watch":
        i = 1
        exec_mode = False
        while i < n and argv[i].startswith("-") and argv[i] != "--":
            exec_mode |= argv[i] in ("-x", "--exec")
            i += 2 if argv[i] in _WATCH_VALUE else 1
        i = _after_dashdash(argv, i)
        if i >= n:
            return []
        return [("argv", argv[i:], cwd)] if exec_mode else [("script", " ".join(argv[i:]), cwd)]
    if prog == "eval":
        return [("script", " ".join(argv[1:]), cwd)] if n > 1 else []
    if prog in _SHELLS:
        return _shell_inner(argv, inputs, cwd)
    if prog == "find":
        return _find_exec(argv, cwd)
    if prog in ("npx", "pnpx", "bunx"):
        return _runner_tail(argv, 1, cwd, _NPX_VALUE)
    if prog == "npm":
        i = skip_options(argv, 1, _NPM_VALUE)
        if i < n and argv[i] in ("exec", "x"):
            return _runner_tail(argv, i + 1, cwd, _NPX_VALUE)
        return []
    if prog == "pnpm":
        i = skip_options(argv, 1, _PNPM_VALUE)
        if i >= n:
            return []
        if argv[i] in ("exec", "dlx"):
            return _runner_tail(argv, i + 1, cwd, _NPX_VALUE)
        if argv[i] not in _PNPM_BUILTINS:  # `pnpm jest`: a script or a bin of the project
            return [("argv", (_pkg_program(argv[i]),) + argv[i + 1:], cwd)]
        return []
    if prog == "yarn" or prog == "yarnpkg":
        i = skip_options(argv, 1, _YARN_VALUE)
        if i >= n:
            return []
        if argv[i] in ("dlx", "exec"):
            return _runner_tail(argv, i + 1, cwd, _NPX_VALUE)
        if argv[i] not in _YARN_BUILTINS:
            return [("argv", (_pkg_program(argv[i]),) + argv[i + 1:], cwd)]
        return []
    if prog == "bun":
        i = skip_options(argv, 1, frozenset(("--cwd",)))
        if i < n and argv[i] == "x":
            return _runner_tail(argv, i + 1, cwd, _NPX_VALUE)
        return []
    if prog == "corepack":
        if n > 1 and argv[1] in ("npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg"):
            return [("argv", argv[1:], cwd)]
        return []
    if prog == "uvx":
        return _runner_tail(argv, 1, cwd, _UV_RUN_VALUE)
    if prog == "uv":
        i = skip_options(argv, 1, frozenset(("--directory", "--project", "--cache-dir",
                                             "--config-file", "--color")))
        if i < n and argv[i] == "run":
            return _python_module_or_tail(argv, i + 1, cwd, _UV_RUN_VALUE)
        if i + 1 < n and argv[i] == "tool" and argv[i + 1] == "run":
            return _runner_tail(argv, i + 2, cwd, _UV_RUN_VALUE)
        return []
    if prog in ("poetry", "pipenv", "pdm", "rye", "hatch"):
        i = skip_options(argv, 1, _POETRY_VALUE)
        if i < n and argv[i] == "run":
            return _python_module_or_tail(argv, i + 1, cwd, _POETRY_VALUE)
        return []
    if prog == "pipx":
        i = skip_options(argv, 1, frozenset())
        if i < n and argv[i] == "run":
            return _runner_tail(argv, i + 1, cwd, frozenset(("--spec", "--python", "--index-url",
                                                             "--pip-args")))
        return []
    if prog in ("conda", "mamba", "micromamba"):
        i = skip_options(argv, 1, frozenset())
        if i < n and argv[i] == "run":
            return _runner_tail(argv, i + 1, cwd, _CONDA_VALUE)
        return []
    if _PYTHONS.fullmatch(prog):
        return _python_module(argv, 1, cwd)
    return []


def _runner_tail(argv: tuple, start: int, cwd, value_opts: frozenset):
    """``npx [opts] jest --watch`` → ("argv", ("jest", "--watch")); ``-c "…"``
    → a script."""
    n = len(argv)
    i = start
    while i < n:
        a = argv[i]
        if a in ("-c", "--call", "--shell-mode") and i + 1 < n and a != "--shell-mode":
            return [("script", argv[i + 1], cwd)]
        if a == "--":
            i += 1
            break
        if len(a) < 2 or a[0] != "-":
            break
        i += 2 if a in value_opts else 1
    if i >= n:
        return []
    return [("argv", (_pkg_program(argv[i]),) + tuple(argv[i + 1:]), cwd)]


def _python_module(argv: tuple, start: int, cwd):
    """``python -m pip install x`` → ("argv", ("pip", "install", "x"))."""
    n = len(argv)
    i = start
    while i < n:
        a = argv[i]
        if a == "-m" and i + 1 < n:
            return [("argv", (argv[i + 1],) + tuple(argv[i + 2:]), cwd)]
        if a.startswith("-m") and len(a) > 2 and not a.startswith("--"):
            return [("argv", (a[2:],) + tuple(argv[i + 1:]), cwd)]
        if a in ("-c", "--") or not a.startswith("-") or a == "-":
            return []  # code or a script file: not a command line
        i += 2 if a in _PYTHON_VALUE else 1
    return []


def _python_module_or_tail(argv: tuple, start: int, cwd, value_opts: frozenset):
    i = start
    n = len(argv)
    while i < n and argv[i].startswith("-") and argv[i] not in ("-m", "--"):
        i += 2 if argv[i] in value_opts else 1
    if i < n and argv[i] == "-m":
        return _python_module(argv, i, cwd)
    return _runner_tail(argv, i, cwd, value_opts)


def _shell_inner(argv: tuple, inputs: list, cwd):
    n = len(argv)
    i = 1
    command_mode = False
    while i < n:
        a = argv[i]
        if a == "--" or a == "-":
            i += 1
            break
        if a in _SHELL_VALUE:
            i += 2
            continue
        if a.startswith("--"):
            i += 1
            continue
        if len(a) > 1 and a[0] in "-+":
            command_mode |= "c" in a[1:]
            i += 1
            continue
        break
    if command_mode:
        return [("script", argv[i], cwd)] if i < n else []
    if i < n:
        return []  # a script file
    return [("script", body, cwd) for body in inputs]


def _find_exec(argv: tuple, cwd):
    """``find migrations -name x -exec rm {} +`` → rm runs on paths under
    ``migrations``: ``{}`` becomes ``<start>/{}``."""
    n = len(argv)
    i = 1
    while i < n and argv[i] in ("-H", "-L", "-P") or i < n and argv[i].startswith("-O"):
        i += 1
    starts = []
    while i < n and not argv[i].startswith("-") and argv[i] not in ("(", "!", ")"):
        starts.append(argv[i])
        i += 1
    start = starts[0] if starts else "."
    out = []
    while i < n:
        if argv[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < n and argv[j] not in (";", "+"):
                j += 1
            cmd = tuple(a.replace("{}", start.rstrip("/") + "/{}") if "{}" in a else a
                        for a in argv[i + 1:j])
            if cmd:
                out.append(("argv", cmd, cwd))
            i = j + 1
        else:
            i += 1
    return out


def _quote(word: str) -> str:
    """Quote a word for re-parsing (env -S tails)."""
    return "'" + word.replace("'", "'\\''") + "'"


# ---------------------------------------------------------------------------
# Writes: argv → the path words it changes
# ---------------------------------------------------------------------------
def _positionals(argv: tuple, start: int, value_opts: frozenset = frozenset()) -> list:
    out = []
    i = start
    n = len(argv)
    opts_done = False
    while i < n:
        a = argv[i]
        if not opts_done and a == "--":
            opts_done = True
        elif not opts_done and len(a) > 1 and a[0] == "-":
            if a in value_opts:
                i += 1
        elif a:
            out.append(a)
        i += 1
    return out


def _opt_value(argv: tuple, names: tuple) -> str | None:
    for j, a in enumerate(argv):
        if not a.startswith("-"):
            continue
        for name in names:
            if a == name and j + 1 < len(argv):
                return argv[j + 1]
            if name.startswith("--") and a.startswith(name + "="):
                return a[len(name) + 1:]
            if not name.startswith("--") and a.startswith(name) and len(a) > len(name):
                return a[len(name):]
    return None


_COPY_VALUE = {
    "cp": frozenset(("-t", "--target-directory", "-S", "--suffix")),
    "mv": frozenset(("-t", "--target-directory", "-S", "--suffix")),
    "ln": frozenset(("-t", "--target-directory", "-S", "--suffix")),
    "install": frozenset(("-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o",
                          "--owner", "-g", "--group")),
    "rsync": frozenset(("-e", "--rsh", "--exclude", "--include", "--filter", "-f", "--exclude-from",
                        "--include-from", "--files-from", "--backup-dir", "--suffix", "--chmod",
                        "--rsync-path", "-T", "--temp-dir", "--compare-dest", "--link-dest",
                        "--copy-dest", "--partial-dir", "--log-file", "--password-file", "-M",
                        "--remote-option", "--bwlimit", "--timeout", "--port", "--max-size",
                        "--min-size", "--out-format", "--info", "--debug")),
}
_SED_VALUE = frozenset(("-e", "-f", "--expression", "--file", "-l", "--line-length"))
_TRUNCATE_VALUE = frozenset(("-s", "--size", "-r", "--reference"))
_GIT_VALUE = frozenset(("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                        "--super-prefix", "--exec-path"))


def _writes(prog: str, argv: tuple) -> list:
    if prog in ("rm", "rmdir", "unlink", "shred", "touch", "mkdir", "srm", "sudoedit"):
        return _positionals(argv, 1, frozenset(("-m", "--mode", "-n", "--iterations", "-s",
                                                "--size", "-d", "--date", "-r", "--reference",
                                                "-t")) if prog in ("mkdir", "shred", "touch")
                            else frozenset())
    if prog == "sudo":
        i = skip_options(argv, 1, _SUDO_VALUE)
        if any(a in ("-e", "--edit") for a in argv[1:i]):
            return [a for a in argv[i:] if a]
        return []
    if prog == "truncate":
        return _positionals(argv, 1, _TRUNCATE_VALUE)
    if prog == "tee":
        return _positionals(argv, 1, frozenset(("--output-error",)))
    if prog in _COPY_VALUE:
        target = None if prog == "rsync" else _opt_value(argv, ("-t", "--target-directory"))
        pos = _positionals(argv, 1, _COPY_VALUE[prog])
        if prog == "rsync":  # host:path is on another machine
            return [pos[-1]] if len(pos) >= 2 and ":" not in pos[-1].split("/", 1)[0] else []
        if prog == "mv":
            return pos + ([target] if target else []) if (target or len(pos) >= 2) else []
        if target:
            return [target]
        return [pos[-1]] if len(pos) >= 2 else []
    if prog == "sed":
        inplace = any(a == "--in-place" or a.startswith("--in-place=")
                      or (a.startswith("-") and not a.startswith("--") and "i" in a[1:]
                          and a[1:2] != "e" and a not in ("-f",))
                      for a in argv[1:])
        if not inplace:
            return []
        has_script_opt = any(a in ("-e", "-f", "--expression", "--file") or a.startswith("--expression=")
                             for a in argv[1:])
        pos = _positionals(argv, 1, _SED_VALUE)
        return pos if has_script_opt else pos[1:]
    if prog == "perl":
        inplace = any(a.startswith("-") and not a.startswith("--") and "i" in a[1:].split(".")[0]
                      for a in argv[1:])
        if not inplace:
            return []
        pos = _positionals(argv, 1, frozenset(("-e", "-E", "-I", "-M")))
        # a lone -e/-E took the script with it; otherwise the first word is the
        # script (after a cluster such as -pie) or the script file
        return pos if any(a in ("-e", "-E") for a in argv[1:]) else pos[1:]
    if prog == "dd":
        return [a[3:] for a in argv[1:] if a.startswith("of=")]
    if prog == "curl":
        v = _opt_value(argv, ("-o", "--output"))
        return [v] if v and v != "-" else []
    if prog == "wget":
        v = _opt_value(argv, ("-O", "--output-document"))
        return [v] if v and v != "-" else []
    if prog == "find":
        if "-delete" not in argv:
            return []
        starts = []
        for a in argv[1:]:
            if a.startswith("-") or a in ("(", "!"):
                break
            starts.append(a)
        return starts or ["."]
    if prog == "git":
        i = skip_options(argv, 1, _GIT_VALUE)
        if i >= len(argv):
            return []
        sub = argv[i]
        if sub in ("rm", "mv"):
            return _positionals(argv, i + 1)
        if sub == "restore":
            return _positionals(argv, i + 1, frozenset(("-s", "--source")))
        if sub == "checkout" and "--" in argv[i + 1:]:
            return list(argv[argv.index("--", i + 1) + 1:])
    return []


# ---------------------------------------------------------------------------
# Paths
# ---------------------------------------------------------------------------
def _resolve(cwd: str | None, word: str, home: str | None) -> str | None:
    """An argument as an absolute, normalised path (lexically: ``..`` is
    folded, symlinks are not followed), or None when it cannot be known."""
    if not word or DYN in word or word == "-" or "\0" in word:
        return None
    if word[0] == _TILDE:
        if home is None or (len(word) > 1 and word[1] != "/"):
            return None
        word = home + word[1:]
    if word[0] == "/":
        return posixpath.normpath(word)
    if cwd is None:
        return None
    return posixpath.normpath(posixpath.join(cwd, word))


# ---------------------------------------------------------------------------
# Putting it together
# ---------------------------------------------------------------------------
class _Walk:
    __slots__ = ("home", "invocations", "writes", "budget", "upstream")

    def __init__(self, home: str | None):
        self.home = home
        self.invocations: list = []
        self.writes: list = []
        self.budget = 2000  # simple commands per scan: bounds eval/bash -c loops
        self.upstream: tuple = ()  # the programs of the pipeline so far

    def script(self, text: str, cwd: str | None, exact: bool, via: tuple, depth: int) -> None:
        if depth > MAX_DEPTH or not text:
            return
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
                self.write(target, cwd, exact, tuple(words) or (op + target,))
        if not words or words[0] in _SKIP_HEADS:
            return cwd, exact
        head = words[0]
        if head in ("cd", "pushd", "chdir"):
            args = [w for w in words[1:] if not (w.startswith("-") and len(w) > 1)]
            if not args:
                if self.home is not None:
                    return self.home, True
                return cwd, False
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

    def write(self, word: str, cwd, exact: bool, argv: tuple) -> None:
        path = _resolve(cwd if exact else None, word, self.home)
        if path is not None:
            self.writes.append(Write(path, argv))


def scan(command, cwd: str | None = None, *, home: str | None = None) -> Scan:
    """The programs a command line runs and the paths it writes.

    ``command`` is a shell string or an argv list (Codex's ``shell`` tool:
    ``["bash", "-lc", "npm i"]``); ``cwd`` the folder it starts in; ``home``
    expands ``~`` (unknown: ``~`` paths are not resolved). Never raises."""
    walk = _Walk(home if isinstance(home, str) and home.startswith("/") else None)
    cwd = posixpath.normpath(cwd) if isinstance(cwd, str) and cwd.startswith("/") else None
    try:
        if isinstance(command, str):
            walk.script(_clean(command), cwd, True, (), 0)
        elif isinstance(command, (list, tuple)) and all(isinstance(w, str) for w in command):
            walk.argv(tuple(_clean(w) for w in command[:4096]), [], cwd, True, (), 0)
    except RecursionError:  # pragma: no cover - depth is bounded; belt and braces
        pass
    return Scan(tuple(walk.invocations), tuple(walk.writes))


_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$",
                         re.MULTILINE)


def patch_paths(text) -> list[str]:
    """The files an ``apply_patch`` patch changes: its ``*** Update File:``,
    ``*** Add File:``, ``*** Delete File:`` and ``*** Move to:`` lines."""
    if not isinstance(text, str) or "*** " not in text:
        return []
    return [m.group(1) or m.group(2) for m in _PATCH_FILE.finditer(_clean(text))]


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
