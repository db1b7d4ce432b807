"""The nightly review: grouping, keep / drop / edit, the next-day defaults,
the review_time trigger, "review"/"复盘" in a message, /memory-review and
``tacit review``. Time frozen with freezegun; real SQLite, real memory files,
real CLI subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from freezegun import freeze_time

from learn_helpers import pending_notices
from tacit.engine import Engine
from tacit.events import BeforeAgentStart, MessageEnd, TurnEnd
from tacit.learn import importance, review
from tacit.learn.captures import Assessment
from tacit.stores import captures
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore

HIGH = "I prefer explanations before the code."  # preference 0.95, kept in the user's words
HIGH_SAID = HIGH
MEDIUM = "Our Kafka cluster has six brokers."  # fact 0.785
# The tuned detector scores progress reports ("I'm knee-deep in …") as nothing
# worth keeping, so the low group's capture is stored as the learner would
# store a context statement scored 0.55.
LOW = "I'm knee-deep in the checkout refactor."


pytestmark = pytest.mark.usefixtures("utc_zone")  # dates here are local dates


def engine(cfg):
    return Engine(cfg, background="inline").load_builtins()


def say(eng, text, sid="s1"):
    return eng.dispatch(MessageEnd(session_id=sid, role="user", text=text, ts=time.time()))


def rows(cfg):
    with Ledger(cfg) as led, led.read() as conn:
        return {r[0]: {"id": r[1], "status": r[2], "key": r[3]} for r in conn.execute(
            "SELECT content, id, status, key FROM memories WHERE source = 'importance'")}


def decisions(cfg):
    with Ledger(cfg) as led, led.read() as conn:
        return [(d["key"], d["action"], d["decided_by"]) for d in captures.decisions(conn)][::-1]


def settle(cfg, now, **kwargs):
    with Ledger(cfg) as led, led.write() as conn:
        return review.settle_past_days(conn, cfg, now, **kwargs)


PHRASED = "Use pnpm, not npm."


def capture_phrased(cfg, now):
    """A capture whose content is tacit's phrasing of a rule (what
    ``analysis.rule`` gives for "pnpm not npm here")."""
    with Ledger(cfg) as led, led.write() as conn:
        return importance.capture(conn, cfg, Assessment("capture", category="preference", importance=0.95,
                                                        content=PHRASED, phrased=True), session_id="s1", now=now)


def three_captures(cfg):
    eng = engine(cfg)
    for text in (HIGH_SAID, MEDIUM):
        say(eng, text)
    capture_low(cfg, LOW)
    return eng


def capture_low(cfg, text):
    with Ledger(cfg) as led, led.write() as conn:
        importance.capture(conn, cfg, Assessment("capture", category="context", importance=0.55, content=text),
                           session_id="s1", now=time.time(), text=text)


# ---------------------------------------------------------------------------
# Showing
# ---------------------------------------------------------------------------
def test_todays_captures_grouped_high_medium_low(cfg):
    with freeze_time("2025-06-04 10:00:00"):
        three_captures(cfg)
        result = review.memory_review(cfg)
    assert result["success"] and result["counts"] == {"high": 1, "medium": 1, "low": 1}
    text = result["text"]
    assert text.startswith("Memory review for 2025-06-04 — 3 note(s)")
    ids = rows(cfg)
    order = [text.index(f"#{ids[t]['id']} ") for t in (HIGH, MEDIUM, LOW)]
    assert order == sorted(order)
    assert text.index("High (> 0.85)") < order[0] < text.index("Medium (0.60–0.85)") < order[1] \
        < text.index("Low (< 0.60)") < order[2]
    assert "preference 0.95" in text and "→ USER.md" in text and "tacit review --keep" in text
    with Ledger(cfg) as led, led.read() as conn:
        assert conn.execute("SELECT day, trigger, counts FROM importance_reviews").fetchall() == [
            ("2025-06-04", "command", json.dumps({"high": 1, "medium": 1, "low": 1}))]


def test_an_empty_day_says_so(cfg):
    assert "nothing was noted" in review.memory_review(cfg)["text"]


# ---------------------------------------------------------------------------
# Deciding
# ---------------------------------------------------------------------------
def test_keep_promotes_into_the_memory_file_through_the_lifecycle(cfg):
    three_captures(cfg)
    ids = rows(cfg)
    result = review.decide(cfg, keep=[ids[MEDIUM]["id"], ids[LOW]["key"]])
    assert result["success"] and sorted(result["kept"]) == sorted([ids[MEDIUM]["key"], ids[LOW]["key"]])
    assert MemoryStore(cfg).entries("memory") == [MEDIUM, LOW]  # the user decides, whatever the group
    after = rows(cfg)
    assert after[MEDIUM]["status"] == after[LOW]["status"] == "applied"
    with Ledger(cfg) as led:
        assert pending_notices(led) == []  # the command said it already
        with led.read() as conn:
            assert conn.execute("SELECT count(*) FROM adaptations WHERE status = 'active'").fetchone()[0] == 2
    assert [a for _, a, by in decisions(cfg)] == ["keep", "keep"]


def test_drop_dismisses_and_it_is_never_captured_again(cfg):
    eng = three_captures(cfg)
    ids = rows(cfg)
    assert review.decide(cfg, drop=[ids[HIGH]["id"]])["success"]
    assert rows(cfg)[HIGH]["status"] == "dismissed"
    say(eng, HIGH_SAID, sid="s2")
    assert rows(cfg)[HIGH]["status"] == "dismissed"
    assert (ids[HIGH]["key"], "drop", "user") in decisions(cfg)


def test_edit_then_keep_writes_the_edited_text(cfg):
    three_captures(cfg)
    ids = rows(cfg)
    medium = ids[MEDIUM]["id"]
    result = review.decide(cfg, edits=[(medium, "The Kafka cluster has six brokers (prod).")], keep=[medium])
    assert result["success"] and result["edited"] == [ids[MEDIUM]["key"]]
    assert MemoryStore(cfg).entries("memory") == ["The Kafka cluster has six brokers (prod)."]
    with Ledger(cfg) as led, led.read() as conn:
        edit = [d for d in captures.decisions(conn) if d["action"] == "edit"][0]
    assert (edit["before"], edit["after"]) == (MEDIUM, "The Kafka cluster has six brokers (prod).")


def test_editing_an_applied_note_replaces_the_file_entry(cfg):
    three_captures(cfg)
    high = rows(cfg)[HIGH]["id"]
    review.decide(cfg, keep=[high])
    assert MemoryStore(cfg).entries("user") == [HIGH]
    assert review.decide(cfg, edits=[(high, "I prefer tabs, width 4.")])["success"]
    assert MemoryStore(cfg).entries("user") == ["I prefer tabs, width 4."]


@pytest.mark.parametrize("kwargs,message", [
    ({"keep": ["999"]}, "no capture has id or key '999'"),
    ({"keep": ["HIGH"], "drop": ["HIGH"]}, "is both kept and dropped"),
    ({"edits": [("MEDIUM", "token API_KEY=8f3a9c2b7d1e4f6a9b0c3d5e7f8a1b2c")]}, "refused by the scanner"),
    ({"edits": [("MEDIUM", "   ")]}, "is empty"),
    ({}, "Nothing to do"),
])
def test_bad_decisions_change_nothing(cfg, kwargs, message):
    three_captures(cfg)
    ids = rows(cfg)
    names = {"HIGH": str(ids[HIGH]["id"]), "MEDIUM": str(ids[MEDIUM]["id"])}
    fix = lambda refs: [names.get(r, r) for r in refs]  # noqa: E731
    kwargs = {k: ([(names.get(r, r), t) for r, t in v] if k == "edits" else fix(v)) for k, v in kwargs.items()}
    before = rows(cfg)
    result = review.decide(cfg, **kwargs)
    assert not result["success"] and message in result["error"]
    assert rows(cfg) == before and MemoryStore(cfg).entries("user") == [] and decisions(cfg) == []


# ---------------------------------------------------------------------------
# Defaults the next day
# ---------------------------------------------------------------------------
def test_the_next_day_a_phrased_high_is_kept_low_dropped_the_rest_waits(cfg):
    with freeze_time("2025-06-04 10:00:00") as frozen:
        eng = three_captures(cfg)
        capture_phrased(cfg, time.time())
        kept_low = "I'm in the middle of the payments migration."  # context, low, but the user keeps it
        capture_low(cfg, kept_low)
        frozen.move_to("2025-06-04 18:00:00")
        say(eng, "ok")  # same day: nothing settles
        assert {r["status"] for r in rows(cfg).values()} == {"candidate"}
        review.decide(cfg, keep=[rows(cfg)[kept_low]["id"]])
        frozen.move_to("2025-06-05 09:00:00")
        say(eng, "good morning")  # first heartbeat of the next day
        after = rows(cfg)
    # tacit's own phrasing of a rule is promoted by default ...
    assert after[PHRASED]["status"] == "applied" and MemoryStore(cfg).entries("user") == [PHRASED]
    # ... the user's own sentence is not, however high: it waits for a decision (or the LLM review)
    assert after[HIGH]["status"] == "candidate"
    assert LOW not in after  # discarded (deleted: saying it again later may capture it again)
    assert after[MEDIUM]["status"] == "candidate"
    assert after[kept_low]["status"] == "applied"
    recorded = decisions(cfg)
    assert (after[PHRASED]["key"], "promote", "default") in recorded
    assert (after[HIGH]["key"], "defer", "default") in recorded
    assert any(a == "discard" and by == "default" for _, a, by in recorded)
    assert (after[MEDIUM]["key"], "defer", "default") in recorded
    with Ledger(cfg) as led:  # the default promotion is announced once at the next foreground point
        assert any(PHRASED in n for n in pending_notices(led))
    # deferring is recorded once, not at every heartbeat
    with freeze_time("2025-06-06 09:00:00"):
        say(engine(cfg), "hello")
    assert sum(1 for _, a, _ in decisions(cfg) if a == "defer") == 2


def test_no_default_ever_writes_the_users_words(cfg):
    """Whatever the importance, a capture holding the user's sentence reaches
    a memory file only by a decision: keep, or an edit and keep."""
    with freeze_time("2025-06-04 10:00:00") as frozen:
        eng = engine(cfg.with_settings(heartbeat_interval=0))
        for text in (HIGH, "I really like small focused pull requests.", "We decided to use Postgres 16 for the new service."):
            say(eng, text)
        for days in (1, 2, 9, 40):
            frozen.move_to(f"2025-06-{4 + days:02d} 10:00:00" if days < 27 else "2025-07-14 10:00:00")
            settle(cfg, time.time())
    assert MemoryStore(cfg).entries("user") == [] and MemoryStore(cfg).entries("memory") == []
    assert not any(a == "promote" for _, a, _ in decisions(cfg))


def test_finish_applies_the_defaults_now(cfg, tacit_env):
    three_captures(cfg)
    capture_phrased(cfg, time.time())
    proc = subprocess.run([sys.executable, "-m", "tacit.cli", "review", "--finish", "--json"], env=tacit_env,
                          capture_output=True, text=True, timeout=60)
    result = json.loads(proc.stdout)
    assert proc.returncode == 0 and len(result["promoted"]) == 1 and len(result["discarded"]) == 1
    assert MemoryStore(cfg).entries("user") == [PHRASED]


def test_a_threshold_above_high_keeps_everything_waiting(cfg):
    three_captures(cfg)
    capture_phrased(cfg, time.time())
    result = settle(cfg.with_settings(importance_threshold=0.99), time.time(), include_today=True)
    assert result["promoted"] == [] and MemoryStore(cfg).entries("user") == []


# ---------------------------------------------------------------------------
# Triggers
# ---------------------------------------------------------------------------
def notices(result):
    return [n for n in result.notices if n.startswith("Memory review")]


def test_the_first_event_at_review_time_offers_the_review_once(cfg):
    with freeze_time("2025-06-04 20:30:00") as frozen:
        eng = three_captures(cfg)
        assert notices(say(eng, "ok")) == []  # before 21:00
        frozen.move_to("2025-06-04 21:00:00")
        first = notices(eng.dispatch(TurnEnd(session_id="s1", assistant_text="done", ts=time.time())))
        assert first and "I noted 3 things today" in first[0]
        frozen.move_to("2025-06-04 21:30:00")
        assert notices(say(eng, "ok")) == []  # once a day
        assert notices(engine(cfg).dispatch(BeforeAgentStart(session_id="s9", ts=time.time()))) == []
        frozen.move_to("2025-06-05 20:00:00")
        say(eng, HIGH_SAID, sid="s5")  # mentioned again on the 5th
        frozen.move_to("2025-06-05 21:05:00")
        [again] = notices(engine(cfg).dispatch(BeforeAgentStart(session_id="s6", ts=time.time())))
        assert "I noted 1 thing today" in again


def test_review_time_is_configurable_and_silent_mode_stays_quiet(cfg):
    early = cfg.with_settings(review_time="07:00")
    with freeze_time("2025-06-04 06:30:00") as frozen:
        eng = three_captures(early)
        frozen.move_to("2025-06-04 07:30:00")
        assert notices(say(eng, "ok"))
    with freeze_time("2025-06-05 20:00:00") as frozen:
        quiet = cfg.with_settings(silent=True)
        eng = three_captures(quiet)
        frozen.move_to("2025-06-05 22:00:00")
        assert notices(say(eng, "ok")) == []


def test_no_notice_when_nothing_was_noted_today(cfg):
    with freeze_time("2025-06-04 22:00:00"):
        assert notices(say(engine(cfg), "ok")) == []


@pytest.mark.parametrize("text", ["review", "let's review today's memories", "复盘", "/memory-review"])
def test_asking_for_the_review_injects_it_for_the_agent(cfg, text):
    three_captures(cfg)
    result = say(engine(cfg), text)
    [block] = [i for i in result.context if i.text.startswith("<memory-review>")]
    assert "tacit review --keep" in block.text and HIGH in block.text and LOW in block.text
    with Ledger(cfg) as led, led.read() as conn:
        assert conn.execute("SELECT trigger FROM importance_reviews").fetchall() == [("request",)]
    assert not any(r["status"] != "candidate" for r in rows(cfg).values())
    assert text not in rows(cfg)  # the request itself is not a note


def test_review_this_function_is_not_a_review_request(cfg):
    result = say(engine(cfg), "review this function for bugs")
    assert not any("<memory-review>" in i.text for i in result.context)


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------
def tacit(env, *args):
    proc = subprocess.run([sys.executable, "-m", "tacit.cli", "review", *args], env=env, capture_output=True,
                          text=True, timeout=60)
    return proc.returncode, proc.stdout


def test_the_review_command(cfg, tacit_env):
    three_captures(cfg)
    ids = rows(cfg)
    code, out = tacit(tacit_env)
    assert code == 0 and out.startswith("Memory review for") and f"#{ids[HIGH]['id']} " in out
    code, out = tacit(tacit_env, "--json")
    assert code == 0 and json.loads(out)["counts"] == {"high": 1, "medium": 1, "low": 1}
    code, out = tacit(tacit_env, "--json", "--keep", str(ids[MEDIUM]["id"]), "--drop", str(ids[LOW]["id"]),
                      "--edit", str(ids[MEDIUM]["id"]), "Kafka: 6 brokers")
    result = json.loads(out)
    assert code == 0 and result["success"] and result["message"].startswith("Review: kept 1")
    assert MemoryStore(cfg).entries("memory") == ["Kafka: 6 brokers"]
    code, out = tacit(tacit_env, "--json", "--keep", "12345")
    assert code == 1 and "no capture" in json.loads(out)["error"]
    code, out = tacit(tacit_env, "--json", "--edit", "1")
    assert code == 2 and json.loads(out)["success"] is False
    code, out = tacit(tacit_env, "--day", "June 4")
    assert code == 2
    code, out = tacit(tacit_env, "--history", "--json")
    actions = [d["action"] for d in json.loads(out)["decisions"]]
    assert code == 0 and sorted(actions) == ["drop", "edit", "keep"]


def test_memory_review_is_what_hosts_show(cfg):
    three_captures(cfg)
    result = review.memory_review(cfg, trigger="command")
    assert isinstance(result["text"], str) and result["text"].startswith("Memory review")
    # showing it counts as the nightly offer for today
    with Ledger(cfg) as led, led.read() as conn:
        assert not review.review_due(conn, cfg.with_settings(review_time="00:00"), time.time())


def test_a_full_memory_file_keeps_the_note_confirmed_and_retries_once_a_day(cfg):
    long_pref = "I prefer tabs over spaces in every language, including YAML where it is not even allowed."
    small = cfg.with_settings(user_char_limit=40, auto_consolidate=False)
    with freeze_time("2025-06-04 10:00:00") as frozen:
        say(engine(small), long_pref)
        note = rows(small)[long_pref]
        result = review.decide(small, keep=[note["id"]])
        assert not result["success"] and "refused" in result["error"]
        assert rows(small)[long_pref]["status"] == "confirmed" and MemoryStore(cfg).entries("user") == []
        first = settle(small, time.time())
        again = settle(small, time.time() + 60)
        assert first["failed"] == [note["key"]] and again["failed"] == []  # once a day, not every beat
        frozen.move_to("2025-06-05 10:00:00")
        # room again (default limit): the next day's retry applies it
        assert settle(cfg, time.time())["promoted"] == [note["key"]]
    assert MemoryStore(cfg).entries("user") == [long_pref]


def test_promotions_per_settlement_are_capped(cfg, monkeypatch):
    monkeypatch.setattr(review, "MAX_PROMOTIONS", 2)
    with Ledger(cfg) as led, led.write() as conn:
        for rule in ("Use tabs.", "Use pnpm, not npm.", "Never leave trailing whitespace.", "Make small commits."):
            importance.capture(conn, cfg, Assessment("capture", category="preference", importance=0.95,
                                                     content=rule, phrased=True), session_id="s", now=time.time())
    first = settle(cfg, time.time(), include_today=True)
    second = settle(cfg, time.time(), include_today=True)
    assert len(first["promoted"]) == 2 and len(second["promoted"]) == 2
