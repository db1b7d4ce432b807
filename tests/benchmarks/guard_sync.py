"""Benchmark: syncing many lessons (and a long instruction file) into guards,
tool calls checked meanwhile, and the check's cost with 250 guards.

    python tests/benchmarks/guard_sync.py                      # 250 / 1,000 / 2,500 lessons
    python tests/benchmarks/guard_sync.py --quick              # 25 / 250
    python tests/benchmarks/guard_sync.py --tree /path/to/tree # another checkout's code (before/after)

What is measured (figures printed, never asserted)
- The first ``GuardStore.sync`` of a project whose memory holds N lessons
  (40% rules, each a different guard), saved through ``MemoryStore.batch``
  in batches of 25 (a history row per batch with the whole file before and
  after, as real saves leave it); µs per lesson, to see that it is linear.
- The first sync of a 1,000-line AGENTS.md (one rule line in four).
- Tool calls checked while another process runs that first sync of 2,500
  lessons: an engine dispatches ``npm install`` (a lesson says use pnpm)
  until the sync ends; every call must be stopped ("unchecked" = not stopped).
- ``normalize_call`` + ``GuardSet.check`` against 250 guards, per call, on a
  mix of commands, as a ratio to a bare ``shlex.split`` of the same commands
  measured in the same run (target: at most 3x).
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULE = "Never run `tool{i} deploy --force`, it breaks the shared stage {i}."
BARE_RULE = "Never run `tool{i} deploy --force`."  # a shape the code before clause splitting derives too
PLAIN = "Fact {i}: the service number {i} listens on port {port} in the staging cluster."
BARE = False
PNPM = "Use pnpm, not npm \u2014 npm breaks the workspace lockfile."
COMMANDS = ["npm install left-pad", "git status", "git push origin feature", "python3 -m pytest -q tests/",
            "cd web && pnpm add react", "rm -rf build/ && make all", "docker compose up -d",
            "grep -rn 'TODO' src | head -20", "git commit -m 'fix: the parser'", "cargo build --release"]


def lessons(n: int, rule: str = RULE) -> list[str]:
    out = [PNPM]
    for i in range(1, n):
        out.append(rule.format(i=i) if i % 5 < 2 else PLAIN.format(i=i, port=8000 + i))
    return out


def big_home(home: Path, tmp: Path):
    """A data folder whose project memory may hold every lesson: its config.toml raises the
    limit, so each process (the sync in another one too) reads all of them, not the first
    twice-the-limit a far-over-limit file is cut to."""
    from tacit.config import load_config
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("project_char_limit = 10000000\n")
    cfg = load_config(env={"TACIT_HOME": str(home), "HOME": str(tmp)})
    assert cfg.settings["project_char_limit"] == 10_000_000, cfg.settings
    return cfg


def fill(cfg, project, n: int) -> None:
    from tacit.stores import history
    from tacit.stores.memory import MemoryStore
    store = MemoryStore(cfg, project)
    texts = lessons(n, BARE_RULE if BARE else RULE)
    acting = history.acting(history.USER) if hasattr(history, "USER") else _nothing()
    with acting:
        for start in range(0, n, 25):
            ops = [{"action": "add", "target": "project", "content": t} for t in texts[start:start + 25]]
            result = store.batch(ops)
            assert result.get("success"), result


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def first_sync(tmp: Path, n: int) -> float:
    from tacit.projects import project_for
    from tacit.stores.guards import GuardStore
    from tacit.stores.ledger import Ledger
    cfg = big_home(tmp / f"home-{n}", tmp)
    repo = tmp / f"repo-{n}"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, capture_output=True)
    project = project_for(str(repo))
    fill(cfg, project, n)
    from tacit.stores import guards as guard_store
    if hasattr(guard_store, "derived"):
        guard_store.derived.cache_clear()  # every size derives its lessons afresh
    with Ledger(cfg) as ledger:
        started = time.perf_counter()
        GuardStore(cfg, ledger).sync(project)
        took = time.perf_counter() - started
        count = len(GuardStore(cfg, ledger).applying(project))
    print(f"  {n:>6} lessons: first sync {took * 1000:9.1f} ms  ({took / n * 1e6:7.1f} µs a lesson, {count} guards)")
    return took


def file_sync(tmp: Path, lines: int) -> None:
    from tacit.config import load_config
    from tacit.projects import project_for
    from tacit.stores.guards import GuardStore
    from tacit.stores.ledger import Ledger
    try:
        from tacit.stores import guard_files  # noqa: F401 (a tree that reads instruction files has it)
    except ImportError:
        print(f"  {lines}-line AGENTS.md: not read by this tree")
        return
    cfg = load_config(env={"TACIT_HOME": str(tmp / "home-file"), "HOME": str(tmp)})
    repo = tmp / "repo-file"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, capture_output=True)
    text = "\n".join(f"- Never run `tool{i} deploy`; ask first." if i % 4 == 0 else
                     f"- Keep module {i} small and documented, with tests." for i in range(lines))
    (repo / "AGENTS.md").write_text("# Rules\n\n" + text + "\n")
    project = project_for(str(repo))
    with Ledger(cfg) as ledger:
        started = time.perf_counter()
        GuardStore(cfg, ledger).sync(project)
        took = time.perf_counter() - started
        count = len(GuardStore(cfg, ledger).applying(project))
    print(f"  {lines}-line AGENTS.md: first sync {took * 1000:.1f} ms ({count} guards)")


SYNCER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from tacit.config import load_config
from tacit.projects import project_for
from tacit.stores.guards import GuardStore
from tacit.stores.ledger import Ledger
cfg = load_config(env={"TACIT_HOME": sys.argv[2], "HOME": sys.argv[3]})
with Ledger(cfg) as ledger:
    print("start", flush=True)
    t = time.perf_counter()
    GuardStore(cfg, ledger).sync(project_for(sys.argv[4]))
    print(f"{time.perf_counter() - t:.3f}", flush=True)
"""


def concurrent(tmp: Path, tree: Path, n: int) -> None:
    """Tool calls checked by an engine while another process runs the first sync."""
    from tacit.engine import Engine
    from tacit.events import ToolCall
    from tacit.projects import project_for
    home = tmp / "home-conc"
    cfg = big_home(home, tmp)
    repo = tmp / "repo-conc"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, capture_output=True)
    fill(cfg, project_for(str(repo)), n)
    engine = Engine(cfg, host="claude-code")
    engine.load_builtins()
    proc = subprocess.Popen([sys.executable, "-c", SYNCER, str(tree / "extension"), str(home), str(tmp), str(repo)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "start"
    stopped = unchecked = 0
    waits = []
    i = 0
    while proc.poll() is None or i < 5:
        started = time.perf_counter()
        result = engine.dispatch(ToolCall(session_id=f"c{i}", host="claude-code", cwd=str(repo), id=f"c-{i}",
                                          name="Bash", args={"command": "npm install left-pad"}))
        waits.append(time.perf_counter() - started)
        if result.ask or result.block:
            stopped += 1
        else:
            unchecked += 1
        i += 1
    took = proc.stdout.read().strip()
    engine.close()
    print(f"  {n} lessons synced by another process in {took} s; meanwhile {i} `npm install` calls: "
          f"{stopped} stopped, {unchecked} unchecked; call time median {statistics.median(waits) * 1000:.1f} ms, "
          f"max {max(waits) * 1000:.1f} ms")


def check_cost(rounds: int) -> None:
    from tacit.guards import Guard, GuardSet, derive_guard, normalize_call
    specs = [derive_guard(RULE.format(i=i)) for i in range(1, 250)] + [derive_guard(PNPM)]
    guards = GuardSet([Guard(s, id=i, scope="project", project_root="/r") for i, s in enumerate(specs)])
    assert len(guards.guards) == 250
    ratios, costs = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        for c in COMMANDS:
            shlex.split(c)
        bare = time.perf_counter() - started
        started = time.perf_counter()
        for c in COMMANDS:
            guards.check(normalize_call("Bash", {"command": c}, "/r/web", project_root="/r", branch="main"))
        took = time.perf_counter() - started
        ratios.append(took / bare)
        costs.append(took / len(COMMANDS))
    print(f"  250 guards: check {statistics.median(costs) * 1e6:.1f} µs a call (normalising included), "
          f"{statistics.median(ratios):.2f}x a bare shlex.split of the same command (target <= 3x)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose code to measure")
    parser.add_argument("--skip-concurrent", action="store_true")
    parser.add_argument("--sizes", type=lambda v: tuple(int(x) for x in v.split(",")), default=None,
                        help="lesson counts, e.g. 250,1000")
    parser.add_argument("--bare", action="store_true", help="rules without a reason clause (what older code derives)")
    args = parser.parse_args(argv)
    global BARE
    BARE = args.bare
    sys.path.insert(0, str(args.tree / "extension"))
    os.environ.pop("TACIT_PROJECT", None)
    sizes = args.sizes or ((25, 250) if args.quick else (250, 1000, 2500))
    print(f"guard sync ({args.tree}):")
    with tempfile.TemporaryDirectory(prefix="tacit-guard-sync-") as tmp:
        tmp = Path(tmp)
        first_sync(tmp, 10)  # warm: imports, compiled patterns, the ledger's schema code
        times = [first_sync(tmp, n) for n in sizes]
        per = [t / n for t, n in zip(times, sizes)]
        print(f"  growth: µs a lesson from {sizes[0]} to {sizes[-1]} lessons x{per[-1] / per[0]:.2f} "
              "(1.0 = linear)")
        file_sync(tmp, 1000)
        if not args.skip_concurrent:
            concurrent(tmp, args.tree, sizes[-1])
    try:
        check_cost(200 if args.quick else 2000)
    except (AttributeError, AssertionError) as exc:
        print(f"  250 guards: not derived by this tree ({type(exc).__name__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
