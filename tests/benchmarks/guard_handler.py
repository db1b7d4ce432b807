"""Benchmark: what the guards add to a tool call inside the engine.

    python tests/benchmarks/guard_handler.py            # 3,000 calls per case
    python tests/benchmarks/guard_handler.py --quick    # 400

What is measured (all in one process, one data folder, the service's shape:
one long-lived engine with every built-in handler, warm)
- ``Engine.dispatch`` of ``tool_call`` events with every built-in handler,
  against the same engine without ``tacit.handlers.guards`` — the difference
  is the guards' cost on the tool-call path (its stat of the memory files, the
  revision lookup, the check, and for a stop the outcome row and the session
  mark), measured interleaved so load on the shared machine hits both alike.
- Cases: a project with the 25 rule lessons of tests/data/guard_lessons.jsonl
  as its memory (plus 20 plain entries), a call that passes and a call that
  is stopped; and a project with no lessons.
- The handler called directly (``GuardChecker.on_tool_call``) inside an open
  ledger transaction, as the engine calls it: µs per call.
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "extension"))

from tacit.config import load_config  # noqa: E402
from tacit.engine import Engine, HandlerContext  # noqa: E402
from tacit.events import ToolCall  # noqa: E402
from tacit.handlers import BUILTIN_PLUGINS  # noqa: E402
from tacit.projects import project_for  # noqa: E402
from tacit.stores import history  # noqa: E402
from tacit.stores.memory import MemoryStore  # noqa: E402

PLAIN = [f"Fact {i:02d}: the service listens on port {8000 + i}." for i in range(20)]
PASSING = "python3 -m pytest tests/test_parser.py -q"
STOPPED = "npm install left-pad"


def lessons() -> list[str]:
    rows = [json.loads(line) for line in (ROOT / "tests" / "data" / "guard_lessons.jsonl").read_text().splitlines()
            if line.strip()]
    return [r["text"] for r in rows if r["derives"]]


def engine(cfg, *, guards: bool) -> Engine:
    eng = Engine(cfg, host="claude-code")
    for name in BUILTIN_PLUGINS:
        if guards or name != "tacit.handlers.guards":
            eng.load_plugin(name)
    return eng


def timed(eng: Engine, cwd: str, command: str, n: int, tag: str) -> float:
    started = time.perf_counter()
    eng.dispatch(ToolCall(session_id=f"bench-{tag}", host="claude-code", cwd=cwd, id=f"{tag}-{n}", name="Bash",
                          args={"command": command, "description": "x"}))
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    calls = 400 if args.quick else 3000
    with tempfile.TemporaryDirectory(prefix="tacit-guard-bench-") as tmp:
        tmp = Path(tmp)
        cfg = load_config(env={"TACIT_HOME": str(tmp / "home"), "HOME": str(tmp)})
        guarded, plain = tmp / "web", tmp / "api"
        for folder in (guarded, plain):
            subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True, capture_output=True)
        store = MemoryStore(cfg.with_settings(project_char_limit=20000), project_for(str(guarded)),
                            actor=history.USER)  # the benchmark's setup writes as you
        texts = lessons()
        with history.acting(history.USER):  # the user's own lessons
            for text in texts + PLAIN:
                assert store.add("project", text)["success"], text
        with_guards, without = engine(cfg, guards=True), engine(cfg, guards=False)
        cases = {"25 guards, call passes": (str(guarded), PASSING),
                 "25 guards, call stopped": (str(guarded), STOPPED),
                 "no lessons, call passes": (str(plain), PASSING)}
        results = {}
        for name, (cwd, command) in cases.items():
            for eng in (with_guards, without):  # warm: compile, first session rows
                for i in range(20):
                    timed(eng, cwd, command, i, f"warm-{name}-{id(eng)}")
            on, off = [], []
            for i in range(calls):
                on.append(timed(with_guards, cwd, command, i, f"on-{name}"))
                off.append(timed(without, cwd, command, i, f"off-{name}"))
            results[name] = (statistics.median(on), statistics.median(off), sorted(on)[int(0.99 * (calls - 1))])

        # the handler alone, as the engine calls it (inside the event's transaction)
        checker = next(r.fn.__self__ for r in with_guards._handlers["tool_call"] if r.name == "guards.check")
        direct = {}
        for name, (cwd, command) in cases.items():
            state = with_guards.sessions.peek("direct")
            times = []
            ledger = with_guards.ledger()
            for i in range(calls):
                event = ToolCall(session_id="direct", host="claude-code", cwd=cwd, id=f"d-{name}-{i}",
                                 name="Bash", args={"command": command})
                ctx = HandlerContext(with_guards, event, state, True)
                with ledger.write():
                    started = time.perf_counter()
                    checker.on_tool_call(event, ctx)
                    times.append(time.perf_counter() - started)
                state.marks.pop("guards.stopped", None)
            direct[name] = (statistics.median(times), sorted(times)[int(0.99 * (calls - 1))])
        with_guards.close()
        without.close()

    print(f"guards on the tool-call path: {len(texts)} rule lessons + {len(PLAIN)} plain entries, "
          f"{calls} calls per case")
    print(f"{'case':28} {'dispatch with':>14} {'without':>9} {'added':>9} {'p99 with':>10} {'handler alone':>14} "
          f"{'p99':>8}")
    for name, (on, off, p99) in results.items():
        alone, alone99 = direct[name]
        print(f"{name:28} {on * 1e6:11.0f} µs {off * 1e6:6.0f} µs {(on - off) * 1e6:6.0f} µs {p99 * 1e6:7.0f} µs "
              f"{alone * 1e6:11.0f} µs {alone99 * 1e6:5.0f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
