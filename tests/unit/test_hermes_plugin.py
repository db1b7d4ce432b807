"""The Hermes adapter without Hermes: hook payloads → tacit events → results.

A real engine (``HermesAdapter.create``) over a temp ``HERMES_HOME``; a
recorder plugin registered on that engine sees exactly the events the hooks
produced. Child jobs go to a recording launcher: nothing is spawned here
(the detached runner has its own tests, the real Hermes its e2e tests).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tacit.config import load_config
from tacit.events import EVENT_KINDS, TOOL_ARG_CHARS, clip_tool_args
from tacit.hookspecs import ContextResult, Injection
from tacit.hosts.hermes import plugin
from tacit.hosts.hermes.plugin import HermesAdapter, is_oneshot, message_text, tool_outcome
from tacit.stores import history


class FakeCtx:
    """The part of Hermes's PluginContext tacit uses."""

    def __init__(self):
        self.hooks, self.commands, self.middleware = {}, {}, {}

    def register_hook(self, name, fn):
        self.hooks[name] = fn

    def register_command(self, name, handler, description="", args_hint=""):
        self.commands[name] = handler

    def register_middleware(self, kind, fn):
        self.middleware[kind] = fn


@pytest.fixture
def hermes_home(tmp_path: Path) -> Path:
    home = tmp_path / "hermes-home"
    home.mkdir()
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 0\nskills:\n  creation_nudge_interval: 0\n")
    return home


@pytest.fixture
def hermes_env(hermes_home: Path, tmp_path: Path) -> dict:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    hermes = fake_bin / "hermes"  # found by agent_available; never run (launcher is recorded)
    hermes.write_text("#!/bin/sh\nexit 99\n")
    hermes.chmod(hermes.stat().st_mode | stat.S_IXUSR)
    return {"HOME": str(tmp_path), "HERMES_HOME": str(hermes_home),
            "PATH": f"{fake_bin}{os.pathsep}/usr/bin{os.pathsep}/bin"}


class Recorder:
    def __init__(self):
        self.events, self.replies, self.jobs = [], {}, []

    def __call__(self, event, ctx):
        self.events.append(event)
        reply = self.replies.get(event.kind)
        if reply is not None and event.kind == "message_end" and event.role != "user":
            return None
        return reply

    def kinds(self):
        return [e.kind for e in self.events]


@pytest.fixture
def adapter_factory(hermes_env):
    def make(*, oneshot=False, env=None):
        cfg = load_config(env={**hermes_env, **(env or {})}, host="hermes")
        adapter = HermesAdapter.create(cfg, argv=["hermes", "-z", "x"] if oneshot else ["hermes"])
        recorder = Recorder()
        for kind in EVENT_KINDS:
            adapter.engine.on(kind, recorder, name="test.recorder", priority=1)
        if adapter.engine.launcher is not None:
            adapter.engine.launcher = lambda job: recorder.jobs.append(job)
        return adapter, recorder

    return make


def run_turn(adapter, sid="s1", text="list the files", reply="done", tools=()):
    adapter.on_session_start(session_id=sid, model="m", platform="cli")
    context = adapter.pre_llm_call(session_id=sid, user_message=text, is_first_turn=True,
                                   conversation_history=[{"role": "user", "content": text}])
    for name, result, status in tools:
        adapter.post_tool_call(tool_name=name, args={"x": 1}, result=result, status=status, session_id=sid,
                               tool_call_id="c1", telemetry_schema_version="hermes.observer.v1")
    adapter.post_llm_call(session_id=sid, user_message=text, assistant_response=reply)
    adapter.on_session_end(session_id=sid, completed=True, interrupted=False)
    return context


# ---------------------------------------------------------------------------
# hooks -> events
# ---------------------------------------------------------------------------

def test_one_turn_maps_to_the_engine_events(adapter_factory):
    adapter, rec = adapter_factory()
    run_turn(adapter, tools=[
        ("terminal", json.dumps({"output": "three-out", "exit_code": 3, "error": None}), "ok"),
        ("read_file", json.dumps({"error": "no such file"}), "error"),
        ("terminal", json.dumps({"output": "ok", "exit_code": 0, "error": None}), "ok"),
    ])
    assert rec.kinds() == ["session_start", "before_agent_start", "message_end", "tool_result", "tool_result",
                           "tool_result", "message_end", "turn_end"]  # on_session_end: not a shutdown
    start, before, user, t1, t2, t3, assistant, turn = rec.events
    assert start.session_id == "s1" and start.source == "startup" and start.cwd == os.getcwd()
    assert before.prompt == "list the files"
    assert (user.role, user.text) == ("user", "list the files")
    assert (t1.name, t1.ok, t1.error) == ("terminal", False, "exit code 3: three-out")  # Hermes said "ok"
    assert (t2.ok, t2.error) == (False, "no such file") and t3.ok is True and t1.args == {"x": 1}
    assert (assistant.role, assistant.text) == ("assistant", "done")
    assert turn.user_text == "list the files" and turn.assistant_text == "done"
    assert [(c.name, c.ok) for c in turn.tool_calls] == [("terminal", False), ("read_file", False),
                                                         ("terminal", True)]


def test_second_turn_has_no_second_session_start(adapter_factory):
    adapter, rec = adapter_factory()
    run_turn(adapter)
    rec.events.clear()
    adapter.pre_llm_call(session_id="s1", user_message="again", is_first_turn=False)
    adapter.post_llm_call(session_id="s1", user_message="again", assistant_response="ok")
    assert rec.kinds() == ["message_end", "message_end", "turn_end"]


def test_the_notices_shown_under_a_reply_are_not_the_agents_words(adapter_factory):
    """Walking Hermes 0.19.0: post_llm_call gets the reply with the lines transform_llm_output put under
    it, so "· Noted (correction): …" became part of the assistant's text tacit records, and the
    correction child's prompt quoted tacit's own notice as what the agent said."""
    adapter, rec = adapter_factory()
    run_turn(adapter)
    rec.events.clear()
    adapter.pre_llm_call(session_id="s1", user_message="again", is_first_turn=False)
    adapter._session("s1")[1].notices.append("Noted (fact): This project uses yarn.")
    shown = adapter.transform_llm_output(response_text="Sure.", session_id="s1")
    assert shown == "Sure.\n\n· Noted (fact): This project uses yarn."
    adapter.post_llm_call(session_id="s1", user_message="again", assistant_response=shown)
    assistant, turn = rec.events[-2:]
    assert assistant.text == "Sure." and turn.assistant_text == "Sure."
    # a reply tacit added nothing to is taken as it is
    adapter.post_llm_call(session_id="s1", user_message="more", assistant_response="Done.\n\n· a list")
    assert rec.events[-1].assistant_text == "Done.\n\n· a list"


def test_oneshot_session_end_is_the_sessions_end(adapter_factory):
    adapter, rec = adapter_factory(oneshot=True)
    run_turn(adapter)
    assert rec.kinds()[-1] == "session_shutdown" and rec.events[-1].reason == "oneshot"
    adapter.on_session_end(session_id="s1")
    adapter.on_session_finalize(session_id="s1")
    assert rec.kinds().count("session_shutdown") == 1


def test_finalize_ends_an_interactive_session_once(adapter_factory):
    adapter, rec = adapter_factory()
    run_turn(adapter)
    adapter.on_session_finalize(session_id="s1", platform="cli", reason="shutdown")
    adapter.on_session_finalize(session_id="s1", reason="shutdown")
    adapter.on_session_finalize(session_id="never-seen")
    shutdowns = [e for e in rec.events if e.kind == "session_shutdown"]
    assert len(shutdowns) == 1 and shutdowns[0].reason == "shutdown"


def test_interrupted_turn_is_closed_by_session_end(adapter_factory):
    adapter, rec = adapter_factory()
    adapter.pre_llm_call(session_id="s2", user_message="do it", is_first_turn=False)
    adapter.on_session_end(session_id="s2", completed=False, interrupted=True)  # no post_llm_call
    assert rec.kinds() == ["session_start", "before_agent_start", "message_end", "turn_end"]
    assert rec.events[0].source == "resume"  # no on_session_start: a continued session
    assert rec.events[-1].user_text == "do it"
    adapter.on_session_end(session_id="s2")
    assert rec.kinds().count("turn_end") == 1


def test_an_id_rotated_mid_turn_continues_as_a_resumed_session(adapter_factory):
    adapter, rec = adapter_factory()
    adapter.pre_llm_call(session_id="old", user_message="fix the build", is_first_turn=True)
    rec.events.clear()
    # Hermes's compression (rotation mode) gives the rest of the turn a new id
    adapter.post_tool_call(session_id="new", tool_name="terminal", result='{"exit_code": 0}', status="ok")
    adapter.post_llm_call(session_id="new", user_message="fix the build", assistant_response="fixed")
    assert rec.kinds() == ["session_start", "tool_result", "message_end", "turn_end"]
    assert rec.events[0].source == "resume" and rec.events[-1].user_text == "fix the build"
    assert [(c.name, c.ok) for c in rec.events[-1].tool_calls] == [("terminal", True)]


def test_session_context_rides_on_the_first_user_message(adapter_factory, hermes_home):
    adapter, rec = adapter_factory()
    rec.replies["before_agent_start"] = ContextResult(context=[Injection("SESSION-ONLY", 1)])
    rec.replies["message_end"] = ContextResult(context=[Injection("SECOND", 60), Injection("FIRST", 5)])
    context = run_turn(adapter)
    # Hermes has no system-prompt hook (the save guidance of this project in between: the checkout is one)
    assert context["context"].startswith("SESSION-ONLY\n\n## tacit memory\n")
    assert context["context"].endswith("\n\nFIRST\n\nSECOND")
    again = adapter.pre_llm_call(session_id="s1", user_message="next", is_first_turn=False)
    assert again == {"context": "FIRST\n\nSECOND"}  # the session's context only once


def test_nothing_is_injected_that_hermes_shows_itself(adapter_factory, hermes_home):
    (hermes_home / "memories").mkdir()
    (hermes_home / "memories" / "MEMORY.md").write_text("uses pnpm")
    adapter, _rec = adapter_factory()
    # no snapshot, no skill index: only how to save to this project (the checkout), which Hermes cannot tell
    [guidance] = run_turn(adapter)["context"].split("\n\n")
    assert guidance.startswith("## tacit memory\n") and "begin the entry with `[" in guidance
    assert "uses pnpm" not in guidance


def test_a_correction_starts_a_child_job(adapter_factory):
    adapter, rec = adapter_factory()
    run_turn(adapter, text="I told you we use pnpm here, not npm")
    [job] = rec.jobs
    assert job["kind"] == "correction" and job["host"] == "hermes" and job["session_id"] == "s1"
    assert job["variables"]["correction"] == "I told you we use pnpm here, not npm"


# ---------------------------------------------------------------------------
# never break Hermes
# ---------------------------------------------------------------------------

def test_hooks_swallow_and_log_every_error(adapter_factory, hermes_home):
    adapter, _rec = adapter_factory()
    ctx = FakeCtx()
    adapter.register(ctx)

    def boom(event):
        raise RuntimeError("engine exploded")

    adapter.engine.dispatch = boom
    calls = {
        "on_session_start": {"session_id": "s"},
        "pre_llm_call": {"session_id": "s", "user_message": "hi", "is_first_turn": True},
        "post_tool_call": {"session_id": "s", "tool_name": "terminal", "result": "{}", "status": "ok"},
        "post_llm_call": {"session_id": "s", "user_message": "hi", "assistant_response": "ok"},
        "on_session_end": {"session_id": "s"},
        "on_session_finalize": {"session_id": "s"},
    }
    for name, kwargs in calls.items():
        assert ctx.hooks[name](**kwargs, unknown_future_kwarg=1) is None
    log = (hermes_home.parent / ".tacit" / "logs" / "tacit.log").read_text()
    assert "hermes hook pre_llm_call" in log and "engine exploded" in log
    assert "hermes hook post_tool_call" in log


def test_commands_answer_with_the_error_instead_of_raising(adapter_factory, monkeypatch):
    adapter, _rec = adapter_factory()
    ctx = FakeCtx()
    adapter.register(ctx)

    def broken(cfg, **_):
        raise OSError("disk on fire")

    monkeypatch.setattr("tacit.slash.memory_skills", broken)
    text = ctx.commands["memory-skills"]("")
    assert text.startswith("tacit: /memory-skills failed: disk on fire")


def test_register_is_inert_in_a_child(monkeypatch, hermes_env):
    for key, value in hermes_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("TACIT_CHILD", "1")
    ctx = FakeCtx()
    plugin.register(ctx)
    assert ctx.hooks == {} and ctx.commands == {} and ctx.middleware == {}


def test_register_never_raises(monkeypatch, hermes_env, hermes_home):
    for key, value in hermes_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("TACIT_CHILD", raising=False)

    def broken(cls, cfg, argv=None):
        raise RuntimeError("cannot build")

    monkeypatch.setattr(HermesAdapter, "create", classmethod(broken))
    ctx = FakeCtx()
    plugin.register(ctx)
    assert ctx.hooks == {}
    assert "hermes register" in (hermes_home.parent / ".tacit" / "logs" / "tacit.log").read_text()


def test_register_wires_hooks_middleware_and_commands(monkeypatch, hermes_env):
    for key, value in hermes_env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("TACIT_CHILD", raising=False)
    ctx = FakeCtx()
    plugin.register(ctx)
    assert sorted(ctx.hooks) == sorted(plugin.HOOKS)
    assert list(ctx.middleware) == ["tool_execution"]
    assert sorted(ctx.commands) == ["memory-consolidate", "memory-forget", "memory-review", "memory-show",
                                    "memory-skills", "memory-teach"]
    assert "Memory review for" in ctx.commands["memory-review"]("")


# ---------------------------------------------------------------------------
# coexistence with Hermes's own review; one limit
# ---------------------------------------------------------------------------

def test_hermes_review_on_means_tacit_review_off(adapter_factory, hermes_home):
    (hermes_home / "config.yaml").write_text("memory:\n  memory_char_limit: 300\n  user_char_limit: 200\n")
    adapter, _rec = adapter_factory()  # nudges unset: Hermes's default 10 = on
    assert adapter.cfg.review_enabled is False
    assert adapter.cfg.skill_trigger_tool_calls == plugin.SKILL_TRIGGER_OFF
    assert (adapter.cfg.memory_char_limit, adapter.cfg.user_char_limit) == (300, 200)
    assert "avoid a double review" in (hermes_home.parent / ".tacit" / "logs" / "tacit.log").read_text()


def test_hermes_review_off_means_tacit_reviews(adapter_factory):
    adapter, rec = adapter_factory(env={"TACIT_NUDGE_INTERVAL": "2", "TACIT_REVIEW_MIN_USER_TURNS": "1"})
    assert adapter.cfg.review_enabled is True and adapter.cfg.skill_trigger_tool_calls == 8
    run_turn(adapter)
    adapter.pre_llm_call(session_id="s1", user_message="next", is_first_turn=False)
    adapter.post_llm_call(session_id="s1", user_message="next", assistant_response="ok")
    assert [j["kind"] for j in rec.jobs] == ["review"]


# ---------------------------------------------------------------------------
# slash commands
# ---------------------------------------------------------------------------

def test_slash_commands_do_their_work(adapter_factory, hermes_home, monkeypatch):
    monkeypatch.chdir(hermes_home.parent)  # the user's home: no project, so the global notes
    memories = hermes_home.parent / ".tacit" / "memories"  # what Hermes's linked memories folder holds
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text("uses pnpm for installs\n§\nUses pnpm for installs.\n§\ntabs")
    adapter, _rec = adapter_factory(env={"TACIT_CHILD_ENABLED": "0"})
    ctx = FakeCtx()
    adapter.register(ctx)
    assert ctx.commands["memory-consolidate"]("").startswith("Nothing to consolidate: no memory is near its limit")
    out = ctx.commands["memory-consolidate"]("force")
    assert "global:" in out and "(deterministic, 1 merged)" in out
    assert (memories / "MEMORY.md").read_text() == "uses pnpm for installs\n§\ntabs"
    assert ctx.commands["memory-skills"]("").startswith(f"Skills in {hermes_home.parent / '.tacit' / 'skills'} (0):")
    taught = ctx.commands["memory-teach"]("--user likes short answers")
    assert taught.startswith("Taught taught-") and (memories / "USER.md").read_text() == "likes short answers"
    key = taught.split()[1].rstrip(":")
    assert key in ctx.commands["memory-show"]("")
    assert ctx.commands["memory-forget"](key).startswith(f"Forgot {key}")
    assert (memories / "USER.md").read_text() == ""
    # not a key: what the text says is forgotten everywhere, and the answer says nothing matched
    assert ctx.commands["memory-forget"]("nope").startswith('Nothing removed: no memory entry says "nope"')


def _tacit_cli(env: dict, cwd: Path, *args) -> dict:
    """``tacit … --json`` in a process of its own (another process than the Hermes session)."""
    proc = subprocess.run([sys.executable, "-m", "tacit.cli", *args, "--json"], env={**os.environ, **env},
                          cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_another_process_changes_are_seen_next_session_and_never_clobbered(adapter_factory, hermes_env,
                                                                           tmp_path, monkeypatch):
    """A running session keeps its frozen context; a write in it re-reads the file (keeping what the
    CLI added meanwhile); the next session in this process sees memory and skills as they are now."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    env = {**hermes_env, "TACIT_CHILD_ENABLED": "0"}
    assert _tacit_cli(env, repo, "memory", "add", "--scope", "project", "BEFORE-FACT uses make")["success"]
    adapter, _rec = adapter_factory(env={"TACIT_CHILD_ENABLED": "0"})
    first = run_turn(adapter, sid="s1")["context"]
    assert "BEFORE-FACT" in first
    project = adapter.engine.memory_store("s1").project
    assert adapter.engine.skill_store("s1", project).list()["skills"] == []  # the process's catalog, built

    body = tmp_path / "body.md"
    body.write_text("## Procedure\n1. make ship\n")
    assert _tacit_cli(env, repo, "memory", "add", "--scope", "project", "CLI-FACT from another process")["success"]
    for scope, name in (("project", "cli-project-skill"), ("global", "cli-global-skill")):
        assert _tacit_cli(env, repo, "skill", "create", "--scope", scope, "--name", name, "--description",
                          f"A {scope} skill made elsewhere", "--body-file", str(body))["success"]

    # the running session: its context stays as it was (no re-injection mid-session) ...
    assert adapter.pre_llm_call(session_id="s1", user_message="more", is_first_turn=False) is None
    # ... and its store writes from the file as it is now, not from its frozen copy
    agent = history.Actor(kind="agent", name="memory tool", session_id="s1", host="hermes")
    store = adapter.engine.memory_store("s1", project)
    with history.acting(agent):
        assert store.add("project", "IN-SESSION fact")["success"]
    assert store.entries("project") == ["BEFORE-FACT uses make", "CLI-FACT from another process",
                                         "IN-SESSION fact"]
    adapter.post_llm_call(session_id="s1", user_message="more", assistant_response="ok")
    adapter.on_session_finalize(session_id="s1")

    second = run_turn(adapter, sid="s2")["context"]
    assert "CLI-FACT from another process" in second and "IN-SESSION fact" in second
    assert "cli-project-skill: A project skill made elsewhere" in second
    names = {s["name"] for s in adapter.engine.skill_store("s2", project).list()["skills"]}
    assert names == {"cli-project-skill", "cli-global-skill"}  # the shared global catalog was read again


# ---------------------------------------------------------------------------
# pure helpers
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("result,status,expected", [
    ('{"output": "x", "exit_code": 0, "error": null}', "ok", (True, None)),
    ('{"output": "three-out", "exit_code": 3, "error": null}', "ok", (False, "exit code 3: three-out")),
    ({"exit_code": 1, "error": "boom"}, None, (False, "exit code 1: boom")),
    ('{"error": "File not found"}', "error", (False, "File not found")),
    ('{"success": false, "error": "over"}', None, (False, "over")),
    ('{"success": true}', None, (True, None)),
    ("plain text output", None, (True, None)),
    ("plain text output", "blocked", (False, "blocked")),
    ('{"exit_code": true}', "ok", (True, None)),  # a bool is not an exit code
])
def test_tool_outcome(result, status, expected):
    assert tool_outcome(result, status) == expected


def test_message_text_and_trimmed_args():
    assert message_text("hi") == "hi" and message_text(None) == ""
    assert message_text([{"type": "text", "text": "a"}, {"type": "image_url"}, "b"]) == "a\nb"
    args = clip_tool_args({"content": "x" * 5000, "n": 3}, keep_nested=True)
    assert len(args["content"]) == TOOL_ARG_CHARS + 1 and args["n"] == 3
    assert clip_tool_args("not a dict", keep_nested=True) == {}


def test_is_oneshot():
    assert is_oneshot(["hermes", "-z", "hi"]) and is_oneshot(["hermes", "--oneshot=hi"])
    assert not is_oneshot(["hermes", "chat"]) and not is_oneshot([sys.executable, "-c"])
