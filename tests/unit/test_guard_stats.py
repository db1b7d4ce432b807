"""``tacit guard stats``: per project, lessons, guards, calls stopped, repeat
mistakes and the repeat-mistake rate, after scripted sessions."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from guard_helpers import LESSON, Session, engine_for, git_repo, remember

from tacit.stores.guard_stats import render_stats, stats, stats_text
from tacit.stores.guards import GuardStore
from tacit.stores.ledger import Ledger

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def guard_stats(tacit_env, cwd) -> dict:
    proc = subprocess.run([sys.executable, "-m", "tacit", "guard", "stats", "--json"], env=tacit_env, cwd=cwd,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_scripted_repeat_counts_one_repeat_mistake(cfg, tacit_env, tmp_path):
    web = git_repo(tmp_path / "web")
    remember(cfg, web, LESSON)  # session 1: the lesson is saved
    engine = engine_for(cfg)
    try:
        # session 2, through a host without guards: the call arrives only after it ran
        unguarded = Session(engine, web, sid="no-guards", host="pi")
        unguarded.user("add left-pad")
        unguarded.result("npm install left-pad")
    finally:
        engine.close()
    [row] = guard_stats(tacit_env, web)["projects"]
    assert (row["project"], row["lessons"], row["guards"], row["stopped"], row["repeats"]) == ("web", 1, 1, 0, 1)
    assert row["repeat_rate"] == 1.0


def test_figures_per_project_and_the_rate(cfg, tacit_env, tmp_path):
    web, api = git_repo(tmp_path / "web"), git_repo(tmp_path / "api")
    remember(cfg, web, LESSON)
    remember(cfg, web, "never use sudo", scope="user")
    remember(cfg, api, "Deploys run `make ship`.")
    engine = engine_for(cfg)
    try:
        checked = Session(engine, web, sid="a", host="pi")
        for command in ("npm install", "npm ci", "sudo apt-get install jq"):
            assert checked.call(command).block
        Session(engine, web, sid="b", host="pi").result("npm test")  # a repeat
        Session(engine, api, sid="c", host="pi").result("sudo ls")  # the user's rule broken in api
        Session(engine, tmp_path / "loose", sid="d", host="pi").result("npm install")  # no project: no guard
    finally:
        engine.close()
    with Ledger(cfg) as led:
        data = stats(cfg, GuardStore(cfg, led))
    rows = {r["project"]: r for r in data["projects"]}
    assert set(rows) == {"web", "api"}
    assert (rows["web"]["lessons"], rows["web"]["guards"], rows["web"]["stopped"], rows["web"]["repeats"]) == (2, 2, 3, 1)
    assert rows["web"]["repeat_rate"] == 0.25
    assert (rows["api"]["lessons"], rows["api"]["lessons_guarded"], rows["api"]["guards"]) == (2, 1, 1)
    assert (rows["api"]["stopped"], rows["api"]["repeats"], rows["api"]["repeat_rate"]) == (0, 1, 1.0)
    assert data["totals"] == {"stopped": 3, "overridden": 0, "wrong": 0, "repeats": 2, "repeat_rate": 0.4,
                              "prevented": 3, "from_files": 0}
    per = {g["id"]: g for g in rows["web"]["per_guard"]}
    assert sorted((g["fired"], g["prevented"], g["repeats"]) for g in per.values()) == [(1, 1, 0), (2, 2, 1)]
    text = render_stats(data)
    assert "web (" in text and "3 calls stopped" in text and "repeat-mistake rate 25.0%" in text
    assert "3 mistakes prevented" in text and "fired 2, overridden 0, called wrong 0, prevented 2, repeats 1" in text
    assert "api (" in text and "1 repeat mistake," in text


def test_stats_of_one_project_and_with_nothing_yet(cfg, tacit_env, tmp_path):
    web = git_repo(tmp_path / "web")
    data = guard_stats(tacit_env, web)
    assert data["projects"][0]["project"] == "web" and data["projects"][0]["repeat_rate"] is None
    assert "Guards (lessons checked before tool calls):" in stats_text(cfg)
    remember(cfg, web, LESSON)
    proc = subprocess.run([sys.executable, "-m", "tacit", "guard", "stats", "--project", str(web)], env=tacit_env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "1 lesson (1 as guards), 1 guard, 0 calls stopped" in proc.stdout


def test_tacit_stats_ends_with_the_guard_figures(tacit_env, tmp_path):
    import json as _json
    import subprocess as _sp
    import sys as _sys

    text = _sp.run([_sys.executable, "-m", "tacit", "stats"], env=tacit_env, cwd=tmp_path, capture_output=True,
                   text=True, timeout=60)
    assert text.returncode == 0 and "Guards (lessons checked before tool calls):" in text.stdout
    data = _json.loads(_sp.run([_sys.executable, "-m", "tacit", "stats", "--json"], env=tacit_env, cwd=tmp_path,
                               capture_output=True, text=True, timeout=60).stdout)
    assert data["guards"]["success"] is True and "totals" in data["guards"]
