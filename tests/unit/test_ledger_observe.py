"""The tool-call learner on a real engine: tool results and commands become
observations and habit actions (inline and thread modes), exactly once per
event id; a locked or corrupt ledger never delays or breaks dispatch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from tacit.engine import Engine
from tacit.events import Command, ToolResult
from tacit.learn import observe
from tacit.stores import ledger as ledger_mod
from tacit.stores import notices
from tacit.stores.ledger import Ledger


def make_engine(cfg, background="inline"):
    engine = Engine(cfg, background=background)
    engine.load_plugin("tacit.learn.observe")
    return engine


def rows(cfg, sql, params=()):
    led = Ledger(cfg)
    try:
        with led.read() as conn:
            return conn.execute(sql, params).fetchall()
    finally:
        led.close()


def test_register_subscribes_background_handlers(cfg):
    engine = make_engine(cfg)
    assert engine.handlers_for("tool_result") == ["learn.observe.tool_result"]
    assert engine.handlers_for("command") == ["learn.observe.command"]
    assert engine.handlers_for("tool_call") == [] and engine.handlers_for("turn_end") == []


def test_tool_call_becomes_observation_and_action_event(cfg, tmp_path):
    engine = make_engine(cfg)
    project = tmp_path / "shop-api"
    ts = 1_750_000_000.0
    engine.dispatch(ToolResult(session_id="s1", ts=ts, cwd=str(project), name="Bash",
                             args={"command": "pip install -U 'requests==2.31' && pytest -q",
                                   "secret": "do-not-store"}))
    engine.dispatch(ToolResult(session_id="s1", ts=ts + 2, cwd=str(project), name="Edit",
                             args={"file_path": str(project / "app" / "main.py"), "old_string": "x"},
                             ok=False, error="no match"))
    obs = rows(cfg, "SELECT plugin, action, source, session_id, observed_at, context, entity, "
                    "entity_type, run_hour FROM observations ORDER BY id")
    (p1, a1, s1, sid1, t1, c1, e1, et1, h1), (_, _, _, _, t2, c2, e2, et2, _) = obs
    assert (p1, a1, s1, sid1, t1) == ("Bash", "tool_call", "tool", "s1", ts)
    assert json.loads(c1) == {"ok": True, "project": "shop-api", "command": "pip",
                              "package": "requests", "entity_type": "package",
                              "entity_value": "requests", "run_hour": time.localtime(ts).tm_hour}
    assert "do-not-store" not in c1 and "pytest -q" not in c1
    assert (e1, et1, h1) == ("requests", "package", time.localtime(ts).tm_hour)
    assert json.loads(c2)["file"] == os.path.join("app", "main.py") and json.loads(c2)["ok"] is False
    assert (e2, et2, t2) == ("app-main-py", "file", ts + 2)
    assert rows(cfg, "SELECT session_id, action, ts FROM action_events ORDER BY id") == [
        ("s1", "Bash:pip", ts), ("s1", "Edit", ts + 2)]
    # a package is a fact worth proposing; a file is not
    keys = {r[0] for r in rows(cfg, "SELECT key FROM memories")}
    assert keys == {"entity-requests"}


def test_commands_across_sessions_build_a_workflow_and_leave_a_notice(cfg):
    engine = make_engine(cfg)
    t = 1_750_000_000.0
    for n in range(7):
        for i, name in enumerate(("test", "deploy")):
            engine.dispatch(Command(session_id=f"s{n}", ts=t + n * 10_000 + i * 60, name=name, args="--x"))
    status = rows(cfg, "SELECT status, confidence FROM memories WHERE key = 'workflow-seq-test-deploy'")
    assert status == [("applied", 80)]  # created in session 3, confirmed in 4..7
    # background effects cannot reach the user: the notice waits in the ledger
    with Ledger(cfg) as led:
        queued = notices.take(led)
    assert any("I'm now expecting /deploy after /test" in n for n in queued)
    assert rows(cfg, "SELECT DISTINCT action FROM action_events ORDER BY action") == [("/deploy",), ("/test",)]


def test_habits_are_counted_as_tool_results_arrive(cfg):
    engine = make_engine(cfg)
    t = 1_750_000_000.0
    for n in range(3):
        for i, name in enumerate(("Read", "Edit", "Bash")):
            engine.dispatch(ToolResult(session_id=f"s{n}", ts=t + n * 1000 + i * 5, name=name,
                                       args={"command": "pytest -q"} if name == "Bash" else {}))
    counts = {r[0]: r[1] for r in rows(cfg, "SELECT pattern, count FROM habit_patterns")}
    assert counts == {"Read → Edit": 3, "Edit → Bash:pytest": 3, "Read → Edit → Bash:pytest": 3}


def test_the_same_event_twice_is_recorded_once(cfg):
    engine = make_engine(cfg)
    event = ToolResult(session_id="s1", id="evt-1", ts=1_750_000_000.0, name="Bash",
                       args={"command": "pip install requests"})
    engine.dispatch(event)
    engine.dispatch(event)  # a hook retried after a crash: same id
    assert rows(cfg, "SELECT count(*) FROM observations") == [(1,)]
    assert rows(cfg, "SELECT count(*) FROM action_events") == [(1,)]
    assert rows(cfg, "SELECT key, times_confirmed FROM memories") == [("entity-requests", 0)]


def test_a_locked_ledger_never_breaks_dispatch(cfg, monkeypatch):
    """The event itself needs the ledger (the service core's session store):
    while another process holds it exclusively, dispatch waits the busy
    timeout and answers with an empty result — it never raises — and the
    learner records again once the ledger is free."""
    monkeypatch.setattr(ledger_mod, "DEFAULT_BUSY_TIMEOUT", 0.3)
    Ledger(cfg).connection()
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import sqlite3, sys
        conn = sqlite3.connect(sys.argv[1], isolation_level=None)
        conn.execute("BEGIN EXCLUSIVE")
        print("locked", flush=True)
        sys.stdin.read()
    """), str(cfg.ledger_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    engine = make_engine(cfg, background="thread")
    try:
        assert holder.stdout.readline().strip() == "locked"
        results = [engine.dispatch(ToolResult(session_id="s1", name="Read", args={})) for _ in range(2)]
        assert all(r.notices == [] for r in results)
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
    engine.dispatch(ToolResult(session_id="s1", name="Read", args={}))
    assert engine.drain(timeout=60)
    assert rows(cfg, "SELECT plugin FROM observations") == [("Read",)]
    engine.close()


def test_corrupt_ledger_is_recovered_and_the_event_still_recorded(cfg):
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    cfg.ledger_path.write_bytes(b"garbage" * 1000)
    engine = make_engine(cfg)
    engine.dispatch(ToolResult(session_id="s1", name="Read", args={}))
    assert rows(cfg, "SELECT plugin FROM observations") == [("Read",)]
    assert [p.name for p in cfg.state_dir.iterdir() if ".corrupt-" in p.name]


def test_a_replayed_history_keeps_its_own_time(cfg):
    engine = make_engine(cfg)
    ts = 1_700_000_000.0
    engine.dispatch(ToolResult(session_id="s1", ts=ts, name="Grep", args={}))
    assert rows(cfg, "SELECT plugin, observed_at FROM observations") == [("Grep", ts)]
    assert rows(cfg, "SELECT ts FROM action_events") == [(ts,)]


def test_learning_disabled_records_nothing(cfg):
    engine = make_engine(cfg.with_settings(learning_enabled=False))
    engine.dispatch(ToolResult(session_id="s1", name="Read", args={}))
    engine.dispatch(Command(session_id="s1", name="deploy"))
    assert rows(cfg, "SELECT count(*) FROM observations") == [(0,)]
    assert rows(cfg, "SELECT count(*) FROM action_events") == [(0,)]


@pytest.mark.parametrize("command, package", [
    ("pip install -r requirements.txt flask", "flask"),
    ("npm i -D @types/node@20", "@types/node"),
    ("uv pip install 'numpy>=2'", "numpy"),
    ("pnpm add lodash", "lodash"),
    ("cargo add serde --features derive", "serde"),
    ("pip install -e .", None),
    ("pip list", None),
    ("git push", None),
])
def test_installed_package(command, package):
    assert observe.installed_package(command) == package
