"""`tacit cost [--days N] [--json]`: spend by day, kind and host, the budget,
waiting jobs, and what each run changed (history rows of that child)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from tacit.children import budget
from tacit.stores import history
from tacit.stores.ledger import Ledger
from tacit.stores.memory import MemoryStore
from tacit.stores.sessions import insert_job

DAY = 86400


def job_row(conn, job_id, kind, *, host="claude-code", session="s1", at, status="done", record=None):
    insert_job(conn, {"id": job_id, "kind": kind, "session_id": session, "host": host, "created": at - 5})
    conn.execute("UPDATE jobs SET status = ?, started_at = ?, finished_at = ?, record = ? WHERE id = ?",
                 (status, at - 4, at if status != "waiting" else None, json.dumps(record or {}), job_id))


def agent(tokens, usd, *, start, kinds=None, duration=3.0):
    record = {"ok": True, "mode": "agent", "start": start, "duration": duration,
              "spend": {"tokens": tokens, "usd": usd, "usd_source": "host" if usd is not None else "unknown"}}
    if kinds:
        record["kinds"] = kinds
    return record


def cost(env, *args):
    proc = subprocess.run([sys.executable, "-m", "tacit", "cost", *args], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_cost_by_day_kind_and_host_with_what_each_run_changed(cfg, tacit_env):
    now = time.time()
    yesterday = budget.day_start(now) - DAY + 12 * 3600
    start = now - 2.0
    with history.acting(history.Actor(kind="child", name="correction+review", session_id="s1", host="claude-code")):
        assert MemoryStore(cfg).add("user", "Use pnpm, not npm.")["success"]
    with history.acting(history.Actor(kind="child", name="flush", session_id="s2", host="codex")):
        assert MemoryStore(cfg).add("global", "Deploys go through make ship.")["success"]
    with history.acting(history.Actor(kind="learner", name="importance")):
        assert MemoryStore(cfg).add("global", "Not a child's doing.")["success"]
    with Ledger(cfg).write() as conn:
        job_row(conn, "old", "review", at=now - 40 * DAY, record=agent(99_999, 9.0, start=now - 40 * DAY))
        job_row(conn, "y1", "review", at=yesterday, record=agent(10_000, 0.02, start=yesterday - 3))
        job_row(conn, "t1", "correction", at=now + 1, record=agent(6_000, 0.012, start=start,
                                                                    kinds=["correction", "review"]))
        job_row(conn, "t1b", "review", at=now + 1, record={"ok": True, "mode": "merged", "merged_into": "t1"})
        job_row(conn, "t2", "flush", host="codex", session="s2", at=now + 1,
                record=agent(4_000, None, start=start))
        job_row(conn, "t3", "consolidate", at=now, record={"ok": True, "mode": "deterministic", "start": now - 1,
                                                          "duration": 0.1})
        job_row(conn, "w1", "skill", at=now, status="waiting", record={"waiting": True, "budget": "x"})
        job_row(conn, "s1", "flush", host=None, at=now, status="failed",  # `tacit learn` without an agent: not a run
                record={"ok": False, "mode": "deterministic", "skipped": "no agent available for 'flush'",
                        "start": now - 1, "duration": 0.01})
    data = json.loads(cost(tacit_env, "--json", "--days", "2"))
    assert data["totals"] == {"runs": 4, "tokens": 20_000, "usd": 0.032, "usd_unknown_runs": 1}
    assert [(d["day"], d["runs"], d["tokens"]) for d in data["by_day"]] == [
        (budget.day_of(yesterday), 1, 10_000), (budget.day_of(now), 3, 10_000)]
    assert {k: v["tokens"] for k, v in data["by_kind"].items()} == {"review": 10_000, "correction": 6_000,
                                                                   "flush": 4_000, "consolidate": 0}
    assert {k: v["runs"] for k, v in data["by_host"].items()} == {"claude-code": 3, "codex": 1}
    assert [w["job_id"] for w in data["waiting"]] == ["w1"]
    runs = {r["job_id"]: r for r in data["runs"]}
    assert [(c["action"], c["scope"]) for c in runs["t1"]["changes"]] == [("add", "user")]
    assert runs["t1"]["kinds"] == ["correction", "review"]
    assert [(c["action"], c["scope"]) for c in runs["t2"]["changes"]] == [("add", "global")]
    assert runs["y1"]["changes"] == [] and runs["t3"]["usd"] == 0.0
    assert data["budget"]["child_daily_tokens"] == 1_000_000 and data["budget"]["today"]["tokens"] == 10_000
    text = cost(tacit_env, "--days", "2")
    assert "4 background runs, 20,000 tokens, $0.0320 (+ 1 of unknown cost)" in text
    assert "waiting for the budget: 1 job(s) (skill)" in text
    assert "correction+review (claude-code, 6,000 tokens): #1 add user" in text
    one_day = json.loads(cost(tacit_env, "--json", "--days", "1"))
    assert one_day["totals"]["tokens"] == 10_000


def test_cost_on_an_empty_data_folder(tacit_env):
    data = json.loads(cost(tacit_env, "--json"))
    assert data["totals"]["runs"] == 0 and data["runs"] == [] and data["budget"]["allows_a_child"] is True
    assert "0 background runs" in cost(tacit_env)
