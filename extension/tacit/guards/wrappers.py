"""What a command line's wrappers run inside themselves (``sudo``, ``env``,
``bash -c``, ``npx``, ``uv run``, ``python -m`` …), program names, and the
option tables that say where a command's own words begin."""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from itertools import dropwhile

from tacit.guards.shell_lex import _ASSIGN, _TILDE, DYN

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
# git's global options that take a value (``git -C dir push``)
GIT_VALUE_OPTS = frozenset(("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                            "--super-prefix", "--exec-path"))
_SUDO_VALUE = frozenset(("-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T",
                         "--user", "--group", "--host", "--prompt", "--close-from",
                         "--chdir", "--role", "--type", "--other-user", "--command-timeout"))
_ENV_VALUE = frozenset(("-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P"))
# wrappers whose command follows their options: the options that take a value, then the words
# to skip (timeout's duration)
_PLAIN = {**dict.fromkeys(("sudo", "doas", "run0", "pkexec"), (_SUDO_VALUE, 0)),
          **dict.fromkeys(("nohup", "builtin", "unbuffer", "caffeinate"), (frozenset(("-t", "-w")), 0)),
          "time": (frozenset(("-f", "-o", "--format", "--output")), 0), "exec": (frozenset(("-a",)), 0),
          "command": (frozenset(), 0), "nice": (frozenset(("-n", "--adjustment")), 0),
          "ionice": (frozenset(("-c", "-n", "-p", "-P", "-u", "--class", "--classdata")), 0),
          "timeout": (frozenset(("-s", "-k", "--signal", "--kill-after")), 1),
          "stdbuf": (frozenset(("-i", "-o", "-e", "--input", "--output", "--error")), 0)}
# their options that run nothing: ``command -v x`` looks x up, ``sudo -e f`` edits f
_RUNS_NOTHING = {"command": ("-v", "-V"), "sudo": ("-e", "--edit")}
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
_UV_VALUE = frozenset(("--directory", "--project", "--cache-dir", "--config-file", "--color"))
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
# runners whose unknown first word is a script or a bin of the project: their own commands
_BIN_RUNNERS = {"pnpm": _PNPM_BUILTINS, "yarn": _YARN_BUILTINS, "yarnpkg": _YARN_BUILTINS}
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
        i += 2 if a in value_opts else 1
    return i


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


def verb(argv: tuple) -> tuple[str, tuple]:
    """A command's program and the words after it, git's subcommand included:
    ``git -C web rm -r docs`` → ("git rm", ("-r", "docs"))."""
    prog = program_name(argv[0])
    if prog != "git":
        return prog, argv[1:]
    i = skip_options(argv, 1, GIT_VALUE_OPTS)
    return ("git " + argv[i], argv[i + 1:]) if i < len(argv) else ("git", ())


# ---------------------------------------------------------------------------
# Wrappers: argv → the command lines / argvs that run inside it
# ---------------------------------------------------------------------------
def _inner(prog: str, argv: tuple, inputs: list, cwd: str | None, home: str | None):
    """What ``argv`` runs inside itself: a list of ("argv", argv, cwd) and
    ("script", text, cwd) items (empty for an ordinary program)."""
    found = _wrapper(prog, argv, cwd, home)
    return found if found is not None else _runner(prog, argv, inputs, cwd)


def _wrapper(prog: str, argv: tuple, cwd: str | None, home: str | None):
    """sudo, su, env, nohup, time, timeout, xargs, watch, eval …: None for any other program."""
    n = len(argv)
    if prog in _PLAIN:
        value_opts, skip = _PLAIN[prog]
        i = skip_options(argv, 1, value_opts) + skip
        if any(a in _RUNS_NOTHING.get(prog, ()) for a in argv[1:i]):
            return []
        return [("argv", argv[i:], cwd)] if i < n else []  # the walker drops leading VAR=value words
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
            elif a.startswith("-") and len(a) > 1 or _ASSIGN.match(a):
                i += 1
            else:
                break
        return [("argv", argv[i:], cwd)] if i < n else []
    if prog == "cross-env" or prog == "cross-env-shell":
        i = 1
        while i < n and _ASSIGN.match(argv[i]):
            i += 1
        if i >= n:
            return []
        return [("script", " ".join(argv[i:]), cwd) if prog == "cross-env-shell" else ("argv", argv[i:], cwd)]
    if prog == "xargs":
        i = skip_options(argv, 1, _XARGS_VALUE)
        return [("argv", argv[i:] if i < n else ("echo",), cwd)]
    if prog == "watch":
        i = skip_options(argv, 1, _WATCH_VALUE)
        if i >= n:
            return []
        exec_mode = any(a in ("-x", "--exec") for a in argv[1:i])
        return [("argv", argv[i:], cwd)] if exec_mode else [("script", " ".join(argv[i:]), cwd)]
    if prog == "eval":
        return [("script", " ".join(argv[1:]), cwd)] if n > 1 else []
    return None


def _runner(prog: str, argv: tuple, inputs: list, cwd: str | None) -> list:
    """Shells, find -exec, package and environment runners, python -m."""
    n = len(argv)
    if prog in _SHELLS:
        return _shell_inner(argv, inputs, cwd)
    if prog == "find":
        return _find_exec(argv, cwd)
    if prog in ("npx", "pnpx", "bunx"):
        return _runner_tail(argv, 1, cwd, _NPX_VALUE)
    if prog == "uvx":
        return _runner_tail(argv, 1, cwd, _UV_RUN_VALUE)
    if prog in _SUB_RUNNERS:
        value_opts, verbs, tail, tail_opts = _SUB_RUNNERS[prog]
        i = skip_options(argv, 1, value_opts)
        if i < n and argv[i] in verbs:
            return tail(argv, i + 1, cwd, tail_opts)
        if prog == "uv" and argv[i:i + 2] == ("tool", "run"):
            return _runner_tail(argv, i + 2, cwd, _UV_RUN_VALUE)
        if prog in _BIN_RUNNERS and i < n and argv[i] not in _BIN_RUNNERS[prog]:
            return [("argv", (_pkg_program(argv[i]),) + argv[i + 1:], cwd)]  # `pnpm jest`: a script or a bin
        return []
    if prog == "corepack":
        if n > 1 and argv[1] in ("npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg"):
            return [("argv", argv[1:], cwd)]
        return []
    if _PYTHONS.fullmatch(prog):
        return _python_module(argv, 1, cwd)
    if prog == "php" and n > 1 and program_name(argv[1]) == "artisan":
        return [("argv", ("artisan",) + tuple(argv[2:]), cwd)]  # `php artisan migrate`: Laravel's artisan runs
    return []


_ASKS = frozenset(("--help", "-h", "--version"))  # a runner's own option that only prints


def _runner_tail(argv: tuple, start: int, cwd, value_opts: frozenset):
    """``npx [opts] jest --watch`` → ("argv", ("jest", "--watch")); ``-c "…"``
    → a script."""
    n = len(argv)
    i = start
    while i < n:
        a = argv[i]
        if a in _ASKS:
            return []  # `npx --help jest`: the runner prints its help, nothing runs
        if a in ("-c", "--call") and i + 1 < n:
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
        if argv[i] in _ASKS:
            return []
        i += 2 if argv[i] in value_opts else 1
    if i < n and argv[i] == "-m":
        return _python_module(argv, i, cwd)
    return _runner_tail(argv, i, cwd, value_opts)


# runners with a verb that runs a command: global options, the verbs, how the rest is read, its options
_SUB_RUNNERS = {
    "npm": (_NPM_VALUE, ("exec", "x"), _runner_tail, _NPX_VALUE),
    "bun": (frozenset(("--cwd",)), ("x",), _runner_tail, _NPX_VALUE),
    "pnpm": (_PNPM_VALUE, ("exec", "dlx"), _runner_tail, _NPX_VALUE),
    **dict.fromkeys(("yarn", "yarnpkg"), (_YARN_VALUE, ("exec", "dlx"), _runner_tail, _NPX_VALUE)),
    "uv": (_UV_VALUE, ("run",), _python_module_or_tail, _UV_RUN_VALUE),
    **dict.fromkeys(("poetry", "pipenv", "pdm", "rye", "hatch"),
                    (_POETRY_VALUE, ("run",), _python_module_or_tail, _POETRY_VALUE)),
    "pipx": (frozenset(), ("run",), _runner_tail, frozenset(("--spec", "--python", "--index-url", "--pip-args"))),
    "bundle": (frozenset(), ("exec",), _runner_tail, frozenset(("--gemfile",))),  # `bundle exec rails db:drop`: rails runs
    **dict.fromkeys(("conda", "mamba", "micromamba"), (frozenset(), ("run",), _runner_tail, _CONDA_VALUE)),
}


def _shell_inner(argv: tuple, inputs: list, cwd):
    n = len(argv)
    i = 1
    command_mode = False
    while i < n:
        a = argv[i]
        if a == "--" or a == "-":
            i += 1
            break
        if len(a) < 2 or a[0] not in "-+":
            break
        command_mode |= a not in _SHELL_VALUE and not a.startswith("--") and "c" in a[1:]  # -c, -lc, +c …
        i += 2 if a in _SHELL_VALUE else 1
    if command_mode:
        return [("script", argv[i], cwd)] if i < n else []
    if i < n:
        return []  # a script file
    return [("script", body, cwd) for body in inputs]


def _find_exec(argv: tuple, cwd):
    """``find migrations -name x -exec rm {} +`` → rm runs on paths under
    ``migrations``: ``{}`` becomes ``<start>/{}``."""
    rest = tuple(dropwhile(lambda a: a in ("-H", "-L", "-P") or a.startswith("-O"), argv[1:]))
    start = rest[0] if rest and not rest[0].startswith("-") and rest[0] not in ("(", "!", ")") else "."
    out, i = [], 1
    while i < len(argv):
        if argv[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = next((j for j in range(i + 1, len(argv)) if argv[j] in (";", "+")), len(argv))
            cmd = tuple(a.replace("{}", start.rstrip("/") + "/{}") for a in argv[i + 1:end])
            if cmd:
                out.append(("argv", cmd, cwd))
            i = end
        i += 1
    return out


def _quote(word: str) -> str:
    """Quote a word for re-parsing (env -S tails)."""
    return "'" + word.replace("'", "'\\''") + "'"
