"""Path patterns as guards read them: gitignore-style globs (``**`` any
depth, ``*``/``?`` within one name), anchored at the root when they hold a
slash, absolute or ``~/`` paths read against the whole path."""

from __future__ import annotations

import posixpath
import re

from tacit.guards.wrappers import verb

def glob_regex(pattern: str) -> str:
    """gitignore-style glob → regex body: ``**`` any depth, ``*``/``?`` within
    one name, ``[…]`` a class."""
    out = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**/", i):
                out.append("(?:.*/)?")
                i += 3
                continue
            if pattern.startswith("**", i):
                out.append(".*")
                i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


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


__all__ = ["glob_regex", "compile_pattern", "compile_patterns", "removes"]
