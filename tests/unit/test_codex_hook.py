"""The Codex CLI hook adapter and child command: payload → events → state and
hook output, on the payload shapes Codex 0.171.0 really sends (recorded in
docs/hosts/codex.md). Real engine, real ledger, real hook processes.
What Codex itself does with the output is proven in tests/e2e/test_codex.py.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tacit.children.commands import build_command
from tacit.children.output import parse_usage
from tacit.commandline import hook_command, on_path
from tacit.hosts import hooks
from tacit.hosts import spec as host_specs
from tacit.hosts.codex import hook as codex_hook
from tacit.hosts.claude_code.hook import TRANSLATORS
from tacit.hosts.codex.spec import HOST as SPEC
from tacit.hosts.runtime import build_engine

SID = "01a227f9-c778-7e91-9480-3223fd130030"
TURN = "01a227f9-c792-73a1-a009-de3738e1a275"


def payload(event: str, **fields) -> bytes:
    """The common fields as Codex 0.171.0 sends them."""
    base = {"session_id": SID, "transcript_path": f"/home/u/.codex/sessions/2026/11/29/rollout-{SID}.jsonl",
            "cwd": "/tmp/project", "hook_event_name": event, "model": "gpt-test",
            "permission_mode": "bypassPermissions"}
    if event not in ("SessionStart", "SessionEnd"):
        base["turn_id"] = TURN
    base.update(fields)
    return json.dumps(base).encode()


class Codex:
    """One engine, the way the service holds one; hooks arrive as Codex sends them."""

    def __init__(self, cfg):
        self.engine = build_engine(cfg, "oneshot", host="codex", discover_plugins=False)

    def handle(self, cfg, event: str, body: bytes) -> str:
        return hooks.run(self.engine, "codex", event, body)


@pytest.fixture
def quiet_cfg(cfg):
    return cfg.with_settings(child_enabled=False, learning_enabled=False)


@pytest.fixture
def codex(quiet_cfg):
    return Codex(quiet_cfg)


def test_events_registered_are_a_subset_of_the_ones_translated():
    assert set(SPEC.hook_events) <= set(TRANSLATORS)
    assert hooks.handler_of("codex") is codex_hook.handle


def test_a_turn_as_codex_sends_it(quiet_cfg, codex):
    cfg, codex_hook = quiet_cfg, codex
    from tacit.stores.memory import MemoryStore

    MemoryStore(cfg).add("memory", "CODEX-MEM-1: tests run with `make check`")
    out = json.loads(codex_hook.handle(cfg, "SessionStart", payload("SessionStart", source="startup")))
    context = out["hookSpecificOutput"]
    assert context["hookEventName"] == "SessionStart" and "CODEX-MEM-1" in context["additionalContext"]
    assert codex_hook.handle(cfg, "UserPromptSubmit", payload("UserPromptSubmit", prompt="run it")) == ""
    # Codex: tool_name "Bash" for exec_command, tool_input {"command"}, tool_response a string;
    # a command that exited 3 arrives the same way (no exit code in the payload)
    for command, output in (("echo one-out", "one-out\n"), ("echo three-out; exit 3", "three-out\n")):
        assert codex_hook.handle(cfg, "PostToolUse", payload(
            "PostToolUse", tool_name="Bash", tool_input={"command": command}, tool_response=output,
            tool_use_id="call_1")) == ""
    state = codex.engine.sessions.peek(SID)
    assert state.user_turns == 1 and state.turn.tool_calls == [["Bash", True], ["Bash", True]]
    assert state.host == "codex"
    assert codex_hook.handle(cfg, "Stop", payload("Stop", stop_hook_active=False,
                                                  last_assistant_message="saw one-out")) == ""
    state = codex.engine.sessions.peek(SID)
    assert state.turn.open is False
    assert state.recent == [{"role": "user", "text": "run it"}, {"role": "assistant", "text": "saw one-out"}]
    assert codex_hook.handle(cfg, "PreCompact", payload("PreCompact", trigger="auto")) == ""
    assert codex_hook.handle(cfg, "SessionEnd", payload("SessionEnd", reason="other")) == ""


def test_events_carry_host_codex(codex):
    seen = []
    codex.engine.on("message_end", lambda e, c: seen.append((e.host, c.host)), name="test.host")
    codex.handle(None, "UserPromptSubmit", payload("UserPromptSubmit", prompt="hi"))
    assert seen == [("codex", "codex")]


@pytest.mark.parametrize("event", ["PostToolUseFailure", "UserPromptExpansion", "PermissionRequest",
                                   "SubagentStop", ""])
def test_events_codex_lacks_or_tacit_skips_do_nothing(codex, event):
    assert codex.handle(None, event, payload(event or "X", prompt="x", tool_name="Bash")) == ""
    with codex.engine.ledger().read() as conn:
        assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 0  # not even a state


def test_child_processes_are_inert(tacit_env):
    from tacit.config import load_config

    child = Codex(load_config(env={**tacit_env, "TACIT_CHILD": "1"}, host="codex"))
    for event in SPEC.hook_events:
        assert child.handle(None, event, payload(event, prompt="no, use pnpm")) == ""


def run_hook_process(tacit_env, event: str, stdin: bytes) -> subprocess.CompletedProcess:
    """The exact command ``tacit install codex`` writes into hooks.json."""
    return subprocess.run(shlex.split(hook_command(sys.executable, "codex", event)), input=stdin, env=tacit_env,
                          capture_output=True, timeout=60, cwd="/")


def test_the_installed_command_answers_session_start(tacit_env):
    proc = run_hook_process(tacit_env, "SessionStart", payload("SessionStart", source="startup"))
    assert proc.returncode == 0 and proc.stderr == b""
    out = json.loads(proc.stdout)
    assert "tacit memory add" in out["hookSpecificOutput"]["additionalContext"]
    assert len(out["hookSpecificOutput"]["additionalContext"]) <= 10_000


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", json.dumps({"prompt": "no session"}).encode()])
def test_the_installed_command_survives_bad_input(tacit_env, stdin):
    proc = run_hook_process(tacit_env, "UserPromptSubmit", stdin)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


# --------------------------------------------------------------------------
# the child command
# --------------------------------------------------------------------------

def test_child_command_template(cfg, tmp_path):
    command = build_command(cfg, "codex", {"kind": "correction", "variables": {}}, "- a prompt", tmp_path)
    argv = command.argv
    assert argv[:2] == ["codex", "exec"]
    assert argv[argv.index("--disable") + 1] == "hooks"
    assert argv[argv.index("--sandbox") + 1] == "workspace-write"
    for flag in ("--skip-git-repo-check", "--ephemeral", "--json"):
        assert flag in argv
    assert "--model" not in argv  # no child_model: the user's configured model
    # issue 14: `codex exec -` reads the prompt from stdin; it never is on the command line
    assert argv[-2:] == ["--", "-"] and command.stdin == "- a prompt"
    with_model = build_command(cfg.with_settings(child_model="gpt-small"), "codex", {"kind": "review"}, "p",
                               tmp_path).argv
    assert with_model[with_model.index("--model") + 1] == "gpt-small"
    assert host_specs.get("codex").child_command[0] == "codex"


def test_child_usage_comes_from_the_last_jsonl_event(tmp_path):
    stdout = "\n".join(json.dumps(e) for e in [
        {"type": "thread.started", "thread_id": "t"},
        {"type": "item.completed", "item": {"id": "item_2", "type": "agent_message", "text": "Saved."}},
        {"type": "turn.completed", "usage": {"input_tokens": 20579, "cached_input_tokens": 0,
                                             "output_tokens": 41, "reasoning_output_tokens": 0}},
    ]).encode()
    usage = parse_usage(stdout, Path(tmp_path) / "missing.json")
    assert usage == {"usage": {"input_tokens": 20579, "cached_input_tokens": 0, "output_tokens": 41,
                               "reasoning_output_tokens": 0}, "format": "codex"}


def _login_shell(folder: Path, profile_path: str) -> Path:
    """A stand-in for ``bash``: run as ``-lc CMD`` it does what a login shell does to PATH on
    Debian (/etc/profile sets it afresh) and prints a line of its own first, as profiles do."""
    folder.mkdir(exist_ok=True)
    shell = folder / "login-sh"
    shell.write_text(f'#!/bin/sh\necho "Welcome!"\nPATH={shlex.quote(profile_path)}\nexport PATH\n'
                     'shift\nexec /bin/sh -c "$1"\n')
    shell.chmod(0o755)
    return shell


def test_session_start_names_the_absolute_cli_when_codexs_login_shell_drops_tacit(quiet_cfg, tmp_path):
    """Codex 0.171.0 runs every command as ``bash -lc``: /etc/profile reset PATH, so the agent's
    ``tacit memory add`` failed with "command not found" while the hook's own PATH had tacit and
    SessionStart said nothing. The check now asks the login shell what PATH the agent gets."""
    env = {**quiet_cfg.env, "SHELL": str(_login_shell(tmp_path, "/usr/bin:/bin"))}
    reset = quiet_cfg.__class__(quiet_cfg.home_str, quiet_cfg.state_dir_str, quiet_cfg.host, False,
                                quiet_cfg.settings, [], env)
    assert on_path(env["PATH"])  # the hook's own PATH has tacit
    out = json.loads(Codex(reset).handle(reset, "SessionStart", payload("SessionStart", source="startup")))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert "is not on PATH" in text and str(Path(sys.executable).parent) in text
    # a profile that keeps the venv on PATH: no note
    keeps = quiet_cfg.__class__(quiet_cfg.home_str, quiet_cfg.state_dir_str, quiet_cfg.host, False,
                                quiet_cfg.settings, [],
                                {**env, "SHELL": str(_login_shell(tmp_path / "keeps", env["PATH"]))})
    out = json.loads(Codex(keeps).handle(keeps, "SessionStart", payload("SessionStart", source="startup")))
    assert "is not on PATH" not in out["hookSpecificOutput"]["additionalContext"]


def test_a_memory_command_typed_in_codex_is_answered_in_the_shape_codex_accepts(codex, quiet_cfg):
    """Walking Codex 0.171.0: `codex exec "/memory-show"` ran the command, but the answer carried Claude
    Code's `suppressOriginalPrompt`, which Codex refuses: "hook: UserPromptSubmit Failed", and the
    prompt went on to the model. Codex accepts `decision: block` + `reason` (the prompt is blocked,
    no model request: checked with the real binary)."""
    out = json.loads(codex.handle(quiet_cfg, "UserPromptSubmit", payload("UserPromptSubmit",
                                                                          prompt="/memory-teach Tabs, not spaces.")))
    assert set(out) == {"decision", "reason"} and out["decision"] == "block"
    assert out["reason"].startswith("Taught taught-tabs-not-spaces") and "/memory-forget" in out["reason"]
    assert "/tacit:" not in out["reason"]  # Codex has no plugin namespace
    shown = json.loads(codex.handle(quiet_cfg, "UserPromptSubmit", payload("UserPromptSubmit",
                                                                            prompt="/tacit:memory-show")))
    assert "Tabs, not spaces." in shown["reason"]


def test_a_slow_login_profile_does_not_hold_the_session_start(quiet_cfg, tmp_path):
    """The PATH check runs a login shell; a profile that hangs (nvm, a network mount) must not hold
    Codex's SessionStart: the hook waits 0.3 s, the measure goes on in the background."""
    folder = tmp_path / "slow"
    folder.mkdir()
    shell = folder / "login-sh"
    shell.write_text("#!/bin/sh\nsleep 10\n")
    shell.chmod(0o755)
    env = {**quiet_cfg.env, "SHELL": str(shell)}
    slow = quiet_cfg.__class__(quiet_cfg.home_str, quiet_cfg.state_dir_str, quiet_cfg.host, False,
                               quiet_cfg.settings, [], env)
    started = time.monotonic()
    out = json.loads(Codex(slow).handle(slow, "SessionStart", payload("SessionStart", source="startup")))
    assert time.monotonic() - started < 1.5  # the old check waited out its 2 s timeout
    assert "is not on PATH" not in out["hookSpecificOutput"]["additionalContext"]  # the hook's own PATH meanwhile
