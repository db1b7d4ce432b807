"""Benchmark: the learning ledger at 10k, 100k and 1M observations, and habit
counting over 100k action events.

    python tests/benchmarks/ledger.py            # full run (a couple of minutes)
    python tests/benchmarks/ledger.py --quick    # CI smoke run (seconds)

What is measured
- ``record_observation``: insert one observation + daily-maintenance check +
  all five rules + the lifecycle, in one write transaction (and, when a memory
  reaches ``applied``, the MEMORY.md write) — on a ledger that already holds N
  observations. Baseline, same run, same file: a bare ``INSERT`` of the same
  row into the same table in its own transaction (no rules). Reported:
  median / p95 / mean ms per observation, the ratio to the baseline, and the
  growth of the median from the smallest size.
- Habits, counted as actions arrive (``tacit.learn.observe.record_action``:
  the session's last two actions, the action event, the counters of the
  patterns it completes), over 100k events in one transaction. Baseline,
  same run: a bare ``INSERT`` of the same action events. Reported: µs per
  event, the ratio, and the cost of the last tenth of the events against the
  first (1.0 = flat: nothing re-reads the history). Then ``rebuild`` (recount
  everything with the current window) against an ordered read of the events.
- The query plan of every rule query, to show it is an index lookup.

The N-row ledgers are built with ``executemany`` in one transaction (rollback
journal off while loading, WAL again before measuring) so the benchmark
itself stays quick; the rows are realistic: 60% tool calls (files, packages,
projects), 40% runs of 50 plugins/commands over 2,000 companies, 8 categories,
10% user edits, sessions of about 30 observations.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "extension"))

from tacit.config import load_config
from tacit.learn import observe
from tacit.learn.lifecycle import slugify
from tacit.learn.observe import record_observation
from tacit.stores.ledger import Ledger

TOOLS = ["Read", "Edit", "Write", "Bash", "Grep", "Glob", "WebFetch", "Task", "NotebookEdit", "TodoWrite"]
PLUGINS = [f"P{n:02d}" for n in range(35)] + [f"/cmd{n}" for n in range(15)]
CATEGORIES = ["action-required", "fyi", "spam", "newsletter", "billing", "support", "sales", "legal"]
EDITS = [f"edit style {n}" for n in range(30)]
PACKAGES = [f"pkg{n}" for n in range(300)]
T0 = 1_760_000_000.0


def synthetic_row(rng: random.Random, i: int):
    """(plugin, action, context, session_id, observed_at, source, entity, entity_type,
    category, user_edited, edit_slug, run_hour) like insert_observation writes."""
    session = f"s{i // 30}"
    at = T0 + i * 2.0
    hour = rng.randrange(24)
    if rng.random() < 0.6:
        tool = rng.choice(TOOLS)
        ctx = {"ok": True, "project": f"proj{rng.randrange(20)}", "run_hour": hour}
        if tool == "Bash" and rng.random() < 0.1:
            pkg = rng.choice(PACKAGES)
            ctx.update(package=pkg, entity_type="package", entity_value=pkg)
        else:
            f = f"src/mod{rng.randrange(5000)}.py"
            ctx.update(file=f, entity_type="file", entity_value=f)
        return (tool, "tool_call", json.dumps(ctx, sort_keys=True), session, at, "tool",
                slugify(ctx["entity_value"]), ctx["entity_type"], None, 0, None, hour)
    plugin = rng.choice(PLUGINS)
    company = f"Company {rng.randrange(2000)}"
    category = rng.choice(CATEGORIES)
    edited = rng.random() < 0.1
    ctx = {"company": company, "category": category, "run_hour": hour}
    edit = None
    if edited:
        edit = rng.choice(EDITS)
        ctx.update(user_edited=True, edit_description=edit)
    source = "command" if plugin.startswith("/") else "explicit"
    return (plugin, "run", json.dumps(ctx, sort_keys=True), session, at, source, slugify(company),
            "company", slugify(category), 1 if edited else 0, slugify(edit, 60) if edit else None, hour)


def build_ledger(cfg, n: int, seed: int = 7) -> float:
    started = time.perf_counter()
    schema = Ledger(cfg)
    schema.connection()  # create the schema
    schema.close()
    conn = sqlite3.connect(cfg.ledger_path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    rng = random.Random(seed)
    conn.execute("BEGIN")
    chunk = 50_000
    for start in range(0, n, chunk):
        conn.executemany(
            "INSERT INTO observations (plugin, action, context, session_id, observed_at, source, "
            "entity, entity_type, category, user_edited, edit_slug, run_hour) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (synthetic_row(rng, i) for i in range(start, min(n, start + chunk))))
    # a realistic number of existing memories (rule 3 scans them for mentions)
    conn.executemany(
        "INSERT INTO memories (key, kind, source, content, status, confidence, created_at, "
        "updated_at, last_used_at) VALUES (?, 'fact', 'bench', ?, 'candidate', 30, ?, ?, ?)",
        [(f"bench-{k}", f"Benchmark memory number {k} about something.", T0, T0, T0)
         for k in range(500)])
    conn.execute("INSERT INTO ledger_meta (key, value) VALUES ('last_maintenance_day', '9999-12-31')")
    conn.execute("COMMIT")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("ANALYZE")
    conn.close()
    return time.perf_counter() - started


def measured_inputs(m: int, n: int, seed: int = 11):
    rng = random.Random(seed)
    out = []
    for j in range(m):
        row = synthetic_row(rng, n + j)
        plugin, action, context, session, at, source = row[:6]
        out.append((plugin, action, json.loads(context), session, at, source))
    return out


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def bench_observations(cfg, n: int, m: int) -> dict:
    build = build_ledger(cfg, n)
    led = Ledger(cfg)
    inputs = measured_inputs(m, n)
    times = []
    for plugin, action, context, session, at, source in inputs:
        t = time.perf_counter()
        record_observation(led, cfg, plugin, action, context, session_id=session, source=source, now=at)
        times.append(time.perf_counter() - t)
    # baseline: the same rows, bare INSERT, own transaction each, same table
    base = []
    conn = led.connection()
    for plugin, action, context, session, at, source in inputs:
        t = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO observations (plugin, action, context, session_id, observed_at, "
                     "source, run_hour) VALUES (?,?,?,?,?,?,?)",
                     (plugin, action, json.dumps(context, sort_keys=True), session, at, source,
                      context.get("run_hour")))
        conn.execute("COMMIT")
        base.append(time.perf_counter() - t)
    plans = query_plans(conn)
    led.close()
    return {"n": n, "m": m, "build_s": build, "median_ms": statistics.median(times) * 1000,
            "p95_ms": percentile(times, 0.95) * 1000, "mean_ms": statistics.fmean(times) * 1000,
            "base_median_ms": statistics.median(base) * 1000, "plans": plans}


def query_plans(conn) -> dict:
    queries = {
        "rule1": ("SELECT id FROM observations WHERE plugin = ? AND entity = ? AND category = ? "
                  "ORDER BY id DESC LIMIT 50", ("P01", "company-1", "fyi")),
        "rule2": ("SELECT id FROM observations WHERE plugin = ? AND edit_slug = ? AND "
                  "user_edited = 1 ORDER BY id DESC LIMIT 50", ("P01", "edit-style-1")),
        "rule4": ("SELECT plugin, observed_at FROM observations WHERE session_id = ? AND "
                  "source != 'tool' AND id < ? ORDER BY id DESC LIMIT 2", ("s1", 10**9)),
        "rule5": ("SELECT id FROM observations WHERE plugin = ? AND run_hour = ? AND "
                  "source != 'tool' ORDER BY id DESC LIMIT 50", ("P01", 9)),
    }
    out = {}
    for name, (sql, params) in queries.items():
        detail = " | ".join(r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, params))
        out[name] = detail
    return out


def bench_habits(cfg, events: int, seed: int = 5) -> dict:
    rng = random.Random(seed)
    actions = ["Read", "Edit", "Bash:pytest", "Bash:git", "Grep", "Glob", "Write", "/test",
               "/deploy", "Task", "WebFetch", "Bash:npm", "Bash:make", "TodoWrite", "Bash:ls",
               "Bash:cat", "NotebookEdit", "/review", "Bash:docker", "Bash:python"]
    follow = {a: rng.sample(actions, 3) for a in actions}  # each action has 3 usual successors
    now = time.time()
    rows, ts, action, session = [], now - 30 * 86400, rng.choice(actions), 0
    for i in range(events):
        if i % 50 == 0:
            session += 1
            ts += 3600
            action = rng.choice(actions)
        else:
            action = rng.choice(follow[action]) if rng.random() < 0.8 else rng.choice(actions)
            ts += rng.choice((2, 5, 8, 15, 25, 40, 90))
        rows.append((f"h{session}", action, ts))
    led = Ledger(cfg)
    tenth = max(1, events // 10)
    times = []
    with led.write() as conn:
        for session_id, action, at in rows:
            t = time.perf_counter()
            observe.record_action(conn, cfg, session_id, action, at)
            times.append(time.perf_counter() - t)
    count_s = sum(times)
    with led.write() as conn:
        t = time.perf_counter()
        conn.executemany("INSERT INTO action_events (session_id, action, ts) VALUES (?, ?, ?)", rows)
        insert_s = time.perf_counter() - t
        conn.execute("DELETE FROM action_events WHERE id > ?", (events,))
    with led.read() as conn:
        found = observe.habit_status(conn, cfg)
    with led.write() as conn:
        t = time.perf_counter()
        observe.rebuild_habits(conn, cfg, now=now)
        rebuild_s = time.perf_counter() - t
    with led.read() as conn:
        t = time.perf_counter()
        read = sum(1 for _ in conn.execute("SELECT session_id, action, ts FROM action_events "
                                           "WHERE ts >= ? ORDER BY session_id, ts, id", (0,)))
        read_s = time.perf_counter() - t
        rebuilt = observe.habit_status(conn, cfg)
    led.close()
    assert read == events and rebuilt["habits"] == found["habits"]
    return {"events": events, "count_s": count_s, "insert_s": insert_s,
            "flatness": sum(times[-tenth:]) / sum(times[:tenth]), "rebuild_s": rebuild_s, "read_s": read_s,
            "habits": len(found["habits"]), "emerging": len(found["emerging"])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a CI smoke run")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder")
    args = parser.parse_args(argv)
    sizes = [2_000, 10_000] if args.quick else [10_000, 100_000, 1_000_000]
    measured = 60 if args.quick else 400
    habit_events = 10_000 if args.quick else 100_000

    root = Path(tempfile.mkdtemp(prefix="tacit-bench-ledger-"))
    print(f"sqlite {sqlite3.sqlite_version}, python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cpu(s); {measured} measured observations per size")
    print()
    print(f"{'rows':>10} {'build':>8} {'median':>9} {'p95':>9} {'mean':>9} {'bare insert':>12} "
          f"{'ratio':>6} {'growth':>7}")
    results = []
    try:
        for n in sizes:
            home = root / f"obs-{n}"
            home.mkdir()
            cfg = load_config(env={"TACIT_HOME": str(home), "HOME": str(root)})
            r = bench_observations(cfg, n, measured)
            results.append(r)
            growth = r["median_ms"] / results[0]["median_ms"]
            print(f"{n:>10,} {r['build_s']:>7.1f}s {r['median_ms']:>7.2f}ms {r['p95_ms']:>7.2f}ms "
                  f"{r['mean_ms']:>7.2f}ms {r['base_median_ms']:>10.3f}ms "
                  f"{r['median_ms'] / r['base_median_ms']:>5.1f}x {growth:>6.2f}x")
            shutil.rmtree(home, ignore_errors=True)
        print()
        print("query plans at the largest size:")
        for name, plan in results[-1]["plans"].items():
            print(f"  {name}: {plan}")
        target = results[-1]["median_ms"]
        print()
        print(f"target ≤ 5 ms per observation at {sizes[-1]:,} rows: median {target:.2f} ms "
              f"({'met' if target <= 5 else 'NOT met'})")

        home = root / "habits"
        home.mkdir()
        cfg = load_config(env={"TACIT_HOME": str(home), "HOME": str(root)})
        h = bench_habits(cfg, habit_events)
        print()
        print(f"habits counted as {h['events']:,} actions arrive: {h['count_s'] / h['events'] * 1e6:.1f} µs/event "
              f"({h['habits']} habits, {h['emerging']} emerging); bare insert "
              f"{h['insert_s'] / h['events'] * 1e6:.1f} µs/event; ratio {h['count_s'] / h['insert_s']:.1f}x; "
              f"last tenth / first tenth {h['flatness']:.2f}x (1.0 = flat)")
        print(f"rebuild (recount all) {h['rebuild_s']:.3f}s = {h['events'] / h['rebuild_s']:,.0f} events/s; "
              f"bare ordered read {h['read_s']:.3f}s; ratio {h['rebuild_s'] / h['read_s']:.1f}x")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
