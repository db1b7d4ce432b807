"""Every writer leaves exactly one history row per change, with the right actor (issue 20).

Real processes where the writer is one (the CLI, the service's pi sessions),
the real hook adapter and engine for slash commands, the real child-scope
move for a Hermes child.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tacit.app import USER, Actor
from tacit.children import integrity
from tacit.hosts import hooks
from tacit.hosts.hermes.child import file_tagged, tag_for
from tacit.hosts.runtime import build_engine
from tacit.learn import importance
from tacit.learn.captures import Assessment
from tacit.projects import project_for
from tacit.stores import history
from tacit.stores.ledger import Ledger
from tacit.stores.memory import ENTRY_DELIMITER, MemoryStore
from test_pi_bridge import ServiceSession

SID = "5f0e4c1a-9d7e-4b2a-8c3d-0000000000aa"


def last_id(cfg) -> int:
    with Ledger(cfg) as ledger:
        found = history.changes(ledger, limit=1)
    return found[0].id if found else 0


def rows_since(cfg, after: int) -> list[history.Change]:
    with Ledger(cfg) as ledger:
        return [c for c in reversed(history.changes(ledger)) if c.id > after]


def cli(env, *args, **extra_env):
    proc = subprocess.run([sys.executable, "-m", "tacit", *args, "--json"], env={**env, **extra_env},
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("args", [
    ("memory", "add", "--scope", "global", "Tests run with tox."),
    ("memory", "replace", "--scope", "global", "before", "The CI runs on Buildkite now."),
    ("memory", "remove", "--scope", "global", "before"),
])
def test_cli_writes_one_row_as_you(cfg, tacit_env, args):
    MemoryStore(cfg).add("global", "The CI ran on Jenkins before.")
    start = last_id(cfg)
    code, result = cli(tacit_env, *args)
    assert code == 0 and result["success"], result
    (change,) = rows_since(cfg, start)
    assert change.actor.describe() == "you (tacit CLI)" and change.id == result["change_id"]


def test_cli_of_a_child_agent_is_the_child(cfg, tacit_env):
    child = Actor(kind="child", name="review", session_id="sess-42", host="codex", group="job:7")
    code, result = cli(tacit_env, "memory", "add", "--scope", "global", "Deploys need a ticket.",
                       TACIT_ACTOR=child.to_env())
    assert code == 0, result
    (change,) = rows_since(cfg, 0)
    assert (change.actor.kind, change.actor.name, change.actor.session_id, change.group) == \
        ("child", "review", "sess-42", "job:7")


def test_review_keep_keeps_its_row(cfg, tacit_env):
    """``tacit review --keep`` promotes inside its own ledger transaction: the
    history row used to be lost ("database is locked (by another writer in this process)")."""
    with Ledger(cfg) as led, led.write() as conn:
        capture = importance.capture(conn, cfg, Assessment("capture", category="fact", importance=0.8,
                                                           content="Our Kafka cluster has six brokers."),
                                     session_id="s1", now=time.time())
    start = last_id(cfg)
    code, result = cli(tacit_env, "review", "--keep", str(capture.id))
    assert code == 0 and result["success"], result
    (change,) = rows_since(cfg, start)
    assert change.actor.kind == "user" and change.added() == ["Our Kafka cluster has six brokers."]
    assert "database is locked" not in (cfg.log_file.read_text() if cfg.log_file.exists() else "")


# -- slash commands, as Claude Code's hook answers them --------------------------------------
@pytest.fixture
def claude(cfg, tmp_path):
    quiet = cfg.with_settings(child_enabled=False)
    engine = build_engine(quiet, "oneshot", host="claude-code", discover_plugins=False)

    def prompt(text: str) -> dict:
        body = {"session_id": SID, "transcript_path": "/nonexistent.jsonl", "cwd": str(tmp_path),
                "hook_event_name": "UserPromptSubmit", "prompt_id": f"p-{text[:20]}", "prompt": text}
        return json.loads(hooks.run(engine, "claude-code", "UserPromptSubmit", json.dumps(body).encode()))

    return prompt


def test_memory_teach_is_one_row_as_you(cfg, claude):
    start = last_id(cfg)
    out = claude("/tacit:memory-teach Always run make lint before pushing.")
    assert out["decision"] == "block" and "Taught" in out["reason"], out
    (change,) = rows_since(cfg, start)
    assert change.actor.describe() == "you (/memory-teach)"
    assert change.actor.session_id == SID and change.actor.host == "claude-code"


def test_memory_forget_is_you_not_the_agent(cfg, claude):
    MemoryStore(cfg).add("global", "We deploy with Capistrano.")
    start = last_id(cfg)
    out = claude("/tacit:memory-forget capistrano")
    assert "Forgot" in out["reason"], out
    (change,) = rows_since(cfg, start)
    assert change.action == "forget" and change.actor.kind == "user" and change.actor.name == "/memory-forget"


# -- pi: the agent's tool and a child's ----------------------------------------------------------
@pytest.fixture
def pi_env(tacit_env):
    return {**tacit_env, "TACIT_HOST": "pi"}


def test_pi_child_saves_are_the_childs(cfg, pi_env):
    child = Actor(kind="child", name="correction", session_id="sess-pi", host="pi", group="job:9")
    session = ServiceSession(pi_env)
    try:
        session.hello(child=True, actor=child.to_env())
        result = session.result("tool", {"name": "memory", "session_id": "sess-child",
                                         "args": {"action": "add", "target": "global",
                                                  "content": "Use uv, not pip."}})
        assert result["success"], result
    finally:
        session.close()
    (change,) = rows_since(cfg, 0)
    assert (change.actor.kind, change.actor.name, change.group) == ("child", "correction", "job:9")


def test_pi_agent_saves_are_the_agents(cfg, pi_env):
    session = ServiceSession(pi_env)
    try:
        session.hello()
        result = session.result("tool", {"name": "memory", "session_id": "sess-agent",
                                         "args": {"action": "add", "target": "user", "content": "Call me Sam."}})
        assert result["success"], result
    finally:
        session.close()
    (change,) = rows_since(cfg, 0)
    assert change.actor.describe().startswith("the agent in session sess-agent on pi")


# -- Hermes: a child's save through Hermes's own memory tool ----------------------------------------
def test_a_hermes_childs_project_save_is_one_row(cfg, tmp_path):
    repo = tmp_path / "shop"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    project = project_for(str(repo))
    MemoryStore(cfg).add("global", "Tests run with tox.")
    job = {"id": 31, "kind": "correction", "session_id": "sess-h", "host": "hermes", "cwd": str(repo)}
    snap = integrity.snapshot(cfg, job)
    # what Hermes's memory tool does inside the child: append to the notes, tagged with the project
    cfg.memory_file.write_text(ENTRY_DELIMITER.join(["Tests run with tox.", tag_for(project) + "Use pnpm, not npm."]))
    start = last_id(cfg)
    child = Actor(kind="child", name="correction", session_id="sess-h", host="hermes", group="job:31")
    assert file_tagged(cfg, project, child) == ["Use pnpm, not npm."]
    verdict = integrity.verify(cfg, job, snap)
    assert verdict.ok and not verdict.restored, verdict
    (change,) = rows_since(cfg, start)
    assert change.scope == "project" and change.added() == ["Use pnpm, not npm."]
    assert change.actor.kind == "child" and change.group == "job:31"
    assert MemoryStore(cfg).entries("global") == ["Tests run with tox."]


def test_no_actor_is_refused_before_the_file_changes(cfg, no_actor):
    assert USER.kind == "user"
    with pytest.raises(history.NoActor):
        MemoryStore(cfg).add("global", "Nobody said this.")
    assert not cfg.memory_file.exists()


def test_no_actor_is_refused_before_a_skill_changes(cfg, no_actor):
    """A skill write with nobody declared used to write the file and then fail to record it."""
    from tacit.stores.skills import SkillStore

    store = SkillStore(cfg)
    assert store.create("deploy-app", "Deploy the app.")["success"] is False
    assert store.install_starters()["success"] is False
    assert not cfg.skills_dir.exists() or not any(cfg.skills_dir.iterdir())
    assert last_id(cfg) == 0


def test_cli_skill_create_is_one_row_as_you(cfg, tacit_env):
    code, result = cli(tacit_env, "skill", "create", "--name", "deploy-app", "--description", "Deploy the app.")
    assert code == 0 and result["success"], result
    (change,) = rows_since(cfg, 0)
    assert change.action == "skill_create" and change.actor.describe() == "you (tacit CLI)"


ADDER = """
import sys
from tacit.app import USER, Tacit
from tacit.config import load_config
memory = Tacit(load_config()).as_actor(USER).memory()
for i in range(int(sys.argv[1])):
    assert memory.add("global", f"Concurrent note {i}.")["success"]
"""


def test_a_look_while_another_process_writes_is_no_hand_edit(cfg, tacit_env):
    """A session start (or ``memory log``) reading the files while another process writes
    used to record that write a second time, as a hand edit (or undo it with a stale one)."""
    cli(tacit_env, "memory", "add", "--scope", "global", "Seed.")
    start = last_id(cfg)
    adder = subprocess.Popen([sys.executable, "-c", ADDER, "30"], env=tacit_env)
    try:
        while adder.poll() is None:
            MemoryStore(cfg).notice_edits()
    finally:
        adder.wait(timeout=60)
    assert adder.returncode == 0
    rows = rows_since(cfg, start)
    assert [c.actor.kind for c in rows] == ["user"] * 30
    assert MemoryStore(cfg).entries("global") == ["Seed."] + [f"Concurrent note {i}." for i in range(30)]


def test_a_settled_file_is_looked_up_once_and_a_later_edit_is_still_found(cfg, monkeypatch):
    """Every session start locked, read and looked up each memory file in the ledger; a file as it was
    when its history last agreed is skipped now, and any change after (a hand edit in place) is seen."""
    MemoryStore(cfg).add("global", "Seed.")
    time.sleep(0.15)  # settled: a later write shows in its times
    looked, real = [], history.notice_edit
    monkeypatch.setattr(history, "notice_edit", lambda *a, **k: looked.append(k["target"]) or real(*a, **k))
    assert MemoryStore(cfg).notice_edits() == [] and MemoryStore(cfg).notice_edits() == []
    assert looked.count(str(cfg.memory_file)) == 1
    start = last_id(cfg)
    cfg.memory_file.write_text(cfg.memory_file.read_text().replace("Seed.", "Seen."))  # same size, same inode
    assert len(MemoryStore(cfg).notice_edits()) == 1
    [row] = rows_since(cfg, start)
    assert row.actor.kind == "hand" and row.added() == ["Seen."]


def test_cli_batch_names_the_change_that_undoes_it(cfg, tacit_env, tmp_path):
    """``tacit memory batch`` wrote its rows but, alone of the writers, did not say which undo takes it back."""
    MemoryStore(cfg).add("global", "The CI ran on Jenkins before.")
    MemoryStore(cfg).add("user", "Call me Sam.")
    files = (cfg.memory_file, cfg.user_file)
    kept = [f.read_bytes() for f in files]
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps([{"action": "add", "target": "user", "content": "Prefers short answers."},
                               {"action": "remove", "target": "memory", "old_text": "Jenkins"}]))
    start = last_id(cfg)
    code, result = cli(tacit_env, "memory", "batch", str(ops))
    assert code == 0 and result["success"], result
    rows = rows_since(cfg, start)
    assert len(rows) == 2 and {c.actor.describe() for c in rows} == {"you (tacit CLI)"}
    assert len({c.group for c in rows}) == 1 and result["change_id"] in [c.id for c in rows]
    code, undone = cli(tacit_env, "memory", "undo", str(result["change_id"]))
    assert code == 0 and undone["success"], undone
    assert [f.read_bytes() for f in files] == kept
    code, again = cli(tacit_env, "memory", "undo", str(result["change_id"]))
    assert code == 1 and "already undone" in again["error"], again
    text = subprocess.run([sys.executable, "-m", "tacit", "memory", "batch", str(ops)], env=tacit_env,
                          capture_output=True, text=True, timeout=60)
    assert f"(undo: tacit memory undo {last_id(cfg)})" in text.stdout, text


def test_cli_install_starters_is_one_undoable_change_as_you(cfg, tacit_env):
    """``tacit skill install-starters`` wrote two skills with no history row: nobody's, and no undo."""
    code, result = cli(tacit_env, "skill", "install-starters")
    assert code == 0 and result["installed"], result
    rows = rows_since(cfg, 0)
    assert [c.action for c in rows] == ["skill_create"] * len(result["installed"])
    assert {c.actor.describe() for c in rows} == {"you (tacit CLI)"} and len({c.group for c in rows}) == 1
    assert result["change_id"] == rows[-1].id
    code, again = cli(tacit_env, "skill", "install-starters")
    assert code == 0 and not again["installed"] and "change_id" not in again and last_id(cfg) == rows[-1].id
    code, undone = cli(tacit_env, "memory", "undo", str(result["change_id"]))
    assert code == 0 and undone["success"], undone
    assert not [p for p in cfg.skills_dir.iterdir() if not p.name.startswith(".")]
    code, twice = cli(tacit_env, "memory", "undo", str(result["change_id"]))
    assert code == 1 and "already undone" in twice["error"], twice


def test_agents_of_two_time_ordered_sessions_a_second_apart_are_named_apart():
    """Codex's and pi's ids are UUIDv7: 12 characters of the head are the same for sessions started
    16 ms apart, so the memory log named the agents of two sessions alike; the random tail tells them apart."""
    first, second = "01a25251-5cfc-7300-88f7-0f02115d47e1", "01a25251-5d10-7aa1-9202-a73191f4cc9d"
    names = {Actor(kind="agent", name="memory", session_id=s, host="pi").describe() for s in (first, second)}
    assert names == {"the agent in session …0f02115d47e1 on pi", "the agent in session …a73191f4cc9d on pi"}
    random_id = "3f2b8c1e-9a4d-4e2f-8b1a-0c9d8e7f6a5b"  # a v4 UUID (Claude Code's): its head, as before
    assert Actor(kind="agent", session_id=random_id, host="x").describe() == "the agent in session 3f2b8c1e-9a4 on x"
