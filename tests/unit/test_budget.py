"""A budget for background work (tacit.children.budget, .prices): every host's
usage as one spend, the daily check, waiting jobs, and a 60-turn session that
runs into the budget and finishes the next day."""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from pathlib import Path

import pytest
from freezegun import freeze_time

from test_privacy_helpers import Recorder

from tacit.children import budget
from tacit.children.budget import DEFAULT_PRICES, parse_price, price_for
from tacit.children.budget import report
from tacit.children.output import parse_usage, reply_text
from tacit.children.runner import run_job
from tacit.events import MessageEnd, SessionShutdown, SessionStart, ToolResult, TurnEnd
from tacit.hosts.runtime import build_engine
from tacit.service import housekeeping
from tacit.stores.ledger import Ledger
from tacit.stores.sessions import insert_job

# what each real host printed for one short child run (trimmed; tests/e2e/test_child_prompts.py runs them)
CLAUDE = {"type": "result", "subtype": "success", "is_error": False, "num_turns": 1, "result": "Nothing to save.",
          "total_cost_usd": 0.09509, "usage": {"input_tokens": 18998, "cache_creation_input_tokens": 0,
                                               "cache_read_input_tokens": 0, "output_tokens": 4},
          "modelUsage": {"claude-haiku-4-5": {"inputTokens": 18998, "outputTokens": 4, "costUSD": 0.09509}}}
CODEX = [{"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
         {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": "Nothing to save."}},
         {"type": "turn.completed", "usage": {"input_tokens": 10233, "cached_input_tokens": 2048,
                                              "output_tokens": 4, "reasoning_output_tokens": 0}}]
HERMES = {"estimated_cost_usd": 0.0, "cost_status": "unknown", "cost_source": "none", "input_tokens": 3708,
          "output_tokens": 4, "cache_read_tokens": 0, "cache_write_tokens": 0, "reasoning_tokens": 0,
          "total_tokens": 3712, "api_calls": 1, "model": "stub-model", "provider": "custom"}
PI_USAGE = {"input": 1412, "output": 4, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1416,
            "cost": {"input": 0.004236, "output": 0.00006, "cacheRead": 0, "cacheWrite": 0, "total": 0.004296}}
PI = [{"type": "message_update", "message": {"role": "assistant", "content": [], "usage": PI_USAGE}},
      {"type": "message_end", "message": {"role": "assistant", "content": [{"type": "text", "text": "Nothing to save."}],
                                          "provider": "stub", "model": "stub-model", "usage": PI_USAGE}},
      {"type": "agent_end", "messages": [
          {"role": "user", "content": [{"type": "text", "text": "You are tacit's memory keeper…"}]},
          {"role": "assistant", "content": [{"type": "text", "text": "Nothing to save."}], "provider": "stub",
           "model": "stub-model", "usage": PI_USAGE}]}]


def lines(events) -> bytes:
    return "\n".join(json.dumps(e) for e in events).encode()


# ---------------------------------------------------------------------------
# Every host's usage, one spend
# ---------------------------------------------------------------------------
def test_each_hosts_report_becomes_one_spend(cfg, tmp_path):
    missing = tmp_path / "none.json"
    claude = budget.normalise(cfg, parse_usage(json.dumps(CLAUDE).encode(), missing))
    assert (claude.tokens, claude.usd, claude.usd_source, claude.model) == (19002, 0.09509, "host", "claude-haiku-4-5")
    codex = budget.normalise(cfg, parse_usage(lines(CODEX), missing), model="gpt-5-mini")
    assert (codex.tokens, codex.input, codex.cache_read, codex.output) == (10237, 8185, 2048, 4)
    assert codex.usd_source == "price_table" and codex.usd == pytest.approx((8185 * 0.25 + 2048 * 0.025 + 4 * 2) / 1e6)
    unknown = budget.normalise(cfg, parse_usage(lines(CODEX), missing), model="")
    assert unknown.tokens == 10237 and unknown.usd is None and unknown.usd_source == "unknown"
    usage_file = tmp_path / "usage.json"
    usage_file.write_text(json.dumps(HERMES))
    hermes = budget.normalise(cfg, parse_usage(b"Nothing to save.", usage_file))
    assert (hermes.tokens, hermes.usd, hermes.model) == (3712, None, "stub-model")  # unknown model, unknown cost
    priced = budget.normalise(cfg.with_settings(child_prices=["stub-*=1,2"]), parse_usage(b"", usage_file))
    assert priced.usd == pytest.approx((3708 * 1 + 4 * 2) / 1e6) and priced.usd_source == "price_table"
    pi = budget.normalise(cfg, parse_usage(lines(PI), missing))
    assert (pi.tokens, pi.usd, pi.usd_source, pi.model) == (1416, 0.004296, "host", "stub/stub-model")
    assert budget.normalise(cfg, None) is None and budget.normalise(cfg, {"usage": "garbage"}) is None


def test_replies_are_read_from_json_output():
    assert reply_text(json.dumps(CLAUDE)) == "Nothing to save."
    assert reply_text(lines(CODEX).decode()) == "Nothing to save."
    assert reply_text(lines(PI).decode()) == "Nothing to save."
    assert reply_text("Saved 1 entry.") is None


def test_price_table_entries_and_overrides(cfg):
    assert price_for(cfg, "haiku").input == 1.0 and price_for(cfg, "claude-sonnet-4-5").output == 15.0
    assert price_for(cfg, "openai/gpt-4.1-mini").input == 0.40  # provider/model, most specific first
    assert price_for(cfg, "gpt-4.1").input == 2.0 and price_for(cfg, "who-knows") is None
    own = cfg.with_settings(child_prices=["gpt-4.1*=9,9", "bad entry", "x=1"])
    assert price_for(own, "gpt-4.1-mini").input == 9.0  # the user's entries come first
    assert parse_price("m=1,2") .cache_read == pytest.approx(0.1) and parse_price("m=1,2,-1") is None
    assert all(p.pattern == p.pattern.lower() for p in DEFAULT_PRICES)


# ---------------------------------------------------------------------------
# The daily check and waiting jobs
# ---------------------------------------------------------------------------
def finished(conn, job_id: str, tokens: int, at: float, kind: str = "review", usd: float | None = 0.01) -> None:
    insert_job(conn, {"id": job_id, "kind": kind, "session_id": "s", "created": at})
    conn.execute("UPDATE jobs SET status = 'done', finished_at = ?, record = ? WHERE id = ?",
                 (at, json.dumps({"ok": True, "mode": "agent", "spend": {"tokens": tokens, "usd": usd}}), job_id))


def test_the_check_counts_today_only_and_runs_under_way(cfg):
    cfg = cfg.with_settings(child_daily_tokens=10_000, child_daily_usd=0.05)
    now = time.time()
    with Ledger(cfg).write() as conn:
        finished(conn, "old", 50_000, now - 2 * 86400)
        finished(conn, "a", 4_000, now - 10)
        assert budget.check(cfg, conn, now).allowed
        insert_job(conn, {"id": "r", "kind": "review", "session_id": "s2", "status": "running"})
        verdict = budget.check(cfg, conn, now)  # one run under way, counted at the recent average
        assert verdict.tokens == 4_000 + (50_000 + 4_000) // 2 and not verdict.allowed
        assert "of 10,000 tokens" in verdict.describe()
        conn.execute("DELETE FROM jobs WHERE id = 'r'")
        finished(conn, "b", 100, now - 5, usd=0.05)
        assert not budget.check(cfg, conn, now).allowed  # the dollar limit
        assert budget.check(cfg.with_settings(child_daily_usd=0.0), conn, now).allowed


def test_waiting_jobs_fold_and_the_user_is_told_once_a_day(cfg):
    cfg = cfg.with_settings(child_daily_tokens=1)
    now = time.time()
    with Ledger(cfg).write() as conn:
        finished(conn, "spent", 10, now - 1)
        verdict = budget.check(cfg, conn, now)
        for n in range(3):
            job = {"id": f"c{n}", "kind": "correction", "session_id": "s",
                   "variables": {"correction": f"correction {n}", "earlier_corrections": []}}
            insert_job(conn, job)
            budget.hold(cfg, conn, job, verdict, now)
        review = {"id": "r1", "kind": "review", "session_id": "s", "variables": {"reason": "x"}}
        insert_job(conn, review)
        budget.hold(cfg, conn, review, verdict, now)
        rows = dict(conn.execute("SELECT id, status FROM jobs").fetchall())
        assert rows == {"spent": "done", "c0": "done", "c1": "done", "c2": "waiting", "r1": "waiting"}
        variables = json.loads(conn.execute("SELECT variables FROM jobs WHERE id = 'c2'").fetchone()[0])
        assert variables["correction"] == "correction 2"
        assert variables["earlier_corrections"] == ["correction 0", "correction 1"]  # nothing dropped
        texts = [r[0] for r in conn.execute("SELECT text FROM notices")]
    assert len(texts) == 1 and "2 background jobs" in texts[0] and "budget for today is spent" in texts[0]
    from tacit.stores import notices

    assert len(notices.take(Ledger(cfg))) == 1
    with Ledger(cfg).write() as conn:  # delivered: no second notice the same day
        job = {"id": "f1", "kind": "flush", "session_id": "s", "variables": {}}
        insert_job(conn, job)
        budget.hold(cfg, conn, job, budget.check(cfg, conn, now), now)
        assert conn.execute("SELECT count(*) FROM notices").fetchone()[0] == 1
    assert budget.release(cfg, Ledger(cfg), now) == []  # still over budget today
    tomorrow = budget.day_start(now) + 86400 + 3600
    released = budget.release(cfg.with_settings(child_daily_tokens=0), Ledger(cfg), tomorrow)
    assert released == ["c2", "r1", "f1"]  # the oldest, with its session's jobs of the same moment


def test_over_budget_a_consolidation_runs_its_deterministic_merge(cfg, tmp_path, tacit_env, tacit_home):
    recorder = Recorder(tmp_path, tacit_env, mode="nothing")
    cfg = recorder.configure(tacit_home, child_daily_tokens=1)
    with Ledger(cfg).write() as conn:
        finished(conn, "spent", 10, time.time() - 1)
    record = run_job(cfg, {"id": "k1", "kind": "consolidate", "session_id": "s", "variables": {"targets": ["user"]}})
    assert record["mode"] == "deterministic" and "over_budget" in record and recorder.calls() == []
    waiting = run_job(cfg, {"id": "r1", "kind": "review", "session_id": "s", "variables": {"reason": "x"}})
    assert waiting["waiting"] is True and recorder.calls() == []
    with Ledger(cfg).read() as conn:
        assert conn.execute("SELECT status FROM jobs WHERE id = 'r1'").fetchone()[0] == "waiting"


# ---------------------------------------------------------------------------
# 60 turns into a 50,000-token budget, and the next day
# ---------------------------------------------------------------------------
CORRECTIONS = ["why did you add another utils file, helpers.ts exists",
               "no, that is wrong, the config lives in settings/base.py not in the root",
               "stop, you broke the build again, revert that change",
               "no no, I told you to put tests next to the code they test"]


def turn(engine, n: int, text: str) -> None:
    engine.dispatch(MessageEnd(session_id="long", role="user", text=text, id=f"u{n}"))
    engine.dispatch(ToolResult(session_id="long", name="Bash", args={"command": f"make step{n}"}, id=f"t{n}"))
    engine.dispatch(MessageEnd(session_id="long", role="assistant", text=f"Done with step {n}.", id=f"a{n}"))
    engine.dispatch(TurnEnd(session_id="long", id=f"e{n}"))


def statuses(cfg) -> dict:
    with Ledger(cfg).read() as conn:
        return dict(conn.execute("SELECT status, count(*) FROM jobs GROUP BY status").fetchall())


def test_a_60_turn_session_stops_at_the_budget_and_finishes_the_next_day(tmp_path, tacit_env, tacit_home):
    recorder = Recorder(tmp_path, tacit_env, mode="nothing", tokens=6_000)
    cfg = recorder.configure(tacit_home, child_daily_tokens=50_000, nudge_interval=5, review_min_user_turns=1,
                             correction_save_every_turns=1, skill_trigger_tool_calls=1000, flush_min_turns=1)
    today = dt.datetime.now().replace(hour=10, minute=0, second=0, microsecond=0)
    sent = []
    with freeze_time(today, tick=True):
        engine = build_engine(cfg, "replay", discover_plugins=False)
        engine.dispatch(SessionStart(session_id="long", id="start"))
        for n in range(60):
            text = CORRECTIONS[n // 4 % 4] + f" (turn {n})" if n % 4 == 3 else f"continue with step {n}"
            sent.append(text)
            turn(engine, n, text)
        engine.dispatch(SessionShutdown(session_id="long", reason="exit", id="end"))
        runs_day1 = recorder.calls()
        day1 = report(cfg, days=1)
        with Ledger(cfg).read() as conn:
            waiting = conn.execute("SELECT kind, variables FROM jobs WHERE status = 'waiting'").fetchall()
            budget_notices = [r[0] for r in conn.execute("SELECT text FROM notices") if "budget" in r[0]]
    # 6,000 tokens a run: the 9th run starts at 48,000 spent, the 10th would start at 54,000
    assert len(runs_day1) == 9 and day1["totals"]["tokens"] == 54_000
    assert day1["budget"]["allows_a_child"] is False
    kinds = sorted(k for k, _ in waiting)
    assert kinds == ["correction", "flush", "review"]  # one waiting job per kind: later ones folded in
    held = json.loads(dict(waiting)["correction"])
    held_texts = [*held["earlier_corrections"], held["correction"]]
    corrections_sent = [t for t in sent if "(turn" in t]
    # every correction the budget could not save waits, none is lost
    saved_day1 = [t for t in corrections_sent if any(t in p for p in recorder.prompts())]
    assert sorted(saved_day1 + held_texts) == sorted(corrections_sent)
    # told once that day (the notice went out at the next turn, with the count of that moment)
    assert len(budget_notices) == 1 and re.search(r"spent \(5\d,\d{3} of 50,000 tokens\): \d+ background job",
                                                  budget_notices[0])
    assert statuses(cfg).get("failed", 0) == 0

    with freeze_time(today + dt.timedelta(days=1), tick=True):
        for _ in range(5):
            housekeeping.tick(cfg, engine)
            if not statuses(cfg).get("waiting"):
                break
        assert not statuses(cfg).get("waiting") and not statuses(cfg).get("queued")
        day2 = report(cfg, days=2)
    prompts_day2 = recorder.prompts()[len(runs_day1):]
    assert prompts_day2, "the waiting jobs never ran"
    assert all(any(text in p for p in prompts_day2) for text in held_texts)  # yesterday's corrections, saved today
    # tacit cost adds up to what the children reported
    reported = 6_000 * len(recorder.calls())
    assert day2["totals"]["tokens"] == reported == sum(d["tokens"] for d in day2["by_day"])
    assert sum(v["tokens"] for v in day2["by_kind"].values()) == reported
    assert sum(v["tokens"] for v in day2["by_host"].values()) == reported
    assert day2["totals"]["usd"] == pytest.approx(len(recorder.calls()) * 0.012)
    assert [d["runs"] for d in day2["by_day"]] == [9, len(recorder.calls()) - 9]
    print(f"\n60 turns: day 1 {len(runs_day1)} runs, {day1['totals']['tokens']:,} tokens; waiting {kinds}; "
          f"day 2 {len(prompts_day2)} runs; cost total {day2['totals']}")
    engine.close()


def test_a_job_whose_launch_was_lost_is_launched_again(cfg):
    """A job still queued past ``STRANDED_AFTER`` (its runner never started) is
    handed to the launcher again with what it needs; a fresh one and a running one are not."""
    import types

    now = time.time()
    with Ledger(cfg) as led:
        with led.write() as conn:
            insert_job(conn, {"id": "old", "kind": "review", "session_id": "s1", "host": "pi", "cwd": "/w",
                              "source": "turn_end", "created": now - housekeeping.STRANDED_AFTER - 5,
                              "variables": {"host_env": {"PATH": "/opt/pi/bin", "PI_CODING_AGENT_DIR": "/h/pi"}}})
            insert_job(conn, {"id": "new", "kind": "review", "session_id": "s1", "created": now})
            insert_job(conn, {"id": "run", "kind": "flush", "session_id": "s2", "status": "running",
                              "created": now - housekeeping.STRANDED_AFTER - 5})
        launched: list = []
        engine = types.SimpleNamespace(launcher=launched.append, ledger=lambda: led)
        assert housekeeping.relaunch_stranded(cfg, engine, now) == 1
    [job] = launched
    assert {k: job[k] for k in ("id", "kind", "session_id", "host", "cwd", "source")} == {
        "id": "old", "kind": "review", "session_id": "s1", "host": "pi", "cwd": "/w", "source": "turn_end"}
    # the environment its session's host was launched with, for the runner it starts
    assert job["variables"]["host_env"] == {"PATH": "/opt/pi/bin", "PI_CODING_AGENT_DIR": "/h/pi"}
