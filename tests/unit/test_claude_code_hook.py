"""The Claude Code hook adapter: payload → events → state and hook output.

Real engine, real session-state files, real hook processes (the exact
command ``tacit install claude-code`` writes). What Claude Code itself does
with the output is proven in tests/e2e/test_claude_code.py.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tacit.events import InjectContext, clip_tool_args
from tacit.hosts.claude_code import fastjson
from tacit.hosts.claude_code.hook import (
    CONTEXT_CAP,
    TRUNCATION_NOTE,
    cut_at_line,
    fit_context,
    handle,
    render_output,
)
from tacit.hosts.claude_code.plugin import hook_command
from tacit.hosts.claude_code.transcript import last_assistant_text
from tacit.state import FileStateStore

SID = "5f0e4c1a-9d7e-4b2a-8c3d-000000000001"


def payload(event: str, **fields) -> bytes:
    base = {"session_id": SID, "transcript_path": "/nonexistent.jsonl", "cwd": "/tmp/project",
            "hook_event_name": event}
    if event != "SessionStart":
        base["prompt_id"] = "p-1"
    base.update(fields)
    return json.dumps(base).encode()


def state_of(cfg, session_id: str = SID) -> dict:
    return FileStateStore(cfg.sessions_dir_str).peek(session_id).data


@pytest.fixture
def quiet_cfg(cfg):
    # no child agents: these tests look at the hook, not at detached children
    return cfg.with_settings(child_enabled=False, learning_enabled=False)


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

def test_a_turn_is_accounted_across_hook_calls(quiet_cfg):
    cfg = quiet_cfg
    assert handle(cfg, "UserPromptSubmit", payload("UserPromptSubmit", prompt="run the tests")) == ""
    for ok in (True, True, False):
        assert handle(cfg, *tool(ok=ok)) == ""
    handle(cfg, *tool(name="Read"))
    state = state_of(cfg)
    assert state["user_turns"] == 1 and state["turn"]["open"] is True
    assert state["turn"]["tool_calls"] == [["Bash", True], ["Bash", True], ["Bash", False], ["Read", True]]
    assert handle(cfg, "Stop", payload("Stop", last_assistant_message="All green.",
                                       stop_hook_active=False)) == ""
    state = state_of(cfg)
    assert state["turn"]["open"] is False and state["turns_since_review"] == 1
    assert state["recent"] == [{"role": "user", "text": "run the tests"},
                               {"role": "assistant", "text": "All green."}]


def test_stop_with_stop_hook_active_is_not_a_turn_end(quiet_cfg):
    cfg = quiet_cfg
    handle(cfg, "UserPromptSubmit", payload("UserPromptSubmit", prompt="go"))
    assert handle(cfg, "Stop", payload("Stop", last_assistant_message="x", stop_hook_active=True)) == ""
    assert state_of(cfg)["turn"]["open"] is True


def test_correction_is_detected_on_user_prompt_submit(quiet_cfg):
    cfg = quiet_cfg
    handle(cfg, "UserPromptSubmit", payload("UserPromptSubmit", prompt="install the deps"))
    handle(cfg, "Stop", payload("Stop", last_assistant_message="I ran npm install."))
    handle(cfg, "UserPromptSubmit", payload("UserPromptSubmit", prompt="no, use pnpm instead of npm"))
    pending = state_of(cfg)["pending_correction"]
    assert pending["text"] == "no, use pnpm instead of npm"
    assert pending["prev_assistant"] == "I ran npm install."


def test_session_start_injects_memory_and_skills_in_priority_order(quiet_cfg):
    from tacit.stores.memory import MemoryStore
    from tacit.stores.skills import SkillStore

    cfg = quiet_cfg
    MemoryStore(cfg).add("memory", "MEM-ONE: builds with make")
    MemoryStore(cfg).add("user", "USER-ONE: likes tabs")
    assert SkillStore(cfg).create("deploy-app", "SKILL-ONE deploy the app")["success"]
    out = json.loads(handle(cfg, "SessionStart", payload("SessionStart", source="startup")))
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = out["hookSpecificOutput"]["additionalContext"]
    order = [text.index(s) for s in ("MEM-ONE", "USER-ONE", "tacit memory add", "SKILL-ONE")]
    assert order == sorted(order)
    assert set(out) == {"hookSpecificOutput"}  # nothing that could block or alter the turn
    assert state_of(cfg)["user_turns"] == 0


def test_session_start_with_an_empty_store_still_explains_how_to_save(quiet_cfg):
    out = json.loads(handle(quiet_cfg, "SessionStart", payload("SessionStart")))
    assert "tacit memory add" in out["hookSpecificOutput"]["additionalContext"]


def test_session_start_names_the_absolute_cli_when_tacit_is_not_on_path(quiet_cfg, tmp_path):
    no_tacit = quiet_cfg.__class__(quiet_cfg.home_str, quiet_cfg.state_dir_str, quiet_cfg.host, False,
                                   quiet_cfg.settings, [], {**quiet_cfg.env, "PATH": str(tmp_path)})
    text = json.loads(handle(no_tacit, "SessionStart", payload("SessionStart")))["hookSpecificOutput"][
        "additionalContext"]
    assert "is not on PATH" in text and os.path.dirname(sys.executable) in text
    with_tacit = json.loads(handle(quiet_cfg, "SessionStart", payload("SessionStart")))
    assert "is not on PATH" not in with_tacit["hookSpecificOutput"]["additionalContext"]


def test_expansion_precompact_and_session_end_translate(quiet_cfg):
    cfg = quiet_cfg
    assert handle(cfg, "UserPromptExpansion", payload(
        "UserPromptExpansion", expansion_type="slash_command", command_name="tacit:memory-skills",
        command_args="", command_source="plugin", prompt="/tacit:memory-skills")) == ""
    assert handle(cfg, "PreCompact", payload("PreCompact", trigger="manual")) == ""
    assert handle(cfg, "SessionEnd", payload("SessionEnd", reason="other")) == ""
    assert os.path.exists(FileStateStore(cfg.sessions_dir_str).path_for(SID))


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolBatch", "MessageDisplay", "Notification", ""])
def test_other_hooks_do_nothing(quiet_cfg, event):
    assert handle(quiet_cfg, event, payload(event or "X")) == ""
    assert not os.path.exists(quiet_cfg.sessions_dir_str)


def test_inert_in_a_child(cfg):
    child = cfg.__class__(cfg.home_str, cfg.state_dir_str, cfg.host, True, cfg.settings, [], cfg.env)
    for event in ("SessionStart", "UserPromptSubmit", "Stop"):
        assert handle(child, event, payload(event, prompt="no, use pnpm")) == ""
    assert not os.path.exists(cfg.sessions_dir_str)


def test_payload_without_session_id_raises_for_the_entry_point_to_log(quiet_cfg):
    with pytest.raises(ValueError):
        handle(quiet_cfg, "UserPromptSubmit", json.dumps({"prompt": "hi"}).encode())


def test_clip_args_keeps_commands_and_drops_bulk():
    args = clip_tool_args({"command": "ls", "content": "x" * 5000, "edits": [{"a": 1}], "n": 3, "flag": True})
    assert args["command"] == "ls" and len(args["content"]) == 2001 and args["content"].endswith("…")
    assert "edits" not in args and args["n"] == 3 and args["flag"] is True
    assert clip_tool_args("not a dict") == {}


# --------------------------------------------------------------------------
# the 10,000-character cap
# --------------------------------------------------------------------------

def inject(text: str, priority: int, scope: str = "session") -> InjectContext:
    return InjectContext(text=text, scope=scope, priority=priority)


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
    out = handle(cfg, "SessionStart", payload("SessionStart"))
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert len(text) <= CONTEXT_CAP
    assert "Fact number 000" in text and f"Preference {i - 1:03d}" in text  # memory whole
    assert text.endswith(TRUNCATION_NOTE)  # the skill index was cut, deliberately


def test_render_output_uses_only_the_right_scope_and_never_blocks():
    effects = [inject("SESSION", 10), inject("PROMPT", 10, scope="prompt")]
    start = json.loads(render_output("SessionStart", effects))
    assert start["hookSpecificOutput"]["additionalContext"] == "SESSION"
    prompt = json.loads(render_output("UserPromptSubmit", effects))
    assert prompt["hookSpecificOutput"] == {"hookEventName": "UserPromptSubmit", "additionalContext": "PROMPT"}
    assert render_output("Stop", effects) == ""  # Stop cannot inject; never a decision
    from tacit.events import Notify

    notice = json.loads(render_output("Stop", [Notify(text="saved a memory")]))
    assert notice == {"systemMessage": "saved a memory"}


# --------------------------------------------------------------------------
# the real hook process
# --------------------------------------------------------------------------

def run_hook_process(tacit_env, event: str, stdin: bytes, **env_extra) -> subprocess.CompletedProcess:
    env = {**tacit_env, **env_extra}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return subprocess.run(shlex.split(hook_command(sys.executable, event)), input=stdin, env=env,
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
        assert "hook claude-code UserPromptSubmit" in cfg.log_file.read_text()


def test_unwritable_data_folder_exits_0(tacit_env, tmp_path):
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x")
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"):
        proc = run_hook_process(tacit_env, event, payload(event, prompt="hi", tool_name="Bash"),
                                TACIT_HOME=str(a_file))
        assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b"", event


def test_child_env_returns_at_once_without_touching_the_data_folder(tacit_env, cfg):
    proc = run_hook_process(tacit_env, "UserPromptSubmit", payload("UserPromptSubmit", prompt="no, use pnpm"),
                            TACIT_CHILD="1")
    assert proc.returncode == 0 and proc.stdout == b""
    assert not os.path.exists(cfg.sessions_dir_str)


def test_closed_stdout_still_exits_0(tacit_env):
    env = {**tacit_env}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.Popen(shlex.split(hook_command(sys.executable, "SessionStart")), env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the host went away before reading the answer
    _, err = proc.communicate(payload("SessionStart"), timeout=30)
    assert proc.returncode == 0, err


def test_unknown_host_is_ignored(tacit_env, cfg):
    env = {**tacit_env}
    proc = subprocess.run([sys.executable, "-m", "tacit.cli", "hook", "no-such-host", "Stop"],
                          input=payload("Stop"), env=env, capture_output=True, timeout=30)
    assert proc.returncode == 0 and proc.stdout == b""


# --------------------------------------------------------------------------
# fastjson and the transcript fallback
# --------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30)


@settings(max_examples=120, deadline=None)
@given(json_values)
def test_fastjson_matches_the_json_module(value):
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert fastjson.dumps(value) == text
    assert fastjson.loads(text) == value
    assert fastjson.loads(("\n " + text + " \n").encode("utf-8")) == value


@pytest.mark.parametrize("bad", ["", "   ", "{", "[1,]", '{"a": 1} extra', "nope", "\ufeff{"])
def test_fastjson_rejects_what_json_rejects(bad):
    with pytest.raises(ValueError):
        json.loads(bad)
    with pytest.raises(ValueError):
        fastjson.loads(bad)


def test_fastjson_accepts_a_utf8_bom_and_non_ascii():
    assert fastjson.loads("\ufeff{\"a\": \"é\"}".encode("utf-8")) == {"a": "é"}
    assert fastjson.dumps({"a": "é€"}) == '{"a":"é€"}'
    with pytest.raises(TypeError):
        fastjson.dumps({"a": object()})


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


def test_stop_without_last_assistant_message_falls_back_to_the_transcript(quiet_cfg, tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"type": "assistant", "message": {"id": "m", "content": [
        {"type": "text", "text": "from the transcript"}]}}) + "\n")
    handle(quiet_cfg, "UserPromptSubmit", payload("UserPromptSubmit", prompt="go"))
    handle(quiet_cfg, "Stop", payload("Stop", transcript_path=str(path)))
    assert state_of(quiet_cfg)["last_assistant_text"] == "from the transcript"


def test_commands_and_tool_calls_reach_the_background_journal(cfg):
    """Learners run in a detached drain: the hook only appends to the journal."""
    cfg = cfg.with_settings(child_enabled=False)
    handle(cfg, "UserPromptExpansion", payload(
        "UserPromptExpansion", command_name="tacit:memory-skills", command_args="--all"))
    handle(cfg, *tool(name="Bash", tool_input={"command": "pnpm test", "content": "x" * 9000}))
    journal = os.path.join(cfg.state_dir_str, "journal.jsonl")
    if not os.path.exists(journal):
        pytest.skip("no background handler on command/tool_call in this build")
    with open(journal, encoding="utf-8") as lines:
        events = [json.loads(line) for line in lines]
    kinds = {e["kind"]: e for e in events}
    assert kinds["command"]["name"] == "tacit:memory-skills" and kinds["command"]["args"] == "--all"
    assert kinds["tool_call"]["args"]["command"] == "pnpm test"
    assert len(kinds["tool_call"]["args"]["content"]) == 2001  # clipped before journaling
