"""tacit inside the real pi 0.73.1, against the scripted model server.

Each test runs ``pi -p`` with tacit's extension (``-e`` the packaged
``index.ts``, or installed with ``tacit install pi``) in the rig's isolated
HOME / ``PI_CODING_AGENT_DIR``, and asserts real effects: what the model
received (the stub's request log), what landed on disk (MEMORY.md, USER.md,
skills, ``logs/children.jsonl``, ``logs/tacit.log``) and pi's exit code.

1. the frozen snapshot and the skill index reach the system prompt;
2. the agent's ``memory`` tool call writes MEMORY.md through the bridge;
3. a correction leads to a child ``pi -p`` that saves it, with no grandchild;
4. ``/memory-skills``, ``/memory-consolidate`` (and show/teach/forget) run
   without a model call;
5. killing the bridge mid-session leaves pi answering normally; a missing
   Python leaves pi answering too;
plus install/uninstall for both scopes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from e2e_helpers import wait_for

import tacit
from tacit.config import load_config

pytestmark = pytest.mark.e2e

EXTENSION = Path(__file__).resolve().parents[2] / "extension" / "tacit" / "hosts" / "pi" / "extension" / "index.ts"
# the installed tacit's copy (what `tacit install pi` copies): its code identity matches the
# service's, so it links to the service; the checkout's copy does so only under an editable
# install (under a non-editable one its sessions run on the bridge fallback)
INSTALLED_EXTENSION = Path(tacit.__file__).resolve().parent / "hosts" / "pi" / "extension" / "index.ts"
CORRECTION = "no, don't use npm here. we use pnpm in this repo"


def data_cfg(run_pi):
    """The Config the bridge resolves inside the rig (default data folder
    ``$HOME/.tacit`` of the isolated HOME)."""
    return load_config(env={"HOME": str(run_pi.home), "PATH": "/usr/bin:/bin"}, host="pi")


def project_paths(cfg, run_pi) -> tuple[Path, Path]:
    """This project's MEMORY.md and skills folder (what the agent writes, working in it)."""
    from tacit.projects import forget_cache, project_for
    from tacit.stores.memory import project_dir
    from tacit.stores.skill_scopes import project_skills_dir

    forget_cache()
    project = project_for(str(run_pi.project), home=str(run_pi.home))
    return project_dir(cfg, project) / "MEMORY.md", project_skills_dir(cfg, project)


def seed_memory(cfg, memory: str = "", user: str = "") -> None:
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    if memory:
        cfg.memory_file.write_text(memory, encoding="utf-8")
    if user:
        cfg.user_file.write_text(user, encoding="utf-8")


def system_prompt(request: dict) -> str:
    first = request["body"]["messages"][0]
    assert first["role"] == "system"
    return first["content"]


def tool_names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request["body"].get("tools", [])]


def last_message_text(request: dict) -> str:
    content = request["body"]["messages"][-1]["content"]
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def log_lines(cfg) -> list[str]:
    return cfg.log_file.read_text(encoding="utf-8").splitlines() if cfg.log_file.exists() else []


def link_lost(cfg) -> list[str]:
    return [line for line in log_lines(cfg) if "pi.extension: link to tacit lost" in line]


def bridge_exits(cfg) -> list[str]:
    """One line per pi session tacit served (over the service's socket or a bridge)."""
    return [line for line in log_lines(cfg) if "pi: session closed:" in line]


def child_records(cfg) -> list[dict]:
    if not cfg.children_log.exists():
        return []
    return [json.loads(line) for line in cfg.children_log.read_text(encoding="utf-8").splitlines()]


def ok(proc) -> None:
    assert proc.returncode == 0, f"exit {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"


# ---------------------------------------------------------------------------
# 1. snapshot and skill index in the system prompt
# ---------------------------------------------------------------------------


def test_frozen_snapshot_and_skill_index_reach_the_system_prompt(stub, run_pi):
    cfg = data_cfg(run_pi)
    seed_memory(cfg, memory="MEMENTRY-ONE uses pnpm\n§\nMEMENTRY-TWO tabs not spaces",
                user="USERENTRY-ONE is called Ada")
    from tacit.stores.skills import SkillStore

    assert SkillStore(cfg).create("deploy-staging", "SKILLDESC deploy the web app to staging")["success"]
    stub.set_script([
        {"match": "^what do you know", "times": 1, "tool_calls": [
            {"name": "bash", "input": {"command": "echo looked"}}]},
        {"match": "looked", "reply": "I know things"},
    ])
    proc = run_pi.prompt("what do you know", extensions=[EXTENSION])
    ok(proc)
    assert proc.stdout.strip() == "I know things"
    requests = stub.model_requests()
    assert len(requests) == 2
    for request in requests:
        system = system_prompt(request)
        cwd_line = system.index("Current working directory:")
        ordered = ["USER PROFILE (who the user is, in every project)", "USERENTRY-ONE is called Ada",
                   "GLOBAL NOTES (true in every project)", "MEMENTRY-ONE uses pnpm", "MEMENTRY-TWO tabs not spaces",
                   "call the `memory` tool", "deploy-staging", "SKILLDESC deploy the web app to staging"]
        missing = [text for text in ordered if text not in system]
        assert not missing, (missing, system[system.index("Current working directory:"):][:2500])
        positions = [system.index(text) for text in ordered]
        assert positions == sorted(positions) and positions[0] > cwd_line  # appended after pi's own prompt
        assert tool_names(request)[-3:] == ["memory", "skill", "search_sessions"]
    assert system_prompt(requests[0]) == system_prompt(requests[1])  # the same block every request


# ---------------------------------------------------------------------------
# 2. the memory tool writes MEMORY.md through the bridge
# ---------------------------------------------------------------------------


def test_memory_and_skill_tool_calls_write_through_the_bridge(stub, run_pi):
    cfg = data_cfg(run_pi)
    seed_memory(cfg, memory="MEMENTRY-ONE uses pnpm")
    stub.set_script([
        {"match": "^remember this project", "times": 1, "tool_calls": [
            {"name": "memory", "input": {"action": "add", "target": "memory",
                                         "content": "MEM-ADDED-X the API runs on port 5173"}},
            {"name": "skill", "input": {"action": "create", "name": "start-dev-server",
                                        "description": "Start the dev server on port 5173"}}]},
        {"match": "Created skill", "reply": "saved both"},
        {"match": "^what is in your memory now", "reply": "second prompt answered"},
    ])
    # two prompts, one pi session (pi -p runs its messages in order)
    proc = run_pi.prompt("what is in your memory now", "remember this project", extensions=[EXTENSION])
    ok(proc)
    assert proc.stdout.strip() == "second prompt answered"
    # working in a project, the agent's memory and skills are that project's
    project_memory, project_skills = project_paths(cfg, run_pi)
    assert cfg.memory_file.read_text(encoding="utf-8") == "MEMENTRY-ONE uses pnpm"
    assert project_memory.read_text(encoding="utf-8") == "MEM-ADDED-X the API runs on port 5173"
    skill = project_skills / "start-dev-server" / "SKILL.md"
    assert "Start the dev server on port 5173" in skill.read_text(encoding="utf-8")
    first, second, third = stub.model_requests()
    results = [m for m in second["body"]["messages"] if m.get("role") == "tool"]
    assert len(results) == 2
    # each tool result is the store's JSON result, as the CLI prints it
    parsed = [json.loads(r["content"] if isinstance(r["content"], str) else r["content"][0]["text"])
              for r in results]
    by_message = {p["message"].split(" ")[0]: p for p in parsed}
    assert by_message["Entry"]["success"] is True and by_message["Entry"]["target"] == "project"
    assert by_message["Created"]["success"] is True and by_message["Created"]["name"] == "start-dev-server"
    # the snapshot is frozen: the entry is on disk but not in this session's prompt,
    # not even in the next prompt of the session
    assert "MEMENTRY-ONE uses pnpm" in system_prompt(third)
    assert "MEM-ADDED-X" not in system_prompt(third)
    assert system_prompt(first) == system_prompt(second) == system_prompt(third)
    exits = wait_for(lambda: bridge_exits(cfg), 20, "the session's summary line")
    assert len(exits) == 1 and "tools=2" in exits[0]  # one session served both prompts


# ---------------------------------------------------------------------------
# 3. a correction -> a child pi -p saves it; no grandchild
# ---------------------------------------------------------------------------


def test_a_correction_is_saved_by_a_child_pi_with_no_grandchild(stub, run_pi):
    cfg = data_cfg(run_pi)
    stub.set_script([
        # the child's prompt quotes the correction, so its rule comes first
        {"match": "memory keeper", "times": 1, "tool_calls": [
            {"name": "memory", "input": {"action": "add", "target": "user",
                                         "content": "CHILD-SAVED: use pnpm, never npm, in this repo"}}]},
        {"match": "Entry added", "reply": "Saved: use pnpm."},
        {"match": "^no, don.t use npm here", "reply": "Understood, pnpm from now on."},
    ])
    proc = run_pi.prompt(CORRECTION, extensions=[EXTENSION])
    ok(proc)
    assert proc.stdout.strip() == "Understood, pnpm from now on."
    record = wait_for(lambda: child_records(cfg), 90, "the child run in children.jsonl")[0]
    assert record["kind"] == "correction" and record["ok"] is True and record["mode"] == "agent"
    assert record["killed"] is False and record["exit"] == 0
    command = record["command"]
    assert command[:4] == ["pi", "-p", "--no-session", "--no-extensions"]
    assert command[command.index("--extension") + 1] == str(EXTENSION)
    assert command[command.index("--model") + 1] == "stub/stub-model"
    assert "Saved: use pnpm." in record["stdout_tail"]
    assert cfg.user_file.read_text(encoding="utf-8") == "CHILD-SAVED: use pnpm, never npm, in this repo"
    # one history row, the child's (its runner's actor, sent in the child's hello), never "you"
    from tacit.stores import history
    from tacit.stores.ledger import Ledger

    with Ledger(cfg) as ledger:
        (saved,) = history.changes(ledger)
    assert (saved.actor.kind, saved.actor.name, saved.actor.host) == ("child", "correction", "pi")
    assert saved.group == f"job:{record['job_id']}"

    child_requests = [r for r in stub.model_requests() if "memory keeper" in last_message_text(r)
                      or any("memory keeper" in str(m.get("content")) for m in r["body"]["messages"])]
    assert child_requests, "the child never asked the model"
    child_first = child_requests[0]
    assert CORRECTION in last_message_text(child_first)  # the child saw the correction quoted...
    assert tool_names(child_first)[-3:] == ["memory", "skill", "search_sessions"]  # ...had tacit's tools...
    assert "call the `memory` tool" not in system_prompt(child_first)  # ...and no injected context
    # the child's session served the tool and dispatched nothing
    child_exit = wait_for(lambda: [l for l in bridge_exits(cfg) if "child=1" in l], 20,
                          "the child session's summary line")
    assert len(child_exit) == 1
    assert "events=0 dispatched=0 tools=1 commands=0" in child_exit[0]
    parent_exit = [line for line in bridge_exits(cfg) if "child=0" in line]
    assert len(parent_exit) == 1
    time.sleep(2)  # a grandchild would have been started by now
    assert len(child_records(cfg)) == 1
    assert sum("memory keeper" in last_message_text(r) for r in stub.model_requests()) == 1
    assert not list((cfg.state_dir / "jobs").glob("*.json"))


# ---------------------------------------------------------------------------
# 4. slash commands without a model call
# ---------------------------------------------------------------------------


def test_slash_commands_run_without_a_model_call(stub, run_pi):
    cfg = data_cfg(run_pi)
    seed_memory(cfg, memory="Use pnpm here\n§\nuse pnpm here.\n§\nTests live in tests/unit")
    from tacit.stores.skills import SkillStore

    assert SkillStore(cfg).create("release-notes", "Write release notes from the changelog")["success"]

    proc = run_pi.prompt("/memory-skills", extensions=[EXTENSION])
    ok(proc)
    assert f"[tacit] Skills in {cfg.skills_dir} (1):" in proc.stderr
    assert "release-notes" in proc.stderr and "Write release notes from the changelog" in proc.stderr

    # consolidation merges deterministically here: settings live in config.toml (the
    # service reads them when it starts; a change makes it exit for the next one)
    # (and a small limit: the 57 characters are near it, so /memory-consolidate works on them)
    (cfg.state_dir / "config.toml").write_text("child_enabled = false\nmemory_char_limit = 71\n")
    tacit_cli(run_pi, "service", "stop", "--json")
    proc = run_pi.prompt("/memory-consolidate", extensions=[EXTENSION])
    ok(proc)
    assert "[tacit] Memory consolidation:" in proc.stderr and "deterministic, 1 merged" in proc.stderr
    assert cfg.memory_file.read_text(encoding="utf-8") == "Use pnpm here\n§\nTests live in tests/unit"

    proc = run_pi.prompt("/memory-teach Deploys go through make ship", extensions=[EXTENSION])
    ok(proc)
    assert "[tacit] Taught taught-" in proc.stderr and "saved to this project's memory" in proc.stderr
    from tacit.projects import project_for
    from tacit.stores.memory import project_dir

    project_memory = project_dir(cfg, project_for(str(run_pi.project))) / "MEMORY.md"
    assert "Deploys go through make ship" in project_memory.read_text(encoding="utf-8")  # as `tacit memory add`
    key = proc.stderr.split("Taught ", 1)[1].split(":", 1)[0]

    proc = run_pi.prompt("/memory-show", extensions=[EXTENSION])
    ok(proc)
    assert key in proc.stderr and "Deploys go through make ship" in proc.stderr

    proc = run_pi.prompt(f"/memory-forget {key}", extensions=[EXTENSION])
    ok(proc)
    assert f"Forgot {key}" in proc.stderr
    assert "make ship" not in project_memory.read_text(encoding="utf-8")

    assert stub.model_requests() == []


# ---------------------------------------------------------------------------
# 5. a dead bridge or a missing Python never breaks pi
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["service", "bridge"])
def test_killing_tacit_mid_session_leaves_pi_answering(stub, run_pi, transport):
    cfg = data_cfg(run_pi)
    seed_memory(cfg, memory="MEMENTRY-ONE uses pnpm")
    # bash runs as pi's child; the bridge is its sibling, the service has its own
    # session. "[t]acit" keeps the pattern from matching this very shell's command line.
    if transport == "service":  # the lock file names the service's pid
        kill = f"kill -9 $(cat {cfg.state_dir / 'run' / 'serve.lock'}) && echo TACIT-KILLED"
    else:
        kill = "kill -9 $(pgrep -P $PPID -f '[t]acit bridge') && echo TACIT-KILLED"
    if transport == "service":
        # a service that is up: on a loaded machine its cold start can outlast the extension's
        # wait (4 s), and the session then runs on a bridge, which is not what this test kills
        stub.set_script([{"match": "^warm up", "reply": "warm"}])
        ok(run_pi.prompt("warm up", extensions=[INSTALLED_EXTENSION], env_extra={"TACIT_PI_TRANSPORT": transport}))
        wait_for(lambda: (cfg.state_dir / "run" / "tacit.sock").exists() and tacit_cli(run_pi, "service", "status")
                 .get("running"), 60, "the service")
        wait_for(lambda: bridge_exits(cfg), 20, "the warm-up session's line")
    earlier_exits, earlier_died = len(bridge_exits(cfg)), len(link_lost(cfg))
    n = len(stub.model_requests())
    stub.set_script([
        {"match": "^kill tacit", "times": 1, "tool_calls": [{"name": "bash", "input": {"command": kill}}]},
        {"match": "TACIT-KILLED", "reply": "still answering"},
    ])
    # the service case needs the installed copy (see INSTALLED_EXTENSION)
    extension = INSTALLED_EXTENSION if transport == "service" else EXTENSION
    proc = run_pi.prompt("kill tacit", extensions=[extension], env_extra={"TACIT_PI_TRANSPORT": transport})
    ok(proc)
    assert proc.stdout.strip() == "still answering"
    first, second = stub.model_requests()[n:]
    assert "TACIT-KILLED" in last_message_text(second)
    assert "MEMENTRY-ONE" in system_prompt(second)  # the prompt was built before the kill
    assert len(link_lost(cfg)) == earlier_died + 1
    # pi may write the rest of the session (the tool's result, the reply, its end) into the dead link
    # before it sees it close: what that link never answered goes again on the new one, and the
    # session's end waits for the prompt in flight (pi runs its last events after session_shutdown)
    try:  # a loaded CI machine
        exits = wait_for(lambda: bridge_exits(cfg)[earlier_exits:], 60, "the new link's session line")
    except pytest.fail.Exception:
        pytest.fail("no new link's session line in 60 s; tacit's log ends:\n" + "\n".join(log_lines(cfg)[-40:]))
    assert len(exits) == 1, exits  # the killed one never logged its end
    assert "dispatched=" in exits[0] and "dispatched=0" not in exits[0]  # the new one served events
    late = [line for line in log_lines(cfg) if "came after this session's end" in line or "did not end in" in line]
    assert late == []  # the session's end came after its last prompt


def test_a_missing_python_leaves_pi_answering(stub, run_pi):
    cfg = data_cfg(run_pi)
    stub.set_script([{"match": "^hello", "reply": "hi without tacit"}])
    proc = run_pi.prompt("hello", extensions=[EXTENSION], env_extra={"TACIT_PYTHON": "/nonexistent/python3"})
    ok(proc)
    assert proc.stdout.strip() == "hi without tacit"
    notices = [line for line in proc.stderr.splitlines() if line.startswith("[tacit]")]
    assert len(notices) == 1 and "memory is off for this session" in notices[0]
    (request,) = stub.model_requests()
    assert "memory" not in tool_names(request) and "tacit memory" not in system_prompt(request)
    warnings = [line for line in log_lines(cfg) if "pi.extension" in line]
    assert "giving up" in warnings[-1] and sum("giving up" in w for w in warnings) == 1


# ---------------------------------------------------------------------------
# install / uninstall
# ---------------------------------------------------------------------------


def tacit_cli(run_pi, *args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=run_pi.env(), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_install_and_uninstall_for_both_scopes(stub, run_pi):
    cfg = data_cfg(run_pi)
    seed_memory(cfg, memory="INSTALLED-MEMENTRY")
    stub.set_script([], default="OK")
    places = [run_pi.agent_dir / "extensions", run_pi.project / ".pi"]
    assert not any(p.exists() for p in places)

    assert tacit_cli(run_pi, "install", "pi", "--scope", "user")["changed"] is True
    assert tacit_cli(run_pi, "install", "pi", "--scope", "user")["changed"] is False  # idempotent
    installed = run_pi.agent_dir / "extensions" / "tacit"
    assert json.loads((installed / "tacit.json").read_text())["python"] == sys.executable
    ok(run_pi.prompt("plain run"))  # no -e: pi autoloads the installed copy
    assert "INSTALLED-MEMENTRY" in system_prompt(stub.model_requests()[-1])

    # a second copy in the project as well: one of them stays inert, pi still works
    assert tacit_cli(run_pi, "install", "pi", "--scope", "project",
                     "--project-dir", str(run_pi.project))["changed"] is True
    proc = run_pi.prompt("both copies")
    ok(proc)
    last = stub.model_requests()[-1]
    assert tool_names(last).count("memory") == 1
    assert system_prompt(last).count("INSTALLED-MEMENTRY") == 1

    assert tacit_cli(run_pi, "uninstall", "pi", "--scope", "user")["changed"] is True
    ok(run_pi.prompt("project copy only"))
    assert "INSTALLED-MEMENTRY" in system_prompt(stub.model_requests()[-1])
    assert tacit_cli(run_pi, "uninstall", "pi", "--scope", "project",
                     "--project-dir", str(run_pi.project))["changed"] is True
    assert tacit_cli(run_pi, "uninstall", "pi", "--scope", "project",
                     "--project-dir", str(run_pi.project))["changed"] is False

    ok(run_pi.prompt("no tacit"))
    last = stub.model_requests()[-1]
    assert "memory" not in tool_names(last) and "INSTALLED-MEMENTRY" not in system_prompt(last)
    assert not any(p.exists() for p in places)  # what install added is gone, folders included
    assert (run_pi.agent_dir / "models.json").is_file()  # pi's own files stay


def test_forget_that_is_shown_and_removes_the_entry(stub, run_pi):
    cfg = data_cfg(run_pi)
    seed_memory(cfg, user="FORGET-ME prefers tabs over spaces\n§\nKEEP-ME answers in English")
    stub.set_script([], default="OK")
    proc = run_pi.prompt("forget that I prefer tabs over spaces", extensions=[EXTENSION])
    ok(proc)
    assert cfg.user_file.read_text(encoding="utf-8") == "KEEP-ME answers in English"
    # the user's message is a request now: its result reaches the person (stderr in print mode)
    assert '[tacit] Forgot "I prefer tabs over spaces": removed 1 from your user profile' in proc.stderr, proc.stderr


def test_what_the_user_says_in_pi_p_is_noted_there_and_in_memory_by_the_next_session(stub, run_pi):
    """Issue 22 with the real pi: a convention said in one ``pi -p`` run is noted in that run's
    output (stderr, print mode), saved by its own review child, and in the next run's prompt."""
    cfg = data_cfg(run_pi)
    convention = "This project uses yarn."
    stub.set_script([
        {"match": r"(?s)reviewing a coding session.*<highlighted>.*we use yarn here", "times": 1, "tool_calls": [
            {"name": "memory", "input": {"action": "add", "target": "memory", "content": convention}}]},
        {"match": "Entry added", "reply": "Saved."},
        {"match": "^we use yarn here$", "reply": "OK, yarn."},
    ], default="OK")
    proc = run_pi.prompt("we use yarn here", extensions=[EXTENSION])
    ok(proc)
    assert proc.stdout.strip() == "OK, yarn."
    assert "[tacit] Noted (fact): This project uses yarn. — this session's memory review saves it." in proc.stderr, \
        proc.stderr  # the promise is kept: a review child can run (pi is on the session's PATH)
    memory_md, _skills = project_paths(cfg, run_pi)
    wait_for(lambda: memory_md.exists() and convention in memory_md.read_text(encoding="utf-8"), 90,
             "the convention in the project's MEMORY.md")
    record = wait_for(lambda: [r for r in child_records(cfg) if r["kind"] == "review"], 90,
                      "the review child's record")[0]
    assert record["ok"] is True and record["mode"] == "agent"
    n = len(stub.model_requests())
    ok(run_pi.prompt("hello", extensions=[EXTENSION]))
    assert convention in system_prompt(stub.model_requests()[n])


def test_pi_p_after_hand_edits_reads_what_is_valid_and_tells_what_it_skipped(stub, run_pi):
    """Hand edits between sessions (global MEMORY.md bytes that are not UTF-8, a skill whose frontmatter
    no longer parses): ``pi -p`` gets every valid entry and skill, its terminal is told the rest."""
    cfg = data_cfg(run_pi)
    from tacit.stores.skills import SkillStore

    for name in ("deploy-web", "run-tests"):
        assert SkillStore(cfg).create(name, f"SKILL-{name} procedure")["success"]
    broken = SkillStore(cfg).skills_dir / "run-tests" / "SKILL.md"
    broken.write_text("---\nname: run-tests\ndescription: [unclosed\n---\n\nmy edit\n")
    seed_memory(cfg, user="USER-KEEP likes tabs")
    cfg.memory_file.write_bytes(b"MEM-KEEP uses pnpm\n\xc2\xa7\nMEM-ODD caf\xe9\n")
    stub.set_script([], default="OK")
    proc = run_pi.prompt("hello", extensions=[EXTENSION])
    ok(proc)
    system = system_prompt(stub.model_requests()[0])
    assert all(t in system for t in ("USER-KEEP", "MEM-KEEP", "MEM-ODD caf\ufffd", "SKILL-deploy-web")), system
    assert "SKILL-run-tests" not in system
    assert f"{cfg.memory_file} is not valid UTF-8 (bad byte at offset 33)" in proc.stderr, proc.stderr
    assert f"tacit left 1 skill file(s) it could not read out of the skill index: {broken}" in proc.stderr
    assert cfg.memory_file.read_bytes() == b"MEM-KEEP uses pnpm\n\xc2\xa7\nMEM-ODD caf\xe9\n"
