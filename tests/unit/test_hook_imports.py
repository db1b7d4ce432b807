"""The hook command imports only what a socket needs.

Claude Code and Codex start a process per hook event; the engine runs in the
service, so the hook process — the exact command ``tacit install`` writes —
must import nothing beyond tacit's client, ``posix``, ``time`` and
``_socket``. Checked with ``-X importtime`` on the real command, against a
running service (the warm path) and a cold data folder; nothing is timed
here (tests/benchmarks/hooks.py measures the time).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time

from tacit.commandline import hook_command

ALLOWED = {"tacit", "tacit.hosts", "tacit.hosts.hook_client", "tacit.paths", "_socket", "time", "posix"}
# what every interpreter imports before running any code (with -I -S)
STARTUP = {"_io", "marshal", "posix", "_frozen_importlib_external", "time", "zipimport", "_codecs", "codecs",
           "encodings.aliases", "encodings", "encodings.utf_8", "_signal", "_abc", "abc", "io", "_thread",
           "_warnings", "_weakref", "_imp", "encodings.latin_1", "_frozen_importlib"}


def imported(env, event: str, body: bytes) -> tuple[set, bytes]:
    argv = shlex.split(hook_command(sys.executable, "claude-code", event))
    argv.insert(1, "-Ximporttime")
    proc = subprocess.run(argv, input=body, env=env, capture_output=True, timeout=60)
    assert proc.returncode == 0
    names = set()
    for line in proc.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line and "imported package" not in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names, proc.stdout


def test_the_warm_hook_path_imports_only_the_client(tacit_env):
    body = json.dumps({"session_id": "s", "cwd": "/tmp", "tool_name": "Bash",
                       "tool_input": {"command": "ls"}}).encode()
    imported(tacit_env, "SessionStart", json.dumps({"session_id": "s", "cwd": "/tmp"}).encode())  # starts it
    time.sleep(0.5)
    for event in ("PostToolUse", "PreToolUse", "UserPromptSubmit", "Stop", "SessionStart"):
        names, _ = imported(tacit_env, event, body)
        assert names - STARTUP <= ALLOWED, (event, sorted(names - STARTUP - ALLOWED))


def test_the_client_falls_back_in_process_and_still_answers(tacit_env, tmp_path):
    """With no service reachable in time (here: its run folder is a file, so
    no socket can be made), the hook runs the engine itself."""
    blocked = tmp_path / "blocked-home"
    blocked.mkdir()
    (blocked / "run").write_text("not a folder")
    env = {**tacit_env, "TACIT_HOME": str(blocked)}
    names, out = imported(env, "SessionStart", json.dumps({"session_id": "s", "cwd": "/tmp"}).encode())
    assert "tacit.engine" in names  # it ran the engine here
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
