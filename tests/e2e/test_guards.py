"""Guards with the real Claude Code (2.1.197) and the real pi (0.73.1), offline.

Session 1: the user corrects the agent — "we use pnpm here, never npm" — and
the lesson lands in the project's memory (Claude Code: through the detached
correction child, scripted to run ``tacit memory add``; pi: the agent's own
``memory`` tool). Session 2: the scripted model runs ``npm install left-pad``
→ the command does not run (the marker a fake ``npm`` would create is
absent), the model receives tacit's reason, then runs ``pnpm add left-pad``
→ it runs. In another repository the same ``npm install`` runs. Fake ``npm``
and ``pnpm`` first on PATH only touch marker files.

Observed on Claude Code 2.1.197 (and asserted here): in ``-p`` mode a
PreToolUse ``permissionDecision: "ask"`` cannot be answered, so the call is
denied — it is listed in the result's ``permission_denials`` and the model
gets the reason as an ``is_error`` tool result — even with
``--allowedTools Bash``.

Plus the repeat: the lesson saved, then broken again through a host whose
guards are off (``guards_enabled = false``) → ``tacit guard stats`` counts
one repeat mistake. And Hermes 0.19.0 for the record: ``hermes -z`` grants
approvals unasked (it sets HERMES_YOLO_MODE), so a guard denies there and
the model reads the reason as the tool's ``{"error": …}`` result.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import hostbin
import pytest
from e2e_helpers import TacitOnHost, message_text, wait_for
from codex_rig import codex_binary, run_codex  # noqa: F401  (fixtures)
from test_hermes import TacitInHermes

from tacit.config import load_config

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
PI_EXTENSION = REPO / "extension" / "tacit" / "hosts" / "pi" / "extension" / "index.ts"
LESSON = "we use pnpm here, never npm"
CHILD_DEADLINE = 90
FAKE_TOOL = """#!/bin/sh
# a stand-in package manager: records that it ran, and where
touch "$GUARD_MARKERS/$(basename "$0")-ran-in-$(basename "$PWD")"
echo "fake $(basename "$0") $*: done"
"""


def git_init(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True, capture_output=True)
    return path


def fake_bin(tmp_path: Path) -> tuple[Path, Path]:
    """A folder with fake ``npm`` and ``pnpm``, and the folder their markers go to."""
    folder, markers = tmp_path / "fake-bin", tmp_path / "markers"
    folder.mkdir()
    markers.mkdir()
    for name in ("npm", "pnpm"):
        script = folder / name
        script.write_text(FAKE_TOOL)
        script.chmod(0o755)
    return folder, markers


def ran(markers: Path) -> set[str]:
    return {p.name for p in markers.iterdir()}


def tacit_json(env: dict, *args: str, cwd: Path) -> dict:
    proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def guard_for(env: dict, cwd: Path) -> dict | None:
    found = tacit_json(env, "guard", "list", "--json", cwd=cwd)["guards"]
    return next((g for g in found if g["because"] == LESSON), None)


def project_row(stats: dict, root: Path) -> dict:
    return next(r for r in stats["projects"] if r["root"] == str(root.resolve()))


# --------------------------------------------------------------------------
# Claude Code
# --------------------------------------------------------------------------

class TacitClaude(TacitOnHost):
    host = "claude-code"

    def __init__(self, run_claude, stub, tmp_path: Path):
        super().__init__(run_claude, stub, tmp_path)
        self.claude = run_claude
        self.bin, self.markers = fake_bin(tmp_path)
        self.env_extra["PATH"] = f"{self.bin}:{self.env_extra['PATH']}"
        self.env_extra["GUARD_MARKERS"] = str(self.markers)

    def prompt(self, text: str, *args: str, **kw):
        return self.run_ok(self.claude.prompt, text, *args, **kw)


@pytest.fixture
def tc(run_claude, stub, tmp_path) -> TacitClaude:
    tc = TacitClaude(run_claude, stub, tmp_path)
    git_init(run_claude.project)
    assert tc.install()["success"]
    return tc


def claude_lesson_script() -> list[dict]:
    """Claude Code runs npm; the user says LESSON; the correction child saves it."""
    return [
        # the correction child (recognised by its prompt): save the lesson, as tacit's guidance says
        {"match_body": "memory keeper, running in the background", "times": 1, "tool_calls": [
            {"name": "Bash", "input": {"command": f'tacit memory add "{LESSON}"', "description": "save it"}}]},
        {"match_body": "memory keeper, running in the background", "reply": "Saved the lesson."},
        # session 1: the agent uses npm, the user corrects it
        {"match": "^set up the project$", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": "npm install", "description": "install"}}]},
        {"match": "fake npm install", "times": 1, "reply": "I ran npm install."},
        {"match": f"^no, {LESSON}$", "times": 1, "reply": "Understood, pnpm from now on."},
    ]


def test_claude_code_a_corrected_lesson_stops_npm_and_pnpm_runs(tc, tmp_path):
    project = tc.claude.project
    tc.stub.set_script(claude_lesson_script())
    tc.prompt("set up the project", "--allowedTools", "Bash")
    assert ran(tc.markers) == {"npm-ran-in-project"}  # no lesson yet: npm ran
    (tc.markers / "npm-ran-in-project").unlink()
    tc.prompt(f"no, {LESSON}", "-c", "--allowedTools", "Bash")
    guard = wait_for(lambda: guard_for(tc.env(), project), CHILD_DEADLINE, "the lesson to become a guard")
    assert guard["scope"] == "project" and guard["memory_scope"] == "project" and guard["action"] == "ask"
    assert guard["said_by_user"] is True  # saved by the correction child: "you said so"
    [record] = wait_for(lambda: tc.children("correction"), CHILD_DEADLINE, "the child's record")
    assert record["ok"] and record["mode"] == "agent"

    # session 2: npm is stopped, the model reads why, pnpm runs
    tc.stub.set_script([
        {"match": "^add left-pad$", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": "npm install left-pad", "description": "add"}}]},
        {"match": "tacit: .*never npm", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": "pnpm add left-pad", "description": "add"}}]},
        {"match": "fake pnpm add left-pad", "times": 1, "reply": "Added left-pad with pnpm."},
    ])
    n = len(tc.stub.model_requests())
    _, result = tc.prompt("add left-pad", "--allowedTools", "Bash")
    assert result["result"] == "Added left-pad with pnpm."
    assert ran(tc.markers) == {"pnpm-ran-in-project"}  # npm never ran
    # -p cannot answer the "ask": Claude Code denied the call and told the model why
    [denied] = result["permission_denials"]
    assert denied["tool_name"] == "Bash" and denied["tool_input"]["command"] == "npm install left-pad"
    after_npm = tc.stub.model_requests()[n + 1]
    [block] = [b for b in after_npm["body"]["messages"][-1]["content"] if b.get("type") == "tool_result"]
    reason = message_text(block["content"])
    assert block["is_error"] is True
    assert reason.startswith("tacit: `npm install left-pad` goes against this project's rule")
    assert f'"{LESSON}"; use pnpm instead' in reason and f"tacit guard remove {guard['id']}" in reason
    assert "you said so on " in reason
    stats = tacit_json(tc.env(), "guard", "stats", "--json", cwd=project)
    row = project_row(stats, project)
    assert (row["guards"], row["stopped"], row["repeats"]) == (1, 1, 0)

    # another repository: the same npm install runs
    other = git_init(tmp_path / "other-repo")
    tc.stub.set_script([
        {"match": "^add left-pad there$", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": "npm install left-pad", "description": "add"}}]},
        {"match": "fake npm install left-pad", "times": 1, "reply": "Added with npm."},
    ])
    _, result = tc.prompt("add left-pad there", "--allowedTools", "Bash", cwd=other)
    assert result["result"] == "Added with npm." and result["permission_denials"] == []
    assert "npm-ran-in-other-repo" in ran(tc.markers)
    assert tc.stub.refused_proxy() == []


def test_claude_code_a_repeat_through_a_host_without_guards_is_counted(tc):
    project = tc.claude.project
    tc.tacit("memory", "add", LESSON)  # session 1's lesson, saved
    tc.home.mkdir(parents=True, exist_ok=True)
    (tc.home / "config.toml").write_text("guards_enabled = false\n")  # this host runs without guards
    tc.tacit("service", "stop", "--json", check=False)
    tc.stub.set_script([
        {"match": "^add left-pad$", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": "npm install left-pad", "description": "add"}}]},
        {"match": "fake npm install left-pad", "times": 1, "reply": "Added with npm."},
    ])
    _, result = tc.prompt("add left-pad", "--allowedTools", "Bash")
    assert result["result"] == "Added with npm." and ran(tc.markers) == {"npm-ran-in-project"}
    stats = tacit_json(tc.env(), "guard", "stats", "--json", cwd=project)
    row = project_row(stats, project)
    assert (row["lessons"], row["guards"], row["stopped"], row["repeats"], row["repeat_rate"]) == (1, 1, 0, 1, 1.0)


# --------------------------------------------------------------------------
# pi
# --------------------------------------------------------------------------

def test_pi_a_saved_lesson_stops_npm_and_pnpm_runs(stub, run_pi, tmp_path):
    project = git_init(run_pi.project)
    bin_dir, markers = fake_bin(tmp_path)
    env_extra = {"PATH": f"{bin_dir}:{run_pi.env()['PATH']}", "GUARD_MARKERS": str(markers)}
    cfg = load_config(env={"HOME": str(run_pi.home), "PATH": "/usr/bin:/bin"}, host="pi")
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    (cfg.state_dir / "config.toml").write_text("child_enabled = false\n")  # the agent saves it itself here
    cli_env = run_pi.env(env_extra)

    # session 1: the correction, saved with the memory tool into this project's memory
    stub.set_script([
        {"match": f"^no, {LESSON}$", "times": 1, "tool_calls": [
            {"name": "memory", "input": {"action": "add", "target": "project", "content": LESSON}}]},
        {"match": "Entry added", "times": 1, "reply": "Saved: pnpm, never npm."},
    ])
    proc = run_pi.prompt(f"no, {LESSON}", extensions=[PI_EXTENSION], env_extra=env_extra)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Saved: pnpm, never npm."
    guard = guard_for(cli_env, project)
    assert guard is not None and guard["scope"] == "project" and guard["action"] == "ask"

    # session 2: pi cannot ask, so the call is blocked; the model reads the reason
    stub.set_script([
        {"match": "^add left-pad$", "times": 1,
         "tool_calls": [{"name": "bash", "input": {"command": "npm install left-pad"}}]},
        {"match": "tacit: stopped", "times": 1,
         "tool_calls": [{"name": "bash", "input": {"command": "pnpm add left-pad"}}]},
        {"match": "fake pnpm add left-pad", "times": 1, "reply": "Added left-pad with pnpm."},
    ])
    n = len(stub.model_requests())
    proc = run_pi.prompt("add left-pad", extensions=[PI_EXTENSION], env_extra=env_extra)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Added left-pad with pnpm."
    assert ran(markers) == {"pnpm-ran-in-project"}
    tool_message = stub.model_requests()[n + 1]["body"]["messages"][-1]
    assert tool_message["role"] == "tool"
    reason = tool_message["content"] if isinstance(tool_message["content"], str) else message_text(
        tool_message["content"])
    assert reason.startswith("tacit: stopped `npm install left-pad`, this project's rule:")
    assert f'"{LESSON}"; use pnpm instead' in reason and f"tacit guard remove {guard['id']}" in reason

    # another repository: npm runs
    other = git_init(tmp_path / "other-repo")
    stub.set_script([
        {"match": "^add left-pad there$", "times": 1,
         "tool_calls": [{"name": "bash", "input": {"command": "npm install left-pad"}}]},
        {"match": "fake npm install left-pad", "times": 1, "reply": "Added with npm."},
    ])
    proc = run_pi.prompt("add left-pad there", extensions=[PI_EXTENSION], env_extra=env_extra, cwd=other)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Added with npm." and "npm-ran-in-other-repo" in ran(markers)
    row = project_row(tacit_json(cli_env, "guard", "stats", "--json", cwd=project), project)
    assert (row["stopped"], row["repeats"]) == (1, 0)


# --------------------------------------------------------------------------
# Hermes (pre_tool_call), for the record: hermes -z can ask no one, so it denies
# --------------------------------------------------------------------------

def test_hermes_oneshot_blocks_with_the_reason_as_the_tool_result(run_hermes, stub):
    th = TacitInHermes(run_hermes, hermes_python())
    th.install()
    git_init(run_hermes.project)
    th.tacit("memory", "add", LESSON)
    stub.set_script([
        {"match": "^add left-pad$", "times": 1,
         "tool_calls": [{"name": "terminal", "input": {"command": "npm install left-pad"}}]},
        {"match": "tacit: stopped", "times": 1, "reply": "npm is not allowed here; I will use pnpm."},
    ])
    proc = th.oneshot("add left-pad")
    assert "I will use pnpm" in proc.stdout
    tool_message = stub.model_requests()[1]["body"]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["name"] == "terminal"
    # Hermes puts a blocking directive's message in the tool result as {"error": …}; npm never ran
    reason = json.loads(tool_message["content"])["error"]
    assert reason.startswith("tacit: stopped `npm install left-pad`, this project's rule:") and "npm error" not in reason
    log = (run_hermes.home / ".tacit" / "logs" / "tacit.log").read_text()
    assert "demoted" not in log  # a blocked call is no override


def hermes_python() -> Path:
    """Hermes's venv python with this checkout installed (as test_hermes.py does)."""
    try:
        return hostbin.hermes_venv_install(REPO)
    except hostbin.HostUnavailable as exc:
        pytest.skip(f"package registry unreachable: {exc}")


# --------------------------------------------------------------------------
# Codex (PreToolUse), for the record: deny is honoured, ask is not, so tacit denies
# --------------------------------------------------------------------------

def test_codex_pre_tool_use_denies_with_the_reason(run_codex, stub, tmp_path):
    tx = TacitOnHost(run_codex, stub, tmp_path)
    tx.host = "codex"
    assert tx.install()["success"]
    assert "pre_tool_use" in " ".join(run_codex.trust_hooks("tacit.hosts.hook_client"))
    tx.tacit("memory", "add", LESSON)
    stub.set_script([
        {"match": "^add left-pad$", "times": 1,
         "tool_calls": [{"name": "exec_command", "input": {"cmd": "npm install left-pad"}}]},
        {"match": "Command blocked by PreToolUse hook", "times": 1, "reply": "Blocked; using pnpm."},
    ])
    proc, reply = tx.run_ok(run_codex.exec, "add left-pad")
    assert reply == "Blocked; using pnpm."
    [output] = [i for i in stub.model_requests()[1]["body"]["input"] if i.get("type") == "function_call_output"]
    assert output["output"].startswith("Command blocked by PreToolUse hook: tacit: stopped `npm install left-pad`, "
                                       "this project's rule:")
