"""Learning from outcomes: an ask answered yes, "run it anyway" and "npm is
fine here" after a stop (strikes: demoted, then removed, in the history),
and repeat mistakes (a saved lesson broken again by a call nothing checked)."""

from __future__ import annotations

import json
import shutil

import pytest
from guard_helpers import LESSON, Session, engine_for, git_repo, remember

from tacit.hosts.claude_code import hook as claude_hook
from tacit.projects import project_for
from tacit.stores import history
from tacit.stores.guards import GuardStore
from tacit.stores.ledger import Ledger

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture
def web(tmp_path):
    repo = git_repo(tmp_path / "web")
    return repo


@pytest.fixture
def engine(cfg):
    eng = engine_for(cfg)
    yield eng
    eng.close()


def guard(cfg, gid=1):
    with Ledger(cfg) as led:
        return GuardStore(cfg, led).get(gid)


def counts(cfg, web):
    with Ledger(cfg) as led:
        return GuardStore(cfg, led).counts(project=project_for(str(web)).key)


def guard_history(cfg, gid=1):
    with Ledger(cfg) as led:
        return [c for c in reversed(history.changes(led)) if c.target == f"guard {gid}"]


def test_an_ask_answered_yes_is_an_override_twice_and_the_guard_goes(cfg, engine, web):
    remember(cfg, web, LESSON)
    payload = {"session_id": "cc", "cwd": str(web), "transcript_path": "/x", "tool_name": "Bash",
               "tool_input": {"command": "npm install left-pad"}, "tool_use_id": "toolu_1"}
    out = claude_hook.handle(engine, "PreToolUse", {**payload, "hook_event_name": "PreToolUse"}, event_id="a")
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "ask"
    # the user said yes in the permission prompt: the call ran
    out = claude_hook.handle(engine, "PostToolUse", {**payload, "hook_event_name": "PostToolUse",
                                                     "tool_response": {"stdout": ""}}, event_id="b")
    # it asked already: "demoted to ask" would change nothing (a walk found it said so)
    assert "guard 1 still asks first (you let it run, 1 strike)" in json.loads(out)["systemMessage"]
    assert (guard(cfg).status, guard(cfg).strikes, guard(cfg).action) == ("active", 1, "ask")
    # the same PostToolUse retried (same event id) is not a second override
    claude_hook.handle(engine, "PostToolUse", {**payload, "hook_event_name": "PostToolUse"}, event_id="b")
    assert guard(cfg).strikes == 1
    claude_hook.handle(engine, "PreToolUse", {**payload, "hook_event_name": "PreToolUse"}, event_id="c")
    out = claude_hook.handle(engine, "PostToolUse", {**payload, "hook_event_name": "PostToolUse"}, event_id="d")
    assert "removed" in json.loads(out)["systemMessage"] and "tacit guard restore 1" in json.loads(out)["systemMessage"]
    assert guard(cfg).status == "removed" and guard(cfg).removed_why == "overridden 2 times"
    assert [c.action for c in guard_history(cfg)] == ["guard_demote", "guard_remove"]
    assert counts(cfg, web) == {"stop": 2, "override": 2, "wrong": 0, "repeat": 0}
    assert claude_hook.handle(engine, "PreToolUse", {**payload, "hook_event_name": "PreToolUse"}, event_id="e") == ""


def test_a_deny_guard_let_through_is_demoted_to_ask_and_says_so(cfg, engine, web):
    remember(cfg, web, LESSON)
    pi = Session(engine, web, host="pi")
    pi.user("install left-pad")
    assert pi.call("npm install left-pad").block
    with Ledger(cfg) as led, history.acting(history.USER):  # `tacit guard set 1 --action deny`
        result = GuardStore(cfg, led).set_action(1, "deny")
    assert result["success"], result
    answer = pi.user("run it anyway")
    assert "guard 1 demoted to ask (you let it run, 1 strike)" in answer.notices[0], answer.notices
    assert guard(cfg).action == "ask"


def test_run_it_anyway_after_a_deny_lets_it_through_for_the_turn(cfg, engine, web):
    remember(cfg, web, LESSON)
    pi = Session(engine, web, host="pi")
    pi.user("install left-pad")
    assert pi.call("npm install left-pad").block
    answer = pi.user("run it anyway")
    assert "lifted guard 1 for this turn" in answer.context[0].text and "npm install left-pad" in answer.context[0].text
    assert "guard 1 still asks first (you let it run, 1 strike)" in answer.notices[0]  # an ask guard (pi blocks)
    assert not pi.call("npm install left-pad").block  # the pass, this turn only
    pi.result("npm install left-pad")
    assert guard(cfg).strikes == 1 and counts(cfg, web)["override"] == 1  # counted once, at the answer
    pi.user("now add is-odd")
    assert pi.call("npm install is-odd").block  # next turn: the guard is back
    pi.user("no, npm is fine here")  # second strike: the rule is wrong
    assert guard(cfg).status == "removed" and guard(cfg).removed_why == "called wrong 2 times"
    assert [(c.action, c.after.get("because_of")) for c in guard_history(cfg)] == [
        ("guard_demote", "override"), ("guard_remove", "wrong")]
    assert guard_history(cfg)[0].actor.kind == "learner" and guard_history(cfg)[0].actor.name == "guards.reply"


def test_other_answers_change_nothing(cfg, engine, web):
    remember(cfg, web, LESSON)
    pi = Session(engine, web, host="pi")
    pi.user("install left-pad")
    assert pi.call("npm install left-pad").block
    assert pi.user("yes, go ahead").context == []  # usually means: with pnpm
    assert pi.call("npm install left-pad").block
    pi.user("ok")
    pi.user("run it anyway")  # two turns after the stop: not an answer to it
    assert guard(cfg).strikes == 0 and guard(cfg).status == "active"


def test_a_stop_echoed_back_as_a_failed_result_is_not_an_override(cfg, engine, web):
    remember(cfg, web, LESSON)
    pi = Session(engine, web, host="pi")
    reason = pi.call("npm install").reason
    pi.result("npm install", ok=False, error=reason)
    assert guard(cfg).strikes == 0 and counts(cfg, web)["override"] == 0


def test_tacit_guard_wrong_is_a_strike_too(cfg, web, tacit_env):
    import subprocess
    import sys

    remember(cfg, web, LESSON)
    with Ledger(cfg) as led:
        GuardStore(cfg, led).sync(project_for(str(web)))

    def wrong():
        proc = subprocess.run([sys.executable, "-m", "tacit", "guard", "wrong", "1", "--json"], env=tacit_env,
                              cwd=web, capture_output=True, text=True, timeout=60)
        return proc.returncode, json.loads(proc.stdout)

    assert wrong()[1]["change"] == "demoted"
    code, second = wrong()
    assert code == 0 and second["change"] == "removed" and second["guard"]["status"] == "removed"
    code, third = wrong()
    assert code == 1 and third["success"] is False
    assert [c.actor.kind for c in guard_history(cfg)] == ["user", "user"]


def test_a_repeat_mistake_is_a_saved_lesson_broken_by_an_unchecked_call(cfg, engine, web):
    remember(cfg, web, LESSON)
    # a host without guards: its calls arrive only after they ran
    unguarded = Session(engine, web, sid="no-guards", host="pi")
    unguarded.result("npm install left-pad")
    unguarded.result("pnpm add left-pad")  # keeps the lesson: nothing
    assert counts(cfg, web) == {"stop": 0, "override": 0, "wrong": 0, "repeat": 1}
    # a session whose calls are checked: stopped, never a repeat
    checked = Session(engine, web, sid="guarded", host="pi")
    assert checked.call("npm install left-pad").block
    assert not checked.call("ls").block
    checked.result("ls")
    assert counts(cfg, web) == {"stop": 1, "override": 0, "wrong": 0, "repeat": 1}


def test_a_call_before_the_lesson_was_saved_is_no_repeat(cfg, engine, web):
    from tacit.events import ToolResult

    remember(cfg, web, LESSON)
    with Ledger(cfg) as led:
        store = GuardStore(cfg, led)
        store.sync(project_for(str(web)))
        saved_at = store.get(1).lesson_at
    # an event from before the lesson (a replayed or late one): broke no saved lesson
    engine.dispatch(ToolResult(session_id="old", host="pi", cwd=str(web), id="r1", name="bash",
                               args={"command": "npm install"}, ts=saved_at - 3600))
    assert counts(cfg, web)["repeat"] == 0
    engine.dispatch(ToolResult(session_id="old", host="pi", cwd=str(web), id="r2", name="bash",
                               args={"command": "npm install"}, ts=saved_at + 1))
    assert counts(cfg, web)["repeat"] == 1


def test_guards_turned_off_count_repeats(cfg, web):
    remember(cfg, web, LESSON)
    engine = engine_for(cfg.with_settings(guards_enabled=False))
    try:
        session = Session(engine, web)
        assert not session.call("npm install left-pad").ask
        session.result("npm install left-pad")
    finally:
        engine.close()
    assert counts(cfg, web)["repeat"] == 1
