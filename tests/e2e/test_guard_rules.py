"""Rules as people write them, with real hosts offline against the scripted
model: the repository's own AGENTS.md with Claude Code (2.1.197) and Codex
(0.171.0), and a correction with a reason clause with pi (0.73.1).

The repository's AGENTS.md says "Never run `git push --force`; ask a
maintainer first." — nobody taught tacit anything. The scripted model runs
``git push --force origin main``: it does not run (the bare ``origin`` next
to the repository never gets main), and the model reads tacit's reason,
which quotes the line and names ``AGENTS.md:N``. Then it runs ``git push
origin feature``: that runs (origin has feature).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from codex_rig import codex_binary, run_codex  # noqa: F401  (fixtures)
from e2e_helpers import TacitOnHost, message_text

pytestmark = pytest.mark.e2e
RULE = "Never run `git push --force`; ask a maintainer first."
AGENTS = f"""# Contributing

Run the tests before you open a pull request.

- {RULE}
- Keep commits small.

```sh
git push --force   # an example, not a rule
```
"""
LINE = 5


def repo_with_rules(project: Path, tmp_path: Path) -> Path:
    """The project as a real repository with AGENTS.md, branches main and
    feature, and a bare ``origin`` inside its folder (Codex's sandbox writes
    only there): what reaches origin is what ran."""
    origin = project / "origin.git"
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True)
    (project / "AGENTS.md").write_text(AGENTS)
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True, capture_output=True)
    for args in (["checkout", "-q", "-B", "main"], ["add", "AGENTS.md"], ["commit", "-q", "-m", "rules"],
                 ["branch", "feature"], ["remote", "add", "origin", str(origin)]):
        subprocess.run(git + args, check=True, capture_output=True)
    return origin


def pushed(origin: Path) -> set[str]:
    out = subprocess.run(["git", "-C", str(origin), "branch", "--format=%(refname:short)"], check=True,
                         capture_output=True, text=True).stdout
    return set(out.split())


def test_claude_code_agents_md_stops_a_force_push(run_claude, stub, tmp_path):
    tc = TacitOnHost(run_claude, stub, tmp_path)
    tc.host = "claude-code"
    origin = repo_with_rules(run_claude.project, tmp_path)
    assert tc.install()["success"]
    listed = tc.tacit("guard", "list").stdout
    assert f"AGENTS.md:{LINE}" in listed and RULE in listed
    stub.set_script([
        {"match": "^ship it$", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": "git push --force origin main", "description": "push"}}]},
        {"match": "tacit: .*AGENTS.md", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": "git push origin feature", "description": "push"}}]},
        {"match": "feature -> feature", "times": 1, "reply": "Pushed feature instead."},
    ])
    n = len(stub.model_requests())
    _, result = tc.run_ok(run_claude.prompt, "ship it", "--allowedTools", "Bash")
    assert result["result"] == "Pushed feature instead."
    assert pushed(origin) == {"feature"}  # the force push never ran
    [denied] = result["permission_denials"]
    assert denied["tool_input"]["command"] == "git push --force origin main"
    after = stub.model_requests()[n + 1]
    [block] = [b for b in after["body"]["messages"][-1]["content"] if b.get("type") == "tool_result"]
    reason = message_text(block["content"])
    assert block["is_error"] is True
    assert reason.startswith("tacit: `git push --force origin main` goes against this project's "
                             f'AGENTS.md:{LINE} "{RULE}"'), reason
    assert stub.refused_proxy() == []


def test_codex_agents_md_stops_a_force_push(run_codex, stub, tmp_path):  # noqa: F811
    tx = TacitOnHost(run_codex, stub, tmp_path)
    tx.host = "codex"
    origin = repo_with_rules(run_codex.project, tmp_path)
    assert tx.install()["success"]
    run_codex.trust_hooks("tacit.hosts.hook_client")
    stub.set_script([
        {"match": "^ship it$", "times": 1,
         "tool_calls": [{"name": "exec_command", "input": {"cmd": "git push --force origin main"}}]},
        {"match": "Command blocked by PreToolUse hook", "times": 1,
         "tool_calls": [{"name": "exec_command", "input": {"cmd": "git push origin feature"}}]},
        {"match": "feature -> feature", "times": 1, "reply": "Pushed feature instead."},
    ])
    proc, reply = tx.run_ok(run_codex.exec, "ship it", "--sandbox", "danger-full-access")
    assert reply == "Pushed feature instead.", proc.stderr[-3000:]
    assert pushed(origin) == {"feature"}, proc.stderr[-3000:]
    outputs = [i for r in stub.model_requests() for i in r["body"].get("input", [])
               if isinstance(i, dict) and i.get("type") == "function_call_output"]
    blocked = [o["output"] for o in outputs if "PreToolUse" in str(o.get("output"))]
    assert blocked and blocked[0].startswith("Command blocked by PreToolUse hook: tacit: stopped "
                                             "`git push --force origin main`, this project's "
                                             f'AGENTS.md:{LINE}: "{RULE}"'), blocked


# --------------------------------------------------------------------------
# pi: a correction with a reason clause, saved by the (scripted) child, stops npm next time
# --------------------------------------------------------------------------

FAKE_NPM = """#!/bin/sh
touch "$GUARD_MARKERS/$(basename "$0")-ran"
echo "fake $(basename "$0") $*: done"
"""
PI_LESSON = "Use pnpm, not npm \u2014 npm breaks the workspace lockfile."


def test_pi_a_correction_with_a_reason_saved_by_the_child_stops_npm(stub, run_pi, tmp_path):
    from e2e_helpers import wait_for
    from test_pi import EXTENSION, child_records, data_cfg

    subprocess.run(["git", "init", "-q", "-b", "main", str(run_pi.project)], check=True, capture_output=True)
    folder, markers = tmp_path / "fake-bin", tmp_path / "markers"
    folder.mkdir()
    markers.mkdir()
    for name in ("npm", "pnpm"):
        (folder / name).write_text(FAKE_NPM)
        (folder / name).chmod(0o755)
    env_extra = {"PATH": f"{folder}:{run_pi.env()['PATH']}", "GUARD_MARKERS": str(markers)}
    cfg = data_cfg(run_pi)
    stub.set_script([
        # the correction child saves the lesson as the user phrased it, reason and all
        {"match": "memory keeper", "times": 1, "tool_calls": [
            {"name": "memory", "input": {"action": "add", "target": "project", "content": PI_LESSON}}]},
        {"match": "Entry added", "reply": "Saved."},
        {"match": "^no, don.t use npm", "reply": "Understood, pnpm from now on."},
    ])
    proc = run_pi.prompt("no, don't use npm here \u2014 npm breaks the workspace lockfile, use pnpm",
                         extensions=[EXTENSION], env_extra=env_extra)
    assert proc.returncode == 0, proc.stderr
    record = wait_for(lambda: child_records(cfg), 90, "the child run in children.jsonl")[0]
    assert record["kind"] == "correction" and record["ok"] is True

    stub.set_script([
        {"match": "^add left-pad$", "times": 1,
         "tool_calls": [{"name": "bash", "input": {"command": "npm install left-pad"}}]},
        {"match": "tacit: stopped", "times": 1, "reply": "npm is not used here; I will use pnpm."},
    ])
    n = len(stub.model_requests())
    proc = run_pi.prompt("add left-pad", extensions=[EXTENSION], env_extra=env_extra)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "npm is not used here; I will use pnpm."
    assert not (markers / "npm-ran").exists()  # stopped before it ran
    tool_message = stub.model_requests()[n + 1]["body"]["messages"][-1]
    reason = tool_message["content"] if isinstance(tool_message["content"], str) else message_text(
        tool_message["content"])
    assert reason.startswith("tacit: stopped `npm install left-pad`, this project's rule:")
    assert f'"{PI_LESSON}"; use pnpm instead' in reason


# --------------------------------------------------------------------------
# Claude Code: an AGENTS.md too slow to read in a hook's time still stops what its first lines forbid
# --------------------------------------------------------------------------

SLOW_LINES = "".join(f"Never run the thing number {i} that is quite long and keeps going on and on without stopping\n"
                     "and it continues lower case words\n" for i in range(3000))  # ~350 KiB; each line its own


def test_claude_code_a_huge_agents_md_does_not_let_a_call_through(run_claude, stub, tmp_path):
    tc = TacitOnHost(run_claude, stub, tmp_path)
    tc.host = "claude-code"
    project = run_claude.project
    subprocess.run(["git", "init", "-q", "-b", "main", str(project)], check=True, capture_output=True)
    (project / "AGENTS.md").write_text("- Use pnpm, not npm.\n" + SLOW_LINES)
    assert tc.install()["success"]
    stub.set_script([
        {"match": "^add left-pad$", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": "npm install left-pad", "description": "add"}}]},
        {"match": "tacit: .*AGENTS.md:1", "times": 1, "reply": "npm is not used here."},
    ], default="npm ran")
    _, result = tc.run_ok(run_claude.prompt, "add left-pad", "--allowedTools", "Bash")
    assert result["result"] == "npm is not used here."
    [denied] = result["permission_denials"]
    assert denied["tool_input"]["command"] == "npm install left-pad"
    doctor = tc.tacit("doctor").stdout
    assert "instruction file AGENTS.md: read up to line " in doctor, doctor
    assert stub.refused_proxy() == []


# --------------------------------------------------------------------------
# Claude Code: a worktree whose branch changed AGENTS.md, beside the main checkout, one service
# --------------------------------------------------------------------------

def test_claude_code_a_worktree_keeps_its_own_agents_md_rules(run_claude, stub, tmp_path):
    tc = TacitOnHost(run_claude, stub, tmp_path)
    tc.host = "claude-code"
    project = run_claude.project
    origin = repo_with_rules(project, tmp_path)
    tree = tmp_path / "feature-tree"
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(git + ["worktree", "add", "-q", str(tree), "feature"], check=True, capture_output=True)
    (tree / "AGENTS.md").write_text("# Contributing\n\n- Never run `make deploy`.\n")  # the branch dropped the push rule
    assert tc.install()["success"]

    runs = []

    def push(cwd: Path, command: str) -> dict:
        runs.append(cwd)
        prompt = f"run {command} ({len(runs)})"  # a script rule counts its uses by its text: one per run
        stub.set_script([
            {"match": f"^{re.escape(prompt)}$", "times": 1,
             "tool_calls": [{"name": "Bash", "input": {"command": command, "description": "push"}}]},
            {"match": "tacit: ", "reply": "Stopped."},
        ], default="Done.")
        return tc.run_ok(run_claude.prompt, prompt, "--allowedTools", "Bash", cwd=cwd)[1]

    assert push(project, "git push --force origin main")["result"] == "Stopped."
    assert push(tree, "git push --force origin feature")["result"] == "Done."  # not this branch's rule
    assert pushed(origin) == {"feature"}
    # the same service, the main checkout again: its AGENTS.md still holds
    assert push(project, "git push --force origin main")["result"] == "Stopped."
    assert pushed(origin) == {"feature"}
    assert push(project, "make deploy 2>/dev/null; true")["result"] == "Done."  # the worktree's rule, not here
    assert stub.refused_proxy() == []
