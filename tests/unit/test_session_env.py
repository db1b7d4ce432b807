"""A child agent runs with the environment of the session it works for, not with that of the hook
that happened to start the service: one service serves every host, each launched with its own
``PATH`` and home folder (``CODEX_HOME``, ``CLAUDE_CONFIG_DIR``, ``PI_CODING_AGENT_DIR``).

For real: the installed hook commands of two hosts, one service, a configured child command that
records the environment it was started with."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from engine_helpers import write_config
from test_pi_bridge import ServiceSession
from wait_helpers import wait_for

from tacit.children.env import process_env, session_env
from tacit.commandline import hook_command
from tacit.config import load_config
from tacit.service import client

RECORDER = """import json, os, sys
with open({out!r}, "a") as handle:
    handle.write(json.dumps({{k: os.environ.get(k) for k in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "PATH",
                                                             "PI_CODING_AGENT_DIR", "TACIT_HOST",
                                                             "OPENAI_API_KEY", "ONLY_IN_CLAUDE")}}) + "\\n")
print("Nothing to save.")
"""


@pytest.fixture
def recorded(tacit_home, tmp_path) -> Path:
    """A configured child command that records its environment in the file returned."""
    out = tmp_path / "child-env.jsonl"
    recorder = tmp_path / "recorder.py"
    recorder.write_text(RECORDER.format(out=str(out)))
    write_config(tacit_home, child_command=f"{sys.executable} {recorder} {{prompt_file}}")
    return out


def something_to_consolidate_under_a_claude_code_service(env: dict) -> None:
    subprocess.run([sys.executable, "-m", "tacit", "memory", "add", "--target", "user", "Prefers short answers."],
                   env=env, check=True, capture_output=True, timeout=60)
    host_hook(env, "claude-code", "SessionStart", session_id="claude-1", cwd=env["HOME"], source="startup")


def host_hook(env: dict, host: str, event: str, **body) -> bytes:
    proc = subprocess.run(shlex.split(hook_command(sys.executable, host, event)), input=json.dumps(body).encode(),
                          env=env, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def correction_session(env: dict, host: str, session_id: str) -> None:
    """A turn that ran npm, then the user's correction: a correction child for this session."""
    where = {"session_id": session_id, "cwd": env["HOME"]}
    host_hook(env, host, "SessionStart", source="startup", **where)
    host_hook(env, host, "UserPromptSubmit", prompt="install the deps", **where)
    host_hook(env, host, "Stop", last_assistant_message="I ran npm install.", **where)
    host_hook(env, host, "UserPromptSubmit", prompt="no, don't use npm here. we use pnpm in this repo", **where)
    host_hook(env, host, "Stop", last_assistant_message="Switched to pnpm.", **where)


def test_each_hosts_child_gets_its_own_sessions_path_and_home(tacit_env, tacit_home, tmp_path, recorded):
    out = recorded
    codex_bin = tmp_path / "codex-bin"
    # the service is started by Claude Code's hook, in a terminal where CODEX_HOME points elsewhere
    claude = {**tacit_env, "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-config"), "CODEX_HOME": "/stale/codex",
              "ONLY_IN_CLAUDE": "1"}
    host_hook(claude, "claude-code", "SessionStart", session_id="claude-1", cwd=tacit_env["HOME"], source="startup")
    # under load the service may listen only after the hook's bound (the hook then answers in-process):
    # read at once, the status had no pid yet (a CI flake's pattern); wait for the service it started
    started_by_claude = wait_for(lambda: client.status(str(tacit_home)).get("pid"), what="the service")

    codex = {**tacit_env, "CODEX_HOME": str(tmp_path / "codex-home"), "OPENAI_API_KEY": "sk-codex-only",
             "PATH": f"{codex_bin}:{tacit_env['PATH']}"}
    correction_session(codex, "codex", "codex-1")
    [first] = wait_for(lambda: out.exists() and out.read_text().splitlines(), what="the codex child")
    child = json.loads(first)
    assert child["TACIT_HOST"] == "codex"
    assert child["CODEX_HOME"] == codex["CODEX_HOME"]  # Codex's home as the user launched it
    assert str(codex_bin) in child["PATH"].split(":")  # and its PATH
    # the rest of the environment Codex was launched with too (its credentials), none of Claude Code's
    assert child["OPENAI_API_KEY"] == "sk-codex-only" and child["ONLY_IN_CLAUDE"] is None
    assert client.status(str(tacit_home))["pid"] == started_by_claude  # one service served both

    # a Codex launched without CODEX_HOME: its child uses the default home, not the starter's
    plain = {**tacit_env}
    plain.pop("CODEX_HOME", None)
    correction_session(plain, "codex", "codex-2")
    lines = wait_for(lambda: len(out.read_text().splitlines()) >= 2 and out.read_text().splitlines(),
                     what="the second codex child")
    second = json.loads(lines[1])
    assert second["CODEX_HOME"] is None and str(codex_bin) not in second["PATH"].split(":")
    assert second["OPENAI_API_KEY"] is None
    # a credential is never written to the ledger (only PATH and the host's home go with a job)
    for path in tacit_home.glob("ledger.db*"):
        assert b"sk-codex-only" not in path.read_bytes()
    assert client.status(str(tacit_home))["pid"] == started_by_claude


def test_a_pi_sessions_child_gets_pis_home_over_the_service_another_host_started(tacit_env, tacit_home, tmp_path,
                                                                                recorded):
    out = recorded
    host_hook(tacit_env, "claude-code", "SessionStart", session_id="claude-1", cwd=tacit_env["HOME"], source="startup")
    started_by_claude = wait_for(lambda: client.status(str(tacit_home)).get("pid"), what="the service")
    pi_env = {**tacit_env, "PI_CODING_AGENT_DIR": str(tmp_path / "pi-agent"),
              "PATH": f"{tmp_path / 'pi-bin'}:{tacit_env['PATH']}", "TACIT_HOST": "pi"}
    session = ServiceSession(pi_env)  # as the extension opens it: the running service serves it
    try:
        session.hello(env=pi_env)  # what the extension sends: its environment (index.ts)
        sid = {"session_id": "pi-1", "cwd": tacit_env["HOME"]}
        session.result("event", {"kind": "session_start", **sid})
        for user in ("please add the date helper", "no, don't use npm here. we use pnpm in this repo"):
            session.notify("event", {"kind": "message_end", "role": "user", "text": user, **sid})
            session.notify("event", {"kind": "message_end", "role": "assistant", "text": "I ran npm install.", **sid})
            session.result("event", {"kind": "turn_end", **sid})
        [line] = wait_for(lambda: out.exists() and out.read_text().splitlines(), what="the pi child")
    finally:
        session.close()
    child = json.loads(line)
    assert child["TACIT_HOST"] == "pi" and child["PI_CODING_AGENT_DIR"] == pi_env["PI_CODING_AGENT_DIR"]
    assert str(tmp_path / "pi-bin") in child["PATH"].split(":")
    assert client.status(str(tacit_home))["pid"] == started_by_claude


def test_session_env_keeps_path_and_the_hosts_own_variables_only(tacit_env, monkeypatch):
    launched = {"PATH": "/opt/codex/bin:/usr/bin", "CODEX_HOME": "/h/codex", "OPENAI_API_KEY": "sk-secret",
                "CLAUDE_CONFIG_DIR": "/h/claude"}
    assert session_env("codex", launched) == {"PATH": "/opt/codex/bin:/usr/bin", "CODEX_HOME": "/h/codex"}
    assert session_env("pi", {"PATH": "/p"}) == {"PATH": "/p", "PI_CODING_AGENT_DIR": None,
                                                "PI_CODING_AGENT_SESSION_DIR": None}
    assert session_env("codex", {"PATH": "/p", "CODEX_HOME": False}) == {"PATH": "/p"}  # not text: left alone
    monkeypatch.setenv("CODEX_HOME", "/stale")  # the service's, from the hook that started it
    cfg = load_config(env={**tacit_env, "CODEX_HOME": "/stale"})
    env = process_env(cfg, "codex", session={"PATH": "/opt/codex/bin", "CODEX_HOME": None})
    assert "CODEX_HOME" not in env and env["PATH"].endswith(":/opt/codex/bin")


def test_memory_consolidate_typed_in_one_host_runs_its_child_with_that_hosts_home(tacit_env, tacit_home, tmp_path,
                                                                                 recorded):
    out = recorded
    something_to_consolidate_under_a_claude_code_service(tacit_env)
    codex = {**tacit_env, "CODEX_HOME": str(tmp_path / "codex-home"), "OPENAI_API_KEY": "sk-codex-only"}
    where = {"session_id": "codex-1", "cwd": tacit_env["HOME"]}
    host_hook(codex, "codex", "SessionStart", source="startup", **where)
    reply = json.loads(host_hook(codex, "codex", "UserPromptSubmit", prompt="/memory-consolidate force", **where))
    assert reply["decision"] == "block" and "in the background" in reply["reason"]
    [line] = wait_for(lambda: out.exists() and out.read_text().splitlines(), what="the consolidation child")
    child = json.loads(line)
    assert child["TACIT_HOST"] == "codex" and child["CODEX_HOME"] == codex["CODEX_HOME"]
    assert child["OPENAI_API_KEY"] == "sk-codex-only"  # from Codex's environment, as launched


def test_the_path_note_reads_the_sessions_path_not_the_services(tacit_env, tacit_home):
    note = "is not on PATH in this shell"
    # the service starts under a Codex hook, whose PATH has tacit
    host_hook(tacit_env, "codex", "SessionStart", session_id="codex-1", cwd=tacit_env["HOME"], source="startup")
    assert client.status(str(tacit_home))["running"]
    bare = {**tacit_env, "PATH": "/usr/bin:/bin"}  # a Claude Code whose shell has no tacit
    told = host_hook(bare, "claude-code", "SessionStart", session_id="claude-1", cwd=tacit_env["HOME"],
                     source="startup").decode()
    assert note in told
    fine = host_hook(tacit_env, "claude-code", "SessionStart", session_id="claude-2", cwd=tacit_env["HOME"],
                     source="startup").decode()
    assert "additionalContext" in fine and note not in fine


def test_memory_consolidate_in_pi_runs_a_pi_child_over_a_service_another_host_started(tacit_env, tacit_home,
                                                                                       tmp_path, recorded):
    out = recorded
    something_to_consolidate_under_a_claude_code_service(tacit_env)
    pi_env = {**tacit_env, "PI_CODING_AGENT_DIR": str(tmp_path / "pi-agent"), "TACIT_HOST": "pi"}
    session = ServiceSession(pi_env)
    try:
        session.hello(env=pi_env)
        sid = {"session_id": "pi-1", "cwd": tacit_env["HOME"]}
        session.result("event", {"kind": "session_start", **sid})
        session.result("command", {"name": "memory-consolidate", "args": "force", **sid}, timeout=60)
    finally:
        session.close()
    [line] = wait_for(lambda: out.exists() and out.read_text().splitlines(), what="the consolidation child")
    child = json.loads(line)
    assert child["TACIT_HOST"] == "pi" and child["PI_CODING_AGENT_DIR"] == pi_env["PI_CODING_AGENT_DIR"]


def test_search_finds_a_hosts_sessions_in_the_home_the_cli_was_given(tacit_env, tacit_home, tmp_path):
    """``tacit search`` answered by a service another host's hook started (no CODEX_HOME there) still
    reads the Codex sessions of the CODEX_HOME the user runs it with, and a catch-up that does not list
    them does not drop them from the index."""
    from search_helpers import codex_rollout

    repo = tmp_path / "work" / "shop"
    (repo / ".git").mkdir(parents=True)
    codex_rollout(tmp_path / "elsewhere", "cx1", str(repo), [("why is the nginx config broken?",
                                                              "A missing semicolon in nginx.conf.")])
    codex = {**tacit_env, "CODEX_HOME": str(tmp_path / "elsewhere" / ".codex")}

    def found(env) -> list:
        out = subprocess.run([sys.executable, "-m", "tacit", "search", "--json", "nginx"], env=env,
                             capture_output=True, text=True, cwd=str(repo), timeout=60)
        assert out.returncode == 0, out.stderr
        return [r["session_id"] for r in json.loads(out.stdout)["results"]]

    host_hook(tacit_env, "claude-code", "SessionStart", session_id="claude-1", cwd=tacit_env["HOME"], source="startup")
    events = client.status(str(tacit_home))["events"]
    assert found(codex) == ["cx1"]
    assert client.status(str(tacit_home))["events"] == events + 1  # the service answered it
    assert found(tacit_env) == ["cx1"]  # read once, it stays: a catch-up without CODEX_HOME keeps it


def test_the_search_request_carries_the_environment_back_exactly():
    from tacit.service.search_client import request_bytes

    request = {"argv": ["nginx"], "cwd": "/tmp", "tty": False, "tz": "",
               "env": {"CODEX_HOME": "/home/ü/.codex", "ODD": "a\"b\\c\x01", "RAW": "\udcff"}}
    assert json.loads(request_bytes(request)) == request
