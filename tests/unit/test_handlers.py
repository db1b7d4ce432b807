"""The built-in handlers through a real engine: correction detection and its
rate limit, the tool-call-aware review, the once-per-session skill trigger,
flush, and the session context. Child jobs are recorded, not run (children
are tested in test_children.py)."""

from __future__ import annotations

import pytest
from engine_helpers import Recorder

from tacit.engine import Engine
from tacit.events import BeforeAgentStart, BeforeCompact, MessageEnd, SessionShutdown, ToolResult, TurnEnd

CORRECTIONS = [
    "no, don't use npm here. we use pnpm in this repo",
    "I told you to keep the tests in tests/unit",
    "dont add another utils file, we have helpers.py for that",
    "that's not what I asked for, the cards go in a grid",
]
PLAIN = [
    "great, now add a test for the parser",
    "can you also update the README",
    "stop the server and restart it",
    "no worries, thanks!",
]


def make(cfg, **settings):
    engine = Engine(cfg.with_settings(**settings) if settings else cfg)
    engine.load_builtins()
    engine.launcher = Recorder()
    return engine, engine.launcher


def turn(engine, user, tools=(), reply="Done — I ran npm install and updated the files.", sid="s"):
    engine.dispatch(MessageEnd(session_id=sid, role="user", text=user))
    for name in tools:
        engine.dispatch(ToolResult(session_id=sid, name=name))
    engine.dispatch(MessageEnd(session_id=sid, role="assistant", text=reply))
    return engine.dispatch(TurnEnd(session_id=sid))


def state(engine, sid="s"):
    return engine.sessions.peek(sid)


def finish_all(engine, recorder):
    for job in recorder.jobs:
        engine.child_finished(job)


# ---------------------------------------------------------------------------
# Corrections
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", CORRECTIONS)
def test_a_correction_is_marked_pending_then_saved_at_turn_end(cfg, text):
    engine, rec = make(cfg)
    turn(engine, "set up the project", reply="I ran npm install and created src/utils/format.py.")
    engine.dispatch(MessageEnd(session_id="s", role="user", text=text))
    pending = state(engine).pending_correction
    assert pending["text"] == text and pending["turn"] == 2
    assert pending["prev_assistant"] == "I ran npm install and created src/utils/format.py."
    assert pending["rule"] not in (None, "none")
    assert rec.jobs == []  # nothing runs before the turn ends
    engine.dispatch(TurnEnd(session_id="s", assistant_text="Switched to pnpm."))
    assert rec.kinds() == ["correction"]
    job = rec.of("correction")[0]
    assert job["variables"]["correction"] == text
    assert job["variables"]["prev_assistant"].startswith("I ran npm install")
    assert job["variables"]["assistant_reply"] == "Switched to pnpm."
    assert {"role": "user", "text": text} in job["variables"]["recent"]
    assert state(engine).pending_correction is None


@pytest.mark.parametrize("text", PLAIN)
def test_ordinary_messages_are_not_corrections(cfg, text):
    engine, rec = make(cfg)
    turn(engine, "set up the project")
    turn(engine, text)
    assert rec.of("correction") == []
    assert state(engine).pending_correction is None


def test_assistant_messages_are_never_checked(cfg):
    engine, rec = make(cfg)
    engine.dispatch(MessageEnd(session_id="s", role="user", text="hello"))
    engine.dispatch(MessageEnd(session_id="s", role="assistant", text="No, don't do that. I told you."))
    engine.dispatch(TurnEnd(session_id="s"))
    assert rec.jobs == []


def test_at_most_one_save_per_three_turns_and_pending_is_kept_meanwhile(cfg):
    engine, rec = make(cfg)
    turn(engine, CORRECTIONS[0])  # turn 1: saved at once
    finish_all(engine, rec)
    assert len(rec.of("correction")) == 1
    turn(engine, CORRECTIONS[1])  # turn 2: rate-limited, kept pending
    assert len(rec.of("correction")) == 1
    assert state(engine).pending_correction["text"] == CORRECTIONS[1]
    turn(engine, CORRECTIONS[2])  # turn 3: still limited; newest first, the older one rides along
    pending = state(engine).pending_correction
    assert pending["text"] == CORRECTIONS[2] and pending["earlier"] == [CORRECTIONS[1]]
    assert len(rec.of("correction")) == 1
    turn(engine, PLAIN[0])  # turn 4: three turns since the last save -> saved
    saves = rec.of("correction")
    assert len(saves) == 2
    assert saves[1]["variables"]["correction"] == CORRECTIONS[2]
    assert saves[1]["variables"]["earlier_corrections"] == [CORRECTIONS[1]]
    assert state(engine).pending_correction is None
    assert state(engine).last_correction_save_turn == 4


def test_the_rate_limit_is_configurable(cfg):
    engine, rec = make(cfg, correction_save_every_turns=1)
    for text in CORRECTIONS[:3]:
        turn(engine, text)
        finish_all(engine, rec)
    assert len(rec.of("correction")) == 3


def test_a_save_in_progress_is_not_doubled_and_the_correction_waits(cfg):
    engine, rec = make(cfg)
    turn(engine, CORRECTIONS[0])  # save #1 starts and keeps running (not finished)
    for text in PLAIN[:3]:
        turn(engine, text)
    turn(engine, CORRECTIONS[1])  # turn 5: rate limit allows, but a save is running
    assert len(rec.of("correction")) == 1
    assert state(engine).pending_correction["text"] == CORRECTIONS[1]
    engine.child_finished(rec.of("correction")[0])
    turn(engine, PLAIN[0])  # now it goes
    saves = rec.of("correction")
    assert len(saves) == 2 and saves[1]["variables"]["correction"] == CORRECTIONS[1]


def test_a_waiting_correction_is_saved_when_the_session_ends(cfg):
    engine, rec = make(cfg)
    turn(engine, CORRECTIONS[0])
    finish_all(engine, rec)
    turn(engine, CORRECTIONS[1])  # rate-limited
    engine.dispatch(SessionShutdown(session_id="s"))
    assert len(rec.of("correction")) == 2
    assert rec.of("correction")[-1]["variables"]["correction"] == CORRECTIONS[1]
    engine.dispatch(SessionShutdown(session_id="s"))
    assert len(rec.of("correction")) == 2  # nothing left


def test_a_waiting_correction_is_saved_before_compaction(cfg):
    engine, rec = make(cfg)
    turn(engine, CORRECTIONS[0])
    finish_all(engine, rec)
    turn(engine, CORRECTIONS[1])
    engine.dispatch(BeforeCompact(session_id="s"))
    assert len(rec.of("correction")) == 2


def test_correction_detection_can_be_switched_off(cfg):
    engine, rec = make(cfg, correction_detection=False)
    turn(engine, CORRECTIONS[0])
    assert "correction" not in rec.kinds() and state(engine).pending_correction is None
    # with no correction save, the lesson it states is left to the same-day review
    assert [h["text"] for h in rec.of("review")[0]["variables"]["highlighted"]] == [CORRECTIONS[0]]


def test_the_previous_reply_is_the_context_of_a_correction(cfg):
    engine, rec = make(cfg)
    turn(engine, "start the dev server", reply="The dev server is running on port 3000.")
    turn(engine, "the port is 5173 not 3000")
    job = rec.of("correction")[0]
    assert job["variables"]["prev_assistant"] == "The dev server is running on port 3000."


def test_an_invalid_regex_in_config_is_reported_and_ignored(cfg):
    engine, rec = make(cfg, correction_strong_patterns=["(unclosed", r"^tut tut\b"])
    turn(engine, "tut tut, the linter config lives in pyproject.toml")
    assert len(rec.of("correction")) == 1  # the valid custom pattern works
    log = cfg.log_file.read_text()
    assert "invalid regex" in log and "(unclosed" in log
    # the default strong list was replaced by the configured one, not crashed
    turn(engine, "great, now add a test for the parser")
    assert len(rec.of("correction")) == 1


def test_configured_patterns_do_not_leak_between_configs(cfg, tmp_path):
    from tacit.config import load_config

    custom, _ = make(cfg, correction_strong_patterns=[r"^bazinga\b"])
    turn(custom, "bazinga, wrong branch")
    other_cfg = load_config(env={"TACIT_HOME": str(tmp_path / "other"), "HOME": str(tmp_path)})
    plain, rec = make(other_cfg)
    turn(plain, "bazinga, the build is green")
    assert rec.jobs == []


# ---------------------------------------------------------------------------
# Review nudge
# ---------------------------------------------------------------------------


def test_review_fires_on_tool_calls_only_after_three_user_turns(cfg):
    engine, rec = make(cfg)  # nudge_tool_calls 15, nudge_interval 10
    turn(engine, "build the feature", tools=["Edit", "Bash"] * 10)  # 20 calls, turn 1
    turn(engine, "and the docs")  # turn 2
    assert rec.of("review") == []
    turn(engine, "and the changelog")  # turn 3: due since 20 >= 15
    reviews = rec.of("review")
    assert len(reviews) == 1 and reviews[0]["variables"]["reason"] == "20 tool calls"
    st = state(engine)
    assert st.turns_since_review == 0 and st.tool_calls_since_review == 0  # both reset
    turn(engine, "ok", tools=["Read"] * 3)
    assert len(rec.of("review")) == 1  # never re-fires on the same history


def test_review_fires_on_turns(cfg):
    engine, rec = make(cfg, nudge_interval=4, nudge_tool_calls=100)
    fired_at = []
    for n in range(1, 10):
        turn(engine, f"message {n}", tools=["Read"])
        finish_all(engine, rec)
        if len(rec.of("review")) > len(fired_at):
            fired_at.append(n)
    assert fired_at == [4, 8]
    assert rec.of("review")[0]["variables"]["reason"] == "4 turns"


def test_review_waits_for_the_minimum_user_turns_even_when_due(cfg):
    engine, rec = make(cfg, nudge_interval=1)
    turn(engine, "one")
    turn(engine, "two")
    assert rec.of("review") == []
    turn(engine, "three")
    assert len(rec.of("review")) == 1


def test_tool_calls_and_turns_reset_together(cfg):
    engine, rec = make(cfg, nudge_interval=5, nudge_tool_calls=6)
    for n in range(3):
        turn(engine, f"t{n}", tools=["Bash", "Edit"])  # 6 tool calls at turn 3
    assert len(rec.of("review")) == 1
    finish_all(engine, rec)
    for n in range(4):
        turn(engine, f"u{n}")  # 4 turns, 0 tools: neither threshold
    assert len(rec.of("review")) == 1
    turn(engine, "u4")  # the 5th turn since the review
    assert len(rec.of("review")) == 2


def test_review_not_doubled_while_one_runs(cfg):
    engine, rec = make(cfg, nudge_interval=1)
    for n in range(6):
        turn(engine, f"t{n}")
    assert len(rec.of("review")) == 1  # the first one never finished
    assert state(engine).turns_since_review == 3  # still counting meanwhile
    finish_all(engine, rec)
    turn(engine, "next")
    assert len(rec.of("review")) == 2


def test_a_running_mark_lasts_for_its_own_kinds_timeout(cfg):
    import time

    engine, rec = make(cfg, nudge_interval=1, child_timeout_seconds=10, child_timeout_review=1000)
    for n in range(3):
        turn(engine, f"t{n}")
    assert len(rec.of("review")) == 1
    with engine.sessions.updating("s") as st:
        st.running["review"]["started"] = time.time() - 200  # > 10 + 120, < 1000 + 120
    turn(engine, "t3")
    assert len(rec.of("review")) == 1  # still running under its own (longer) timeout
    with engine.sessions.updating("s") as st:
        st.running["review"]["started"] = time.time() - 1200
    turn(engine, "t4")
    assert len(rec.of("review")) == 2  # now the mark is stale: a crashed runner never blocks forever


def test_review_can_be_disabled_and_thresholds_zeroed(cfg):
    engine, rec = make(cfg, review_enabled=False, nudge_interval=1)
    for n in range(5):
        turn(engine, f"t{n}", tools=["Bash"] * 20)
    assert rec.of("review") == []
    engine, rec = make(cfg, nudge_interval=0, nudge_tool_calls=0)
    for n in range(5):
        turn(engine, f"t{n}", tools=["Bash"] * 20)
    assert rec.of("review") == []


# ---------------------------------------------------------------------------
# Skill auto-trigger
# ---------------------------------------------------------------------------


def test_skill_trigger_on_eight_calls_of_two_kinds_once_per_session(cfg):
    engine, rec = make(cfg, nudge_tool_calls=1000)
    turn(engine, "cut the release", tools=["Bash", "Read", "Bash", "Edit", "Bash", "Bash", "Read", "Bash"],
         reply="Tagged v1.2.0 and pushed.")
    skills = rec.of("skill")
    assert len(skills) == 1
    v = skills[0]["variables"]
    assert v["tool_call_count"] == 8 and v["tool_names"] == ["Bash", "Edit", "Read"]
    assert v["user_text"] == "cut the release" and v["assistant_text"] == "Tagged v1.2.0 and pushed."
    finish_all(engine, rec)
    turn(engine, "do it again for the hotfix", tools=["Bash", "Edit"] * 10)
    assert len(rec.of("skill")) == 1  # once per session
    turn(engine, "and in another session", tools=["Bash", "Edit"] * 5, sid="other")
    assert len(rec.of("skill")) == 2


def test_skill_trigger_needs_enough_calls_and_kinds_in_one_turn(cfg):
    engine, rec = make(cfg, nudge_tool_calls=1000)
    turn(engine, "seven", tools=["Bash", "Edit"] * 3 + ["Read"])  # 7 calls
    turn(engine, "one kind", tools=["Bash"] * 12)  # 12 calls, 1 kind
    turn(engine, "split a", tools=["Bash", "Edit"] * 2)  # 4 + 4 over two turns: not summed
    turn(engine, "split b", tools=["Bash", "Edit"] * 2)
    assert rec.of("skill") == []
    assert not state(engine).skill_trigger_fired


def test_skill_trigger_thresholds_are_configurable(cfg):
    engine, rec = make(cfg, skill_trigger_tool_calls=3, skill_trigger_min_tool_types=1)
    turn(engine, "small", tools=["Bash"] * 3)
    assert len(rec.of("skill")) == 1


def test_host_supplied_turn_tool_calls_drive_the_skill_trigger(cfg):
    from tacit.events import ToolCallRecord

    engine, rec = make(cfg)
    engine.dispatch(MessageEnd(session_id="s", role="user", text="deploy"))
    calls = tuple(ToolCallRecord(name=n) for n in ["Bash", "Read"] * 4)
    engine.dispatch(TurnEnd(session_id="s", tool_calls=calls, assistant_text="Deployed."))
    assert len(rec.of("skill")) == 1


# ---------------------------------------------------------------------------
# Flush
# ---------------------------------------------------------------------------


def test_flush_before_compaction_after_enough_turns_and_once_per_point(cfg):
    engine, rec = make(cfg, nudge_interval=0, nudge_tool_calls=0)
    for n in range(5):
        turn(engine, f"t{n}")
    engine.dispatch(BeforeCompact(session_id="s"))
    assert rec.of("flush") == []  # 5 < flush_min_turns (6)
    turn(engine, "t5")
    engine.dispatch(BeforeCompact(session_id="s"))
    assert rec.kinds() == ["flush"]
    assert rec.of("flush")[0]["variables"]["why"] == "compact"
    assert len(rec.of("flush")[0]["variables"]["recent"]) == 12
    finish_all(engine, rec)
    engine.dispatch(SessionShutdown(session_id="s"))
    assert len(rec.of("flush")) == 1  # no new turn since
    turn(engine, "t6")
    engine.dispatch(SessionShutdown(session_id="s"))
    assert [j["variables"]["why"] for j in rec.of("flush")] == ["compact", "shutdown"]


def test_flush_switches_and_minimum(cfg):
    engine, rec = make(cfg, flush_on_compact=False, flush_on_shutdown=False)
    for n in range(8):
        turn(engine, f"t{n}")
    engine.dispatch(BeforeCompact(session_id="s"))
    engine.dispatch(SessionShutdown(session_id="s"))
    assert rec.of("flush") == []
    engine, rec = make(cfg, flush_min_turns=1)
    turn(engine, "one")
    engine.dispatch(SessionShutdown(session_id="s"))
    assert len(rec.of("flush")) == 1


# ---------------------------------------------------------------------------
# Session context
# ---------------------------------------------------------------------------


def test_session_context_is_the_frozen_snapshot_guidance_and_skill_index(cfg):
    from tacit.stores.memory import MemoryStore
    from tacit.stores.skills import SkillStore

    MemoryStore(cfg).add("memory", "The project uses pnpm.")
    MemoryStore(cfg).add("user", "Maya prefers short answers.")
    assert SkillStore(cfg).create("release-procedure", "Cut a release: test, tag, push.")["success"]
    engine, _ = make(cfg)
    context = engine.dispatch(BeforeAgentStart(session_id="s", prompt="hi")).context
    texts = [i.text for i in context]
    assert len(context) == 3
    assert "The project uses pnpm." in texts[0] and "Maya prefers short answers." in texts[0]
    assert "tacit memory add" in texts[1]
    assert "release-procedure" in texts[2]
    assert [i.priority for i in context] == [10, 20, 30]
    # frozen: a mid-session write does not change what this session is shown
    MemoryStore(cfg).add("memory", "Deploys run on Tuesdays.")
    again = engine.dispatch(BeforeAgentStart(session_id="s", prompt="hi")).context
    assert again[0].text == texts[0]
    fresh = engine.dispatch(BeforeAgentStart(session_id="new", prompt="")).context
    assert "Deploys run on Tuesdays." in fresh[0].text


def test_session_context_skips_what_the_host_does_itself(cfg):
    from tacit.stores.memory import MemoryStore

    MemoryStore(cfg).add("memory", "The project uses pnpm.")
    engine = Engine(cfg, host="hermes",
                    host_features={"hermes": {"memory_snapshot", "skill_index", "memory_tool"}}).load_builtins()
    assert engine.dispatch(BeforeAgentStart(session_id="s")).context == []
    engine = Engine(cfg, host="pi", host_features={"pi": {"memory_snapshot", "skill_index", "tacit_tools"}})
    context = engine.load_builtins().dispatch(BeforeAgentStart(session_id="s")).context
    assert len(context) == 1 and "`memory` tool" in context[0].text


# ---------------------------------------------------------------------------
# Same-day review (issue 22): what the user said is in memory by the next session
# ---------------------------------------------------------------------------
PREFERENCE = "Keep your answers short, I prefer brevity."


def test_a_durable_statement_starts_a_review_at_its_turns_end_and_is_acknowledged(cfg):
    engine, rec = make(cfg)
    told = engine.dispatch(MessageEnd(session_id="s", role="user", text=PREFERENCE)).notices
    engine.dispatch(MessageEnd(session_id="s", role="assistant", text="Understood."))
    engine.dispatch(TurnEnd(session_id="s"))
    (job,) = rec.of("review")  # turn 1: no interval, no minimum of user turns
    assert job["variables"]["reason"] == "a durable statement"
    assert [h["text"] for h in job["variables"]["highlighted"]] == [PREFERENCE]
    assert any(n.startswith("Noted (preference): Keep your answers short") for n in told)


def test_the_prompt_carries_every_highlight_since_the_last_review_not_a_window(cfg):
    from tacit.children.prompts import render_job_prompt

    engine, rec = make(cfg)
    turn(engine, PREFERENCE, reply="Understood.")  # starts review 1; it is still running
    turn(engine, "we use yarn here", reply="OK.")
    for n in range(15):  # more turns than the recent-messages window holds
        turn(engine, f"step {n}: rename the helper in module {n}", reply=f"Renamed helper {n}.")
    assert len(rec.of("review")) == 1  # one child per session at a time
    finish_all(engine, rec)
    turn(engine, "thanks", reply="You're welcome.")
    second = rec.of("review")[1]
    texts = [h["text"] for h in second["variables"]["highlighted"]]
    assert "we use yarn here" in texts and PREFERENCE not in texts  # covered by the first review
    assert all(m["text"] != "we use yarn here" for m in second["variables"]["recent"])  # gone from the window
    prompt = render_job_prompt(cfg, second)
    assert "we use yarn here" in prompt and "<highlighted>" in prompt


def test_uncovered_highlights_are_reviewed_at_the_sessions_end(cfg):
    engine, rec = make(cfg)
    turn(engine, PREFERENCE, reply="Understood.")  # review 1 runs and is never finished
    turn(engine, "we use yarn here", reply="OK.")
    assert len(rec.of("review")) == 1
    finish_all(engine, rec)
    engine.dispatch(SessionShutdown(session_id="s"))
    last = rec.of("review")[-1]
    assert last["variables"]["reason"] == "the session's end"
    assert [h["text"] for h in last["variables"]["highlighted"]] == ["we use yarn here"]
    engine.dispatch(SessionShutdown(session_id="s"))
    assert len(rec.of("review")) == 2  # nothing left uncovered: no second end review


def test_corrections_and_plain_messages_do_not_start_a_same_day_review(cfg):
    engine, rec = make(cfg)
    turn(engine, "set up the project", reply="I ran npm install.")
    turn(engine, "no, don't use npm here. we use pnpm in this repo")  # the correction save covers it
    turn(engine, "great, now add a test for the parser")
    assert rec.of("review") == [] and rec.kinds() == ["correction"]
    engine.dispatch(SessionShutdown(session_id="s"))
    assert rec.of("review") == []


def test_no_same_day_review_when_reviews_are_off(cfg):
    engine, rec = make(cfg, review_enabled=False)
    turn(engine, PREFERENCE, reply="Understood.")
    engine.dispatch(SessionShutdown(session_id="s"))
    assert rec.of("review") == []


def test_the_issues_session_leaves_nothing_said_unsaved(cfg):
    """Issue 22's session: both statements reach a save before the session ends."""
    engine, rec = make(cfg)
    turn(engine, "I prefer short answers, skip the long explanations", reply="Understood.")
    turn(engine, "add a health endpoint", reply="Added GET /health.")
    turn(engine, "we use yarn here", reply="OK.")
    finish_all(engine, rec)
    engine.dispatch(SessionShutdown(session_id="s"))
    carried = [j["variables"].get("correction", "") for j in rec.of("correction")]
    carried += [h["text"] for j in rec.of("review") for h in j["variables"]["highlighted"]]
    assert "I prefer short answers, skip the long explanations" in carried
    assert "we use yarn here" in carried


def test_a_review_the_sessions_end_deferred_starts_once_the_running_one_is_done(cfg):
    """An ended session has no later event: the service's housekeeping starts what its end deferred."""
    from tacit.service.housekeeping import start_deferred

    engine, rec = make(cfg)
    turn(engine, PREFERENCE, reply="Understood.")  # review 1 starts and is still running
    turn(engine, "we use yarn here", reply="OK.")
    engine.dispatch(SessionShutdown(session_id="s"))
    assert len(rec.of("review")) == 1  # one child per session at a time
    assert start_deferred(cfg, engine) == 0  # review 1 still runs
    finish_all(engine, rec)
    assert start_deferred(cfg, engine) == 1
    last = rec.of("review")[-1]
    assert last["variables"]["reason"] == "the session's end"
    assert [h["text"] for h in last["variables"]["highlighted"]] == ["we use yarn here"]
    finish_all(engine, rec)
    assert start_deferred(cfg, engine) == 0 and len(rec.of("review")) == 2  # started once
