"""Off for a project: `tacit off` / `tacit on` and the `exclude` globs.

In an excluded project tacit keeps nothing (no session state, event rows,
ledger rows, history, children, memory writes) and answers session start
with the user's own memory only."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine_helpers import Recorder as JobRecorder
from engine_helpers import write_config
from tacit.children.launch import run_job_id
from tacit.config import load_config
from tacit.events import BeforeAgentStart, MessageEnd, SessionStart, ToolResult, TurnEnd
from tacit.hosts.runtime import build_engine
from tacit.privacy import exclusion
from tacit.projects import forget_cache, project_for
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore
from tacit.stores.sessions import insert_job

CORRECTION = "no, don't use npm here. we use pnpm in this repo"
KEPT_TABLES_EMPTY = ("sessions", "events", "jobs", "history", "memories", "notices", "observations",
                     "action_events", "applied_once", "fix_patterns", "turn_metrics")


def tacit(env, *args, cwd=None):
    proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env=env, cwd=cwd, capture_output=True,
                          text=True)
    return proc.returncode, json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else {}


def row_counts(cfg) -> dict:
    path = Path(cfg.state_dir_str) / "ledger.db"
    if not path.exists():
        return {}
    conn = sqlite3.connect(path)
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in KEPT_TABLES_EMPTY if t in names}
    finally:
        conn.close()


def session(engine, cwd: str, sid: str = "s") -> list:
    results = [engine.dispatch(SessionStart(session_id=sid, cwd=cwd, id=f"{sid}-0")),
               engine.dispatch(BeforeAgentStart(session_id=sid, cwd=cwd, id=f"{sid}-1"))]
    for n in range(3):
        results.append(engine.dispatch(MessageEnd(session_id=sid, cwd=cwd, role="user", text="install the deps",
                                                  id=f"{sid}-u{n}")))
        results.append(engine.dispatch(ToolResult(session_id=sid, cwd=cwd, name="Bash", id=f"{sid}-t{n}")))
        results.append(engine.dispatch(MessageEnd(session_id=sid, cwd=cwd, role="assistant", text="I ran npm install.",
                                                  id=f"{sid}-a{n}")))
        results.append(engine.dispatch(TurnEnd(session_id=sid, cwd=cwd, id=f"{sid}-e{n}")))
    results.append(engine.dispatch(MessageEnd(session_id=sid, cwd=cwd, role="user", text=CORRECTION, id=f"{sid}-c")))
    results.append(engine.dispatch(TurnEnd(session_id=sid, cwd=cwd, assistant_text="Switched.", id=f"{sid}-ce")))
    return results


@pytest.fixture
def project(tmp_path) -> Path:
    folder = tmp_path / "work" / "client-app"
    folder.mkdir(parents=True)
    forget_cache()
    return folder


def test_globs_match_a_folder_and_everything_inside_it(cfg, tmp_path):
    home = Path(cfg.env["HOME"])
    excluded = cfg.with_settings(exclude=["~/work/secret/*", "/srv/client-*"])
    assert exclusion.glob_matching(excluded, str(home / "work" / "secret" / "app" / "src")) == f"{home}/work/secret/*"
    assert exclusion.glob_matching(excluded, "/srv/client-x/api") == "/srv/client-*"
    assert exclusion.glob_matching(excluded, str(home / "work" / "secretive")) is None
    assert exclusion.glob_matching(excluded, str(home / "work" / "other")) is None
    assert exclusion.glob_matching(cfg, str(home / "work" / "secret" / "app")) is None  # no globs: nothing


def test_an_excluded_project_keeps_nothing_and_gets_only_the_users_memory(cfg, tacit_home, project):
    user = MemoryStore(cfg)
    assert user.add("user", "Name is Sam.")["success"] and user.add("global", "Prefers short answers.")["success"]
    assert MemoryStore(cfg, project_for(str(project)))
    proj_store = MemoryStore(cfg, project_for(str(project)))
    assert proj_store.add("project", "CLIENT-SECRET-CONVENTION: deploy with make ship")["success"]
    write_config(tacit_home, exclude=[str(project.parent) + "/*"])
    cfg = load_config(env={"TACIT_HOME": str(tacit_home), "HOME": cfg.env["HOME"], "PATH": cfg.env["PATH"]})
    before = row_counts(cfg)
    jobs = JobRecorder()
    engine = build_engine(cfg, "replay", discover_plugins=False)
    engine.launcher = jobs
    engine.child_available = lambda host="": True
    results = session(engine, str(project / "src"))
    context = "\n".join(i.text for r in results[:2] for i in getattr(r, "context", []))
    assert "Name is Sam." in context and "Prefers short answers." in context
    assert "CLIENT-SECRET-CONVENTION" not in context and "tacit memory add" not in context  # nothing of the project
    assert jobs.jobs == [] and MemoryStore(cfg).entries("user") == ["Name is Sam."]
    assert row_counts(cfg) == before  # not one row: no state, no events, no history, no jobs
    # the same session elsewhere is learned from as usual
    session(engine, str(Path(cfg.env["HOME"])), sid="other")
    assert row_counts(cfg)["sessions"] == 1 and jobs.of("correction")
    engine.close()


def test_tacit_off_and_on_through_the_cli(cfg, tacit_env, tacit_home, project):
    code, out = tacit(tacit_env, "off", "--project", str(project))
    assert code == 0 and out["off"] is True and Path(out["marker"]).exists()
    assert Path(out["marker"]).stat().st_mode & 0o777 == 0o600
    code, out = tacit(tacit_env, "off", "--status", cwd=str(project))
    assert out["off"] is True and "tacit off" in out["why"]
    jobs = JobRecorder()
    engine = build_engine(cfg, "replay", discover_plugins=False)
    engine.launcher = jobs
    engine.child_available = lambda host="": True
    session(engine, str(project))
    assert row_counts(cfg).get("sessions", 0) == 0 and jobs.jobs == []
    code, out = tacit(tacit_env, "on", "--project", str(project))
    assert code == 0 and out["off"] is False and out["was_off"] is True
    session(engine, str(project), sid="after")  # at the next event: no restart needed
    assert row_counts(cfg)["sessions"] == 1 and jobs.of("correction")
    engine.close()
    code, out = tacit(tacit_env, "off", cwd=tacit_env["HOME"])  # the home folder is no project
    assert code == 1 and "exclude" in out["error"]


def test_tacit_on_says_when_a_glob_still_keeps_it_off(cfg, project):
    excluded = cfg.with_settings(exclude=[str(project)])
    out = exclusion.turn_on(excluded, project_for(str(project)))
    assert out["off"] is True and out["excluded_by"] == str(project) and "still keeps it off" in out["message"]


def test_a_job_claimed_before_tacit_off_is_not_run(cfg, project):
    with Ledger(cfg).write() as conn:
        insert_job(conn, {"id": "j1", "kind": "review", "session_id": "s", "cwd": str(project),
                          "variables": {"reason": "x"}})
    exclusion.turn_off(cfg, project_for(str(project)))
    record = run_job_id(cfg, "j1")
    assert record["mode"] == "skipped" and "tacit is off" in record["skipped"]
    with Ledger(cfg).read() as conn:
        status, variables = conn.execute("SELECT status, variables FROM jobs WHERE id = 'j1'").fetchone()
    assert status == "done" and variables == "{}"


def test_a_session_seen_in_an_excluded_folder_stays_excluded_without_a_cwd(cfg, project):
    excluded = cfg.with_settings(exclude=[str(project)])
    assert exclusion.excluded(excluded, str(project), "sid-1")
    assert exclusion.excluded(excluded, None, "sid-1")
    assert not exclusion.excluded(excluded, None, "sid-2")
    assert not exclusion.excluded(excluded, os.path.dirname(str(project)), "sid-1")  # moved out: kept again
    assert not exclusion.excluded(excluded, None, "sid-1")


def test_a_session_excluded_under_one_data_folder_is_not_excluded_under_another(cfg, project, tmp_path):
    # the memo was keyed by session id alone: a process serving two data folders (or a test run
    # reusing "s") kept the other folder's session excluded for events without a cwd
    excluded = cfg.with_settings(exclude=[str(project)])
    assert exclusion.excluded(excluded, str(project), "shared-sid")
    other = load_config({**cfg.env, "TACIT_HOME": str(tmp_path / "other-home")})
    assert str(other.home) != str(cfg.home)
    assert not exclusion.excluded(other, None, "shared-sid")
    assert exclusion.excluded(excluded, None, "shared-sid")
