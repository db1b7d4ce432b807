"""The Claude Code hook adapter: payload → events → state and hook output.

Real engine, real ledger, real hook processes (the exact command ``tacit
install claude-code`` writes, which goes through the service). What Claude
Code itself does with the output is proven in tests/e2e/test_claude_code.py.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tacit.commandline import hook_command
from tacit.events import clip_tool_args
from tacit.hookspecs import ContextResult, Injection, Result, ToolCallResult
from tacit.hosts import hooks
from tacit.hosts.claude_code.hook import CONTEXT_CAP, TRUNCATION_NOTE, cut_at_line, fit_context, render
from tacit.fsutil import read_tail
from tacit.hosts.claude_code.hook import TAIL_BYTES, last_assistant_text
from tacit.hosts.runtime import build_engine

SID = "5f0e4c1a-9d7e-4b2a-8c3d-000000000001"


def payload(event: str, **fields) -> bytes:
    base = {"session_id": SID, "transcript_path": "/nonexistent.jsonl", "cwd": "/tmp/project",
            "hook_event_name": event}
    if event != "SessionStart":
        base["prompt_id"] = "p-1"
    base.update(fields)
    return json.dumps(base).encode()


class Hooks:
    """One engine for the whole test, the way the service holds one."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.engine = build_engine(cfg, "oneshot", host="claude-code", discover_plugins=False)

    def __call__(self, event: str, body: bytes) -> str:
        return hooks.run(self.engine, "claude-code", event, body)

    def state(self, session_id: str = SID):
        return self.engine.sessions.peek(session_id)


@pytest.fixture
def quiet_cfg(cfg):
    # no child agents: these tests look at the hook, not at detached children
    return cfg.with_settings(child_enabled=False, learning_enabled=False)


@pytest.fixture
def handle(quiet_cfg):
    return Hooks(quiet_cfg)


def tool(name="Bash", ok=True, **extra) -> tuple[str, bytes]:
    event = "PostToolUse" if ok else "PostToolUseFailure"
    fields = {"tool_name": name, "tool_input": {"command": "echo hi", "description": "d"},
              "tool_use_id": "toolu_1"}
    if ok:
        fields["tool_response"] = {"stdout": "hi", "stderr": ""}
    else:
        fields.update(error="Exit code 3\nthree-out", is_interrupt=False)
    fields.update(extra)
    return event, payload(event, **fields)


# --------------------------------------------------------------------------
# translation
# --------------------------------------------------------------------------

def test_a_turn_is_accounted_across_hook_calls(handle):
    assert handle("UserPromptSubmit", payload("UserPromptSubmit", prompt="run the tests")) == ""
    for ok in (True, True, False):
        assert handle(*tool(ok=ok)) == ""
    handle(*tool(name="Read"))
    state = handle.state()
    assert state.user_turns == 1 and state.turn.open is True
    assert state.turn.tool_calls == [["Bash", True], ["Bash", True], ["Bash", False], ["Read", True]]
    assert handle("Stop", payload("Stop", last_assistant_message="All green.", stop_hook_active=False)) == ""
    state = handle.state()
    assert state.turn.open is False and state.turns_since_review == 1
    assert state.recent == [{"role": "user", "text": "run the tests"},
                            {"role": "assistant", "text": "All green."}]


def test_stop_with_stop_hook_active_is_not_a_turn_end(handle):
    handle("UserPromptSubmit", payload("UserPromptSubmit", prompt="go"))
    assert handle("Stop", payload("Stop", last_assistant_message="x", stop_hook_active=True)) == ""
    assert handle.state().turn.open is True


def test_correction_is_detected_on_user_prompt_submit(handle):
    handle("UserPromptSubmit", payload("UserPromptSubmit", prompt="install the deps"))
    handle("Stop", payload("Stop", last_assistant_message="I ran npm install."))
    handle("UserPromptSubmit", payload("UserPromptSubmit", prompt="no, use pnpm instead of npm"))
    pending = handle.state().pending_correction
    assert pending["text"] == "no, use pnpm instead of npm"
    assert pending["prev_assistant"] == "I ran npm install."


def test_session_start_injects_memory_and_skills_in_priority_order(handle, quiet_cfg):
    from tacit.stores.memory import MemoryStore
    from tacit.stores.skills import SkillStore

    MemoryStore(quiet_cfg).add("memory", "MEM-ONE: builds with make")
    MemoryStore(quiet_cfg).add("user", "USER-ONE: likes tabs")
    assert SkillStore(quiet_cfg).create("deploy-app", "SKILL-ONE deploy the app")["success"]
    out = json.loads(handle("SessionStart", payload("SessionStart", source="startup")))
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = out["hookSpecificOutput"]["additionalContext"]
    order = [text.index(s) for s in ("USER-ONE", "MEM-ONE", "tacit memory add", "SKILL-ONE")]
    assert order == sorted(order)
    assert set(out) == {"hookSpecificOutput"}  # nothing that could block or alter the turn
    assert handle.state().user_turns == 0


def test_session_start_says_a_memory_file_edited_into_invalid_utf8_will_not_be_written(handle, quiet_cfg):
    """A hand edit left bytes that are not UTF-8 in MEMORY.md: the session read the entries (the bad bytes as
    U+FFFD) without a word, and every later save into that scope (a background child's too) was refused."""
    from tacit.stores.memory import MemoryStore

    MemoryStore(quiet_cfg).add("memory", "MEM-ONE: builds with make")
    quiet_cfg.memory_file.write_bytes(b"MEM-ONE: builds with make\n\xc2\xa7\nbad \xff bytes\n\xc2\xa7\nMEM-TWO\n")
    out = json.loads(handle("SessionStart", payload("SessionStart", source="startup")))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert "MEM-ONE" in text and "MEM-TWO" in text and "bad \ufffd bytes" in text, text
    assert f"{quiet_cfg.memory_file} is not valid UTF-8 (bad byte at offset 33)" in out.get("systemMessage", ""), out
    assert "will not write to it" in out["systemMessage"]


def test_session_start_says_which_hand_edited_skill_it_left_out(handle, quiet_cfg):
    """A hand edit broke a skill's frontmatter: the next session's index went on without it and nobody was
    told (only `tacit skill list` named it); the good skill is still listed and the file is left as it was."""
    from tacit.stores.skills import SkillStore

    store = SkillStore(quiet_cfg)
    assert store.create("deploy-app", "SKILL-ONE deploy the app")["success"]
    assert store.create("run-tests", "SKILL-TWO run the tests")["success"]
    broken = store.skills_dir / "run-tests" / "SKILL.md"
    broken.write_text("---\nname: run-tests\ndescription: [unclosed\n---\n\n## Steps\nmy hand edit\n")
    out = json.loads(handle("SessionStart", payload("SessionStart", source="startup")))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert "SKILL-ONE" in text and "SKILL-TWO" not in text, text
    told = out.get("systemMessage", "")
    assert f"tacit left 1 skill file(s) it could not read out of the skill index: {broken}: bad YAML" in told, out
    assert broken.read_text().endswith("my hand edit\n")


def test_session_start_with_an_empty_store_still_explains_how_to_save(handle):
    out = json.loads(handle("SessionStart", payload("SessionStart")))
    assert "tacit memory add" in out["hookSpecificOutput"]["additionalContext"]


def test_session_start_names_the_absolute_cli_when_tacit_is_not_on_path(quiet_cfg, tmp_path):
    no_tacit = quiet_cfg.__class__(quiet_cfg.home_str, quiet_cfg.state_dir_str, quiet_cfg.host, False,
                                   quiet_cfg.settings, [], {**quiet_cfg.env, "PATH": str(tmp_path)})
    text = json.loads(Hooks(no_tacit)("SessionStart", payload("SessionStart")))["hookSpecificOutput"][
        "additionalContext"]
    assert "is not on PATH" in text and os.path.dirname(sys.executable) in text
    with_tacit = json.loads(Hooks(quiet_cfg)("SessionStart", payload("SessionStart")))
    assert "is not on PATH" not in with_tacit["hookSpecificOutput"]["additionalContext"]


def test_expansion_precompact_and_session_end_translate(handle):
    seen = []
    for kind in ("command", "before_compact", "session_shutdown"):
        handle.engine.on(kind, lambda e, c: seen.append((e.kind, e.host)), name=f"test.{kind}")
    assert handle("UserPromptExpansion", payload(
        "UserPromptExpansion", expansion_type="slash_command", command_name="tacit:memory-skills",
        command_args="", command_source="plugin", prompt="/tacit:memory-skills")) == ""
    assert handle("PreCompact", payload("PreCompact", trigger="manual")) == ""
    assert handle("SessionEnd", payload("SessionEnd", reason="other")) == ""
    assert seen == [("command", "claude-code"), ("before_compact", "claude-code"),
                    ("session_shutdown", "claude-code")]


def test_pre_tool_use_reaches_the_engine_and_a_stop_becomes_a_permission_decision(handle):
    seen = []

    def guard(event, ctx):
        seen.append(event)
        if "npm install" in event.args.get("command", ""):
            return ToolCallResult(ask=True, reason="tacit: this project uses pnpm")
        return None

    handle.engine.on("tool_call", guard, name="test.guard")
    out = json.loads(handle("PreToolUse", payload("PreToolUse", tool_name="Bash",
                                                  tool_input={"command": "npm install left-pad"})))
    assert out == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                          "permissionDecisionReason": "tacit: this project uses pnpm"}}
    assert handle("PreToolUse", payload("PreToolUse", tool_name="Bash", tool_input={"command": "ls"})) == ""
    assert [e.kind for e in seen] == ["tool_call", "tool_call"]


@pytest.mark.parametrize("event", ["PostToolBatch", "MessageDisplay", "Notification", ""])
def test_other_hooks_do_nothing(handle, event):
    assert handle(event, payload(event or "X")) == ""


def test_inert_in_a_child(tacit_env):
    from tacit.config import load_config

    child = Hooks(load_config(env={**tacit_env, "TACIT_CHILD": "1"}))
    assert child("UserPromptSubmit", payload("UserPromptSubmit", prompt="no, use pnpm")) == ""
    assert child("SessionStart", payload("SessionStart")) == ""


def test_bad_payloads_are_logged_and_answered_with_nothing(handle, quiet_cfg):
    for body in (b"not json", json.dumps({"prompt": "no session"}).encode(), b"[1, 2]", b"\xff\xfe{"):
        assert handle("UserPromptSubmit", body) == ""
    assert "hook claude-code UserPromptSubmit" in quiet_cfg.log_file.read_text()


def test_invalid_utf8_and_lone_surrogates_lose_nothing(handle):
    body = payload("UserPromptSubmit", prompt="PLACEHOLDER").replace(b"PLACEHOLDER", b"caf\xe9 \\ud800 ok")
    assert handle("UserPromptSubmit", body) == ""
    assert handle.state().turn.user_text.endswith("ok")


def test_clip_args_keeps_commands_and_drops_bulk():
    args = clip_tool_args({"command": "ls", "content": "x" * 5000, "edits": [{"a": 1}], "n": 3, "flag": True})
    assert args["command"] == "ls" and len(args["content"]) == 2001 and args["content"].endswith("…")
    assert "edits" not in args and args["n"] == 3 and args["flag"] is True
    assert clip_tool_args("not a dict") == {}


# --------------------------------------------------------------------------
# the 10,000-character cap
# --------------------------------------------------------------------------

def inject(text: str, priority: int) -> Injection:
    return Injection(text, priority)


def test_fit_context_keeps_everything_that_fits_in_priority_order():
    text = fit_context([inject("skills", 30), inject("memory", 10), inject("guide", 20)])
    assert text == "memory\n\nguide\n\nskills"


def test_fit_context_cuts_the_first_overflow_and_drops_the_rest():
    memory = "\n".join(f"memory line {i}" for i in range(300))  # ~4,400 chars
    skills = "\n".join(f"- skill-{i}: does thing {i}" for i in range(400))  # ~10,000 chars
    tail = "LOW-PRIORITY-TAIL"
    text = fit_context([inject(skills, 30), inject(tail, 40), inject(memory, 10)])
    assert len(text) <= CONTEXT_CAP
    assert text.startswith(memory + "\n\n")  # the memory block is whole
    assert text.endswith(TRUNCATION_NOTE) and tail not in text
    kept = text[len(memory) + 2: -len(TRUNCATION_NOTE)]
    assert skills.startswith(kept) and kept.endswith("does thing " + kept.rsplit("thing ", 1)[1])
    assert kept.split("\n")[-1].startswith("- skill-")  # cut at a line end, not mid-line


def test_fit_context_cuts_even_the_memory_block_when_it_alone_is_too_big():
    huge = "\n".join("m" * 99 for _ in range(200))  # 19,999 chars
    text = fit_context([inject(huge, 10), inject("guide", 20)])
    assert len(text) <= CONTEXT_CAP and text.endswith(TRUNCATION_NOTE) and "guide" not in text


def test_fit_context_with_no_room_left_says_so_or_stays_silent():
    exact = "x" * CONTEXT_CAP
    assert fit_context([inject(exact, 10), inject("more", 20)]) == exact
    nearly = "x" * (CONTEXT_CAP - 150)
    text = fit_context([inject(nearly, 10), inject("y" * 500, 20)])
    assert len(text) <= CONTEXT_CAP and text.endswith(TRUNCATION_NOTE.lstrip("\n"))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=0, max_size=4000), st.integers(0, 100)), max_size=8))
def test_fit_context_never_exceeds_the_cap(items):
    text = fit_context([inject(t, p) for t, p in items])
    assert len(text) <= CONTEXT_CAP


def test_cut_at_line_prefers_line_then_word_boundaries():
    assert cut_at_line("aaa\nbbb\nccc", 9) == "aaa\nbbb"
    assert cut_at_line("one two three four", 12) == "one two"
    assert cut_at_line("x" * 50, 10) == "x" * 10


def test_full_store_session_start_stays_under_the_cap(quiet_cfg):
    from tacit.stores.memory import MemoryStore
    from tacit.stores.skills import SkillStore

    cfg = quiet_cfg.with_settings(skill_index_budget=9000)
    store = MemoryStore(cfg)
    i = 0
    while store.add("memory", f"Fact number {i:03d} about the project build and its tooling.")["success"]:
        i += 1
    while store.add("user", f"Preference {i:03d}: the user likes things done this way.")["success"]:
        i += 1
    skills = SkillStore(cfg)
    for n in range(60):
        assert skills.create(f"skill-{n:03d}", f"Use when doing task number {n:03d} of the long list of "
                                               f"things this project needs done regularly, for example "
                                               f"releases, migrations, audits and the weekly report")["success"]
    out = Hooks(cfg)("SessionStart", payload("SessionStart"))
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert len(text) <= CONTEXT_CAP
    assert "Fact number 000" in text and f"Preference {i - 1:03d}" in text  # memory whole
    assert text.endswith(TRUNCATION_NOTE)  # the skill index was cut, deliberately


def test_render_puts_context_only_where_it_reaches_the_model_and_never_blocks_a_prompt():
    results = [ContextResult(context=[inject("CONTEXT", 10)])]
    start = json.loads(render("SessionStart", results))
    assert start["hookSpecificOutput"]["additionalContext"] == "CONTEXT"
    prompt = json.loads(render("UserPromptSubmit", results))
    assert prompt["hookSpecificOutput"] == {"hookEventName": "UserPromptSubmit", "additionalContext": "CONTEXT"}
    assert render("Stop", results) == ""  # Stop cannot inject; never a decision
    assert json.loads(render("Stop", [Result(notices=["saved a memory"])])) == {"systemMessage": "saved a memory"}
    deny = json.loads(render("PreToolUse", [ToolCallResult(block=True, reason="no")]))
    assert deny["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert render("UserPromptSubmit", [ToolCallResult(block=True, reason="no")]) == ""


# --------------------------------------------------------------------------
# the real hook process (through the service)
# --------------------------------------------------------------------------

def run_hook_process(tacit_env, event: str, stdin: bytes, **env_extra) -> subprocess.CompletedProcess:
    env = {**tacit_env, **env_extra}
    return subprocess.run(shlex.split(hook_command(sys.executable, "claude-code", event)), input=stdin, env=env,
                          capture_output=True, timeout=30)


def test_installed_command_answers_session_start(tacit_env, cfg):
    proc = run_hook_process(tacit_env, "SessionStart", payload("SessionStart"))
    assert proc.returncode == 0 and proc.stderr == b""
    assert json.loads(proc.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b'{"prompt": "no session"}', b"\xff\xfe"])
def test_bad_input_exits_0_silently_and_is_logged(tacit_env, cfg, stdin):
    proc = run_hook_process(tacit_env, "UserPromptSubmit", stdin)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    if stdin.strip() and stdin not in (b"[1, 2]",):
        deadline = time.time() + 5
        while time.time() < deadline and "hook claude-code UserPromptSubmit" not in (
                cfg.log_file.read_text() if cfg.log_file.exists() else ""):
            time.sleep(0.05)
        assert "hook claude-code UserPromptSubmit" in cfg.log_file.read_text()


def test_unwritable_data_folder_exits_0(tacit_env, tmp_path):
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x")
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"):
        started = time.time()
        proc = run_hook_process(tacit_env, event, payload(event, prompt="hi", tool_name="Bash"),
                                TACIT_HOME=str(a_file))
        assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b"", event
        assert time.time() - started < 12


def test_child_env_returns_at_once_without_touching_the_data_folder(tacit_env, tacit_home):
    proc = run_hook_process(tacit_env, "UserPromptSubmit", payload("UserPromptSubmit", prompt="no, use pnpm"),
                            TACIT_CHILD="1")
    assert proc.returncode == 0 and proc.stdout == b""
    assert list(tacit_home.iterdir()) == []


def test_closed_stdout_still_exits_0(tacit_env):
    proc = subprocess.Popen(shlex.split(hook_command(sys.executable, "claude-code", "SessionStart")), env=tacit_env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the host went away before reading the answer
    _, err = proc.communicate(payload("SessionStart"), timeout=30)
    assert proc.returncode == 0, err


def test_unknown_host_is_ignored(tacit_env, cfg):
    proc = subprocess.run([sys.executable, "-m", "tacit", "hook", "no-such-host", "Stop"],
                          input=payload("Stop"), env=tacit_env, capture_output=True, timeout=30)
    assert proc.returncode == 0 and proc.stdout == b""


# --------------------------------------------------------------------------
# the transcript fallback
# --------------------------------------------------------------------------

def test_last_assistant_text_reads_the_last_reply(tmp_path):
    lines = [
        {"type": "user", "message": {"role": "user", "content": "first"}},
        {"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": "old reply"}]}},
        {"type": "user", "message": {"role": "user", "content": "second"}},
        {"type": "assistant", "message": {"id": "m2", "content": [{"type": "tool_use", "name": "Bash"}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "content": "ok"}]}},
        {"type": "assistant", "message": {"id": "m3", "content": [{"type": "text", "text": "part one"}]}},
        {"type": "assistant", "message": {"id": "m3", "content": [{"type": "text", "text": "part two"}]}},
        {"type": "last-prompt"},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert last_assistant_text(str(path)) == "part one\npart two"
    assert last_assistant_text(str(tmp_path / "missing.jsonl")) == ""
    assert last_assistant_text("") == ""


def test_stop_without_last_assistant_message_falls_back_to_the_transcript(handle, tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"type": "assistant", "message": {"id": "m", "content": [
        {"type": "text", "text": "from the transcript"}]}}) + "\n")
    handle("UserPromptSubmit", payload("UserPromptSubmit", prompt="go"))
    handle("Stop", payload("Stop", transcript_path=str(path)))
    assert handle.state().last_assistant_text == "from the transcript"


def test_the_transcript_read_is_bounded_and_never_blocks(tmp_path):
    assert read_tail("/dev/zero", TAIL_BYTES) == b""  # not a regular file: never read
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    done = threading.Event()
    threading.Thread(target=lambda: (read_tail(str(fifo), TAIL_BYTES), done.set()), daemon=True).start()
    assert done.wait(5), "a FIFO blocked the transcript read"
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as handle_:
        handle_.write(b"x" * (8 * 1024 * 1024))
        handle_.write(b"\n" + json.dumps({"type": "assistant", "message": {"id": "m", "content": [
            {"type": "text", "text": "the end"}]}}).encode() + b"\n")
    assert len(read_tail(str(big), TAIL_BYTES)) <= 2 * 1024 * 1024
    assert last_assistant_text(str(big)) == "the end"


def test_tool_args_are_clipped_before_the_event_log(cfg):
    hooks_ = Hooks(cfg.with_settings(child_enabled=False))
    hooks_.engine._schedule_background = lambda: None  # keep the events pending, as stored
    hooks_("UserPromptExpansion", payload("UserPromptExpansion", command_name="tacit:memory-skills",
                                          command_args="--all"))
    hooks_(*tool(name="Bash", tool_input={"command": "pnpm test", "content": "x" * 9000}))
    with hooks_.engine.ledger().read() as conn:
        stored = {k: json.loads(e) for k, e in conn.execute(
            "SELECT kind, event FROM events WHERE background = 1")}
    assert stored["command"]["name"] == "tacit:memory-skills" and stored["command"]["args"] == "--all"
    assert stored["tool_result"]["args"]["command"] == "pnpm test"
    assert len(stored["tool_result"]["args"]["content"]) == 2001


# --------------------------------------------------------------------------
# slash commands answered in the hook
# --------------------------------------------------------------------------
def test_a_tacit_slash_command_is_answered_by_the_prompt_hook(handle, tmp_path):
    from tacit.hosts.claude_code.hook import slash_command
    from tacit.stores.memory import MemoryStore

    project = tmp_path / "repo"
    project.mkdir()
    MemoryStore(handle.cfg).add("user", "Prefers short answers.")
    out = json.loads(handle("UserPromptSubmit", payload("UserPromptSubmit", prompt="/tacit:memory-show",
                                                        cwd=str(project))))
    assert out["decision"] == "block"  # Claude Code shows the reason and calls no model
    reason = out["reason"]
    assert reason.index("USER PROFILE") < reason.index("Prefers short answers.") < reason.index("Candidates")
    assert handle.state().user_turns == 0  # a command, not a message of the conversation
    nothing = json.loads(handle("UserPromptSubmit", payload("UserPromptSubmit", prompt="/memory-consolidate",
                                                            cwd=str(project))))
    assert nothing["reason"].startswith("Nothing to consolidate")
    forgot = json.loads(handle("UserPromptSubmit", payload("UserPromptSubmit",
                                                           prompt="/tacit:memory-forget short answers",
                                                           cwd=str(project))))
    assert forgot["reason"].startswith('Forgot "short answers"') and MemoryStore(handle.cfg).entries("user") == []
    assert slash_command("/tacit:memory-teach --user likes tabs\nand more") == ("memory-teach",
                                                                               "--user likes tabs\nand more")
    for prompt in ("/tacit:memory-nope", "please /tacit:memory-show", "/other:memory-show", None, "/memory"):
        assert slash_command(prompt) is None


def test_a_consolidation_with_work_to_do_runs_detached_and_is_told_next_prompt(handle, tmp_path):
    from tacit.stores.memory import MemoryStore

    small = handle.cfg.with_settings(memory_char_limit=70)
    small.home.mkdir(parents=True, exist_ok=True)
    small.config_file.write_text("memory_char_limit = 70\nchild_enabled = false\n")  # the detached process reads it
    engine = build_engine(small, "oneshot", host="claude-code", discover_plugins=False)
    store = MemoryStore(small)
    store.add("global", "Deploy with make deploy, always.")
    store.add("global", "deploy with make deploy, always")  # a duplicate: 84% of 70
    body = payload("UserPromptSubmit", prompt="/tacit:memory-consolidate", cwd=str(tmp_path))
    out = json.loads(hooks.run(engine, "claude-code", "UserPromptSubmit", body))
    assert out["decision"] == "block" and out["reason"].startswith("Consolidating global memory in the background")
    deadline = time.monotonic() + 60
    while len(MemoryStore(small).entries("global")) > 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert MemoryStore(small).entries("global") == ["Deploy with make deploy, always."]
    # the next prompt of that session carries what changed
    nxt = json.loads(hooks.run(engine, "claude-code", "UserPromptSubmit",
                               payload("UserPromptSubmit", prompt="ok", cwd=str(tmp_path))))
    assert "tacit" in nxt.get("systemMessage", "") and "undo" in nxt["systemMessage"], nxt


def test_a_slash_answer_does_not_echo_the_prompt_and_names_tacit_commands(handle, tmp_path):
    """Issue 22: no "Original prompt: …" under the answer; hints say /tacit:memory-…"""
    from tacit.hosts.claude_code.hook import slash_names

    project = tmp_path / "repo"
    project.mkdir()
    out = json.loads(handle("UserPromptSubmit", payload("UserPromptSubmit", prompt="/tacit:memory-forget",
                                                        cwd=str(project))))
    assert out["decision"] == "block"
    assert out["hookSpecificOutput"] == {"hookEventName": "UserPromptSubmit", "suppressOriginalPrompt": True}
    assert "/tacit:memory-forget we use pnpm" in out["reason"] and " /memory-forget" not in out["reason"]
    assert slash_names("teach it with /memory-teach or `tacit memory add`; see /tacit:memory-show") == \
        "teach it with /tacit:memory-teach or `tacit memory add`; see /tacit:memory-show"
    assert slash_names("/memory-nope and a/memory-show path") == "/memory-nope and a/memory-show path"


def test_memory_show_puts_a_candidate_already_saved_under_the_true_heading(handle, tmp_path):
    """A capture waiting for review whose lesson a save already put in USER.md is not "not in memory yet"."""
    import time

    from tacit.learn import importance
    from tacit.learn.captures import Assessment
    from tacit.stores.ledger import Ledger
    from tacit.stores.memory import MemoryStore

    project = tmp_path / "repo"
    project.mkdir()
    with Ledger(handle.cfg) as led, led.write() as conn:
        for content in ("I prefer short answers, skip the long explanations", "Our Kafka cluster has six brokers."):
            importance.capture(conn, handle.cfg, Assessment("capture", category="preference", importance=0.9,
                                                            content=content), session_id="s1", now=time.time())
    MemoryStore(handle.cfg).add("user", "I prefer short answers, skip the long explanations")
    out = json.loads(handle("UserPromptSubmit", payload("UserPromptSubmit", prompt="/tacit:memory-show",
                                                        cwd=str(project))))
    reason = out["reason"]
    waiting = reason[reason.index("not in memory yet"):reason.index("already in memory")]
    saved = reason[reason.index("already in memory"):]
    assert "six brokers" in waiting and "short answers" not in waiting
    assert "short answers" in saved and "six brokers" not in saved
