"""A session file with one line nested deeper than Python's JSON decoder
allows (``{"x": [[[[…`` 100,000 deep): ``tacit search`` and ``tacit learn``
failed whole with an internal RecursionError. It is one bad line, skipped;
the rest of the file is read."""

from __future__ import annotations

import json
import os
import subprocess
import sys

DEEP = '{"x": ' + "[" * 100_000


def _line(text: str) -> str:
    return json.dumps({"type": "user", "sessionId": "s-deep", "cwd": "/nowhere", "uuid": "u1",
                       "timestamp": "2026-12-01T10:00:00Z", "message": {"role": "user", "content": text}})


def tacit(env, *args):
    proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_search_skips_a_line_nested_too_deep(tacit_env, tmp_path):
    folder = tmp_path / "user-home" / ".claude" / "projects" / "-nowhere"
    folder.mkdir(parents=True)
    (folder / "s-deep.jsonl").write_text(_line("how do we seed the database") + "\n" + DEEP + "\n")
    rc, out = tacit(tacit_env, "search", "--all-projects", "seed", "database")
    assert rc == 0 and out["success"] is True, out
    assert "seed the database" in out["results"][0]["text"]


def test_learn_skips_a_line_nested_too_deep(tacit_env, tmp_path):
    path = tmp_path / "s-deep.jsonl"
    path.write_text(DEEP + "\n" + _line("no, use pnpm not npm") + "\n")
    rc, out = tacit(tacit_env, "learn", str(path))
    assert out.get("error_kind") != "internal", out
    assert out["totals"]["sessions"] == 1 and out["totals"]["malformed_lines"] == 1, out["totals"]


def test_learn_of_a_device_says_what_it_is_not(tacit_env, tmp_path):
    """`tacit learn /dev/zero` answered "no such file or folder" of a path that exists."""
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    for path, why in (("/dev/zero", "not a regular file or folder"), (str(fifo), "not a regular file or folder"),
                      (str(tmp_path / "missing.jsonl"), "no such file or folder")):
        rc, out = tacit(tacit_env, "learn", path)
        assert rc == 1 and out["success"] is False and out["files"] == [{"path": path, "error": why}], out
