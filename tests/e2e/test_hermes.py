"""tacit inside the real Hermes Agent 0.19.0 (issue 5's proofs), offline.

tacit is installed (as a wheel, like a user gets it) into the cached Hermes
venv with ``hostbin.hermes_venv_install``; ``tacit install hermes`` (that
venv's own ``tacit``) enables it; ``hermes -z`` runs against the scripted
model server. Every assertion is on real effects: files in ``HERMES_HOME``,
``config.yaml`` as Hermes rewrote it, tacit's logs, and the requests the
stub received (the parent's and the child agent's).

1. the plugin loads through the entry point and ``on_session_start`` runs;
   install is idempotent and uninstall restores exactly what it changed
2. a correction in a ``hermes -z`` session → a child ``hermes -z`` saves it to
   USER.md (the stub answers the child's prompt with a ``memory`` call) →
   the next session's system prompt holds it
3. an ``add`` that overflows MEMORY.md → no error for the agent; a child
   consolidates, then the entry is added
4. ``/memory-consolidate``, ``/memory-skills`` (and the learner commands)
   through ``hermes_cli.plugins.get_plugin_command_handler``; a tacit-made
   skill is in Hermes's own skill index
5. Hermes's ``memory`` tool and ``tacit memory add`` processes writing at the
   same time lose nothing
6. a broken tacit data folder never breaks a Hermes turn

Child agents are detached processes that outlive ``hermes -z``, so tests
that expect one wait for its effect (bounded) and each test's stub stays up
until then.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

E2E_DIR = Path(__file__).resolve().parent
if str(E2E_DIR) not in sys.path:
    sys.path.insert(0, str(E2E_DIR))

import hostbin  # noqa: E402
from e2e_helpers import read_jsonl, wait_for  # noqa: E402

pytestmark = pytest.mark.e2e
REPO_ROOT = E2E_DIR.parent.parent

CHILD_WAIT = 120  # seconds a test waits for a child agent's write
TACIT_ENV = {"TACIT_CHILD_TIMEOUT_SECONDS": "120"}
CORRECTION_CHILD = r"memory keeper, running in the background"  # prompts/correction.md.j2
CONSOLIDATE_CHILD = r"memory keeper\. .* too full"  # prompts/consolidate.md.j2
CHILD_TOOLS = ["memory", "skill_manage", "skill_view", "skills_list"]  # -t memory,skills


@pytest.fixture(scope="session")
def hermes_python_with_tacit(hermes_binary) -> Path:
    """Hermes's venv python, with this checkout installed into it (wheel)."""
    try:
        return hostbin.hermes_venv_install(REPO_ROOT)
    except hostbin.HostUnavailable as exc:
        pytest.skip(f"package registry unreachable: {exc}")


class TacitInHermes:
    """The run_hermes runner plus tacit's CLI from Hermes's venv and its files."""

    def __init__(self, hermes, python: Path):
        self.hermes = hermes
        # the rig's run_host (timeouts kill the group; timings in the summary), taken from the
        # module that defines the runner rather than imported by the ambiguous name "conftest"
        self.run_host = sys.modules[type(hermes).__module__].run_host
        self.tacit_bin = python.parent / "tacit"
        self.home = hermes.hermes_home
        self.state = hermes.home / ".tacit"  # tacit's one data folder, shared with every host
        self.install_record = self.home / "tacit" / "install.json"  # what install changed in Hermes's home

    def tacit(self, *args, env_extra=None, timeout=120) -> subprocess.CompletedProcess:
        env = {**TACIT_ENV, **(env_extra or {})}
        return self.run_host("tacit", [str(self.tacit_bin), *map(str, args)], self.hermes.env(env),
                        cwd=self.hermes.project, timeout=timeout)

    def tacit_json(self, *args, **kwargs) -> dict:
        proc = self.tacit(*args, "--json", **kwargs)
        lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
        assert lines, f"no JSON from tacit {args} (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
        return json.loads(lines[-1])

    def install(self) -> dict:
        result = self.tacit_json("install", "hermes")
        assert result["success"], result
        return result

    def oneshot(self, text: str, *args, env_extra=None) -> subprocess.CompletedProcess:
        proc = self.hermes.oneshot(text, *args, env_extra={**TACIT_ENV, **(env_extra or {})})
        assert proc.returncode == 0, f"hermes -z failed:\n{proc.stdout}\n{proc.stderr}"
        return proc

    @property
    def memories(self) -> Path:
        return self.home / "memories"

    def read(self, name: str) -> str:
        path = self.memories / name
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def entries(self, name: str) -> list[str]:
        text = self.read(name)
        return [e.strip() for e in text.split("\n§\n") if e.strip()] if text.strip() else []

    def log_text(self) -> str:
        path = self.state / "logs" / "tacit.log"
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def children(self) -> list[dict]:
        return read_jsonl(self.state / "logs" / "children.jsonl")


@pytest.fixture
def tacit_hermes(run_hermes, hermes_python_with_tacit) -> TacitInHermes:
    return TacitInHermes(run_hermes, hermes_python_with_tacit)


def said(text: str) -> str:
    """A user message without the save guidance tacit adds in a project (how to save to its memory)."""
    return text.split("\n\n## tacit memory\n")[0]


def system_prompt(request: dict) -> str:
    first = request["body"]["messages"][0]
    assert first["role"] == "system"
    return first["content"] if isinstance(first["content"], str) else json.dumps(first["content"])


def tool_names(request: dict) -> list[str]:
    return sorted(t["function"]["name"] for t in request["body"].get("tools", []))


def session_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if " hermes: session " in line and " started " in line]


# --------------------------------------------------------------------------
# 1. entry point, on_session_start, install/uninstall
# --------------------------------------------------------------------------

def test_install_loads_plugin_and_session_start_runs(stub, tacit_hermes, tmp_path):
    th = tacit_hermes
    th.hermes.write_config(memory={"nudge_interval": 7})  # the person's own review setting
    first = th.install()
    assert "plugins.enabled += tacit" in first["changed"] and "memory.nudge_interval = 0" in first["changed"]
    config = th.hermes.read_config()
    assert config["plugins"]["enabled"] == ["tacit"]
    assert config["plugins"]["entries"]["tacit"] == {"allow_tool_override": False}
    assert config["memory"]["nudge_interval"] == 0 and config["skills"]["creation_nudge_interval"] == 0
    assert config["model"]["base_url"] == f"{stub.url}/v1"  # the rest of the config survives

    again = th.install()  # idempotent, and the record of the previous value is kept
    assert again["already_installed"] is True and again["changed"] == []
    manifest = json.loads(th.install_record.read_text())
    assert manifest["nudges"] == {"memory.nudge_interval": {"had": True, "previous": 7}}

    listed = th.hermes(["plugins", "list", "--plain", "--no-bundled"])
    assert any(line.split()[:2] == ["enabled", "entrypoint"] and line.split()[-1] == "tacit"
               for line in listed.stdout.splitlines()), listed.stdout

    usage = tmp_path / "usage.json"
    proc = th.oneshot("hello there", "--usage-file", str(usage))
    assert proc.stdout.strip() == "OK"
    session_id = json.loads(usage.read_text())["session_id"]
    [line] = session_lines(th.log_text())  # on_session_start ran, once
    assert f"session {session_id} started" in line and "oneshot=True" in line
    [request] = stub.model_requests()
    user = [m for m in request["body"]["messages"] if m["role"] == "user"][-1]
    # nothing injected that Hermes shows itself: only how to save to this project's memory
    assert user["content"].startswith("hello there\n\n## tacit memory\n") and "USER PROFILE" not in user["content"]
    assert sorted(set(CHILD_TOOLS) - set(tool_names(request))) == []  # Hermes's tools, not shadowed

    removed = th.tacit_json("uninstall", "hermes")
    assert removed["success"], removed
    config = th.hermes.read_config()
    assert "tacit" not in config["plugins"]["enabled"] and "tacit" not in config["plugins"].get("entries", {})
    assert config["memory"]["nudge_interval"] == 7  # restored
    assert config["skills"]["creation_nudge_interval"] == 0  # was 0 before install: untouched
    assert not th.install_record.exists()
    th.oneshot("hello again")
    assert len(session_lines(th.log_text())) == 1  # not loaded any more
    assert th.tacit_json("uninstall", "hermes")["changed"] == []  # nothing left to undo


# --------------------------------------------------------------------------
# 2. correction -> child hermes -z -> USER.md -> next session's system prompt
# --------------------------------------------------------------------------

def test_correction_is_saved_by_a_child_hermes_and_seen_next_session(stub, tacit_hermes):
    th = tacit_hermes
    th.install()
    entry = "PNPM-RULE: the user wants pnpm in this repo, never npm"
    stub.set_script([
        # the child's request, recognised by its prompt: save with Hermes's memory tool
        {"match": CORRECTION_CHILD, "times": 1, "tool_calls": [
            {"name": "memory", "input": {"action": "add", "target": "user", "content": entry}}]},
    ], default="OK")
    proc = th.oneshot("I told you we use pnpm here, not npm")
    reply, _, told = proc.stdout.strip().partition("\n")
    assert reply == "OK"  # the agent's answer, then tacit's line under it (headless notices, issue 22)
    assert "Noted (correction)" in told and "saving it to memory" in told

    wait_for(lambda: entry in th.entries("USER.md"), CHILD_WAIT, "the child's USER.md entry")
    record = wait_for(lambda: [c for c in th.children() if c["kind"] == "correction"], 30,
                        "the child log line")[0]
    assert record["ok"] is True and record["mode"] == "agent" and record["host"] == "hermes"
    assert record["command"][:3] == ["hermes", "-z", "<prompt>"]
    assert record["command"][3:5] == ["-t", "memory,skills"] and "--usage-file" in record["command"]
    assert record["usage"]["api_calls"] == 2 and record["usage"]["model"] == "stub-model"

    parent, child_first, child_second = stub.model_requests()
    assert said(parent["matched_text"]) == "I told you we use pnpm here, not npm"
    assert child_first["rule"] == 0
    child_prompt = child_first["body"]["messages"][-1]["content"]
    assert "<correction>\nI told you we use pnpm here, not npm\n</correction>" in child_prompt
    assert tool_names(child_first) == CHILD_TOOLS  # -t memory,skills
    assert "Entry added" in child_second["matched_text"]
    # the child's own copy of tacit stayed inert (TACIT_CHILD=1): one session line only
    assert len(session_lines(th.log_text())) == 1
    assert not list((th.state / "jobs").glob("*.json"))

    th.oneshot("which package manager do we use?")
    next_session = stub.model_requests()[-1]
    assert entry in system_prompt(next_session)  # Hermes's own snapshot, from the same file
    assert "USER PROFILE (who the user is)" in system_prompt(next_session)


# --------------------------------------------------------------------------
# 3. memory full: consolidation by a child instead of an error
# --------------------------------------------------------------------------

def test_overflowing_add_is_consolidated_by_a_child_not_an_error(stub, tacit_hermes):
    th = tacit_hermes
    th.hermes.write_config(memory={"memory_char_limit": 300})
    th.install()
    kept = ["DUP-ALPHA: run the whole test suite with make test before every commit",
            "KEEP-BETA: the API lives in services/api and is written in Go",
            "KEEP-GAMMA: staging is deployed from the release branch only"]
    duplicate = "DUP-ALPHA-COPY: run the whole test suite with make test before each commit"
    th.memories.mkdir(parents=True, exist_ok=True)
    (th.memories / "MEMORY.md").write_text("\n§\n".join([kept[0], duplicate, kept[1], kept[2]]))
    new = "OVERFLOW-NEW: deploy with make ship, staging first"
    assert len("\n§\n".join([kept[0], duplicate, kept[1], kept[2], new])) > 300  # it cannot fit
    stub.set_script([
        {"match": CONSOLIDATE_CHILD, "times": 1, "tool_calls": [
            {"name": "memory", "input": {"action": "remove", "target": "memory", "old_text": "DUP-ALPHA-COPY"}}]},
        {"match": "^please remember how we deploy$", "times": 1, "tool_calls": [
            {"name": "memory", "input": {"action": "add", "target": "memory", "content": new}}]},
    ], default="OK")
    proc = th.oneshot("please remember how we deploy")
    assert proc.stdout.strip() == "OK"

    # what the agent saw for its add: queued, no over-limit error, nothing to retry
    parent = [r for r in stub.model_requests() if any(m["role"] == "user" and said(m["content"]) ==
                                                     "please remember how we deploy" for m in r["body"]["messages"])]
    assert len(parent) == 2
    tool_result = parent[1]["body"]["messages"][-1]
    assert tool_result["role"] == "tool"
    seen = json.loads(tool_result["content"])
    assert seen["success"] is True and seen["queued"] is True and "would exceed" not in tool_result["content"]

    wait_for(lambda: new in th.entries("MEMORY.md"), CHILD_WAIT, "the queued entry")
    assert th.entries("MEMORY.md") == kept + [new]  # the duplicate went, nothing else did
    assert len(th.read("MEMORY.md")) <= 300
    [record] = [c for c in th.children() if c["kind"] == "consolidate"]
    assert record["ok"] is True and record["mode"] == "agent" and record["command"][:2] == ["hermes", "-z"]
    child_requests = [r for r in stub.model_requests() if r["rule"] == 0]
    assert len(child_requests) == 1 and tool_names(child_requests[0]) == CHILD_TOOLS
    assert "consolidated global: 91% — 274/300 chars" in th.log_text()
    # the runner removes the queue file just after the add (a re-add after a crash is a no-op)
    wait_for(lambda: not list((th.state / "overflow" / "pending").glob("*.json")), 10, "the queue file to go")
    assert not (th.state / "overflow" / "failed").exists()


# --------------------------------------------------------------------------
# 4. slash commands through Hermes's own plugin command registry
# --------------------------------------------------------------------------

COMMANDS_SCRIPT = r"""
import json, sys
from hermes_cli.plugins import discover_plugins, get_plugin_command_handler, get_plugin_commands
discover_plugins()
out = {"registered": sorted(n for n, c in get_plugin_commands().items() if c["plugin"] == "tacit")}
for name, arg in json.loads(sys.argv[1]):
    out[name + " " + arg] = get_plugin_command_handler(name)(arg)
print(json.dumps(out))
"""


def run_commands(th: TacitInHermes, calls: list[tuple[str, str]], env_extra=None) -> dict:
    proc = th.run_host("hermes-python", [str(th.hermes.python), "-c", COMMANDS_SCRIPT, json.dumps(calls)],
                    th.hermes.env({**TACIT_ENV, **(env_extra or {})}), cwd=th.hermes.project, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_slash_commands_and_skill_index(stub, tacit_hermes, tmp_path):
    th = tacit_hermes
    th.install()
    th.memories.mkdir(parents=True, exist_ok=True)
    (th.memories / "MEMORY.md").write_text("CMD-ONE uses pnpm for installs\n§\nCMD-ONE uses pnpm for installs."
                                           "\n§\nCMD-TWO tabs, not spaces")
    body = tmp_path / "body.md"
    body.write_text("## Procedure\n1. make build\n2. make ship\n")
    created = th.tacit_json("skill", "create", "--scope", "global", "--name", "deploy-steps", "--description",
                            "How to deploy the app to staging", "--body-file", str(body),
                            env_extra={"TACIT_HOST": "hermes"})
    assert created["success"], created
    assert (th.home / "skills" / "tacit" / "deploy-steps" / "SKILL.md").exists()  # through the link

    out = run_commands(th, [("memory-skills", ""), ("memory-consolidate", "force"),
                            ("memory-teach", "--user TEACH-ME prefers short answers"), ("memory-show", "")],
                       env_extra={"TACIT_CHILD_ENABLED": "0"})  # deterministic merge, no model needed
    assert out["registered"] == ["memory-consolidate", "memory-forget", "memory-review", "memory-show",
                                 "memory-skills", "memory-teach"]
    skills = out["memory-skills "]
    assert skills.startswith(f"Skills in {th.state / 'skills'} (1):")
    assert "- deploy-steps (v" in skills and "How to deploy the app to staging" in skills
    consolidate = out["memory-consolidate force"]  # 3 short entries are not near the limit: forced
    assert consolidate.startswith("Memory consolidation:") and "(deterministic, 1 merged)" in consolidate
    assert "- user: skipped (empty)" in consolidate
    assert th.entries("MEMORY.md") == ["CMD-ONE uses pnpm for installs", "CMD-TWO tabs, not spaces"]
    assert out["memory-teach --user TEACH-ME prefers short answers"].startswith("Taught taught-")
    assert th.entries("USER.md") == ["TEACH-ME prefers short answers"]
    key = out["memory-teach --user TEACH-ME prefers short answers"].split()[1].rstrip(":")
    assert key in out["memory-show "]
    forgot = run_commands(th, [("memory-forget", key)])
    assert forgot[f"memory-forget {key}"].startswith(f"Forgot {key} and removed it from USER.md")
    assert th.entries("USER.md") == []

    # Hermes indexes the skill tacit wrote: tacit injects no index of its own
    th.oneshot("hi")
    request = stub.model_requests()[-1]
    assert "deploy-steps: How to deploy the app to staging" in system_prompt(request)
    assert said([m for m in request["body"]["messages"] if m["role"] == "user"][-1]["content"]) == "hi"


# --------------------------------------------------------------------------
# 5. Hermes's memory tool and tacit writing at the same time
# --------------------------------------------------------------------------

def test_concurrent_hermes_memory_tool_and_tacit_cli_lose_nothing(stub, tacit_hermes):
    th = tacit_hermes
    th.hermes.write_config(memory={"memory_char_limit": 20000})
    th.install()
    hermes_entries = [f"HERMES-FACT-{i}: written by the memory tool" for i in range(8)]
    stub.set_script([
        # a delay, so tacit's writers are already busy when the tool calls arrive
        {"match": "^save the facts$", "times": 1, "delay": 1.0, "tool_calls": [
            {"name": "memory", "input": {"action": "add", "target": "memory", "content": e}}
            for e in hermes_entries]},
    ], default="OK")

    done = threading.Event()
    results: list[tuple[str, int, float, float]] = []
    lock = threading.Lock()
    counter = iter(range(10_000))

    env = th.hermes.env({"TACIT_HOST": "hermes", "TACIT_MEMORY_CHAR_LIMIT": "20000"})

    def writer() -> None:
        # plain subprocesses (not run_host): dozens of runs would flood the timing summary
        while not done.is_set() or len(results) < 12:
            n = next(counter)
            text = f"TACIT-FACT-{n}: written by tacit memory add"
            started = time.time()
            proc = subprocess.run([str(th.tacit_bin), "memory", "add", "--scope", "global", text], env=env, capture_output=True,
                                  text=True, timeout=60, cwd=th.hermes.project)
            with lock:
                results.append((text, proc.returncode, started, time.time()))

    threads = [threading.Thread(target=writer) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        th.oneshot("save the facts")
    finally:
        done.set()
        for t in threads:
            t.join(timeout=120)

    assert all(code == 0 for _text, code, _s, _e in results), results
    entries = th.entries("MEMORY.md")
    missing = [e for e in hermes_entries + [r[0] for r in results] if e not in entries]
    assert missing == [], f"lost {len(missing)} of {len(entries)}: {missing}"
    assert len(entries) == len(hermes_entries) + len(results)  # and no duplicates
    # the writers really overlapped the window in which Hermes ran its memory tool calls
    calls, after = stub.model_requests()[:2]
    overlapping = [r for r in results if r[2] < after["time"] and r[3] > calls["time"]]
    assert overlapping, "no tacit add ran while Hermes executed its memory tool calls"
    tool_results = [m for m in after["body"]["messages"] if m["role"] == "tool"]
    assert len(tool_results) == 8 and all(json.loads(m["content"])["success"] for m in tool_results)


# --------------------------------------------------------------------------
# 6. a broken tacit never breaks a Hermes turn
# --------------------------------------------------------------------------

def test_broken_data_folder_never_breaks_the_turn(stub, tacit_hermes):
    th = tacit_hermes
    th.install()
    stub.set_script([
        {"match": "^I told you, run it with pnpm$", "times": 1, "tool_calls": [
            {"name": "terminal", "input": {"command": "echo ran-it"}}]},
        {"match": "ran-it", "reply": "done"},
    ], default="OK")
    # tacit's ledger is a folder: no event can be applied inside the hooks
    ledger = th.state / "ledger.db"
    shutil.rmtree(th.state, ignore_errors=True)
    ledger.mkdir(parents=True)
    proc = th.oneshot("I told you, run it with pnpm")
    reply, _, told = proc.stdout.strip().partition("\n")
    assert reply == "done"  # the turn is answered; tacit says under it what is wrong (issue 21)
    assert "tacit cannot use its data folder" in told and "tacit doctor" in told
    log = th.log_text()
    assert "ERROR" in log and "dispatch" in log and "ledger" in log  # logged, not raised

    # the whole state folder is a file: nothing of tacit can even log; Hermes still answers
    shutil.rmtree(th.state)
    th.state.write_text("not a folder either")
    proc = th.oneshot("I told you, run it with pnpm")
    assert proc.stdout.strip() == "OK"
    assert len(stub.model_requests()) == 3


def test_hermes_z_shows_what_tacit_noted_under_the_reply(stub, tacit_hermes):
    """Issue 22: in ``hermes -z`` the statement tacit noted is told in the run's output."""
    th = tacit_hermes
    th.install()
    stub.set_script([{"match": "^we use yarn here$", "reply": "OK, yarn."}], default="Saved.")
    proc = th.oneshot("we use yarn here")
    shown = proc.stdout + proc.stderr
    assert "Noted (fact): This project uses yarn." in shown, shown[-3000:]
    assert proc.stdout.strip().startswith("OK, yarn.")


def test_hermes_z_after_hand_edits_reads_what_is_valid_and_tells_what_it_skipped(stub, tacit_hermes):
    """Hand edits between sessions to what tacit (not Hermes) shows: the project's MEMORY.md with bytes that
    are not UTF-8 and a project skill whose frontmatter no longer parses. ``hermes -z`` gets the valid
    entries and skills, and the run's output says what was skipped; neither file is rewritten."""
    th = tacit_hermes
    th.install()
    th.tacit("memory", "add", "MEM-KEEP builds with make")
    for name in ("deploy-web", "run-tests"):
        th.tacit("skill", "create", "--name", name, "--description", f"SKILL-{name} procedure")
    memory_md = next(th.state.glob("projects/*/MEMORY.md"))
    broken = memory_md.parent / "skills" / "run-tests" / "SKILL.md"
    memory_md.write_bytes(b"MEM-KEEP builds with make\n\xc2\xa7\nMEM-ODD caf\xe9\n")
    broken.write_text("---\nname: run-tests\ndescription: [unclosed\n---\n\nmy edit\n")
    stub.set_script([], default="OK")
    proc = th.oneshot("hello")
    sent = json.dumps(stub.model_requests()[0]["body"], ensure_ascii=False)
    assert all(t in sent for t in ("MEM-KEEP", "MEM-ODD caf\ufffd", "SKILL-deploy-web")), sent[-3000:]
    assert "SKILL-run-tests" not in sent
    shown = proc.stdout + proc.stderr
    assert "MEMORY.md is not valid UTF-8 (bad byte at offset 40)" in shown, shown[-3000:]
    assert "tacit left 1 skill file(s) it could not read out of the skill index" in shown, shown[-3000:]
    assert memory_md.read_bytes() == b"MEM-KEEP builds with make\n\xc2\xa7\nMEM-ODD caf\xe9\n"


def test_hermes_z_forget_removes_every_scope_and_says_so_and_a_miss_says_nothing_was_removed(stub, tacit_hermes):
    th = tacit_hermes
    th.install()
    th.tacit("memory", "add", "We use yarn here.")
    th.tacit("memory", "add", "--scope", "global", "We use yarn in every project.")
    th.tacit("memory", "add", "--scope", "global", "KEEP-ME the shell is zsh")
    stub.set_script([], default="OK")
    proc = th.oneshot("forget that we use yarn")
    shown = proc.stdout + proc.stderr
    assert 'Forgot "we use yarn": removed 1 from global memory' in shown and "1 from project memory" in shown, shown
    assert th.entries("MEMORY.md") == ["KEEP-ME the shell is zsh"]
    assert "yarn" not in next(th.state.glob("projects/*/MEMORY.md")).read_text(encoding="utf-8")
    proc = th.oneshot("forget that we use bazel")
    shown = proc.stdout + proc.stderr
    assert 'Nothing removed: no memory entry says "we use bazel"' in shown, shown[-2000:]
    assert "Forgot" not in shown and "forgotten" not in shown.lower()


def test_hermes_memory_tool_edit_to_a_file_tacit_never_wrote_is_in_the_history_and_undoable(stub, tacit_hermes):
    """Hermes's MEMORY.md existed before tacit: the agent's own ``memory`` add is one history row
    by the agent in that session on hermes, found by ``tacit memory why`` and undone by ``undo``."""
    th = tacit_hermes
    th.memories.mkdir(parents=True, exist_ok=True)
    (th.memories / "MEMORY.md").write_text("OLD-FACT the build uses make", encoding="utf-8")
    th.install()
    stub.set_script([{"match": "^remember the port$", "times": 1, "tool_calls": [
        {"name": "memory", "input": {"action": "add", "target": "memory", "content": "NEW-FACT the port is 8123"}}]},
    ], default="Saved.")
    th.oneshot("remember the port")
    assert th.entries("MEMORY.md") == ["OLD-FACT the build uses make", "NEW-FACT the port is 8123"]
    changes = th.tacit_json("memory", "log")["changes"]
    assert len(changes) == 1, changes
    change = changes[0]
    assert change["actor_kind"] == "agent" and change["host"] == "hermes" and change["session_id"], change
    assert change["actor"].startswith("the agent in session ") and change["actor"].endswith(" on hermes")
    assert change["before"] == ["OLD-FACT the build uses make"] and change["added"] == ["NEW-FACT the port is 8123"]
    why = th.tacit_json("memory", "why", "NEW-FACT")
    assert [c["id"] for c in why["entries"][0]["changes"]] == [change["id"]], why
    assert th.tacit_json("memory", "undo", str(change["id"]))["success"]
    assert th.entries("MEMORY.md") == ["OLD-FACT the build uses make"]
