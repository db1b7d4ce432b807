"""tacit inside the real Claude Code CLI (2.1.197), offline.

Every test installs tacit the way a user does (``tacit install claude-code``
into an isolated HOME) and then runs a *plain* ``claude -p`` against the
scripted model server — so the hooks, the slash commands and the child
agents all go through the real CLI. Assertions are on real effects: the
requests Claude Code sent (the stub's log), files on disk, the child log.

The proofs of issue 4:
1. a memory entry written beforehand is in the first model request;
2. a user correction → hooks → detached child ``claude -p`` (scripted to run
   ``tacit memory add``) → USER.md; the child fires no hooks; the next
   session sees the entry;
3. a turn with ≥ 8 tool calls of ≥ 2 kinds → one skill-extraction child →
   ``skills/<name>/SKILL.md`` that parses; a second long turn fires none;
4. ``/tacit:memory-consolidate`` runs through the real slash-command path;
5. a crashing tacit never breaks the session;
6. nothing leaves 127.0.0.1 (the ``stub`` fixture fails any test whose run
   tried a proxy; checked explicitly after child runs too).
Plus the install path: plain ``claude`` has tacit active after install,
install twice is idempotent, uninstall removes exactly what install added.

Detached children outlive ``claude -p``: tests poll for their results with a
deadline instead of sleeping.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import termios
import time
from pathlib import Path

import pytest
from e2e_helpers import TacitOnHost, message_text, read_jsonl, tree_digest, wait_for

pytestmark = pytest.mark.e2e
E2E_DIR = Path(__file__).resolve().parent
PROBE_HOOK = E2E_DIR / "fixtures" / "claude_probe" / "dump_hook.py"
CHILD_DEADLINE = 90  # seconds for a detached child agent to finish


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

class TacitClaude(TacitOnHost):
    """``run_claude`` plus a tacit data folder, the CLI and the child log."""

    host = "claude-code"

    def __init__(self, run_claude, stub, tmp_path: Path):
        super().__init__(run_claude, stub, tmp_path)
        self.claude = run_claude

    def prompt(self, text: str, *args: str, **kw):
        return self.run_ok(self.claude.prompt, text, *args, **kw)

    def wait_child(self, kind: str, count: int = 1) -> list[dict]:
        return wait_for(lambda: len(self.children(kind)) >= count and self.children(kind), CHILD_DEADLINE,
                        what=f"{count} {kind} child run(s) in children.jsonl")

    def add_probe_hooks(self, *events: str) -> None:
        """Settings hooks that log every event they see (with its session id)
        to ``probe_log`` — a witness independent of tacit's own hooks."""
        settings_path = self.claude.config_dir / "settings.json"
        settings_path.parent.mkdir(parents=True, exist_ok=True)
        settings = json.loads(settings_path.read_text()) if settings_path.exists() else {}
        settings["hooks"] = {event: [{"hooks": [{"type": "command", "timeout": 10,
                                                 "command": f"python3 {PROBE_HOOK} {event}"}]}]
                             for event in events}
        settings_path.write_text(json.dumps(settings, indent=2) + "\n")

    def first_request_context(self, request: dict) -> str:
        """The hook context Claude Code put in a request (the role:"system" entry)."""
        return "\n".join(message_text(m["content"]) for m in request["body"]["messages"] if m["role"] == "system")


@pytest.fixture
def tc(run_claude, stub, tmp_path) -> TacitClaude:
    return TacitClaude(run_claude, stub, tmp_path)


@pytest.fixture
def installed(tc) -> TacitClaude:
    result = tc.install()
    assert result["success"], result
    return tc


def hook_messages(tc) -> list[str]:
    """The hook lines Claude Code showed the user in this project (``systemMessage``:
    the transcripts keep each as a ``hook_system_message`` attachment)."""
    return [r["attachment"]["content"] for path in sorted(tc.claude.transcript_dir().glob("*.jsonl"))
            for r in read_jsonl(path)
            if isinstance(r.get("attachment"), dict) and r["attachment"].get("type") == "hook_system_message"]


def child_requests(stub, marker: str) -> list[dict]:
    return [r for r in stub.model_requests() if marker in json.dumps(r["body"])]


# --------------------------------------------------------------------------
# proofs
# --------------------------------------------------------------------------

def test_memory_entry_is_in_the_first_request(installed):
    tc = installed
    tc.tacit("memory", "add", "MEM-SENTINEL-4711: this project builds with `make all`")
    tc.tacit("memory", "add", "--target", "user", "USER-SENTINEL-0815: prefers short answers")
    body = "## When to Use\nx\n\n## Procedure\n1. y\n\n## Pitfalls\nz\n\n## Verification\nw\n"
    tc.tacit("skill", "create", "--name", "release-notes", "--description", "SKILL-SENTINEL write release notes",
             "--body-file", "-", input=body)
    _, result = tc.prompt("hello")  # a plain run: no --plugin-dir, no --settings
    assert result["result"] == "OK"
    first = tc.stub.model_requests()[0]
    context = tc.first_request_context(first)
    assert context.startswith("SessionStart hook additional context: ")
    # priority order: user profile, memory block, save guidance, skill index
    positions = [context.index(s) for s in ("USER-SENTINEL-0815", "MEM-SENTINEL-4711",
                                            "tacit memory add", "SKILL-SENTINEL")]
    assert positions == sorted(positions)
    assert "SessionStart hook additional context" not in json.dumps(first["body"]["system"])
    # the /tacit:memory-* commands are yours to type: not listed to the model as skills it could call
    assert "tacit:memory-" not in json.dumps(first["body"])


def test_correction_reaches_user_md_through_a_hookless_child(installed):
    tc = installed
    tc.add_probe_hooks("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")
    entry = "Use pnpm, not npm, to manage packages in this project."
    tc.stub.set_script([
        # the correction-save child (recognised by its prompt), first request: save
        {"match_body": "memory keeper, running in the background", "times": 1, "tool_calls": [
            {"name": "Bash", "input": {"command": f'tacit memory add --target user "{entry}"',
                                       "description": "save the correction"}}]},
        {"match_body": "memory keeper, running in the background", "reply": "Saved the pnpm preference."},
        # the user's session: turn 1 runs npm, turn 2 is the correction
        {"match": "^set up the project$", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": "echo npm-install-done", "description": "npm"}}]},
        {"match": "npm-install-done", "times": 1, "reply": "I ran npm install."},
        {"match": "^no, use pnpm instead of npm$", "reply": "Understood, pnpm from now on."},
    ])
    tc.prompt("set up the project", "--allowedTools", "Bash")
    _, result = tc.prompt("no, use pnpm instead of npm", "-c")
    assert result["result"] == "Understood, pnpm from now on."
    parent_session = result["session_id"]

    user_md = tc.cfg().user_file
    wait_for(lambda: user_md.exists() and entry in user_md.read_text(), CHILD_DEADLINE, what="the entry in USER.md")
    [record] = tc.wait_child("correction")
    assert record["ok"] and record["mode"] == "agent" and record["exit"] == 0
    assert record["usage"]["usage"]["output_tokens"] > 0 and "total_cost_usd" in record["usage"]
    assert "--no-session-persistence" in record["command"]
    assert json.loads(record["command"][record["command"].index("--settings") + 1])["disableAllHooks"] is True

    # the child really was a claude -p: its requests, with the child's tools and model
    first_child, second_child = child_requests(tc.stub, "memory keeper, running in the background")
    assert sorted(t["name"] for t in first_child["body"]["tools"]) == ["Bash", "Read"]
    assert first_child["body"]["model"].startswith("claude-haiku")
    assert "no, use pnpm instead of npm" in json.dumps(first_child["body"]["messages"])
    assert "Entry added" in message_text(second_child["body"]["messages"][-1]["content"])
    # ... and it fired no hooks: every probe record belongs to the parent session,
    # whose two runs (start + resume) account for every SessionStart
    probes = read_jsonl(tc.probe_log)
    assert probes and {p["payload"]["session_id"] for p in probes} == {parent_session}
    assert [p["payload"]["source"] for p in probes if p["event"] == "SessionStart"] == ["startup", "resume"]
    assert "SessionStart hook additional context" not in json.dumps(first_child["body"]["messages"])
    assert tc.session_ids() == {parent_session}  # tacit kept no state for the child

    # the user sees what was saved, with its undo, at the session's next prompt
    # (here at the resumed session's start: SessionStart's systemMessage, which stream-json shows
    # as that hook's response)
    tc.stub.set_script([{"match": "^ok$", "reply": "OK"}], default="OK")
    proc, _ = tc.prompt("ok", "-c", "--output-format", "stream-json", "--verbose")
    shown = [json.loads(json.loads(line)["output"])["systemMessage"] for line in proc.stdout.splitlines()
             if '"hook_response"' in line and "systemMessage" in line] + hook_messages(tc)
    seen = [m for m in shown if "tacit saved to your user profile" in m]
    assert seen and "undo: tacit memory undo" in seen[0], proc.stdout[-3000:]
    assert "tacit saved" not in json.dumps(tc.stub.model_requests()[-1]["body"])  # for the user, not the model

    # a second session starts with the lesson
    n = len(tc.stub.model_requests())
    tc.prompt("which package manager do we use?")
    assert entry in tc.first_request_context(tc.stub.model_requests()[n])
    assert tc.stub.refused_proxy() == []


def test_forget_that_removes_the_entry_and_the_next_session_lacks_it(installed):
    tc = installed
    tc.tacit("memory", "add", "--target", "user", "FORGET-ME: prefers tabs over spaces")
    tc.tacit("memory", "add", "--target", "user", "KEEP-ME: answers in English")
    tc.stub.set_script([], default="OK")
    _, result = tc.prompt("forget that I prefer tabs over spaces")
    assert "FORGET-ME" not in tc.cfg().user_file.read_text() and "KEEP-ME" in tc.cfg().user_file.read_text()
    # the line Claude Code shows the user (a hook's systemMessage, kept in the transcript)
    told = hook_messages(tc)
    assert any(m.startswith('Forgot "I prefer tabs over spaces": removed 1 from your user profile')
               and "undo: tacit memory undo" in m for m in told), told
    # the agent was told too, not to rely on it for the rest of the session
    assert "asked tacit to forget" in json.dumps(tc.stub.model_requests()[-1]["body"])
    n = len(tc.stub.model_requests())
    tc.prompt("hello again")
    context = tc.first_request_context(tc.stub.model_requests()[n])
    assert "KEEP-ME" in context and "FORGET-ME" not in context
    # the history says who forgot it and why
    [change] = [c for c in json.loads(tc.tacit("memory", "log", "--json").stdout)["changes"]
                if c["action"] == "forget"]
    assert change["actor"].startswith("you") or "user" in change["actor"], change


def test_long_turn_extracts_one_skill(installed):
    tc = installed
    (tc.claude.project / "a.txt").write_text("alpha\n")
    (tc.claude.project / "b.txt").write_text("beta\n")
    body = ("## When to Use\nWhen the parser needs a refactor.\n\n## Procedure\n1. Read the module.\n"
            "2. Run the steps.\n\n## Pitfalls\nKeep the tests green.\n\n## Verification\nRun the tests.")
    create = ("tacit skill create --name parser-refactor --description \"Refactor the parser module "
              f"step by step\" --body-file - <<'EOF'\n{body}\nEOF")
    project = tc.claude.project

    def round_of(tag_a: str, tag_b: str) -> list[dict]:
        return [{"name": "Bash", "input": {"command": f"echo {tag_a}", "description": tag_a}},
                {"name": "Read", "input": {"file_path": str(project / "a.txt")}},
                {"name": "Bash", "input": {"command": f"echo {tag_b}", "description": tag_b}},
                {"name": "Read", "input": {"file_path": str(project / "b.txt")}}]

    tc.stub.set_script([
        {"match_body": "tacit's skill writer", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": create, "description": "save skill"}}]},
        {"match_body": "tacit's skill writer", "reply": "Created skill parser-refactor."},
        {"match": "^refactor the parser$", "times": 1, "tool_calls": round_of("step-1", "step-2")},
        {"match": "step-2", "times": 1, "tool_calls": round_of("step-3", "step-4")},
        {"match": "step-4", "times": 1, "reply": "Refactored."},
        {"match": "^and the lexer too$", "times": 1, "tool_calls": round_of("lex-1", "lex-2")},
        {"match": "lex-2", "times": 1, "tool_calls": round_of("lex-3", "lex-4")},
        {"match": "lex-4", "times": 1, "reply": "Lexer done."},
    ])
    _, result = tc.prompt("refactor the parser", "--allowedTools", "Bash,Read")
    assert result["result"] == "Refactored."
    [record] = tc.wait_child("skill")
    assert record["ok"], record
    skill_file = tc.project_skills_dir() / "parser-refactor" / "SKILL.md"  # learned in this project: its skill
    assert skill_file.exists()
    view = json.loads(tc.tacit("skill", "view", "parser-refactor", "--json").stdout)
    assert view["success"] and view["name"] == "parser-refactor"
    import frontmatter

    post = frontmatter.loads(skill_file.read_text())
    assert post["name"] == "parser-refactor" and post["description"].startswith("Refactor the parser")
    assert "## Procedure" in post.content and "## Verification" in post.content
    # the child saw the turn it was asked about: all 8 calls, counted across
    # concurrent PostToolUse hooks
    first_child = child_requests(tc.stub, "tacit's skill writer")[0]
    assert "8 tool calls: Bash, Read" in message_text(first_child["body"]["messages"][0]["content"])

    # a second long turn in the same session: extraction fires once per session
    _, result = tc.prompt("and the lexer too", "-c", "--allowedTools", "Bash,Read")
    assert result["result"] == "Lexer done."
    time.sleep(3)  # a child would have been started by the Stop hook already
    assert len(tc.children("skill")) == 1
    assert len([r for r in child_requests(tc.stub, "tacit's skill writer")
                if len(r["body"]["messages"]) == 1]) == 1
    state = tc.session_state(result["session_id"])
    assert state["skill_trigger_fired"] is True and state["user_turns"] == 2


def test_memory_consolidate_slash_command(installed):
    tc = installed
    # a small project memory, so the two entries below fill 84% of it: near the limit
    tc.home.mkdir(parents=True, exist_ok=True)
    (tc.home / "config.toml").write_text("project_char_limit = 85\n")
    tc.tacit("memory", "add", "Deploy with `make deploy`.")
    tc.tacit("memory", "add", "Deploys run `make deploy` (same as above).")
    tc.stub.set_script([
        {"match_body": "too full", "times": 1, "tool_calls": [
            {"name": "Bash", "input": {"command": 'tacit memory remove "same as above"',
                                       "description": "drop the duplicate"}}]},
        {"match_body": "too full", "reply": "Removed one duplicate."},
    ])
    proc, result = tc.prompt("/tacit:memory-consolidate")
    # answered by the hook at once, no model turn; the child works detached
    assert "Consolidating project memory in the background with a child agent" in proc.stdout, proc.stdout
    assert not [r for r in tc.stub.model_requests() if "too full" not in json.dumps(r["body"])]
    [record] = tc.wait_child("consolidate")
    assert record["ok"] and record["mode"] == "agent" and record["session_id"] == result["session_id"]
    assert tc.project_memory_file().read_text() == "Deploy with `make deploy`."
    # the next prompt of the session shows what changed, with its undo
    tc.stub.set_script([{"match": "^thanks$", "reply": "OK"}])
    _, after = tc.prompt("thanks", "-c")
    assert any("tacit memory undo" in m for m in hook_messages(tc)), hook_messages(tc)


def test_memory_slash_commands_cost_no_model_turn(installed):
    """/tacit:memory-* are answered by the UserPromptSubmit hook: the user sees the
    output and the model gets no request (each used to cost a whole turn)."""
    tc = installed
    tc.tacit("memory", "add", "SHOW-ME-1: the project builds with make")
    tc.tacit("memory", "add", "--target", "user", "SHOW-ME-2: prefers short answers")
    tc.stub.set_script([])
    before = len(tc.stub.model_requests())
    proc, result = tc.prompt("/tacit:memory-show")
    shown = json.dumps(result) + proc.stdout
    assert "SHOW-ME-1: the project builds with make" in shown and "SHOW-ME-2" in shown, shown
    assert "Candidates" in shown  # the memory first, then the candidates
    assert "Original prompt" not in shown  # the answer, not an echo of the blocked prompt (issue 22)
    proc, result = tc.prompt("/tacit:memory-skills")
    assert "Skills in " in json.dumps(result) + proc.stdout
    proc, result = tc.prompt("/tacit:memory-consolidate")  # nothing near its limit: says so, no child
    assert "Nothing to consolidate" in json.dumps(result) + proc.stdout
    proc, result = tc.prompt("/tacit:memory-forget SHOW-ME-2")
    assert "Forgot" in json.dumps(result) + proc.stdout
    proc, result = tc.prompt("/tacit:memory-forget")  # the hint names the command as Claude Code lists it
    assert "/tacit:memory-forget we use pnpm" in json.dumps(result) + proc.stdout
    assert "SHOW-ME-2" not in tc.cfg().user_file.read_text()
    # one history row, yours (it used to be credited to "the agent")
    from tacit.stores import history
    from tacit.stores.ledger import Ledger

    with Ledger(tc.cfg()) as ledger:
        forgets = [c for c in history.changes(ledger) if c.action == "forget"]
    assert len(forgets) == 1 and forgets[0].actor.describe() == "you (/memory-forget)", forgets
    assert len(tc.stub.model_requests()) == before  # not one model request
    assert tc.children("consolidate") == []


@pytest.mark.parametrize("breakage", ["home-is-a-file", "corrupt-ledger", "run-is-a-file"])
def test_a_broken_tacit_never_breaks_the_session(installed, breakage):
    tc = installed
    session_id = "0b5e55ed-0000-4000-8000-000000000001"
    extra = {}
    if breakage == "home-is-a-file":
        broken = tc.home.parent / "not-a-folder"
        broken.write_text("x")
        extra["TACIT_HOME"] = str(broken)
    elif breakage == "corrupt-ledger":
        tc.home.mkdir(parents=True, exist_ok=True)
        (tc.home / "ledger.db").write_bytes(b"this is not an SQLite database" * 100)
        (tc.home / "config.toml").write_text("nudge_interval = [broken\n")
        (tc.home / "memories").mkdir(exist_ok=True)
        (tc.home / "memories" / "MEMORY.md").write_bytes(b"\xff\xfe not utf-8")
    else:  # no service can start: every hook runs the engine in-process
        tc.home.mkdir(parents=True, exist_ok=True)
        (tc.home / "run").write_text("a file where a folder should be")
    # not a correction: no child agent may outlive this test and the stub
    tc.stub.set_script([
        {"match": "^run the tool please$", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": "echo tool-ran", "description": "t"}}]},
        {"match": "tool-ran", "reply": "STILL-ANSWERED"},
    ])
    proc, result = tc.prompt("run the tool please", "--session-id", session_id,
                             "--allowedTools", "Bash", env_extra=extra)
    assert proc.returncode == 0 and result["result"] == "STILL-ANSWERED" and not result["is_error"]
    assert "hook" not in proc.stderr.lower()
    if breakage in ("corrupt-ledger", "run-is-a-file"):
        # tacit recovered (the corrupt ledger moved aside), or ran without its service: a valid state
        state = tc.session_state(session_id)
        assert state["user_turns"] == 1 and state["turn"]["tool_calls"] == [["Bash", True]]
    if breakage == "corrupt-ledger":
        assert list(tc.home.glob("ledger.db.corrupt-*"))
    assert tc.children() == []


# --------------------------------------------------------------------------
# install / uninstall
# --------------------------------------------------------------------------

def test_install_user_scope_is_active_idempotent_and_undone_exactly(tc):
    config_dir = tc.claude.config_dir
    config_dir.mkdir(parents=True, exist_ok=True)
    user_settings = {"model": "claude-opus-4-8", "permissions": {"allow": ["Bash(ls:*)", "Bash(tacit memory:*)"]}}
    (config_dir / "settings.json").write_text(json.dumps(user_settings, indent=2) + "\n")
    before = tree_digest(tc.claude.home)

    first = tc.install()
    assert first["success"] and first["tacit_on_path"]
    plugin = Path(first["plugin_dir"])
    assert plugin == config_dir / "skills" / "tacit"
    # the user's own rule is not "added" (and so never removed)
    assert "Bash(tacit memory:*)" not in first["permissions_added"]
    after_first = tree_digest(tc.claude.home)
    second = tc.install()
    assert second["success"] and second["changed"] == [] and second["permissions_added"] == []
    assert tree_digest(tc.claude.home) == after_first
    validate = tc.claude(["plugin", "validate", str(plugin)])
    assert validate.returncode == 0, validate.stdout + validate.stderr

    # a plain run has tacit active: context injected, commands listed, plugin loaded
    tc.tacit("memory", "add", "INSTALL-SENTINEL-31337")
    tc.prompt("hello")
    assert "INSTALL-SENTINEL-31337" in tc.first_request_context(tc.stub.model_requests()[0])
    listing = tc.claude(["plugin", "list"])
    assert "tacit" in listing.stdout and "skills-dir" in listing.stdout, listing.stdout

    # uninstall: what install added is gone, the user's settings are back as they were
    home_before_uninstall = tree_digest(tc.claude.home)
    gone = tc.tacit("uninstall", "claude-code", "--json")
    assert json.loads(gone.stdout)["success"]
    after = tree_digest(tc.claude.home)
    assert not plugin.exists()
    assert json.loads((config_dir / "settings.json").read_text()) == user_settings
    added_by_install = set(after_first) - set(before)
    assert not (added_by_install & set(after))
    # nothing else was touched (Claude Code's own files from the run stay)
    assert {k: v for k, v in home_before_uninstall.items() if k not in added_by_install
            and not k.endswith("settings.json")} == {k: v for k, v in after.items()
                                                    if not k.endswith("settings.json")}
    # and a plain run no longer has tacit
    n = len(tc.stub.model_requests())
    tc.prompt("hello")
    assert "INSTALL-SENTINEL" not in json.dumps(tc.stub.model_requests()[n]["body"])
    again = json.loads(tc.tacit("uninstall", "claude-code", "--json").stdout)
    assert again["success"] and again["removed"] == []


def test_install_project_scope_needs_trust_and_uninstalls_cleanly(tc):
    project = tc.claude.project
    before = tree_digest(project)
    result = tc.install("--scope", "project", "--project-dir", str(project))
    assert result["success"] and result["trusted"] is False
    assert Path(result["plugin_dir"]) == project / ".claude" / "skills" / "tacit"
    assert Path(result["settings_file"]) == project / ".claude" / "settings.local.json"
    tc.tacit("memory", "add", "PROJECT-SENTINEL-777")
    tc.prompt("hello")
    assert "PROJECT-SENTINEL-777" not in json.dumps(tc.stub.model_requests()[0]["body"])  # untrusted

    # the user accepts the trust dialog (what `claude` asks interactively)
    state_path = tc.claude.home / ".claude.json"
    state = json.loads(state_path.read_text())
    state.setdefault("projects", {}).setdefault(str(project), {})["hasTrustDialogAccepted"] = True
    state_path.write_text(json.dumps(state))
    assert tc.install("--scope", "project", "--project-dir", str(project))["trusted"] is True
    n = len(tc.stub.model_requests())
    tc.prompt("hello")
    assert "PROJECT-SENTINEL-777" in tc.first_request_context(tc.stub.model_requests()[n])

    assert json.loads(tc.tacit("uninstall", "claude-code", "--json", "--scope", "project",
                               "--project-dir", str(project)).stdout)["success"]
    leftover = {k: v for k, v in tree_digest(project).items() if not k.startswith(".claude/projects")}
    assert leftover == before


def test_what_the_user_says_is_in_memory_by_the_next_session(installed):
    """Issue 22: a preference and a convention said in session 1 (which then ends) are in
    session 2's context, saved by session 1's own children; session 1's user was told."""
    tc = installed
    preference = "The user prefers short answers without long explanations."
    convention = "This project uses yarn."
    tc.stub.set_script([
        # a child whose prompt carries the convention as a highlight: save it
        {"match": r"(?s)reviewing a coding session.*<highlighted>.*we use yarn here", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": f'tacit memory add "{convention}"',
                                                   "description": "save the convention"}}]},
        # whichever child (correction save or review) carries the preference: save it
        {"match": r"(?s)memory keeper.*skip the long explanations", "times": 1,
         "tool_calls": [{"name": "Bash", "input": {"command": f'tacit memory add --target user "{preference}"',
                                                   "description": "save the preference"}}]},
        {"match": "Entry added", "reply": "Saved."},
        {"match": "^I prefer short answers, skip the long explanations$", "reply": "Understood."},
        {"match": "^we use yarn here$", "reply": "OK, yarn."},
    ], default="OK")
    tc.prompt("I prefer short answers, skip the long explanations", "--allowedTools", "Bash")
    tc.prompt("we use yarn here", "-c", "--allowedTools", "Bash")  # each -p run ends with SessionEnd

    user_md, memory_files = tc.cfg().user_file, lambda: list(tc.cfg().home.rglob("MEMORY.md"))
    wait_for(lambda: user_md.exists() and preference in user_md.read_text(), CHILD_DEADLINE,
             what="the preference in USER.md")
    wait_for(lambda: any(convention in p.read_text() for p in memory_files()), CHILD_DEADLINE,
             what="the convention in a MEMORY.md")
    reviews = tc.wait_child("review")
    assert all(r["ok"] for r in reviews), reviews

    # session 1's user was told, in the session: the statement noted at its turn's end
    told = hook_messages(tc)
    assert any(m.startswith("Noted (fact): This project uses yarn.") for m in told), told

    # session 2 starts with both
    n = len(tc.stub.model_requests())
    proc, _ = tc.prompt("hello", "--output-format", "stream-json", "--verbose")
    # the session's own request (a review child of session 1 may still be asking in between)
    (first, *_) = [r for r in tc.stub.model_requests()[n:]
                   if any(m["role"] == "user" and message_text(m["content"]).strip().endswith("hello")
                          for m in r["body"]["messages"])]
    context = tc.first_request_context(first)
    assert preference in context and convention in context
    # and is told what session 1's children saved
    shown = " ".join(hook_messages(tc)) + proc.stdout
    assert "tacit saved" in shown or "Since your last session, tacit saved" in shown, shown[-2000:]
    assert tc.stub.refused_proxy() == []


def run_on_a_terminal(tc, *args: str, timeout: float = 120) -> tuple[subprocess.CompletedProcess, str]:
    """``claude ARGS`` started from a terminal (a pty that is its controlling
    terminal, its stdin and stderr), as a user typing ``claude -p … > out`` in a
    shell: (process with its stdout, what the terminal got)."""
    master, slave = os.openpty()

    def own_terminal():
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    try:
        proc = subprocess.Popen([str(tc.claude.binary), *args], cwd=str(tc.claude.project), env=tc.env(),
                                stdin=slave, stdout=subprocess.PIPE, stderr=slave, text=True,
                                start_new_session=True, preexec_fn=own_terminal)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
        os.set_blocking(master, False)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except (BlockingIOError, OSError):
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(slave)
        os.close(master)
    shown = seen.decode(errors="replace").replace("\r\n", "\n")
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, shown), shown


def test_a_headless_run_tells_its_terminal_what_it_noted_and_keeps_stdout_clean(installed):
    """Issue 22: ``claude -p`` prints only the reply and shows no hook output; the
    statement noted at the turn's end reaches the terminal the run was started from."""
    tc = installed
    tc.stub.set_script([{"match": "^we use yarn here$", "reply": "OK, yarn."}], default="Saved.")
    proc, terminal = run_on_a_terminal(tc, "-p", "we use yarn here")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "OK, yarn."  # the run's output is the reply alone
    assert "tacit: Noted (fact): This project uses yarn." in terminal, (terminal[-2000:], hook_messages(tc))
    # the same run with no terminal (a script, CI): nothing breaks, the notice is kept in the transcript
    _, result = tc.prompt("we use yarn here", "-c")
    assert result["result"] == "OK, yarn."


def test_hand_edits_between_sessions_are_read_where_valid_and_told(installed):
    """The user broke a skill's frontmatter and left bytes that are not UTF-8 in MEMORY.md by hand: the next
    session reads every valid entry and skill, tells the user what it skipped, and rewrites neither file."""
    tc = installed
    memory_md, broken = tc.hand_edited()
    edits = memory_md.read_bytes(), broken.read_bytes()
    tc.prompt("hello")
    context = tc.first_request_context(tc.stub.model_requests()[0])
    assert "MEM-KEEP" in context and "MEM-ODD caf\ufffd" in context, context
    assert "SKILL-deploy-web" in context and "SKILL-run-tests" not in context
    told = " ".join(hook_messages(tc))
    assert f"{memory_md} is not valid UTF-8 (bad byte at offset 40)" in told, told
    assert f"tacit left 1 skill file(s) it could not read out of the skill index: {broken}: bad YAML" in told
    assert (memory_md.read_bytes(), broken.read_bytes()) == edits  # never overwritten
