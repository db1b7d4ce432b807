"""Reading a guarded file (``ReadMatch``): a host's read tool on it, or a command whose argv reads
it — ``cat``/``less``/``head``…, the files after ``grep``/``rg``/``sed``/``awk``/``jq``'s pattern,
the sources of ``cp``/``mv``, ``source``/``.``, a ``< file`` redirection (docs/guards.md, "Reads").
"""

from __future__ import annotations

import posixpath
from fnmatch import fnmatchcase

from tacit.guards.paths import _below
from tacit.guards.shell import DYN, Invocation, display

# host tools that hand a file's text to the model: Claude Code Read/Grep/NotebookRead, pi read/grep,
# Hermes read_file/search_files (Codex reads through its shell)
READ_TOOLS = frozenset(("read", "read_file", "notebookread", "grep", "search_files"))
READ_KEYS = ("file_path", "notebook_path", "path", "filename", "file")

# every positional word is a file whose text the program shows
_SHOWS = frozenset(("cat", "tac", "nl", "less", "more", "most", "head", "tail", "bat", "batcat", "view", "vi", "vim",
                    "nvim", "nano", "emacs", "xxd", "od", "hexdump", "strings", "base64", "diff", "sort", "uniq",
                    "cut", "column", "fold", "paste", "pr", "expand", "iconv"))
# the first positional is a pattern or a script (unless an option gave it), the files follow
_PATTERN_FIRST = frozenset(("grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "mawk", "jq", "yq"))
_PATTERN_OPTS = frozenset(("-e", "--regexp", "-f", "--file", "--expression", "--from-file"))
# options whose value is the next word (never a file read), per program
_GREP_VALUES = frozenset(("-A", "-B", "-C", "-m", "-d", "-D", "--max-count", "--context"))
_VALUE_OPTS = {"head": frozenset(("-n", "-c")), "tail": frozenset(("-n", "-c")), "cut": frozenset(("-d", "-f", "-c", "-b")),
               "sort": frozenset(("-k", "-t", "-o", "-S", "-T")), "awk": frozenset(("-F", "-v")),
               "bat": frozenset(("-l", "--language", "-r", "--line-range")), "xxd": frozenset(("-s", "-l", "-c", "-g")),
               "rg": _GREP_VALUES | {"-g", "-t", "-T", "-j", "-M", "-E", "--glob", "--iglob", "--type", "--type-not"},
               "jq": frozenset(("--arg", "--argjson", "--slurpfile", "--rawfile", "--indent")),
               **dict.fromkeys(("grep", "egrep", "fgrep", "ag", "ack"), _GREP_VALUES)}
_COPIES = frozenset(("cp", "mv", "scp", "rsync", "install"))  # the sources: every positional but the last
_LOADS = frozenset(("source", "."))  # the first positional; loading shows no text


def shell_reads(inv: Invocation, shows_only: bool) -> list[str]:
    """The absolute paths an invocation's argv reads (none when its folder is not known)."""
    prog = inv.program
    if inv.cwd is None or not inv.cwd_exact or prog not in _SHOWS | _PATTERN_FIRST | _COPIES | _LOADS \
            or shows_only and prog in _LOADS or prog == "sed" and any(a.startswith(("-i", "--in-place")) for a in inv.argv):
        return []  # `sed -i` changes the file (a path guard's), showing nothing
    values = _VALUE_OPTS.get(prog, frozenset()) | (_PATTERN_OPTS if prog in _PATTERN_FIRST else frozenset())
    words, pattern_given, i, n = [], False, 1, len(inv.argv)
    while i < n:
        a = inv.argv[i]
        if a == "--":
            words.extend(inv.argv[i + 1:])
            break
        if len(a) > 1 and a[0] == "-":
            pattern_given = pattern_given or prog in _PATTERN_FIRST and a.split("=", 1)[0] in _PATTERN_OPTS
            i += 2 if a in values else 1
            continue
        words.append(a)
        i += 1
    if prog in _PATTERN_FIRST and not pattern_given:
        words = words[1:]
    elif prog in _COPIES:
        words = words[:-1]
    elif prog in _LOADS:
        words = words[:1]
    return [posixpath.normpath(posixpath.join(inv.cwd, w)) for w in words
            if w and DYN not in w and not w.startswith("~")]


def read_hit(paths, match, call) -> tuple | None:
    """(subject, path, said as a command) of the first read of the call that ``paths`` (a compiled
    ``PathGuard``) names, or None. ``call.reads``: a read tool's files and ``<`` redirections."""
    base = paths.base(call)
    if base is None:
        return None
    for read in call.reads:
        if paths.names(read.path, base, call):
            if read.redirect:
                return f"{display(read.argv, 60)} {display((read.redirect,), 60)}", read.path, True
            return _below(read.path, base) or read.path, read.path, False
    names = [p for p in match.patterns if "/" not in p and not any(c in p for c in "*?[")]
    for inv in call.invocations:
        for path in shell_reads(inv, match.shows_only):
            if any(paths.names(p, base, call) for p in _globbed(path, names)):
                return display(inv.argv), path, True
    return None


def _globbed(path: str, names: list) -> list:
    """The path, and for a glob the shell expands (``cat .env*``) the guarded names it would take in its folder
    (a name starting with a dot only for a glob that does too, as the shell expands them)."""
    folder, glob = posixpath.split(path)
    if not any(c in glob for c in "*?["):
        return [path]
    return [path] + [posixpath.join(folder, n) for n in names if fnmatchcase(n, glob) and (glob[:1] == ".") == (n[:1] == ".")]
