"""The check before each tool call, through the real engine and each host's
adapter: what fires where (scope), ask or deny per host, the reason text,
the whole command (not the learners' clipped one), the current branch."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from guard_helpers import LESSON, Session, engine_for, git_repo, remember

from tacit.events import TOOL_ARG_CHARS
from tacit.handlers.guards import current_branch
from tacit.hosts.claude_code import hook as claude_hook
from tacit.hosts.codex import hook as codex_hook
from tacit.hosts.hermes.plugin import tool_directive
from tacit.hosts.pi.protocol import event_from_params, render_result
from tacit.stores.guards import GuardStore
from tacit.stores.ledger import Ledger
from tacit.projects import project_for

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture
def web(tmp_path):
    return git_repo(tmp_path / "web")


@pytest.fixture
def api(tmp_path):
    return git_repo(tmp_path / "api")


@pytest.fixture
def engine(cfg):
    eng = engine_for(cfg)
    yield eng
    eng.close()


def stops(cfg):
    with Ledger(cfg) as led, led.read() as conn:
        return conn.execute("SELECT guard_id, kind, subject, host FROM guard_events ORDER BY id").fetchall()


def test_a_project_lesson_stops_npm_there_and_nowhere_else(cfg, engine, web, api):
    remember(cfg, web, LESSON)
    here = Session(engine, web)
    result = here.call("npm install left-pad")
    assert result.ask and not result.block
    today = time.strftime("%Y-%m-%d")
    assert result.reason == (f'tacit: `npm install left-pad` goes against this project\'s rule "{LESSON}"; use pnpm '
                             f"instead. Run it anyway? (you said so on {today}; to lift it: tacit guard remove 1)")
    for allowed in ("pnpm add left-pad", "echo npm install", "npm --version", "cat npm-debug.log"):
        assert not here.call(allowed).ask, allowed
    assert not here.call("npm install left-pad", cwd=api).ask  # run from the other repository
    assert not here.call(f"cd {api} && npm install left-pad").ask  # cd'd out of the project
    assert here.call(f"cd {web / 'sub'} && npm ci").ask  # anywhere inside it
    other = Session(engine, api, sid="s2")
    assert not other.call("npm install left-pad").ask and not other.call("npm install left-pad").block
    assert [(gid, kind, host) for gid, kind, _, host in stops(cfg)] == [(1, "stop", "claude-code")] * 2


def test_a_user_profile_lesson_fires_in_every_project(cfg, engine, web, api):
    remember(cfg, web, "never use sudo", scope="user")
    for folder, sid in ((web, "a"), (api, "b")):
        result = Session(engine, folder, sid=sid).call("sudo rm -rf /var/cache/x")
        assert result.ask and '"never use sudo"' in result.reason and "your rule" in result.reason


def test_hosts_that_cannot_ask_deny_with_the_reason(cfg, engine, web):
    remember(cfg, web, LESSON)
    for host in ("pi", "codex"):
        result = Session(engine, web, sid=host, host=host).call("npm i left-pad")
        assert result.block and not result.ask
        assert result.reason.startswith("tacit: stopped `npm i left-pad`, this project's rule:")
        assert "Run it anyway" not in result.reason and "tacit guard remove 1" in result.reason
    hermes = Session(engine, web, sid="h", host="hermes").call("npm i left-pad")
    assert hermes.ask and not hermes.block  # Hermes has an approval gate


def test_a_deny_guard_denies_everywhere(cfg, engine, web):
    project = project_for(str(web))
    with Ledger(cfg) as led:
        GuardStore(cfg, led).add("terraform apply", "apply only from CI", scope="project", project=project,
                                 action="deny")
    result = Session(engine, web).call("terraform -chdir=infra apply -auto-approve")
    assert result.block and not result.ask and "apply only from CI" in result.reason


def test_edits_are_checked_by_path(cfg, engine, web):
    remember(cfg, web, "don't touch migrations/")
    session = Session(engine, web)
    edit = session.call(name="Edit", args={"file_path": str(web / "users" / "migrations" / "0001.py"),
                                           "old_string": "a", "new_string": "b"})
    assert edit.ask and "a change to `users/migrations/0001.py`" in edit.reason
    assert not session.call(name="Read", args={"file_path": str(web / "migrations" / "0001.py")}).ask
    assert not session.call(name="Edit", args={"file_path": str(web / "src" / "app.py")}).ask


def test_turned_off_nothing_is_stopped(cfg, web):
    remember(cfg, web, LESSON)
    engine = engine_for(cfg.with_settings(guards_enabled=False))
    try:
        assert not Session(engine, web).call("npm install").ask
    finally:
        engine.close()


def test_a_new_lesson_and_a_cli_change_are_seen_by_a_running_engine(cfg, engine, web):
    session = Session(engine, web)
    assert not session.call("npm install").ask
    remember(cfg, web, LESSON)  # a memory file changed on disk
    assert session.call("npm install").ask
    with Ledger(cfg) as led:  # another process (the CLI) lifts it
        assert GuardStore(cfg, led).remove(1)["success"]
    assert not session.call("npm install").ask


def test_the_push_guard_reads_the_current_branch(cfg, engine, web, tmp_path):
    remember(cfg, web, "never push to main")
    session = Session(engine, web)
    assert current_branch(str(web)) == "main"
    assert session.call("git push").ask  # no refspec: the current branch, from .git/HEAD
    (web / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    assert current_branch(str(web)) == "feature/x"
    assert not session.call("git push").ask
    assert session.call("git push origin HEAD:main").ask
    (web / ".git" / "HEAD").write_text("0123456789abcdef0123456789abcdef01234567\n")
    assert current_branch(str(web)) is None  # detached
    assert current_branch(str(tmp_path / "nowhere")) is None and current_branch(None) is None


def test_a_worktree_reads_its_own_head(cfg, tmp_path):
    import subprocess

    repo = git_repo(tmp_path / "main-repo")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "x"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "worktree", "add", "-q", "-b", "topic", str(tmp_path / "tree")], cwd=repo, check=True,
                   capture_output=True)
    assert current_branch(str(tmp_path / "tree")) == "topic" and current_branch(str(repo)) == "main"


# -- the host adapters ------------------------------------------------------------------

def claude_payload(event: str, cwd, **fields) -> dict:
    return {"session_id": "cc-1", "cwd": str(cwd), "hook_event_name": event, "transcript_path": "/x.jsonl",
            **fields}


def test_claude_code_pre_tool_use_asks_with_the_reason(cfg, engine, web):
    remember(cfg, web, LESSON)
    out = json.loads(claude_hook.handle(engine, "PreToolUse", claude_payload(
        "PreToolUse", web, tool_name="Bash", tool_input={"command": "npm install left-pad"}), event_id="h1"))
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse" and specific["permissionDecision"] == "ask"
    assert specific["permissionDecisionReason"].startswith("tacit: `npm install left-pad` goes against")
    assert claude_hook.handle(engine, "PreToolUse", claude_payload(
        "PreToolUse", web, tool_name="Bash", tool_input={"command": "pnpm add left-pad"}), event_id="h2") == ""


def test_the_guard_reads_the_whole_command_not_the_clipped_one(cfg, engine, web):
    remember(cfg, web, LESSON)
    long_script = "echo start\n" + "echo filler-line\n" * 400 + "npm install left-pad\n"
    assert len(long_script) > 3 * TOOL_ARG_CHARS
    out = claude_hook.handle(engine, "PreToolUse", claude_payload(
        "PreToolUse", web, tool_name="Bash", tool_input={"command": long_script}), event_id="long")
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "ask"
    # pi's protocol keeps it whole too, for tool_call only
    event = event_from_params({"kind": "tool_call", "session_id": "p", "name": "bash",
                               "args": {"command": long_script}})
    assert event.args["command"] == long_script
    result = event_from_params({"kind": "tool_result", "session_id": "p", "name": "bash", "ok": True,
                                "args": {"command": long_script}})
    assert len(result.args["command"]) == TOOL_ARG_CHARS + 1


def test_codex_gets_a_deny_never_an_ask(cfg, engine, web):
    remember(cfg, web, LESSON)
    out = json.loads(codex_hook.handle(engine, "PreToolUse", claude_payload(
        "PreToolUse", web, tool_name="Bash", tool_input={"command": "npm ci"}), event_id="c1"))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert out["hookSpecificOutput"]["permissionDecisionReason"].startswith("tacit: stopped `npm ci`")


def test_codex_turns_a_third_party_ask_into_a_deny(cfg, web):
    from tacit.engine import Engine
    from tacit.hookspecs import ToolCallResult

    engine = Engine(cfg, host="codex")
    engine.on("tool_call", lambda e, c: ToolCallResult(ask=True, reason="plugin says ask"), name="x")
    out = json.loads(codex_hook.handle(engine, "PreToolUse", claude_payload(
        "PreToolUse", web, tool_name="Bash", tool_input={"command": "ls"})))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    engine.close()


def test_pi_and_hermes_renderings(cfg, engine, web):
    remember(cfg, web, LESSON)
    pi = Session(engine, web, sid="pi", host="pi").call("npm i")
    assert render_result("tool_call", pi)["block"] is True and render_result("tool_call", pi)["reason"] == pi.reason
    hermes = Session(engine, web, sid="he", host="hermes").call("npm i")
    assert tool_directive(hermes) == {"action": "approve", "message": hermes.reason}
    deny = Session(engine, web, sid="pi2", host="pi").call("npm i")
    assert tool_directive(deny) == {"action": "block", "message": deny.reason}
    assert tool_directive(Session(engine, web, sid="he2", host="hermes").call("pnpm i")) is None
    assert tool_directive(None) is None


def test_hermes_pre_tool_call_blocks_and_a_blocked_call_is_not_a_result(cfg, web, monkeypatch, tmp_path):
    from tacit.config import load_config
    from tacit.hosts.hermes.plugin import HermesAdapter

    hermes_home = tmp_path / "hermes-home"
    hermes_home.mkdir()
    (hermes_home / "config.yaml").write_text("memory:\n  nudge_interval: 0\nskills:\n  creation_nudge_interval: 0\n")
    env = {"HOME": str(tmp_path), "HERMES_HOME": str(hermes_home), "TACIT_HOME": cfg.home_str,
           "PATH": "/usr/bin:/bin"}
    hcfg = load_config(env=env, host="hermes")
    remember(hcfg, web, LESSON)
    monkeypatch.chdir(web)
    monkeypatch.delenv("HERMES_YOLO_MODE", raising=False)
    interactive = HermesAdapter.create(hcfg, argv=["hermes"])
    directive = interactive.pre_tool_call(tool_name="terminal", args={"command": "npm install left-pad"},
                                          session_id="h1", tool_call_id="t1")
    assert directive["action"] == "approve" and "we use pnpm here, never npm" in directive["message"]
    assert directive["message"].endswith("tacit guard remove 1)") and "Run it anyway?" in directive["message"]
    assert interactive.pre_tool_call(tool_name="terminal", args={"command": "pnpm add x"}, session_id="h1") is None
    monkeypatch.setenv("HERMES_YOLO_MODE", "1")  # /yolo: approvals pass unasked, so the guard denies
    assert interactive.pre_tool_call(tool_name="terminal", args={"command": "npm ci"}, session_id="h1")["action"] == "block"
    interactive.engine.close()
    monkeypatch.delenv("HERMES_YOLO_MODE")
    monkeypatch.setattr(sys, "argv", ["hermes", "-z", "x"])  # hermes -z: nobody to ask (its spec's nobody_to_ask)
    oneshot = HermesAdapter.create(hcfg)
    seen = []
    oneshot.engine.on("tool_result", lambda e, c: seen.append(e), name="test.seen", priority=1)
    directive = oneshot.pre_tool_call(tool_name="terminal", args={"command": "npm install left-pad"},
                                      session_id="h2", tool_call_id="t2")
    assert directive["action"] == "block" and directive["message"].startswith("tacit: stopped `npm install left-pad`")
    oneshot.post_tool_call(tool_name="terminal", args={"command": "npm install left-pad"},
                           result=json.dumps({"error": directive["message"]}), status="blocked", session_id="h2")
    assert seen == []  # a blocked call never ran: no tool_result, no override
    oneshot.engine.close()


def test_checking_is_cheap_once_compiled(cfg, engine, web):
    for lesson in (LESSON, "never push to main", "don't touch migrations/", "never use sudo",
                   "never run terraform apply", "use uv, not pip", "use ruff, not flake8"):
        remember(cfg, web, lesson)
    session = Session(engine, web)
    session.call("ls")  # compiles once
    checker = next(r.fn.__self__ for r in engine._handlers["tool_call"] if r.name == "guards.check")
    started = time.perf_counter()
    for _ in range(200):
        checker.compiled(engine.ledger(), project_for(str(web)))
    per_call = (time.perf_counter() - started) / 200
    assert per_call < 0.002  # a stat per memory file and one lookup, no re-derivation


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.one_of(st.sampled_from(["Bash", "Edit", "bash", "terminal", "apply_patch", "Write"]), st.text(max_size=8)),
       args=st.one_of(st.none(), st.dictionaries(st.text(max_size=8), st.one_of(
           st.text(max_size=200), st.integers(), st.none(), st.lists(st.text(max_size=10), max_size=3)), max_size=4)),
       cwd=st.one_of(st.none(), st.text(max_size=20), st.just("/")))
def test_odd_calls_never_raise_out_of_the_handlers(cfg, engine, web, name, args, cwd):
    remember_once(cfg, web)
    checker = next(r.fn.__self__ for r in engine._handlers["tool_call"] if r.name == "guards.check")
    from tacit.engine import HandlerContext
    from tacit.events import ToolCall, ToolResult

    for event in (ToolCall(session_id="odd", host="pi", cwd=cwd, id="", name=name, args=args if args is not None else {}),
                  ToolResult(session_id="odd", host="pi", cwd=cwd, id="", name=name, args=args or {}, ok=False)):
        state = engine.sessions.peek("odd")
        ctx = HandlerContext(engine, event, state, True)
        with engine.ledger().write():
            handler = checker.on_tool_call if event.kind == "tool_call" else checker.on_tool_result
            result = handler(event, ctx)
        assert result is None or hasattr(result, "notices")


def remember_once(cfg, web):
    from tacit.stores.memory import MemoryStore

    store = MemoryStore(cfg, project_for(str(web)))
    if LESSON not in store.entries("project"):
        store.add("project", LESSON)
