"""``tacit search`` and the agent's search tool, in the real hosts, offline.

1. A Claude Code session mentions a fix; a second session's scripted model
   runs ``tacit search --json`` (the command the session-start guidance
   names) and the tool result it reads holds the first session's exchange.
2. A Codex session (a real ``codex exec``) in the same project writes its
   rollout file; a Claude Code session's search finds that exchange.
3. pi: a first session (persisted by pi itself), then a second whose model
   calls tacit's ``search_sessions`` tool and receives the first exchange.
4. Hermes: the same, the first session read from Hermes's own ``state.db``; ``tacit search``
   names the two sessions apart (it named both by their first 8 characters, the day they began);
5. ``tacit learn`` reads a pi session and a Codex rollout (it read Claude Code's transcripts only:
   "not a Claude Code transcript or tacit JSONL") and finds the correction said in each.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from codex_rig import codex_binary, run_codex  # noqa: F401 — fixtures
from e2e_helpers import TacitOnHost, message_text
from test_hermes import TacitInHermes, hermes_python_with_tacit  # noqa: F401 — a fixture

pytestmark = pytest.mark.e2e
EXTENSION = Path(__file__).resolve().parents[2] / "extension" / "tacit" / "hosts" / "pi" / "extension" / "index.ts"
FIX_ASK = "the login page fails with a CORS error"
FIX_REPLY = "Fixed the CORS error: added http://localhost:5173 to ALLOWED_ORIGINS in server/cors.ts."


class TacitClaude(TacitOnHost):
    host = "claude-code"

    def prompt(self, text: str, *args: str, **kw):
        return self.run_ok(self.runner.prompt, text, *args, **kw)


def tool_results(request: dict) -> str:
    """Every tool result's text in one model request (Anthropic or OpenAI shape)."""
    out = []
    for message in request["body"].get("messages", []):
        if message.get("role") == "tool":
            out.append(message_text(message.get("content")))
        elif isinstance(message.get("content"), list):
            out += [message_text(b.get("content")) for b in message["content"]
                    if isinstance(b, dict) and b.get("type") == "tool_result"]
    return "\n".join(out)


def _search_payload(text: str) -> dict:
    return json.loads(text[text.index("{"):text.rindex("}") + 1])


@pytest.fixture
def tc(run_claude, stub, tmp_path) -> TacitClaude:
    tacit = TacitClaude(run_claude, stub, tmp_path)
    assert tacit.install()["success"]
    return tacit


def test_a_second_claude_session_finds_the_fix_of_the_first(tc, stub):
    stub.set_script([
        {"match": "fails with a CORS error", "times": 1, "reply": FIX_REPLY},
        {"match": "^how did we fix the CORS error", "times": 1, "tool_calls": [
            {"name": "Bash", "input": {"command": "tacit search --json CORS error fix",
                                       "description": "search past sessions"}}]},
        {"match": "ALLOWED_ORIGINS", "reply": "We added the dev origin to ALLOWED_ORIGINS."},
    ])
    _, first = tc.prompt(FIX_ASK)
    _, second = tc.prompt("how did we fix the CORS error last time?", "--allowedTools", "Bash")
    assert second["result"] == "We added the dev origin to ALLOWED_ORIGINS."
    requests = stub.model_requests()
    context = "\n".join(message_text(m["content"]) for m in requests[1]["body"]["messages"] if m["role"] == "system")
    assert "tacit search --json" in context  # the session-start guidance names the command
    payload = _search_payload(tool_results(requests[-1]))
    [hit] = [r for r in payload["results"] if r["session_id"] == first["session_id"]]
    assert hit["host"] == "claude-code" and hit["project"] == "project"
    assert hit["text"] == f"User: {FIX_ASK}\n\nAgent: {FIX_REPLY}"


def test_a_codex_rollout_is_found_from_a_claude_session_in_the_same_project(tc, run_codex, stub):
    project = tc.runner.project
    subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True)
    stub.set_script([
        {"protocol": "responses", "match": "flaky websocket test", "times": 1,
         "reply": "The websocket test was flaky because of a 50 ms sleep; it now waits for the open event."},
        {"protocol": "anthropic", "match": "^what did codex do about the websocket", "times": 1, "tool_calls": [
            {"name": "Bash", "input": {"command": "tacit search --json websocket flaky --host codex",
                                       "description": "search"}}]},
        {"protocol": "anthropic", "match": "open event", "reply": "Codex replaced the sleep with the open event."},
    ])
    proc = run_codex(["exec", "--", "why is the flaky websocket test flaky?"], cwd=project)
    assert proc.returncode == 0, proc.stderr[-2000:]
    codex_home = run_codex.codex_dir
    [rollout] = list((codex_home / "sessions").rglob("rollout-*.jsonl"))
    _, result = tc.prompt("what did codex do about the websocket test?", "--allowedTools", "Bash",
                          env_extra={"CODEX_HOME": str(codex_home)})
    assert result["result"] == "Codex replaced the sleep with the open event."
    payload = _search_payload(tool_results(stub.model_requests()[-1]))
    [hit] = payload["results"]
    assert hit["host"] == "codex" and hit["project"] == "project" and hit["session_id"] in rollout.name
    assert hit["text"].startswith("User: why is the flaky websocket test flaky?")
    assert hit["text"].endswith("Agent: The websocket test was flaky because of a 50 ms sleep; "
                                "it now waits for the open event.")


def test_pi_calls_the_search_tool_and_gets_the_earlier_session(run_pi, stub):
    stub.set_script([
        {"match": "^the deploy script hangs", "times": 1,
         "reply": "The deploy hung on a prompt from rsync; added --no-interactive to scripts/deploy.sh."},
        {"match": "^why did the deploy hang", "times": 1, "tool_calls": [
            {"name": "search_sessions", "input": {"query": "deploy hang"}}]},
        {"match": "no-interactive", "reply": "rsync asked a question; we pass --no-interactive now."},
    ])
    first = run_pi(["-p", "--model", run_pi.model_arg, "the deploy script hangs"])
    assert first.returncode == 0, first.stderr[-2000:]
    [session_file] = list((run_pi.agent_dir / "sessions").rglob("*.jsonl"))
    second = run_pi.prompt("why did the deploy hang?", extensions=[EXTENSION])
    assert second.returncode == 0, second.stderr[-2000:]
    assert second.stdout.strip() == "rsync asked a question; we pass --no-interactive now."
    payload = json.loads(tool_results(stub.model_requests()[-1]))
    [hit] = payload["results"]
    assert hit["host"] == "pi" and session_file.name.endswith(f"{hit['session_id']}.jsonl")
    assert hit["text"] == ("User: the deploy script hangs\n\nAgent: The deploy hung on a prompt from rsync; "
                           "added --no-interactive to scripts/deploy.sh.")


def test_hermes_calls_the_search_tool_and_gets_the_earlier_session(run_hermes, hermes_python_with_tacit, stub):
    th = TacitInHermes(run_hermes, hermes_python_with_tacit)
    th.install()
    stub.set_script([
        {"match": "^the nightly backup job failed", "times": 1,
         "reply": "The backup failed because the S3 bucket policy lacked PutObject; I added it in infra/backup.tf."},
        {"match": "^why did the nightly backup fail", "times": 1, "tool_calls": [
            {"name": "search_sessions", "input": {"query": "nightly backup failed"}}]},
        {"match": "PutObject", "reply": "The bucket policy was missing PutObject."},
    ])
    th.oneshot("the nightly backup job failed")
    proc = th.oneshot("why did the nightly backup fail?")
    assert proc.stdout.strip() == "The bucket policy was missing PutObject."
    request = stub.model_requests()[-1]
    assert "search_sessions" in [t["function"]["name"] for t in request["body"]["tools"]]
    payload = json.loads(tool_results(request))
    hits = [r for r in payload["results"] if r["text"].startswith("User: the nightly backup job failed")]
    assert len(hits) == 1 and hits[0]["host"] == "hermes"
    assert hits[0]["text"].endswith("I added it in infra/backup.tf.")
    printed = th.tacit("search", "nightly backup").stdout
    labels = [line.split("  session ")[1].split(",")[0] for line in printed.splitlines() if "  hermes  " in line]
    assert len(labels) == 2 and len(set(labels)) == 2, printed  # Hermes's ids begin with the date: shown whole
    assert hits[0]["session_id"] in labels


def test_tacit_learn_reads_a_pi_session_and_a_codex_rollout(run_pi, run_codex, stub):  # noqa: F811
    said = "no, we use pnpm here, never npm"
    stub.set_script([
        {"match": "^set up the project$", "protocol": "openai", "times": 1,
         "tool_calls": [{"name": "bash", "input": {"command": "echo npm-install-done"}}]},
        {"match": "^set up the project$", "protocol": "responses", "times": 1,
         "tool_calls": [{"name": "exec_command", "input": {"cmd": "echo npm-install-done"}}]},
        {"match": "npm-install-done", "reply": "I ran npm install."},
        {"match": f"^{said}$", "reply": "Understood, pnpm from now on."},
    ])
    proc = run_pi(["-p", "--model", run_pi.model_arg, "set up the project", said])  # one persisted session
    assert proc.returncode == 0, proc.stderr[-2000:]
    for argv in (["exec", "--", "set up the project"], ["exec", "resume", "--last", said]):
        proc = run_codex(argv)
        assert proc.returncode == 0, proc.stderr[-2000:]
    for folder, host in ((run_pi.agent_dir / "sessions", "pi"), (run_codex.codex_dir / "sessions", "codex")):
        proc = subprocess.run([sys.executable, "-m", "tacit", "learn", "--json", "--no-progress", str(folder)],
                              env=run_pi.env({"TACIT_HOME": str(run_pi.root / "tacit-home")}), capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        [session] = json.loads(proc.stdout)["sessions"]
        assert session["format"] == host and session["turns"] == 2 and session["tool_calls"] == 1, session
        assert [c["text"] for c in session["corrections"]] == [said]


def test_two_pi_sessions_started_within_a_minute_are_named_apart(run_pi, stub):
    """pi's session ids are time-ordered (UUIDv7): their first 8 (12) characters are the same for every
    session started within about a minute (16 ms), so ``tacit search`` named two of them alike."""
    stub.set_script([], default="Noted, the deploy hangs.")
    for text in ("the deploy script hangs on rsync", "the deploy script hangs on ssh"):
        proc = run_pi(["-p", "--model", run_pi.model_arg, text])
        assert proc.returncode == 0, proc.stderr[-2000:]
    ids = sorted(f.stem.rsplit("_", 1)[-1] for f in (run_pi.agent_dir / "sessions").rglob("*.jsonl"))
    assert len(ids) == 2 and ids[0][:8] == ids[1][:8], ids  # the collision this is about
    proc = subprocess.run([sys.executable, "-m", "tacit", "search", "deploy script hangs", "--host", "pi"],
                          env=run_pi.env({}), cwd=run_pi.project, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    labels = [line.split("  session ")[1].split(",")[0] for line in proc.stdout.splitlines() if "  session " in line]
    assert len(labels) == 2 and len(set(labels)) == 2, proc.stdout
    assert all(any(i.endswith(label.lstrip("…")) for i in ids) for label in labels), (labels, ids)
