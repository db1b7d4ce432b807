"""``tacit review --edit`` with a text longer than the note's memory file
holds: it was accepted, then ``--keep`` failed with "refused it (scanner or
limit)". It is refused at the edit, saying the sizes, and the note keeps
its text."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from tacit.learn import importance
from tacit.learn.captures import Assessment
from tacit.stores.ledger import Ledger

NOTE = "Prefers short answers, without a summary at the end."


def test_an_edit_longer_than_the_memory_file_is_refused(cfg, tacit_env):
    with Ledger(cfg) as led, led.write() as conn:
        importance.capture(conn, cfg, Assessment("capture", category="preference", importance=0.95, content=NOTE,
                                                 phrased=True), session_id="s1", now=time.time())
    args = [sys.executable, "-m", "tacit", "review", "--json"]
    proc = subprocess.run([*args, "--edit", "1", "x" * 100_000], env=tacit_env, capture_output=True, text=True,
                          timeout=60)
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and out["success"] is False and "100,000 characters" in out["error"], out
    items = json.loads(subprocess.run(args, env=tacit_env, capture_output=True, text=True, timeout=60).stdout)["items"]
    assert [i["content"] for i in items] == [NOTE]


def test_an_edit_with_a_control_character_is_refused_at_the_edit(cfg, tacit_env):
    """`tacit review --edit 1 $'Prefers \\x1b[2J short answers'` answered "Review: edited 1.": a note no
    memory file takes (an entry may hold no control character), refused only when it was kept."""
    with Ledger(cfg) as led, led.write() as conn:
        importance.capture(conn, cfg, Assessment("capture", category="preference", importance=0.95, content=NOTE,
                                                 phrased=True), session_id="s1", now=time.time())
    args = [sys.executable, "-m", "tacit", "review", "--json"]
    proc = subprocess.run([*args, "--edit", "1", "Prefers \x1b[2J short answers"], env=tacit_env,
                          capture_output=True, text=True, timeout=60)
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and "control character (U+001B)" in out["error"], out
    items = json.loads(subprocess.run(args, env=tacit_env, capture_output=True, text=True, timeout=60).stdout)["items"]
    assert [i["content"] for i in items] == [NOTE]
