"""Child agents, for real: the scripted fake agent (tests/fake_agent) runs as a
subprocess and edits the store files through the real ``tacit memory`` CLI.

Covers: reload after a child, "Nothing to save.", usage parsing, crash,
hang (killed at the timeout with its whole process group), a killed child
that exits 0, a child that writes garbage into MEMORY.md, the recursion
guard inside a child, auto-consolidation retrying exactly once, the detached
launcher (hook hosts) and the thread launcher (in-process hosts), the
deterministic fallbacks (a rule tacit can phrase exactly, or nothing), command
templates and prompt rendering.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from engine_helpers import write_config

from tacit.children.commands import agent_available, build_command, timeout_for, why_no_agent
from tacit.children.env import process_env
from tacit.children.launch import run_job_id
from tacit.children.prompts import render_job_prompt
from tacit.children.runner import run_job
from tacit.hosts import spec as host_specs
from tacit.config import load_config
from tacit.app import USER, Tacit
from tacit.consolidation import add_entry, consolidate_target
from tacit.detect.analysis import analyse
from tacit.events import BeforeAgentStart, MessageEnd, ToolResult, TurnEnd
from tacit.hosts.runtime import build_engine
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore
from tacit.stores.sessions import SessionStore, insert_job

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fake_agent" / "fake_agent.py"
CORRECTION = "no, don't use npm here. we use pnpm in this repo"


def you_of(cfg):
    """The front door of ``cfg`` acting as you."""
    return Tacit(cfg).as_actor(USER)


class FakeAgent:
    """Points child_command at the fake agent (in config.toml, so children
    and CLI subprocesses see the same settings) and reads its call log."""

    def __init__(self, home: Path, env: dict, tmp: Path):
        self.home, self.env, self.tmp = home, env, tmp
        self.log = tmp / "agent-calls.jsonl"
        self.pidfile = tmp / "agent-pids.json"
        self.report = tmp / "agent-report.json"

    def command(self, mode: str, *extra: str) -> str:
        return " ".join([sys.executable, str(FAKE_AGENT), "--mode", mode, "--log", str(self.log),
                         "--pidfile", str(self.pidfile), "--report", str(self.report), *extra,
                         "{prompt_file}"])

    def configure(self, mode: str, *extra: str, **settings):
        write_config(self.home, child_command=self.command(mode, *extra), **settings)
        return load_config(env=self.env)

    def calls(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


@pytest.fixture
def agent(tacit_home, tacit_env, tmp_path):
    return FakeAgent(tacit_home, tacit_env, tmp_path)


def child_records(cfg) -> list[dict]:
    if not cfg.children_log.exists():
        return []
    return [json.loads(line) for line in cfg.children_log.read_text().splitlines()]


def correction_turns(engine, sid="s", correction=CORRECTION):
    engine.dispatch(MessageEnd(session_id=sid, role="user", text="install the deps"))
    engine.dispatch(ToolResult(session_id=sid, name="Bash"))
    engine.dispatch(MessageEnd(session_id=sid, role="assistant", text="I ran npm install."))
    engine.dispatch(TurnEnd(session_id=sid))
    engine.dispatch(MessageEnd(session_id=sid, role="user", text=correction))
    return engine.dispatch(TurnEnd(session_id=sid, assistant_text="Switched to pnpm."))


def exact_rule_entries(text):
    """What the no-agent fallback may write for a correction: its exact rule, or nothing."""
    rule = analyse(text).rule
    return [rule] if rule else []


def job(kind="correction", **variables):
    return {"id": f"test-{kind}", "kind": kind, "session_id": "s", "variables": variables}


def gone(pid: int, timeout: float = 10.0) -> bool:
    """True once ``pid`` no longer exists (or is a zombie nobody will run again)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().split(") ", 1)[1].startswith("Z"):
                    return True
        except (FileNotFoundError, IndexError):
            return True
        time.sleep(0.05)
    return False


# ---------------------------------------------------------------------------
# A child that works
# ---------------------------------------------------------------------------


def test_correction_child_saves_through_the_cli_and_stores_reload(agent):
    cfg = agent.configure("save")
    MemoryStore(cfg).add("user", "Maya prefers short answers.")
    engine = build_engine(cfg, "replay")  # inline launcher: the child runs now
    snapshot = engine.dispatch(BeforeAgentStart(session_id="s")).context[0].text
    correction_turns(engine)

    assert MemoryStore(cfg).entries("user") == ["Maya prefers short answers.", f"Correction: {CORRECTION}"]
    live = engine.memory_store("s")
    assert live.entries("user")[-1] == f"Correction: {CORRECTION}"  # re-read from disk
    assert live.snapshot() == snapshot and CORRECTION not in snapshot  # the frozen snapshot stays
    assert engine.sessions.peek("s").running == {}

    calls = agent.calls()
    assert [(c["kind"], c["tacit_child"]) for c in calls] == [("correction", "1")]
    assert calls[0]["tacit_home"] == str(agent.home) and calls[0]["pgid"] == calls[0]["pid"]
    (record,) = child_records(cfg)
    assert record["kind"] == "correction" and record["ok"] is True and record["mode"] == "agent"
    assert record["exit"] == 0 and record["killed"] is False and record["nothing_to_save"] is False
    assert 0 < record["duration"] < 30 and record["start"] <= time.time()
    assert record["command"][1] == str(FAKE_AGENT) and record["command"][-1].endswith("prompt.md")
    assert "Saved the correction" in record["stdout_tail"]


def test_nothing_to_save_is_recorded_and_changes_nothing(agent):
    cfg = agent.configure("nothing")
    MemoryStore(cfg).add("memory", "The project uses pnpm.")
    before = {p.name: p.read_bytes() for p in cfg.memories_dir.iterdir()}
    record = run_job(cfg, job("review", reason="10 turns"))
    assert record["ok"] is True and record["nothing_to_save"] is True
    assert record["stdout_tail"].strip() == "Nothing to save."
    assert {p.name: p.read_bytes() for p in cfg.memories_dir.iterdir()} == before
    assert child_records(cfg)[-1]["nothing_to_save"] is True


def test_claude_style_json_usage_is_parsed_into_the_log(agent):
    cfg = agent.configure("usage")
    record = run_job(cfg, job("correction", correction=CORRECTION))
    assert record["ok"] is True
    assert record["usage"] == {"usage": {"input_tokens": 1500, "cache_read_input_tokens": 200,
                                         "output_tokens": 80},
                               "total_cost_usd": 0.0123, "num_turns": 2, "duration_ms": 1234,
                               "is_error": False, "format": "claude-code"}
    assert child_records(cfg)[-1]["usage"]["total_cost_usd"] == 0.0123


# ---------------------------------------------------------------------------
# Children that fail
# ---------------------------------------------------------------------------


def test_a_crashing_child_is_a_failure_and_the_fallback_keeps_only_an_exact_rule(agent):
    cfg = agent.configure("crash")
    engine = build_engine(cfg, "replay")
    correction_turns(engine)
    (record,) = child_records(cfg)
    assert record["ok"] is False and record["exit"] == 3 and record["killed"] is False
    assert "simulated crash" in record["stderr_tail"]
    assert record["fallback"]["ok"] is True
    # the lesson is kept as a rule tacit can phrase exactly, or left for the next review: never verbatim
    assert MemoryStore(cfg).entries("user") == exact_rule_entries(CORRECTION)
    assert record["fallback"]["saved"] or record["fallback"]["left_for_review"] == [CORRECTION]
    assert engine.sessions.peek("s").running == {}


def test_a_correction_a_failed_child_could_not_save_is_told_once(agent):
    """The user read "Noted (correction): … — saving it to memory.", the child crashed, the fallback
    could not phrase it, and nothing ever said it was not saved (it waited in `tacit review`)."""
    cfg = agent.configure("crash")
    engine = build_engine(cfg, "replay")
    said = "no, don't use npm here. we use the acme-wrapper tool in this repo, always"
    correction_turns(engine, correction=said)
    (record,) = child_records(cfg)
    assert record["fallback"]["saved"] == [] and record["fallback"]["left_for_review"] == [said]
    told = engine.dispatch(MessageEnd(session_id="s", role="user", text="thanks")).notices
    assert len(told) == 1 and "could not save" in told[0] and "it exited 3: fake agent: simulated crash" in told[0]
    assert "no, don't use npm here" in told[0] and "tacit memory add" in told[0], told
    assert engine.dispatch(MessageEnd(session_id="s", role="user", text="and now")).notices == []


def test_a_noted_statement_a_failed_review_could_not_save_is_told_once(agent):
    """"Noted (preference): … — this session's memory review saves it.", then the review child
    crashed, and nothing said it was not saved."""
    cfg = agent.configure("crash")
    engine = build_engine(cfg, "replay")
    noted = engine.dispatch(MessageEnd(session_id="s", role="user", text="I prefer short answers, no summaries."))
    assert any("review saves it" in n for n in noted.notices), noted.notices
    engine.dispatch(TurnEnd(session_id="s", assistant_text="Understood."))
    assert [r["kind"] for r in child_records(cfg)] == ["review"] and child_records(cfg)[0]["ok"] is False
    told = engine.dispatch(MessageEnd(session_id="s", role="user", text="thanks")).notices
    assert len(told) == 1 and "could not save" in told[0] and "I prefer short answers" in told[0], told
    assert "it exited 3" in told[0] and "tacit review" in told[0], told
    assert engine.dispatch(MessageEnd(session_id="s", role="user", text="and now")).notices == []


def test_a_hung_child_is_killed_at_the_timeout_with_its_whole_process_group(agent):
    cfg = agent.configure("hang", child_timeout_review=2)
    assert timeout_for(cfg, "review") == 2 and timeout_for(cfg, "flush") == 300
    started = time.time()
    record = run_job(cfg, job("review", reason="x"))
    elapsed = time.time() - started
    assert record["killed"] is True and record["ok"] is False
    assert record["exit"] != 0 and record["timeout"] == 2
    assert 2 <= elapsed < 10 and record["duration"] >= 2
    pids = json.loads(agent.pidfile.read_text())
    assert gone(pids["child"]) and gone(pids["grandchild"]), "the grandchild survived the kill"
    assert child_records(cfg)[-1]["killed"] is True


def test_a_killed_child_that_exits_0_is_still_a_failure(agent):
    cfg = agent.configure("hang", "--term-exit0", child_timeout_seconds=2)
    record = run_job(cfg, job("flush", why="compact"))
    assert record["exit"] == 0  # it said "fine" when told to stop...
    assert record["killed"] is True and record["ok"] is False  # ...but it was killed
    assert gone(json.loads(agent.pidfile.read_text())["grandchild"])


def test_a_grandchild_that_escapes_the_group_cannot_hang_the_runner(agent):
    cfg = agent.configure("hang", "--escape", child_timeout_seconds=1)
    started = time.time()
    try:
        record = run_job(cfg, job("review", reason="x"))
        assert record["killed"] is True and record["ok"] is False
        assert time.time() - started < 12  # timeout + kill grace + read grace, not forever
        assert gone(json.loads(agent.pidfile.read_text())["child"])
    finally:
        os.kill(json.loads(agent.pidfile.read_text())["grandchild"], 9)  # it escaped us too


def test_a_hung_child_that_never_reads_a_long_prompt_on_stdin_is_still_killed_at_the_timeout(agent, cfg):
    """A prompt longer than a pipe holds (a hand-edited MEMORY.md of 200 entries) given on stdin to a
    child stuck before reading it: the runner waited on the write forever, past every timeout."""
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    cfg.memory_file.write_text("\n§\n".join(f"Entry {n}: " + "word " * 60 for n in range(400)), encoding="utf-8")
    write_config(agent.home, child_timeout_seconds=1, child_command=" ".join(
        [sys.executable, str(FAKE_AGENT), "--mode", "hang", "--pidfile", str(agent.pidfile)]))  # prompt: stdin
    cfg = load_config(env=agent.env)
    started = time.time()
    record = run_job(cfg, job("flush", why="compact"))
    assert record["prompt_via"] == "stdin" and record["killed"] is True and record["ok"] is False
    assert time.time() - started < 12
    assert gone(json.loads(agent.pidfile.read_text())["grandchild"])


def test_inside_a_child_nothing_detects_nudges_or_spawns(agent):
    """The fake child behaves as if tacit's hooks were loaded in it and feeds
    them the very correction quoted in its prompt: everything stays inert."""
    cfg = agent.configure("recurse")
    engine = build_engine(cfg, "replay")
    correction_turns(engine)
    report = json.loads(agent.report.read_text())
    assert report["is_child"] is True
    assert report["effects"] == [] and "grandchild" not in report["state_files"]
    assert report["detect_exit"] == 0  # the pure detector command still answers
    assert len(agent.calls()) == 1  # no grandchild agent
    assert [r["kind"] for r in child_records(cfg)] == ["correction"]


# ---------------------------------------------------------------------------
# Auto-consolidation: retry exactly once
# ---------------------------------------------------------------------------

FILL = [f"Entry number {n}: {word} is how this project does {word}." for n, word in
        enumerate(["testing", "linting", "deploying", "formatting", "releasing"])]
NEW = "The staging database is reset every night at 02:00 UTC."


def _fill(cfg):
    store = MemoryStore(cfg)
    for entry in FILL:
        assert store.add("memory", entry)["success"]
    refused = store.add("memory", NEW)
    assert refused["success"] is False and refused["over_limit"]
    return refused


def test_overflowing_add_consolidates_with_the_child_and_retries_once(agent):
    cfg = agent.configure("consolidate", memory_char_limit=320)
    _fill(cfg)
    result = add_entry(you_of(cfg), "memory", NEW)
    assert result["success"] is True, result
    assert result["consolidation"]["mode"] == "agent" and result["consolidation"]["child_ok"]
    assert [c["kind"] for c in agent.calls()] == ["consolidate"]  # exactly one child
    entries = MemoryStore(cfg).entries("memory")
    assert entries[-1] == NEW and entries[0].startswith("Merged: ")
    assert "consolidated first" in result["message"]


def test_the_consolidation_child_is_asked_about_the_target_that_overflowed(agent):
    cfg = agent.configure("consolidate", user_char_limit=200)
    store = MemoryStore(cfg)
    for pref in ("Prefers short answers in chat.", "Never use emojis in commit messages.",
                 "Wants tests written before refactors.", "Works from Berlin, mornings only.",
                 "Reviews PRs on Fridays after lunch."):
        assert store.add("user", pref)["success"]
    store.add("memory", "The project uses pnpm.")
    result = add_entry(you_of(cfg), "user", "Likes type hints on every public function.")
    assert result["success"], result
    assert [c["kind"] for c in agent.calls()] == ["consolidate"]
    assert store.entries("user")[0].startswith("Merged: ") and len(store.entries("user")) == 2
    assert store.entries("memory") == ["The project uses pnpm."]  # the other file untouched


@pytest.mark.parametrize("mode", ["crash", "nothing"])
def test_when_consolidation_does_not_help_the_original_error_returns_once(agent, mode):
    cfg = agent.configure(mode, memory_char_limit=320)
    original = _fill(cfg)
    result = add_entry(you_of(cfg), "memory", NEW)
    assert result["success"] is False
    assert result["error"].startswith(original["error"])  # the original over-limit error
    # and, when the child failed, that tacit tried and why it failed (it said nothing of it)
    assert ("the background agent failed" in result["error"]) is (mode != "nothing"), result["error"]
    assert len(agent.calls()) == 1  # never loops
    report = result["consolidation"]
    assert report["child_ok"] is (mode == "nothing")
    assert report["mode"] == ("agent" if mode == "nothing" else "agent-failed+deterministic")
    assert MemoryStore(cfg).entries("memory") == FILL  # nothing lost


def test_memory_add_cli_consolidates_once_and_never_inside_a_child(agent, tacit_env):
    cfg = agent.configure("consolidate", memory_char_limit=320)
    _fill(cfg)
    tacit = [sys.executable, "-m", "tacit", "memory", "add", "--json", NEW]
    inside = subprocess.run(tacit, env={**tacit_env, "TACIT_CHILD": "1"}, capture_output=True, text=True,
                            timeout=60)
    assert inside.returncode == 1 and json.loads(inside.stdout)["over_limit"]
    assert agent.calls() == []  # a child never starts a child: deterministic merge only
    outside = subprocess.run(tacit, env=tacit_env, capture_output=True, text=True, timeout=60)
    assert outside.returncode == 0, outside.stdout + outside.stderr
    assert json.loads(outside.stdout)["success"] is True
    assert [c["kind"] for c in agent.calls()] == ["consolidate"]


# ---------------------------------------------------------------------------
# Launchers: detached (hook hosts) and thread (in-process hosts)
# ---------------------------------------------------------------------------


def _wait(predicate, timeout=30.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("mode", ["oneshot", "inprocess"])
def test_a_child_is_detached_the_turn_never_waits_and_it_clears_its_own_mark(agent, mode):
    cfg = agent.configure("save", "--sleep", "1.5")
    engine = build_engine(cfg, mode, discover_plugins=False)
    started = time.time()
    correction_turns(engine)
    assert time.time() - started < 1.0  # the turn never waits for the child
    running = engine.sessions.peek("s").running["correction"]
    assert running["pid"] and running["job_id"]
    assert MemoryStore(cfg).entries("user") == []  # not yet: the child is still working
    assert _wait(lambda: engine.sessions.peek("s").running == {}), "the child never cleared its mark"
    assert MemoryStore(cfg).entries("user") == [f"Correction: {CORRECTION}"]
    (record,) = child_records(cfg)
    assert record["ok"] is True and record["duration"] >= 1.5
    assert agent.calls()[0]["pgid"] != os.getpgid(0)  # its own process group, away from the host's
    with engine.ledger().read() as conn:
        status, variables = conn.execute("SELECT status, variables FROM jobs WHERE id = ?",
                                         (running["job_id"],)).fetchone()
    assert status == "done" and variables == "{}"  # the conversation it carried is not kept


def test_child_run_takes_a_queued_job_once_and_clears_the_mark(agent):
    cfg = agent.configure("nothing")
    ledger = Ledger(cfg)
    store = SessionStore(lambda: ledger)
    with store.updating("s") as state:
        state.mark_running("review", "job-1")
    with ledger.write() as conn:
        insert_job(conn, {"id": "job-1", "kind": "review", "session_id": "s", "variables": {"reason": "3 turns"}})
    record = run_job_id(cfg, "job-1")
    assert record["ok"] and store.peek("s").running == {}
    assert run_job_id(cfg, "job-1") is None  # taken: never run twice
    assert run_job_id(cfg, "no-such-job") is None
    assert len(agent.calls()) == 1


# ---------------------------------------------------------------------------
# No agent: deterministic fallbacks
# ---------------------------------------------------------------------------


def test_without_an_agent_a_correction_becomes_its_exact_rule_or_nothing(cfg):
    assert not agent_available(cfg, None)
    engine = build_engine(cfg, "replay")
    correction_turns(engine)
    assert MemoryStore(cfg).entries("user") == exact_rule_entries(CORRECTION)
    record = run_job(cfg, job("review", reason="x"))
    assert record["mode"] == "deterministic" and record["ok"] is False and "no agent" in record["skipped"]
    vague = "why did you add another utils file, helpers.ts exists"
    saved = run_job(cfg, job("correction", correction=vague))
    assert saved["ok"] and vague not in " ".join(MemoryStore(cfg).entries("user"))
    assert all("User correction" not in e for e in MemoryStore(cfg).entries("user"))


def test_children_disabled_or_missing_binary_means_no_agent(cfg, agent):
    assert not agent_available(cfg, "claude-code") or agent_available(cfg, "claude-code") == bool(
        __import__("shutil").which("claude", path=cfg.env.get("PATH")))
    assert not agent_available(cfg.with_settings(child_command="/no/such/agent -p {prompt}"), None)
    configured = agent.configure("save")
    assert agent_available(configured, None)
    assert not agent_available(configured.with_settings(child_enabled=False), None)
    # `tacit learn` without --host: no "no host has no child command" double negative
    assert why_no_agent(cfg.with_settings(child_command=""), None) == (
        "no agent host is known (set child_command in config.toml)")
    # switched off in the environment, not in config.toml: the reason says where
    off = load_config(env={**configured.env, "TACIT_CHILD_ENABLED": "false"})
    assert why_no_agent(off, None) == "child_enabled is false (environment TACIT_CHILD_ENABLED)"
    assert why_no_agent(configured.with_settings(child_enabled=False), None) == "child_enabled = false in config.toml"


# ---------------------------------------------------------------------------
# Commands and prompts
# ---------------------------------------------------------------------------


def test_command_templates_fill_placeholders_and_drop_empty_flags(cfg, tmp_path):
    # issue 14: the prompt goes on stdin, never on the command line
    command = build_command(cfg, "claude-code", job(), "the prompt", tmp_path)
    argv = command.argv
    assert argv[:2] == ["claude", "-p"] and "the prompt" not in argv and command.stdin == "the prompt"
    assert json.loads(argv[argv.index("--settings") + 1])["disableAllHooks"] is True
    assert argv[argv.index("--model") + 1] == "haiku"
    assert argv[argv.index("--output-format") + 1] == "json"
    assert argv[argv.index("--add-dir") + 1] == cfg.home_str
    pi = build_command(cfg, "pi", job(), "p", tmp_path).argv
    assert "--model" not in pi  # no model configured: the flag goes too
    custom = cfg.with_settings(child_command="{tacit} memory show --max {max_turns} {prompt_file}")
    command = build_command(custom, None, job(), "hello", tmp_path)
    argv = command.argv
    assert argv[-1] == str(tmp_path / "prompt.md") and (tmp_path / "prompt.md").read_text() == "hello"
    assert (tmp_path / "prompt.md").stat().st_mode & 0o777 == 0o600 and command.stdin is None
    assert argv[-3:-1] == ["--max", "12"] and "memory" in argv
    assert {name for name, command in host_specs.table("child_command").items() if command} == {
        "claude-code", "hermes", "pi", "codex"}
    with pytest.raises(RuntimeError):
        build_command(cfg, None, job(), "x", tmp_path)


def test_child_environment_marks_the_child_and_finds_tacit(cfg):
    runner = process_env(cfg, "claude-code")
    assert "TACIT_CHILD" not in runner and runner["TACIT_HOME"] == cfg.home_str
    env = process_env(cfg, "claude-code", child=True)
    assert env["TACIT_CHILD"] == "1" and env["TACIT_HOST"] == "claude-code"
    assert env["TACIT_HOME"] == cfg.home_str
    assert env["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)


@pytest.mark.parametrize("kind,variables,expect", [
    ("correction", {"correction": CORRECTION, "prev_assistant": "I ran npm install."},
     ["<correction>\n" + CORRECTION + "\n</correction>", "I ran npm install.", "Nothing to save."]),
    ("review", {"reason": "15 tool calls", "recent": [{"role": "user", "text": "hi"}]},
     ["(due to: 15 tool calls)", "[user] hi", "## Existing skills"]),
    ("review", {"reason": "a durable statement", "recent": [],
                "highlighted": [{"text": "we use yarn here", "category": "fact", "score": 0.6}]},
     ["(due to: a durable statement)", "<highlighted>\n- (fact) we use yarn here\n</highlighted>"]),
    ("skill", {"tool_calls": ["Bash", "Edit"], "tool_call_count": 2, "tool_names": ["Bash", "Edit"],
               "user_text": "cut a release", "assistant_text": "Tagged."},
     ["2 tool calls: Bash, Edit", "Bash → Edit", "cut a release"]),
    ("flush", {"why": "compact"}, ["about to be compacted"]),
    ("consolidate", {"targets": ["user"]}, ["USER PROFILE (who the user is, in every project) is too full",
                                            "USER.md): bring it well under its limit"]),
])
def test_every_child_prompt_renders_with_the_current_memory(cfg, kind, variables, expect):
    MemoryStore(cfg).add("memory", "The project uses pnpm.")
    text = render_job_prompt(cfg, {"kind": kind, "host": "claude-code", "variables": variables})
    for fragment in expect:
        assert fragment in text, fragment
    if kind != "skill":  # the skill writer gets the skill index, not the memory
        assert "The project uses pnpm." in text
    assert "memory add --scope user" in text
    hermes = render_job_prompt(cfg, {"kind": kind, "host": "hermes", "variables": variables})
    assert "`memory` tool" in hermes
