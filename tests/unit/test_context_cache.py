"""The first hook after an idle exit: a SessionStart answered from the last
answer for its folder when nothing it was built from changed, the event
applied once by the service it starts; any change — a memory entry, a new
skill, a new repository — means the ordinary cold start."""

from __future__ import annotations

import json
import shlex
import sqlite3
import subprocess
import sys
import time

import pytest

from tacit.commandline import hook_command
from tacit.config import load_config
from tacit.service import client, context_cache
from tacit.stores.memory import MemoryStore
from wait_helpers import wait_for

MARK = "[answered from the cache]"
FACTS = {"PATH": "/usr/bin:/bin", "SHELL": None, "HOME": "/home/someone"}
NOT_ON_PATH = "`tacit` is not on PATH in this shell"


def session_start(env, sid, cwd) -> str:
    out = subprocess.run(shlex.split(hook_command(sys.executable, "claude-code", "SessionStart")),
                         input=json.dumps({"session_id": sid, "cwd": str(cwd), "source": "startup"}).encode(),
                         env=env, capture_output=True, timeout=60)
    assert out.returncode == 0 and not out.stderr
    return json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]


def keep(env, tacit_home, project, prefix="warm"):
    """Ask until the service keeps this folder's answer for a session launched with ``env``, then stop
    it (an idle exit): (the kept file, the answer)."""
    path = tacit_home / "run" / "context" / context_cache.key("claude-code", str(project))
    tries = iter(range(1, 10_000))

    def kept_answer():
        # a file watcher's late event (the folders warm-0 made) clears a kept answer: on a
        # loaded machine it can come after warm-1's answer was kept, so ask again until it stays
        answer = session_start(env, f"{prefix}-{next(tries)}", project)
        time.sleep(0.3)
        try:
            return answer if json.loads(path.read_text())["env"]["PATH"] == env["PATH"] else None
        except (OSError, ValueError):
            return None

    first = wait_for(kept_answer, timeout=60, what="the kept answer")
    assert client.stop(str(tacit_home))["stopped"]
    return path, first


@pytest.fixture
def warmed(tacit_env, tacit_home, tmp_path):
    """A folder whose SessionStart the service answered and kept; the service then stopped
    (an idle exit), the kept answer marked so the test can tell where an answer came from."""
    project = tmp_path / "proj"
    project.mkdir()
    cfg = load_config(env=tacit_env)
    MemoryStore(cfg).add("memory", "The deploy script lives in ops/deploy.sh.")
    session_start(tacit_env, "warm-0", project)  # a fresh data folder: its folders are made meanwhile
    path, first = keep(tacit_env, tacit_home, project)
    kept = json.loads(path.read_text())
    answer = json.loads(kept["out"])
    assert answer["hookSpecificOutput"]["additionalContext"] == first
    answer["hookSpecificOutput"]["additionalContext"] += MARK
    kept["out"] = json.dumps(answer)
    path.write_text(json.dumps(kept))
    return cfg, project, first


def test_a_cold_start_is_answered_from_the_kept_answer_and_applied_once(tacit_env, tacit_home, warmed):
    cfg, project, first = warmed
    assert session_start(tacit_env, "cold-1", project) == first + MARK
    wait_for(lambda: client.status(str(tacit_home))["running"], what="the service it started")
    conn = sqlite3.connect(tacit_home / "ledger.db", timeout=10)
    wait_for(lambda: conn.execute("SELECT count(*) FROM events WHERE session_id = 'cold-1' AND "
                                  "kind = 'before_agent_start'").fetchone()[0] == 1, what="the event applied")
    wait_for(lambda: not list((tacit_home / "run" / "inbox").iterdir()), what="the inbox to drain")
    assert conn.execute("SELECT count(*) FROM events WHERE session_id = 'cold-1'").fetchone()[0] == 2
    # a warm service answers for itself again
    assert MARK not in session_start(tacit_env, "warm-2", project)


def test_a_memory_change_while_it_was_down_is_not_answered_from_the_cache(tacit_env, warmed):
    cfg, project, first = warmed
    MemoryStore(cfg).add("memory", "Releases are tagged vX.Y.Z on main.")
    answer = session_start(tacit_env, "cold-2", project)
    assert MARK not in answer and "Releases are tagged" in answer


def test_a_new_skill_or_repository_is_not_answered_from_the_cache(tacit_env, tacit_home, warmed):
    cfg, project, first = warmed
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert MARK not in session_start(tacit_env, "cold-3", project)
    client.stop(str(tacit_home))
    skill = cfg.skills_dir / "release-notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: release-notes\ndescription: Write release notes from the "
                                    "changelog.\n---\n## Procedure\n1. Read CHANGELOG.md.\n")
    answer = session_start(tacit_env, "cold-4", project)
    assert MARK not in answer and "release-notes" in answer


def test_no_kept_answer_outlives_what_it_shows(tacit_env, tacit_home, warmed):
    """Memory text is not left behind: a change while the service runs clears
    every kept answer; one gone stale while none ran is dropped at its start."""
    cfg, project, first = warmed
    kept = tacit_home / "run" / "context" / context_cache.key("claude-code", str(project))
    MemoryStore(cfg).remove("memory", "ops/deploy.sh")  # forgotten while no service ran
    other = project.parent / "other"
    other.mkdir()
    session_start(tacit_env, "other-1", other)  # a service starts (for another folder)
    wait_for(lambda: client.status(str(tacit_home)).get("watching"), what="the watchers")
    wait_for(lambda: not kept.exists(), what="the stale answer to go")
    time.sleep(0.3)
    session_start(tacit_env, "other-2", other)
    again = tacit_home / "run" / "context" / context_cache.key("claude-code", str(other))
    wait_for(again.exists, what="an answer kept for the other folder")
    MemoryStore(cfg).add("memory", "Staging is at staging.example.org.")  # while the service runs
    wait_for(lambda: not again.exists(), what="every kept answer to go")


def test_the_service_walks_an_unchanged_answer_once(tacit_env, tacit_home, tmp_path):
    """``Kept``: the same answer for the same folder is not walked and written
    again until something changed (``forget``), the answer differs, or its
    file is gone."""
    from tacit.paths import run_dir

    cfg = load_config(env=tacit_env)
    MemoryStore(cfg).add("memory", "The deploy script lives in ops/deploy.sh.")
    project = tmp_path / "proj"
    project.mkdir()
    time.sleep(0.2)  # nothing it is built from changed within SETTLE_NS of the answer
    kept = context_cache.Kept(cfg, run_dir(cfg.state_dir_str))
    payload = json.dumps({"session_id": "s1", "cwd": str(project)}).encode()

    def answer(text, notice=""):
        return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text},
                           **({"systemMessage": notice} if notice else {})})

    path = tacit_home / "run" / "context" / context_cache.key("claude-code", str(project))

    def mark():  # a second write replaces the file and drops the mark
        path.write_text(path.read_text() + "\n")

    def marked():
        return path.read_text().endswith("\n")

    assert kept.save("claude-code", payload, answer("A"), time.time_ns(), FACTS)
    mark()
    assert kept.save("claude-code", payload, answer("A", notice="per-session notice"), time.time_ns(), FACTS)
    assert marked()  # the same answer: not walked nor written again
    assert kept.save("claude-code", payload, answer("B"), time.time_ns(), FACTS)
    assert not marked()
    assert json.loads(json.loads(path.read_text())["out"])["hookSpecificOutput"]["additionalContext"] == "B"
    mark()
    kept.forget()
    assert kept.save("claude-code", payload, answer("B"), time.time_ns(), FACTS)
    assert not marked()  # after a change it is walked and written again
    path.unlink()
    assert kept.save("claude-code", payload, answer("B"), time.time_ns(), FACTS)
    assert path.exists()  # a kept file removed (found stale by a client, pruned) is written again
    assert not kept.save("claude-code", payload, json.dumps({"systemMessage": "notices only"}), time.time_ns(), FACTS)


def test_a_kept_answer_is_given_only_to_a_session_launched_with_the_same_path(tacit_env, tacit_home, tmp_path):
    """What a SessionStart answer says about the session's environment (``tacit`` not on its PATH) is
    not shown to another session from a kept answer: one launched otherwise is answered for itself."""
    from tacit.commandline import on_path

    project = tmp_path / "proj"
    project.mkdir()
    bare = {**tacit_env, "PATH": "/usr/bin:/bin"}
    assert not on_path(bare["PATH"]) and on_path(tacit_env["PATH"])
    session_start(bare, "bare-0", project)  # a fresh data folder: its folders are made meanwhile
    path, answer = keep(bare, tacit_home, project, "bare")
    assert NOT_ON_PATH in answer and NOT_ON_PATH in json.loads(path.read_text())["out"]
    assert NOT_ON_PATH not in session_start(tacit_env, "cold-on-path", project)

    path, answer = keep(tacit_env, tacit_home, project, "on-path")
    assert NOT_ON_PATH not in answer
    assert NOT_ON_PATH in session_start(bare, "cold-bare", project)
    # the same environment is still answered from the kept answer
    client.stop(str(tacit_home))
    path, answer = keep(tacit_env, tacit_home, project, "again")
    kept = json.loads(path.read_text())
    marked = json.loads(kept["out"])
    marked["hookSpecificOutput"]["additionalContext"] += MARK
    kept["out"] = json.dumps(marked)
    path.write_text(json.dumps(kept))
    assert session_start(tacit_env, "cold-same", project) == answer + MARK
