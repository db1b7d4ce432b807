"""The privacy corpus through every entry point (issue 14's proof).

The labelled corpus (tests/data/privacy_corpus.jsonl: secret shapes,
``<private>`` spans, don't-keep phrasings, benign look-alikes) is turned into
one scripted conversation and driven through each way a host reaches tacit:

- Claude Code and Codex hooks (``tacit.hosts.hooks.run`` on a real engine),
- the Hermes plugin (``tacit.hosts.hermes.plugin.HermesAdapter``),
- the pi protocol (``tacit.hosts.pi.protocol.PiSession``),
- ``tacit learn --apply`` (the CLI, in its own process),
- and once the real hook client process, through the service.

Each runs with no child agent available (the deterministic fallbacks) and
with the recording fake agent (``test_privacy_helpers.Recorder``), whose
prompts, command lines and saves are real. The agent's replies and tool
calls echo what the user said, as a real agent does. Afterwards the whole
data folder — every file's bytes, SQLite's ``-wal``/``-shm`` included — and
every child prompt and command line hold none of the secrets, private
spans or don't-keep messages, and every benign look-alike reached a child
prompt unchanged.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from test_privacy_corpus import ROWS
from test_privacy_helpers import Recorder, in_texts, leaks

from tacit.boundary import scrub
from tacit.commandline import hook_command
from tacit.config import load_config
from tacit.hosts import hooks
from tacit.hosts.hermes.plugin import HermesAdapter
from tacit.hosts.pi.protocol import PiSession
from tacit.hosts.runtime import build_engine
from tacit.safety import asks_not_to_keep
from tacit.stores.memory import MemoryStore

GHP = "ghp_" + "Zq4xRt7uVw1yAb3cDe5fGh8iJk0lMn2oPq6s"
CORRECTION = f"no, don't use npm here. we use pnpm in this repo, and the deploy token is {GHP}"
PRIVATE_FORMS = ("<private>{c}</private>", "<PRIVATE>{c}</PRIVATE>", '< private reason="pw" >{c}</private>',
                 "<private>outer <private>{c}</private> still hidden</private>", "<private>\nline {c}\n</private>",
                 "unclosed <private>{c} and everything after it")
MESSAGE_CHARS = 1400  # below the child prompt's 1,500-character quote of one message


@dataclass
class Script:
    turns: list = field(default_factory=list)
    forbidden: list = field(default_factory=list)  # may appear nowhere
    benign: list = field(default_factory=list)  # must reach a child prompt unchanged


def _packs(items: list, size: int):
    for start in range(0, len(items), size):
        yield items[start:start + size]


def build_script() -> Script:
    script = Script()
    secrets = [r for r in ROWS if r["kind"] == "secret"]
    for pack in _packs(secrets, 5):
        script.turns.append("Context for the task:\n" + "\n".join(r["text"] for r in pack))
        for row in pack:
            script.forbidden += row["values"] + row["literals"]
    for n in range(24):
        content = f"PRIV{n}QZ diary note"
        span = PRIVATE_FORMS[n % len(PRIVATE_FORMS)].format(c=content)
        script.turns.append(f"please check step {n}: {span} then continue")
        script.forbidden.append(f"PRIV{n}QZ")
    by_lang: dict = {}
    for row in ROWS:
        if row["kind"] == "dont_keep" and row["label"] is True:
            by_lang.setdefault(row["lang"], []).append(row)
    chosen = [row for rows in by_lang.values() for row in rows[:6]]
    for n, row in enumerate(chosen):
        marker = f"DK{n}QZ"
        for message in (f"{row['text']}\n{marker} is my locker code", f"{marker} is my locker code.\n{row['text']}"):
            if asks_not_to_keep(message):
                script.turns.append(message)
                script.forbidden.append(marker)
                break
    assert len([f for f in script.forbidden if f.startswith("DK")]) >= len(chosen) - 2
    script.turns.append("don't save this, the staging password is hunter2")  # the issue's own case
    script.turns.append(CORRECTION)
    script.forbidden += ["hunter2", GHP]
    benign = [r["text"] for r in ROWS if r["kind"] == "benign" and len(r["text"]) < 150 and "\n" not in r["text"]]
    for pack in _packs(benign, 8):
        message = "Notes for later:\n" + "\n".join(f"- {t}" for t in pack)
        assert len(message) < MESSAGE_CHARS
        script.turns.append(message)
        script.benign += pack
    # interleave so each kind meets the others in the conversation windows the children see
    script.turns = script.turns[0::3] + script.turns[1::3] + script.turns[2::3]
    assert all(len(t) < MESSAGE_CHARS for t in script.turns)
    return script


SCRIPT = build_script()


def reply_to(text: str) -> str:
    return "Understood. You said: " + text[:400]


def tool_input(text: str) -> dict:
    return {"command": "echo " + json.dumps(text[:300]), "description": text[:200]}


# ---------------------------------------------------------------------------
# Drivers: one per entry point
# ---------------------------------------------------------------------------
def drive_hooks(cfg, host: str, cwd: str) -> None:
    engine = build_engine(cfg, "replay", host=host, discover_plugins=False)

    def hook(event, **payload):
        payload.update(session_id=f"{host}-1", cwd=cwd)
        hooks.run(engine, host, event, json.dumps(payload).encode())

    hook("SessionStart", source="startup")
    for text in SCRIPT.turns:
        hook("UserPromptSubmit", prompt=text)
        hook("PreToolUse", tool_name="Bash", tool_input=tool_input(text))
        hook("PostToolUse", tool_name="Bash", tool_input=tool_input(text))
        hook("Stop", last_assistant_message=reply_to(text))
    hook("PreCompact", trigger="manual")
    hook("SessionEnd", reason="exit")
    engine.close()


def drive_claude_code(cfg, cwd, env, tmp):
    drive_hooks(cfg, "claude-code", cwd)


def drive_codex(cfg, cwd, env, tmp):
    drive_hooks(cfg, "codex", cwd)


def drive_hermes(cfg, cwd, env, tmp):
    engine = build_engine(cfg, "replay", host="hermes", discover_plugins=False)
    adapter = HermesAdapter(cfg, engine)
    sid = "hermes-1"
    adapter.on_session_start(session_id=sid, model="m", platform="cli")
    for n, text in enumerate(SCRIPT.turns):
        adapter.pre_llm_call(session_id=sid, user_message=text, is_first_turn=n == 0)
        adapter.post_tool_call(tool_name="terminal", args=tool_input(text), result=json.dumps({"exit_code": 0}),
                               session_id=sid)
        adapter.post_llm_call(session_id=sid, user_message=text, assistant_response=reply_to(text))
    adapter.on_session_end(session_id=sid)
    adapter.on_session_finalize(session_id=sid, reason="exit")
    engine.close()


def drive_pi(cfg, cwd, env, tmp):
    engine = build_engine(cfg, "replay", host="pi", discover_plugins=False)
    common = {"session_id": "pi-1", "cwd": cwd}
    messages = [{"id": 0, "method": "hello", "params": {"protocol": 2}}]
    events = [{"kind": "session_start", "source": "startup"}]
    for text in SCRIPT.turns:
        events += [{"kind": "before_agent_start", "prompt": text},
                   {"kind": "message_end", "role": "user", "text": text},
                   {"kind": "tool_call", "name": "bash", "args": tool_input(text)},
                   {"kind": "tool_result", "name": "bash", "ok": True, "args": tool_input(text)},
                   {"kind": "message_end", "role": "assistant", "text": reply_to(text)},
                   {"kind": "turn_end"}]
    events.append({"kind": "session_shutdown", "reason": "exit"})
    messages += [{"id": n, "method": "event", "params": {**e, **common}} for n, e in enumerate(events, 1)]
    messages.append({"id": len(messages) + 1, "method": "shutdown", "params": {}})
    out = io.BytesIO()
    PiSession(engine, [json.dumps(m) + "\n" for m in messages], out).serve()
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert not [r for r in replies if "error" in r], [r for r in replies if "error" in r][:2]
    engine.close()


def drive_learn(cfg, cwd, env, tmp):
    path = Path(tmp) / "recorded-session.jsonl"
    lines = [{"kind": "session_start", "session_id": "learn-1", "cwd": cwd}]
    for text in SCRIPT.turns:
        lines += [{"kind": "message_end", "role": "user", "text": text, "session_id": "learn-1", "cwd": cwd},
                  {"kind": "tool_result", "name": "Bash", "args": tool_input(text), "session_id": "learn-1", "cwd": cwd},
                  {"kind": "message_end", "role": "assistant", "text": reply_to(text), "session_id": "learn-1",
                   "cwd": cwd},
                  {"kind": "turn_end", "session_id": "learn-1", "cwd": cwd}]
    lines.append({"kind": "session_shutdown", "session_id": "learn-1", "cwd": cwd})
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "tacit", "learn", "--apply", "--json", "--no-progress", str(path)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["totals"]["turns"] == len(SCRIPT.turns)


DRIVERS = {"claude-code": drive_claude_code, "codex": drive_codex, "hermes": drive_hermes, "pi": drive_pi,
           "learn-apply": drive_learn}
SETTINGS = {"nudge_interval": 3, "review_min_user_turns": 1, "correction_save_every_turns": 1,
            "flush_min_turns": 1, "skill_trigger_tool_calls": 1000}


def check_nothing_leaked(home: Path, recorder: Recorder | None) -> None:
    found = leaks(home, SCRIPT.forbidden)
    assert found == {}, {k: v for k, v in list(found.items())[:5]}
    if recorder is None:
        return
    calls = recorder.calls()
    assert calls, "no child ran"
    texts = [c["prompt"] for c in calls] + [" ".join(c["cmdline"]) for c in calls]
    assert in_texts(texts, SCRIPT.forbidden) == {}
    # the prompt never is on a child's command line
    assert not any("memory keeper" in " ".join(c["cmdline"]) for c in calls)


# ---------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------
def test_the_script_covers_the_corpus():
    kinds = {r["kind"] for r in ROWS}
    assert {"secret", "private", "dont_keep", "benign"} <= kinds
    assert len(SCRIPT.benign) >= 100 and len([f for f in SCRIPT.forbidden if f.startswith("PRIV")]) == 24
    assert all(scrub(text) == text for text in SCRIPT.benign)  # look-alikes pass the boundary unchanged


@pytest.mark.parametrize("entry", DRIVERS)
def test_without_an_agent_nothing_private_is_kept(entry, tmp_path, tacit_home, tacit_env):
    recorder = Recorder(tmp_path, tacit_env)
    cfg = recorder.configure(tacit_home, child_command="/nonexistent/agent", **SETTINGS)
    assert not recorder.calls()
    project = tmp_path / "project"
    project.mkdir()
    DRIVERS[entry](cfg, str(project), recorder.env, tmp_path)
    check_nothing_leaked(tacit_home, None)
    entries = " ".join(e for scope in ("user", "global") for e in MemoryStore(cfg).entries(scope))
    assert "hunter2" not in entries and GHP not in entries


@pytest.mark.parametrize("entry", DRIVERS)
def test_with_a_recording_agent_no_prompt_carries_a_secret_and_look_alikes_arrive(entry, tmp_path, tacit_home,
                                                                                  tacit_env):
    recorder = Recorder(tmp_path, tacit_env, mode="nothing")
    cfg = recorder.configure(tacit_home, **SETTINGS)
    project = tmp_path / "project"
    project.mkdir()
    DRIVERS[entry](cfg, str(project), recorder.env, tmp_path)
    check_nothing_leaked(tacit_home, recorder)
    prompts = recorder.prompts()
    missing = [text for text in SCRIPT.benign if not any(text in p for p in prompts)]
    assert missing == [], f"{len(missing)} look-alikes never reached a child: {missing[:5]}"
    correction_prompts = [p for p in prompts if "<correction>" in p]
    assert any("we use pnpm in this repo" in p and "[REDACTED:github_token]" in p for p in correction_prompts)
    assert not any("don't save this, the staging" in p for p in prompts)  # the don't-keep turn reached no child


def test_through_the_real_hook_client_and_the_service(tmp_path, tacit_home, tacit_env):
    recorder = Recorder(tmp_path, tacit_env, mode="save")
    recorder.configure(tacit_home, **SETTINGS)
    env = recorder.env
    project = tmp_path / "project"
    project.mkdir()
    turns = [SCRIPT.turns[0], "install the deps", "don't save this, the staging password is hunter2",
             "step 1: <private>PRIV0QZ diary note</private> continue", CORRECTION, SCRIPT.turns[-1]]

    def hook(event, **payload):
        payload.update(session_id="real-1", cwd=str(project))
        proc = subprocess.run(hook_command(sys.executable, "claude-code", event), shell=True, env=env,
                              input=json.dumps(payload), capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr

    hook("SessionStart", source="startup")
    for text in turns:
        hook("UserPromptSubmit", prompt=text)
        hook("PostToolUse", tool_name="Bash", tool_input=tool_input(text))
        hook("Stop", last_assistant_message=reply_to(text))
    hook("SessionEnd", reason="exit")
    import time

    log = tacit_home / "logs" / "children.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline and not (log.exists() and any(
            "correction" in (json.loads(line).get("kinds") or [json.loads(line)["kind"]])
            for line in log.read_text().splitlines())):
        time.sleep(0.2)
    from tacit.service import client

    time.sleep(1.0)
    client.stop(str(tacit_home), wait=10)
    check_nothing_leaked(tacit_home, recorder)
    cfg = load_config(env=env)
    saved = MemoryStore(cfg).entries("user")
    assert any("pnpm" in e for e in saved) and not any(GHP in e for e in saved)
