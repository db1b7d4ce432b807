"""Guard values: what a guard matches, why, and where it applies.

Design notes: docs/design/guards.md#tacitguardsmodel
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from functools import cache
from operator import attrgetter
from typing import Any, ClassVar, get_args

ACTIONS = ("ask", "deny")
SCOPES = ("project", "global")
# written only when set
_OMITTED_WHEN_EMPTY = ("bare", "by_name", "remotes", "lease_ok", "existing", "unless", "under", "on", "not_via", "new_only",
                       "to_file", "repo", "shows_only", "local_only", "runs")


class _Match:
    __slots__ = ()

    def to_dict(self) -> dict:
        """The fields as JSON data (tuples as lists)."""
        return {name: list(v) if isinstance(v, tuple) else v for name in _field_names(type(self))
                if (v := getattr(self, name)) or name not in _OMITTED_WHEN_EMPTY}


@cache
def _field_names(cls) -> tuple:
    return tuple(f.name for f in fields(cls))


@dataclass(frozen=True, slots=True)
class CommandMatch(_Match):
    """A program, optionally narrowed to a subcommand path and flags.

    ``programs``: normalised program names (``npm``; ``*``: any program but
    the ones that only print their words; ``pip`` also matches
    ``pip3``/``pip3.12`` and ``python -m pip``). ``subcommands``: the leading
    positional words that must follow the program (``("apply",)`` for
    ``terraform apply``); known aliases (``npm i`` = ``npm install``) are
    expanded when compiled. ``flags``: flags that must all be present.
    ``allow_info``: ``--version``/``--help``/``help`` alone stay allowed.
    ``bare``: only the command with nothing after it ("a bare `pnpm test`").
    ``unless``: flags that make it the allowed way ("use `cargo update -p x`").
    ``under``: only run in these folders (relative to the root, "in `ui/`");
    ``on``: only with an argument in these folders ("prettier on `tasks/`");
    ``not_via``: run through one of these wrappers it is allowed ("through uv");
    ``to_file``: only with its output sent to a file ("never pipe X output to a file").
    ``repo``: only when the repository it acts on (``--repo``/``-R``) is this one or not said.
    ``by_name``: only the program called by its bare name ("never use bare `python`"): not a path
    to one (``.venv/bin/python``), nor run through an environment's runner (``uv run``).
    """

    kind: ClassVar[str] = "command"
    programs: tuple[str, ...]
    subcommands: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    allow_info: bool = False
    bare: bool = False
    unless: tuple[str, ...] = ()
    under: tuple[str, ...] = ()
    on: tuple[str, ...] = ()
    not_via: tuple[str, ...] = ()
    to_file: bool = False
    repo: str = ""
    by_name: bool = False


@dataclass(frozen=True, slots=True)
class PathMatch(_Match):
    """Files that must not be changed, as gitignore-style patterns.

    A pattern with a slash before its end (``db/migrations/``,
    ``./schema.sql``) is anchored at the project root; one without
    (``migrations/``, ``.env``, ``*.lock``) matches that name at any depth
    below the root. A trailing slash is kept only as a reading aid: a path
    equal to the pattern or anywhere below it matches. ``/…`` and ``~/…``
    are absolute. ``existing``: only changes to files that exist ("never
    edit existing migrations"): creating a new one stays allowed; ``new_only``:
    only files a call creates ("don't create new files in `x/`").
    """

    kind: ClassVar[str] = "path"
    patterns: tuple[str, ...]
    existing: bool = False
    new_only: bool = False


@dataclass(frozen=True, slots=True)
class PushMatch(_Match):
    """``git push`` to one of ``branches`` (empty: any push); with
    ``force_only`` only a forced push (``--force``, ``-f``,
    ``--force-with-lease``, a ``+`` refspec); with ``remotes`` only a push
    to one of those remotes (``upstream``). A name in ``branches`` that is
    one of the project's remotes (``Call.remotes``) is read as a remote.
    ``lease_ok``: ``--force-with-lease`` is the allowed way ("never
    `--force`; use `--force-with-lease`")."""

    kind: ClassVar[str] = "git_push"
    branches: tuple[str, ...] = ()
    force_only: bool = False
    remotes: tuple[str, ...] = ()
    lease_ok: bool = False


@dataclass(frozen=True, slots=True)
class SudoMatch(_Match):
    """Any command run with raised privileges: ``sudo``, ``sudoedit``,
    ``doas``, ``pkexec``, ``run0``, ``su``; with ``runs``, only those programs run so ("`sudo npm`")."""

    kind: ClassVar[str] = "sudo"
    programs: tuple[str, ...] = ("sudo", "sudoedit", "doas", "pkexec", "run0", "su")
    runs: tuple[str, ...] = ()

    def __repr__(self) -> str:  # a guard on every sudo reads as it did before ``runs``
        return f"SudoMatch(programs={self.programs!r}" + (f", runs={self.runs!r})" if self.runs else ")")


@dataclass(frozen=True, slots=True)
class CommitMatch(_Match):
    """``git commit`` while one of ``branches`` is checked out (the caller
    passes the current branch; unknown: never fires)."""

    kind: ClassVar[str] = "git_commit"
    branches: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RemoveMatch(_Match):
    """A command that deletes (``rm``, ``unlink``, ``git rm`` …) or renames
    (``mv``/``git mv``, the path as source) a file matching ``patterns`` (the
    rules of ``PathMatch``); editing it stays allowed. ``ops``: "delete",
    "rename" or both."""

    kind: ClassVar[str] = "path_remove"
    patterns: tuple[str, ...]
    ops: tuple[str, ...] = ("delete", "rename")


@dataclass(frozen=True, slots=True)
class RebaseMatch(_Match):
    """``git rebase`` onto one of ``branches`` (``git rebase main``, ``git
    rebase -i origin/main``, ``--onto main``); ``git pull --rebase`` is not it."""

    kind: ClassVar[str] = "git_rebase"
    branches: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OptionMatch(_Match):
    """A command given one of ``values`` for one of ``options``: ``gh issue
    create --label type/bug`` (values exact, comma lists split); with
    ``trailer`` a value holding a line that starts with ``Name:`` (``git
    commit --trailer "Co-authored-by: …"`` or in ``-m``). ``verbs``: one of
    these must be among the command's leading words (``create``, ``edit``)."""

    kind: ClassVar[str] = "option_value"
    program: str
    verbs: tuple[str, ...]
    options: tuple[str, ...]
    values: tuple[str, ...]
    trailer: bool = False


@dataclass(frozen=True, slots=True)
class CommitPathMatch(_Match):
    """``git add``/``git commit`` naming a file that matches one of
    ``patterns`` (the rules of ``PathMatch``): "never commit `.env`". A
    ``git add -A`` or ``git commit -a`` names no file and does not fire."""

    kind: ClassVar[str] = "git_commit_path"
    patterns: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PipeMatch(_Match):
    """A download piped into an interpreter: one of ``sources`` earlier in a
    pipeline whose stage is one of ``sinks`` reading its stdin as a script
    (``curl -fsSL x | sh``, ``wget -qO- x | sudo bash``); with ``code`` False
    any sink after a source (``./gradlew test | tail``)."""

    kind: ClassVar[str] = "pipe"
    sources: tuple[str, ...] = ("curl", "wget")
    sinks: tuple[str, ...] = ("sh", "bash", "zsh", "dash", "ksh", "fish")
    code: bool = True  # False: any sink after a source fires ("never pipe gradle output through tail")


@dataclass(frozen=True, slots=True)
class SqlMatch(_Match):
    """SQL a database client is given (``psql -c``, ``mysql -e``,
    ``sqlite3 db '…'``, a here-document): ``statements`` among
    ``drop_table``, ``drop_database``, ``truncate``, ``delete_without_where``."""

    kind: ClassVar[str] = "sql"
    statements: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BranchNameMatch(_Match):
    """A new branch (``git checkout -b``, ``git switch -c``, ``git branch NAME``, ``git worktree add -b``)
    whose name matches none of ``allowed`` (globs: ``claude/*``)."""

    kind: ClassVar[str] = "git_branch_name"
    allowed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReadMatch(_Match):
    """Reading a file that matches ``patterns`` (the rules of ``PathMatch``): a host's read tool
    (``Read``, ``read``, ``read_file``, a grep tool on it) or a command that reads it (``cat``,
    ``grep KEY .env``, ``< .env``, a ``cp`` source, ``source .env``); ``shows_only``: only what
    shows its text ("never cat .env": ``source .env`` stays allowed). Changing it is not reading."""

    kind: ClassVar[str] = "path_read"
    patterns: tuple[str, ...]
    shows_only: bool = False


@dataclass(frozen=True, slots=True)
class MergeMatch(_Match):
    """``git merge`` while one of ``branches`` is checked out (the caller passes the branch;
    unknown: never fires), also after ``git checkout main &&``; and, unless ``local_only``
    ("never merge locally"), ``gh pr merge`` when a branch is ``main``/``master`` (a PR's usual base)."""

    kind: ClassVar[str] = "git_merge"
    branches: tuple[str, ...]
    local_only: bool = False


@dataclass(frozen=True, slots=True)
class SwitchMatch(_Match):
    """``git checkout``/``git switch`` that leaves the branch checked out (to another, a new one or a
    detached HEAD); restoring files (``git checkout -- a.ts``) is no switch."""

    kind: ClassVar[str] = "git_switch"


Match = (CommandMatch | PathMatch | PushMatch | SudoMatch | PipeMatch | SqlMatch | CommitMatch | CommitPathMatch
         | RebaseMatch | RemoveMatch | OptionMatch | BranchNameMatch | ReadMatch | MergeMatch
         | SwitchMatch)
_MATCH_TYPES: dict[str, type] = {m.kind: m for m in get_args(Match)}
SQL_STATEMENTS = ("drop_table", "drop_database", "truncate", "delete_without_where")


# what a guard of each other kind stops, in a few words
_SAYS = {SudoMatch: lambda m: " ".join(("sudo", *m.runs)) + " (raised privileges)",
         PipeMatch: lambda m: f"{'/'.join(m.sources)} piped into " + ("a shell" if m.code else "/".join(m.sinks)),
         CommitMatch: lambda m: "git commit on " + ", ".join(m.branches),
         CommitPathMatch: lambda m: "git add/commit of " + ", ".join(m.patterns),
         RemoveMatch: lambda m: " or ".join("deleting" if o == "delete" else "renaming" for o in m.ops) + " "
         + ", ".join(m.patterns),
         RebaseMatch: lambda m: "git rebase onto " + ", ".join(m.branches),
         ReadMatch: lambda m: "reading " + ", ".join(m.patterns) + (" (loading it allowed)" if m.shows_only else ""),
         MergeMatch: lambda m: ("local " if m.local_only else "") + "git merge into " + ", ".join(m.branches),
         SwitchMatch: lambda m: "switching branches (git checkout/switch)",
         BranchNameMatch: lambda m: "a new branch not named " + " or ".join(m.allowed),
         OptionMatch: lambda m: f"{m.program} {'/'.join(m.verbs)} with {'/'.join(m.options)} " + ", ".join(m.values),
         SqlMatch: lambda m: "SQL: " + ", ".join(s.replace("_", " ") for s in m.statements)}


@dataclass(frozen=True, slots=True)
class GuardSpec:
    """What ``derive_guard`` can know from a lesson: the match, the lesson
    text (quoted to the agent), the allowed alternative, the action."""

    match: Match
    because: str
    instead: str | None = None
    action: str = "ask"

    @property
    def kind(self) -> str:
        return self.match.kind

    def describe(self) -> str:
        """What a guard stops, in a few words."""
        m = self.match
        if isinstance(m, CommandMatch):
            if m.programs == ("*",) and m.under and not m.flags:  # "do not `cd` into `x`"
                return "any command run in " + ", ".join(m.under)
            if m.programs == ("*",):  # a flag of any program ("never use `--rerun-tasks`")
                return "any command with " + " ".join(m.flags)
            words = " ".join((m.programs[0] if len(m.programs) == 1 else "/".join(m.programs),) + m.subcommands + m.flags)
            but = f" (allowed with {' or '.join(m.unless)})" if m.unless else ""
            but += "".join(f" {w} {', '.join(v)}" for w, v in (("in", m.under), ("on", m.on), ("unless via", m.not_via)) if v)
            but += " with its output to a file" if m.to_file else ""
            return f"`{words}`" + ("" if m.subcommands or m.flags else " (any use)") + but
        if isinstance(m, PathMatch):
            what = "new files in " if m.new_only else "changes to existing files in " if m.existing else "changes to "
            return what + ", ".join(m.patterns)
        if isinstance(m, PushMatch):
            what = "git push"
            if m.force_only:
                what = "force push" + (" (--force-with-lease allowed)" if m.lease_ok else "")
            targets = [f"remote {r}" for r in m.remotes] + list(m.branches)
            return what + (" to " + ", ".join(targets) if targets else "")
        return _SAYS[type(m)](m) if type(m) in _SAYS else self.kind

    def to_dict(self) -> dict:
        return {"kind": self.kind, "match": self.match.to_dict(), "because": self.because,
                "instead": self.instead, "action": self.action}

    @classmethod
    def from_dict(cls, data: Any) -> GuardSpec | None:
        """The spec a ``to_dict`` wrote, or None for anything malformed."""
        try:
            match = _match_from_dict(data["kind"], data["match"])
            because = data.get("because", "")
            instead = data.get("instead")
            action = data.get("action", "ask")
            if match is None or not isinstance(because, str) or not isinstance(instead, (str, type(None))) \
                    or action not in ACTIONS:
                return None
            return cls(match, because, instead, action)
        except (KeyError, TypeError, AttributeError, ValueError):
            return None


@dataclass(frozen=True, slots=True)
class Guard:
    """A spec in place: ``id`` (given by the store; None before), ``scope``
    ("project" needs ``project_root``, an absolute path; "global" has None),
    ``source`` (opaque to this package: a memory entry id, "user", …)."""

    spec: GuardSpec
    id: int | str | None = None
    scope: str = "project"
    project_root: str | None = None
    source: str = ""

    kind = property(attrgetter("spec.match.kind"))
    match = property(attrgetter("spec.match"))
    because = property(attrgetter("spec.because"))
    instead = property(attrgetter("spec.instead"))
    action = property(attrgetter("spec.action"))

    def to_dict(self) -> dict:
        return {"id": self.id, "scope": self.scope, "project_root": self.project_root,
                "source": self.source, **self.spec.to_dict()}

    @classmethod
    def from_dict(cls, data: Any) -> Guard | None:
        """The guard a ``to_dict`` wrote, or None for anything malformed."""
        spec = GuardSpec.from_dict(data)
        if spec is None:
            return None
        gid = data.get("id")  # data is a mapping: GuardSpec.from_dict read it
        scope = data.get("scope", "project")
        root = data.get("project_root")
        source = data.get("source", "")
        if isinstance(gid, bool) or not isinstance(gid, (int, str, type(None))) or scope not in SCOPES \
                or not isinstance(source, str) or not isinstance(root, (str, type(None))):
            return None
        return cls(spec, gid, scope, root, source)


def _strs(value: Any) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v for v in value):
        raise TypeError("expected a list of non-empty strings")
    return tuple(value)


# per kind, the fields that must not be empty; a field left out takes its default, when it has one (but pipe's)
_GIVEN = {("pipe", "sources"), ("pipe", "sinks")}
_REQUIRED = {"command": ("programs",), "path": ("patterns",), "option_value": ("program", "options", "values"),
             "git_commit_path": ("patterns",), "git_commit": ("branches",), "path_remove": ("patterns", "ops"),
             "git_rebase": ("branches",), "git_branch_name": ("allowed",), "pipe": ("sources", "sinks"), "sql": ("statements",),
             "path_read": ("patterns",), "git_merge": ("branches",),
             "sudo": ("programs",)}
_ALLOWED = {"ops": frozenset(("delete", "rename")), "statements": frozenset(SQL_STATEMENTS)}


def _match_from_dict(kind: Any, data: Any) -> Match | None:
    """The match a ``to_dict`` wrote (a missing or malformed field raises KeyError/TypeError), or None."""
    if kind not in _MATCH_TYPES or not isinstance(data, dict):
        return None
    cls, required, given = _MATCH_TYPES[kind], _REQUIRED.get(kind, ()), {}
    for f in fields(cls):
        if f.name not in data and f.default is not MISSING and (kind, f.name) not in _GIVEN:
            continue  # its default
        value = data[f.name]
        if f.type == "bool":
            given[f.name] = value is not False if f.default else value is True
        elif f.type == "str":
            if not isinstance(value, str):
                return None
            given[f.name] = value
        else:
            given[f.name] = _strs(value)
    if not all(given.get(name, True) for name in required) or \
            any(not set(given.get(name, ())) <= ok for name, ok in _ALLOWED.items()):
        return None
    return cls(**given)
