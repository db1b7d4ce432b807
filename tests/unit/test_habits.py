"""Habit mining: pairs within the window, trigrams only when truly
consecutive, A→B→A skipped, confidence a proportion, idempotent re-runs,
every event mined, pruning, suggestions, status, and command habits becoming
workflow memories."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tacit.learn import habits
from tacit.learn.habits import mine_events
from tacit.stores.ledger import Ledger

T0 = 1_750_000_000.0


@pytest.fixture
def led(cfg):
    ledger = Ledger(cfg)
    yield ledger
    ledger.close()


def events_of(sessions):
    """{session: [(action, t), ...]} → ordered (session, action, ts) rows."""
    rows = []
    for session in sorted(sessions):
        for action, t in sorted(sessions[session], key=lambda e: e[1]):
            rows.append((session, action, T0 + t))
    return rows


def by_pattern(patterns):
    return {p["pattern"]: p for p in patterns}


def test_pairs_within_the_window_only():
    sessions = {f"s{n}": [("Read", 0), ("Edit", 10), ("Bash:pytest", 45)] for n in range(3)}
    found = by_pattern(mine_events(events_of(sessions), window=30, min_frequency=3))
    assert found["Read → Edit"]["count"] == 3 and found["Read → Edit"]["status"] == "habit"
    assert "Edit → Bash:pytest" not in found  # 35 s gap > 30 s window
    assert "Read → Edit → Bash:pytest" not in found


def test_trigrams_only_when_truly_consecutive():
    # A→B in some sessions and B→C in others never make an A→B→C trigram
    sessions = {f"ab{n}": [("A", 0), ("B", 5)] for n in range(3)}
    sessions.update({f"bc{n}": [("B", 0), ("C", 5)] for n in range(3)})
    sessions["gap"] = [("A", 0), ("B", 5), ("X", 100), ("B", 200), ("C", 205)]
    found = by_pattern(mine_events(events_of(sessions), window=30, min_frequency=3))
    assert found["A → B"]["count"] == 4 and found["B → C"]["count"] == 4
    assert not [p for p in found if p.count("→") == 2]
    sessions = {f"abc{n}": [("A", 0), ("B", 5), ("C", 9)] for n in range(3)}
    found = by_pattern(mine_events(events_of(sessions), window=30, min_frequency=3))
    assert found["A → B → C"]["count"] == 3 and found["A → B → C"]["length"] == 3


def test_cycles_and_repeats_are_skipped():
    sessions = {f"s{n}": [("A", 0), ("B", 3), ("A", 6), ("A", 8), ("B", 9)] for n in range(3)}
    found = by_pattern(mine_events(events_of(sessions), window=30, min_frequency=3))
    assert "A → B → A" not in found and "B → A → B" not in found
    assert "A → A" not in found and "B → A → A" not in found
    assert found["A → B"]["count"] == 6 and found["B → A"]["count"] == 3


def test_confidence_is_sessions_with_pattern_over_sessions_with_its_first_step():
    sessions = {f"yes{n}": [("A", 0), ("B", 5), ("A", 50), ("B", 55)] for n in range(4)}
    sessions.update({f"no{n}": [("A", 0), ("C", 100)] for n in range(4)})
    sessions.update({f"other{n}": [("X", 0), ("Y", 1)] for n in range(10)})
    found = by_pattern(mine_events(events_of(sessions), window=30, min_frequency=3))
    ab = found["A → B"]
    assert ab["count"] == 8 and ab["sessions"] == 4 and ab["sessions_considered"] == 8
    assert ab["confidence"] == 0.5


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["s1", "s2", "s3"]), st.sampled_from("ABCD"),
                          st.integers(min_value=0, max_value=200)), max_size=60))
def test_mining_invariants(raw):
    rows = sorted(((s, a, T0 + t) for s, a, t in raw), key=lambda r: (r[0], r[2]))
    first = mine_events(rows, window=30, min_frequency=3)
    assert first == mine_events(rows, window=30, min_frequency=3)
    for p in first:
        assert 0 < p["confidence"] <= 1
        assert p["sessions"] <= p["count"] and p["sessions"] <= p["sessions_considered"]
        assert len(set(zip(p["steps"], p["steps"][1:]))) == p["length"] - 1
        assert all(a != b for a, b in zip(p["steps"], p["steps"][1:]))
        assert p["length"] == 2 or p["steps"][0] != p["steps"][2]
        assert (p["status"] == "habit") == (p["count"] >= 3)


def record_sessions(led, sessions):
    with led.write() as conn:
        for session, action, ts in events_of(sessions):
            habits.record_action_in(conn, session, action, ts)


def test_mine_is_idempotent_and_mines_every_event(led, cfg):
    # 2,000 sessions × 6 events = 12,000 events; nothing is cut off at "first N"
    sessions = {f"s{n:04d}": [("Read", 0), ("Edit", 5), ("Bash:pytest", 9),
                              ("Read", 100), ("Edit", 105), ("Bash:pytest", 109)] for n in range(2000)}
    record_sessions(led, sessions)
    now = T0 + 3600
    first = habits.mine(led, cfg, now=now)
    rows1 = habits.list_habits(led)
    second = habits.mine(led, cfg, now=now)
    assert habits.list_habits(led) == rows1 and first["habits"] == second["habits"] == 3
    found = by_pattern(rows1)
    assert found["Read → Edit"]["count"] == 4000
    assert found["Read → Edit → Bash:pytest"]["count"] == 4000
    assert found["Read → Edit"]["confidence"] == 1.0


def test_events_older_than_retention_are_pruned(led, cfg):
    record_sessions(led, {"old": [("A", 0), ("B", 1)], "new": [("A", 61 * 86400), ("B", 61 * 86400 + 1)]})
    result = habits.mine(led, cfg, now=T0 + 61 * 86400 + 10)
    assert result["pruned"] == 2
    with led.read() as conn:
        assert conn.execute("SELECT DISTINCT session_id FROM action_events").fetchall() == [("new",)]


def test_suggest_needs_weight_and_count(led, cfg):
    strong = {f"s{n}": [("Edit", 0), ("Bash:pytest", 5)] for n in range(5)}
    weak = {f"w{n}": [("Grep", 0), ("Read", 5)] for n in range(5)}
    weak.update({f"w{n}x": [("Grep", 0)] for n in range(5)})  # Grep→Read in 5 of 10 sessions
    few = {f"f{n}": [("Glob", 0), ("Read", 5)] for n in range(4)}  # weight 1.0, count 4
    record_sessions(led, {**strong, **weak, **few})
    habits.mine(led, cfg, now=T0 + 100)
    assert [s["next"] for s in habits.suggest(led, "edit")] == ["Bash:pytest"]
    assert habits.suggest(led, "Grep") == [] and habits.suggest(led, "Glob") == []
    text = habits.render_suggestions("Edit", habits.suggest(led, "Edit"))
    assert text == "After Edit you usually run Bash:pytest (weight 1.00, seen 5×)."


def test_status_shows_emerging_patterns_with_progress(led, cfg):
    record_sessions(led, {"s1": [("A", 0), ("B", 5)], "s2": [("A", 0), ("B", 5)],
                          "s3": [("X", 0), ("Y", 3)]})
    habits.mine(led, cfg, now=T0 + 100)
    info = habits.status(led, cfg)
    assert info["events"] == 6 and info["sessions"] == 3 and info["habits"] == []
    text = habits.render_status(info)
    assert f"{habits.progress_bar(2, 3)} 2/3  A → B" in text
    assert habits.progress_bar(2, 3) == "███████░░░" and habits.progress_bar(9, 3) == "█" * 10


def test_clear_deletes_events_and_habits(led, cfg):
    record_sessions(led, {f"s{n}": [("A", 0), ("B", 5)] for n in range(3)})
    habits.mine(led, cfg, now=T0 + 100)
    assert habits.clear(led)["events_deleted"] == 6
    assert habits.list_habits(led) == [] and habits.status(led, cfg)["events"] == 0


def test_a_command_habit_becomes_a_workflow_memory(led, cfg):
    sessions = {f"s{n}": [("/test", 0), ("/deploy", 10)] for n in range(5)}
    sessions.update({f"t{n}": [("Read", 0), ("Edit", 10)] for n in range(5)})
    record_sessions(led, sessions)
    result = habits.mine(led, cfg, now=T0 + 100)
    assert result["memories_created"] == ["workflow-seq-test-deploy"]  # tool-only habits stay habits
    assert habits.mine(led, cfg, now=T0 + 200)["memories_reinforced"] == []  # nothing new
    record_sessions(led, {"s9": [("/test", 300), ("/deploy", 310)]})
    assert habits.mine(led, cfg, now=T0 + 400)["memories_reinforced"] == ["workflow-seq-test-deploy"]


def test_mine_if_stale(led, cfg):
    assert habits.mine_if_stale(led, cfg, now=T0) is not None
    assert habits.mine_if_stale(led, cfg, now=T0 + 60) is None
    assert habits.mine_if_stale(led, cfg, now=T0 + 901) is not None


@pytest.mark.parametrize("command, program", [
    ("pytest -q tests", "pytest"),
    ("FOO=1 sudo -E git push", "git"),
    ("/usr/bin/env python3 x.py", "python3"),
    ("cd src && make", "make"),
    ("cd src", None),
    ("export A=1; source venv/bin/activate && python -m pytest", "python"),
    ("", None),
    ("'unterminated", "'unterminated"),
])
def test_shell_program(command, program):
    assert habits.shell_program(command) == program


def test_action_names():
    assert habits.action_for_tool("Bash", {"command": "git status"}) == "Bash:git"
    assert habits.action_for_tool("Bash", {}) == "Bash"
    assert habits.action_for_tool("Edit", {"command": "x"}) == "Edit"
    assert habits.action_for_command("deploy") == "/deploy"
    assert habits.action_for_command("/deploy") == "/deploy"
