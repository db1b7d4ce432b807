"""tacit inside the real Codex CLI (0.171.0), offline.

Two parts:

1. ``TestResponsesStub`` (no host, fast): the stub's ``POST /v1/responses``
   branch, which Codex needs (it no longer speaks chat completions).
2. Proofs with the real ``codex`` (marker ``e2e``). Every test installs tacit
   the way a user does (``tacit install codex`` into an isolated HOME), trusts
   the new hooks the way ``/hooks`` does (through Codex's own app-server:
   ``CodexRunner.trust_hooks``), then runs a plain ``codex exec`` against the
   scripted model server and asserts on real effects:

   - untrusted hooks do not run; once trusted, a memory entry written
     beforehand is in the first model request (as a developer message);
   - a correction ("no, use pnpm instead of npm", the second turn of a
     resumed session) → hooks → a detached child ``codex exec`` scripted to
     run ``tacit memory add`` → USER.md; the child fires no hooks; the next
     session's first request carries the entry;
   - the agent's own ``tacit memory add`` works under Codex's read-only
     sandbox thanks to the installed ``rules/tacit.rules``;
   - a broken tacit never breaks the session;
   - install is idempotent and uninstall removes exactly what install added,
     in user and project scope (project hooks only load in a trusted project).

The ``stub`` fixture fails any test in which something tried to leave
127.0.0.1 through the proxy.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from codex_rig import codex_binary, run_codex  # noqa: F401  (fixtures)
from e2e_helpers import TacitOnHost, post, read_jsonl, sse_json, tree_digest, wait_for

E2E_DIR = Path(__file__).resolve().parent
PROBE_HOOK = E2E_DIR / "fixtures" / "claude_probe" / "dump_hook.py"
CHILD_DEADLINE = 60  # seconds for a detached child agent to finish
TACIT_EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "PreCompact", "SessionEnd"]
e2e = pytest.mark.e2e


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

def input_text(item: dict) -> str:
    content = item.get("content")
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def developer_texts(request: dict) -> list[str]:
    return [input_text(i) for i in request["body"]["input"] if i.get("role") == "developer"]


def tacit_cli() -> str:
    from tacit.commandline import tacit_display

    return tacit_display()


class TacitCodex(TacitOnHost):
    """``run_codex`` plus a tacit data folder, the CLI and the child log."""

    host = "codex"

    def __init__(self, run_codex, stub, tmp_path: Path):  # noqa: F811
        super().__init__(run_codex, stub, tmp_path)
        self.codex = run_codex

    def exec(self, text: str, *args: str, **kw):
        return self.run_ok(self.codex.exec, text, *args, **kw)

    def resume(self, text: str, *args: str, **kw):
        return self.run_ok(self.codex.resume, text, *args, **kw)

    def trust(self, contains: str = "") -> list[str]:
        return self.codex.trust_hooks(contains)

    def add_probe_hooks(self, *events: str) -> None:
        """User hooks (after tacit's) that log every event they see: a witness
        independent of tacit's own hooks."""
        doc = json.loads(self.codex.hooks_path.read_text())
        for event in events:
            doc["hooks"].setdefault(event, []).append(
                {"hooks": [{"type": "command", "timeout": 10, "command": f"python3 {PROBE_HOOK} {event}"}]})
        self.codex.hooks_path.write_text(json.dumps(doc, indent=2) + "\n")


@pytest.fixture
def tx(run_codex, stub, tmp_path) -> TacitCodex:  # noqa: F811
    return TacitCodex(run_codex, stub, tmp_path)


@pytest.fixture
def installed(tx) -> TacitCodex:
    result = tx.install()
    assert result["success"], result
    assert len(tx.trust("tacit.hosts.hook_client")) == len(TACIT_EVENTS)
    return tx


# --------------------------------------------------------------------------
# 1. the stub's Responses API branch
# --------------------------------------------------------------------------

def responses_body(items: list, stream: bool = True, **extra) -> dict:
    return {"model": "stub-model", "stream": stream, "input": items, **extra}


def user_item(text: str, role: str = "user") -> dict:
    return {"type": "message", "role": role, "content": [{"type": "input_text", "text": text}]}


class TestResponsesStub:
    def test_stream_text(self, stub):
        stub.set_script([{"match": "^hello$", "reply": "Hi from the Responses side of the stub."}])
        status, body = post(f"{stub.url}/v1/responses", responses_body([user_item("<env/>"), user_item("hello")]))
        assert status == 200
        events = sse_json(body)
        names = [name for name, _ in events]
        assert names[0] == "response.created" and names[-1] == "response.completed"
        assert all(name == data["type"] for name, data in events)
        text = "".join(d["delta"] for n, d in events if n == "response.output_text.delta")
        assert text == "Hi from the Responses side of the stub."
        [done] = [d["item"] for n, d in events if n == "response.output_item.done"]
        assert done["type"] == "message" and done["role"] == "assistant"
        assert done["content"] == [{"type": "output_text", "text": text, "annotations": []}]
        completed = events[-1][1]["response"]
        assert completed["id"].startswith("resp_") and completed["usage"]["output_tokens"] > 0
        assert completed["usage"]["total_tokens"] == (completed["usage"]["input_tokens"]
                                                      + completed["usage"]["output_tokens"])
        [record] = stub.model_requests()
        assert record["protocol"] == "responses" and record["rule"] == 0 and record["stream"] is True

    def test_stream_function_calls(self, stub):
        stub.set_script([{"match": "go", "tool_calls": [
            {"name": "exec_command", "input": {"cmd": "echo a"}},
            {"name": "exec_command", "input": {"cmd": "x" * 70}}]}])
        _, body = post(f"{stub.url}/v1/responses", responses_body([user_item("go")]))
        events = sse_json(body)
        calls = [d["item"] for n, d in events if n == "response.output_item.done"]
        assert [c["type"] for c in calls] == ["function_call", "function_call"]
        assert json.loads(calls[1]["arguments"]) == {"cmd": "x" * 70}
        assert all(c["call_id"].startswith("call_") and c["name"] == "exec_command" for c in calls)
        # the arguments also stream as deltas that reassemble
        pieces = "".join(d["delta"] for n, d in events
                         if n == "response.function_call_arguments.delta" and d["output_index"] == 1)
        assert pieces == calls[1]["arguments"]
        assert stub.model_requests()[0]["response"]["stop_reason"] == "function_call"

    def test_non_stream_and_match_over_tool_outputs(self, stub):
        stub.set_script([
            {"match": "OUT-ONE[\\s\\S]*OUT-TWO", "reply": "saw both outputs"},
            {"match_system": "DEV-MARK", "reply": "saw developer text"},
        ], default="plain")
        items = [user_item("run"),
                 {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c1"},
                 {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c2"},
                 user_item("hook context", role="developer"),
                 {"type": "function_call_output", "call_id": "c1", "output": "OUT-ONE"},
                 user_item("hook context", role="developer"),
                 {"type": "function_call_output", "call_id": "c2", "output": "OUT-TWO"}]
        _, body = post(f"{stub.url}/v1/responses", responses_body(items, stream=False))
        response = json.loads(body)
        assert response["output"][0]["content"][0]["text"] == "saw both outputs"
        assert response["status"] == "completed" and response["usage"]["input_tokens"] > 0
        _, body = post(f"{stub.url}/v1/responses",
                       responses_body([user_item("DEV-MARK here", role="developer"), user_item("x")], stream=False))
        assert json.loads(body)["output"][0]["content"][0]["text"] == "saw developer text"
        _, body = post(f"{stub.url}/v1/responses",
                       responses_body([user_item("y")], stream=False, instructions="nothing special"))
        assert json.loads(body)["output"][0]["content"][0]["text"] == "plain"
        assert [r["rule"] for r in stub.requests()] == [0, 1, "default"]


# --------------------------------------------------------------------------
# 2. the real codex
# --------------------------------------------------------------------------

@e2e
def test_memory_entry_reaches_the_first_request_once_hooks_are_trusted(tx):
    tx.tacit("memory", "add", "MEM-SENTINEL-4711: this project builds with `make all`")
    tx.tacit("memory", "add", "--target", "user", "USER-SENTINEL-0815: prefers short answers")
    body = "## When to Use\nx\n\n## Procedure\n1. y\n\n## Pitfalls\nz\n\n## Verification\nw\n"
    tx.tacit("skill", "create", "--name", "release-notes", "--description", "SKILL-SENTINEL write release notes",
             "--body-file", "-", input=body)
    result = tx.install()
    assert result["success"] and result["needs_trust"] is True
    assert result["untrusted_events"] == TACIT_EVENTS and "/hooks" in result["message"]

    # Codex lists the hooks but does not run them until the user trusts them
    listed = [h for h in tx.codex.hooks_list()["hooks"] if "tacit.hosts.hook_client" in h["command"]]
    assert sorted(h["eventName"] for h in listed) == sorted(
        ["sessionStart", "userPromptSubmit", "preToolUse", "postToolUse", "stop", "preCompact", "sessionEnd"])
    assert {h["trustStatus"] for h in listed} == {"untrusted"}
    assert {h["timeoutSec"] for h in listed if h["eventName"] == "postToolUse"} == {5}
    _, reply = tx.exec("hello")
    assert reply == "OK"
    assert not any("MEM-SENTINEL" in t for t in developer_texts(tx.stub.model_requests()[0]))
    assert tx.session_ids() == set()

    # trusted (what /hooks does): installing again changes nothing and sees the trust
    assert len(tx.trust("tacit.hosts.hook_client")) == len(TACIT_EVENTS)
    again = tx.install()
    assert again["changed"] == [] and again["needs_trust"] is False
    n = len(tx.stub.model_requests())
    proc, reply = tx.exec("hello")  # a plain run: no flags
    assert reply == "OK"
    first = tx.stub.model_requests()[n]
    [context] = [t for t in developer_texts(first) if "MEM-SENTINEL-4711" in t]
    positions = [context.index(s) for s in ("USER-SENTINEL-0815", "MEM-SENTINEL-4711",
                                            "tacit memory add", "SKILL-SENTINEL")]
    assert positions == sorted(positions)
    # the context comes before the prompt, as its own developer message
    items = first["body"]["input"]
    context_at = next(i for i, item in enumerate(items) if "MEM-SENTINEL-4711" in input_text(item))
    prompt_at = next(i for i, item in enumerate(items) if input_text(item) == "hello")
    assert context_at < prompt_at and len(context) <= 10_000
    assert "hook: SessionStart Completed" in proc.stderr


@e2e
def test_correction_reaches_user_md_through_a_hookless_child(installed):
    tx = installed
    tx.add_probe_hooks("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")
    tx.trust()  # the probe hooks too
    entry = "Use pnpm, not npm, to manage packages in this project."
    save = f'{tacit_cli()} memory add --target user "{entry}"'
    tx.stub.set_script([
        # the correction-save child (recognised by its prompt), first request: save
        {"match_body": "memory keeper, running in the background", "times": 1,
         "tool_calls": [{"name": "exec_command", "input": {"cmd": save}}]},
        {"match_body": "memory keeper, running in the background", "reply": "Saved the pnpm preference."},
        # the user's session: turn 1 runs npm, turn 2 (resumed) is the correction
        {"match": "^set up the project$", "times": 1,
         "tool_calls": [{"name": "exec_command", "input": {"cmd": "echo npm-install-done"}}]},
        {"match": "npm-install-done", "times": 1, "reply": "I ran npm install."},
        {"match": "^no, use pnpm instead of npm$", "reply": "Understood, pnpm from now on."},
    ])
    _, reply = tx.exec("set up the project")
    assert reply == "I ran npm install."
    _, reply = tx.resume("no, use pnpm instead of npm")
    assert reply == "Understood, pnpm from now on."
    probes = read_jsonl(tx.probe_log)
    parent_session = probes[0]["payload"]["session_id"]

    user_md = tx.cfg().user_file
    wait_for(lambda: user_md.exists() and entry in user_md.read_text(), CHILD_DEADLINE, what="the entry in USER.md")
    [record] = wait_for(lambda: tx.children("correction"), CHILD_DEADLINE, what="the correction child's log record")
    assert record["ok"] and record["mode"] == "agent" and record["exit"] == 0, record
    assert record["command"][:2] == ["codex", "exec"] and "--ephemeral" in record["command"]
    assert record["command"][record["command"].index("--disable") + 1] == "hooks"
    assert record["usage"]["usage"]["output_tokens"] > 0  # from the --json turn.completed line

    # the child really was a codex exec: its requests carry the job and the tool result
    first_child, second_child = [r for r in tx.stub.model_requests()
                                 if "memory keeper, running in the background" in json.dumps(r["body"])]
    assert "no, use pnpm instead of npm" in json.dumps(first_child["body"]["input"])
    assert "Entry added" in json.dumps(second_child["body"]["input"][-1])
    # ... with no hooks: every probe record is the parent's (two runs: startup, resume)
    probes = read_jsonl(tx.probe_log)
    assert {p["payload"]["session_id"] for p in probes} == {parent_session}
    assert [p["payload"]["source"] for p in probes if p["event"] == "SessionStart"] == ["startup", "resume"]
    assert not any("MEM-" in t or "tacit memory add" in t for t in developer_texts(first_child))
    assert tx.session_ids() == {parent_session}

    # a second session starts with the lesson
    n = len(tx.stub.model_requests())
    tx.exec("which package manager do we use?")
    assert any(entry in t for t in developer_texts(tx.stub.model_requests()[n]))
    assert tx.stub.refused_proxy() == []


@e2e
def test_agent_saves_under_the_read_only_sandbox_through_the_rules_file(installed):
    tx = installed
    entry = "Release builds need `make dist`."
    tx.stub.set_script([
        {"match": "^remember the release step$", "times": 1,
         # single quotes: a backtick or $( inside double quotes is a substitution, which
         # Codex never matches against a rule (so that form stays sandboxed)
         "tool_calls": [{"name": "exec_command", "input": {"cmd": f"{tacit_cli()} memory add '{entry}'"}}]},
        {"match": "Entry added", "times": 1, "reply": "Saved."},
        {"match": "^try without the rule$", "times": 1,
         "tool_calls": [{"name": "exec_command", "input": {"cmd": f'{tacit_cli()} memory add "never saved"'}}]},
    ])
    _, reply = tx.exec("remember the release step")  # codex exec's default sandbox: read-only
    assert reply == "Saved."
    assert entry in tx.project_memory_file().read_text()  # the agent works in the project: its memory
    # credited to the agent in the session that ran it (Codex names its thread in the command's
    # environment), not to "you (tacit CLI)"
    change = json.loads(tx.tacit("memory", "log", "--json").stdout)["changes"][-1]
    assert (change["actor_kind"], change["host"], change["text"]) == ("agent", "codex", entry)
    assert change["session_id"] in tx.session_ids()
    # the control: without tacit's rules the same command hits the read-only sandbox
    n = len(tx.stub.model_requests())
    proc, _ = tx.exec("try without the rule", "--ignore-rules")
    assert "never saved" not in tx.project_memory_file().read_text()
    # the agent's tool result is in one of the requests since n (a same-day review child of the
    # first run may send its own request in between, so not necessarily the last one)
    said = (proc.stdout + json.dumps([r["body"].get("input", [])[-1:] for r in tx.stub.model_requests()[n:]])).lower()
    assert "read-only file system" in said or "the file system is read-only" in said


@e2e
@pytest.mark.parametrize("breakage", ["home-is-a-file", "corrupt-ledger", "run-is-a-file"])
def test_a_broken_tacit_never_breaks_the_session(installed, breakage):
    tx = installed
    extra = {}
    run = tx.exec
    if breakage == "home-is-a-file":
        broken = tx.home.parent / "not-a-folder"
        broken.write_text("x")
        extra["TACIT_HOME"] = str(broken)
    elif breakage == "corrupt-ledger":
        tx.home.mkdir(parents=True, exist_ok=True)
        (tx.home / "ledger.db").write_bytes(b"this is not an SQLite database" * 100)
        (tx.home / "config.toml").write_text("nudge_interval = [broken\n")
        (tx.home / "memories").mkdir(exist_ok=True)
        (tx.home / "memories" / "MEMORY.md").write_bytes(b"\xff\xfe not utf-8")
    else:  # no service can start: every hook runs the engine in-process
        tx.home.mkdir(parents=True, exist_ok=True)
        (tx.home / "run").write_text("a file where a folder should be")
    # not a correction: no child agent may outlive this test and the stub
    tx.stub.set_script([{"match": "^two tools$", "times": 1, "tool_calls": [
        {"name": "exec_command", "input": {"cmd": "echo one-out"}},
        {"name": "exec_command", "input": {"cmd": "echo three-out; exit 3"}}]},
        {"match": "three-out", "reply": "both ran"}])
    proc, reply = run("two tools", env_extra=extra)
    assert reply == "both ran", proc.stderr[-2000:]
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"):
        assert f"hook: {event} Completed" in proc.stderr
    assert "Traceback" not in proc.stderr and "Failed" not in proc.stderr
    if breakage in ("corrupt-ledger", "run-is-a-file"):
        # a valid state; a failing command counts as a call (no exit code in the payload)
        [session_id] = tx.session_ids()
        state = tx.session_state(session_id)
        assert state["user_turns"] == 1 and state["turn"]["tool_calls"] == [["Bash", True], ["Bash", True]]
    if breakage == "corrupt-ledger":
        assert list(tx.home.glob("ledger.db.corrupt-*"))
    assert tx.children() == []


@e2e
def test_install_user_scope_idempotent_and_uninstall_exact(tx):
    codex = tx.codex
    # the user's own hooks and config, before tacit
    mine = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "timeout": 3}]}]}}
    codex.hooks_path.write_text(json.dumps(mine, indent=2) + "\n")
    before = tree_digest(codex.codex_dir)
    config_before = codex.config_path.read_text()

    first = tx.install()
    assert first["success"] and sorted(first["changed"]) == ["config.toml", "hooks.json", "rules/tacit.rules"]
    doc = json.loads(codex.hooks_path.read_text())
    assert doc["hooks"]["Stop"][0] == mine["hooks"]["Stop"][0]  # the user's group stays first
    config = tomllib.loads(codex.config_path.read_text())
    assert config["features"] == {"plugins": False, "hooks": True}
    snapshot = tree_digest(codex.codex_dir)
    second = tx.install()
    assert second["changed"] == [] and tree_digest(codex.codex_dir) == snapshot

    removed = tx.uninstall()
    assert removed["success"]
    assert tree_digest(codex.codex_dir) == before  # byte for byte (no codex ran in between)
    assert codex.config_path.read_text() == config_before
    assert tx.uninstall()["message"].startswith("tacit is not installed")

    # Codex accepts what tacit wrote: no warning, no error, every event listed
    tx.install()
    listed = codex.hooks_list()
    assert listed["errors"] == [] and listed["warnings"] == []
    assert len([h for h in listed["hooks"] if "tacit.hosts.hook_client" in h["command"]]) == len(TACIT_EVENTS)
    # after a real session and the user's trust, uninstall still removes only tacit's part
    tx.trust()
    tx.exec("hello")
    tx.uninstall()
    assert json.loads(codex.hooks_path.read_text()) == mine
    after = tomllib.loads(codex.config_path.read_text())
    assert after.get("features") == {"plugins": False}
    assert not (codex.codex_dir / "rules" / "tacit.rules").exists()
    assert not (codex.codex_dir / "tacit-install.json").exists()
    # what Codex itself wrote (trust for the hooks) is Codex's to keep
    assert any(key.endswith(":stop:0:0") for key in after["hooks"]["state"])


@e2e
def test_install_project_scope_needs_a_trusted_project_and_uninstalls_cleanly(tx):
    codex = tx.codex
    project = codex.project
    (project / "README.md").write_text("a project\n")
    before = tree_digest(project)
    result = tx.install("--scope", "project", "--project-dir", str(project))
    assert result["success"] and result["project_trusted"] is False
    assert (project / ".codex" / "hooks.json").exists()
    assert not [h for h in codex.hooks_list()["hooks"] if "tacit" in h["command"]]  # untrusted project: not read

    with codex.config_path.open("a") as fh:  # what accepting Codex's project trust prompt writes
        fh.write(f'\n[projects.{json.dumps(str(project))}]\ntrust_level = "trusted"\n')
    assert tx.install("--scope", "project", "--project-dir", str(project))["project_trusted"] is True
    listed = [h for h in codex.hooks_list()["hooks"] if "tacit.hosts.hook_client" in h["command"]]
    assert len(listed) == len(TACIT_EVENTS) and {h["source"] for h in listed} == {"project"}
    assert {h["trustStatus"] for h in listed} == {"untrusted"}
    tx.trust("tacit.hosts.hook_client")
    tx.tacit("memory", "add", "PROJECT-SCOPE-SENTINEL")
    n = len(tx.stub.model_requests())
    tx.exec("hello")
    assert any("PROJECT-SCOPE-SENTINEL" in t for t in developer_texts(tx.stub.model_requests()[n]))

    assert tx.uninstall("--scope", "project", "--project-dir", str(project))["success"]
    assert tree_digest(project) == before


def test_codex_exec_shows_what_tacit_noted_in_its_transcript(installed):
    """Issue 22: ``codex exec`` shows no hook ``systemMessage``; tacit's notice is written
    to the run's stderr, where codex exec reports its hooks; stdout stays the reply."""
    tx = installed
    tx.stub.set_script([{"match": "^we use yarn here$", "reply": "OK, yarn."}], default="Saved.")
    proc, last = tx.exec("we use yarn here")
    assert last == "OK, yarn."
    assert "tacit: Noted (fact): This project uses yarn." in proc.stderr, proc.stderr[-3000:]
    assert "tacit:" not in proc.stdout


@e2e
def test_a_memory_command_typed_in_codex_is_answered_without_a_model_turn(installed):
    """Codex 0.171.0 rejected the answer Claude Code gets (its ``suppressOriginalPrompt``): the hook
    "Failed" and the prompt went to the model after the command had run. Now: blocked, answered on
    stderr, no model request."""
    tx = installed
    tx.tacit("memory", "add", "CMD-FACT the API runs on port 8080")
    tx.stub.set_script([], default="the model should not be asked")
    proc, last = tx.exec("/memory-show")
    assert "hook: UserPromptSubmit Blocked" in proc.stderr, proc.stderr[-3000:]
    assert "tacit:   1. CMD-FACT the API runs on port 8080" in proc.stderr
    assert tx.stub.model_requests() == [] and last == ""


def test_codex_exec_after_hand_edits_reads_what_is_valid_and_tells_what_it_skipped(installed):
    """Hand edits between sessions (the project's MEMORY.md with bytes that are not UTF-8, a skill whose
    frontmatter no longer parses): the valid entries and skills reach the model, stderr says the rest."""
    tx = installed
    memory_md, broken = tx.hand_edited()
    tx.stub.set_script([], default="OK")
    proc, last = tx.exec("hello")
    assert last == "OK"
    sent = " ".join(developer_texts(tx.stub.model_requests()[0]))
    assert all(t in sent for t in ("MEM-KEEP", "MEM-ODD caf\ufffd", "SKILL-deploy-web")), sent[-3000:]
    assert "SKILL-run-tests" not in sent
    assert f"{memory_md} is not valid UTF-8 (bad byte at offset 40)" in proc.stderr, proc.stderr[-3000:]
    assert f"tacit left 1 skill file(s) it could not read out of the skill index: {broken}" in proc.stderr
    assert memory_md.read_bytes() == tx.HAND_EDITED_MEMORY
