"""The engine: registration, typed results, turn accounting, session state in
the ledger (exactly once by event id, healed when damaged, shared between
processes), child claims, background work (inline, thread, durable after a
crash), the recursion guard, ``build_engine`` modes."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import textwrap
import threading
import time
from pathlib import Path

import pytest
from engine_helpers import Recorder, write_config

from tacit.config import load_config
from tacit.engine import BackgroundWorker, Engine, result_from_dict, result_to_dict
from tacit.events import (
    EVENT_TYPES,
    BeforeAgentStart,
    Command,
    MessageEnd,
    SessionShutdown,
    SessionStart,
    ToolCall,
    ToolCallRecord,
    ToolResult,
    TurnEnd,
    event_from_dict,
    event_to_dict,
)
from tacit.handlers import BUILTIN_PLUGINS
from tacit.hookspecs import ChildRequest, ContextResult, Injection, Result, ToolCallResult
from tacit.hosts.runtime import build_engine
from tacit.session import SessionState


def make_engine(cfg, *, builtins=True, **kwargs):
    engine = Engine(cfg, **kwargs)
    if builtins:
        engine.load_builtins()
    engine.launcher = Recorder()
    return engine


def turn(engine, sid, user, tools=(), reply="Done."):
    results = [engine.dispatch(MessageEnd(session_id=sid, role="user", text=user))]
    for name in tools:
        results.append(engine.dispatch(ToolResult(session_id=sid, name=name)))
    results.append(engine.dispatch(MessageEnd(session_id=sid, role="assistant", text=reply)))
    results.append(engine.dispatch(TurnEnd(session_id=sid)))
    return results


PROBE_PLUGIN = textwrap.dedent('''
    """A background plugin for tests: records every event it is handed, in the ledger."""
    import threading

    def register(engine):
        engine.on("tool_result", record, name="probe.record", background=True)
        engine.on("turn_end", record, name="probe.record_turn", background=True)

    def record(event, ctx):
        with ctx.ledger.write() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS probe (kind TEXT, name TEXT, id TEXT, thread TEXT, fg INTEGER)")
            conn.execute("INSERT INTO probe VALUES (?, ?, ?, ?, ?)",
                         (event.kind, getattr(event, "name", None), event.id,
                          threading.current_thread().name, int(ctx.foreground)))
''')


@pytest.fixture
def probe_plugin(tmp_path, monkeypatch):
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "tacit_probe_plugin.py").write_text(PROBE_PLUGIN)
    monkeypatch.syspath_prepend(str(folder))
    return folder


def probe_rows(cfg) -> list[tuple]:
    conn = sqlite3.connect(os.path.join(cfg.state_dir_str, "ledger.db"))
    try:
        return conn.execute("SELECT kind, name, id, thread, fg FROM probe ORDER BY rowid").fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


# ---------------------------------------------------------------------------
# Registration and typed results
# ---------------------------------------------------------------------------

def test_builtins_are_registered_through_the_public_plugin_call(cfg):
    engine = make_engine(cfg)
    assert engine.plugins == BUILTIN_PLUGINS
    assert "corrections.detect" in engine.handlers_for("message_end")
    assert "review.nudge" in engine.handlers_for("turn_end")
    assert "context.session" in engine.handlers_for("before_agent_start")


def test_a_third_party_plugin_registers_like_a_builtin_and_results_carry_their_source(cfg):
    class Plugin:
        @staticmethod
        def register(engine):
            engine.on("before_agent_start", lambda e, c: ContextResult(context=[Injection("hello")]),
                      name="third.hello")

    engine = make_engine(cfg, builtins=False)
    engine.load_plugin(Plugin)
    result = engine.dispatch(BeforeAgentStart(session_id="s"))
    assert [(i.text, i.source) for i in result.context] == [("hello", "third.hello")]


def test_priority_orders_handlers_and_ties_keep_registration_order(cfg):
    engine = make_engine(cfg, builtins=False)
    for name, prio in (("b", 50), ("a", 10), ("c", 50)):
        engine.on("session_start", lambda e, c, n=name: Result(notices=[n]), name=name, priority=prio)
    assert engine.dispatch(SessionStart(session_id="s")).notices == ["a", "b", "c"]


def test_unknown_event_kind_is_refused_at_registration(cfg):
    with pytest.raises(ValueError, match="unknown event kind"):
        make_engine(cfg, builtins=False).on("pre_tool", lambda e, c: None)


def test_a_failing_handler_is_logged_and_the_others_still_run(cfg):
    engine = make_engine(cfg, builtins=False)

    def boom(event, ctx):
        raise RuntimeError("kaboom")

    engine.on("session_start", boom, name="boom", priority=1)
    engine.on("session_start", lambda e, c: Result(notices=["after"]), name="ok", priority=2)
    assert engine.dispatch(SessionStart(session_id="s")).notices == ["after"]
    assert "kaboom" in cfg.log_file.read_text()


def test_a_handler_returning_the_wrong_type_is_logged_and_dropped(cfg):
    engine = make_engine(cfg, builtins=False)
    engine.on("session_start", lambda e, c: ["not", "a", "result"], name="wrong")
    assert engine.dispatch(SessionStart(session_id="s")).notices == []
    assert "not a Result" in cfg.log_file.read_text()


def test_a_broken_configured_plugin_is_logged_not_raised(tacit_home, tacit_env):
    write_config(tacit_home, plugins=["no_such_module_anywhere"])
    engine = make_engine(load_config(env=tacit_env))
    engine.load_configured_plugins(discover=False)
    assert "no_such_module_anywhere" in (tacit_home / "logs" / "tacit.log").read_text()


def test_tool_call_results_merge_block_beats_ask_and_reasons_join(cfg):
    engine = make_engine(cfg, builtins=False)
    engine.on("tool_call", lambda e, c: ToolCallResult(ask=True, reason="first"), name="a", priority=1)
    engine.on("tool_call", lambda e, c: ToolCallResult(block=True, reason="second"), name="b", priority=2)
    engine.on("tool_call", lambda e, c: None, name="c", priority=3)
    result = engine.dispatch(ToolCall(session_id="s", name="Bash", args={"command": "npm i"}))
    assert isinstance(result, ToolCallResult)
    assert result.block and not result.ask and result.reason == "first\nsecond"


def test_child_requests_never_reach_the_host(cfg):
    engine = make_engine(cfg, builtins=False)
    engine.on("turn_end", lambda e, c: Result(notices=["n"], children=[ChildRequest("review")]), name="r")
    result = engine.dispatch(TurnEnd(session_id="s"))
    assert result.notices == ["n"] and result.children == []
    assert engine.launcher.kinds() == ["review"]
    assert engine.launcher.jobs[0]["source"] == "r"


def test_results_round_trip_through_dicts():
    original = ContextResult(notices=["x"], context=[Injection("ctx", 20, "h")])
    assert result_from_dict(ContextResult, result_to_dict(original)).context == original.context
    stop = ToolCallResult(block=True, reason="no")
    back = result_from_dict(ToolCallResult, result_to_dict(stop))
    assert back.block and back.reason == "no"
    assert result_from_dict(Result, "garbage").notices == []


def test_events_round_trip_through_dicts_and_unknown_fields_are_dropped():
    for cls in EVENT_TYPES.values():
        event = cls(session_id="s", host="claude-code", id="e1")
        assert event_from_dict(event_to_dict(event)) == event
    turn_end = TurnEnd(session_id="s", tool_calls=(ToolCallRecord("Bash", False),))
    assert event_from_dict(json.loads(json.dumps(event_to_dict(turn_end)))) == turn_end
    newer = {**event_to_dict(MessageEnd(session_id="s", text="hi")), "mood": "happy"}
    assert event_from_dict(newer).text == "hi"


# ---------------------------------------------------------------------------
# Turn accounting
# ---------------------------------------------------------------------------

def test_tool_calls_are_counted_per_turn_from_that_turns_events(cfg):
    engine = make_engine(cfg)
    turn(engine, "s", "first task please", tools=["Bash", "Edit", "Bash"])
    state = engine.sessions.peek("s")
    assert state.user_turns == 1 and state.tool_calls_since_review == 3
    assert state.turn.tool_calls == [["Bash", True], ["Edit", True], ["Bash", True]]
    turn(engine, "s", "second task", tools=["Read"])
    assert engine.sessions.peek("s").turn.tool_calls == [["Read", True]]


def test_turn_end_is_completed_from_the_turns_events(cfg):
    engine = make_engine(cfg, builtins=False)
    seen = []
    engine.on("turn_end", lambda e, c: seen.append(e), name="seen")
    engine.dispatch(MessageEnd(session_id="s", role="user", text="fix the parser"))
    engine.dispatch(ToolResult(session_id="s", name="Bash", ok=False, error="exit 1"))
    engine.dispatch(MessageEnd(session_id="s", role="assistant", text="the reply"))
    engine.dispatch(TurnEnd(session_id="s"))
    event = seen[0]
    assert event.user_text == "fix the parser" and event.assistant_text == "the reply"
    assert event.tool_calls == (ToolCallRecord("Bash", False),)
    assert engine.sessions.peek("s").recent[-1] == {"role": "assistant", "text": "the reply"}


def test_host_supplied_turn_fields_win(cfg):
    engine = make_engine(cfg, builtins=False)
    seen = []
    engine.on("turn_end", lambda e, c: seen.append(e), name="seen")
    engine.dispatch(ToolResult(session_id="s", name="Bash"))
    engine.dispatch(TurnEnd(session_id="s", user_text="u", assistant_text="a",
                            tool_calls=(ToolCallRecord("X"),)))
    assert seen[0].tool_calls == (ToolCallRecord("X"),) and seen[0].user_text == "u"


def test_sessions_are_independent(cfg):
    engine = make_engine(cfg)
    for _ in range(4):
        engine.dispatch(ToolResult(session_id="a", name="Bash"))
    assert engine.sessions.peek("a").tool_calls_since_review == 4
    assert engine.sessions.peek("b").tool_calls_since_review == 0


def test_inside_a_child_dispatch_is_inert(tacit_env):
    cfg = load_config(env={**tacit_env, "TACIT_CHILD": "1"})
    engine = make_engine(cfg)
    result = engine.dispatch(MessageEnd(session_id="s", role="user", text="no, that's wrong, use pnpm"))
    assert isinstance(result, ContextResult) and not result.context
    assert engine.launcher.jobs == []
    assert not Path(cfg.state_dir_str, "ledger.db").exists()


# ---------------------------------------------------------------------------
# State in the ledger: exactly once, shared, healed, bounded
# ---------------------------------------------------------------------------

def test_an_event_retried_with_its_id_is_applied_once_and_answered_the_same(cfg):
    engine = make_engine(cfg, builtins=False)
    engine.on("session_start", lambda e, c: Result(notices=[f"hello {c.state.user_turns}"]), name="n")
    first = engine.dispatch(SessionStart(session_id="s", id="evt-1"))
    for _ in range(3):
        engine.dispatch(ToolResult(session_id="s", name="Bash", id="tool-1"))
    again = engine.dispatch(SessionStart(session_id="s", id="evt-1"))
    assert again.notices == first.notices == ["hello 0"]
    assert engine.sessions.peek("s").tool_calls_since_review == 1


def test_two_engines_on_one_data_folder_see_each_others_state(cfg):
    one, two = make_engine(cfg), make_engine(cfg)
    one.dispatch(ToolResult(session_id="s", name="Bash"))
    two.dispatch(ToolResult(session_id="s", name="Edit"))
    one.dispatch(ToolResult(session_id="s", name="Read"))
    assert one.sessions.peek("s").tool_calls_since_review == 3
    assert two.sessions.peek("s").turn.tool_calls == [["Bash", True], ["Edit", True], ["Read", True]]


def _hammer(env, n, start):
    engine = Engine(load_config(env=env)).load_builtins()
    for i in range(n):
        engine.dispatch(ToolResult(session_id="shared", name="Bash", id=f"p{start}-{i}"))


def test_concurrent_processes_never_lose_an_update(cfg, tacit_env):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_hammer, args=(tacit_env, 40, p)) for p in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert all(p.exitcode == 0 for p in procs)
    assert make_engine(cfg).sessions.peek("shared").tool_calls_since_review == 160
    assert "database is locked" not in (cfg.log_file.read_text() if cfg.log_file.exists() else "")


def test_a_damaged_state_row_heals_field_by_field(cfg):
    engine = make_engine(cfg)
    engine.dispatch(ToolResult(session_id="s", name="Bash"))
    with engine.ledger().write() as conn:
        conn.execute("UPDATE sessions SET state = ?, rev = rev + 1 WHERE session_id = 's'",
                     (json.dumps({"user_turns": "three", "tool_calls_since_review": 7,
                                  "turn": {"tool_calls": "nope"}, "pending_correction": 5}),))
    state = engine.sessions.peek("s")
    assert state.user_turns == 0 and state.tool_calls_since_review == 7
    assert state.turn.tool_calls == [] and state.pending_correction is None
    with engine.ledger().write() as conn:
        conn.execute("UPDATE sessions SET state = 'not json', rev = rev + 1 WHERE session_id = 's'")
    engine.dispatch(ToolResult(session_id="s", name="Edit"))
    assert engine.sessions.peek("s").tool_calls_since_review == 1


def test_a_huge_prompt_is_never_stored_whole(cfg):
    engine = make_engine(cfg, background="thread")
    engine._schedule_background = lambda: None  # keep the event pending, as stored
    engine.dispatch(MessageEnd(session_id="s", role="user", text="x" * 20_000_000))
    with engine.ledger().read() as conn:
        size = conn.execute("SELECT length(state) FROM sessions WHERE session_id = 's'").fetchone()[0]
        events = conn.execute("SELECT max(length(coalesce(event, ''))) FROM events").fetchone()[0]
    assert size < 20_000
    assert events < 100_000  # the analysis and the learners got the head, not 20 MB


def test_session_state_round_trips_and_leaves_the_conversation_out():
    state = SessionState(session_id="s")
    state.begin_turn("hello")
    state.add_tool_call("Bash", False)
    state.pending_correction = {"text": "no"}
    back = SessionState.from_json("s", state.to_json())
    assert back.user_turns == 1 and back.turn.tool_calls == [["Bash", False]]
    assert back.pending_correction == {"text": "no"} and back.recent == []
    assert "recent" not in json.loads(state.to_json())


# ---------------------------------------------------------------------------
# Children
# ---------------------------------------------------------------------------

def _due(engine, kind="review"):
    engine.on("turn_end", lambda e, c: Result(children=[ChildRequest(kind)]), name=f"want.{kind}")


def test_a_child_kind_is_never_doubled_while_it_runs(cfg):
    engine = make_engine(cfg, builtins=False)
    _due(engine)
    engine.dispatch(TurnEnd(session_id="s"))
    engine.dispatch(TurnEnd(session_id="s"))
    assert engine.launcher.kinds() == ["review"]
    running = engine.sessions.peek("s").running
    assert running["review"]["job_id"] == engine.launcher.jobs[0]["id"]
    engine.child_finished(engine.launcher.jobs[0])
    engine.dispatch(TurnEnd(session_id="s"))
    assert engine.launcher.kinds() == ["review", "review"]


def test_the_job_commits_with_the_event_that_asked_for_it(cfg):
    engine = make_engine(cfg, builtins=False)
    _due(engine, "flush")
    engine.dispatch(TurnEnd(session_id="s"))
    job_id = engine.launcher.jobs[0]["id"]
    with engine.ledger().read() as conn:
        row = conn.execute("SELECT kind, status, session_id FROM jobs WHERE id = ?", (job_id,)).fetchone()
    assert row == ("flush", "queued", "s")


def test_a_launcher_that_raises_is_logged_its_mark_cleared_and_the_fallback_runs(cfg):
    engine = make_engine(cfg, builtins=False)
    _due(engine, "consolidate")

    def broken(job):
        raise OSError("no such program")

    engine.launcher = broken
    engine.dispatch(TurnEnd(session_id="s"))
    assert engine.sessions.peek("s").running == {}
    assert "no such program" in cfg.log_file.read_text()


def test_without_a_launcher_no_job_is_claimed(cfg):
    engine = make_engine(cfg, builtins=False)
    engine.launcher = None
    _due(engine)
    engine.dispatch(TurnEnd(session_id="s"))
    assert engine.sessions.peek("s").running == {}


def test_a_pid_is_recorded_and_a_dead_or_stale_child_no_longer_counts_as_running(cfg):
    engine = make_engine(cfg, builtins=False)
    engine.launcher = lambda job: os.getpid()
    _due(engine)
    engine.dispatch(TurnEnd(session_id="s"))
    state = engine.sessions.peek("s")
    assert state.running["review"]["pid"] == os.getpid()
    assert state.is_running("review", 3600)
    state.running["review"]["pid"] = 2 ** 22 + 12345  # no such process
    assert not state.is_running("review", 3600)
    state.running["review"] = {"pid": None, "started": time.time() - 7200, "job_id": "x"}
    assert not state.is_running("review", 3600)


def test_session_job_defaults_reach_the_child_variables(cfg):
    engine = make_engine(cfg, builtins=False)
    _due(engine)
    engine.set_job_defaults("s", {"model": "prov/model", "pi_extension": "/x/index.ts"})
    engine.dispatch(TurnEnd(session_id="s"))
    assert engine.launcher.jobs[0]["variables"]["model"] == "prov/model"


# ---------------------------------------------------------------------------
# Background work
# ---------------------------------------------------------------------------

def test_inline_background_handlers_run_at_once_in_the_background_role(cfg, probe_plugin):
    engine = make_engine(cfg, builtins=False)
    engine.load_plugin("tacit_probe_plugin")
    engine.dispatch(ToolResult(session_id="s", name="Bash", id="t1"))
    assert probe_rows(cfg) == [("tool_result", "Bash", "t1", threading.current_thread().name, 0)]


def test_thread_background_handlers_run_on_the_worker(cfg, probe_plugin):
    engine = make_engine(cfg, builtins=False, background="thread")
    engine.load_plugin("tacit_probe_plugin")
    engine.dispatch(ToolResult(session_id="s", name="Bash"))
    assert engine.drain(10)
    rows = probe_rows(cfg)
    assert len(rows) == 1 and rows[0][3] == "tacit-background"


def test_background_work_waits_for_the_end_of_background_after(cfg, probe_plugin):
    """The service answers a hook first: its events' background work starts when the block ends."""
    engine = make_engine(cfg, builtins=False, background="thread")
    engine.load_plugin("tacit_probe_plugin")
    with engine.background_after():
        engine.dispatch(ToolResult(session_id="s", name="Bash", id="t1"))
        time.sleep(BackgroundWorker.SETTLE * 4)  # woken, the worker would have run it by now
        assert probe_rows(cfg) == []
    assert engine.drain(10)
    assert [r[:3] for r in probe_rows(cfg)] == [("tool_result", "Bash", "t1")]
    with engine.background_after():  # no event queued work: nothing to start
        pass
    assert engine.drain(10) and len(probe_rows(cfg)) == 1


def test_a_background_handler_runs_once_per_event_even_when_rerun(cfg, probe_plugin):
    engine = make_engine(cfg, builtins=False)
    engine.load_plugin("tacit_probe_plugin")
    engine.dispatch(ToolResult(session_id="s", name="Bash", id="t1"))
    engine.dispatch(ToolResult(session_id="s", name="Bash", id="t1"))  # a retry
    with engine.ledger().write() as conn:  # as if a crash left it marked pending
        conn.execute("UPDATE events SET background = 1, event = ? WHERE id = 't1'",
                     (json.dumps(event_to_dict(ToolResult(session_id="s", name="Bash", id="t1"))),))
    assert engine.run_pending_background() == 1
    assert [r[:3] for r in probe_rows(cfg)] == [("tool_result", "Bash", "t1")]


def test_work_a_crashed_process_left_pending_is_done_by_the_next_engine(cfg, probe_plugin):
    stuck = make_engine(cfg, builtins=False, background="thread")
    stuck.load_plugin("tacit_probe_plugin")
    stuck._schedule_background = lambda: None  # the process "dies" before its worker runs
    for i in range(3):
        stuck.dispatch(ToolResult(session_id="s", name=f"T{i}", id=f"t{i}"))
    assert probe_rows(cfg) == []
    fresh = make_engine(cfg, builtins=False)
    fresh.load_plugin("tacit_probe_plugin")
    assert fresh.run_pending_background() == 3
    assert [r[1] for r in probe_rows(cfg)] == ["T0", "T1", "T2"]
    with fresh.ledger().read() as conn:
        assert conn.execute("SELECT count(*) FROM events WHERE background = 1").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM events WHERE event IS NOT NULL").fetchone()[0] == 0


def test_a_malformed_pending_event_is_dropped_not_retried_forever(cfg, probe_plugin):
    engine = make_engine(cfg, builtins=False)
    engine.load_plugin("tacit_probe_plugin")
    engine.dispatch(SessionStart(session_id="s"))  # creates the ledger
    with engine.ledger().write() as conn:
        conn.execute("INSERT INTO events (id, session_id, kind, at, background, event) VALUES "
                     "('bad', 's', 'tool_result', 0, 1, '{\"kind\": \"no_such_kind\"}')")
    assert engine.run_pending_background() == 0
    with engine.ledger().read() as conn:
        assert conn.execute("SELECT background FROM events WHERE id = 'bad'").fetchone()[0] == 0


# ---------------------------------------------------------------------------
# build_engine
# ---------------------------------------------------------------------------

def test_build_engine_assembles_each_mode(cfg):
    assert build_engine(cfg, "service").background == "thread"
    assert build_engine(cfg, "inprocess").background == "thread"
    assert build_engine(cfg, "oneshot").background == "inline"
    replay = build_engine(cfg, "replay", children=False)
    assert replay.background == "inline" and replay.launcher is None
    assert build_engine(cfg, "service", host="pi").features_for("pi") == frozenset({"tacit_tools"})
    with pytest.raises(ValueError):
        build_engine(cfg, "journal")


def test_a_command_event_reaches_the_learners(cfg):
    engine = build_engine(cfg, "oneshot", children=False)
    engine.dispatch(Command(session_id="s", name="memory-skills"))
    engine.dispatch(SessionShutdown(session_id="s"))
    with engine.ledger().read() as conn:
        assert conn.execute("SELECT count(*) FROM observations WHERE action = 'command'").fetchone()[0] == 1


def test_a_repeated_message_is_analysed_once_and_a_new_previous_reply_analyses_it_again(cfg, monkeypatch):
    import tacit.detect.analysis as detectors

    calls: list[tuple] = []
    real = detectors.analyse

    def counting(text, prev_assistant=None, patterns=None):
        calls.append((text, prev_assistant))
        return real(text, prev_assistant, patterns)

    monkeypatch.setattr(detectors, "analyse", counting)
    engine = make_engine(cfg)
    seen = []
    engine.on("message_end", lambda event, ctx: seen.append(ctx.analysis), name="probe.analysis")
    text = "no, use pnpm not npm in this repo"
    for sid in ("s1", "s2"):  # the same prompt in two sessions, neither with a reply before it
        engine.dispatch(MessageEnd(session_id=sid, role="user", text=text))
    assert calls == [(text, None)] and seen[0] is seen[1]
    assert seen[0] == real(text, None, engine.correction_patterns())  # the verdict itself
    engine.dispatch(MessageEnd(session_id="s1", role="assistant", text="I ran npm install."))
    engine.dispatch(MessageEnd(session_id="s1", role="user", text=text))
    assert len(calls) == 2 and calls[1][0] == text and "npm install" in calls[1][1]
    assert seen[2] is None  # the agent's message is not analysed
    assert seen[3] == real(text, calls[1][1], engine.correction_patterns())
    engine.close()
