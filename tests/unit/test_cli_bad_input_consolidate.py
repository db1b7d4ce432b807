"""``tacit consolidate --force`` over a memory file that is not valid UTF-8:
tacit refuses to rewrite it (nothing lost), and says so — the refusal was
folded into a success with exit 0 and no word of it in the text."""

from __future__ import annotations

import json
import subprocess
import sys


def tacit(env, *args):
    return subprocess.run([sys.executable, "-m", "tacit", *args], env=env, capture_output=True, text=True,
                          timeout=60)


def test_a_refused_scope_is_told_and_fails_the_command(cfg, tacit_env):
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    raw = b"Use pnpm.\n\xc2\xa7\nUse pnpm.\n\xc2\xa7\ncaf\xe9 \xff\n"
    cfg.memory_file.write_bytes(raw)
    proc = tacit(tacit_env, "consolidate", "--force", "--deterministic", "--json")
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and out["success"] is False and "not valid UTF-8" in out["error"], out
    text = tacit(tacit_env, "consolidate", "--force", "--deterministic")
    assert text.returncode == 1 and "not changed" in text.stdout + text.stderr and "Traceback" not in text.stderr
    assert cfg.memory_file.read_bytes() == raw
