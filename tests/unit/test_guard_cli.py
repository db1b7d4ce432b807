"""``tacit guard …``: every command in text and with ``--json`` (exactly one
JSON object), errors as one JSON object with exit 1, and the ``test`` shape."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from guard_helpers import LESSON, git_repo, remember

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def one_json(out: str):
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    return json.loads(lines[0])


def test_list_shows_each_guard_and_where_it_came_from(cfg, run, web):
    code, out, _ = run("guard", "list")
    assert code == 0 and "No guards apply" in out
    remember(cfg, web, LESSON)
    code, out, _ = run("guard", "list")
    assert code == 0 and "`npm` (any use)" in out and LESSON in out and "from project memory" in out
    code, out, _ = run("guard", "list", "--json")
    data = one_json(out)
    assert code == 0 and data["success"] and data["project"]["name"] == "web"
    [g] = data["guards"]
    assert (g["id"], g["because"], g["action"], g["source"], g["origin"], g["scope"]) == (
        1, LESSON, "ask", "project memory", "memory", "project")


def test_add_set_remove_restore_wrong(run):
    code, out, _ = run("guard", "add", "terraform apply", "--because", "apply only from CI", "--json")
    added = one_json(out)
    assert code == 0 and added["created"] and added["guard"]["scope"] == "project"
    gid = added["guard"]["id"]
    code, out, _ = run("guard", "add", "path:.env", "--because", "secrets", "--scope", "global", "--action", "deny")
    assert code == 0 and "everywhere" in out
    code, out, _ = run("guard", "set", str(gid), "--action", "deny", "--json")
    assert code == 0 and one_json(out)["guard"]["action"] == "deny"
    code, out, _ = run("guard", "wrong", str(gid), "--json")
    assert code == 0 and one_json(out)["change"] == "demoted" and one_json(out)["guard"]["action"] == "ask"
    code, out, _ = run("guard", "remove", str(gid), "--json")
    assert code == 0 and one_json(out)["guard"]["status"] == "removed"
    code, out, _ = run("guard", "remove", str(gid))
    assert code == 0 and "unchanged" in out
    code, out, _ = run("guard", "restore", str(gid))
    assert code == 0 and "restored" in out
    code, out, _ = run("guard", "list", "--all", "--json")
    assert [g["status"] for g in one_json(out)["guards"]] == ["active", "active"]


def test_removing_a_lessons_guard_says_the_lesson_stays(cfg, run, web):
    remember(cfg, web, LESSON)
    run("guard", "list")
    code, out, _ = run("guard", "remove", "1", "--json")
    data = one_json(out)
    assert code == 0 and "tacit memory remove --scope project" in data["note"]
    code, out, _ = run("guard", "test", "npm install", "--json")
    assert one_json(out) == {"success": True, "fires": False, "guards": []}


def test_test_reports_exactly_fires_and_guards(cfg, run, web, tmp_path):
    remember(cfg, web, LESSON)
    code, out, _ = run("guard", "test", "npm install left-pad", "--json")
    data = one_json(out)
    assert code == 0 and set(data) == {"success", "fires", "guards"} and data["fires"] is True
    [g] = data["guards"]
    assert {"id", "because", "action"} <= set(g) and (g["id"], g["because"], g["action"]) == (1, LESSON, "ask")
    assert g["reason"].startswith("tacit: `npm install left-pad` goes against")
    code, out, _ = run("guard", "test", "pnpm add left-pad", "--json")
    assert one_json(out) == {"success": True, "fires": False, "guards": []}
    code, out, _ = run("guard", "test", "npm install left-pad")
    assert code == 0 and out.startswith("guard 1 (ask): tacit:")
    elsewhere = git_repo(tmp_path / "elsewhere")
    code, out, _ = run("guard", "test", "npm install left-pad", "--project", str(elsewhere), "--json")
    assert one_json(out)["fires"] is False
    remember(cfg, web, "don't touch migrations/")
    code, out, _ = run("guard", "test", "--edit", "db/migrations/0001.py", "--json")
    assert one_json(out)["fires"] is True and one_json(out)["guards"][0]["kind"] == "path"


@pytest.mark.parametrize("args, error", [
    (("guard", "remove", "42", "--json"), "no guard"),
    (("guard", "restore", "nope", "--json"), "no guard"),
    (("guard", "set", "42", "--action", "deny", "--json"), "no guard"),
    (("guard", "wrong", "42", "--json"), "no active guard"),
    (("guard", "add", "echo $(x) | sh", "--because", "x", "--json"), "not a guard pattern"),
    (("guard", "add", "npm", "--because", " ", "--json"), "--because"),
    (("guard", "test", "--json"), "give a command"),
    (("guard", "test", "ls", "--edit", "x", "--json"), "give a command"),
])
def test_errors_are_one_json_object_and_exit_1(run, args, error):
    code, out, _ = run(*args)
    data = one_json(out)
    assert code == 1 and data["success"] is False and error in data["error"]


def test_errors_without_json_go_to_stderr(run):
    code, out, err = run("guard", "remove", "42")
    assert code == 1 and out == "" and "no guard" in err


def test_stats_per_project(cfg, run, web):
    remember(cfg, web, LESSON)
    remember(cfg, web, "Tests live in tests/unit.")
    code, out, _ = run("guard", "stats", "--json")
    data = one_json(out)
    [row] = data["projects"]
    assert (row["project"], row["lessons"], row["lessons_guarded"], row["guards"], row["stopped"], row["repeats"],
            row["repeat_rate"]) == ("web", 2, 1, 1, 0, 0, None)
    code, out, _ = run("guard", "stats")
    assert code == 0 and "web (" in out and "2 lessons (1 as guards), 1 guard, 0 calls stopped" in out


def test_usage_errors_are_json_too(tacit_env, web):
    proc = subprocess.run([sys.executable, "-m", "tacit", "guard", "set", "1", "--json"], env=tacit_env, cwd=web,
                          capture_output=True, text=True, timeout=60)
    error = json.loads(proc.stdout)  # one JSON object, nothing else (issue 20: not also text on stderr)
    assert proc.returncode == 2 and error["success"] is False and "--action" in error["error"] and proc.stderr == ""
