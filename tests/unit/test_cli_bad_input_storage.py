"""A data folder tacit cannot write, tried as a new user would (real CLI
processes). Tests run as root, which ignores file modes, so the fault is a
file where a folder should be (or a folder where a file should be): each
command answers one JSON object naming the storage problem, exit 1, with no
"unexpected error" and nothing stored lost."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys


def tacit(env, *args, stdin=None):
    proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=env, capture_output=True,
                          text=True, timeout=60, input=stdin)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_skill_create_where_the_locks_folder_is_a_file(cfg, tacit_env, tmp_path):
    body = tmp_path / "body.md"
    body.write_text("## When to Use\nx\n\n## Procedure\n1. y\n")
    rc, out = tacit(tacit_env, "skill", "create", "--scope", "global", "--name", "kept", "--description", "d",
                    "--body-file", str(body))
    assert rc == 0, out
    shutil.rmtree(cfg.state_dir / "locks", ignore_errors=True)
    (cfg.state_dir / "locks").write_text("a file where a folder should be")
    rc, out = tacit(tacit_env, "skill", "create", "--scope", "global", "--name", "other", "--description", "d",
                    "--body-file", str(body))
    assert rc == 1 and out["success"] is False, out
    assert out.get("error_kind") == "storage" and "unexpected error" not in out["error"], out
    assert "locks" in out["error"], out
    assert (cfg.state_dir / "skills" / "kept" / "SKILL.md").is_file()


def test_search_where_its_index_cannot_be_opened(cfg, tacit_env):
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    (cfg.state_dir / "search.db").mkdir()  # a folder where the index file should be
    rc, out = tacit(tacit_env, "search", "pnpm")
    assert rc == 1 and out["success"] is False, out
    assert "internal error" not in out["error"] and "search.db" in out["error"], out


def test_habits_without_a_ledger_answers_one_json_object(cfg, tacit_env):
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    cfg.ledger_path.mkdir()  # a folder where the ledger should be
    rc, out = tacit(tacit_env, "habits", "list")
    assert rc == 1 and out["success"] is False and "ledger" in out["error"], out


def test_detect_without_text_answers_one_json_object(tacit_env):
    rc, out = tacit(tacit_env, "detect", "correction", stdin="no, use pnpm")
    assert rc == 2 and out["success"] is False and "TEXT is required" in out["error"], out


def test_doctor_names_a_file_where_a_folder_should_be(cfg, tacit_env):
    tacit(tacit_env, "memory", "add", "--scope", "global", "Use pnpm.")
    for name in ("locks", "projects", "logs"):
        path = cfg.state_dir / name
        shutil.rmtree(path, ignore_errors=True)
        path.unlink(missing_ok=True)
        path.write_text("a file where a folder should be")
        path.chmod(0o600)
        rc, report = tacit(tacit_env, "doctor")
        assert rc == 1 and any(str(path) in p and "not a folder" in p for p in report["problems"]), report["problems"]
        path.unlink()


_HOLD_WRITE = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("held", flush=True)
sys.stdin.read()  # until the test closes stdin
conn.execute("ROLLBACK")
"""


def test_undo_when_the_history_cannot_be_written_changes_nothing_and_says_so(cfg, tacit_env):
    """The undo was made in the file, the history could not record it, and the answer was "nothing to
    undo: what #1 did is no longer there" (exit 1): an undo no one could redo, reported as not done."""
    rc, added = tacit(tacit_env, "memory", "add", "--scope", "global", "Deploys go through CI.")
    assert rc == 0, added
    before = cfg.memory_file.read_bytes()
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_WRITE, str(cfg.ledger_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        rc, out = tacit(tacit_env, "memory", "undo", str(added["change_id"]))
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert rc == 1 and out["success"] is False, out
    assert "history cannot be written" in out["error"] and "nothing was changed" in out["error"], out
    assert cfg.memory_file.read_bytes() == before, "the entry stays while its undo cannot be recorded"
    rc, out = tacit(tacit_env, "memory", "undo", str(added["change_id"]))  # once it can: undone, recorded
    assert rc == 0 and out["change_id"] and "Deploys go through CI." not in cfg.memory_file.read_text(), out


def _no_room():  # every write that grows a file fails (EFBIG), as on a full disk
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def test_a_write_that_fails_names_the_file_not_a_hidden_temp_file(cfg, tacit_env, tmp_path):
    """A full disk (here a file-size limit of 0) answered "File too large", naming nothing, and a
    failed skill create left an empty folder `skill list` then called unusable."""
    rc, _ = tacit(tacit_env, "memory", "add", "--scope", "global", "Use pnpm.")
    assert rc == 0
    before = cfg.memory_file.read_bytes()
    body = tmp_path / "body.md"
    body.write_text("## When to Use\nx\n\n## Procedure\n1. y\n")
    runs = {"add": ["memory", "add", "--scope", "global", "Deploys go through CI."],
            "skill": ["skill", "create", "--scope", "global", "--name", "release", "--description", "d",
                      "--body-file", str(body)]}
    for what, args in runs.items():
        proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=tacit_env, capture_output=True,
                              text=True, timeout=60, preexec_fn=_no_room)
        assert "Traceback" not in proc.stderr, proc.stderr
        out = json.loads(proc.stdout)
        assert proc.returncode == 1 and out["error_kind"] == "storage", out
        assert "file-size limit" in out["error"] and ".tmp" not in out["error"], out
        wanted = cfg.memory_file if what == "add" else cfg.skills_dir / "release" / "SKILL.md"
        assert str(wanted) in out["error"], out
    assert cfg.memory_file.read_bytes() == before
    assert not (cfg.skills_dir / "release").exists(), "a failed create leaves no folder behind"
    rc, listed = tacit(tacit_env, "skill", "list", "--scope", "global")
    assert rc == 0 and listed["problems"] == [], listed


def test_a_file_where_the_skills_folder_should_be_is_said_so(cfg, tacit_env, tmp_path):
    """It answered "File exists (…/skills)": true, and no help."""
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    cfg.skills_dir.write_text("a file where a folder should be")
    body = tmp_path / "body.md"
    body.write_text("## When to Use\nx\n\n## Procedure\n1. y\n")
    rc, out = tacit(tacit_env, "skill", "create", "--scope", "global", "--name", "release", "--description", "d",
                    "--body-file", str(body))
    assert rc == 1 and out["success"] is False, out
    assert "a file stands where a folder should be" in out["error"] and str(cfg.skills_dir) in out["error"], out
    assert cfg.skills_dir.read_text() == "a file where a folder should be"


def test_a_skill_write_or_move_the_history_cannot_record_says_so(cfg, tacit_env, tmp_path):
    """With the ledger unwritable a skill create and a memory move succeeded with "change_id": null and
    no word that `tacit memory undo` could not revert them (a memory add said so)."""
    assert tacit(tacit_env, "memory", "add", "--scope", "global", "Use pnpm.")[0] == 0
    body = tmp_path / "body.md"
    body.write_text("## When to Use\nx\n\n## Procedure\n1. y\n")
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_WRITE, str(cfg.ledger_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        created = tacit(tacit_env, "skill", "create", "--scope", "global", "--name", "release", "--description",
                        "d", "--body-file", str(body))
        moved = tacit(tacit_env, "memory", "move", "pnpm", "--to", "user")
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    for rc, out in (created, moved):
        assert rc == 0 and out["success"] is True and "cannot revert it" in out["unrecorded"], out
    assert (cfg.skills_dir / "release" / "SKILL.md").is_file() and cfg.user_file.read_text() == "Use pnpm."


def test_a_folder_where_a_memory_file_should_be_is_said_so(cfg, tacit_env):
    """It answered "Is a directory (…/MEMORY.md)": the system's words, and no help."""
    cfg.memory_file.mkdir(parents=True)
    for args in (("memory", "add", "--scope", "global", "Use pnpm."), ("memory", "show", "--scope", "global"),
                 ("forget", "pnpm rules")):
        rc, out = tacit(tacit_env, *args)
        assert rc == 1 and out["error_kind"] == "storage", out
        assert out["error"] == (f"storage problem for {cfg.memory_file}: a folder stands where a file should be; "
                                "move that folder away; nothing was changed"), out
    assert cfg.memory_file.is_dir() and not any(cfg.memory_file.iterdir())


def test_a_ledger_a_full_disk_cannot_open_names_the_disk_not_an_io_error(cfg, tacit_env):
    """A full disk (here a file-size limit of 0) kept the ledger from opening, and every command that
    needs it said "ledger opening: OperationalError: disk I/O error" (read: the disk is failing), with
    `tacit guard add` giving no error_kind at all; a session start's notice said the same."""
    rc, _ = tacit(tacit_env, "guard", "add", "terraform apply", "--because", "ops only")
    assert rc == 0
    for args in (["memory", "log"], ["guard", "add", "npm", "--because", "pnpm here"], ["cost"]):
        proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=tacit_env, capture_output=True,
                              text=True, timeout=60, preexec_fn=_no_room)
        assert "Traceback" not in proc.stderr, proc.stderr
        out = json.loads(proc.stdout)
        assert proc.returncode == 1 and out.get("error_kind") == "storage", (args, out)
        assert "file-size limit" in out["error"] and "I/O" not in out["error"], (args, out)
    rc, listed = tacit(tacit_env, "guard", "list")
    assert rc == 0 and [g["match"]["programs"] for g in listed["guards"]] == [["terraform"]], listed
