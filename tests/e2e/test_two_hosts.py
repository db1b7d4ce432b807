"""Two hosts on one repository, one service, one memory — with the real Claude Code and Codex CLI.

The user runs Claude Code in a repository and Codex in a worktree of it, one home folder, one
tacit data folder; the service is started by whichever hook comes first:

1. a correction said in Codex, under the service Claude Code's hook started: the child is Codex's
   own ``codex exec``, run with the CODEX_HOME and key Codex was launched with (it used to inherit
   the starter's environment: no CODEX_HOME, no provider, requests to api.openai.com), and the
   history credits Codex;
2. a correction said in Claude Code, under the service Codex's hook started: its child runs with
   Claude Code's endpoint and key (it used to say "Not logged in"); a Codex session in the worktree has the lesson in its context
   and its ``npm install`` is stopped; ``/memory-forget`` typed in Codex is seen by the next Claude
   Code session (npm runs again); ``tacit search`` finds both hosts' sessions from either checkout;
   ``tacit status`` lists both hosts;
3. a correction said in Claude Code in another repository, saved after that session ended: the
   next Codex session in this repository is not told about it (it was, as "saved 1 entry to
   project memory", which named neither repository, and the notice was then spent), the next
   Codex session in that repository is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from codex_rig import CodexRunner, codex_binary  # noqa: F401  (a fixture)
from e2e_helpers import wait_for
from test_claude_code import CHILD_DEADLINE, TacitClaude
from test_codex import TacitCodex, developer_texts, tacit_cli
from test_guards import LESSON, claude_lesson_script, fake_bin, ran

pytestmark = pytest.mark.e2e


class CodexElsewhere(CodexRunner):
    """Codex launched with CODEX_HOME set (its config there, no ~/.codex)."""

    @property
    def codex_dir(self) -> Path:
        return self.root / "codex-home"

    def host_env(self) -> dict[str, str]:
        return {**super().host_env(), "CODEX_HOME": str(self.codex_dir)}


def git(*args, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@x", "PATH": "/usr/bin:/bin", "HOME": str(cwd)})


def both(run_claude, codex_binary, stub, tmp_path, runner=CodexRunner):  # noqa: F811
    """Claude Code and Codex for one user: one home, one project (a git repository), one data
    folder, both installed, both on PATH (with fake npm/pnpm); each launched with its own endpoint
    and key (the rig's ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY for Claude Code only, STUB_API_KEY
    for Codex only)."""
    codex = runner(codex_binary, stub, tmp_path / "claude")  # the same root: the same home and project
    tc, tx = TacitClaude(run_claude, stub, tmp_path), TacitCodex(codex, stub, tmp_path)
    fake, markers = fake_bin(tmp_path)
    path = os.pathsep.join([str(fake), str(Path(sys.executable).parent), str(run_claude.binary.parent),
                            str(codex_binary.parent), os.environ.get("PATH", "/usr/bin:/bin")])
    for one in (tc, tx):
        one.env_extra.update(PATH=path, GUARD_MARKERS=str(markers))
    assert tc.install()["success"] and tx.install()["success"]
    assert tx.trust("tacit.hosts.hook_client")
    return tc, tx, markers


def test_a_codex_child_under_a_service_claude_code_started_has_codex_home(run_claude, codex_binary, stub,  # noqa: F811
                                                                         tmp_path):
    tc, tx, _ = both(run_claude, codex_binary, stub, tmp_path, runner=CodexElsewhere)
    entry = "Use pnpm, not npm, to manage packages in this project."
    stub.set_script([
        {"match_body": "memory keeper, running in the background", "protocol": "responses", "times": 1,
         "tool_calls": [{"name": "exec_command", "input": {"cmd": f'{tacit_cli()} memory add "{entry}"'}}]},
        {"match_body": "memory keeper, running in the background", "reply": "Saved."},
        {"match": "^set up the project$", "times": 1,
         "tool_calls": [{"name": "exec_command", "input": {"cmd": "echo npm-install-done"}}]},
        {"match": "npm-install-done", "times": 1, "reply": "I ran npm install."},
        {"match": "^no, use pnpm instead of npm$", "reply": "Understood, pnpm from now on."},
    ], default="OK")
    tc.prompt("hello")  # the service starts under Claude Code's hook (no CODEX_HOME there)
    tx.exec("set up the project")
    tx.resume("no, use pnpm instead of npm")
    [record] = wait_for(lambda: tx.children("correction"), CHILD_DEADLINE, "the correction child")
    assert record["ok"] and record["mode"] == "agent" and record["command"][:2] == ["codex", "exec"], record
    assert not (tx.codex.home / ".codex").exists()  # it ran in Codex's own home
    assert entry in tx.project_memory_file().read_text()
    assert "on codex" in tx.tacit("memory", "log").stdout  # credited to the host it worked for


def test_a_lesson_said_in_claude_code_holds_in_codex_in_a_worktree_and_a_forget_there_in_claude_code(
        run_claude, codex_binary, stub, tmp_path):  # noqa: F811
    tc, tx, markers = both(run_claude, codex_binary, stub, tmp_path)
    project = run_claude.project
    (project / "README.md").write_text("# shop\n")
    git("add", "README.md", cwd=project)
    git("commit", "-q", "-m", "start", cwd=project)
    worktree = project.parent / "shop-feature"
    git("worktree", "add", "-q", str(worktree), "-b", "feature", cwd=project)
    stub.set_script(claude_lesson_script(), default="OK")
    tx.exec("hello", cwd=worktree)  # the service starts under Codex's hook: no Anthropic key or endpoint there
    tc.prompt("set up the project", "--allowedTools", "Bash", cwd=project)
    tc.prompt(f"no, {LESSON}", "-c", "--allowedTools", "Bash", cwd=project)
    [record] = wait_for(lambda: tc.children("correction"), CHILD_DEADLINE, "the correction child")
    assert record["ok"] and record["mode"] == "agent", record  # run with Claude Code's own key and endpoint
    for marker in markers.iterdir():
        marker.unlink()

    stub.set_script([
        {"match": "^add left-pad$", "times": 1,
         "tool_calls": [{"name": "exec_command", "input": {"cmd": "npm install left-pad"}}]},
        {"match": "Command blocked by PreToolUse hook", "times": 1, "reply": "Blocked; using pnpm."},
    ], default="OK")
    n = len(stub.model_requests())
    _, reply = tx.exec("add left-pad", cwd=worktree)
    assert reply == "Blocked; using pnpm." and ran(markers) == set()  # stopped in the worktree
    assert any(LESSON in text for text in developer_texts(stub.model_requests()[n]))

    proc, _ = tx.exec("/memory-forget pnpm", cwd=worktree)
    assert "tacit: Forgot \"pnpm\": removed 1 from project memory" in proc.stderr, proc.stderr[-2000:]
    stub.set_script([
        {"match": "^add left-pad again$", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": "npm install left-pad", "description": "add"}}]},
        {"match": "fake npm install left-pad", "times": 1, "reply": "Added with npm."},
    ], default="OK")
    n = len(stub.model_requests())
    _, result = tc.prompt("add left-pad again", "--allowedTools", "Bash", cwd=project)
    assert result["result"] == "Added with npm." and ran(markers) == {"npm-ran-in-project"}
    assert LESSON not in tc.first_request_context(stub.model_requests()[n])

    for cwd in (project, worktree):
        found = json.loads(subprocess.run([sys.executable, "-m", "tacit", "search", "--json", "left-pad"],
                                          env=tc.env(), cwd=cwd, capture_output=True, text=True).stdout)
        assert {r["host"] for r in found["results"]} == {"claude-code", "codex"}
    assert "Hosts: claude-code, codex" in tc.tacit("status").stdout


def test_a_save_for_another_repository_is_told_there_not_in_this_one(run_claude, codex_binary, stub,  # noqa: F811
                                                                     tmp_path):
    tc, tx, _ = both(run_claude, codex_binary, stub, tmp_path)
    blog = run_claude.project.parent / "blog"
    blog.mkdir()
    git("init", "-q", "-b", "main", cwd=blog)
    stub.set_script(claude_lesson_script(), default="OK")
    tx.exec("hello")  # a Codex session in this repository
    tc.prompt("set up the project", "--allowedTools", "Bash", cwd=blog)
    tc.prompt(f"no, {LESSON}", "-c", "--allowedTools", "Bash", cwd=blog)
    [record] = wait_for(lambda: tc.children("correction"), CHILD_DEADLINE, "the correction child")
    assert record["ok"], record
    told = "Since your last session, tacit saved 1 entry to project memory"
    proc, _ = tx.exec("hello again")
    assert "Since your last session" not in proc.stderr, proc.stderr[-2000:]
    proc, _ = tx.exec("hello", cwd=blog)
    assert told in proc.stderr, proc.stderr[-2000:]
