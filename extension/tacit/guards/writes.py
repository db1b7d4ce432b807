"""The paths a program's argv changes: ``rm``, ``mv``, ``cp``, ``tee``,
``sed -i``, ``dd of=``, ``git rm``, ``dotnet sln x.sln add`` … (redirections
are the walker's)."""

from __future__ import annotations

from itertools import takewhile

from tacit.guards.code_names import _FILE_EXTS
from tacit.guards.wrappers import _SUDO_VALUE, skip_options, verb


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


def option_values(argv: tuple, names: tuple) -> list:
    """The values ``argv`` gives the options ``names`` (``-o x``, ``--output=x``, ``-ox``), in order."""
    out = []
    for j, a in enumerate(argv[1:], 1):
        for name in names:
            if a == name and j + 1 < len(argv):
                out.append(argv[j + 1])
            elif name.startswith("--") and a.startswith(name + "="):
                out.append(a[len(name) + 1:])
            elif not name.startswith("--") and a.startswith(name) and len(a) > len(name):
                out.append(a[len(name):])
    return out


def _opt_value(argv: tuple, names: tuple) -> str | None:
    return next(iter(option_values(argv, names)), None)


_COPY_VALUE = {
    **dict.fromkeys(("cp", "mv", "ln"), frozenset(("-t", "--target-directory", "-S", "--suffix"))),
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
# programs that change every file they name: the options that take a value
_MAKE_VALUE = frozenset(("-m", "--mode", "-n", "--iterations", "-s", "--size", "-d", "--date", "-r", "--reference", "-t"))
_NAMED_FILES = {**dict.fromkeys(("rm", "rmdir", "unlink", "srm", "sudoedit"), frozenset()),
                **dict.fromkeys(("mkdir", "shred", "touch"), _MAKE_VALUE),
                "truncate": frozenset(("-s", "--size", "-r", "--reference")), "tee": frozenset(("--output-error",))}


def _writes(prog: str, argv: tuple) -> list:
    found = _changed(prog, argv)
    if found and "--help" in argv and "--help" in argv[1:argv.index("--") if "--" in argv else len(argv)]:
        return []  # `rm x --help`, `sed -i … --help`: the help is printed, nothing is changed
    return found


def _changed(prog: str, argv: tuple) -> list:
    if prog in _NAMED_FILES:
        return _positionals(argv, 1, _NAMED_FILES[prog])
    if prog == "sudo":
        i = skip_options(argv, 1, _SUDO_VALUE)
        if any(a in ("-e", "--edit") for a in argv[1:i]):
            return [a for a in argv[i:] if a]
        return []
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
                      or a[:1] == "-" and a[1:2] not in ("-", "e") and "i" in a[1:] for a in argv[1:])
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
    if prog in ("curl", "wget"):
        v = _opt_value(argv, ("-o", "--output") if prog == "curl" else ("-O", "--output-document"))
        return [v] if v and v != "-" else []
    if prog == "find":  # find DIR … -delete
        return list(takewhile(lambda a: not a.startswith("-") and a not in ("(", "!"), argv[1:])) or ["."] \
            if "-delete" in argv else []
    if prog == "git":
        return _git_writes(argv)
    if prog == "dotnet":
        return _dotnet_writes(argv)
    return []


_DOTNET_EDITS = frozenset(("add", "remove"))
_NUGET_EDITS = frozenset(("add", "remove", "update", "enable", "disable"))


def _dotnet_writes(argv: tuple) -> list:
    """The file a dotnet command that edits one names: ``dotnet sln x.sln add p``,
    ``dotnet add x.csproj package y``, ``dotnet nuget add source … --configfile f``."""
    pos = _positionals(argv, 1, frozenset(("-s", "--source", "-n", "--name", "-v", "--version", "-f", "--framework",
                                           "--configfile", "-u", "--username", "-p", "--password", "--solution-folder")))
    if len(pos) >= 3 and pos[0] == "sln" and pos[2] in _DOTNET_EDITS and "." in pos[1]:
        return [pos[1]]
    if len(pos) >= 3 and pos[0] in _DOTNET_EDITS and pos[2] in ("package", "reference") and "." in pos[1]:
        return [pos[1]]
    if len(pos) >= 2 and pos[0] == "nuget" and pos[1] in _NUGET_EDITS:
        found = _opt_value(argv, ("--configfile",))
        return [found] if found else []
    return []


def _short_has(opts: tuple, long: str, letter: str) -> bool:
    return any(a == long or a.startswith("-") and not a.startswith("--") and letter in a[1:] for a in opts)


def _git_writes(argv: tuple) -> list:
    """The working files ``git rm``/``mv``/``restore``/``checkout -- paths`` change."""
    sub, words = verb(argv)
    if sub == "git rm" and "--cached" in words:
        return []  # `git rm --cached x`: out of the index, the file stays
    if sub in ("git rm", "git mv"):
        return _positionals(words, 0)
    if sub == "git restore":
        opts = words[:words.index("--")] if "--" in words else words
        if _short_has(opts, "--staged", "S") and not _short_has(opts, "--worktree", "W"):
            return []  # `git restore --staged x`: the index only, the file stays as it is
        return _positionals(words, 0, frozenset(("-s", "--source")))
    if sub == "git checkout":
        return _checkout_paths(words)
    return []


_CHECKOUT_SWITCHES = frozenset(("-b", "-B", "--orphan", "-p", "--patch", "--detach", "-t", "--track", "-"))


def _checkout_paths(rest: tuple) -> list:
    """The files ``git checkout`` puts back: after ``--``, or the pathspec after a
    tree-ish (``git checkout main src/a.ts``), or words that can only be paths
    (``git checkout src/a.ts``, ``./x``, ``.``); ``git checkout feature/x`` switches."""
    if "--" in rest:
        return list(rest[rest.index("--") + 1:])
    if any(a in _CHECKOUT_SWITCHES or a.startswith(("--orphan=", "--track=")) for a in rest):
        return []
    pos = _positionals(rest, 0, frozenset(("--conflict",)))
    if not pos:
        return []
    return pos if checkout_path(pos[0]) else pos[1:]


def checkout_path(word: str) -> bool:
    """Whether a word of ``git checkout`` (before any ``--``) is a path, not a
    ref: one no branch or tag is spelled like — ``.``, ``./x``, a glob, a
    dot-name, or a known file extension (``src/a.ts``); ``v1.2.3``,
    ``release-1.0`` and ``feature/x`` are refs. The one test of both the
    edit reading and the branch a command line is on."""
    if word in (".", "..") or word.startswith(("./", "../", ":/")) or any(c in word for c in "*?["):
        return True
    name = word.rstrip("/").rsplit("/", 1)[-1]
    ext = name.rsplit(".", 1)[-1].lower() if "." in name.lstrip(".") else ""
    return ext in _FILE_EXTS or (name.startswith(".") and len(name) > 1)  # no ref's part starts with a dot
