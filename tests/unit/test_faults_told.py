"""Faults told, nothing orphaned (issue 21), with real processes and files:
a child outlives no killed runner and its job does not stay "running";
SessionStart serves the readable memory when the ledger or the disk fails;
``tacit doctor`` reports each fault and never crashes. Tests run as root,
which ignores file modes: an unreadable file is a file replaced by a folder,
a full disk is a file-size limit of 0 (``RLIMIT_FSIZE``) on the hook process."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time

import pytest

from test_children import FakeAgent, gone
from tacit.commandline import hook_command
from tacit.config import load_config
from tacit.hosts import hooks
from tacit.hosts.runtime import build_engine
from tacit.stores.ledger import Ledger
from tacit.stores.jobs import load as load_job
from tacit.stores.sessions import insert_job

MEMORY = "Use pnpm, not npm.\n§\nTests live in tests/."


def tacit(env, *args, timeout=60):
    return subprocess.run([sys.executable, "-m", "tacit", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def doctor(env) -> dict:
    proc = tacit(env, "doctor", "--json")
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def write_memory(cfg) -> None:
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    cfg.memory_file.write_text(MEMORY, encoding="utf-8")


def session_start(cfg) -> dict:
    engine = build_engine(cfg, "oneshot", host="claude-code", children=False, discover_plugins=False)
    try:
        out = hooks.run(engine, "claude-code", "SessionStart", json.dumps({"session_id": "s1"}).encode())
    finally:
        engine.close()
    return json.loads(out) if out else {}


# ---------------------------------------------------------------------------
# SessionStart when the ledger or the disk is not usable
# ---------------------------------------------------------------------------
def test_session_start_serves_memory_when_the_ledger_is_unreadable(cfg):
    write_memory(cfg)
    with Ledger(cfg).write():
        pass
    for suffix in ("", "-wal", "-shm"):
        path = cfg.ledger_path.with_name(cfg.ledger_path.name + suffix)
        if path.exists():
            path.unlink()
    cfg.ledger_path.mkdir()  # what root cannot read: not a database at all
    out = session_start(cfg)
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "Use pnpm, not npm." in context and "Tests live in tests/." in context
    assert "cannot use its data folder" in out["systemMessage"] and "tacit doctor" in out["systemMessage"]


def test_session_start_serves_memory_on_a_full_disk(cfg, tacit_env):
    write_memory(cfg)
    with Ledger(cfg).write():
        pass

    def no_room():  # every write that grows a file fails (EFBIG), as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))

    command = hook_command(sys.executable, "claude-code", "SessionStart")
    proc = subprocess.run(command, shell=True, input=json.dumps({"session_id": "full-1", "source": "startup"}),
                          env=tacit_env, capture_output=True, text=True, timeout=60, preexec_fn=no_room)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "Use pnpm, not npm." in out["hookSpecificOutput"]["additionalContext"]
    assert "cannot use its data folder" in out["systemMessage"]
    assert "file-size limit" in out["systemMessage"] and "I/O error" not in out["systemMessage"], out


FILLS_MID_SESSION = """
import json, resource
from tacit.config import load_config
from tacit.events import BeforeAgentStart, MessageEnd
from tacit.hosts.runtime import build_engine
engine = build_engine(load_config(), "service", host="claude-code", children=False, discover_plugins=False)
engine.dispatch(BeforeAgentStart(session_id="s1"))
engine.dispatch(MessageEnd(session_id="s1", role="user", text="set up the project"))
resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))  # the disk fills
said = ["no, we use yarn here, never pnpm", "and the port is 8080", "thanks"]
print(json.dumps([engine.dispatch(MessageEnd(session_id="s1", role="user", text=t)).notices for t in said]))
"""


def test_a_disk_that_fills_mid_session_is_told_once_at_the_next_message(cfg, tacit_env):
    """The service kept answering, but every message after the disk filled was dropped unseen: the
    user's correction was lost and nothing said that nothing was kept any more."""
    write_memory(cfg)
    proc = subprocess.run([sys.executable, "-c", FILLS_MID_SESSION], env=tacit_env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    told = json.loads(proc.stdout)
    assert len(told[0]) == 1 and "cannot use its data folder" in told[0][0], told
    assert "file-size limit" in told[0][0] and "not kept" in told[0][0], told
    assert told[1:] == [[], []], "told once"


# ---------------------------------------------------------------------------
# tacit doctor
# ---------------------------------------------------------------------------
def test_doctor_reports_an_unreadable_memory_file_and_does_not_crash(cfg, tacit_env):
    cfg.memories_dir.mkdir(parents=True, exist_ok=True)
    cfg.memory_file.mkdir()  # MEMORY.md that cannot be read
    report = doctor(tacit_env)
    assert report["success"] is False
    assert any(str(cfg.memory_file) in p and "cannot be read" in p for p in report["problems"])
    text = tacit(tacit_env, "doctor")
    assert text.returncode == 1 and "Traceback" not in text.stderr and "cannot be read" in text.stdout


def test_doctor_says_when_the_service_cannot_start(cfg, tacit_env):
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    (cfg.state_dir / "run").write_text("not a folder")
    report = doctor(tacit_env)
    assert any("service cannot start" in p and "not a folder" in p for p in report["problems"]), report["problems"]


# ---------------------------------------------------------------------------
# A killed runner: no child left, no job left "running"
# ---------------------------------------------------------------------------
def test_a_killed_runner_leaves_no_child_and_no_running_job(tacit_home, tacit_env, tmp_path):
    agent = FakeAgent(tacit_home, tacit_env, tmp_path)
    cfg = agent.configure("hang")
    with Ledger(cfg).write() as conn:
        insert_job(conn, {"id": "job-hang", "kind": "flush", "session_id": "s", "variables": {}})
    runner = subprocess.Popen([sys.executable, "-m", "tacit", "child", "run", "job-hang"], env=tacit_env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while not agent.pidfile.exists() and time.time() < deadline:
        time.sleep(0.1)
    pids = json.loads(agent.pidfile.read_text())
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    assert gone(pids["child"], 10), "the child agent outlived its killed runner"
    with Ledger(cfg).read() as conn:
        assert load_job(conn, "job-hang")["status"] == "running"  # nobody has looked yet
    report = doctor(tacit_env)  # the next tacit command reaps it
    assert gone(pids["grandchild"], 10), "the child's process group outlived its runner"
    with Ledger(cfg).read() as conn:
        job = load_job(conn, "job-hang")
        record = json.loads(conn.execute("SELECT record FROM jobs WHERE id = 'job-hang'").fetchone()[0])
    assert job["status"] == "failed" and record["orphaned"] is True
    assert report["success"] is False and any("job-hang" in p and "lost its runner" in p for p in report["problems"])


def test_doctor_tells_a_job_left_running_by_a_runner_that_is_gone(cfg, tacit_env):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with Ledger(cfg).write() as conn:
        insert_job(conn, {"id": "job-stuck", "kind": "review", "session_id": "s", "variables": {}})
        conn.execute("UPDATE jobs SET status = 'running', started_at = ?, pid = ? WHERE id = 'job-stuck'",
                     (time.time() - 5, dead.pid))
    report = doctor(tacit_env)
    assert report["success"] is False
    assert any("job-stuck" in p for p in report["problems"])
    with Ledger(cfg).read() as conn:
        assert load_job(conn, "job-stuck")["status"] == "failed"


# ---------------------------------------------------------------------------
# Guards made by hand outlive a corrupt ledger
# ---------------------------------------------------------------------------
def _corrupt_ledger(cfg) -> None:
    for suffix in ("-wal", "-shm"):
        path = cfg.ledger_path.with_name(cfg.ledger_path.name + suffix)
        if path.exists():
            path.unlink()
    with open(cfg.ledger_path, "r+b") as handle:
        handle.write(b"not a database " * 64)


def test_a_guard_added_by_hand_survives_a_corrupt_ledger_moved_aside(cfg, tacit_env):
    added = tacit(tacit_env, "guard", "add", "terraform apply", "--because", "plan first", "--scope", "global",
                  "--json")
    assert json.loads(added.stdout)["success"], added.stdout
    removed = tacit(tacit_env, "guard", "add", "npm", "--because", "we use pnpm", "--scope", "global", "--json")
    assert tacit(tacit_env, "guard", "remove", str(json.loads(removed.stdout)["guard"]["id"])).returncode == 0
    _corrupt_ledger(cfg)
    test = json.loads(tacit(tacit_env, "guard", "test", "terraform apply -auto-approve", "--json").stdout)
    assert test["fires"] is True and test["guards"][0]["because"] == "plan first"
    assert list(cfg.state_dir.glob("ledger.db.corrupt-*")), "the corrupt ledger was moved aside"
    assert json.loads(tacit(tacit_env, "guard", "test", "npm install", "--json").stdout)["fires"] is False


# ---------------------------------------------------------------------------
# memories/ that stops being a folder of the data folder
# ---------------------------------------------------------------------------
def test_memory_is_never_written_through_a_link_tacit_did_not_make(cfg, tacit_env, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    cfg.home.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, cfg.memories_dir, target_is_directory=True)  # what a child could do
    proc = tacit(tacit_env, "memory", "add", "Use pnpm.", "--target", "memory", "--json")
    answer = json.loads(proc.stdout)
    assert answer["success"] is False and "leads outside the data folder" in answer["error"]
    assert list(outside.iterdir()) == []  # nothing written outside
    report = doctor(tacit_env)
    assert any("leads outside the data folder" in p for p in report["problems"])


def test_memories_that_became_a_file_is_refused_and_told(cfg, tacit_env):
    cfg.home.mkdir(parents=True, exist_ok=True)
    cfg.memories_dir.write_text("oops")
    answer = json.loads(tacit(tacit_env, "memory", "add", "Use pnpm.", "--target", "memory", "--json").stdout)
    assert answer["success"] is False and "not a folder" in answer["error"]
    assert cfg.memories_dir.read_text() == "oops"


def test_the_link_tacit_made_for_a_shared_memory_folder_is_written_through(cfg, tmp_path):
    from tacit.hosts.hermes import shared_memory
    from tacit.stores.memory import MemoryStore

    other_home = tmp_path / "other-agent"
    assert shared_memory.link(cfg, str(other_home))["changed"]
    assert MemoryStore(cfg, None).add("global", "Use pnpm.")["success"]
    assert "Use pnpm." in (other_home / "memories" / "MEMORY.md").read_text()


# ---------------------------------------------------------------------------
# A child that empties a scope
# ---------------------------------------------------------------------------
EMPTIER = '''
import json, subprocess, sys
tacit = [sys.executable, "-m", "tacit"]
shown = json.loads(subprocess.run(tacit + ["memory", "show", "--json"], capture_output=True, text=True).stdout)
for entry in shown["scopes"]["global"]["entries"]:
    subprocess.run(tacit + ["memory", "remove", entry, "--target", "memory", "--scope", "global"], check=True)
print("Consolidated.")
'''


def test_a_child_that_empties_a_scope_is_a_suspicious_run_kept_undoable_and_told(tacit_home, tacit_env, tmp_path):
    from engine_helpers import write_config
    from tacit.children.launch import run_job_id
    from tacit.stores import notices
    from tacit.stores.memory import MemoryStore

    script = tmp_path / "emptier.py"
    script.write_text(EMPTIER)
    write_config(tacit_home, child_command=f"{sys.executable} {script} {{prompt_file}}")
    cfg = load_config(env=tacit_env)
    entries = ["Use pnpm, not npm.", "Tests live in tests/.", "Deploy with make release."]
    for entry in entries:
        assert MemoryStore(cfg, None).add("global", entry)["success"]
    with Ledger(cfg).write() as conn:
        insert_job(conn, {"id": "job-empty", "kind": "consolidate", "session_id": "s",
                          "variables": {"targets": ["global"]}})
    record = run_job_id(cfg, "job-empty")
    assert MemoryStore(cfg, None).entries("global") == []  # the child's recorded removals are kept…
    assert record["ok"] is False and record["suspicious"], record  # …but the run is no success
    with Ledger(cfg).read() as conn:
        assert load_job(conn, "job-empty")["status"] == "failed"
    told = notices.take(Ledger(cfg))
    assert any("removed every entry" in text and "tacit memory undo" in text for text in told), told
    undo_id = told[0].split("tacit memory undo ")[1].split("`")[0]
    undone = tacit(tacit_env, "memory", "undo", undo_id, "--json")
    assert json.loads(undone.stdout)["success"], undone.stdout
    assert sorted(MemoryStore(cfg, None).entries("global")) == sorted(entries)


def test_the_service_housekeeping_settles_a_job_whose_runner_is_gone(cfg):
    from tacit.service.housekeeping import tick

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with Ledger(cfg).write() as conn:
        insert_job(conn, {"id": "job-tick", "kind": "flush", "session_id": "s", "variables": {}})
        conn.execute("UPDATE jobs SET status = 'running', started_at = ?, pid = ? WHERE id = 'job-tick'",
                     (time.time() - 5, dead.pid))
    engine = build_engine(cfg, "service", children=False, discover_plugins=False)
    try:
        assert tick(cfg, engine)["orphans"] == 1
    finally:
        engine.close()
    with Ledger(cfg).read() as conn:
        assert load_job(conn, "job-tick")["status"] == "failed"


def test_doctor_with_an_unusable_ledger_reports_it_and_finishes(cfg, tacit_env):
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    cfg.ledger_path.mkdir()
    report = doctor(tacit_env)
    assert report["success"] is False and report["ledger"]["ok"] is False
    assert any("ledger" in p and "could not be used" in p for p in report["problems"])


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through a read-only mode; the full disk "
                                               "(RLIMIT_FSIZE) and unreadable ledger cases stand in for it")
def test_session_start_serves_memory_from_a_read_only_data_folder(cfg):
    write_memory(cfg)
    with Ledger(cfg).write():
        pass
    folders = [cfg.state_dir, cfg.memories_dir]
    files = [p for p in cfg.state_dir.rglob("*") if p.is_file()]
    try:
        for path in files:
            path.chmod(0o400)
        for folder in folders:
            folder.chmod(0o500)
        out = session_start(cfg)
        assert "Use pnpm, not npm." in out["hookSpecificOutput"]["additionalContext"]
    finally:
        for folder in folders:
            folder.chmod(0o700)
        for path in files:
            path.chmod(0o600)


@pytest.mark.parametrize("garbage", [b"\x00{not json", b'["not", "a", "record"]', b'{"problem": 7}', None],
                         ids=["bytes", "a-list", "no-problem", "a-folder"])
def test_doctor_reports_an_unreadable_service_fault_record(cfg, tacit_env, garbage):
    record = cfg.state_dir / "logs" / "service-fault.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    if garbage is None:
        record.mkdir(mode=0o700)
    else:
        record.write_bytes(garbage)
        record.chmod(0o600)  # as the hook client writes it: only the record's content is wrong
    proc = tacit(tacit_env, "doctor", "--json")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    report = json.loads(proc.stdout)
    said = [p for p in report["problems"] if str(record) in p]
    assert len(said) == 1 and "cannot be read" in said[0] and "remove it" in said[0]
    assert report["service"]["fault"]["unreadable"]
    if garbage is None:
        record.rmdir()
    else:
        record.unlink()
    report = doctor(tacit_env)
    assert "fault" not in report["service"] and not [p for p in report["problems"] if "fault" in p]


@pytest.mark.parametrize("name,attr", [("ledger", "ledger"), ("storage", "storage"), ("service", "service"),
                                       ("child agent", "child_agent"), ("failing sessions", "failing_sessions")])
def test_doctor_json_names_the_check_that_raised_and_reports_the_rest(cfg, tacit_env, monkeypatch, capsys,
                                                                        name, attr):
    from tacit import cli
    from tacit.commands import health

    for key in ("TACIT_HOME", "HOME"):
        monkeypatch.setenv(key, tacit_env[key])
    write_memory(cfg)

    def broken(*args, **kwargs):
        raise RuntimeError("a check of its own failed")

    monkeypatch.setattr(health, attr, broken)
    code = cli.main(["doctor", "--json"])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in err
    report = json.loads(out)  # one object, the whole of stdout
    assert report["success"] is False
    said = [p for p in report["problems"] if "could not finish" in p]
    assert said == [f"tacit doctor could not finish its {name} check: RuntimeError: a check of its own failed "
                    f"(details in {cfg.log_file})"]
    assert report["memory"]["global"]["entries"] == 2  # the other checks still ran
    assert "a check of its own failed" in cfg.log_file.read_text()
    cli.main(["doctor"])  # the text rendering of a report with a check missing
    text = capsys.readouterr().out
    assert f"could not finish its {name} check" in text and "Traceback" not in text


def test_doctor_json_is_one_object_when_the_whole_check_raises(cfg, tacit_env, monkeypatch, capsys):
    from tacit import cli
    from tacit.commands import health

    for key in ("TACIT_HOME", "HOME"):
        monkeypatch.setenv(key, tacit_env[key])

    def broken(*args, **kwargs):
        raise KeyError("usage")

    monkeypatch.setattr(health, "check", broken)
    code = cli.main(["doctor", "--json"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 1 and "Traceback" not in err and report["success"] is False
    assert report["problems"] == [f"tacit doctor could not finish its checks: KeyError: 'usage' "
                                  f"(details in {cfg.log_file})"]
