"""A session's launch environment (its host's PATH, home folder and credentials) lives only in the
service's memory: never on disk, it may hold API keys. A job queued before the service restarted (here:
one waiting for the daily budget when the user raised it, which restarts the service) is held until its
session's next hook brings that environment back, instead of running with the environment of whichever
hook started the new service; a session that never comes back gets its job run after
``child_env_wait_seconds`` with the service's own, recorded on the run and told to the user.

For real: the installed hook commands of two hosts, the service they start, a configured child command
that records its environment, the budget in config.toml."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from engine_helpers import write_config
from test_service import alive
from test_session_env import RECORDER, correction_session, host_hook
from wait_helpers import wait_for

from tacit.config import load_config
from tacit.service import client
from tacit.stores import jobs
from tacit.stores.ledger import Ledger


def configure(home: Path, recorder: Path, **settings) -> None:
    write_config(home, child_command=f"{sys.executable} {recorder} {{prompt_file}}", **settings)


def job_statuses(home: Path) -> list[str]:
    with sqlite3.connect(home / "ledger.db") as db:
        return [row[0] for row in db.execute("SELECT status FROM jobs WHERE session_id = 'codex-1'")]


def agent_records(home: Path, session_id: str) -> list[dict]:
    path = home / "logs" / "children.jsonl"
    records = [json.loads(r) for r in path.read_text().splitlines()] if path.exists() else []
    return [r for r in records if r.get("session_id") == session_id and r.get("mode") == "agent"]


def a_codex_job_waiting_then_a_restart(tacit_env, tacit_home, tmp_path, wait: int):
    """A Codex session's correction waits for the budget; the user raises the budget (the service
    restarts: it reads config.toml once); a Claude Code hook starts the new service."""
    out, recorder = tmp_path / "child-env.jsonl", tmp_path / "recorder.py"
    recorder.write_text(RECORDER.format(out=str(out)))
    configure(tacit_home, recorder, child_daily_tokens=5)
    with Ledger(load_config(env=tacit_env)) as ledger, ledger.write() as conn:  # today's spend, over the budget
        jobs.insert(conn, {"id": "spent-1", "kind": "review", "session_id": "earlier", "variables": {}})
        jobs.finish(conn, "spent-1", "done", {"ok": True, "spend": {"tokens": 100}}, time.time())
    codex = {**tacit_env, "CODEX_HOME": str(tmp_path / "codex-home"), "OPENAI_API_KEY": "sk-codex-only"}
    correction_session(codex, "codex", "codex-1")
    wait_for(lambda: job_statuses(tacit_home) == ["waiting"], what="the correction to wait for the budget")
    # the hooks may have been answered in-process under load (the service listening after their bound)
    pid = wait_for(lambda: client.status(str(tacit_home)).get("pid"), what="the service")
    configure(tacit_home, recorder, child_daily_tokens=0, child_env_wait_seconds=wait)
    wait_for(lambda: not alive(pid), what="the service to restart on the config change")
    claude = {**tacit_env, "ONLY_IN_CLAUDE": "1"}
    host_hook(claude, "claude-code", "SessionStart", session_id="claude-1", cwd=tacit_env["HOME"], source="startup")
    return out, codex, claude


def test_a_job_queued_before_a_restart_waits_for_its_sessions_environment(tacit_env, tacit_home, tmp_path):
    out, codex, _ = a_codex_job_waiting_then_a_restart(tacit_env, tacit_home, tmp_path, wait=600)
    home = str(tacit_home)
    wait_for(lambda: client.status(home).get("jobs_held") == 1, what="the released job to be held")
    time.sleep(1)
    assert not out.exists()  # not run with the Claude Code hook's environment
    told = subprocess.run([sys.executable, "-m", "tacit", "service", "status"], env=tacit_env, capture_output=True,
                          text=True, timeout=60).stdout
    assert "1 background job(s) wait for their session's next hook" in told
    assert job_statuses(tacit_home) == ["queued"]
    # the Codex session's next hook brings its environment back: the job runs with it
    host_hook(codex, "codex", "UserPromptSubmit", prompt="thanks", session_id="codex-1", cwd=tacit_env["HOME"])
    [line] = wait_for(lambda: out.exists() and out.read_text().splitlines(), what="the held child")
    child = json.loads(line)
    assert child["OPENAI_API_KEY"] == "sk-codex-only" and child["ONLY_IN_CLAUDE"] is None
    assert child["CODEX_HOME"] == codex["CODEX_HOME"] and child["TACIT_HOST"] == "codex"
    assert client.status(home)["jobs_held"] == 0
    wait_for(lambda: job_statuses(tacit_home) == ["done"], what="the job to finish")
    for path in tacit_home.glob("ledger.db*"):  # the credential stayed in memory
        assert b"sk-codex-only" not in path.read_bytes()


def test_a_session_that_never_comes_back_gets_its_job_run_and_the_user_told(tacit_env, tacit_home, tmp_path):
    out, codex, claude = a_codex_job_waiting_then_a_restart(tacit_env, tacit_home, tmp_path, wait=1)
    [line] = wait_for(lambda: out.exists() and out.read_text().splitlines(), timeout=40, what="the fallback child")
    child = json.loads(line)
    assert child["CODEX_HOME"] == codex["CODEX_HOME"]  # its session's PATH and home folder were kept
    assert child["OPENAI_API_KEY"] is None and child["ONLY_IN_CLAUDE"] == "1"  # the rest is the service's
    wait_for(lambda: job_statuses(tacit_home) == ["done"], what="the job to finish")
    # the runner marks the job done, then appends its record: read right after "done", the log lacked it
    # under load (flaky in CI): wait for the record itself
    [record] = wait_for(lambda: agent_records(tacit_home, "codex-1"), what="the run's record in children.jsonl")
    assert "sent no hook" in record["launch_env_fallback"]
    reply = host_hook(claude, "claude-code", "UserPromptSubmit", prompt="hello", session_id="claude-1",
                      cwd=tacit_env["HOME"]).decode()
    assert "ran with the tacit service's environment" in reply


def test_a_finished_child_leaves_another_sessions_waiting_job_to_the_service(tacit_env, tacit_home, tmp_path):
    """Two sessions' corrections wait for the budget; once it allows, the service starts the older
    one with its session's environment. Its runner, done, used to start the next waiting job itself,
    with its own session's environment (the Codex key in a Claude Code child): the service does."""
    out, recorder = tmp_path / "child-env.jsonl", tmp_path / "recorder.py"
    recorder.write_text(RECORDER.format(out=str(out)))
    configure(tacit_home, recorder, child_daily_tokens=5)
    cfg = load_config(env=tacit_env)
    with Ledger(cfg) as ledger, ledger.write() as conn:
        jobs.insert(conn, {"id": "spent-1", "kind": "review", "session_id": "earlier", "variables": {}})
        jobs.finish(conn, "spent-1", "done", {"ok": True, "spend": {"tokens": 100}}, time.time())
    codex = {**tacit_env, "CODEX_HOME": str(tmp_path / "codex-home"), "OPENAI_API_KEY": "sk-codex-only"}
    claude = {**tacit_env, "ONLY_IN_CLAUDE": "1"}
    correction_session(codex, "codex", "codex-1")
    correction_session(claude, "claude-code", "claude-1")

    def waiting() -> int:
        with sqlite3.connect(tacit_home / "ledger.db") as db:
            return db.execute("SELECT count(*) FROM jobs WHERE status = 'waiting'").fetchone()[0]

    wait_for(lambda: waiting() == 2, what="both corrections to wait for the budget")
    with Ledger(cfg) as ledger, ledger.write() as conn:  # the spend is forgiven: the budget allows again
        jobs.finish(conn, "spent-1", "done", {"ok": True, "spend": {"tokens": 0}}, time.time())
    lines = wait_for(lambda: out.exists() and len(out.read_text().splitlines()) == 2 and out.read_text().splitlines(),
                     timeout=40, what="both children")
    children = {c["TACIT_HOST"]: c for c in map(json.loads, lines)}
    assert children["codex"]["OPENAI_API_KEY"] == "sk-codex-only" and children["codex"]["ONLY_IN_CLAUDE"] is None
    assert children["claude-code"]["ONLY_IN_CLAUDE"] == "1" and children["claude-code"]["OPENAI_API_KEY"] is None


def test_an_older_installs_session_gets_its_job_at_once(tacit_env, tacit_home, tmp_path):
    """A hook client of an older install sends no environment: its session's jobs do not wait for
    one that never comes, they start as that install's service would have started them."""
    from test_service import raw_request

    out, recorder = tmp_path / "child-env.jsonl", tmp_path / "recorder.py"
    recorder.write_text(RECORDER.format(out=str(out)))
    configure(tacit_home, recorder)
    host_hook(tacit_env, "claude-code", "SessionStart", session_id="claude-1", cwd=tacit_env["HOME"], source="startup")
    where = {"session_id": "old-1", "cwd": tacit_env["HOME"]}
    flow = [("SessionStart", {"source": "startup"}), ("UserPromptSubmit", {"prompt": "install the deps"}),
            ("Stop", {"last_assistant_message": "I ran npm install."}),
            ("UserPromptSubmit", {"prompt": "no, don't use npm here. we use pnpm in this repo"}),
            ("Stop", {"last_assistant_message": "Switched to pnpm."})]
    for n, (event, fields) in enumerate(flow):  # six header fields: no env=
        reply = raw_request(tacit_home, f"TACIT1 hook 0.0.1+1 codex {event} e-old-{n}",
                            json.dumps({**where, **fields}).encode())
        assert reply.startswith(b"OK "), reply
    [line] = wait_for(lambda: out.exists() and out.read_text().splitlines(), what="the older install's child")
    assert json.loads(line)["TACIT_HOST"] == "codex"
    assert client.status(str(tacit_home))["jobs_held"] == 0
    # one queued before this service knew the session's client sends none: started once it does
    pid = client.status(str(tacit_home))["pid"]
    configure(tacit_home, recorder, child_env_wait_seconds=600)  # a restart: the service forgets the session
    wait_for(lambda: not alive(pid), what="the restart")
    queued = {"id": "q-1", "kind": "review", "session_id": "old-1", "host": "codex", "cwd": tacit_env["HOME"],
              "variables": {}, "created": time.time() - 120}
    with Ledger(load_config(env=tacit_env)) as ledger, ledger.write() as conn:
        jobs.insert(conn, queued)
    host_hook(tacit_env, "claude-code", "SessionStart", session_id="claude-1", cwd=tacit_env["HOME"], source="startup")
    wait_for(lambda: client.status(str(tacit_home)).get("jobs_held") == 1, what="the stranded job to be held")
    raw_request(tacit_home, "TACIT1 hook 0.0.1+1 codex UserPromptSubmit e-old-9", json.dumps({**where, "prompt": "ok"}).encode())
    wait_for(lambda: client.status(str(tacit_home)).get("jobs_held") == 0, what="the held job to start")
    time.sleep(6)  # a housekeeping tick later: still none held (it is not started again and again)
    assert client.status(str(tacit_home))["jobs_held"] == 0


def test_a_held_job_another_process_ran_is_held_no_longer(tacit_env, tacit_home, tmp_path):
    out, recorder = tmp_path / "child-env.jsonl", tmp_path / "recorder.py"
    recorder.write_text(RECORDER.format(out=str(out)))
    configure(tacit_home, recorder)
    queued = {"id": "q-2", "kind": "review", "session_id": "gone-1", "host": "codex", "cwd": tacit_env["HOME"],
              "variables": {}, "created": time.time() - 120}
    with Ledger(load_config(env=tacit_env)) as ledger, ledger.write() as conn:  # stranded by a killed service
        jobs.insert(conn, queued)
    host_hook(tacit_env, "claude-code", "SessionStart", session_id="claude-1", cwd=tacit_env["HOME"], source="startup")
    wait_for(lambda: client.status(str(tacit_home)).get("jobs_held") == 1, what="the stranded job to be held")
    ran = subprocess.run([sys.executable, "-m", "tacit", "child", "run", "q-2", "--json"], env=tacit_env,
                         capture_output=True, text=True, timeout=60)
    assert json.loads(ran.stdout)["job_id"] == "q-2"
    wait_for(lambda: client.status(str(tacit_home)).get("jobs_held") == 0, what="the held job to be let go")
