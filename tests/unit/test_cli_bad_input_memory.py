"""Bad input to ``tacit memory``, tried as a new user would (real CLI
processes): an empty text is refused rather than matching every entry, and
exit 1 always comes with ``"success": false`` and an error sentence."""

from __future__ import annotations

import json
import subprocess
import sys


def tacit(env, *args):
    proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_moving_an_empty_text_moves_nothing(tacit_env):
    tacit(tacit_env, "memory", "add", "--scope", "global", "Use pnpm, not npm.")
    for text in ("", "   "):
        rc, out = tacit(tacit_env, "memory", "move", text, "--to", "user")
        assert rc == 1 and out["success"] is False and "empty" in out["error"], out
    assert tacit(tacit_env, "memory", "show", "--scope", "global")[1]["entries"] == ["Use pnpm, not npm."]
    assert tacit(tacit_env, "memory", "show", "--scope", "user")[1]["entries"] == []


def test_why_of_nothing_is_a_refusal_with_its_reason(tacit_env):
    tacit(tacit_env, "memory", "add", "--scope", "global", "Use pnpm, not npm.")
    rc, out = tacit(tacit_env, "memory", "why", "")
    assert rc == 1 and out["success"] is False and out["error"], out
    rc, out = tacit(tacit_env, "memory", "why", "yarn")
    assert rc == 1 and out["success"] is False and "yarn" in out["error"], out
    rc, out = tacit(tacit_env, "memory", "why", "pnpm")
    assert rc == 0 and out["success"] is True and out["entries"][0]["entry"] == "Use pnpm, not npm."


def test_refused_writes_to_a_file_that_is_not_utf8_keep_one_backup(cfg, tacit_env):
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    raw = b"Use pnpm.\n\xc2\xa7\ncaf\xe9 \xff\n"
    cfg.memory_file.write_bytes(raw)
    backups = set()
    for n in range(3):
        rc, out = tacit(tacit_env, "memory", "add", "--scope", "global", f"Fact {n}.")
        assert rc == 1 and "not valid UTF-8" in out["error"], out
        backups.add(out["drift_backup"])
    assert cfg.memory_file.read_bytes() == raw
    found = list(cfg.memories_dir.glob("MEMORY.md.bak.*"))
    assert len(found) == 1 and backups == {str(found[0])} and found[0].read_bytes() == raw
    cfg.memory_file.write_bytes(raw + b"more \xff\n")  # a different content gets its own copy
    tacit(tacit_env, "memory", "add", "--scope", "global", "Fact 4.")
    assert len(list(cfg.memories_dir.glob("MEMORY.md.bak.*"))) == 2


def test_stdin_that_is_not_utf8_is_refused_not_mangled(cfg, tacit_env):
    tacit(tacit_env, "memory", "add", "--scope", "global", "Use pnpm, not npm.")
    for args in (("memory", "add", "--scope", "global", "-"), ("forget", "-"),
                 ("memory", "replace", "--scope", "global", "pnpm", "-")):
        proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=tacit_env, capture_output=True,
                              input=b"caf\xe9 \xff is the name", timeout=60)
        out = json.loads(proc.stdout)
        assert proc.returncode == 1 and out["success"] is False and "not valid UTF-8" in out["error"], out
        assert "Traceback" not in proc.stderr.decode()
    assert tacit(tacit_env, "memory", "show", "--scope", "global")[1]["entries"] == ["Use pnpm, not npm."]
    scan = subprocess.run([sys.executable, "-m", "tacit", "scan", "--json"], env=tacit_env, capture_output=True,
                          input=b"caf\xe9", timeout=60)
    assert json.loads(scan.stdout)["success"] is True  # a scan still reads what it can


def test_a_move_out_of_a_file_tacit_will_not_rewrite_copies_nothing(cfg, tacit_env):
    """The move copied the entry to the user profile, then could not remove it from a global
    MEMORY.md that is not UTF-8: the entry was in both, and the command failed."""
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    raw = b"Use pnpm.\n\xc2\xa7\nDeploys go through CI \xff.\n"
    cfg.memory_file.write_bytes(raw)
    rc, out = tacit(tacit_env, "memory", "move", "Use pnpm", "--to", "user")
    assert rc == 1 and out["success"] is False, out
    assert out["error"].startswith("not moved:") and "not valid UTF-8" in out["error"], out
    assert cfg.memory_file.read_bytes() == raw
    assert tacit(tacit_env, "memory", "show", "--scope", "user")[1]["entries"] == []
    assert tacit(tacit_env, "memory", "log")[1]["changes"] == []


def test_endless_input_is_refused_not_read_until_memory_runs_out(cfg, tacit_env):
    """`tacit memory add - < /dev/zero` and `tacit memory batch /dev/zero` read until the process ran
    out of memory ("internal error: MemoryError", or the machine's memory gone)."""
    tacit(tacit_env, "memory", "add", "--scope", "global", "Use pnpm, not npm.")
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run([sys.executable, "-m", "tacit", "memory", "add", "--scope", "global", "-", "--json"],
                              env=tacit_env, stdin=zero, capture_output=True, text=True, timeout=60)
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and "stdin holds more than 32 MiB" in out["error"], out
    rc, out = tacit(tacit_env, "memory", "batch", "/dev/zero")
    assert rc == 1 and "/dev/zero is not a regular file" in out["error"], out
    assert cfg.memory_file.read_text() == "Use pnpm, not npm."
