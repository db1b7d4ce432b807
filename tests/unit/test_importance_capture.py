"""Importance captures: what the user says → candidate memories in the ledger;
repeats, age, duplicates and expiry at the heartbeat; "forget that …" and
secrets refused; the optional "Noted: …" acknowledgement. Real engine and
SQLite; time frozen with freezegun where the calendar matters."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import time

import pytest
from freezegun import freeze_time

from tacit.engine import Engine
from tacit.events import MessageEnd, TurnEnd
from tacit.learn import captures as model
from tacit.learn import importance
from tacit.learn.captures import Assessment
from tacit.learn.review import decide
from tacit.stores import notices
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore


pytestmark = pytest.mark.usefixtures("utc_zone")  # dates here are local dates


def engine(cfg):
    return Engine(cfg, background="inline").load_builtins()


def say(eng, text, sid="s1", ts=None, reply=None):
    # ts from time.time() at call time: freezegun does not reach the events'
    # default (a reference taken at import)
    result = eng.dispatch(MessageEnd(session_id=sid, role="user", text=text,
                                     ts=time.time() if ts is None else ts))
    if reply is not None:
        eng.dispatch(MessageEnd(session_id=sid, role="assistant", text=reply, ts=time.time()))
        eng.dispatch(TurnEnd(session_id=sid, assistant_text=reply, ts=time.time()))
    return result


def beat(cfg, now):
    with Ledger(cfg) as led, led.write() as conn:
        return importance.heartbeat(conn, cfg, now)


def captures(cfg, status=None):
    with Ledger(cfg) as led, led.read() as conn:
        rows = conn.execute("SELECT id, key, kind, status, content, target, confidence, data, expires_at "
                            "FROM memories WHERE source = 'importance' ORDER BY id").fetchall()
    out = [dict(zip(("id", "key", "kind", "status", "content", "target", "confidence", "data", "expires_at"),
                    r)) for r in rows]
    for c in out:
        c["data"] = json.loads(c["data"])
    return [c for c in out if status is None or c["status"] == status]


# ---------------------------------------------------------------------------
# Capturing
# ---------------------------------------------------------------------------
def test_a_preference_becomes_a_candidate_with_its_metadata(cfg):
    eng = engine(cfg)
    say(eng, "Could you fix the flaky test? I prefer tabs over spaces, by the way.", sid="abc")
    [c] = captures(cfg)
    assert (c["kind"], c["status"], c["target"]) == ("preference", "candidate", "user")
    assert c["content"] == "I prefer tabs over spaces, by the way."
    data = c["data"]
    assert data["category"] == "preference" and data["importance"] == pytest.approx(0.929)
    assert data["mentions"] == 1 and data["session_id"] == "abc" and data["day"] == model.local_day(time.time())
    assert data["phrased"] is False  # the user's sentence: evidence for the review, not a rule
    assert "preference" in data["tags"] and data["markers"] == ["i prefer"]
    assert c["confidence"] == 93
    assert not MemoryStore(cfg).entries("user")  # a candidate, not yet memory


@pytest.mark.parametrize("text", [
    "thanks!", "Add a `favorite` flag to the User model.", "Can you run the tests?", "ok", "   ",
    "I like it, thanks!",
])
def test_trivial_messages_are_not_stored(cfg, text):
    say(engine(cfg), text)
    assert captures(cfg) == []


def test_category_minimums_keep_weak_items_out_and_are_configurable(cfg):
    text = "The bastion host sits in front of every deploy."  # unmarked statement: fact at 0.60
    say(engine(cfg.with_settings(importance_category_minimums=["fact=0.65"])), text)
    assert captures(cfg) == []
    say(engine(cfg), text)  # default: fact=0.60
    assert [c["kind"] for c in captures(cfg)] == ["fact"]


def test_a_correction_uses_the_agents_previous_reply(cfg):
    eng = engine(cfg)
    say(eng, "install the dependencies", reply="I ran npm install and updated package-lock.json.")
    say(eng, "No, use pnpm here, not npm.")
    [c] = captures(cfg)
    assert c["kind"] == "correction" and c["target"] == "user"


def test_a_cue_only_correction_yields_to_an_explicit_decision(cfg):
    eng = engine(cfg)
    say(eng, "set up the service", reply="I created the service with SQLite.")
    say(eng, "We decided to use Postgres 16 for the new service.")
    [c] = captures(cfg)
    assert c["kind"] == "decision" and c["target"] == "memory"


def test_chinese_markers(cfg):
    say(engine(cfg), "我更喜欢用 pnpm")
    [c] = captures(cfg)
    assert c["kind"] == "preference"


def test_a_secret_is_never_captured(cfg):
    say(engine(cfg), "Remember that our deploy token is API_KEY=8f3a9c2b7d1e4f6a9b0c3d5e7f8a1b2c, always use it.")
    assert captures(cfg) == []
    log = cfg.log_file.read_text()
    assert "not stored: scanner" in log and "8f3a9c2b" not in log


def test_a_repeat_is_a_mention_and_a_replay_counts_once(cfg):
    eng = engine(cfg)
    t = time.time()
    say(eng, "Always use pnpm, never npm.", ts=t)
    say(eng, "Always use pnpm, never npm.", ts=t)  # the same event replayed
    say(eng, "Always use pnpm, never npm.", sid="s2", ts=t + 60)
    [c] = captures(cfg)
    assert c["data"]["mentions"] == 2
    assert c["data"]["effective"] == pytest.approx(min(1.0, 0.955 + 0.15))


# ---------------------------------------------------------------------------
# Forget
# ---------------------------------------------------------------------------
def test_forget_dismisses_matching_captures_and_refuses_them_later(cfg):
    eng = engine(cfg)
    say(eng, "I prefer tabs over spaces.")
    say(eng, "We decided to use Postgres 16 for the new service.")
    told = say(eng, "forget that I prefer tabs")
    statuses = {c["kind"]: c["status"] for c in captures(cfg)}
    assert statuses == {"preference": "dismissed", "decision": "candidate"}
    say(eng, "I prefer tabs over spaces.")
    say(eng, "Honestly I prefer tabs for indentation in every file.")  # other words, same thing
    assert len(captures(cfg)) == 2
    assert any(n.startswith('Forgot "I prefer tabs"') for n in told.notices)  # told once, at once


def test_forget_removes_a_promoted_capture_from_the_memory_file(cfg):
    eng = engine(cfg)
    say(eng, "I prefer tabs over spaces.")
    [c] = captures(cfg)
    assert decide(cfg, keep=[c["id"]])["success"]
    assert MemoryStore(cfg).entries("user") == ["Prefer tabs over spaces."]
    say(eng, "please forget that I prefer tabs over spaces")
    assert MemoryStore(cfg).entries("user") == []
    assert captures(cfg)[0]["status"] == "dismissed"


def test_dont_forget_is_not_a_forget_request(cfg):
    say(engine(cfg), "Don't forget to run the migrations before the deploy, it is important.")
    assert captures(cfg) and captures(cfg)[0]["status"] == "candidate"


# ---------------------------------------------------------------------------
# Expiry hints → dates
# ---------------------------------------------------------------------------
WEDNESDAY = dt.datetime(2025, 6, 4, 10, 0).timestamp()  # Wed 4 June 2025, 10:00 UTC


def end(y, m, d):
    return dt.datetime(y, m, d, 23, 59, 59).timestamp()


@pytest.mark.parametrize("hint,expected", [
    ("today", end(2025, 6, 4)), ("eod", end(2025, 6, 4)), ("tomorrow", end(2025, 6, 5)),
    ("friday", end(2025, 6, 6)), ("wednesday", end(2025, 6, 4)), ("next friday", end(2025, 6, 13)),
    ("monday", end(2025, 6, 9)), ("this week", end(2025, 6, 8)), ("next week", end(2025, 6, 15)),
    ("end of month", end(2025, 6, 30)), ("next month", end(2025, 7, 31)), ("in two weeks", end(2025, 6, 18)),
    ("in 3 days", end(2025, 6, 7)), ("in a few days", end(2025, 6, 7)), ("in one month", end(2025, 7, 4)), ("q3", end(2025, 9, 30)),
    ("q1", end(2026, 3, 31)), ("march 15", end(2026, 3, 15)), ("july 1", end(2025, 7, 1)),
    ("2025-07-01", end(2025, 7, 1)), ("end of quarter", end(2025, 6, 30)), ("end of year", end(2025, 12, 31)),
    ("this sprint", end(2025, 6, 18)), ("gibberish", None), (None, None),
])
def test_expiry_hints_resolve_to_the_end_of_a_day(hint, expected):
    assert model.resolve_expiry(hint, WEDNESDAY) == expected


def test_a_goal_by_friday_expires_after_friday(cfg):
    with freeze_time("2025-06-04 10:00:00") as frozen:
        eng = engine(cfg)
        say(eng, "We need to ship the billing migration by Friday.")
        [c] = captures(cfg)
        assert c["kind"] == "goal" and c["expires_at"] == end(2025, 6, 6)
        assert decide(cfg, keep=[c["id"]])["success"]  # the user keeps it
        frozen.move_to("2025-06-06 23:00:00")
        say(eng, "what's next?")
        assert captures(cfg)[0]["status"] == "applied"
        assert MemoryStore(cfg).entries("memory") == ["We need to ship the billing migration by Friday."]
        frozen.move_to("2025-06-07 09:00:00")
        say(eng, "good morning")  # the first event of Saturday: heartbeat expires it
        assert captures(cfg) == []
        assert MemoryStore(cfg).entries("memory") == []
        with Ledger(cfg) as led, led.read() as conn:
            assert conn.execute("SELECT action, decided_by FROM importance_decisions WHERE memory_key = ? "
                                "ORDER BY id", (c["key"],)).fetchall() == [("keep", "user"),
                                                                           ("expire", "heartbeat")]
            assert conn.execute("SELECT status, reason FROM adaptations").fetchall() == [("reverted", "expired")]


# ---------------------------------------------------------------------------
# Heartbeat
# ---------------------------------------------------------------------------
def test_boosts_for_repeated_mentions():
    assert [model.boost(n) for n in range(1, 7)] == pytest.approx([0, 0.15, 0.25, 0.30, 0.35, 0.40])


def test_the_heartbeat_runs_every_interval_of_activity(cfg):
    t = 1_750_000_000.0
    with Ledger(cfg) as led, led.write() as conn:
        assert importance.heartbeat_due(conn, cfg, t)
        importance.heartbeat(conn, cfg, t)
        assert not importance.heartbeat_due(conn, cfg, t + 10 * 60)
        assert not importance.heartbeat_due(conn, cfg, t + 29 * 60)
        assert importance.heartbeat_due(conn, cfg, t + 30 * 60)
        assert not importance.heartbeat_due(conn, cfg.with_settings(heartbeat_interval=0), t + 10_000)


def test_age_multipliers():
    t = 1_750_000_000.0
    day = 86400
    assert [model.effective_importance(0.8, 1, t - age * day, t) for age in (0, 7, 8, 30, 31, 90, 91)] == \
        pytest.approx([0.8, 0.8, 0.72, 0.72, 0.56, 0.56, 0.4])
    assert model.effective_importance(0.95, 3, t, t) == 1.0  # boosts are capped at 1.0


def test_a_kept_memory_fades_with_age_unless_reinforced(cfg):
    with freeze_time("2025-03-01 10:00:00") as frozen:
        eng = engine(cfg)
        say(eng, "Our staging database runs Postgres 15.")  # a fact
        [c] = captures(cfg)
        base = c["data"]["importance"]
        assert c["kind"] == "fact" and 0.70 <= base <= 0.85
        assert decide(cfg, keep=[c["id"]])["success"]  # applied: in MEMORY.md
        seen = {}
        for days in (8, 31, 95):
            frozen.move_to(dt.datetime(2025, 3, 1, 10) + dt.timedelta(days=days))
            beat(cfg, time.time())
            [row] = captures(cfg)
            seen[days] = (row["data"]["effective"], row["confidence"])
        assert seen == {days: (pytest.approx(round(base * m, 4)), round(base * m * 100))
                        for days, m in ((8, 0.9), (31, 0.7), (95, 0.5))}
        say(eng, "Our staging database runs Postgres 15.", sid="s2")  # reinforced: young again
        beat(cfg, time.time())
        assert captures(cfg)[0]["data"]["effective"] == pytest.approx(base + 0.15)
        assert MemoryStore(cfg).entries("memory") == ["Our staging database runs Postgres 15."]


def test_an_undecided_medium_capture_fades_out(cfg):
    t0 = dt.datetime(2025, 3, 1, 10).timestamp()
    eng = engine(cfg.with_settings(heartbeat_interval=0))
    say(eng, "Our staging database runs Postgres 15.", ts=t0)
    beat(cfg, t0 + 8 * 86400)  # 0.64: medium, waits
    assert captures(cfg)[0]["data"]["deferred"] is True
    beat(cfg, t0 + 31 * 86400)  # 0.50: low, nobody kept it → discarded
    assert captures(cfg) == []
    with Ledger(cfg) as led, led.read() as conn:
        actions = [r[0] for r in conn.execute("SELECT action FROM importance_decisions ORDER BY id")]
    assert actions == ["defer", "discard"]


def test_the_same_words_again_are_one_capture(cfg):
    eng = engine(cfg.with_settings(heartbeat_interval=0))
    say(eng, "We decided to use Postgres 16 for the new billing service.")
    say(eng, "We decided to use Postgres 16 for the new billing service!", sid="s2")
    say(eng, "I prefer tabs over spaces.", sid="s3")
    rows = captures(cfg)
    assert [c["kind"] for c in rows] == ["decision", "preference"]
    assert rows[0]["data"]["mentions"] == 2


def test_merge_keys_differ_but_terms_match(cfg):
    t = time.time()
    a = Assessment("capture", category="decision", importance=0.96, markers=("let's use",),
                   content="Let's use Redis for the session cache.")
    b = Assessment("capture", category="decision", importance=0.97, markers=("let's use",),
                   content="OK let's use Redis for the session cache")
    with Ledger(cfg) as led, led.write() as conn:
        importance.capture(conn, cfg, a, session_id="s1", now=t)
        importance.capture(conn, cfg, b, session_id="s2", now=t + 5)
    assert len(captures(cfg)) == 2
    result = beat(cfg, t + 10)
    [c] = captures(cfg)
    assert result["merged"] == 1 and c["data"]["mentions"] == 2
    assert c["data"]["importance"] == pytest.approx(0.97)
    assert c["data"]["effective"] == pytest.approx(1.0)  # 0.97 + 0.15, capped


# ---------------------------------------------------------------------------
# "Noted: …"
# ---------------------------------------------------------------------------
def notes(eng, text):
    """The "Noted" notices of one whole turn (it is shown at the turn's end)."""
    shown = list(say(eng, text).notices)
    shown += eng.dispatch(MessageEnd(session_id="s1", role="assistant", text="Sure.", ts=time.time())).notices
    shown += eng.dispatch(TurnEnd(session_id="s1", assistant_text="Sure.", ts=time.time())).notices
    return [n for n in shown if n.startswith("Noted")]


def test_acknowledgement_is_optional_and_silent_mode_wins(cfg):
    text = "I prefer tabs over spaces."
    # by default a durable statement is acknowledged by the same-day review that will save it (issue 22)
    agent = cfg.with_settings(child_command=f"{sys.executable} -c pass")
    assert notes(engine(agent), text) == ["Noted (preference): Prefer tabs over spaces. — this session's memory "
                                          "review saves it."]
    # with no agent to run that review, it was promised all the same, and nothing reached memory
    assert notes(engine(agent.with_settings(child_enabled=False)), text) == [
        "Noted (preference): Prefer tabs over spaces. — not saved yet: no background agent can run "
        "(child_enabled = false in config.toml); `tacit review` shows what tacit noted."]
    assert not any("memory review" in n for n in notes(engine(cfg.with_settings(review_enabled=False)), text))
    on = cfg.with_settings(acknowledge_captures=True)
    assert notes(engine(on), text) == ["Noted (preference): Prefer tabs over spaces."]
    assert notes(engine(on), "The staging box is a bit slow today.") == []  # fact 0.688 < threshold 0.70
    assert notes(engine(on), "Add a `favorite` flag to the User model.") == []
    assert notes(engine(on), "forget that I prefer tabs") == []
    assert notes(engine(on.with_settings(silent=True)), text) == []


def test_the_acknowledgement_never_runs_before_the_model_starts(cfg):
    on = cfg.with_settings(acknowledge_captures=True)
    assert not any(n.startswith("Noted") for n in say(engine(on), "I prefer tabs over spaces.").notices)


def test_importance_can_be_switched_off(cfg):
    say(engine(cfg.with_settings(importance_enabled=False)), "I prefer tabs over spaces.")
    assert captures(cfg) == []


def test_the_lifecycle_decay_does_not_erode_a_kept_capture(cfg):
    """Captures age by the heartbeat's multipliers, not by the lifecycle's
    generic −5/day after 30 unused days (which would delete a kept preference
    from USER.md within weeks)."""
    from tacit.learn import lifecycle

    t0 = time.time() - 200 * 86400
    led = Ledger(cfg)
    say(engine(cfg.with_settings(heartbeat_interval=0)), "I prefer tabs over spaces.", ts=t0)
    decide(cfg, keep=[captures(cfg)[0]["id"]], now=t0 + 60)
    for day in range(31, 200):  # one event a day for months: daily decay, then a heartbeat
        now = t0 + day * 86400
        with led.write() as conn:
            lifecycle.run_daily_if_due(conn, cfg, now)
            importance.heartbeat(conn, cfg, now)
    [c] = captures(cfg)
    assert c["status"] == "applied" and c["confidence"] == round(c["data"]["importance"] * 0.5 * 100)
    assert MemoryStore(cfg).entries("user") == ["Prefer tabs over spaces."]


def test_a_note_said_in_a_project_is_kept_in_that_projects_memory(cfg, tmp_path):
    from tacit.projects import forget_cache, project_for

    repo = tmp_path / "shop"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    forget_cache()
    eng = engine(cfg)
    eng.dispatch(MessageEnd(session_id="s1", role="user", text="Our Kafka cluster has six brokers.", cwd=str(repo),
                            ts=time.time()))
    eng.dispatch(MessageEnd(session_id="s1", role="user", text="I prefer explanations before the code.",
                            cwd=str(repo), ts=time.time() + 1))
    assert decide(cfg, keep=[c["id"] for c in captures(cfg)])["success"]
    project = project_for(str(repo))
    assert MemoryStore(cfg, project).entries("project") == ["Our Kafka cluster has six brokers."]
    assert MemoryStore(cfg).entries("global") == []
    assert MemoryStore(cfg).entries("user") == ["I prefer explanations before the code."]  # who you are: everywhere
    say(eng, "forget that our Kafka cluster has six brokers")
    assert MemoryStore(cfg, project).entries("project") == []


def test_a_correction_is_promised_to_memory_only_when_something_will_save_it(cfg):
    vague = "Not good at all, its completly still on scroll and its only applying to the pills that too on hover."
    agent = cfg.with_settings(child_command=f"{sys.executable} -c pass")

    def noted(settings, text, sid):
        return [n for n in say(engine(settings), text, sid=sid).notices if n.startswith("Noted")]

    assert noted(agent, vague, "a") == [f"Noted (correction): {vague} — saving it to memory."]
    # no agent: the fallback saves only a rule tacit can phrase itself, and this one has none
    assert noted(agent.with_settings(child_enabled=False), vague, "b") == [
        f"Noted (correction): {vague} — not saved yet: no background agent can run "
        "(child_enabled = false in config.toml); `tacit review` shows what tacit noted."]
    # a rule tacit can phrase is saved by the fallback: the promise holds
    assert noted(agent.with_settings(child_enabled=False), "no, use pnpm, not npm", "c") == [
        "Noted (correction): no, use pnpm, not npm — saving it to memory."]


def test_the_same_correction_said_again_in_a_session_is_noted_once(cfg):
    # a real session pasted the same follow-up 8 times: 8 "Noted (correction)" lines and 8 saves
    text = "Only go ahead if you made code changes (not just updated the rules file): update the rules file."
    eng = engine(cfg.with_settings(child_command=f"{sys.executable} -c pass"))
    first = [n for n in say(eng, text, reply="Done.").notices if n.startswith("Noted (correction)")]
    again = [n for n in say(eng, "  only go ahead if you made code changes (not just updated the rules file): "
                                 "update the rules file.", reply="Done.").notices if n.startswith("Noted")]
    assert len(first) == 1 and again == []
    other = say(eng, text, sid="s2").notices  # another session: noted again
    assert any(n.startswith("Noted (correction)") for n in other)


@pytest.mark.parametrize("text", ["option 1", "B", "Let's go with option A", "实现方案1"])
def test_a_pick_among_the_agents_options_is_not_kept_or_announced_as_a_decision(cfg, text):
    # real sessions: "Noted (decision): B — …" and a capture "option 1" waiting for review
    agent = cfg.with_settings(child_command=f"{sys.executable} -c pass")
    assert notes(engine(agent), text) == []
    assert captures(cfg) == []
    assert model.picks_an_option(text)


@pytest.mark.parametrize("text", ["let's go with src layout", "Let's keep it framework-agnostic for now",
                                  "Option A is good, it is project OTR-003"])
def test_a_decision_that_names_what_was_chosen_is_not_a_pick(text):
    assert not model.picks_an_option(text)


@pytest.mark.parametrize("text", ["why do we need to test putchar.c, puts.c, vprintf.c ?",
                                  "Wouldn't it be best practice to modify the home.nix to take a `...` attribute?",
                                  "So did you actually fix anything right now?"])
def test_a_question_is_not_queued_as_a_capture(cfg, text):
    # real sessions queued 26 questions for review as "corrections"; a question is not a lesson
    say(engine(cfg), text, reply="Sure.")
    assert captures(cfg) == []
