"""A ``CommandMatch`` compiled against argv: program families, subcommand and
flag aliases, global options, and the forms that only ask (``--help``,
``--version``, a dry run, a read-only verb) and never fire.

Design notes: docs/design/guards.md#tacitguardsmatch
"""

from __future__ import annotations

import re
from functools import lru_cache

from tacit.guards.model import CommandMatch
from tacit.guards.push import GIT_VALUE_OPTS
from tacit.guards.shell import program_name, skip_options
from tacit.guards.wrappers import (_SUDO_VALUE, _NPM_VALUE, _PNPM_BUILTINS, _PNPM_VALUE, _POETRY_VALUE, _PYTHON_VALUE, _UV_VALUE,
                                   _YARN_BUILTINS, _YARN_VALUE)
from tacit.lazyre import lazy

# ---------------------------------------------------------------------------
# Tables: program families, subcommand and flag aliases, global options
# ---------------------------------------------------------------------------
_ALIAS_OF = {"docker-compose": "docker", "podman-compose": "podman", "nodejs": "node",
             "yarnpkg": "yarn", "pip3": "pip", "pip2": "pip", "sudoedit": "sudo",
             "terraform.exe": "terraform", "opentofu": "tofu"}
_MINOR = re.compile(r"(.*?\d+)\.\d+")


@lru_cache(maxsize=4096)
def program_names(program: str) -> tuple[str, ...]:
    """The names a program answers to: itself, its major version
    (``python3.12`` → ``python3``), its family (``pip3`` → ``pip``)."""
    names = [program]
    m = _MINOR.fullmatch(program)
    if m:
        names.append(m.group(1))
    for name in list(names):
        if name in _ALIAS_OF:
            names.append(_ALIAS_OF[name])
    return tuple(dict.fromkeys(names))


def _aliases(table: dict) -> dict[tuple[str, str], frozenset]:
    """(program, word) -> every word of its group."""
    return {(prog, w): frozenset(group) for prog, groups in table.items() for group in groups for w in group}


_SUB_ALIASES = _aliases({
    "npm": (("install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal",
             "isntall", "add"),
            ("ci", "clean-install", "ic", "install-clean", "isntall-clean"),
            ("uninstall", "unlink", "remove", "rm", "r", "un"),
            ("run", "run-script", "rum", "urn"), ("test", "t", "tst"),
            ("update", "up", "upgrade", "udpate"), ("exec", "x"), ("publish",)),
    "pnpm": (("install", "i"), ("remove", "rm", "uninstall", "un"), ("update", "up", "upgrade"),
             ("run", "run-script"), ("test", "t", "tst"), ("list", "ls")),
    "yarn": (("remove",), ("upgrade", "up")),
    "bun": (("install", "i"), ("remove", "rm"), ("update",)),
    "cargo": (("build", "b"), ("run", "r"), ("test", "t"), ("check", "c"), ("doc", "d")),
    "docker": (("rm", "container rm"), ("rmi", "image rm")),
    "kubectl": (("delete",),),
})
_FLAG_ALIASES = _aliases({
    "rm": (("-r", "-R", "--recursive"), ("-f", "--force")),
    "git": (("-f", "--force"), ("-d", "--delete"), ("-D",), ("--hard",), ("-A", "--all"),
            ("--amend",)),
    "npm": (("-g", "--global"), ("-f", "--force")),
    "pnpm": (("-g", "--global"),),
    "bun": (("-g", "--global"),),
    "docker": (("-a", "--all"), ("-f", "--force"), ("-v", "--volumes")),
    "terraform": (("-auto-approve", "--auto-approve"),),
    "cargo": (("-p", "--package"),),
    "gh": (("-a", "--approve"), ("-r", "--request-changes")),
})

_GLOBAL_VALUE = {
    "git": GIT_VALUE_OPTS,
    "npm": _NPM_VALUE,
    "pnpm": _PNPM_VALUE,
    "yarn": _YARN_VALUE,
    "docker": frozenset(("-H", "--host", "--context", "-c", "--config", "-l", "--log-level",
                         "-f", "--file", "-p", "--project-name", "--env-file", "--profile",
                         "--project-directory")),
    "podman": frozenset(("--connection", "--url", "--root", "--runroot", "--storage-driver",
                         "--log-level")),
    "kubectl": frozenset(("-n", "--namespace", "--context", "--kubeconfig", "-s", "--server",
                          "--cluster", "--user", "--token", "-o", "--output")),
    "helm": frozenset(("-n", "--namespace", "--kube-context", "--kubeconfig")),
    "terraform": frozenset(("-chdir",)),
    "cargo": frozenset(("-Z", "--config", "-C", "--color", "--manifest-path")),
    "go": frozenset(("-C",)),
    "make": frozenset(("-C", "-f", "--file", "--directory", "-I", "--include-dir", "-o", "-W",
                       "--old-file", "--what-if", "-j", "--jobs", "-l", "--load-average")),
    "uv": _UV_VALUE | {"-p", "--python"},
    "poetry": _POETRY_VALUE,
    "python": _PYTHON_VALUE,
    "pip": frozenset(("--python", "--log", "--cache-dir", "--proxy", "--timeout", "--retries")),
}
_VERSION_VALUE = frozenset(("--preid", "-m", "--message", "-w", "--workspace"))  # `npm version --preid rc`: no bump
# options of one subcommand that take the next word as their value (`git merge -m "msg" main`: main is the branch)
_SUB_VALUE = {
    "git": {"merge": frozenset(("-m", "-F", "--file", "-s", "--strategy", "-X", "--strategy-option", "--cleanup",
                                "--into-name")),
            "pull": frozenset(("-s", "--strategy", "-X", "--strategy-option", "--depth", "--cleanup")),
            "commit": frozenset(("-m", "--message", "-F", "--file", "-C", "--reuse-message", "-c", "--reedit-message",
                                 "--author", "--date", "--cleanup", "-t", "--template", "--fixup", "--squash",
                                 "--trailer", "--pathspec-from-file")),
            "tag": frozenset(("-m", "--message", "-F", "--file", "-u", "--local-user", "--cleanup")),
            "stash": frozenset(("-m", "--message")),
            "cherry-pick": frozenset(("-m", "--mainline", "-s", "--strategy", "-X", "--strategy-option")),
            "revert": frozenset(("-m", "--mainline", "-s", "--strategy", "-X", "--strategy-option")),
            "clean": frozenset(("-e", "--exclude")),
            "clone": frozenset(("-b", "--branch", "-o", "--origin", "--depth", "--reference", "-u", "--upload-pack")),
            "fetch": frozenset(("--depth", "--deepen", "--shallow-since", "--shallow-exclude", "-j", "--jobs"))},
    "pip": {"install": frozenset(("-r", "--requirement", "-c", "--constraint", "-i", "--index-url",
                                  "--extra-index-url", "-t", "--target", "--prefix", "--root", "-f", "--find-links",
                                  "--platform", "--python-version", "--src", "--upgrade-strategy", "--no-binary",
                                  "--only-binary", "--implementation", "--abi"))},
    "npm": {**{w: frozenset(("--omit", "--include", "--tag", "--save-prefix", "--install-strategy"))
               for w in _SUB_ALIASES[("npm", "install")]}, "version": _VERSION_VALUE},
    "pnpm": {"version": _VERSION_VALUE},
    "cargo": {"add": frozenset(("-F", "--features", "--rename", "--registry", "--path", "--git", "--branch", "--tag",
                                "--rev", "-p", "--package", "--target"))},
}
# commands whose last words are a list of things alike (packages, branches, files): the one a rule names may be any
_LIST_PROGRAMS = frozenset(("rm", "rmdir", "unlink", "shred"))
_LIST_SUBS = frozenset(("install", "i", "add", "remove", "uninstall", "rm", "un", "get", "merge", "upgrade", "update",
                        "up"))
_TARGET_RUNNERS = frozenset(("make", "gmake", "just", "rake", "task", "mage", "ninja"))
_INFO_ALONE = frozenset(("--version", "-V", "--help", "-h", "-help", "--usage"))
# "-v" alone is the version for these; for others (pytest, unittest, rsync) it is "verbose"
_V_IS_VERSION = frozenset(("npm", "pnpm", "yarn", "bun", "node", "deno", "npx", "docker", "podman",
                           "terraform", "tofu", "make", "gmake", "jest", "vitest", "vite", "tsc"))
# dry-run spellings a program has besides --dry-run
_DRY_RUN = {"make": frozenset(("-n", "--just-print", "--recon")), "gmake": frozenset(("-n",)),
            "rsync": frozenset(("-n",))}
# git's -n is a dry run only for these (``git commit -n`` skips the hooks, ``git log -n 3`` counts)
_GIT_DRY_N = frozenset(("clean", "add", "rm", "mv", "push", "prune", "stash"))
# "-h" anywhere asks these for help (``psql -h``, ``docker run -h``, ``ls -h`` mean something else)
_H_IS_HELP = frozenset(("git", "npm", "pnpm", "yarn", "npx", "bun", "cargo", "kubectl", "terraform", "tofu",
                        "helm", "gh", "pip", "uv", "poetry", "pulumi", "rustup", "make", "gmake"))
# git's acts of several steps: ``--abort`` / ``--quit`` leave one, they do nothing the rule forbids
_GIT_UNDOABLE = frozenset(("rebase", "merge", "cherry-pick", "revert", "am", "bisect"))
_NOT_DRY = frozenset(("none", "false", "0", "no", "off"))  # kubectl --dry-run=none runs for real
# "never use `git stash`": its read-only verbs (``git stash list``) put nothing away
_READ_ONLY_NEXT = {("git", "stash"): frozenset(("list", "show")), ("git", "worktree"): frozenset(("list",)),
                   ("git", "remote"): frozenset(("show", "get-url")),
                   ("git", "submodule"): frozenset(("status", "summary"))}
# commands that only print unless a further word says what to do: a bare ``npm version`` (or with
# ``--json``) prints the versions; ``npm version patch`` bumps. Not yarn: v1's bare ``yarn version`` asks and bumps
_ACTS_WITH_ARG = frozenset((("npm", "version"), ("pnpm", "version")))


def _is_info(argv: tuple, program: str) -> bool:
    """``npm --version``, ``pip -V``, ``jest --help``, ``npm help install``,
    ``terraform apply -help``, ``cargo publish --dry-run``, ``make -n deploy``,
    ``git clean -fdn``: nothing changes."""
    if len(argv) == 2 and (argv[1] in _INFO_ALONE or argv[1] == "-v" and program in _V_IS_VERSION):
        return True
    if len(argv) >= 2 and argv[1] == "help":
        return True
    if program == "git" and ("--abort" in argv or "--quit" in argv) and _git_sub(argv) in _GIT_UNDOABLE:
        return True  # `git rebase --abort`: the act is undone, not done
    dry = _DRY_RUN.get(program, ())
    h_help = program in _H_IS_HELP
    for a in argv[1:]:
        if a == "--":
            break
        if a == "--help" or a == "-help" or a in dry or h_help and a == "-h":
            return True
        if a.startswith("--dry-run") and (a == "--dry-run" or a[9:10] == "=" and a[10:].lower() not in _NOT_DRY):
            return True
        if program == "git" and "n" in a and len(a) > 1 and a[0] == "-" and a[1] != "-" and a[1:].isalpha() \
                and _git_sub(argv) in _GIT_DRY_N:
            return True
    return False


def _acts_on(argv: tuple, repo: str) -> bool:
    """``gh … --repo me/fork`` acts on me/fork: ``repo`` (``owner/name``, or a name alone) when the
    value names it — a URL or ``HOST/OWNER/NAME`` is read by its last parts — or when none is given."""
    for j, a in enumerate(argv[1:], 1):
        if a == "--":
            break
        value = (argv[j + 1] if j + 1 < len(argv) else "") if a in ("--repo", "-R") else \
            a[7:] if a.startswith("--repo=") else a[2:] if a.startswith("-R") else None
        if value is not None:
            parts = value.lower().removesuffix(".git").rstrip("/").split("/")
            return "/".join(parts[-2:] if "/" in repo else parts[-1:]) == repo
    return True


def _git_sub(argv: tuple) -> str | None:
    i = skip_options(argv, 1, GIT_VALUE_OPTS)
    return argv[i] if i < len(argv) else None


def _git_no_verify(argv: tuple) -> bool:
    """``git commit -n`` is ``git commit --no-verify`` (for push, -n is a dry run)."""
    return _git_sub(argv) == "commit" and _has_flag(argv, *_flag_forms("git", "-n"))


def _git_force_delete(argv: tuple) -> bool:
    """``git branch -D`` is also ``-d -f``, ``--delete --force``, ``-df``."""
    return _has_flag(argv, *_flag_forms("git", "-d")) and _has_flag(argv, *_flag_forms("git", "-f"))


def _git_add_all(argv: tuple) -> bool:
    """``git add -A`` is also ``--all``, ``git add .`` and ``git add :/``."""
    words = argv[1:]
    return "add" in words and any(w in (".", "./", ":/", ":.", "*") for w in words[words.index("add") + 1:])


# flags that other spellings state as well: (program, flag) -> another test of argv
_FLAG_ALSO = {("git", "-D"): _git_force_delete, ("git", "-A"): _git_add_all, ("git", "--no-verify"): _git_no_verify}
_COMPOSE = frozenset(("docker-compose", "podman-compose"))
# programs that print, search or show words: a flag among their arguments runs nothing
_SAYS_ONLY = frozenset(("echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "cat", "less", "more", "man",
                        "which", "type", "head", "tail", "sed", "awk", "jq", "command", "help", "whatis", "apropos"))
# runners of a project's Python environment, whose python is the python3 it was made with
_ENV_RUNNERS = frozenset(("uv", "poetry", "pipenv", "pdm", "rye", "hatch"))
_BY_NAME_VIA = _ENV_RUNNERS | frozenset(("python", "python3"))
_VENV_PYTHON = lazy(r"(?:^|/)\.?(?:venv|virtualenv|env)[\w.-]*/bin/python$")


class _Prefix(str):
    """A word said with a trailing ``*`` (`make secrets-*`): every word it begins."""

    def __contains__(self, word) -> bool:
        return isinstance(word, str) and word.startswith(str(self))


def _position(prog: str, word: str):
    """The words one place of the command takes: the word and its aliases, or a ``secrets-*`` prefix."""
    return _Prefix(word[:-1]) if word.endswith("*") else _SUB_ALIASES.get((prog, word), frozenset((word,)))


class _Command:
    """A compiled ``CommandMatch``."""

    __slots__ = ("positions", "flags", "allow_info", "value_opts", "anywhere", "program", "also", "bare", "read_only",
                 "unless", "venv_ok", "under", "on", "not_via", "to_file", "placed", "by_name", "sub_value", "list_tail",
                 "packages", "script", "needs_arg", "repo")

    def __init__(self, match: CommandMatch, program: str, instead: str | None = None):
        prog = program_names(program)[-1]  # the family: pip3 → pip
        base = _MINOR.sub(r"\1", prog).rstrip("0123456789")  # python3.12 → python
        subcommands = match.subcommands
        # `pnpm run test` is `pnpm test`: a script the tool also runs by its name alone
        self.script = prog in _SCRIPT_RUNNERS and bool(subcommands) and _by_name(prog, subcommands[
            1 if subcommands[0] in _RUN_SCRIPT and len(subcommands) > 1 else 0])
        if self.script and subcommands[0] in _RUN_SCRIPT:
            subcommands = subcommands[1:]
        self.positions = tuple(_position(prog, w) for w in subcommands)
        self.flags = tuple(_flag_forms(prog, f) for f in match.flags)
        self.allow_info = match.allow_info
        self.value_opts = _GLOBAL_VALUE.get(prog, _GLOBAL_VALUE.get(base, frozenset()))
        self.anywhere = prog in _TARGET_RUNNERS
        self.sub_value = _SUB_VALUE.get(prog, _SUB_VALUE.get(base, {}))
        subs = match.subcommands
        self.list_tail = (len(subs) == 1 and prog in _LIST_PROGRAMS) or (len(subs) == 2 and subs[0] in _LIST_SUBS)
        self.packages = self.list_tail and len(subs) == 2 and subs[0] != "merge"  # `lodash@4` is lodash
        self.program = prog
        self.also = tuple(_FLAG_ALSO.get((prog, f)) for f in match.flags)
        self.bare = match.bare and not match.flags
        self.unless = tuple(_flag_forms(prog, f) for f in match.unless)
        self.read_only = (_READ_ONLY_NEXT.get((prog, match.subcommands[-1])) if match.subcommands and match.allow_info
                          and not self.anywhere else None)
        # "never run `pnpm version`": a bare `pnpm version` only prints
        self.needs_arg = (match.allow_info and not self.anywhere and not self.list_tail and not self.bare
                          and bool(match.subcommands) and (prog, match.subcommands[-1]) in _ACTS_WITH_ARG)
        # "use python3, not python": a virtualenv's bin/python is the python3 it was made from
        self.venv_ok = program == "python" and (instead or "").split(" ")[0].startswith("python3")
        # where and how it runs ("in `ui/`", "on `tasks/`", "through uv"): read by the matcher with the invocation
        self.under = tuple(u.strip("/") for u in match.under)
        self.on = tuple(u.strip("/") for u in match.on)
        self.not_via = frozenset(match.not_via)
        self.to_file = match.to_file
        self.by_name = match.by_name  # "bare `pytest`": not `.venv/bin/pytest`, `uv run pytest`, `python -m pytest`
        if self.venv_ok and not self.not_via:  # `uv run python`: the project environment's python3
            self.not_via = _ENV_RUNNERS
        elif self.by_name and not self.not_via:  # a module run is judged as the python that runs it
            self.not_via = _BY_NAME_VIA
        self.placed = bool(self.under or self.on or self.not_via or self.to_file)
        self.repo = match.repo.lower()

    def matches(self, argv: tuple) -> bool:
        if self.program == "*" and program_name(argv[0]) in _SAYS_ONLY:
            return False  # `echo --rerun-tasks`, `grep -r -- --rerun-tasks .`: the flag is only said
        if self.allow_info and _is_info(argv, self.program):
            return False
        if self.venv_ok and _VENV_PYTHON.search(argv[0]) or self.by_name and "/" in argv[0]:
            return False
        if self.repo and not _acts_on(argv, self.repo):
            return False
        positions = self.positions
        if self.script:
            argv = _without_run(argv, self.value_opts)
        if positions and "compose" in positions[0] and program_name(argv[0]) in _COMPOSE:
            positions = positions[1:]  # docker-compose down = docker compose down
        if self.bare and len(argv) != 1 + len(positions):
            return False  # "a bare `pnpm test`": with arguments it is another command
        if positions and not self._positions_match(argv, positions):
            return False
        for (forms, letters), also in zip(self.flags, self.also):
            if not _has_flag(argv, forms, letters) and not (also is not None and also(argv)):
                return False
        return not any(_has_flag(argv, forms, letters) for forms, letters in self.unless)

    def _positions_match(self, argv: tuple, positions: tuple) -> bool:
        want = len(positions)
        more = self.read_only is not None or self.needs_arg
        found = _positionals(argv, self.value_opts, 64 if self.anywhere or self.list_tail else want + more,
                             self.sub_value)
        if self.anywhere:
            return all(any(w in pos for w in found) for pos in positions)
        if self.list_tail:  # `npm install react lodash`: the package named is any of the list
            last = positions[-1]
            return len(found) >= want and all(w in pos for w, pos in zip(found, positions[:-1])) and \
                any(w in last or self.packages and _package(w) in last for w in found[want - 1:])
        if len(found) < want + self.needs_arg or not all(word in pos for word, pos in zip(found, positions)):
            return False
        # `git stash list`: the rule's command, only looked at
        return not (self.read_only is not None and len(found) > want and found[want] in self.read_only)


_SCRIPT_RUNNERS = frozenset(("npm", "pnpm", "yarn"))  # not bun: `bun test` is its own test runner, not the script
_RUN_SCRIPT = frozenset(("run", "run-script"))
_NPM_BY_NAME = frozenset(("test", "t", "tst", "start", "stop", "restart"))


def _by_name(prog: str, script: str) -> bool:
    """Whether ``prog <script>`` runs the package.json script ``script``, as ``prog run <script>`` does."""
    if prog == "npm":
        return script in _NPM_BY_NAME
    builtins = _PNPM_BUILTINS if prog == "pnpm" else _YARN_BUILTINS
    return script in ("test", "start") or (script not in builtins and not script.startswith("-"))


def _without_run(argv: tuple, value_opts: frozenset) -> tuple:
    """``pnpm run test`` → ``pnpm test`` (the word ``run`` before a script's name)."""
    i = skip_options(argv, 1, value_opts)
    return argv[:i] + argv[i + 1:] if i + 1 < len(argv) and argv[i] in _RUN_SCRIPT else argv


def _package(word: str) -> str:
    """A package named with its version or extras: ``lodash@4`` · ``@types/node@20`` ·
    ``requests==2.31`` · ``uvicorn[standard]`` → its name."""
    at = word.find("@", 1)
    return re.split(r"[=<>!~\[;]", word[:at] if at > 0 else word, maxsplit=1)[0]


def _flag_forms(prog: str, flag: str) -> tuple[frozenset, frozenset]:
    forms = _FLAG_ALIASES.get((prog, flag), frozenset((flag,)))
    letters = frozenset(f[1] for f in forms if len(f) == 2 and f[0] == "-" and f[1] != "-")
    return forms, letters


def _has_flag(argv: tuple, forms: frozenset, letters: frozenset) -> bool:
    for i, a in enumerate(argv[1:], 2):
        if a == "--":
            return "--" in forms  # "never use -- with pnpm test": the separator itself
        if a in forms or i < len(argv) and a[:1] == "-" and f"{a}={argv[i]}" in forms:  # `-f ci.yml` for -f=ci.yml
            return True
        if len(a) > 2 and a[0] == "-":  # `--flag=value`, terraform-style `-flag=value`, a cluster (`-rf`)
            if "=" in a and a.split("=", 1)[0] in forms or letters and a[1:].isalpha() and any(c in letters for c in a):
                return True
    return False


def _positionals(argv: tuple, value_opts: frozenset, limit: int, sub_value: dict) -> list:
    """The words after the program that are no option nor an option's value;
    once the subcommand is read, its own value options (``sub_value``) too."""
    out = []
    i = 1
    n = len(argv)
    while i < n and len(out) < limit:
        a = argv[i]
        if a == "--":
            out.extend(argv[i + 1:i + 1 + limit - len(out)])
            break
        if len(a) > 1 and a[0] == "-" or a.startswith("+") and len(a) > 1:
            i += 2 if a in value_opts else 1
            continue
        out.append(a)
        if len(out) == 1 and sub_value and a in sub_value:
            value_opts = value_opts | sub_value[a]
        i += 1
    return out


# sudo's own questions and housekeeping: nothing runs with raised privileges
_SUDO_ONLY = frozenset(("-l", "--list", "-ll", "-v", "--validate", "-k", "--reset-timestamp", "-K",
                        "--remove-timestamp", "-V", "--version", "-h", "--help", "-L"))


class _Sudo:
    """A compiled ``SudoMatch`` for one program: any use but ``sudo -l``,
    ``sudo -k``, ``sudo -v``, ``sudo --version`` alone; with ``runs``, only running one of them."""

    __slots__ = ("runs",)
    placed = False

    def __init__(self, runs: tuple = ()):
        self.runs = frozenset(runs)

    def matches(self, argv: tuple) -> bool:
        if self.runs:  # `sudo -u root npm i`: the program after sudo's options
            i = skip_options(argv, 1, _SUDO_VALUE)
            return i < len(argv) and not self.runs.isdisjoint(program_names(program_name(argv[i])))
        return len(argv) < 2 or not all(a in _SUDO_ONLY for a in argv[1:])


SUDO = _Sudo()


def sudo_matcher(runs: tuple) -> _Sudo:
    """The compiled ``SudoMatch``: any sudo, or sudo running one of ``runs``."""
    return _Sudo(runs) if runs else SUDO
