"""Benchmark: events through the engine, and correction-detection throughput.

Run as a script (not collected by pytest):

    python tests/benchmarks/engine.py            # 300 sessions (~20,000 events), 5 repeats
    python tests/benchmarks/engine.py --quick    # 40 sessions, 3 repeats (CI smoke run)

What is measured, in one process, on the same generated event stream (realistic
sessions: a user message drawn from tacit's labelled set of real-looking
messages — corrections, bug reports, requests, approvals — then 0–14 tool calls,
the agent's reply and the turn's end; compaction and shutdown now and then):

- **engine, all handlers**: ``build_engine(cfg, "replay", children=False)``
  with every built-in handler registered (correction detection, review nudge,
  skill trigger, flush, session context, and the ledger learners, whose
  background handlers run inline in replay mode and write SQLite). Child jobs
  are returned as effects but not run.
- **engine, foreground only**: the same engine with background handlers
  switched off — what a live turn actually waits for (in a host, background
  handlers run on a worker thread or in a detached drain).
- **engine, hook mode**: one file-backed session state read-modify-write per
  event under its lock, and a journal append for background events — what one
  Claude Code hook process pays on top of interpreter start-up (information).
- **baseline**: the least any engine must do with the same stream: count the
  event in a dict and, for user messages, run one regex search (the original
  design's strong patterns, compiled into one alternation).

Correction detection: ``detect_correction`` (with the agent's previous reply as
context) over the labelled messages, against the same bare regex search over
the same texts.

Each figure is the median over the repeats; ratios are times divided by the
baseline's. The target: per-event overhead of the foreground engine under
1 ms. ``main(argv)`` returns 0 when it is met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

TARGET_MS_PER_EVENT = 1.0
DATA = Path(__file__).resolve().parents[1] / "data" / "corrections.jsonl"
TOOLS = ("Read", "Edit", "Bash", "Grep", "Write", "Glob")
FALLBACK_TEXTS = [
    {"text": "dont add another utils file, we have helpers.py for that", "prev_assistant": "I created utils/x.py."},
    {"text": "the port is 5173 not 3000", "prev_assistant": "The dev server runs on port 3000."},
    {"text": "great, now add a test for the parser", "prev_assistant": "Done."},
    {"text": "no the page is still empty", "prev_assistant": "I fixed the render bug."},
    {"text": "stop the server and restart it", "prev_assistant": None},
]


def load_texts() -> list[dict]:
    try:
        rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = [r for r in rows if isinstance(r.get("text"), str)]
        return rows or FALLBACK_TEXTS
    except OSError:
        return FALLBACK_TEXTS


def make_events(texts: list[dict], sessions: int, seed: int = 11) -> list:
    from tacit.events import BeforeCompact, MessageEnd, SessionShutdown, SessionStart, ToolCall, ToolResult, TurnEnd

    rng = random.Random(seed)
    events = []
    for n in range(sessions):
        sid = f"bench-{n:05d}"
        events.append(SessionStart(session_id=sid))
        for turn in range(rng.randint(3, 25)):
            item = rng.choice(texts)
            events.append(MessageEnd(session_id=sid, role="user", text=item["text"]))
            for _ in range(rng.choice((0, 0, 1, 2, 3, 5, 8, 14))):
                name = rng.choice(TOOLS)
                args = {"file_path": f"src/mod{rng.randint(1, 40)}.py"} if name != "Bash" else {
                    "command": rng.choice(("pnpm test", "git status", "pytest -q", "ls"))}
                events.append(ToolCall(session_id=sid, name=name, args=args))  # checked first (guards)
                events.append(ToolResult(session_id=sid, name=name, args=args, ok=rng.random() > 0.1))
            reply = item.get("prev_assistant") or "Done: updated the files and ran the tests."
            events.append(MessageEnd(session_id=sid, role="assistant", text=reply))
            events.append(TurnEnd(session_id=sid))
            if rng.random() < 0.02:
                events.append(BeforeCompact(session_id=sid))
        events.append(SessionShutdown(session_id=sid))
    return events


def _median_time(fn, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _original_strong_regex():
    from tacit.detect.patterns import DEFAULT_STRONG_PATTERNS

    return re.compile("|".join(f"(?:{p})" for p in DEFAULT_STRONG_PATTERNS), re.IGNORECASE)


def measure(events: list, texts: list[dict], repeats: int, hook_events: int) -> dict:
    from tacit.config import load_config
    from tacit.detect.correction import detect_correction
    from tacit.detect.patterns import default_patterns
    from tacit.hosts.runtime import build_engine

    strong = _original_strong_regex()
    figures: dict = {}

    def baseline():
        counts: dict = {}
        hits = 0
        for event in events:
            counts[event.kind] = counts.get(event.kind, 0) + 1
            if event.kind == "message_end" and event.role == "user" and strong.search(event.text):
                hits += 1
        return hits

    def engine_run(foreground_only: bool):
        with tempfile.TemporaryDirectory(prefix="tacit-engine-bench-") as tmp:
            cfg = load_config(env={"TACIT_HOME": tmp, "HOME": tmp})
            engine = build_engine(cfg, "replay", children=False, discover_plugins=False)
            if foreground_only:
                engine._schedule_background = lambda: None  # hosts run these off the turn
            dispatch = engine.dispatch
            start = time.perf_counter()
            for event in events:
                dispatch(event)
            return time.perf_counter() - start, engine

    def engine_median(foreground_only: bool) -> float:
        return statistics.median(engine_run(foreground_only)[0] for _ in range(repeats))

    baseline()  # warm up imports and caches
    engine_run(True)
    figures["baseline"] = _median_time(baseline, repeats)
    figures["foreground"] = engine_median(True)
    figures["all"] = engine_median(False)
    _, engine = engine_run(False)
    figures["handlers"] = {kind: engine.handlers_for(kind) for kind in (
        "message_end", "tool_call", "turn_end", "before_compact", "session_shutdown")}

    # oneshot mode: what a hook runs in-process when no service can start (a fresh engine
    # per event, its ledger opened each time)
    with tempfile.TemporaryDirectory(prefix="tacit-engine-bench-oneshot-") as tmp:
        cfg = load_config(env={"TACIT_HOME": tmp, "HOME": tmp})
        subset = events[:hook_events]
        start = time.perf_counter()
        for event in subset:
            engine = build_engine(cfg, "oneshot", children=False, discover_plugins=False)
            engine.dispatch(event)
            engine.close()
        figures["hook_per_event"] = (time.perf_counter() - start) / len(subset)

    # correction detection vs a bare regex over the same texts
    patterns = default_patterns()
    pairs = [(t["text"], t.get("prev_assistant")) for t in texts]

    def detect_all():
        return sum(detect_correction(text, prev_assistant=prev, patterns=patterns).is_correction
                   for text, prev in pairs)

    def regex_all():
        return sum(1 for text, _ in pairs if strong.search(text))

    detect_all()
    figures["detect"] = _median_time(detect_all, repeats)
    figures["regex"] = _median_time(regex_all, repeats)
    figures["texts"] = len(pairs)
    figures["chars"] = sum(len(t) for t, _ in pairs)
    return figures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small run for CI")
    parser.add_argument("--sessions", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args(argv)
    sessions = args.sessions or (40 if args.quick else 300)
    repeats = args.repeats or (3 if args.quick else 5)

    texts = load_texts()
    events = make_events(texts, sessions)
    n = len(events)
    f = measure(events, texts, repeats, hook_events=min(n, 600 if args.quick else 3000))
    base = f["baseline"]
    per_fg_ms = f["foreground"] / n * 1000
    per_all_ms = f["all"] / n * 1000

    print(f"engine benchmark: {sessions} sessions, {n:,} events "
          f"({sum(1 for e in events if e.kind == 'tool_call'):,} tool calls, "
          f"{sum(1 for e in events if e.kind == 'turn_end'):,} turns), median of {repeats} runs")
    print(f"  {'baseline (dict count + one regex per user message)':<52} {base * 1000:9.1f} ms "
          f"{n / base:>12,.0f} ev/s   1.0x")
    for label, key in (("engine, foreground handlers (what a turn waits for)", "foreground"),
                       ("engine, all handlers (+ ledger learners inline)", "all")):
        t = f[key]
        print(f"  {label:<52} {t * 1000:9.1f} ms {n / t:>12,.0f} ev/s {t / base:6.1f}x  "
              f"{t / n * 1e6:7.1f} µs/event")
    print(f"  {'oneshot (no service: a fresh engine per event)':<52} {f['hook_per_event'] * 1e6:9.1f} µs")
    ok = per_fg_ms < TARGET_MS_PER_EVENT
    print(f"  per-event overhead: {per_fg_ms * 1000:.1f} µs foreground, {per_all_ms * 1000:.1f} µs with "
          f"background learners — target < {TARGET_MS_PER_EVENT:g} ms: {'ok' if ok else 'MISSED'}")
    print(f"correction detection: {f['texts']} messages ({f['chars']:,} chars), median of {repeats} runs")
    print(f"  {'bare regex search (original strong patterns)':<52} {f['regex'] * 1000:9.2f} ms "
          f"{f['texts'] / f['regex']:>12,.0f} msg/s   1.0x")
    print(f"  {'detect_correction (with the previous reply)':<52} {f['detect'] * 1000:9.2f} ms "
          f"{f['texts'] / f['detect']:>12,.0f} msg/s {f['detect'] / f['regex']:6.1f}x  "
          f"{f['detect'] / f['texts'] * 1e6:7.1f} µs/message")
    print("handlers: " + "; ".join(f"{k}: {', '.join(v)}" for k, v in f["handlers"].items() if v))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
