"""A fourth walk as a new user, after the third bug hunt: each test is one defect found that
way, run in-process from a git repository as ``tacit ARGS`` would (the earlier walks are in
test_cli_new_user_walk.py … test_cli_new_user_walk3.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from learn_helpers import transcript_with_an_agent
from search_helpers import claude_dir, claude_exchange, write_jsonl

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "examples")


def one_json(out: str) -> dict:
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    return json.loads(lines[0])


def test_search_marks_a_match_the_text_already_holds_in_bold(run, web):
    """Piped, `tacit search export csv` marked matches with `**` inside the text's own bold:
    "****Export** **CSV****", which reads as neither."""
    home = Path(os.environ["HOME"])
    write_jsonl(claude_dir(home, str(web)) / "s1.jsonl", claude_exchange(
        "s1", str(web), "where is the export?", "Click **Export CSV** in the toolbar; 2**8 rows per page."))
    code, out, _ = run("search", "export", "csv")
    assert code == 0 and "  agent: Click **Export** **CSV** in the toolbar; 2**8 rows per page." in out, out
    assert "***" not in out, out
    code, out, _ = run("search", "export", "csv", "--json")  # the text as said, unmarked
    assert one_json(out)["results"][0]["text"].endswith("Click **Export CSV** in the toolbar; 2**8 rows per page.")


def test_search_through_the_service_says_times_in_the_users_zone(tacit_env, tmp_path):
    """The service (started by whichever hook came first, with its environment) answered
    `tacit search` with times in its own zone (UTC) while `tacit memory log` and the page's
    History said local time: a search asked from another zone is answered in that zone."""
    from tacit.service import client
    from wait_helpers import wait_for

    home = Path(tacit_env["HOME"])
    folder = home / ".claude" / "projects" / "-home-maya-code-invoicely"
    folder.mkdir(parents=True)
    shutil.copy(os.path.join(EXAMPLES, "claude-code-session.jsonl"), folder)
    service_env = {**tacit_env, "TZ": "UTC"}
    server = subprocess.Popen([sys.executable, "-P", "-m", "tacit", "serve"], env=service_env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: client.status(tacit_env["TACIT_HOME"]).get("running"), what="the service")

        def search(zone, *args):
            proc = subprocess.run([sys.executable, "-m", "tacit", "search", "port", "5173", "--all-projects", *args],
                                  env={**tacit_env, "TZ": zone}, capture_output=True, text=True, cwd=str(home),
                                  timeout=60)
            assert proc.returncode == 0, proc.stderr
            return proc.stdout

        before = client.status(tacit_env["TACIT_HOME"])["events"]
        assert "\n2025-03-12 09:33  claude-code  invoicely" in search("UTC")
        assert client.status(tacit_env["TACIT_HOME"])["events"] == before + 1  # the service answered
        assert "\n2025-03-12 05:33  claude-code  invoicely" in search("America/New_York")  # EDT
        assert json.loads(search("Asia/Tokyo", "--json"))["results"][0]["time"] == "2025-03-12T18:33:42+09:00"
    finally:
        client.stop(tacit_env["TACIT_HOME"], wait=10)
        server.wait(timeout=20)


CHILD = '''
import subprocess, sys
prompt = open(sys.argv[1], encoding="utf-8").read()
if "5173" in prompt:
    done = subprocess.run([sys.executable, "-m", "tacit", "memory", "add", "The dev server serves on port 5173."],
                          capture_output=True, text=True)
    print("Saved one rule." if done.returncode == 0 else done.stderr)
else:
    print("Nothing to save.")
'''


def _learn_with_an_agent(run, web, tmp_path, cfg) -> str:
    code, out, _ = run("learn", transcript_with_an_agent(cfg, web, tmp_path, CHILD), "--apply", "--no-progress")
    assert code == 0, out
    return out


def test_memory_log_names_a_learn_runs_child_truthfully(run, web, tmp_path, cfg):
    """A rule a child agent of `tacit learn` saved was "… child agent for session 4f9c2a7e-8d3 on
    a host" in `tacit memory log`: that job had no host. It is the learn run's, of that transcript."""
    _learn_with_an_agent(run, web, tmp_path, cfg)
    code, out, _ = run("memory", "log")
    assert code == 0 and "add         project  a correction child agent of `tacit learn`, for session " \
        "4f9c2a7e-8d3 of a claude-code transcript\n       The dev server serves on port 5173." in out, out
    assert "on a host" not in out, out
    code, out, _ = run("memory", "log", "--json")
    [change] = one_json(out)["changes"]
    assert (change["actor_kind"], change["actor_name"], change["host"]) == ("child", "correction", "learn:claude-code")


def test_learn_says_how_many_review_notes_it_made(run):
    """`tacit learn --apply` noted four things for review and its report said nothing of them
    (docs/engine.md lists what the report holds): `tacit review` was the only way to find out."""
    example = os.path.join(EXAMPLES, "claude-code-session.jsonl")
    code, out, _ = run("learn", example, "--no-progress")
    assert code == 0 and "\nReview notes: 4 would be made (what was said that may be worth keeping).\n" in out, out
    code, out, _ = run("learn", example, "--apply", "--no-progress")
    assert code == 0 and out.rstrip().endswith(
        "Review notes: 4 new, undecided: `tacit review --all` lists them (each is dated the day it was said)."), out
    code, out, _ = run("review", "--all", "--json")
    assert len(one_json(out)["items"]) == 4, out
    code, out, _ = run("learn", example, "--apply", "--no-progress", "--json")  # again: the same four, no new one
    assert one_json(out)["review_notes"] == 0, out
    code, out, _ = run("learn", example, "--apply", "--no-progress")
    assert out.rstrip().endswith("Memory unchanged.\nReview notes: none new."), out


def test_teach_names_the_short_form_to_forget_it_by(run, web):
    """After `/memory-teach` (and `tacit memories teach`) the hint was `Forget it with /memory-forget
    "taught-the-worker-queue-is-drained-by-the-scheduler-eve"`, a key no one types; other hints
    name an entry by its number (`tacit forget project:3`)."""
    assert run("memory", "add", "Use pnpm, not npm.")[0] == 0
    assert run("memory", "add", "Tests live in tests/unit.")[0] == 0
    code, out, _ = run("memories", "teach", "The worker queue is drained by the scheduler every five minutes.")
    assert code == 0 and f"saved to this project's memory ({web.name}, MEMORY.md) as entry project:3. " \
        "Forget it with /memory-forget project:3 (tacit forget project:3)." in out, out
    code, out, _ = run("forget", "project:3")
    assert code == 0 and out.startswith('Forgot "The worker queue is drained by the scheduler every five minutes."'), out
    code, out, _ = run("memory", "show", "--scope", "project", "--json")
    assert one_json(out)["entries"] == ["Use pnpm, not npm.", "Tests live in tests/unit."], out
    code, out, _ = run("memories", "--json")  # the taught memory itself is forgotten too, not left confirmed
    assert [m["status"] for m in one_json(out)["memories"] if m["source"] == "teach"] == ["dismissed"], out


def test_cost_and_status_say_what_is_unknown_and_what_the_budget_is(run, web, tmp_path, cfg):
    """A new user's `tacit cost` after `tacit learn --apply` with a child that reports no usage:
    every row said "$0.0000" (the cost was unknown, not nothing), "1 runs", and "today: 0 of
    1,000,000 tokens" without saying that is the daily budget. `tacit status` with no host
    installed said the service "starts with the next session": no session starts it then."""
    _learn_with_an_agent(run, web, tmp_path, cfg)
    code, out, _ = run("cost")
    assert code == 0 and ": 7 background runs, 0 tokens, cost unknown\n" in out, out
    assert "today: 0 of the 1,000,000 tokens a day allows (child_daily_tokens)\n" in out, out
    assert "  flush           1 run              0 tokens  cost unknown\n" in out, out
    assert "$0.0000" not in out and "1 runs" not in out, out
    code, out, _ = run("status")
    assert "Hosts: none yet" in out and "Service: not running (it starts with the next session once a host is " \
        "installed)" in out, out
    assert "Background today: 7 child run(s), 0 tokens of the 1,000,000 a day allows" in out, out


def test_doctor_names_the_child_agent_of_each_installed_host(run, monkeypatch, tmp_path):
    """Run from a shell (no host), `tacit doctor` said "Child agent: none (deterministic
    fallbacks)" with Claude Code installed and `claude` on PATH: its sessions' corrections are
    saved by `claude -p`. It names each installed host's agent, and says when one is missing."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text("#!/bin/sh\necho 2.1.197\n")
    (bin_dir / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    code, out, _ = run("doctor")
    assert "\nChild agent: none (deterministic fallbacks)\n" in out, out  # nothing installed yet
    for host in ("claude-code", "codex"):
        assert run("install", host)[0] == 0
    code, out, _ = run("doctor")
    if shutil.which("codex", path=f"{bin_dir}:/usr/bin:/bin"):
        pytest.skip("codex is installed here")
    assert "\nChild agent: claude in claude-code sessions; codex in codex sessions — `codex` is not found " \
        "on PATH\n" in out, out
    code, out, _ = run("doctor", "--json")
    assert one_json(out)["child_agent"]["by_host"]["claude-code"] == {"command": "claude", "available": True,
                                                                      "why_not": ""}, out
