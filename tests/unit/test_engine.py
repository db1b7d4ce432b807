"""The engine: registration, dispatch, turn accounting, session state (in memory
and file-backed, under concurrent writers), child claims, background modes,
the journal and ``tacit drain``, the recursion guard, ``build_engine`` modes."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import pytest
from engine_helpers import Recorder, write_config

from tacit.background import append_journal, drain, journal_path
from tacit.config import load_config
from tacit.engine import Engine
from tacit.events import (
    EVENT_TYPES,
    BeforeAgentStart,
    BeforeCompact,
    Command,
    InjectContext,
    MessageEnd,
    Notify,
    RunChild,
    SessionShutdown,
    SessionStart,
    ToolCall,
    ToolCallRecord,
    TurnEnd,
    event_from_dict,
    event_to_dict,
)
from tacit.handlers import BUILTIN_PLUGINS
from tacit.hosts.runtime import build_engine
from tacit.state import FileStateStore, MemoryStateStore, SessionState, _safe_name


def make_engine(cfg, *, builtins=True, **kwargs):
    engine = Engine(cfg, **kwargs)
    if builtins:
        engine.load_builtins()
    engine.launcher = Recorder()
    return engine


def turn(engine, sid, user, tools=(), reply="Done."):
    effects = engine.dispatch(MessageEnd(session_id=sid, role="user", text=user))
    for name in tools:
        effects += engine.dispatch(ToolCall(session_id=sid, name=name))
    effects += engine.dispatch(MessageEnd(session_id=sid, role="assistant", text=reply))
    effects += engine.dispatch(TurnEnd(session_id=sid))
    return effects


PROBE_PLUGIN = textwrap.dedent('''
    """A background plugin for tests: records every event it is handed."""
    import json, os, threading

    def register(engine):
        engine.on("tool_call", record, name="probe.record", background=True)
        engine.on("turn_end", record, name="probe.record_turn", background=True)

    def record(event, ctx):
        path = os.path.join(ctx.cfg.state_dir_str, "probe.jsonl")
        with open(path, "a") as handle:
            handle.write(json.dumps({"kind": event.kind, "name": getattr(event, "name", None),
                                     "ts": event.ts, "pid": os.getpid(),
                                     "thread": threading.current_thread().name,
                                     "foreground": ctx.foreground}) + "\\n")
''')


@pytest.fixture
def probe_plugin(tmp_path, monkeypatch):
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "tacit_probe_plugin.py").write_text(PROBE_PLUGIN)
    monkeypatch.syspath_prepend(str(folder))
    return folder


def probe_lines(cfg) -> list[dict]:
    path = Path(cfg.state_dir_str) / "probe.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


# ---------------------------------------------------------------------------
# Registration and dispatch
# ---------------------------------------------------------------------------


def test_builtins_are_registered_through_the_public_plugin_call(cfg):
    engine = Engine(cfg).load_builtins()
    assert engine.plugins == BUILTIN_PLUGINS
    assert engine.handlers_for("turn_end")[:3] == ["corrections.save", "review.nudge", "skill_trigger.turn"]
    assert engine.handlers_for("message_end")[:1] == ["corrections.detect"]
    assert "flush.compact" in engine.handlers_for("before_compact")
    assert "flush.shutdown" in engine.handlers_for("session_shutdown")
    assert engine.handlers_for("before_agent_start")[:1] == ["context.session"]


def test_third_party_plugin_registers_like_a_builtin_and_effects_carry_their_source(cfg):
    seen = []

    def on_turn(event, ctx):
        seen.append((event.kind, ctx.session_id, ctx.foreground))
        return [Notify(text="hello"), None, "not an effect"]

    plugin = types.SimpleNamespace(__name__="thirdparty",
                                   register=lambda engine: engine.on("turn_end", on_turn, name="tp.turn"))
    engine = Engine(cfg)
    engine.load_plugin(plugin)
    effects = turn(engine, "s1", "hello there")
    assert effects == [Notify(text="hello", source="tp.turn")]
    assert seen == [("turn_end", "s1", True)]
    assert engine.plugins == ["thirdparty"]


def test_priority_orders_handlers_and_ties_keep_registration_order(cfg):
    order = []
    engine = Engine(cfg)
    engine.on("command", lambda e, c: order.append("late"), name="late", priority=200)
    engine.on("command", lambda e, c: order.append("first"), name="first", priority=100)
    engine.on("command", lambda e, c: order.append("second"), name="second", priority=100)
    engine.on("command", lambda e, c: order.append("early"), name="early", priority=5)
    engine.dispatch(Command(session_id="s", name="deploy"))
    assert order == ["early", "first", "second", "late"]


def test_unknown_event_kind_is_refused_at_registration(cfg):
    with pytest.raises(ValueError, match="unknown event kind"):
        Engine(cfg).on("turn_start", lambda e, c: None)


def test_a_failing_handler_is_logged_and_the_others_still_run(cfg):
    engine = Engine(cfg)

    def boom(event, ctx):
        raise RuntimeError("kaboom in handler")

    engine.on("turn_end", boom, name="broken", priority=1)
    engine.on("turn_end", lambda e, c: Notify(text="still here"), name="fine", priority=2)
    effects = turn(engine, "s", "hi")
    assert [e.text for e in effects] == ["still here"]
    log = cfg.log_file.read_text()
    assert "handler broken on turn_end" in log and "kaboom in handler" in log


def test_a_broken_configured_plugin_is_logged_not_raised(cfg):
    engine = Engine(cfg.with_settings(plugins=["no_such_tacit_plugin_xyz"]))
    engine.load_configured_plugins()
    assert "loading plugin no_such_tacit_plugin_xyz" in cfg.log_file.read_text()
    assert engine.plugins == []


def test_effects_come_back_with_child_jobs_last(cfg):
    engine = make_engine(cfg, builtins=False)
    engine.on("turn_end", lambda e, c: RunChild(kind="review"), name="a", priority=1)
    engine.on("turn_end", lambda e, c: InjectContext(text="x", scope="prompt"), name="b", priority=2)
    effects = turn(engine, "s", "hi")
    assert [type(e).__name__ for e in effects] == ["InjectContext", "RunChild"]
    assert len(engine.launcher.jobs) == 1


def test_events_round_trip_through_dicts():
    samples = [
        SessionStart(session_id="s", source="resume"),
        BeforeAgentStart(session_id="s", prompt="p"),
        MessageEnd(session_id="s", role="assistant", text="t"),
        ToolCall(session_id="s", name="Bash", ok=False, args={"command": "ls"}, error="boom"),
        Command(session_id="s", name="memory-skills", args=""),
        TurnEnd(session_id="s", user_text="u", assistant_text="a",
                tool_calls=(ToolCallRecord(name="Read"), ToolCallRecord(name="Bash", ok=False))),
        BeforeCompact(session_id="s", trigger="manual"),
        SessionShutdown(session_id="s", reason="exit"),
    ]
    assert {e.kind for e in samples} == set(EVENT_TYPES)
    for event in samples:
        assert event_from_dict(json.loads(json.dumps(event_to_dict(event)))) == event
    with pytest.raises(TypeError):
        MessageEnd(role="user", text="no session id")
    with pytest.raises(AttributeError):
        samples[0].source = "changed"


# ---------------------------------------------------------------------------
# Turn accounting
# ---------------------------------------------------------------------------


def _spy(engine):
    seen = []
    engine.on("turn_end", lambda e, c: seen.append(e), name="spy", priority=1)
    return seen


def test_tool_calls_are_counted_per_turn_from_that_turns_events(cfg):
    engine = Engine(cfg)
    seen = _spy(engine)
    turn(engine, "s", "first", tools=["Read", "Edit", "Bash"])
    turn(engine, "s", "second", tools=["Bash"])
    turn(engine, "s", "third")
    assert [len(e.tool_calls) for e in seen] == [3, 1, 0]
    assert [c.name for c in seen[0].tool_calls] == ["Read", "Edit", "Bash"]
    state = engine.state_store.peek("s")
    assert state["tool_calls_since_review"] == 4  # each call counted once, when it happened
    assert state["user_turns"] == 3 and state["turns_since_review"] == 3


def test_failed_tool_calls_are_recorded_as_failed(cfg):
    engine = Engine(cfg)
    seen = _spy(engine)
    engine.dispatch(MessageEnd(session_id="s", role="user", text="go"))
    engine.dispatch(ToolCall(session_id="s", name="Bash", ok=False, error="exit 1"))
    engine.dispatch(TurnEnd(session_id="s"))
    assert seen[0].tool_calls == (ToolCallRecord(name="Bash", ok=False),)


def test_turn_end_is_completed_from_the_turns_events(cfg):
    engine = Engine(cfg)
    seen = _spy(engine)
    turn(engine, "s", "please add a test", tools=["Edit"], reply="Added tests/test_x.py.")
    assert seen[0].user_text == "please add a test"
    assert seen[0].assistant_text == "Added tests/test_x.py."
    recent = engine.state_store.peek("s")["recent"]
    assert recent == [{"role": "user", "text": "please add a test"},
                      {"role": "assistant", "text": "Added tests/test_x.py."}]


def test_host_supplied_turn_fields_win_and_are_not_recounted(cfg):
    engine = Engine(cfg)
    seen = _spy(engine)
    engine.dispatch(MessageEnd(session_id="s", role="user", text="u"))
    engine.dispatch(ToolCall(session_id="s", name="Bash"))
    calls = (ToolCallRecord(name="Read"), ToolCallRecord(name="Grep"))
    engine.dispatch(TurnEnd(session_id="s", tool_calls=calls, assistant_text="the reply"))
    assert seen[0].tool_calls == calls
    assert engine.state_store.peek("s")["recent"][-1] == {"role": "assistant", "text": "the reply"}


def test_sessions_are_independent(cfg):
    engine = Engine(cfg)
    turn(engine, "a", "one", tools=["Bash"] * 4)
    turn(engine, "b", "two")
    assert engine.state_store.peek("a")["tool_calls_since_review"] == 4
    assert engine.state_store.peek("b")["tool_calls_since_review"] == 0


# ---------------------------------------------------------------------------
# Recursion guard
# ---------------------------------------------------------------------------


def test_inside_a_child_dispatch_is_inert(tacit_env, tacit_home):
    child_cfg = load_config(env={**tacit_env, "TACIT_CHILD": "1"})
    assert child_cfg.is_child
    for mode in ("replay", "hook", "inprocess"):
        engine = build_engine(child_cfg, mode)
        recorder = Recorder()
        engine.launcher = recorder
        effects = engine.dispatch(BeforeAgentStart(session_id="g", prompt="x"))
        effects += turn(engine, "g", "no, don't do that. I told you to use pnpm",
                        tools=["Bash", "Edit"] * 6)
        effects += engine.dispatch(BeforeCompact(session_id="g"))
        assert effects == [] and recorder.jobs == []
    assert not (tacit_home / "sessions").exists()
    assert not (tacit_home / "jobs").exists()
    assert not (tacit_home / "journal.jsonl").exists()


# ---------------------------------------------------------------------------
# Child claims
# ---------------------------------------------------------------------------


def test_a_child_kind_is_never_doubled_while_it_runs(cfg):
    engine = make_engine(cfg, builtins=False)
    engine.on("turn_end", lambda e, c: [RunChild(kind="review"), RunChild(kind="review")], name="twice")
    turn(engine, "s", "one")
    assert len(engine.launcher.jobs) == 1
    job = engine.launcher.jobs[0]
    assert job["kind"] == "review" and job["session_id"] == "s"
    assert job["variables"]["recent"][0] == {"role": "user", "text": "one"}
    running = engine.state_store.peek("s")["running"]
    assert running["review"]["job_id"] == job["id"]
    turn(engine, "s", "two")
    assert len(engine.launcher.jobs) == 1  # still running
    engine.child_finished(job)
    assert engine.state_store.peek("s")["running"] == {}
    turn(engine, "s", "three")
    assert len(engine.launcher.jobs) == 2


def test_a_launcher_that_raises_is_logged_and_its_mark_cleared(cfg):
    engine = Engine(cfg)
    engine.on("turn_end", lambda e, c: RunChild(kind="flush"), name="f")

    def broken(job):
        raise OSError("no such agent")

    engine.launcher = broken
    effects = turn(engine, "s", "hi")
    assert [e.kind for e in effects if isinstance(e, RunChild)] == ["flush"]
    assert engine.state_store.peek("s")["running"] == {}
    assert "launching child flush" in cfg.log_file.read_text()


def test_without_a_launcher_no_job_is_claimed(cfg):
    engine = Engine(cfg)
    engine.on("turn_end", lambda e, c: RunChild(kind="review"), name="r")
    turn(engine, "s", "hi")
    assert engine.state_store.peek("s")["running"] == {}


def test_a_pid_is_recorded_and_a_dead_or_stale_child_no_longer_counts_as_running(cfg):
    state = SessionState({"running": {}})
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    state.mark_running("review", "j1", pid=proc.pid)
    assert not state.is_running("review", 600)  # the process is gone
    state.mark_running("review", "j2", pid=os.getpid())
    assert state.is_running("review", 600)
    state["running"]["review"]["started"] = time.time() - 1000
    assert not state.is_running("review", 600)  # a crashed runner's mark expires
    state.clear_running("review", "other-job")
    assert "review" in state["running"]  # only the job that set it clears it
    state.clear_running("review", "j2")
    assert state["running"] == {}

    engine = Engine(cfg)
    engine.on("turn_end", lambda e, c: RunChild(kind="review"), name="r")
    engine.launcher = lambda job: os.getpid()
    turn(engine, "s", "hi")
    assert engine.state_store.peek("s")["running"]["review"]["pid"] == os.getpid()


# ---------------------------------------------------------------------------
# File-backed session state
# ---------------------------------------------------------------------------


def test_hook_mode_state_survives_between_processes(cfg, tacit_home):
    # one engine per event, as in a hook host: the counters live in the file
    for text in ("one", "two"):
        build_engine(cfg, "hook", children=False).dispatch(MessageEnd(session_id="s", role="user", text=text))
        for _ in range(3):
            build_engine(cfg, "hook", children=False).dispatch(ToolCall(session_id="s", name="Bash"))
        build_engine(cfg, "hook", children=False).dispatch(TurnEnd(session_id="s", assistant_text="ok"))
    data = json.loads((tacit_home / "sessions" / "s.json").read_text())
    assert data["user_turns"] == 2 and data["tool_calls_since_review"] == 6
    assert data["turn"] == {"open": False, "user_text": "two", "tool_calls": [["Bash", True]] * 3}


def _hammer(env: dict, session_id: str, count: int) -> None:
    cfg = load_config(env=env)
    engine = build_engine(cfg, "hook", children=False)
    for i in range(count):
        engine.dispatch(ToolCall(session_id=session_id, name=f"T{os.getpid()}-{i}"))


@pytest.mark.stress
def test_concurrent_writers_never_lose_an_update(cfg, tacit_env):
    build_engine(cfg, "hook", children=False).dispatch(MessageEnd(session_id="busy", role="user", text="go"))
    processes, per_process = 4, 100
    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=_hammer, args=(tacit_env, "busy", per_process)) for _ in range(processes)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
        assert w.exitcode == 0
    state = FileStateStore(cfg.sessions_dir_str).peek("busy")
    assert state["tool_calls_since_review"] == processes * per_process
    names = [name for name, _ in state["turn"]["tool_calls"]]
    assert len(names) == len(set(names)) == processes * per_process


def test_a_corrupt_state_file_starts_afresh(cfg, tacit_home):
    (tacit_home / "sessions").mkdir()
    (tacit_home / "sessions" / "s.json").write_text("{not json")
    engine = build_engine(cfg, "hook", children=False)
    engine.dispatch(MessageEnd(session_id="s", role="user", text="hello"))
    assert json.loads((tacit_home / "sessions" / "s.json").read_text())["user_turns"] == 1


def test_session_ids_never_escape_the_sessions_folder(tmp_path):
    store = FileStateStore(str(tmp_path / "sessions"))
    for sid in ("../../etc/passwd", "/abs/path", "..", "", "a b/c", "x" * 300, "ünï"):
        path = Path(store.path_for(sid))
        assert path.parent == tmp_path / "sessions", sid
        with store.session(sid) as state:
            state["user_turns"] = 5
        assert store.peek(sid)["user_turns"] == 5
    assert _safe_name("abc-123_X.y") == "abc-123_X.y"
    assert _safe_name("../x") != _safe_name("__x")  # distinct ids never share a file


def test_stale_session_states_are_pruned_but_live_locks_kept(tmp_path):
    folder = tmp_path / "sessions"
    store = FileStateStore(str(folder), max_age_days=7)
    for sid in ("old", "new", "oldlock"):
        with store.session(sid):
            pass
    old = time.time() - 8 * 86400
    for name in ("old.json", "old.lock", "oldlock.lock"):
        os.utime(folder / name, (old, old))  # "oldlock": a live session's lock is old by nature
    assert store.prune() == 1
    assert sorted(os.listdir(folder)) == ["new.json", "new.lock", "oldlock.json", "oldlock.lock"]
    # maybe_prune runs at most once a day
    os.utime(folder / "new.json", (old, old))
    store.maybe_prune()
    assert not (folder / "new.json").exists()
    with store.session("new2"):
        pass
    os.utime(folder / "new2.json", (old, old))
    store.maybe_prune()
    assert (folder / "new2.json").exists()


# ---------------------------------------------------------------------------
# Background handlers: inline, thread, journal + drain
# ---------------------------------------------------------------------------


def test_inline_background_handlers_run_at_once_without_the_lock(cfg, probe_plugin):
    engine = Engine(cfg, background="inline")
    engine.load_plugin("tacit_probe_plugin")
    turn(engine, "s", "hi", tools=["Read", "Bash"])
    lines = probe_lines(cfg)
    assert [l["kind"] for l in lines] == ["tool_call", "tool_call", "turn_end"]
    assert all(l["foreground"] is False for l in lines)


def test_thread_background_handlers_run_on_the_worker(cfg, probe_plugin):
    engine = Engine(cfg, background="thread")
    engine.load_plugin("tacit_probe_plugin")
    turn(engine, "s", "hi", tools=["Read", "Bash", "Edit"])
    engine.flush_background(10)
    lines = probe_lines(cfg)
    assert [l["name"] for l in lines] == ["Read", "Bash", "Edit", None]
    assert {l["thread"] for l in lines} == {"tacit-background"}


def test_hook_mode_journals_background_events_and_drain_replays_them(cfg, probe_plugin, tacit_home):
    write_config(tacit_home, plugins=["tacit_probe_plugin"])
    cfg = load_config(env={"TACIT_HOME": str(tacit_home)})
    engine = build_engine(cfg, "hook", children=False)
    engine._maybe_kick_drain = lambda event: None  # drained by hand below
    turn(engine, "s", "hi", tools=["Read", "Bash"])
    assert probe_lines(cfg) == []  # nothing ran in the "hook"
    journal = Path(journal_path(cfg)).read_text().splitlines()
    kinds = [json.loads(l)["kind"] for l in journal]
    # built-in learners may journal the user's message too (importance capture)
    assert [k for k in kinds if k != "message_end"] == ["tool_call", "tool_call", "turn_end"]
    handled = drain(cfg, build_engine(cfg, "drain", children=False))
    assert handled == len(kinds)
    assert [l["kind"] for l in probe_lines(cfg)] == ["tool_call", "tool_call", "turn_end"]
    assert drain(cfg, build_engine(cfg, "drain", children=False)) == 0  # nothing left


def test_drain_skips_malformed_journal_lines_and_works_on_a_fresh_folder(cfg, probe_plugin, tacit_home):
    engine = build_engine(cfg, "drain", children=False)
    assert drain(cfg, engine) == 0  # no state folder content yet: not an error
    engine.load_plugin("tacit_probe_plugin")
    append_journal(cfg, ToolCall(session_id="s", name="Read"))
    with open(journal_path(cfg), "ab") as handle:
        handle.write(b"{broken\n" + b'{"kind": "nope", "session_id": "s"}\n')
    append_journal(cfg, ToolCall(session_id="s", name="Bash"))
    assert drain(cfg, engine) == 2
    assert [l["name"] for l in probe_lines(cfg)] == ["Read", "Bash"]
    assert "malformed journal line" in cfg.log_file.read_text()


def test_a_journal_left_by_a_crashed_drain_is_drained_next_time(cfg, probe_plugin):
    engine = build_engine(cfg, "drain", children=False)
    engine.load_plugin("tacit_probe_plugin")
    append_journal(cfg, ToolCall(session_id="s", name="Left"))
    os.replace(journal_path(cfg), journal_path(cfg) + ".4242.draining")  # the crashed drain's file
    append_journal(cfg, ToolCall(session_id="s", name="New"))
    assert drain(cfg, engine) == 2
    assert [l["name"] for l in probe_lines(cfg) if l["name"] in ("Left", "New")] == ["Left", "New"]
    assert not any(n.endswith(".draining") or n == "journal.jsonl" for n in os.listdir(cfg.state_dir_str))


def _append_events(env: dict, count: int, done: str) -> None:
    cfg = load_config(env=env)
    for i in range(count):
        append_journal(cfg, ToolCall(session_id="s", name=f"T{i}"))
    Path(done).touch()


def _drain_until_done(env: dict, plugin_dir: str, out: str, done: str) -> None:
    sys.path.insert(0, plugin_dir)
    cfg = load_config(env=env)
    engine = build_engine(cfg, "drain", children=False)
    handled = 0
    while not os.path.exists(done):
        handled += drain(cfg, engine)
    handled += drain(cfg, engine)
    with open(out, "a") as handle:
        handle.write(f"{handled}\n")


@pytest.mark.stress
def test_concurrent_drains_never_double_process(cfg, probe_plugin, tacit_home, tacit_env, tmp_path):
    """Three drains race each other while a hook keeps appending: every
    event is handled exactly once."""
    write_config(tacit_home, plugins=["tacit_probe_plugin"])
    cfg = load_config(env=tacit_env)
    events = 400
    out, done = tmp_path / "handled.txt", tmp_path / "appender.done"
    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=_drain_until_done, args=(tacit_env, str(probe_plugin), str(out), str(done)))
               for _ in range(3)]
    workers.append(ctx.Process(target=_append_events, args=(tacit_env, events, str(done))))
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
        assert w.exitcode == 0
    sys.path.insert(0, str(probe_plugin))
    leftover = drain(cfg, build_engine(cfg, "drain", children=False))  # a last append after the final drains
    names = [l["name"] for l in probe_lines(cfg)]
    assert sorted(names) == sorted(f"T{i}" for i in range(events))  # each exactly once
    assert sum(int(n) for n in out.read_text().split()) + leftover == events
    assert not Path(journal_path(cfg)).exists()


def test_tacit_drain_command_and_the_turn_end_kick(cfg, probe_plugin, tacit_home, tacit_env, monkeypatch):
    """End to end: a hook-mode turn journals, kicks a detached `tacit drain`,
    and the drain process replays the journal."""
    write_config(tacit_home, plugins=["tacit_probe_plugin"])
    monkeypatch.setenv("PYTHONPATH", str(probe_plugin) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cfg = load_config(env=tacit_env)
    engine = build_engine(cfg, "hook", children=False)
    turn(engine, "s", "hi", tools=["Read", "Grep"])
    deadline = time.time() + 30
    while len(probe_lines(cfg)) < 3 and time.time() < deadline:
        time.sleep(0.1)
    assert [l["kind"] for l in probe_lines(cfg)] == ["tool_call", "tool_call", "turn_end"]
    assert {l["pid"] for l in probe_lines(cfg)} != {os.getpid()}
    # and the command itself, run by hand
    append_journal(cfg, ToolCall(session_id="s", name="Write"))
    env = {**tacit_env, "PYTHONPATH": str(probe_plugin)}
    proc = subprocess.run([sys.executable, "-m", "tacit.cli", "drain"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"success": True, "handled": 1}


# ---------------------------------------------------------------------------
# build_engine modes
# ---------------------------------------------------------------------------


def test_build_engine_assembles_each_mode(cfg):
    from tacit import launchers

    hook = build_engine(cfg, "hook")
    assert isinstance(hook.state_store, FileStateStore) and hook.background == "journal"
    assert hook.launcher.__qualname__.startswith(launchers.detached_launcher.__name__)
    drain_engine = build_engine(cfg, "drain")
    assert isinstance(drain_engine.state_store, FileStateStore) and drain_engine.background == "inline"
    inproc = build_engine(cfg, "inprocess", entry_points=False)
    assert isinstance(inproc.state_store, MemoryStateStore) and inproc.background == "thread"
    assert inproc.launcher.__qualname__.startswith(launchers.thread_launcher.__name__)
    replay = build_engine(cfg, "replay")
    assert replay.launcher.__qualname__.startswith(launchers.inline_launcher.__name__)
    assert build_engine(cfg, "replay", children=False).launcher is None
    assert build_engine(cfg.with_settings(child_enabled=False), "hook").launcher is None
    for engine in (hook, drain_engine, inproc, replay):
        assert engine.plugins == BUILTIN_PLUGINS
    with pytest.raises(ValueError):
        build_engine(cfg, "nonsense")
