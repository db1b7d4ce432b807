"""Forget forgets: every matching entry in every scope, the candidates, and
a tombstone so the lesson is not learned again until the user teaches it.
Real files, the real ledger, the CLI in a subprocess, the engine for
"forget that …" typed in a session."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tacit import changes
from tacit.forget import forget
from tacit.stores import history, tombstones
from tacit.stores.memory import MemoryStore


def tacit(env, *args, extra_env=None):
    return subprocess.run([sys.executable, "-P", "-m", "tacit", *args], env={**env, **(extra_env or {})},
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("forgotten", "text", "expected"), [
    ("we use pnpm", "Use pnpm, never npm", True),
    ("we use pnpm", "pnpm workspace is in packages/", False),
    ("we use pnpm", "This project uses pnpm for installs.", True),
    ("I prefer short answers", "The user prefers short answers.", True),
    ("pnpm", "pnpm workspace is in packages/", True),
    ("that we deploy on tuesdays", "Deploys happen on Tuesdays.", True),
    ("deploy on tuesdays", "Deploy on Wednesdays", False),
    ("the staging URL", "Staging url: https://staging.example.com", True),
    ("", "anything", False),
    ("a", "Prefers short answers.", False),  # no content word: matched as a substring, it hit nearly everything
    ("never", "Use pnpm, never npm.", False),
    ("we use", "Tests use vitest.", False),  # only generic words: it took every entry that uses anything
])
def test_a_forget_matches_by_its_content_words(forgotten, text, expected):
    assert tombstones.matches(forgotten, text) is expected


def test_forget_removes_from_every_scope_and_says_exactly_what(cfg, you):
    store = MemoryStore(cfg)
    store.add("user", "Use pnpm, never npm")
    store.add("global", "We use pnpm in every repo")
    store.add("global", "Deploy on Tuesdays")
    result = forget(you, "we use pnpm")
    assert result["success"]
    assert sorted((r["scope"], r["entry"]) for r in result["removed"]) == [
        ("global", "We use pnpm in every repo"), ("user", "Use pnpm, never npm")]
    assert store.entries("user") == [] and store.entries("global") == ["Deploy on Tuesdays"]
    assert "'Use pnpm, never npm'" in result["message"] and "undo: tacit memory undo" in result["message"]
    # the next session's context lacks it
    assert "pnpm" not in MemoryStore(cfg).snapshot()


def test_forgetting_a_taught_entry_does_not_call_it_a_candidate_not_yet_in_memory(cfg, you):
    """Walking every host: `/memory-teach The API runs on port 8080` then `/memory-forget port 8080`
    answered '… removed 1 from global memory (…), 1 candidate(s) not yet in memory': the taught memory's
    ledger row was counted again as if it had never reached memory."""
    from tacit.learn import lifecycle

    assert lifecycle.teach(you, "The API runs on port 8080.")["success"]
    message = forget(you, "port 8080")["message"]
    assert message.startswith('Forgot "port 8080": removed 1 from global memory (\'The API runs on port 8080.\')')
    assert "candidate" not in message


def test_a_tombstone_refuses_new_evidence_until_the_user_teaches_it_again(tacit_env, cfg, you):
    forget(you, "we use pnpm")
    review = history.Actor(kind="child", name="review", session_id="s", host="codex").to_env()
    proc = tacit(tacit_env, "memory", "add", "--json", "--target", "user", "Use pnpm for installs",
                 extra_env={"TACIT_ACTOR": review})
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and "asked on" in out["error"] and "forget" in out["error"]
    assert MemoryStore(cfg).entries("user") == []
    # a correction in the user's own words teaches it again; so does the user's CLI
    correction = history.Actor(kind="child", name="correction", session_id="s", host="codex").to_env()
    proc = tacit(tacit_env, "memory", "add", "--json", "--target", "user", "Use pnpm, never npm",
                 extra_env={"TACIT_ACTOR": correction})
    assert proc.returncode == 0, proc.stdout
    assert tacit(tacit_env, "memory", "add", "--json", "--target", "user", "pnpm only, please",
                 extra_env={"TACIT_ACTOR": review}).returncode == 0  # the tombstone was lifted


def test_undoing_a_forget_restores_every_scope_and_lifts_the_tombstone(cfg, you):
    store = MemoryStore(cfg)
    store.add("user", "Use pnpm, never npm")
    store.add("global", "We use pnpm in every repo")
    result = forget(you, "we use pnpm")
    any_change = result["removed"][-1]["change_id"]
    undone = changes.undo(you, any_change)
    assert undone["success"] and len(undone["undone"]) == 2
    assert store.entries("user") == ["Use pnpm, never npm"]
    assert store.entries("global") == ["We use pnpm in every repo"]
    with history.ledger_for(cfg) as ledger, ledger.read() as conn:
        assert tombstones.live(conn) == []


def test_tacit_forget_cli_text_and_json(tacit_env, cfg):
    MemoryStore(cfg).add("global", "Deploy on Tuesdays")
    proc = tacit(tacit_env, "forget", "that we deploy on tuesdays")
    assert proc.returncode == 0 and proc.stdout.startswith('Forgot "we deploy on tuesdays": removed 1 from global memory')
    # the words around what to forget are not part of it: it looked for entries saying "what I said about"
    MemoryStore(cfg).add("global", "Tests for the API live in tests/api")
    proc = tacit(tacit_env, "forget", "what I said about tests")
    assert proc.stdout.startswith('Forgot "tests": removed 1 from global memory'), proc.stdout
    proc = tacit(tacit_env, "forget", "--json", "the staging URL")
    out = json.loads(proc.stdout)
    assert out["success"] and out["removed"] == [] and out["tombstone"] is not None
    assert out["message"].startswith("Nothing removed") and "will not be learned" not in out["message"]


def test_forget_that_typed_in_a_session_forgets_at_once_and_tells_the_user(cfg, you):
    from tacit.engine import Engine
    from tacit.events import MessageEnd

    MemoryStore(cfg).add("user", "Use pnpm, never npm")
    engine = Engine(cfg).load_builtins()
    result = engine.dispatch(MessageEnd(session_id="s1", host="claude-code", role="user",
                                        text="forget that we use pnpm"))
    engine.close()
    assert MemoryStore(cfg).entries("user") == []
    assert any(n.startswith('Forgot "we use pnpm": removed 1 from your user profile') for n in result.notices)
    assert any("Do not rely on it" in i.text for i in result.context)
    (row,) = [c for c in you.changes() if c.action == "forget"]
    assert row.actor.kind == "user" and row.actor.session_id == "s1" and row.actor.cause == "forget that we use pnpm"


def test_forget_by_meaning_finds_every_form_in_every_scope(cfg, tmp_path, you):
    from tacit.projects import project_for

    project = project_for(str(tmp_path))
    store = MemoryStore(cfg, project)
    store.add("project", "This project uses pnpm for installs.")
    store.add("user", "Using pnpm is what the user wants.")
    store.add("global", "Deploy on Tuesdays")
    result = forget(you, "we use pnpm", project=project)
    assert sorted(r["scope"] for r in result["removed"]) == ["project", "user"]
    assert store.entries("project") == [] and store.entries("user") == []
    assert store.entries("global") == ["Deploy on Tuesdays"]
    assert result["message"].startswith('Forgot "we use pnpm": removed')


def test_an_unclear_match_is_asked_about_with_ids_and_nothing_is_claimed(cfg, tmp_path, you):
    from tacit.projects import project_for

    project = project_for(str(tmp_path))
    store = MemoryStore(cfg, project)
    store.add("project", "Run the linter before committing.")
    store.add("project", "The pnpm workspace lives in packages/.")
    result = forget(you, "we use pnpm", project=project)
    assert result["removed"] == []
    assert [u["id"] for u in result["unclear"]] == ["project:2"]
    assert "project:2" in result["message"] and "Forgot" not in result["message"]
    assert "will not be learned" not in result["message"]
    assert len(store.entries("project")) == 2  # nothing removed on a guess
    # the user picks it by its id: removed, and that entry's words are tombstoned
    picked = forget(you, "project:2", project=project)
    assert [r["entry"] for r in picked["removed"]] == ["The pnpm workspace lives in packages/."]
    assert store.entries("project") == ["Run the linter before committing."]
    assert forget(you, "project:9", project=project)["success"] is False


def test_forget_typed_in_a_session_with_nothing_to_remove_does_not_claim_it(cfg):
    from tacit.engine import Engine
    from tacit.events import MessageEnd

    engine = Engine(cfg).load_builtins()
    result = engine.dispatch(MessageEnd(session_id="s1", host="claude-code", role="user",
                                        text="forget that we use pnpm"))
    engine.close()
    shown = " ".join(result.notices) + " ".join(i.text for i in result.context)
    assert "Nothing removed" in shown
    assert "will not be learned" not in shown and "will not learn" not in shown and "Forgot" not in shown


def test_a_forget_of_only_common_words_removes_nothing_and_blocks_nothing(cfg, tacit_env):
    """`tacit forget a` removed 'Prefers short answers.' (an "a" in it) and left a tombstone "a" that
    refused every later background save holding the letter; `forget never` took every guard lesson, and
    `forget we use` every entry that uses anything."""
    store = MemoryStore(cfg)
    store.add("user", "Prefers short answers.")
    store.add("global", "Use pnpm, never npm.")
    before = (cfg.user_file.read_bytes(), cfg.memory_file.read_bytes())
    for text in ("a", "never", "the", "it is", "§", "we use", "the project"):
        proc = tacit(tacit_env, "forget", text, "--json")
        out = json.loads(proc.stdout)
        assert proc.returncode == 1 and out["success"] is False, out
        assert out["error"].startswith(f"nothing to match in {text!r}") and "tacit forget project:2" in out["error"], out
    assert (cfg.user_file.read_bytes(), cfg.memory_file.read_bytes()) == before
    with history.ledger_for(cfg) as ledger, ledger.read() as conn:
        assert tombstones.live(conn) == [], "no tombstone of a word that is in every lesson"
    learner = history.Actor(kind="learner", name="review")
    saved = MemoryStore(cfg, actor=learner).add("global", "Deploys go through a staging branch.")
    assert saved["success"], saved
