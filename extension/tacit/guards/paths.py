"""Path patterns as guards read them: gitignore-style globs (``**`` any
depth, ``*``/``?`` within one name), anchored at the root when they hold a
slash, absolute or ``~/`` paths read against the whole path; and path
guards compiled (``PathGuard``): which writes they stop."""

from __future__ import annotations

import posixpath
import re
from itertools import takewhile

from tacit.guards.wrappers import program_name, verb

_GLOB = re.compile(r"\*\*/|\*\*|\*|\?|\[.[^]]*\]|.", re.S)  # a class holds at least one character: `[]a]`
_GLOB_AS = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}


def glob_regex(pattern: str) -> str:
    """gitignore-style glob → regex body: ``**`` any depth, ``*``/``?`` within
    one name, ``[…]`` a class (``[!…]`` negated); an unclosed ``[`` is itself."""
    return "".join(_glob_part(m.group()) for m in _GLOB.finditer(pattern))


def _glob_part(token: str) -> str:
    if token in _GLOB_AS:
        return _GLOB_AS[token]
    if len(token) == 1:
        return re.escape(token)
    body = token[1:-1]
    return "[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]"


# a secret file names its environment-specific variants too: ".env" is also
# ".env.local", ".env.production", ".env.test.local" (what tools load as
# secrets), never the templates kept beside it (".env.example", ".env.sample")
# nor the test and CI files that hold fake values (".env.test", ".env.ci")
_SECRET_NAMES = frozenset((".env", "*.env"))
_ENV_VARIANT = (r"(?:(?:\.[\w-]+)*\.local|(?:\.(?:dev|develop|development|prod|production|stage|staging|qa|uat|"
                r"preview|sandbox|demo|docker|override|secret|secrets|private|personal|remote|live))*)")


def _body(p: str) -> str:
    """The regex of a pattern's path, a secret file's variants included."""
    return glob_regex(p) + (_ENV_VARIANT if p.rsplit("/", 1)[-1] in _SECRET_NAMES else "")


# a backup or an editor's copy of a file is another file: `.prettierrc.bak` is no variant of `.prettierrc`
_BACKUPS = (".bak", ".orig", ".old", ".swp", ".swo", ".backup", ".rej", "~")
_NOT_BACKUP = "".join(rf"(?<!{re.escape(s)})" for s in _BACKUPS)


# folders holding generated or third-party copies: a name at any depth ("dist/") is not looked for inside them,
# unless the rule names such a folder itself ("never edit node_modules/")
_NOT_OURS = frozenset(("node_modules", ".git", ".venv", "venv", "__pycache__", ".cache", "site-packages"))
_OUR_FOLDERS = "(?:^(?:(?!(?:%s)/)[^/]+/)*)" % "|".join(map(re.escape, sorted(_NOT_OURS)))


def compile_patterns(patterns, home: str | None = None) -> list:
    """A guard's patterns compiled; ``X.*`` beside ``X`` (``.eslintrc`` and its
    derived ``.eslintrc.*``: the file's config variants, ``.eslintrc.json``) leaves
    out backups (``.eslintrc.bak``, ``.eslintrc.json~``); a glob written alone covers them."""
    given = frozenset(patterns)
    return [c for c in (compile_pattern(p, home, variants=p.endswith(".*") and p[:-2] in given
                                        and not any(ch in p[:-2] for ch in "*?["))
                        for p in patterns) if c]


def compile_pattern(pattern: str, home: str | None = None, *, variants: bool = False):
    """A path pattern → ("rel", regex) read against the path below the root,
    or ("abs", regex) read against the absolute path; None when unusable
    (empty, ``..``, ``~`` without a home). ``variants``: ``X.*`` as the
    variants of ``X``, backups left out."""
    p = pattern.strip() if isinstance(pattern, str) else ""
    if not p or "\0" in p:
        return None
    if p.startswith("~/"):
        if not home:
            return None
        p = home.rstrip("/") + p[1:]
    tail = (_NOT_BACKUP if variants else "") + "(?:/|$)"
    if p.startswith("/"):
        return "abs", re.compile("^" + _body(posixpath.normpath(p)) + tail)
    anchored = p.startswith("./") or "/" in p.rstrip("/")
    p = p.rstrip("/")
    while p.startswith("./"):
        p = p[2:]
    p = p.lstrip("/")
    if not p or p == "." or ".." in p.split("/"):
        return None
    lead = "^" if anchored else "(?:^|/)" if p in _NOT_OURS else _OUR_FOLDERS
    return "rel", re.compile(lead + _body(p) + tail)


def _below(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` when inside it ("" for the root itself)."""
    if root == "/":
        return path[1:]
    if path == root:
        return ""
    if path.startswith(root) and path[len(root)] == "/":
        return path[len(root) + 1:]
    return None


_DELETERS = frozenset(("rm", "rmdir", "unlink", "shred", "srm"))


def removes(argv: tuple, path: str, ops: tuple) -> bool:
    """Whether ``argv`` deletes ``path`` (``rm``, ``git rm`` …) or renames it
    away (``mv``/``git mv`` with ``path`` as a source, not the destination)."""
    if not argv:
        return False
    prog, words = verb(argv)
    if prog in _DELETERS or prog == "git rm" or prog == "find":  # find writes only with -delete
        return "delete" in ops
    if prog in ("mv", "git mv") and "rename" in ops:
        pos = [a for a in words if not a.startswith("-")]
        dest = posixpath.normpath(pos[-1]) if len(pos) >= 2 else None
        return dest is None or not (path == dest or path.endswith("/" + dest.lstrip("./")))
    return False


class PathGuard:
    """A compiled ``PathMatch``, ``RemoveMatch`` or ``CommitPathMatch`` placed at ``root`` (None: global)."""

    __slots__ = ("compiled", "root", "top", "prefixes", "ops", "existing")

    def __init__(self, match, root: str | None, home: str | None):
        self.compiled = compile_patterns(match.patterns, home)
        self.root = root
        # the patterns anchored at the root (``src/gen/``), which a subfolder's
        # file may write from the repository's root (``packages/web/src/gen/``)
        self.top = tuple(c for c in self.compiled if c[0] == "rel" and c[1].pattern.startswith("^"))
        self.prefixes = tuple(filter(None, map(_fixed_prefix, match.patterns)))
        self.ops = getattr(match, "ops", None)
        self.existing = "existing" if getattr(match, "existing", False) else \
            "new" if getattr(match, "new_only", False) else ""

    def base(self, call) -> str | None:
        """The folder relative patterns are read from: the guard's, else the call's project or folder."""
        return self.root if self.root is not None else (call.project_root or call.cwd)

    def names(self, path: str, base: str | None, call) -> bool:
        """Whether a pattern read from ``base`` matches ``path``; or, for a guard placed below the
        project's root (a subfolder's instruction file), an anchored one read from the project's root
        names a path inside the guard's folder: ``packages/bot/.env`` in ``packages/bot/AGENTS.md``."""
        if _path_fires(path, base, self.root is not None, self.compiled):
            return True
        root, project = self.root, call.project_root
        return bool(self.top) and root is not None and project is not None and root.startswith(project) \
            and root != project and _below(path, root) is not None and _path_fires(path, project, True, self.top)

    def fires(self, write, call) -> bool:
        """Whether a write (a path, the argv that changes it) breaks the guard."""
        if self.ops and not removes(write.argv, write.path, self.ops):
            return False  # a remove guard: only a command that deletes or renames the path
        if self.existing and (self.existing == "new") == _changes_existing(write, call):
            return False  # "existing files": a new one may be created; "new files": the reverse
        base = self.base(call)
        return self.names(write.path, base, call) or bool(self.prefixes) and _takes_parent(write, base, self.prefixes)


def _path_fires(path: str, rel_root: str | None, must_be_inside: bool, compiled: list) -> bool:
    rel = _below(path, rel_root) if rel_root else None
    if must_be_inside and rel is None:
        return False
    for mode, regex in compiled:
        if mode == "abs":
            if regex.search(path):
                return True
        elif rel is not None and rel and regex.search(rel):
            return True
    return False


# programs whose writes change a file that is there (a new one is not made by them)
_MODIFIERS = frozenset(("sed", "perl", "rm", "rmdir", "unlink", "shred", "srm", "truncate", "git", "find"))


def _changes_existing(write, call) -> bool:
    """Whether a write changes a file that exists: an edit tool's (not a
    Write's or a patch's Add File), ``sed -i``, ``rm``, a ``mv`` source …;
    else (``>``, ``tee``, ``cp``, Write) what ``call.exists`` says, and no
    when the caller cannot look."""
    if write.argv:
        prog = program_name(write.argv[0])
        if prog in _MODIFIERS or prog == "mv" and removes(write.argv, write.path, ("rename",)):
            return True
    elif write.path not in call.made:
        return True
    if call.exists is None:
        return False
    try:
        return bool(call.exists(write.path))
    except Exception:  # noqa: BLE001 - a failing look counts as there: the guard still checks
        return True


def _fixed_prefix(pattern: str) -> str | None:
    """The folders an anchored pattern names before any glob: ``docs/images/``
    → ``docs/images``, ``src/gen/*.ts`` → ``src/gen``; None when unanchored."""
    p = pattern.strip()
    while p.startswith("./"):
        p = p[2:]
    if not p or p.startswith(("/", "~")) or "/" not in p.rstrip("/"):
        return None
    fixed = takewhile(lambda part: part and part != ".." and not any(c in part for c in "*?["), p.rstrip("/").split("/"))
    return "/".join(fixed) or None


_TREE_FLAGS = frozenset(("-r", "-R", "--recursive"))


def _takes_parent(write, rel_root: str | None, prefixes: tuple) -> bool:
    """``rm -rf docs`` (or ``mv docs old``, ``git rm -r docs``) takes a
    guarded ``docs/images/`` with it: a recursive delete or a move of a folder
    above a guarded path."""
    argv = write.argv
    if not argv or rel_root is None:
        return False
    rel = _below(write.path, rel_root)
    if rel is None:
        return False
    prog, words = verb(argv)
    if prog in ("rm", "git rm"):
        tree = any(w in _TREE_FLAGS or len(w) > 1 and w[0] == "-" and w[1] != "-" and ("r" in w or "R" in w)
                   for w in words)
    elif prog in ("mv", "git mv"):
        tree = removes(argv, write.path, ("rename",))  # a source, not the destination
    else:
        tree = prog == "find"  # find DIR -delete
    if not tree:
        return False
    return not rel or any(p == rel or p.startswith(rel + "/") for p in prefixes)
