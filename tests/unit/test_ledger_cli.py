"""The command line, as real subprocesses: ``tacit observe`` (prints the
one-time notice and nothing else), ``tacit memories [--json|forget|teach]``,
``tacit habits list|suggest|status|clear``."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from learn_helpers import pending_notices, record_actions
from tacit.stores.ledger import Ledger

ACME = json.dumps({"company": "Acme Corp", "category": "action-required", "run_hour": 9})


def tacit(env, *args, stdin=None):
    return subprocess.run(["tacit", *args], env=env, capture_output=True, text=True, input=stdin,
                          timeout=60)


def test_observe_prints_the_notice_once_and_nothing_otherwise(tacit_env, cfg):
    outputs = []
    for run in range(8):
        result = tacit(tacit_env, "observe", "--plugin", "P01", "--action", "triage_email",
                       "--context", ACME)
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout)
    assert outputs[:4] == ["", "", "", ""] and outputs[5] == "" and outputs[7] == ""
    assert outputs[4].startswith("Memory adapted: I'm now remembering Acme Corp")  # the fact
    assert outputs[6].count("\n") == 1 and outputs[6].startswith(
        "Memory adapted: I'm now treating Acme Corp as action-required in P01 based on your last 7 sessions.")
    assert '/memory-forget "P01-acme-corp-action-required"' in outputs[6]
    # what observe printed is not queued for a host to show again
    with Ledger(cfg) as led:
        assert pending_notices(led) == []


@pytest.mark.parametrize("context, message", [
    ("{not json", "not valid JSON"),
    ('{"run_hour": 99}', "between 0 and 23"),
    ('{"user_edited": "perhaps"}', "user_edited"),
])
def test_observe_rejects_bad_context_with_exit_2(tacit_env, context, message):
    result = tacit(tacit_env, "observe", "--plugin", "P01", "--action", "a", "--context", context)
    assert result.returncode == 2 and message in result.stderr and result.stdout == ""


def test_observe_reads_context_from_stdin_and_takes_a_session(tacit_env, cfg):
    result = tacit(tacit_env, "observe", "--plugin", "P01", "--action", "a", "--context", "-",
                   "--session", "abc", stdin='{"entity_value": "Zed", "entity_type": "editor"}')
    assert result.returncode == 0 and result.stdout == ""
    shown = json.loads(tacit(tacit_env, "memories", "--json").stdout)
    assert [m["key"] for m in shown["memories"]] == ["entity-zed"]


def test_observe_with_a_corrupt_ledger_still_succeeds(tacit_env, cfg):
    cfg.ledger_path.parent.mkdir(parents=True, exist_ok=True)
    cfg.ledger_path.write_bytes(b"\x00garbage" * 500)
    result = tacit(tacit_env, "observe", "--plugin", "P01", "--action", "a", "--context", "{}")
    assert result.returncode == 0 and result.stdout == ""
    assert any(".corrupt-" in p.name for p in cfg.ledger_path.parent.iterdir())


def test_memories_show_forget_teach(tacit_env, cfg):
    for _ in range(7):
        tacit(tacit_env, "observe", "--plugin", "P01", "--action", "triage_email", "--context", ACME)
    text = tacit(tacit_env, "memories").stdout
    assert "Applied (2) — in your memory files" in text and "P01-acme-corp-action-required" in text
    data = json.loads(tacit(tacit_env, "memories", "--json").stdout)
    rule1 = [m for m in data["memories"] if m["key"] == "P01-acme-corp-action-required"][0]
    assert (rule1["status"], rule1["confidence"], rule1["times_confirmed"]) == ("applied", 80, 4)
    assert rule1["evidence"]["observations"] == 7

    forgot = tacit(tacit_env, "memories", "forget", "P01-acme-corp-action-required", "--json")
    assert forgot.returncode == 0 and json.loads(forgot.stdout)["removed_from"] == "MEMORY.md"
    assert "Acme Corp are typically" not in cfg.memory_file.read_text()
    missing = tacit(tacit_env, "memories", "forget", "nope", "--json")
    assert missing.returncode == 1 and json.loads(missing.stdout)["success"] is False

    taught = tacit(tacit_env, "memories", "teach", "The CI runs on Fridays only.", "--json")
    assert taught.returncode == 0 and json.loads(taught.stdout)["status"] == "confirmed"
    assert "The CI runs on Fridays only." in cfg.memory_file.read_text()
    user = tacit(tacit_env, "memories", "teach", "--target", "user", "-", stdin="Prefers short answers.")
    assert user.returncode == 0 and cfg.user_file.read_text() == "Prefers short answers."


def test_habits_commands(tacit_env, cfg):
    now = time.time()
    rows = [(f"s{n}", action, now - 3600 + n * 100 + i * 5)
            for n in range(6) for i, action in enumerate(("Edit", "Bash:pytest", "Bash:git"))]
    with Ledger(cfg) as led:
        record_actions(led, cfg, rows + [("s9", "Grep", now - 10), ("s9", "Read", now - 8)])
    listed = json.loads(tacit(tacit_env, "habits", "list", "--json").stdout)["habits"]
    assert {h["pattern"] for h in listed} == {"Edit → Bash:pytest", "Bash:pytest → Bash:git",
                                              "Edit → Bash:pytest → Bash:git"}
    suggestion = tacit(tacit_env, "habits", "suggest", "--current", "Edit")
    assert suggestion.stdout.startswith("After Edit you usually run Bash:pytest")
    status = tacit(tacit_env, "habits", "status")
    assert "Emerging: 1" in status.stdout and "1/3  Grep → Read" in status.stdout
    rebuilt = json.loads(tacit(tacit_env, "habits", "rebuild").stdout)
    assert rebuilt["success"] and rebuilt["occurrences"] == 6 * 3 + 1
    assert json.loads(tacit(tacit_env, "habits", "list", "--json").stdout)["habits"] == listed
    cleared = json.loads(tacit(tacit_env, "habits", "clear").stdout)
    assert cleared["success"] and cleared["events_deleted"] == 20
    assert json.loads(tacit(tacit_env, "habits", "list", "--json").stdout)["habits"] == []


def test_a_command_that_moves_a_corrupt_ledger_aside_says_so(tacit_env, cfg):
    """`tacit memory log` answered "No changes recorded." and nothing else: the history seemed lost,
    with no word that it was kept aside (only `tacit doctor` knew)."""
    assert tacit(tacit_env, "memory", "add", "--scope", "global", "Use pnpm.").returncode == 0
    cfg.ledger_path.write_bytes(b"\x00garbage" * 500)
    result = tacit(tacit_env, "memory", "log")
    aside = [p for p in cfg.ledger_path.parent.iterdir() if p.name.startswith("ledger.db.corrupt-")
             and not p.name.endswith(("-wal", "-shm"))]
    assert result.returncode == 0 and len(aside) == 1
    assert "the ledger was corrupt" in result.stderr and str(aside[0]) in result.stderr, result.stderr
    again = tacit(tacit_env, "memory", "log")
    assert "corrupt" not in again.stderr, "told once, by the command that moved it"
    cfg.ledger_path.write_bytes(b"\x00garbage" * 500)
    out = json.loads(tacit(tacit_env, "memory", "log", "--json").stdout)
    assert out["success"] is True and "the ledger was corrupt" in out["ledger_moved_aside"][0], out
    assert cfg.memory_file.read_text() == "Use pnpm."
