"""Replaying recorded sessions through the engine (``tacit learn``).

Design notes: docs/design/learn.md#tacitlearnreplay"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from contextlib import ExitStack, contextmanager, nullcontext, suppress
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Callable, Iterable, Iterator

from tacit.children.commands import agent_available, why_no_agent
from tacit.children.runner import run_job
from tacit.config import Config
from tacit.events import event_from_dict
from tacit.hosts import spec as host_specs
from tacit.projects import Project, project_for
from tacit.stores.memory import MemoryStore
from tacit.stores.skill_scopes import ScopedSkills

TACIT = "tacit"  # tacit's own format: one event per line
_DETECT_LINES = 50  # lines looked at to recognise a file's format
BATCH_EVENTS = 2000  # a dry run commits its scratch ledger this often


@dataclass(slots=True)
class FileStats:
    """What reading one file found (lines, events, what was skipped)."""

    path: str
    format: str | None = None
    lines: int = 0
    events: int = 0
    malformed: int = 0
    malformed_examples: list = field(default_factory=list)
    error: str | None = None

    def bad_line(self, lineno: int, why: str) -> None:
        self.malformed += 1
        if len(self.malformed_examples) < 5:
            self.malformed_examples.append(f"line {lineno}: {why}")

    def as_dict(self) -> dict:
        out = {"path": self.path, "format": self.format, "lines": self.lines, "events": self.events,
               "malformed_lines": self.malformed}
        if self.malformed_examples:
            out["malformed_examples"] = self.malformed_examples
        if self.error:
            out["error"] = self.error
        return out


# Finding and recognising files
def expand_paths(paths: Iterable[str]) -> tuple[list[Path], list[dict]]:
    """Files to replay (folders searched recursively for ``*.jsonl``, sorted),
    and a problem entry for each path that is neither."""
    files: list[Path] = []
    problems: list[dict] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.jsonl") if p.is_file()))
        elif path.is_file():
            files.append(path)
        else:  # /dev/zero, a fifo: read as a transcript it would never end
            problems.append({"path": str(raw), "error": "not a regular file or folder" if os.path.lexists(path)
                             else "no such file or folder"})
    unique: dict = {}  # the first path to each real file
    for f in files:
        unique.setdefault(os.path.realpath(f), f)
    return list(unique.values()), problems


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) streamed from a file; invalid UTF-8 is replaced."""
    with open(path, "rb") as handle:
        for lineno, raw in enumerate(handle, 1):
            yield lineno, raw.decode("utf-8", errors="replace")


def detect_format(path: Path) -> str | None:
    """The host whose transcript this is, "tacit", or None when no line looks like either."""
    try:
        texts = (text.strip() for _, text in _lines(path))
        for text in islice(filter(None, texts), _DETECT_LINES):
            data = _object(text)
            if isinstance(data, str):
                continue
            if isinstance(data.get("kind"), str):
                return TACIT
            for name, reader in _host_readers().items():
                if reader.detect(data):
                    return name
    except OSError:
        return None
    return None


def _object(text: str) -> dict | str:
    """The JSON object a line holds, or why it holds none."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # a line nested past Python's limit is one bad line
        return "not JSON"
    return data if isinstance(data, dict) else "not a JSON object"


# tacit's own format: one event per line
def json_objects(path: Path, stats: FileStats) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each JSON-object line of a JSONL file: every line counted, blank ones
    skipped, any other that is not a JSON object recorded as malformed and skipped."""
    for lineno, text in _lines(path):
        stats.lines += 1
        text = text.strip()
        if not text:
            continue
        data = _object(text)
        if isinstance(data, str):
            stats.bad_line(lineno, data)
            continue
        yield lineno, data


def read_tacit(path: Path, stats: FileStats) -> Iterator:
    """Events from a tacit JSONL file. ``session_id`` defaults to the file name."""
    default_sid = path.stem
    cwds: dict = {}  # a session's folder, said once (session_start), holds for its later lines
    for lineno, data in json_objects(path, stats):
        data.setdefault("session_id", default_sid)
        sid = data["session_id"] if isinstance(data["session_id"], str) else None  # else: refused below
        if sid is not None and isinstance(data.get("cwd"), str) and data["cwd"]:
            cwds[sid] = data["cwd"]
        elif sid in cwds and "cwd" not in data:
            data["cwd"] = cwds[sid]
        if data.get("kind") == "tool_call":
            data["kind"] = "tool_result"  # a recorded call has run; nothing to stop in a replay
        calls = data.get("tool_calls")
        if isinstance(calls, list):  # allow ["Bash", "Edit"] as a shorthand
            data["tool_calls"] = [{"name": c} if isinstance(c, str) else c for c in calls]
        try:
            event = event_from_dict(data)
        except KeyError:
            stats.bad_line(lineno, f"unknown or missing kind {data.get('kind')!r}")
            continue
        except (TypeError, ValueError) as exc:
            stats.bad_line(lineno, str(exc))
            continue
        if not isinstance(event.session_id, str) or not event.session_id:
            stats.bad_line(lineno, "session_id must be a non-empty string")
            continue
        if event.kind == "message_end" and (event.role not in ("user", "assistant")
                                            or not isinstance(event.text, str)):
            stats.bad_line(lineno, "message_end needs role user|assistant and a text string")
            continue
        if event.kind == "tool_result" and not (isinstance(event.name, str) and isinstance(event.ok, bool)
                                                and isinstance(event.args, dict)):
            stats.bad_line(lineno, "tool_result needs a name string, ok true|false and an args object")
            continue
        if not isinstance(event.ts, (int, float)) or isinstance(event.ts, bool):
            stats.bad_line(lineno, "ts must be a number (unix seconds)")
            continue
        yield event


def _host_readers() -> dict:
    """host -> the module reading its transcripts (its spec's ``transcripts``)."""
    return {name: host.load("transcripts") for name, host in host_specs.registry().items() if host.transcripts}


def formats() -> dict[str, str]:
    """Every format ``tacit learn`` reads -> what it is called."""
    return {**{name: host.transcript_label or f"{host.label} transcript"
               for name, host in host_specs.registry().items() if host.transcripts}, TACIT: "tacit JSONL"}


# Replay
def _scratch_config(cfg, folder: str):
    """A Config like ``cfg`` whose data folder is ``folder``, holding a copy of
    the memory files (so a dry run sees the same memory and writes nowhere)."""
    scratch = Config(folder, folder, cfg.host, cfg.is_child, dict(cfg.settings), list(cfg.problems),
                     dict(cfg.env), dict(cfg.sources))
    for source, dest in ((cfg.memory_file, scratch.memory_file), (cfg.user_file, scratch.user_file)):
        with suppress(OSError):
            if source.is_file():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, dest)
    return scratch


def _job_detail(job: dict) -> dict:
    v = job.get("variables", {})
    kind = job["kind"]
    if kind == "correction":
        return {"correction": v.get("correction", ""), "earlier": list(v.get("earlier_corrections") or [])}
    if kind == "review":
        return {"reason": v.get("reason", "")}
    if kind == "skill":
        return {"tool_call_count": v.get("tool_call_count", 0), "tool_names": v.get("tool_names", [])}
    if kind == "flush":
        return {"why": v.get("why", "")}
    return {}


def replay(cfg, paths: Iterable[str], *, build_engine: Callable, apply: bool = False, host: str | None = None,
           progress: Callable[[dict], None] | None = None) -> dict:
    """Replay recorded sessions through the caller's ``build_engine``; the report (bad input: problems in
    it, never raised). ``apply=False`` writes nothing; ``progress`` gets files done and events now and then."""
    started = time.time()
    files, problems = expand_paths(paths)
    scratch = nullcontext() if apply else tempfile.TemporaryDirectory(prefix="tacit-learn-",
                                                                       ignore_cleanup_errors=True)
    with scratch as scratch_dir:
        run_cfg = _scratch_config(cfg, scratch_dir) if scratch_dir else cfg
        return _replay(cfg, run_cfg, files, problems, apply=apply, host=host, progress=progress,
                       started=started, build_engine=build_engine)


def _memory_entries(cfg, projects=()) -> dict:
    """"memory" (global), "user", and "project:<root>" / "team:<root>" of each of ``projects``."""
    store = MemoryStore(cfg)
    out = {t: store.entries(t) for t in ("memory", "user")}
    for project in projects:
        store = MemoryStore(cfg, project)
        out.update({f"{t}:{project.main_root}": store.entries(t) for t in store.targets() if t in ("project", "team")})
    return out


def _skill_versions(cfg, projects=()) -> dict:
    """(scope, name) -> version of every usable skill: the global ones, and each of ``projects``'."""
    out: dict = {}
    for project in [None, *projects]:
        out.update({(s["scope"], s["name"]): s.get("version") for s in ScopedSkills(cfg, project).list()["skills"]})
    return out


def _skills_made(before: dict, after: dict) -> dict:
    return {"created": [f"{name} ({scope})" for (scope, name) in after if (scope, name) not in before],
            "changed": [f"{name} ({scope})" for (scope, name), version in after.items()
                        if (scope, name) in before and before[(scope, name)] != version]}


def _note_project(cfg, job: dict, projects: dict, before: dict, skills_before: dict) -> None:
    """The memory and skills of ``job``'s project as they are before its first run, kept once."""
    project = _project_of(cfg, job.get("cwd"))
    if project is not None and project.main_root not in projects:
        projects[project.main_root] = project
        for key, entries in _memory_entries(cfg, [project]).items():
            before.setdefault(key, entries)  # USER.md and the global notes: as they were at the start
        for key, version in _skill_versions(cfg, [project]).items():
            skills_before.setdefault(key, version)


def _project_of(cfg, cwd) -> Project | None:
    try:
        return project_for(cwd, home=cfg.env.get("HOME")) if cwd else None
    except Exception:  # noqa: BLE001 — a folder that is not there (another machine's transcript)
        return None


@contextmanager
def _batched(ledger, enabled: bool):
    """``tick()`` after each event: with ``enabled``, events run inside one
    ledger transaction committed every ``BATCH_EVENTS`` events."""
    if not enabled:
        yield lambda: None
        return
    with ExitStack() as txn:  # the open transaction: committed, or left with the exception
        txn.enter_context(ledger.write())
        done = 0

        def tick() -> None:
            nonlocal done
            done += 1
            if done >= BATCH_EVENTS:
                txn.close()  # commit, then open the next one
                txn.enter_context(ledger.write())
                done = 0

        yield tick


def _replay(cfg, run_cfg, files, problems, *, apply, host, progress, started, build_engine) -> dict:
    host = host if host is not None else cfg.host
    engine = build_engine(run_cfg, "replay", host=host or "", children=False, discover_plugins=False)
    agent = agent_available(run_cfg, host) if apply else False
    records: dict[str, dict] = {}
    launched: list[dict] = []
    reading = {"host": ""}  # whose transcript is being read: `tacit cost` names it for a run with no agent host

    def launcher(job: dict):
        launched.append(job)
        try:
            if apply:
                _note_project(run_cfg, job, projects, before, skills_before)
                records[job["id"]] = run_job(run_cfg, {**job, "learned_from": reading["host"]})
        finally:
            engine.child_finished(job)
        return None

    engine.launcher = launcher
    notes_after = _review_notes(engine)  # the newest id: what the replay notes for review comes after it
    before = _memory_entries(cfg) if apply else {}
    projects: dict = {}  # main root -> Project: of the jobs run, their memory files are compared too
    skills_before = _skill_versions(cfg) if apply else {}

    file_reports: list[dict] = list(problems)
    sessions: list[dict] = []
    total_events = 0
    last_progress = 0.0
    for index, path in enumerate(files):
        fmt = detect_format(path)
        stats = FileStats(str(path), fmt)
        if fmt is None:
            stats.error = f"not a {' or '.join(formats().values())} (no recognisable line)"
            file_reports.append(stats.as_dict())
            continue
        by_session: dict[str, dict] = {}
        reading["host"] = fmt if fmt != TACIT else "learn"
        try:
            with _batched(engine.ledger(), not apply) as tick:
                for event in (read_tacit if fmt == TACIT else _host_readers()[fmt].read)(path, stats):
                    stats.events += 1
                    report = by_session.get(event.session_id) or by_session.setdefault(event.session_id, {
                        "session_id": event.session_id, "file": str(path), "format": fmt, "turns": 0,
                        "tool_calls": 0, "commands": 0, "corrections": [], "jobs": [], "pending_correction": None})
                    _dispatch_one(engine, event, report, launched, records)
                    tick()
                    total_events += 1
                    if progress and time.monotonic() - last_progress > 0.25:
                        last_progress = time.monotonic()
                        progress({"file": str(path), "files_done": index, "files_total": len(files),
                                  "events": total_events})
        except OSError as exc:
            stats.error = f"cannot read: {exc}"
        for report in by_session.values():
            pending = engine.sessions.peek(report["session_id"]).pending_correction
            if pending:
                report["pending_correction"] = pending["text"]
            if report["turns"] or report["jobs"] or report["commands"]:
                sessions.append(report)
        file_reports.append(stats.as_dict())
    if progress:
        progress({"file": None, "files_done": len(files), "files_total": len(files), "events": total_events})

    totals = {"files": len(files), "sessions": len(sessions), "events": total_events,
              "turns": sum(s["turns"] for s in sessions),
              "tool_calls": sum(s["tool_calls"] for s in sessions),
              "corrections": sum(len(s["corrections"]) for s in sessions),
              "malformed_lines": sum(f.get("malformed_lines", 0) for f in file_reports)}
    for kind in ("correction", "review", "skill", "flush", "consolidate"):
        totals[f"{kind}_jobs"] = sum(1 for s in sessions for j in s["jobs"] if j["kind"] == kind)
    result = {"success": True, "dry_run": not apply, "host": host, "files": file_reports, "sessions": sessions,
              "totals": totals, "is_child": bool(cfg.is_child), "seconds": round(time.time() - started, 3),
              "review_notes": _review_notes(engine, notes_after)}
    if apply:
        after = _memory_entries(cfg, projects.values())
        result["skills"] = _skills_made(skills_before, _skill_versions(cfg, projects.values()))
        result.update(agent=agent, **({} if agent else {"no_agent": why_no_agent(run_cfg, host)}))
        result["added"] = {t: [e for e in after[t] if e not in before[t]] for t in after}
        result["removed"] = {t: [e for e in before[t] if e not in after[t]] for t in after}
    return result


def _review_notes(engine, after: int | None = None) -> int:
    """The ledger's newest memory id (``after`` None), or how many undecided review notes (importance
    captures, ``tacit review``) came after ``after``."""
    from tacit.learn.captures import SOURCE
    from tacit.stores import candidates

    with engine.ledger().read() as conn:
        if after is None:
            return candidates.newest_id(conn)
        return candidates.count_after(conn, SOURCE, after, "candidate")


def _dispatch_one(engine, event, data: dict, launched: list, records: dict) -> None:
    already = len(launched)
    engine.dispatch(event)
    if event.kind == "tool_result":  # nothing in the session state to report
        data["tool_calls"] += 1
        if len(launched) == already:
            return
    state = engine.sessions.peek(event.session_id)
    if event.kind == "message_end" and event.role == "user":
        data["turns"] = state.user_turns
        pending = state.pending_correction
        if pending and pending.get("turn") == state.user_turns and pending.get("text") == event.text[:4000]:
            data["corrections"].append({"turn": state.user_turns, "text": event.text,
                                        "rule": pending.get("rule"), "matched": pending.get("matched")})
    elif event.kind == "command":
        data["commands"] += 1
    for job in launched[already:]:
        entry = {"kind": job["kind"], "turn": state.user_turns, **_job_detail(job)}
        record = records.get(job["id"])
        if record is not None:
            entry.update(ok=bool(record.get("ok")), mode=record.get("mode"))
            entry.update({key: record[key] for key in ("saved", "skipped", "error", "nothing_to_save",
                                                       "left_for_review", "refused") if record.get(key)})
        data["jobs"].append(entry)
