"""Guards before every tool call (``guards.check``), and what the user does about them
(``guards.outcome``, ``guards.reply``).

Design notes: docs/design/guards.md#tacithandlersguards
"""

from __future__ import annotations

import functools
import os
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from tacit.display import clip
from tacit.failures import record_failure
from tacit.guards import GuardSet, normalize_call, reason
from tacit.guards.model import CommandMatch, SudoMatch
from tacit.guards.outcome import call_key, read_reply
from tacit.guards.reason import unread_reason
from tacit.handlers import guards_offline
from tacit.hookspecs import ContextResult, Injection, Result, ToolCallResult, can_ask
from tacit.log import log
from tacit.projects import common_dir, kept, project_for, read_gitdir_file
from tacit.stores.file_memo import signature
from tacit.stores import guard_files
from tacit.stores.guards import GuardRecord, GuardStore, read_rev_file
from tacit.stores.memory import MemoryStore

MAX_STOPS = 8  # stopped calls remembered per session (an answer refers to the last turn's)
MAX_PROJECTS = 64  # compiled guard sets kept per engine


def register(engine) -> None:
    checker = GuardChecker(engine.cfg)
    engine.on("tool_call", checker.on_tool_call, name="guards.check", priority=10, prepare=checker.prepare)
    engine.on("tool_result", checker.on_tool_result, name="guards.outcome", priority=10)
    engine.on("message_end", checker.on_message, name="guards.reply", priority=10)
    engine.on("before_agent_start", checker.on_start, name="guards.context", priority=40, prepare=checker.prepare)


@dataclass(frozen=True, slots=True)
class Compiled:
    files: tuple  # (mtime_ns, size, inode) | None of each memory file
    rev: str  # the guard table's revision
    guards: GuardSet
    records: dict  # id -> GuardRecord
    root: str | None  # where this project's guards are placed
    rest_until: float = 0.0  # an instruction file read only in part: read again (further) after this


class GuardChecker:
    """The guards of each project this engine has seen, compiled."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.home = cfg.env.get("HOME")
        self._compiled: OrderedDict[tuple, Compiled] = OrderedDict()
        self._files: dict[tuple, tuple] = {}
        self._rev: tuple | None = None  # the revision file, as last read
        self._places: dict[str, tuple] = {}  # cwd -> (when, (project, real cwd))
        self._finder = guard_files.Finder(every=300.0)  # the instruction files of each checkout
        self._keeping = threading.Lock()  # prepare (any thread) and the handlers share the compiled sets

    def warn(self, what: str, exc: BaseException, event=None) -> None:
        """A check that went on without something: in tacit.log, and counted by ``tacit doctor``."""
        log(self.cfg, "warning", "guards", f"{what}: {type(exc).__name__}: {exc}")
        record_failure(self.cfg, where="guards.check", exc=exc, level="handler",
                       session_id=getattr(event, "session_id", ""), host=getattr(event, "host", ""),
                       event_kind=getattr(event, "kind", ""))

    def place(self, cwd) -> tuple:
        """(project, real cwd) of a working folder, kept as long as ``tacit.projects`` keeps a project."""
        if not isinstance(cwd, str) or not cwd.startswith("/"):
            return project_for(cwd, home=self.home), None
        return kept(self._places, cwd, lambda: (project_for(cwd, home=self.home), os.path.realpath(cwd)))

    def compiled(self, ledger, project, event=None) -> Compiled:
        """This project's guards, rebuilt when its memory or the table changed (else five stats)."""
        cache_key = (project.key, project.root) if project is not None else ("", None)
        files = self._signature(cache_key, project)
        self._rev = signal = read_rev_file(self.cfg, self._rev)
        found = self._compiled.get(cache_key)
        if found is not None and (found.files == files or found.rest_until > time.monotonic()) \
                and found.rev == signal[1]:
            return found  # a read cut by time is not started again in the same event (prepare, then check)
        store = GuardStore(self.cfg, ledger)
        rest_until = 0.0
        if found is None or found.files != files:
            try:
                store.sync(project, files=self._instruction_files(project))
                if store.files_cut:  # read only in part: read again, further, at a later call
                    files, rest_until = (), time.monotonic() + guard_files.READ_SECONDS
            except Exception as exc:  # noqa: BLE001 — a busy or broken ledger: check what the table holds
                self.warn("sync failed, checking the guards already kept", exc, event)
                files = ()  # try the sync again on the next call
        rev = store.revision()
        if found is not None and found.files == files and found.rev == rev:
            return found  # the file runs ahead of a change not committed yet: ask again next call
        records = store.applying(project)
        root = project.root if project is not None else None
        compiled = Compiled(files, rev, GuardSet([r.guard(root) for r in records], home=self.home),
                            {r.id: r for r in records}, root, rest_until)
        with self._keeping:
            self._compiled[cache_key] = compiled
            self._compiled.move_to_end(cache_key)
            while len(self._compiled) > MAX_PROJECTS:
                self._compiled.popitem(last=False)
        return compiled

    def prepare(self, event, ledger) -> None:
        """This project's guards compiled before the event's write transaction: the walk for its
        instruction files, their reading and their sync (small transactions of its own) keep no
        other writer waiting (a hook run in-process beside a starting service); the handler then
        finds them compiled."""
        if not self.cfg.settings.get("guards_enabled", True):
            return
        try:
            self.compiled(ledger, self.place(event.cwd)[0], event)
        except Exception as exc:  # noqa: BLE001 — the handler compiles them itself, in the event
            self.warn("preparing failed", exc, event)

    def _instruction_files(self, project) -> tuple:
        if project is None or not self.cfg.settings.get("instruction_files", True):
            return ()
        try:
            return self._finder.files(project.root)
        except OSError:
            return ()

    def _signature(self, cache_key: tuple, project) -> tuple:
        paths = self._files.get(cache_key)
        if paths is None:
            store = MemoryStore(self.cfg, project)
            paths = [str(store.path_for(scope)) for scope in store.targets()]
            if project is not None and "team" not in store.targets():
                paths.append(os.path.join(project.shared_dir, "MEMORY.md"))  # shared later: seen at once
            paths = self._files[cache_key] = tuple(paths)
        out = [signature(path) for path in paths]
        files = self._instruction_files(project)
        if files:
            out.append((files, [signature(os.path.join(project.root, rel)) for rel in files]))
        return tuple(out)

    def hits(self, compiled: Compiled, event, cwd: str | None) -> tuple:
        """(the call as the guards see it, the guards it breaks)."""
        call = normalize_call(event.name, event.args, cwd, project_root=compiled.root, home=self.home,
                              exists=os.path.lexists, **git_facts(compiled.root))
        return call, compiled.guards.check(call)

    def on_start(self, event, ctx):
        """One line, once per session: how many rules are enforced, from where."""
        if not self.cfg.settings.get("guards_enabled", True) or ctx.state.marks.get("guards.told"):
            return None
        ctx.state.marks["guards.told"] = 1
        project, _ = self.place(ctx.cwd)
        compiled = self.compiled(ctx.ledger, project, event)
        try:
            counts = GuardStore(self.cfg, ctx.ledger).per_guard(project=project.key if project else "")
            skipped = guard_files.notices(ctx.ledger, project)  # what the last read of its files could not take
        except Exception:  # noqa: BLE001 — the figures are a courtesy
            counts, skipped = {}, []
        if not compiled.records and not skipped:
            return None
        text = start_line(list(compiled.records.values()), counts) if compiled.records else ""
        if skipped:
            more = f" (and {len(skipped) - 1} more: `tacit doctor`)" if len(skipped) > 1 else ""
            text = (text + " " if text else "") + f"Instruction files not fully read as rules: {clip(skipped[0], 200)}{more}."
        return ContextResult(context=[Injection(text, priority=25)])

    def on_tool_call(self, event, ctx):
        if not self.cfg.settings.get("guards_enabled", True):
            return None
        state = ctx.state
        state.marks["guards.on"] = 1  # this session's calls are checked before they run
        project, cwd = self.place(ctx.cwd)
        try:
            compiled = self.compiled(ctx.ledger, project, event)
        except Exception as exc:  # noqa: BLE001 — the ledger failed under us: the guards kept in files
            self.warn("checking the guards kept in files", exc, event)
            return guards_offline.check(self.cfg, event)
        if not compiled.guards.guards:
            return None
        call, hits = self.hits(compiled, event, cwd)
        if not hits:
            return unread_stop(call, ctx.host)  # never let through what no guard could read
        passes = [p for p in state.marks.get("guards.pass") or () if p.get("turn") == state.user_turns]
        allowed = {p.get("id") for p in passes}
        hits = [h for h in hits if h.guard.id not in allowed]
        if not hits:
            return None
        # ask where the host can ask someone now (its spec's nobody_to_ask: Hermes -z / --yolo)
        ask = all(h.guard.action == "ask" for h in hits) and can_ask(ctx.host)
        action = "ask" if ask else "deny"
        store = GuardStore(self.cfg, ctx.ledger)
        project_key = project.key if project is not None else ""
        lines = []
        for hit in hits:
            record: GuardRecord = compiled.records[hit.guard.id]
            lines.append(reason(hit, date=None if record.file else record.date, by_user=record.by_user,
                                action=action))
            try:  # counting the stop never stands between the call and its stop
                store.record_event(record.id, "stop", project=project_key, session_id=event.session_id,
                                   host=ctx.host, subject=hit.subject,
                                   ref=f"{event.id}:{record.id}" if event.id else None)
            except Exception as exc:  # noqa: BLE001
                self.warn("stop not counted", exc, event)
        stops = [s for s in state.marks.get("guards.stopped") or () if isinstance(s, dict)]
        stops.append({"key": call_key(event.name, event.args), "ids": [h.guard.id for h in hits],
                      "turn": state.user_turns, "ask": ask, "subject": hits[0].subject[:200],
                      "programs": sorted({p for h in hits for p in _programs(h.guard.match)})})
        state.marks["guards.stopped"] = stops[-MAX_STOPS:]
        return ToolCallResult(block=not ask, ask=ask, reason="\n".join(lines))

    def on_tool_result(self, event, ctx):
        state = ctx.state
        stops = state.marks.get("guards.stopped") or []
        checked = bool(state.marks.get("guards.on"))
        if checked and not stops:
            return None  # every call was checked before it ran, and none was stopped
        key = call_key(event.name, event.args)
        stop = next((s for s in reversed(stops) if isinstance(s, dict) and s.get("key") == key), None)
        project, cwd = self.place(ctx.cwd)
        project_key = project.key if project is not None else ""
        store = GuardStore(self.cfg, ctx.ledger)
        if stop is not None:
            state.marks["guards.stopped"] = [s for s in stops if s is not stop]
            if not event.ok and "tacit:" in (event.error or ""):
                return None  # the host reported our own stop as a failed call
            # it ran although it was stopped: the user answered the ask with yes
            return _strikes(store, stop["ids"], "override", event, ctx, project_key, stop.get("subject", ""))
        if checked:
            return None
        compiled = self.compiled(ctx.ledger, project, event)
        if not compiled.guards.guards:
            return None
        for hit in self.hits(compiled, event, cwd)[1]:
            record = compiled.records.get(hit.guard.id)
            if record is not None and record.lesson_at <= event.ts:
                # the lesson was saved, then broken again by a call nothing checked
                store.record_event(record.id, "repeat", project=project_key, session_id=event.session_id,
                                   host=ctx.host, subject=hit.subject,
                                   ref=f"{event.id}:{record.id}" if event.id else None, at=event.ts)
        return None

    def on_message(self, event, ctx):
        if event.role != "user":
            return None
        state = ctx.state
        stops = state.marks.get("guards.stopped")
        if not stops:
            return None
        last_turn = state.user_turns - 1  # the engine opened this message's turn already
        recent = [s for s in stops if isinstance(s, dict) and s.get("turn") == last_turn]
        # an answer refers to the turn just before it; older stops are forgotten
        state.marks["guards.stopped"] = [s for s in stops if isinstance(s, dict) and s.get("turn", -1) >= last_turn]
        if not recent:
            return None
        answer = read_reply(event.text, [p for s in recent for p in s.get("programs") or ()])
        if answer is None:
            return None
        ids = list(dict.fromkeys(gid for s in recent for gid in s.get("ids") or ()))
        state.marks["guards.stopped"] = [s for s in state.marks["guards.stopped"] if s not in recent]
        passes = [p for p in state.marks.get("guards.pass") or () if p.get("turn") == state.user_turns]
        state.marks["guards.pass"] = passes + [{"id": gid, "turn": state.user_turns} for gid in ids]
        project, _ = self.place(ctx.cwd)
        subject = recent[-1].get("subject", "")
        result = _strikes(GuardStore(self.cfg, ctx.ledger), ids, answer, event, ctx,
                          project.key if project is not None else "", subject)
        lifted = ", ".join(str(i) for i in ids)
        text = (f"tacit: the user lifted guard {lifted} for this turn"
                + (f"; `{subject}` may run now." if subject else "."))
        return ContextResult(context=[Injection(text, priority=15)], notices=result.notices)


def start_line(records: list, counts: dict) -> str:
    """``tacit checks 4 rules before each tool call: 2 from AGENTS.md, 1 from
    web/CLAUDE.md, 1 from your lessons (3 mistakes prevented so far).``"""
    from tacit.stores.guard_stats import prevented
    where: dict[str, int] = {}
    for r in records:
        name = r.file.rsplit(":", 1)[0] if r.file else ("your guards" if r.origin == "user" else "your lessons")
        where[name] = where.get(name, 0) + 1
    parts = ", ".join(f"{n} from {name}" for name, n in sorted(where.items(), key=lambda kv: (-kv[1], kv[0])))
    saved = sum(prevented(counts[r.id]) for r in records if r.id in counts)
    repeats = sum(counts[r.id].get("repeat", 0) for r in records if r.id in counts)
    figures = ([f"{saved} mistake{'s' if saved != 1 else ''} prevented"] if saved else []) + (
        [f"{repeats} repeated while unchecked"] if repeats else [])
    tail = f" ({', '.join(figures)} so far)" if figures else ""
    total = len(records)
    return (f"tacit checks {total} rule{'s' if total != 1 else ''} before each tool call: {parts}{tail}; "
            "a stopped call says why and how to lift it.")


def _strikes(store: GuardStore, ids, kind: str, event, ctx, project_key: str, subject: str) -> Result:
    notices = []
    for gid in ids:
        before = store.get(gid)
        outcome = store.strike(gid, kind, project=project_key, session_id=event.session_id, host=ctx.host,
                               subject=subject, ref=f"{event.id}:{gid}" if event.id else None)
        if outcome is None:
            continue
        why = "you let it run" if kind == "override" else "you said it was wrong"
        if outcome.change == "removed":
            notices.append(f"tacit: guard {gid} removed ({why} twice: \"{clip(outcome.record.lesson, 80)}\"); "
                           f"bring it back with `tacit guard restore {gid}`")
        else:  # an ask guard stays one: "demoted" only from deny
            now = "demoted to ask" if before is not None and before.action == "deny" else "still asks first"
            notices.append(f"tacit: guard {gid} {now} ({why}, 1 strike); once more and it is removed")
    return Result(notices=notices)


def _programs(match) -> tuple:
    if isinstance(match, CommandMatch):
        return match.programs
    if isinstance(match, SudoMatch):
        return ("sudo",)
    return ()


# The current branch, from the worktree's .git/HEAD (no git process)
_BRANCHES: dict[str, tuple] = {}
HEAD_PREFIX = "ref: refs/heads/"


@functools.lru_cache(maxsize=1024)
def _head_file(root: str) -> str | None:
    dot_git = os.path.join(root, ".git")
    git_dir = dot_git if os.path.isdir(dot_git) else read_gitdir_file(dot_git) if os.path.isfile(dot_git) else None
    return os.path.join(git_dir, "HEAD") if git_dir else None


def _read_cached(cache: dict, path: str, parse):
    """``parse(text)`` of the file at ``path``, cached by its mtime, size and inode; None when it cannot be read."""
    try:
        st = os.stat(path)
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        cached = cache.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        with open(path, encoding="utf-8", errors="replace") as handle:
            value = parse(handle.read(1 << 20))
    except OSError:
        return None
    if len(cache) > 1024:
        cache.clear()
    cache[path] = (stamp, value)
    return value


def _branch_of(head: str) -> str | None:
    first = head.split("\n", 1)[0].strip()
    return first[len(HEAD_PREFIX):] or None if first.startswith(HEAD_PREFIX) else None


def current_branch(root: str | None) -> str | None:
    """The branch checked out in the worktree at ``root``; None when detached, outside git or unreadable."""
    head = _head_file(root) if root else None
    return None if head is None else _read_cached(_BRANCHES, head, _branch_of)


_REMOTES: dict[str, tuple] = {}
_SECTION = re.compile(r'^\[\s*([\w.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')


def _git_config(config: str) -> tuple[frozenset, dict]:
    """(the remote names, {(section, name or "", key): value}) of a git config
    file: what a push with no remote needs (``branch.x.remote``, ``pushRemote``,
    ``remote.pushDefault``)."""
    remotes, values, section = set(), {}, ("", "")
    for raw in config.splitlines():
        line = raw.strip()
        m = _SECTION.match(line)
        if m:
            section = (m.group(1).lower(), m.group(2) or "")
            if section[0] == "remote" and section[1]:
                remotes.add(section[1])
            continue
        key, eq, value = line.partition("=")
        if eq and section[0] in ("branch", "remote"):
            values[(section[0], section[1], key.strip().lower())] = value.strip().strip('"')
    return frozenset(remotes), values


def _config_of(root: str | None) -> tuple | None:
    """(remotes, values) of the repository's git config (``_git_config``), or None."""
    head = _head_file(root) if root else None
    path = None if head is None else os.path.join(common_dir(os.path.dirname(head)), "config")
    return _read_cached(_REMOTES, path, _git_config) if path else None


def git_remotes(root: str | None) -> frozenset | None:
    """The remote names in the repository's config (``[remote "x"]``), read
    from the file (no git process), cached by its mtime; None when unknown."""
    found = _config_of(root)
    return found[0] if found else None


def push_default(root: str | None, branch: str | None) -> str | None:
    """The remote ``git push`` with none named goes to from ``branch``: its
    ``pushRemote``, ``remote.pushDefault``, its upstream's remote — or origin
    when that is the repository's only remote; None when unknown."""
    found = _config_of(root)
    if not found:
        return None
    remotes, values = found
    for key in (("branch", branch or "\0", "pushremote"), ("remote", "", "pushdefault"), ("branch", branch or "\0", "remote")):
        if values.get(key) and values[key] != ".":
            return values[key]
    return "origin" if remotes == {"origin"} else None


def git_facts(root: str | None) -> dict:
    """The ``branch``, ``remotes`` and ``upstream`` of the checkout at ``root``, as ``normalize_call`` takes them."""
    branch, remotes = current_branch(root), git_remotes(root)
    return {"branch": branch, "remotes": remotes, "upstream": push_default(root, branch) if remotes else None}


def unread_stop(call, host, note: str = "") -> ToolCallResult | None:
    """A call too long for the guards to read whole (``Call.cut``), where guards apply: asked where the
    host can ask, else stopped with how to split it; None for a call read whole."""
    if not call.cut:
        return None
    ask = can_ask(host)
    return ToolCallResult(block=not ask, ask=ask,
                          reason="\n".join(filter(None, [unread_reason("ask" if ask else "deny"), note])))
