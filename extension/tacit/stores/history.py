"""History: every change to a memory file, a skill or a guard, append-only, with its ``Actor``.

A write with no actor (from its store or the engine's ``acting``) raises ``NoActor``; see
docs/architecture.md (History, notices and forgetting)."""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields

from tacit.display import clip, session_label
from tacit.log import log
from tacit.stores import notices
from tacit.stores.entries import normal_lines
from tacit.stores.ledger import Ledger, LedgerUnavailable, dicts, loads, next_id

CAUSE_CHARS = 600
LEARN = "learn"  # a child of `tacit learn`: its actor's host is "learn:<the transcript's host>" (learn_host)


@dataclass(frozen=True, slots=True)
class Actor:
    """Who made a change: ``kind`` user | agent | child | learner | hand; ``name`` says more."""

    kind: str = "user"
    name: str = "cli"
    session_id: str = ""
    host: str = ""
    cause: str = ""  # the message(s) that caused it
    cause_event: str = ""
    group: str = ""  # a child's job id: its changes are undone together

    def describe(self) -> str:
        if self.kind == "user":
            return "you (tacit CLI)" if self.name == "cli" else f"you ({self.name})"
        if self.kind == "agent":
            if not self.session_id:
                return f"the agent on {self.host or 'a host'}"
            return f"the agent in session {session_label(self.session_id, 12)} on {self.host or 'a host'}"
        if self.kind == "child":
            if self.host == LEARN or self.host.startswith(LEARN + ":"):  # tacit learn's: no host ran it
                read = self.host.partition(":")[2]
                return (f"a {self.name} child agent of `tacit learn`, for session {session_label(self.session_id, 12)}"
                        + (f" of a {read} transcript" if read else ""))
            return f"a {self.name} child agent for session {session_label(self.session_id, 12)} on {self.host or 'a host'}"
        if self.kind == "learner":
            return f"the {self.name} learner"
        if self.kind == "hand":
            return f"a hand edit{f' ({self.name})' if self.name not in ('', 'hand') else ''}"
        return self.kind

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls, text: str | None) -> Actor | None:
        data = loads(text)
        if not isinstance(data, dict):
            return None
        names = {f.name for f in fields(cls)}
        return cls(**{k: str(v) for k, v in data.items() if k in names})


def learn_host(job: dict, host: str | None) -> str:
    """The host a child's changes are recorded under: its own, or for a job `tacit learn` replayed
    (``learned_from``: the transcript's host, "learn" for tacit's JSONL) "learn:<that host>"."""
    if "learned_from" not in job:
        return host or ""
    read = str(job.get("learned_from") or "")
    return LEARN if read in ("", LEARN) else f"{LEARN}:{read}"


USER = Actor()
_current: contextvars.ContextVar[Actor | None] = contextvars.ContextVar("tacit_actor", default=None)
# the ledger connection of the work in progress: a write inside an engine handler must join the
# handler's transaction, not wait behind it on a second connection of the same thread
_ledger: contextvars.ContextVar = contextvars.ContextVar("tacit_ledger", default=None)


class NoActor(RuntimeError):
    """A store write nobody declared: a programming error, never a default."""


def current_actor(given: Actor | None = None) -> Actor:
    """``given``, else the actor of the ``acting`` block in progress; else ``NoActor``."""
    actor = given or _current.get()
    if actor is None:
        raise NoActor("a store write needs an actor: write through Tacit.as_actor(actor)")
    return actor


def declared() -> Actor | None:
    """The actor of the ``acting`` block in progress, if any."""
    return _current.get()


@contextlib.contextmanager
def _bound(var: contextvars.ContextVar, value) -> Iterator:
    token = var.set(value)
    try:
        yield value
    finally:
        var.reset(token)


def acting(actor: Actor | None):
    return _bound(_current, actor)


def using(ledger):
    return _bound(_ledger, ledger)


@contextlib.contextmanager
def ledger_for(cfg) -> Iterator:
    """The ledger of the work in progress, or one opened (and closed) here."""
    ledger = _ledger.get()
    if ledger is not None:
        yield ledger
        return
    with Ledger(cfg) as own:
        yield own


@dataclass(frozen=True, slots=True)
class Change:
    id: int
    at: float
    action: str  # add | replace | remove | batch | consolidate | move | forget | undo | edit | skill_*
    scope: str  # user | global | project | team | skill scope
    target: str  # the file, or the skill's name
    before: list | str | None
    after: list | str | None
    actor: Actor = field(default_factory=Actor)
    project: str = ""
    undone_by: int | None = None  # the undo that stands: not one itself undone since (a redo)
    group: str = ""

    def added(self) -> list:
        return _minus(self.after, self.before)

    def removed(self) -> list:
        return _minus(self.before, self.after)

    def text(self) -> str:
        """What changed, in one line: the entries added (or removed)."""
        added, removed = self.added(), self.removed()
        if added and removed:
            return f"{' | '.join(removed)} → {' | '.join(added)}"
        if added or removed:
            return " | ".join(added or removed)
        if isinstance(self.after, str):
            return self.after[:200]
        return ""

    def as_dict(self) -> dict:
        return {"id": self.id, "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(self.at)),
                "at": self.at, "action": self.action, "scope": self.scope, "target": self.target,
                "project": self.project, "text": self.text(), "added": self.added(), "removed": self.removed(),
                "before": self.before, "after": self.after,
                "actor": self.actor.describe(), "actor_kind": self.actor.kind, "actor_name": self.actor.name,
                "session_id": self.actor.session_id, "host": self.actor.host, "cause": self.actor.cause,
                "undone_by": self.undone_by, "group": self.group}


# what a write says when it was made but history.record could not reach the ledger (logged)
UNRECORDED = "not in the history: the ledger could not be used (tacit doctor), so tacit memory undo cannot revert it"


def record(cfg, *, action: str, scope: str, target: str, before, after, project: str = "",
           actor: Actor | None = None, group: str = "", at: float | None = None) -> int | None:
    """Append one change; its id, or None (logged) when the ledger could not be written."""
    actor = current_actor(actor)
    try:
        with ledger_for(cfg) as ledger, ledger.write() as conn:
            return _insert(conn, action, scope, target, project, before, after, actor, group or actor.group, at)
    except LedgerUnavailable as exc:
        log(cfg, "warning", "history", f"change not recorded ({action} {target}): {exc}")
        return None


def _insert(conn, action, scope, target, project, before, after, actor, group, at) -> int:
    change_id = int(conn.execute(  # numbered on after a corrupt ledger's changes (Ledger._carry_numbering)
        "INSERT INTO history (id, at, action, scope, target, project, before, after, actor_kind, actor_name, "
        f"session_id, host, cause, cause_event, grp) VALUES ({next_id('history')}, "
        "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (time.time() if at is None else at, action, scope, target, project, _dump(before), _dump(after),
         actor.kind, actor.name, actor.session_id, actor.host, (actor.cause or "")[:CAUSE_CHARS],
         actor.cause_event, group)).lastrowid)
    if actor.kind in ANNOUNCED:
        text = announcement(Change(id=change_id, at=0.0, action=action, scope=scope, target=target,
                                   before=before, after=after, actor=actor))
        if text:
            notices.add(conn, text, session_id=actor.session_id or None, change_id=change_id)
    return change_id


# what the user did not do themselves (nor watched the agent do) is told to them
ANNOUNCED = ("child", "learner")
SCOPE_NAMES = {"user": "your user profile", "global": "global memory", "project": "project memory",
               "team": "team memory"}


def announcement(change: Change) -> str:
    """The one line the user sees about a background change."""
    undo = f" — undo: tacit memory undo {change.id}"
    where = SCOPE_NAMES.get(change.scope, change.scope)
    added, removed = change.added(), change.removed()
    if change.scope.startswith("skill"):
        name = os.path.basename(os.path.dirname(change.target))
        verb = {"skill_create": "created", "skill_delete": "deleted", "skill_undo": "restored"}.get(
            change.action, "updated")
        return f'tacit {verb} the skill "{name}"{undo}'
    if change.action == "consolidate":
        return f"tacit consolidated {where} ({len(change.before or [])} → {len(change.after or [])} entries){undo}"
    if change.action == "restore":
        return f"tacit restored {where} after a child agent damaged it{undo}"
    if change.action == "forget":
        return f"tacit forgot, from {where}: {_quoted(removed)}{undo}"
    if added and not removed:
        return f"tacit saved to {where}: {_quoted(added)}{undo}"
    if removed and not added:
        return f"tacit removed from {where}: {_quoted(removed)}{undo}"
    if added and removed:
        return f"tacit updated {where}: {_quoted(removed)} → {_quoted(added)}{undo}"
    return ""


def _quoted(items: list) -> str:
    return " | ".join(f'"{clip(e, 120)}"' for e in items[:2]) + (" …" if len(items) > 2 else "")


def changes(ledger, *, since: float | None = None, limit: int = 200, text: str | None = None,
            change_id: int | None = None) -> list[Change]:
    """The newest changes first (``since``: at or after it; ``text``: held before or after)."""
    query, args = "SELECT * FROM history WHERE 1 = 1", []
    if change_id is not None:
        query += " AND id = ?"
        args.append(change_id)
    if since is not None:
        query += " AND at >= ?"
        args.append(since)
    if text:
        query += " AND (instr(lower(coalesce(before, '')), lower(?)) OR instr(lower(coalesce(after, '')), lower(?)))"
        args += [text, text]
    return _read_changes(ledger, query + " ORDER BY id DESC LIMIT ?", [*args, limit])


def get(ledger, change_id: int) -> Change | None:
    found = changes(ledger, change_id=change_id, limit=1)
    return found[0] if found else None


def mark_undone(ledger, change_id: int, by: int) -> None:
    with ledger.write() as conn:
        conn.execute("UPDATE history SET undone_by = ? WHERE id = ?", (by, change_id))


def _change(row: dict, standing: dict[int, int | None]) -> Change:
    actor = Actor(kind=row["actor_kind"], name=row["actor_name"], session_id=row["session_id"] or "",
                  host=row["host"] or "", cause=row["cause"] or "", cause_event=row["cause_event"] or "")
    return Change(id=row["id"], at=row["at"], action=row["action"], scope=row["scope"], target=row["target"],
                  before=_load(row["before"]), after=_load(row["after"]), actor=actor, project=row["project"] or "",
                  undone_by=standing.get(row["id"]), group=row["grp"] or "")


def _minus(entries, others) -> list:
    """The entries of ``entries`` not in ``others`` (both lists of entries; else none)."""
    if isinstance(entries, list) and isinstance(others, list):
        return [e for e in entries if e not in others]
    return []


def _dump(value) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _load(text):
    try:
        return None if text is None else json.loads(text)
    except ValueError:
        return text


def last_state(ledger, target: str):
    """The ``after`` of the newest change to ``target``, or ``None`` when none was recorded."""
    with ledger.read() as conn:
        row = conn.execute("SELECT after FROM history WHERE target = ? ORDER BY id DESC LIMIT 1",
                           (target,)).fetchone()
    return None if row is None else (_load(row[0]) if row[0] is not None else [])


_AGREEING: dict[tuple, list] = {}  # (data folder, file) -> its stat signature when the history last agreed


def notice_edit(cfg, *, scope: str, target: str, entries: list, project: str = "",
                actor: Actor | None = None, baseline: list | None = None, sig: list | None = None) -> int | None:
    """Record an edit tacit did not make when ``entries`` differ from the last recorded state (none
    recorded: ``baseline``, the file as read before the edit, else nothing to do); its id. ``sig``:
    the file's settled stat signature when read, kept once the history agrees (``agrees``)."""
    try:
        with ledger_for(cfg) as ledger:
            before = last_state(ledger, target)
            before = baseline if before is None else before
            # a state recorded before U+2028 & co. were read as line breaks is the same state
            change = None
            if before is not None and [normal_lines(e) for e in before] != [normal_lines(e) for e in entries]:
                change = record(cfg, action="edit", scope=scope, target=target, before=list(before),
                                after=list(entries), project=project, actor=actor or Actor(kind="hand", name="hand"))
    except LedgerUnavailable as exc:
        log(cfg, "warning", "history", f"hand edit not checked ({target}): {exc}")
        return None
    if sig is not None:
        if len(_AGREEING) >= 1024:
            _AGREEING.clear()
        _AGREEING[(cfg.state_dir_str, target)] = sig
    return change


def agrees(cfg, target: str, sig: list | None) -> bool:
    """The file is as it was when its history last agreed with it: no edit to look for. Every write
    of tacit's renames a new file in, and a hand edit moves its times (``file_memo.settled``)."""
    return sig is not None and _AGREEING.get((cfg.state_dir_str, target)) == sig


def child_rows(conn, session_id: str, name: str, start: float, end: float) -> list[dict]:
    """The rows a child of kind(s) ``name`` wrote for a session within ``[start, end]`` (``tacit cost``)."""
    return dicts(conn.execute("SELECT id, at, action, scope, target, actor_name AS \"by\" FROM history "
                              "WHERE actor_kind = 'child' AND session_id = ? AND actor_name = ? AND at >= ? "
                              "AND at <= ? ORDER BY id", (session_id, name, start, end)))


def group_of(ledger, group: str) -> list[Change]:
    """Every change of one group (a child's run, a forget), newest first."""
    return _read_changes(ledger, "SELECT * FROM history WHERE grp = ? ORDER BY id DESC", (group,))


def _read_changes(ledger, query: str, args) -> list[Change]:
    with ledger.read() as conn:
        rows = dicts(conn.execute(query, args))
        standing = _standing_undos(conn, rows)
    return [_change(row, standing) for row in rows]


def _standing_undos(conn, rows: list[dict]) -> dict[int, int | None]:
    """Each row's undo that still stands. A row is marked by the undo that reverted it; that undo
    undone in turn (a redo) puts the row back, its redo undone takes it out again, and so on: along
    the chain of marks, the row is undone when the number of marks is odd."""
    marks = sorted({r["undone_by"] for r in rows if r["undone_by"] is not None})
    chain: dict[int, int | None] = {}
    if marks:
        chain = dict(conn.execute(
            "WITH RECURSIVE chain(id, by) AS (SELECT id, undone_by FROM history WHERE id IN "
            "(SELECT value FROM json_each(?)) UNION SELECT h.id, h.undone_by FROM history h "
            "JOIN chain c ON h.id = c.by) SELECT id, by FROM chain", (json.dumps(marks),)).fetchall())
    standing = {}
    for row in rows:
        links, by = 0, row["undone_by"]
        while by is not None and links <= len(chain):  # an undo is newer than what it undid: no loop
            links, by = links + 1, chain.get(by)
        standing[row["id"]] = row["undone_by"] if links % 2 else None
    return standing
