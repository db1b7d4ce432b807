"""Headless runs (``claude -p``) show no hook output: the hook client writes the
notices to the run's terminal instead — never to stdout, nothing without a terminal."""

from __future__ import annotations

import json
import os

import pytest

from tacit.hosts import hook_client

CLAUDE = ["claude-code", "Stop", "4", "env:CLAUDE_CODE_ENTRYPOINT=sdk,tty"]  # the command's tail (its spec)
REPLY = json.dumps({"systemMessage": "Noted (fact): This project uses yarn.\ntacit saved 1 entry"}).encode()


@pytest.fixture
def terminal():
    master, slave = os.openpty()
    yield master, os.ttyname(slave)
    os.close(master)
    os.close(slave)


def read_all(fd: int) -> str:
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 65536).decode()
    except BlockingIOError:
        return ""


def test_a_headless_run_gets_its_notices_on_its_terminal(terminal, monkeypatch):
    master, tty = terminal
    monkeypatch.setitem(os.environb, b"CLAUDE_CODE_ENTRYPOINT", b"sdk-cli")
    monkeypatch.delitem(os.environb, b"TACIT_CHILD", raising=False)
    assert hook_client.tell_terminal(CLAUDE, REPLY, tty=tty)
    shown = read_all(master).replace("\r\n", "\n")
    assert shown == "tacit: Noted (fact): This project uses yarn.\ntacit: tacit saved 1 entry\n"


@pytest.mark.parametrize("environ, argv, reply", [
    ({b"CLAUDE_CODE_ENTRYPOINT": b"cli"}, CLAUDE, REPLY),  # interactive: the host shows it
    ({}, CLAUDE, REPLY),
    ({b"CLAUDE_CODE_ENTRYPOINT": b"sdk-cli"}, CLAUDE, b'{"hookSpecificOutput": {}}'),
    ({b"CLAUDE_CODE_ENTRYPOINT": b"sdk-cli"}, CLAUDE, b""),
    ({b"CLAUDE_CODE_ENTRYPOINT": b"sdk-cli", b"TACIT_CHILD": b"1"}, CLAUDE, REPLY),
    ({b"CLAUDE_CODE_ENTRYPOINT": b"sdk-cli"}, ["other-host", "Stop", "3"], REPLY),  # no headless rule
    ({b"CLAUDE_CODE_ENTRYPOINT": b"sdk-cli"}, ["claude-code", "Stop"], REPLY),  # an older command: none
])
def test_nothing_is_written_where_the_host_shows_it_or_there_is_nothing(terminal, monkeypatch, environ, argv, reply):
    master, tty = terminal
    for key in (b"CLAUDE_CODE_ENTRYPOINT", b"TACIT_CHILD"):
        monkeypatch.delitem(os.environb, key, raising=False)
    for key, value in environ.items():
        monkeypatch.setitem(os.environb, key, value)
    assert not hook_client.tell_terminal(argv, reply, tty=tty)
    assert read_all(master) == ""


def test_no_terminal_is_no_error(monkeypatch, tmp_path):
    monkeypatch.setitem(os.environb, b"CLAUDE_CODE_ENTRYPOINT", b"sdk-cli")
    monkeypatch.delitem(os.environb, b"TACIT_CHILD", raising=False)
    assert not hook_client.tell_terminal(CLAUDE, REPLY, tty=str(tmp_path / "no-such-tty"),
                                         ancestors=0)


def codex_run(tmp_path, event: str, reply: bytes, *argv: str):
    """A hook's ``tell_terminal`` under a stand-in host process ``<interpreter> codex.py ARGV``:
    (what it returned, the host's stderr)."""
    import subprocess
    import sys

    hook = tmp_path / "hook.py"
    hook.write_text("from tacit.hosts import hook_client\n"
                    f"print(hook_client.tell_terminal(['codex', {event!r}, '4', 'argv:exec,stderr'], {reply!r}, "
                    "tty='/nonexistent'))\n")
    host = tmp_path / "codex.py"
    host.write_text("import subprocess, sys\n"
                    f"out = subprocess.run([sys.executable, {str(hook)!r}], capture_output=True, text=True)\n"
                    "print(out.stdout.strip())\n")
    env = {k: v for k, v in os.environ.items() if k not in ("TACIT_CHILD", "CLAUDE_CODE_ENTRYPOINT")}
    done = subprocess.run([sys.executable, str(host), *argv], capture_output=True, text=True, env=env, timeout=60)
    return done.stdout.strip() == "True", done.stderr


def test_a_headless_codex_run_gets_its_notices_in_its_transcript_on_stderr(tmp_path):
    """``codex exec`` reports its hooks on stderr: the notices go there, whatever stderr is."""
    assert codex_run(tmp_path, "Stop", REPLY, "exec", "--", "we use yarn here") == (
        True, "tacit: Noted (fact): This project uses yarn.\ntacit: tacit saved 1 entry\n")
    assert codex_run(tmp_path, "Stop", REPLY, "--", "hello") == (False, "")  # interactive


def test_codex_exec_shows_the_answer_to_a_memory_command_on_stderr(tmp_path):
    """`codex exec "/memory-show"` shows a blocked prompt's reason nowhere ("hook: UserPromptSubmit
    Blocked" only): the hook client writes it to the run's stderr; Claude Code prints it itself."""
    answer = json.dumps({"decision": "block", "reason": "PROJECT MEMORY: webapp\n  1. Tabs"}).encode()
    assert codex_run(tmp_path, "UserPromptSubmit", answer, "exec", "--", "/memory-show") == (
        True, "tacit: PROJECT MEMORY: webapp\ntacit:   1. Tabs\n")


def test_a_blocked_prompts_reason_is_not_repeated_on_claudes_terminal(terminal, monkeypatch):
    master, tty = terminal
    monkeypatch.setitem(os.environb, b"CLAUDE_CODE_ENTRYPOINT", b"sdk-cli")
    monkeypatch.delitem(os.environb, b"TACIT_CHILD", raising=False)
    answer = json.dumps({"decision": "block", "reason": "PROJECT MEMORY", "hookSpecificOutput": {}}).encode()
    assert not hook_client.tell_terminal(CLAUDE, answer, tty=tty)  # claude -p prints the reason itself
    assert read_all(master) == ""


def test_the_hook_command_carries_its_hosts_bound_and_headless_rule():
    import shlex
    import sys

    from tacit.commandline import hook_command, hook_target

    command = hook_command(sys.executable, "claude-code", "PreToolUse")
    assert shlex.split(command)[-3:] == ["PreToolUse", "2", "env:CLAUDE_CODE_ENTRYPOINT=sdk,tty"]
    assert shlex.split(hook_command(sys.executable, "codex", "SessionEnd"))[-3:] == ["SessionEnd", "0.8",
                                                                                      "argv:exec,stderr"]
    assert shlex.split(hook_command(sys.executable, "codex", "Notification"))[-3:-1] == ["Notification", "3"]
    assert hook_target(command) == ("claude-code", "PreToolUse")
    older = command.rsplit(" PreToolUse ", 1)[0] + " PreToolUse"  # as an earlier version wrote it
    assert hook_target(older) == ("claude-code", "PreToolUse")
    assert hook_client.bound_of(["claude-code", "PreToolUse"]) == hook_client.DEFAULT_BOUND
    assert hook_client.bound_of(["h", "e", "0.8"]) == 0.8 and hook_client.bound_of(["h", "e", "x"]) == 3.0
    assert hook_client.headless_rule("env:X=y,sideways") is None
