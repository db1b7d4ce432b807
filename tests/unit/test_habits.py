"""Habits: pairs within the window, trigrams only when truly consecutive,
A→B→A skipped, confidence a proportion weighed by sessions, one session a candidate; counted as actions arrive and equal
to mining every event at once; retention subtracting old days; suggestions,
status, rebuild, clear, and command habits becoming workflow memories."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from learn_helpers import record_actions
from tacit.config import load_config
from tacit import display
from tacit.learn import habits, observe
from tacit.stores import habits as habit_store
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
    return {(p["pattern"] if isinstance(p, dict) else p.pattern): p for p in patterns}


def mine_events(events, window: float, min_frequency: int) -> list[dict]:
    """The reference the incremental counting must equal: mine ``(session_id,
    action, ts)`` rows ordered by session then time into pattern dicts (habits
    and emerging), most frequent first."""
    stats: dict[tuple, list] = {}  # steps -> [count, gap_sum, first, last, {session: last}]
    sessions_with_action: dict[str, set] = {}
    current, previous = object(), []
    for session, action, ts in events:
        if session != current:
            current, previous = session, []
        sessions_with_action.setdefault(action, set()).add(session)
        step_now = habits.Step(action, ts)
        for occ in habits.completed(previous, step_now, window):
            s = stats.setdefault(occ.steps, [0, 0.0, occ.start, occ.end, {}])
            s[0] += 1
            s[1] += occ.gap
            s[2], s[3] = min(s[2], occ.start), max(s[3], occ.end)
            s[4][session] = max(occ.end, s[4].get(session, occ.end))
        previous = [*previous[-1:], step_now]
    out = []
    for steps, (count, gap_sum, first, last, sessions) in stats.items():
        habit = habits.make_habit(steps, count, gap_sum, len(sessions), len(sessions_with_action.get(steps[0], ())),
                                   first, last, min_frequency)
        out.append({**habit.as_dict(), "confidence": habit.confidence, "avg_gap": habit.avg_gap,
                    "session_ids": sorted(sessions)})
    out.sort(key=lambda p: (-p["count"], p["pattern"]))
    return out


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
    assert ab["confidence"] == pytest.approx(4 / 9)


def test_one_session_is_a_candidate_never_a_sure_habit():
    """The replay of 120 real sessions listed 54 habits from one session, 12 of them "in 1/1 sessions
    confidence 1.00" ranked above habits seen in 10 sessions (an MCP browser tool run in one session)."""
    sessions = {"once": [("mcp__browser__click", 5 * n) for n in range(0, 14, 2)]}
    sessions["once"] += [("mcp__browser__wait", 5 * n) for n in range(1, 14, 2)]
    sessions.update({f"s{n}": [("Read", 0), ("Edit", 5)] for n in range(3)})
    sessions.update({f"r{n}": [("Read", 0)] for n in range(3)})
    found = by_pattern(mine_events(events_of(sessions), window=30, min_frequency=3))
    once = found["mcp__browser__click → mcp__browser__wait"]
    assert (once["count"], once["sessions"], once["sessions_considered"]) == (7, 1, 1)
    assert once["status"] == "emerging" and once["confidence"] == 0.5
    read_edit = found["Read → Edit"]  # 3 of 6 sessions that ran Read, and a habit
    assert read_edit["status"] == "habit" and read_edit["confidence"] == pytest.approx(3 / 7)
    two = habits.make_habit(("A", "B"), 3, 0, 2, 2, T0, T0, 3)
    assert two.status == "habit" and two.confidence == pytest.approx(2 / 3)
    assert [h.sessions for h in habits.order([habits.make_habit(("C", "D"), 9, 0, 1, 1, T0, T0, 3), two])] == [2, 1]
    assert habits.confidence(4, 4) == 0.8 and habits.confidence(10, 10) == pytest.approx(10 / 11)


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
        assert p["confidence"] <= p["sessions"] / (p["sessions"] + 1)
        assert (p["status"] == "habit") == (p["count"] >= 3 and p["sessions"] >= 2)


def record_sessions(led, cfg, sessions):
    record_actions(led, cfg, events_of(sessions))


def counted(led, cfg):
    with led.read() as conn:
        return by_pattern(observe.all_habits(conn, cfg))


def test_the_counters_agree_with_the_batch_miner(led, cfg):
    sessions = {f"s{n}": [("Read", 0), ("Edit", 5), ("Bash:pytest", 9), ("Read", 20), ("Edit", 70),
                          ("Grep", 71), ("Edit", 72)] for n in range(4)}
    sessions["other"] = [("Edit", 0), ("Read", 3)]
    record_sessions(led, cfg, sessions)
    batch = by_pattern(mine_events(events_of(sessions), window=30, min_frequency=3))
    got = counted(led, cfg)
    assert set(got) == set(batch)
    for pattern, h in got.items():
        b = batch[pattern]
        assert (h.count, h.sessions, h.sessions_considered, h.status) == \
            (b["count"], b["sessions"], b["sessions_considered"], b["status"]), pattern
        assert h.confidence == pytest.approx(b["confidence"]) and h.avg_gap == pytest.approx(b["avg_gap"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["s1", "s2", "s3"]), st.sampled_from("ABCD"),
                          st.integers(min_value=0, max_value=200)), max_size=40))
def test_counting_as_events_arrive_equals_mining_them_all(tmp_path_factory, raw):
    """Whatever the events, the incremental counters are the batch miner's
    result (each session's events arriving in time order, as live)."""
    cfg = load_config(env={"TACIT_HOME": str(tmp_path_factory.mktemp("habits"))})
    rows = sorted(((s, a, T0 + t) for s, a, t in raw), key=lambda r: (r[0], r[2]))
    with Ledger(cfg) as led:
        record_actions(led, cfg, rows)
        got = {p: (h.count, h.sessions, h.sessions_considered) for p, h in counted(led, cfg).items()}
    want = {p["pattern"]: (p["count"], p["sessions"], p["sessions_considered"])
            for p in mine_events(rows, window=30, min_frequency=3)}
    assert got == want


def test_every_event_is_counted_and_the_cost_does_not_grow(led, cfg):
    # 2,000 sessions × 6 events = 12,000 events; nothing is cut off at "first N"
    sessions = {f"s{n:04d}": [("Read", 0), ("Edit", 5), ("Bash:pytest", 9),
                              ("Read", 100), ("Edit", 105), ("Bash:pytest", 109)] for n in range(2000)}
    record_sessions(led, cfg, sessions)
    with led.read() as conn:
        found = by_pattern(observe.list_habits(conn, cfg))
        # recording one more action reads the session's last two, never the history
        plan = " ".join(r[-1] for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT action, ts FROM action_events WHERE session_id = ? "
            "ORDER BY ts DESC, id DESC LIMIT 2", ("s0001",)))
    assert len(found) == 3
    assert found["Read → Edit"]["count"] == 4000 and found["Read → Edit → Bash:pytest"]["count"] == 4000
    assert found["Read → Edit"]["confidence"] == pytest.approx(2000 / 2001, abs=1e-3)  # rounded to 3 places
    assert "idx_action_events_session" in plan and "SCAN" not in plan


def test_retention_drops_old_days_and_sessions_from_the_counters(led, cfg):
    record_sessions(led, cfg, {"old": [("A", 0), ("B", 1)], "new": [("A", 61 * 86400), ("B", 61 * 86400 + 1)]})
    assert counted(led, cfg)["A → B"].count == 2
    cut = T0 + 61 * 86400 + 10 - cfg.habit_retention_days * 86400
    assert habit_store.prune_events(led, cut) == 2
    with led.write() as conn:
        habit_store.prune(conn, cut)
    h = counted(led, cfg)["A → B"]
    assert (h.count, h.sessions, h.sessions_considered) == (1, 1, 1)
    assert h.first_seen == T0 + 61 * 86400
    with led.read() as conn:
        assert conn.execute("SELECT DISTINCT session_id FROM action_events").fetchall() == [("new",)]
    habit_store.prune_events(led, T0 + 200 * 86400)
    with led.write() as conn:  # everything past: the pattern goes
        habit_store.prune(conn, T0 + 200 * 86400)
    assert counted(led, cfg) == {}


def test_suggest_needs_weight_and_count(led, cfg):
    strong = {f"s{n}": [("Edit", 0), ("Bash:pytest", 5)] for n in range(5)}
    weak = {f"w{n}": [("Grep", 0), ("Read", 5)] for n in range(5)}
    weak.update({f"w{n}x": [("Grep", 0)] for n in range(5)})  # Grep→Read in 5 of 10 sessions
    few = {f"f{n}": [("Glob", 0), ("Read", 5)] for n in range(4)}  # weight 0.8, count 4
    few["one"] = [("Write", 5 * n) for n in range(0, 12, 2)] + [("Bash:ls", 5 * n) for n in range(1, 12, 2)]
    record_sessions(led, cfg, {**strong, **weak, **few})
    with led.read() as conn:
        assert [s["next"] for s in observe.suggest(conn, cfg, "edit")] == ["Bash:pytest"]
        assert observe.suggest(conn, cfg, "Grep") == [] and observe.suggest(conn, cfg, "Glob") == []
        assert observe.suggest(conn, cfg, "Write") == []  # ×6, but in one session
        text = habits.render_suggestions("Edit", observe.suggest(conn, cfg, "Edit"))
    assert text == "After Edit you usually run Bash:pytest (weight 0.83, seen 5×)."


def test_status_shows_emerging_patterns_with_progress(led, cfg):
    record_sessions(led, cfg, {"s1": [("A", 0), ("B", 5)], "s2": [("A", 0), ("B", 5)],
                               "s3": [("X", 0), ("Y", 3), ("X", 6), ("Y", 9), ("X", 12), ("Y", 15)]})
    with led.read() as conn:
        info = observe.habit_status(conn, cfg)
    assert info["events"] == 10 and info["sessions"] == 3 and info["habits"] == []
    text = habits.render_status(info)
    assert f"{habits.progress_bar(2, 3)} 2/3  A → B\n" in text + "\n"
    assert "3/3  X → Y  (1 session)" in text  # repeated enough, but in one session
    assert habits.progress_bar(2, 3) == "███████░░░" and habits.progress_bar(9, 3) == "█" * 10


def test_clear_deletes_events_and_habits(led, cfg):
    record_sessions(led, cfg, {f"s{n}": [("A", 0), ("B", 5)] for n in range(3)})
    with led.write() as conn:
        assert observe.clear_habits(conn)["events_deleted"] == 6
    with led.read() as conn:
        assert observe.list_habits(conn, cfg) == [] and observe.habit_status(conn, cfg)["events"] == 0


def test_rebuild_recounts_with_a_new_window(led, cfg):
    record_sessions(led, cfg, {f"s{n}": [("A", 0), ("B", 45)] for n in range(3)})
    assert counted(led, cfg) == {}  # 45 s > the 30 s window
    wider = cfg.with_settings(sequential_window_seconds=60)
    with led.write() as conn:
        assert observe.rebuild_habits(conn, wider, now=T0 + 100)["occurrences"] == 3
    assert counted(led, wider)["A → B"].count == 3


def test_a_command_habit_becomes_a_workflow_memory(led, cfg):
    def workflow():
        with led.read() as conn:
            return conn.execute("SELECT status, times_confirmed FROM memories "
                                "WHERE key = 'workflow-seq-test-deploy'").fetchone()

    record_sessions(led, cfg, {f"t{n}": [("Read", 0), ("Edit", 10)] for n in range(6)})
    record_sessions(led, cfg, {f"s{n}": [("/test", 0), ("/deploy", 10)] for n in range(4)})
    assert workflow() is None  # count 4 < 5
    record_sessions(led, cfg, {"s4": [("/test", 20), ("/deploy", 30)]})
    assert workflow() == ("candidate", 0)  # created by the 5th session, its evidence all five
    with led.read() as conn:
        keys = {r[0] for r in conn.execute("SELECT key FROM memories")}
        sessions = conn.execute("SELECT count(*) FROM memory_evidence e JOIN memories m ON m.id = e.memory_id "
                                "WHERE m.key = 'workflow-seq-test-deploy'").fetchone()[0]
    assert keys == {"workflow-seq-test-deploy"} and sessions == 5  # tool-only habits stay habits
    record_sessions(led, cfg, {"s4": [("/test", 40), ("/deploy", 50)]})  # the same session again
    assert workflow() == ("candidate", 0)
    record_sessions(led, cfg, {"s9": [("/test", 300), ("/deploy", 310)]})  # a new session
    assert workflow() == ("candidate", 1)


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


MCP = "mcp-cursor-ide-browser-cursor-ide-browser-browser_wait_for"  # a tool name the real replay had


def test_the_list_fits_100_columns_with_long_mcp_names_cut_in_the_middle():
    """The replay's `tacit habits list` was ~180 columns wide: MCP tool names of 50+ characters."""
    long = habits.make_habit((MCP, "mcp__plugin_playwright_playwright__browser_snapshot", "Read"), 12, 60, 3, 4,
                             T0, T0, 3).as_dict()
    short = habits.make_habit(("Read", "Edit"), 108, 540, 10, 10, T0, T0, 3).as_dict()
    text = habits.render_list([short, long])
    lines = text.splitlines()
    assert max(map(len, lines)) <= habits.WIDTH and lines[1].split()[:2] == ["pattern", "count"]
    row = next(line for line in lines if "Read →" not in line and "…" in line)
    assert row.startswith("  mcp-curso…owser_wait_for → mcp__plug…owser_snapshot → Read ")
    assert row.endswith("  12        3/4        0.60       5s")
    assert "  Read → Edit " in text and "10/10        0.91" in text
    assert long["pattern"] == f"{MCP} → mcp__plugin_playwright_playwright__browser_snapshot → Read"  # JSON: whole
    status = habits.render_status({"events": 5, "sessions": 1, "oldest_event": None, "retention_days": 60,
                                   "window_seconds": 30, "min_frequency": 3, "habits": [long], "emerging": [long]})
    assert max(map(len, status.splitlines())) <= habits.WIDTH and "…" in status


def test_a_pattern_is_fitted_step_by_step():
    assert habits.fit_steps(["Read", "Edit"], 20) == "Read → Edit"
    fitted = habits.fit_steps(["Read", MCP], 40)
    assert len(fitted) <= 40 and fitted.startswith("Read → mcp-cursor") and fitted.endswith("browser_wait_for")
    assert len(habits.fit_steps([MCP, MCP + "x", MCP + "y"], 60)) <= 60
    assert display.middle("abcdefghij", 6) == "ab…hij" and display.middle("abc", 6) == "abc"
