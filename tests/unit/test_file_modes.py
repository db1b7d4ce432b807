"""Files 0600, folders 0700: everything tacit writes in its data folder.

A scripted session runs the way a user's does — Claude Code hooks through the
real hook client and the service, child agents (the recording fake) through
``tacit child run``, the CLI — and then every file and folder in the data
folder is checked, the ledger's ``-wal``/``-shm`` and the service's socket
included. ``tacit.safety.file_modes.check`` finds and repairs what is not.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

from test_privacy_helpers import Recorder
from wait_helpers import wait_for

from tacit.commandline import hook_command
from tacit.config import load_config
from tacit.safety import file_modes

CORRECTION = "no, don't use npm here. we use pnpm in this repo"


def hook(env, event: str, **payload) -> str:
    payload.setdefault("session_id", "modes-1")
    proc = subprocess.run(hook_command(sys.executable, "claude-code", event), shell=True, env=env,
                          input=json.dumps(payload), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def tacit(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tacit", *args], env=env, capture_output=True, text=True,
                          timeout=60)


def modes(root: Path) -> dict[str, tuple[str, int]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            kind = ("folder" if stat.S_ISDIR(info.st_mode) else "link" if stat.S_ISLNK(info.st_mode)
                    else "socket" if stat.S_ISSOCK(info.st_mode) else "file")
            out[os.path.relpath(path, root)] = (kind, stat.S_IMODE(info.st_mode))
    return out


def test_everything_a_scripted_session_writes_is_private(tmp_path, tacit_home, tacit_env):
    recorder = Recorder(tmp_path, tacit_env, mode="save")
    recorder.configure(tacit_home, nudge_interval=2, review_min_user_turns=1, correction_save_every_turns=1,
                       flush_min_turns=1)
    os.chmod(tacit_home / "config.toml", 0o600)  # the user's own file (the test wrote it)
    os.chmod(tacit_home, 0o700)
    env = recorder.env
    project = tmp_path / "proj"
    project.mkdir()
    cwd = str(project)
    hook(env, "SessionStart", source="startup", cwd=cwd)
    for n, text in enumerate(["install the deps", CORRECTION, "now run the tests", "thanks"]):
        hook(env, "UserPromptSubmit", prompt=text, cwd=cwd)
        hook(env, "PreToolUse", tool_name="Bash", tool_input={"command": "npm i"}, cwd=cwd)
        hook(env, "PostToolUse", tool_name="Bash", tool_input={"command": "npm i"}, cwd=cwd)
        hook(env, "Stop", last_assistant_message=f"Done with step {n}.", cwd=cwd)
    hook(env, "PreCompact", trigger="manual", cwd=cwd)
    assert tacit(env, "memory", "add", "--target", "user", "Name is Sam.").returncode == 0
    body = tmp_path / "body.md"
    body.write_text("## When to Use\nAlways.\n\n## Procedure\n1. Go.\n\n## Pitfalls\nNone.\n\n"
                    "## Verification\nDone.\n")
    assert tacit(env, "skill", "create", "--name", "go-fast", "--description", "Go fast.",
                 "--body-file", str(body)).returncode == 0
    children = tacit_home / "logs" / "children.jsonl"
    # the correction and the review due in the same turn run as one child (with the flush claimed
    # right after them: one background child per session at a time)
    wait_for(lambda: children.exists() and children.read_text().strip(), 60, "a child run")
    time.sleep(1.0)
    records = [json.loads(line) for line in children.read_text().splitlines()]
    assert any({"correction", "review"} <= set(r.get("kinds") or ()) for r in records), records
    # off and on again once the session's children ran: a job claimed while the project is off is
    # skipped, which a loaded machine made race with the child above
    assert tacit(env, "off", "--project", cwd).returncode == 0 and tacit(env, "on", "--project", cwd).returncode == 0
    # a job claimed while the project was off (``tacit off`` above) is skipped: it starts no agent
    assert len(recorder.calls()) == len([r for r in records if r.get("mode") != "skipped"]), records
    assert all(call["umask"] == 0o077 for call in recorder.calls())  # children inherit the private umask
    cfg = load_config(env=env)
    with_service = modes(tacit_home)  # while the service runs: its socket, the ledger's -wal and -shm
    hook(env, "SessionEnd", reason="exit", cwd=cwd)
    from tacit.service import client

    client.stop(str(tacit_home), wait=10)
    after = modes(tacit_home)
    everything = {**with_service, **after}
    assert any(name.endswith("ledger.db-wal") for name in everything), sorted(everything)
    assert any(name.endswith("tacit.sock") for name in everything)
    for expected in ("ledger.db", "logs/children.jsonl", "memories/USER.md", "skills/go-fast/SKILL.md", "run"):
        assert any(name == expected or name.endswith("/" + expected) for name in everything), expected
    loose = {name: (kind, oct(mode)) for name, (kind, mode) in everything.items()
             if (kind == "folder" and mode != 0o700) or (kind in ("file", "socket") and mode != 0o600)}
    assert loose == {}
    assert file_modes.check(cfg) == []


def test_check_finds_and_repair_fixes_loose_modes(cfg, tacit_home):
    (tacit_home / "logs").mkdir()
    os.chmod(tacit_home / "logs", 0o755)  # explicit: an earlier in-process CLI call may have set umask 077
    log = tacit_home / "logs" / "tacit.log"
    log.write_text("x")
    os.chmod(log, 0o644)
    script = tacit_home / "skills" / "s" / "run.sh"
    script.parent.mkdir(parents=True)
    os.chmod(script.parent.parent, 0o700)
    os.chmod(script.parent, 0o700)
    script.write_text("#!/bin/sh\n")
    os.chmod(script, 0o700)  # an executable of the owner's only: private
    outside = cfg.home.parent / "elsewhere"
    outside.mkdir()
    os.chmod(outside, 0o755)
    (tacit_home / "link").symlink_to(outside)
    os.chmod(tacit_home, 0o755)
    found = {Path(p.path).name: p for p in file_modes.check(cfg)}
    assert set(found) == {"tacit-home", "logs", "tacit.log", "link"}
    assert found["tacit.log"].mode == 0o644 and "readable by others" in found["tacit.log"].describe()
    assert found["link"].kind == "link"
    repaired = file_modes.check(cfg, repair=True)
    assert all(p.repaired for p in repaired if p.kind != "link")
    assert stat.S_IMODE(log.stat().st_mode) == 0o600 and stat.S_IMODE((tacit_home / "logs").stat().st_mode) == 0o700
    assert stat.S_IMODE(script.stat().st_mode) == 0o700 and stat.S_IMODE(outside.stat().st_mode) == 0o755
    assert [p.kind for p in file_modes.check(cfg)] == ["link"]


def test_the_log_is_private_whatever_the_umask(cfg):
    from tacit.log import log

    old = os.umask(0o022)  # a host running tacit in its own process (Hermes)
    try:
        log(cfg, "info", "test", "hello")
    finally:
        os.umask(old)
    assert stat.S_IMODE(cfg.log_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(cfg.log_file.parent.stat().st_mode) == 0o700


def test_doctor_names_a_file_others_can_read_and_allows_the_hermes_memories_link(cfg, tmp_path):
    from tacit.commands.health import check

    cfg.home.mkdir(parents=True, exist_ok=True)
    os.chmod(cfg.home, 0o700)
    cfg.config_file.write_text("child_enabled = false\n")
    os.chmod(cfg.config_file, 0o644)
    hermes_memories = tmp_path / "hermes-home" / "memories"
    hermes_memories.mkdir(parents=True)
    os.symlink(hermes_memories, cfg.memories_dir, target_is_directory=True)  # what tacit install hermes makes
    from tacit.memory_folder import note_link

    note_link(cfg, hermes_memories)  # … and records as its own (a link it did not make is refused)
    report = check(cfg)
    readable = [p for p in report["problems"] if "readable by others" in p]
    assert readable == [f"{cfg.config_file} is file mode 644, readable by others (want 600); run chmod go-rwx on it"]
    assert not any("symlink" in p for p in report["problems"]) and report["success"] is False
    os.chmod(cfg.config_file, 0o600)
    assert check(cfg)["success"] is True
