"""Tool calls from any host → one shape; guards checked against it.

Design notes: docs/design/guards.md#tacitguardsmatch
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Iterable

from tacit.guards.commands import _SUB_VALUE, _Command, _git_sub, _is_info, program_names, sudo_matcher
from tacit.guards.content import has_file_argument, pipe_fires, sql_fires
from tacit.guards.branch_names import branch_name_fires
from tacit.guards.model import (BranchNameMatch, CommandMatch, CommitMatch, CommitPathMatch, Guard, OptionMatch, PathMatch,
                                MergeMatch, PipeMatch, PushMatch, ReadMatch, RebaseMatch, RemoveMatch, SqlMatch, SudoMatch,
                                SwitchMatch)
from tacit.guards.paths import PathGuard, _below, compile_pattern, glob_regex
from tacit.guards.switches import switch_fires
from tacit.guards.push import SAME, GIT_VALUE_OPTS, push_fires, push_targets, switched_branch
from tacit.guards.rebase import rebase_fires
from tacit.guards.merges import merge_fires, on_branch
from tacit.guards.reads import READ_KEYS, READ_TOOLS, read_hit
from tacit.guards.values import option_fires
from tacit.guards.shell import (DYN, MAX_CHARS, Invocation, Write, display, patch_paths, program_name, scan,
                                skip_options)


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call as guards see it: the programs it runs (shell tools) and
    the absolute paths it writes (edit tools, redirections, ``rm``, …)."""

    tool: str
    cwd: str | None  # the folder the host runs the tool in
    invocations: tuple[Invocation, ...] = ()
    writes: tuple[Write, ...] = ()
    project_root: str | None = None  # the project the call belongs to (global guards read relative paths from it)
    branch: str | None = None  # the current git branch, when the caller knows it
    remotes: frozenset | None = None  # the project's git remotes (a push guard's name that is one is a remote)
    made: frozenset = frozenset()  # paths an edit tool may create (Write, a patch's Add File)
    exists: Any = None  # path -> bool, when the caller may look (for "existing files" guards)
    upstream: str | None = None  # the remote a push naming none goes to from ``branch``, when the caller knows it
    reads: tuple[Write, ...] = ()  # the files a read tool reads, and a command line's ``<`` redirections
    cut: bool = False  # part of the call was too long to read (``Scan.cut``): no guard could see it


@dataclass(frozen=True, slots=True)
class Hit:
    """A guard that fires, and what it fired on: ``subject`` is the command
    (one short line) or, for an edit tool, the file (relative to the root);
    ``path`` the absolute path for path guards; ``command`` whether the
    subject is a command line."""

    guard: Guard
    subject: str
    path: str | None = None
    command: bool = True


# ---------------------------------------------------------------------------
# Host tool calls → Call
# ---------------------------------------------------------------------------
_SHELL_TOOLS = frozenset(("bash", "terminal", "shell", "exec_command", "local_shell",
                          "container.exec", "shell_command", "run_shell_command"))
_EDIT_TOOLS = frozenset(("edit", "write", "multiedit", "notebookedit", "write_file", "patch",
                         "apply_patch"))
_PATH_KEYS = ("file_path", "notebook_path", "path", "filename", "file")
_PATCH_KEYS = ("input", "patch", "command", "content")
_WORKDIR_KEYS = ("workdir", "cwd", "working_directory", "dir")
_PATCH_TOOLS = frozenset(("patch", "apply_patch"))  # a whole patch in one argument, its files inside it
_CREATING_TOOLS = frozenset(("write", "write_file"))  # create or overwrite: whether the file exists is not said


def normalize_call(tool_name: Any, args: Any, cwd: Any = None, *, project_root: str | None = None,
                   branch: str | None = None, home: str | None = None, remotes=None, exists=None,
                   upstream: str | None = None) -> Call:
    """A host's tool call as a ``Call`` (its fields say what each argument is; a ``workdir``
    argument overrides ``cwd``; ``home`` expands ``~``). Unknown tools give an empty Call. Never raises."""
    remotes = frozenset(r for r in remotes if isinstance(r, str)) if isinstance(
        remotes, (set, frozenset, tuple, list)) else None
    name = tool_name if isinstance(tool_name, str) else ""
    cwd = _abs(cwd)
    root = _abs(project_root)
    branch = branch if isinstance(branch, str) and branch else None
    if not isinstance(args, dict):
        args = {}
    low = name.lower()
    try:
        if low in _SHELL_TOOLS:
            command = args.get("command", args.get("cmd"))
            action = args.get("action")
            if command is None and isinstance(action, dict):
                command = action.get("command")
                args = action
            for key in _WORKDIR_KEYS:
                wd = args.get(key)
                if isinstance(wd, str) and wd:
                    cwd = _abs(posixpath.join(cwd, wd) if cwd and not wd.startswith("/") else wd)
                    break
            found = scan(command, cwd, home=home)
            upstream = upstream if isinstance(upstream, str) and upstream else None
            return Call(name, cwd, found.invocations, found.writes, root, branch, remotes, exists=exists,
                        upstream=upstream, reads=found.reads, cut=found.cut)
        if low in READ_TOOLS:
            words = [v for k in READ_KEYS if isinstance(v := args.get(k), str) and v]
            reads = tuple(Write(p, ()) for p in (_resolve(cwd, w, home) for w in words) if p is not None)
            return Call(name, cwd, (), (), root, branch, remotes, reads=reads)
        if low in _EDIT_TOOLS:
            words = [v for k in _PATH_KEYS if isinstance(v := args.get(k), str) and v]
            for key in _PATCH_KEYS:
                words.extend(patch_paths(args.get(key)))
            writes = [Write(p, ()) for p in (_resolve(cwd, w, home) for w in words) if p is not None]
            created = words if low in _CREATING_TOOLS else [
                w for k in _PATCH_KEYS for w in patch_paths(args.get(k), new_only=True)]
            made = frozenset(p for p in (_resolve(cwd, w, home) for w in created) if p is not None)
            cut = low in _PATCH_TOOLS and any(isinstance(v := args.get(k), str) and len(v) > MAX_CHARS
                                              for k in _PATCH_KEYS)  # a patch's later files unread
            return Call(name, cwd, (), tuple(writes), root, branch, remotes, made, exists, cut=cut)
    except (TypeError, ValueError, AttributeError):  # a host sent something strange
        pass
    return Call(name, cwd, (), (), root, branch, remotes)


def _abs(path: Any) -> str | None:
    if not isinstance(path, str) or not path.startswith("/") or "\0" in path:
        return None
    return posixpath.normpath(path)


def _resolve(cwd: str | None, word: str, home: str | None) -> str | None:
    if "\0" in word:
        return None
    if word.startswith("~/") and isinstance(home, str) and home.startswith("/"):
        word = home + word[1:]
    if word.startswith("/"):
        return posixpath.normpath(word)
    if cwd is None or word.startswith("~"):
        return None
    return posixpath.normpath(posixpath.join(cwd, word))


class GuardSet:
    """Guards compiled for checking. Build once per change of the guard list;
    ``check`` is then cheap enough to run before every tool call."""

    __slots__ = ("guards", "_by_program", "_paths", "_content", "_git", "_any", "_reads")

    def __init__(self, guards: Iterable[Guard], *, home: str | None = None):
        self.guards = tuple(g for g in guards if isinstance(g, Guard))
        self._by_program: dict[str, list] = {}
        self._paths: list = []
        self._content: list = []  # (idx, guard, root, test(match, inv, call), match); root None: the test places it
        self._any: tuple = ()  # ("*",) when a guard holds for any program ("never use `--rerun-tasks`")
        self._reads: list = []  # (idx, guard, compiled paths, match) of the read guards
        for idx, guard in enumerate(self.guards):
            root = _abs(guard.project_root)
            if guard.scope == "project" and root is None:
                continue  # a project guard with no project fires nowhere
            scope_root = root if guard.scope == "project" else None
            m = guard.match
            if isinstance(m, CommandMatch):
                self._any = ("*",) if "*" in m.programs else self._any
                for prog in m.programs:
                    self._by_program.setdefault(prog, []).append(
                        (idx, guard, scope_root, _Command(m, prog, guard.instead)))
            elif isinstance(m, SudoMatch):
                for prog in m.programs:
                    self._by_program.setdefault(prog, []).append((idx, guard, scope_root, sudo_matcher(m.runs)))
            elif isinstance(m, PushMatch):
                self._content.append((idx, guard, None, _push_at, (m, scope_root)))
            elif type(m) in _CONTENT_TESTS:
                self._content.append((idx, guard, scope_root, _CONTENT_TESTS[type(m)], m))
            elif isinstance(m, ReadMatch):
                if (paths := PathGuard(m, scope_root, home)).compiled:
                    self._reads.append((idx, guard, paths, m))
            elif isinstance(m, (PathMatch, RemoveMatch, CommitPathMatch)):
                paths = PathGuard(m, scope_root, home)
                if paths.compiled and isinstance(m, CommitPathMatch):
                    self._content.append((idx, guard, None, _commit_path_fires, paths))
                elif paths.compiled:
                    self._paths.append((idx, guard, paths))
        self._git = self._content  # a git invocation is put to every test; any other to those not only of git
        self._content = [entry for entry in self._content if entry[3] not in _GIT_ONLY]

    def check(self, call: Call) -> list[Hit]:
        """The guards this call breaks, one hit each, in guard order."""
        hits: dict[int, Hit] = {}
        if call.invocations and (self._by_program or self._git):
            seen = False  # the branch each invocation sees, worked out when a later git needs it
            for k, inv in enumerate(call.invocations):
                if not inv.program:
                    continue
                here = call
                if k and inv.program == "git":  # `git switch -c x && git commit`: the commit is on x
                    if seen is False:
                        seen = _branch_at(call)
                    if seen is not None:
                        here = seen[k]
                for idx, guard, root, test, m in self._git if inv.program == "git" else self._content:
                    if idx not in hits and _runs_inside(inv, call, root) and test(m, inv, here):
                        shown = display(inv.argv)
                        hits[idx] = Hit(guard, " | ".join(inv.upstream + (shown,)) if test is pipe_fires else shown)
                for name in program_names(inv.program) + self._any:
                    for idx, guard, root, compiled in self._by_program.get(name, ()):
                        if idx in hits or not _runs_inside(inv, call, root):
                            continue
                        if compiled.matches(inv.argv) and (not compiled.placed or _placed(compiled, inv, call, root)):
                            hits[idx] = Hit(guard, display(inv.argv))
        if call.writes and self._paths:
            for write in call.writes:
                for idx, guard, paths in self._paths:
                    if idx not in hits and paths.fires(write, call):
                        subject = f"{display(write.argv, 60)} {display((write.redirect,), 60)}" if write.redirect \
                            else display(write.argv) if write.argv else _shown_path(write.path, paths.base(call), call)
                        hits[idx] = Hit(guard, subject, write.path, bool(write.argv))
        for idx, guard, paths, m in self._reads:
            if idx not in hits and (found := read_hit(paths, m, call)) is not None:
                hits[idx] = Hit(guard, *found)
        return [hits[i] for i in sorted(hits)]


def _shown_path(path: str, base: str | None, call: Call) -> str:
    """An edited file as the reason names it: from the project's root (``web/.env``, not the ``.env``
    of ``web/AGENTS.md``'s folder), else from the guard's folder, else whole."""
    for root in (call.project_root, base):
        rel = _below(path, root) if root else None
        if rel:
            return rel
    return path


def _push_at(found: tuple, inv: Invocation, call: Call) -> bool:
    """``git push`` from inside the guard's folder (``-C`` followed) to one of its remotes or branches."""
    match, root = found
    if inv.program != "git":
        return False
    repo_cwd = inv.cwd
    c = _opt(inv.argv, "-C")
    if c is not None and repo_cwd is not None and DYN not in c:
        repo_cwd = posixpath.normpath(posixpath.join(repo_cwd, c))
    if root is not None and (repo_cwd is None or _below(repo_cwd, root) is None):
        return False
    # the current branch is the call's: known only inside the call's project
    # (or its folder, when the project is not given)
    home = call.project_root or call.cwd
    branch = (call.branch if inv.cwd_exact and repo_cwd is not None and home is not None
              and _below(repo_cwd, home) is not None else None)
    # a push that names no remote goes to the branch's upstream
    pushed = push_targets(inv.argv, branch, call.upstream if branch is not None else None)
    if pushed is None or _is_info(inv.argv, "git"):
        return False  # not a push, a dry run, or `git push --help`
    return push_fires(match, *pushed, call.remotes)


def _branch_at(call: Call) -> list | None:
    """The call as each invocation sees it: the branch checked out is the
    call's until a ``git checkout -b x`` / ``git switch x`` before it in the
    same command line changes it (to x, or to unknown); None: no switch."""
    out, current = None, call
    for k, inv in enumerate(call.invocations):
        if out is not None:
            out.append(current)
        if inv.program == "git" and ("checkout" in inv.argv or "switch" in inv.argv):
            to = switched_branch(inv.argv)
            if to is not SAME and to != current.branch:
                if out is None:
                    out = [call] * (k + 1)
                # a branch switched to here pushes where git sends a branch with no upstream: origin, when it is the only remote
                current = replace(current, branch=to, upstream="origin" if current.remotes == {"origin"} else None)
    return out


def _commit_fires(match: CommitMatch, inv: Invocation, call: Call) -> bool:
    """``git commit`` run in the call's own checkout while a guarded branch is current."""
    return on_branch(inv, call, match.branches) and _git_sub(inv.argv) == "commit" and not _is_info(inv.argv, "git")


_CONTENT_TESTS = {PipeMatch: pipe_fires, CommitMatch: _commit_fires, SqlMatch: sql_fires, RebaseMatch: rebase_fires,
                  OptionMatch: option_fires, BranchNameMatch: branch_name_fires, MergeMatch: merge_fires,
                  SwitchMatch: switch_fires}
_COMMIT_VALUE = _SUB_VALUE["git"]["commit"]


def _commit_path_fires(found: PathGuard, inv: Invocation, call: Call) -> bool:
    """``git add``/``git commit`` naming a guarded file (resolved from its folder)."""
    if inv.program != "git" or inv.cwd is None or not inv.cwd_exact:
        return False
    i = skip_options(inv.argv, 1, GIT_VALUE_OPTS)
    if i >= len(inv.argv) or inv.argv[i] not in ("add", "commit", "stage") or _is_info(inv.argv, "git"):
        return False  # `git add -n .env`: a dry run stages nothing
    base = found.base(call)
    j, n = i + 1, len(inv.argv)
    while j < n:
        a = inv.argv[j]
        if a == "--":
            words, j = inv.argv[j + 1:], n
        elif a.startswith("-"):
            # `-am msg`: a cluster whose last letter takes the next word
            j += 2 if a in _COMMIT_VALUE or a[1:2] != "-" and len(a) > 2 and "-" + a[-1] in _COMMIT_VALUE else 1
            continue
        else:
            words, j = (a,), j + 1
        for w in words:
            if DYN in w:
                continue
            path = posixpath.normpath(w if w.startswith("/") else posixpath.join(inv.cwd, w))
            if base is not None and found.names(path, base, call):
                return True
    return False


# the tests that only a git invocation can break
_GIT_ONLY = frozenset((_push_at, _commit_fires, _commit_path_fires, rebase_fires, branch_name_fires, switch_fires))


def _opt(argv: tuple, name: str) -> str | None:
    for j in range(1, len(argv) - 1):
        if argv[j] == name:
            return argv[j + 1]
        if not argv[j].startswith("-"):
            return None
    return None


def _runs_inside(inv: Invocation, call: Call, root: str | None) -> bool:
    if root is None:
        return True
    cwd = inv.cwd if inv.cwd is not None else call.cwd
    return cwd is not None and _below(cwd, root) is not None


def _placed(c, inv: Invocation, call: Call, root: str | None) -> bool:
    """A command guard's place and way: run in one of its folders (``under``),
    on a path in one of them (``on``), not through an allowed wrapper (``not_via``)."""
    if c.not_via and any(n in c.not_via for v in inv.via for n in program_names(v)):
        return False
    if c.to_file and not _to_file(inv, call):
        return False
    base = root or call.project_root or call.cwd
    if c.under:
        rel = _below(inv.cwd, base) if base and inv.cwd and inv.cwd_exact else None
        if rel is None or not any(rel == u or rel.startswith(u + "/") or u == "." and rel == "" or u == "*" and rel
                                  for u in c.under):
            return False
    if c.on == ("*",):  # "with file arguments": any argument naming a file
        return has_file_argument(inv.argv)
    if c.on:
        if not base or not inv.cwd or not inv.cwd_exact:
            return False
        rels = (_below(posixpath.normpath(posixpath.join(inv.cwd, a)), base) for a in inv.argv[1:]
                if not a.startswith("-") and DYN not in a)
        return any(rel and any(rel == u or rel.startswith(u + "/") for u in c.on) for rel in rels)
    return True


def _to_file(inv: Invocation, call: Call) -> bool:
    """The invocation's output goes to a file: a redirection (a write under its
    own argv, by a program that writes no file itself) or a ``tee`` after it."""
    if any(w.argv == inv.argv and not w.path.startswith("/dev/") for w in call.writes):
        return True
    return any(i.program == "tee" and inv.program in i.upstream and len(i.argv) > 1 for i in call.invocations)


@lru_cache(maxsize=32)
def _compiled(guards: tuple, home: str | None) -> GuardSet:
    return GuardSet(guards, home=home)


def check(guards, call, *, home: str | None = None) -> list[Hit]:
    """The guards a tool call breaks. ``guards``: a ``GuardSet`` or any
    iterable of ``Guard`` (compiled and cached by value); ``call``: a
    ``Call``, or a tool-call event with ``name``, ``args`` and ``cwd``
    (``tacit.events.ToolCall``). Never raises on bad input: it returns []."""
    try:
        if not isinstance(call, Call):
            call = normalize_call(getattr(call, "name", ""), getattr(call, "args", None),
                                  getattr(call, "cwd", None), home=home)
        if not isinstance(guards, GuardSet):
            guards = tuple(guards) if guards is not None else ()
            try:
                guards = _compiled(guards, home)
            except TypeError:  # an unhashable field somewhere: compile without the cache
                guards = GuardSet(guards, home=home)
        return guards.check(call)
    except (TypeError, AttributeError, ValueError, re.error):
        return []


__all__ = ["Call", "Hit", "GuardSet", "normalize_call", "check", "program_names", "push_targets",
           "compile_pattern", "glob_regex", "program_name"]
