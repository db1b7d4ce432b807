"""``tacit install`` over a host's file that is not valid UTF-8: one clear
error naming the file (it said "'utf-8' codec can't decode byte 0xff in
position 0"), exit 1, and the file left exactly as it was."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_codex_install_names_the_file_it_cannot_read(tacit_env):
    codex = Path(tacit_env["HOME"]) / ".codex"
    codex.mkdir()
    raw = b"\xff\xfe not json, not text"
    (codex / "hooks.json").write_bytes(raw)
    proc = subprocess.run([sys.executable, "-m", "tacit", "install", "codex", "--json"], env=tacit_env,
                          capture_output=True, text=True, timeout=60)
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and out["success"] is False, out
    assert str(codex / "hooks.json") in out["error"] and "not valid UTF-8" in out["error"], out
    assert (codex / "hooks.json").read_bytes() == raw
