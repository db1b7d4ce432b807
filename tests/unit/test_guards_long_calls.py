"""A tool call too long for the guards to read whole (past the shell scan's 65,536 characters, or its
2,000 simple commands) is stopped with a reason saying so, never let through unchecked: the rest of
it was not read, so `npm install` after a 90 KB here-document, or after 2,100 `true;`, ran in a
project whose memory says never npm. Real hook processes, real files."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tacit.commandline import hook_command

HEREDOC = "cat > fixtures.csv <<'EOF'\n" + "id,name,amount\n" * 6000 + "EOF\nnpm install left-pad\n"
MANY = "true; " * 2100 + "npm install left-pad"


@pytest.fixture
def repo(tmp_path, tacit_env):
    root = tmp_path / "web"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def tacit(env, cwd, *args):
    return subprocess.run([sys.executable, "-m", "tacit", *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=60)


def pre_tool_use(env, host, cwd, command) -> dict:
    payload = {"session_id": "long-1", "cwd": str(cwd), "hook_event_name": "PreToolUse", "tool_use_id": "t1",
               "tool_name": "Bash", "tool_input": {"command": command}}
    proc = subprocess.run(hook_command(sys.executable, host, "PreToolUse"), shell=True, input=json.dumps(payload),
                          env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"] if proc.stdout.strip() else {}


@pytest.mark.parametrize("command", [HEREDOC, MANY], ids=["90KB-heredoc", "2100-commands"])
def test_npm_past_what_the_guards_read_is_not_let_through(repo, tacit_env, command):
    assert len(command) > 65536 or command.count(";") > 2000
    assert tacit(tacit_env, repo, "memory", "add", "Use pnpm in this repository, never npm.").returncode == 0
    asked = pre_tool_use(tacit_env, "claude-code", repo, command)
    assert asked.get("permissionDecision") == "ask", asked
    assert "too long for tacit to check whole" in asked["permissionDecisionReason"], asked
    denied = pre_tool_use(tacit_env, "codex", repo, command)  # Codex cannot ask: stopped, the agent told why
    assert denied.get("permissionDecision") == "deny" and "split it" in denied["permissionDecisionReason"], denied


def test_a_long_call_where_no_guard_applies_runs(repo, tacit_env):
    assert pre_tool_use(tacit_env, "claude-code", repo, HEREDOC) == {}


def test_a_long_file_written_with_the_write_tool_is_not_asked_about(repo, tacit_env):
    """Only the text the guards read as commands or a patch counts: a file's content is no call."""
    assert tacit(tacit_env, repo, "memory", "add", "Use pnpm in this repository, never npm.").returncode == 0
    payload = {"session_id": "long-2", "cwd": str(repo), "hook_event_name": "PreToolUse", "tool_use_id": "t2",
               "tool_name": "Write", "tool_input": {"file_path": str(repo / "fixtures.csv"), "content": HEREDOC}}
    proc = subprocess.run(hook_command(sys.executable, "claude-code", "PreToolUse"), shell=True,
                          input=json.dumps(payload), env=tacit_env, cwd=repo, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "", proc.stdout


def test_guard_test_says_what_a_hook_would(repo, tacit_env):
    assert tacit(tacit_env, repo, "memory", "add", "Use pnpm in this repository, never npm.").returncode == 0
    shown = tacit(tacit_env, repo, "guard", "test", MANY)
    assert shown.returncode == 0 and shown.stdout.startswith("tacit: this call is too long"), shown.stdout

