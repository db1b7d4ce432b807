"""Benchmark: Claude Code hook processes, as a ratio to a bare interpreter.

    python tests/benchmarks/hooks.py            # 30 rounds, ledger of 100,000 rows
    python tests/benchmarks/hooks.py --quick    # 8 rounds, ledger of 2,000 rows (CI smoke run)
    python tests/benchmarks/hooks.py --imports  # also: what each hook imports, slowest first
    python tests/benchmarks/hooks.py --tree     # the source tree as it is, not an installed copy

What is measured
- Each hook exactly as ``tacit install claude-code`` writes it into
  ``hooks/hooks.json`` (``<python> -P -c "from tacit.hosts.hook_entry import
  main; main()" claude-code <Event>``), fed a realistic payload (the shapes
  Claude Code 2.1.197 sends, docs/hosts-observed.md) on stdin, timed from
  start to exit in a separate process — what Claude Code waits for.
- The baseline, in the same run and interleaved with the hooks (so load on a
  shared machine hits both alike): the same interpreter running ``-c pass``.
- The store is realistic: 50 memory entries (MEMORY.md and USER.md near
  their limits), 100 skills, and a learning ledger of 100,000 observations
  (``--quick``: 2,000) when ``tacit.stores.ledger`` exists. It holds no fix
  pattern and stays that way: its hooks run with ``TACIT_FORGE_ON_SUCCESS=false``
  (the benchmark's own Stop reply describes a fix, which would otherwise be
  forged into a pattern after the first round).
- The same store with 1,000 fix patterns (``tests/benchmarks/patterns.py``'s
  generator, plus the one the benchmark's Stop reply forges in the warm-up
  round, which the prompt then matches): UserPromptSubmit there runs the
  fix-pattern lookup and injects a ``<learned-patterns>`` block — the path of
  a user whose ledger has learned fixes.
- One round = one session: SessionStart, UserPromptSubmit, PostToolUse,
  PostToolUseFailure, Stop, SessionEnd, then UserPromptSubmit in the store
  with fix patterns. After Stop and after SessionEnd the benchmark waits for
  the detached ``tacit drain`` the hook started, so background work never
  overlaps the next measurement.
- For comparison (PostToolUse only): the same hook through the ``tacit``
  console script and through ``python -m tacit.cli`` — why hooks.json uses
  ``-P -c``.

What runs: tacit as installed, not the source tree. A pip install compiles
every module to ``.pyc`` at install time; the dev checkout is an editable
install, and this environment sets ``PYTHONDONTWRITEBYTECODE=1``, so there a
hook would compile every tacit module from source on every run. The
benchmark therefore copies ``extension/tacit`` (with ``prompts`` and
``skills_template`` inside, as the wheel lays them out) into a temporary
folder, compiles it with ``compileall``, and puts that folder first on
``PYTHONPATH`` for every process it times, the baseline included (same
interpreter, same environment). ``--tree`` measures the source tree as it is.

Targets (issue 4): median ratio <= 2.0 for UserPromptSubmit, PostToolUse and
Stop. ``main(argv)`` returns 0 (1 with ``--strict`` when a target is missed:
timing on a shared machine is a report, not a gate, by default).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "extension"))
sys.path.insert(0, str(HERE))

WITH_PATTERNS = "UserPromptSubmit, 1,000 fix patterns"
TARGETS = {"UserPromptSubmit": 2.0, "PostToolUse": 2.0, "Stop": 2.0, WITH_PATTERNS: 2.0}
EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd")
FIX_PATTERNS = 1_000


def payloads(session_id: str, cwd: str, transcript: str) -> dict[str, dict]:
    common = {"session_id": session_id, "transcript_path": transcript, "cwd": cwd}
    turn = {**common, "prompt_id": "c98e6a81-1b2c-4d5e-8f90-123456789abc", "permission_mode": "default"}
    return {
        "SessionStart": {**common, "hook_event_name": "SessionStart", "source": "startup"},
        "UserPromptSubmit": {**turn, "hook_event_name": "UserPromptSubmit",
                             "prompt": "the tests in tests/test_parser.py fail since the refactor; "
                                       "please find out why and fix the parser, then run the suite"},
        "PostToolUse": {**turn, "hook_event_name": "PostToolUse", "effort": {"level": "high"},
                        "tool_name": "Bash",
                        "tool_input": {"command": "python -m pytest tests/test_parser.py -q",
                                       "description": "Run the parser tests"},
                        "tool_response": {"stdout": "." * 40 + "\n40 passed in 0.31s", "stderr": "",
                                          "interrupted": False, "isImage": False, "noOutputExpected": False},
                        "tool_use_id": "toolu_01ABCDEF", "duration_ms": 812},
        "PostToolUseFailure": {**turn, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
                               "tool_input": {"command": "npm run build", "description": "Build"},
                               "tool_use_id": "toolu_01ABCDEG", "error": "Exit code 1\nsh: npm: not found",
                               "is_interrupt": False, "duration_ms": 40},
        "Stop": {**turn, "hook_event_name": "Stop", "effort": {"level": "high"},
                 "last_assistant_message": "The parser dropped the last token when the input ended "
                                           "without a newline. I fixed the loop bound in parser.py and "
                                           "all 40 tests pass now.",
                 "stop_hook_active": False, "background_tasks": [], "session_crons": []},
        "SessionEnd": {**common, "prompt_id": turn["prompt_id"], "hook_event_name": "SessionEnd",
                       "reason": "other"},
    }


def make_store(home: Path, ledger_rows: int) -> dict:
    """50 memory entries, 100 skills, a ledger of ``ledger_rows`` observations."""
    from tacit.config import load_config
    from tacit.stores.memory import MemoryStore

    cfg = load_config(env={"TACIT_HOME": str(home), "HOME": str(home.parent)})
    store = MemoryStore(cfg)
    facts = ["builds with `make all`", "tests run with `pytest -q`", "deploys go through `make deploy`",
             "the API lives in src/api", "migrations are in db/migrations", "CI is GitHub Actions"]
    for i in range(30):
        assert store.add("memory", f"Fact {i:02d}: the project {facts[i % len(facts)]}.")["success"]
    for i in range(20):
        assert store.add("user", f"Pref {i:02d}: prefers concise answers, pnpm, tabs={i % 2}.")["success"]
    from skill_index import make_skills

    make_skills(cfg.skills_dir, 100)
    info = {"memory_entries": 50, "skills": 100, "ledger_rows": 0}
    try:
        import tacit.stores.ledger  # noqa: F401
    except ImportError:
        return info
    from ledger import build_ledger

    build_ledger(cfg, ledger_rows)
    info["ledger_rows"] = ledger_rows
    return info


def add_fix_patterns(home: Path, count: int) -> int:
    """``count`` fix patterns in the store at ``home`` (the patterns
    benchmark's generator: the labelled ones plus synthetic ones)."""
    from patterns import build_store
    from tacit.config import load_config

    ledger, _, _ = build_store(load_config(env={"TACIT_HOME": str(home), "HOME": str(home.parent)}),
                               count, random.Random(5))
    ledger.close()
    return count


def installed_copy(dest: Path) -> Path:
    """A copy of the package laid out as the wheel installs it, compiled
    like pip compiles it; returns the folder to put on PYTHONPATH."""
    site = dest / "site-packages"
    shutil.copytree(ROOT / "extension" / "tacit", site / "tacit",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for resource in ("prompts", "skills_template"):
        shutil.copytree(ROOT / resource, site / "tacit" / resource)
    if not compileall.compile_dir(str(site / "tacit"), quiet=1):
        raise RuntimeError("compileall failed")
    return site


def run_once(argv: list[str], stdin: bytes, env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one process, start to exit. CPU time
    (user + system, from ``wait4``) is a cross-check that a loaded machine
    inflates far less than wall time."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    # hook output is small (< 64 KB), so sequential pipe I/O cannot deadlock;
    # wait4 (not communicate, which reaps the child itself) gives its rusage
    proc.stdin.write(stdin)
    proc.stdin.close()
    proc.stdout.read()
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    for pipe in (proc.stdout, proc.stderr):
        pipe.close()
    if code != 0:
        raise RuntimeError(f"{argv} exited {code}: {stderr.decode()[-500:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


def wait_for_drain(state_dir: Path, timeout: float = 30.0) -> None:
    """Until the journal the Stop hook kicked is drained (no journal, no
    ``*.draining`` file): background work must not overlap the next round."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        journal = state_dir / "journal.jsonl"
        busy = (journal.exists() and journal.stat().st_size > 0) or any(state_dir.glob("journal.jsonl.*.draining"))
        if not busy:
            return
        time.sleep(0.02)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def importtime(argv: list[str], stdin: bytes, env: dict, top: int = 12) -> list[tuple[float, str]]:
    """(cumulative ms, module) of the slowest imports of one hook run."""
    proc = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], input=stdin, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    rows = []
    for line in proc.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line and "cumulative" not in line:
            _, cumulative, name = line.split("|")
            rows.append((int(cumulative) / 1000, name.rstrip()))
    # only top-level imports (no indentation) add up to the total
    roots = [(ms, name.strip()) for ms, name in rows if not name.startswith("  ")]
    return sorted(roots, reverse=True)[:top]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="8 rounds, ledger of 2,000 rows")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--imports", action="store_true", help="print each hook's slowest imports")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument("--tree", action="store_true",
                        help="time the source tree as it is (editable install) instead of a compiled copy")
    args = parser.parse_args(argv)
    rounds = args.rounds or (8 if args.quick else 30)
    ledger_rows = 2_000 if args.quick else 100_000

    from tacit.hosts.claude_code.plugin import hook_command

    python = sys.executable
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="tacit-hook-bench-") as tmp:
        root = Path(tmp)
        home = root / "tacit-home"
        project = root / "project"
        project.mkdir()
        built = time.perf_counter()
        store_info = make_store(home, ledger_rows)
        home_b = root / "tacit-home-fixes"
        shutil.copytree(home, home_b)
        store_info["fix_patterns"] = add_fix_patterns(home_b, FIX_PATTERNS) if store_info["ledger_rows"] else 0
        built = time.perf_counter() - built
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TACIT_", "CLAUDE"))}
        if args.tree:
            what = f"the source tree as it is ({ROOT / 'extension'}, PYTHONDONTWRITEBYTECODE=" \
                   f"{env.get('PYTHONDONTWRITEBYTECODE', 'unset')})"
        else:
            site = installed_copy(root / "installed")
            env["PYTHONPATH"] = os.pathsep.join([str(site)] + [p for p in [env.get("PYTHONPATH")] if p])
            what = "an installed copy of the package, compiled to .pyc by compileall, first on PYTHONPATH"
        env.update(TACIT_HOME=str(home), HOME=str(root), TACIT_HOST="claude-code")
        # children would need a real `claude`; the benchmark measures hooks, not agents
        env["PATH"] = os.pathsep.join([str(Path(python).parent), "/usr/bin", "/bin"])
        env_a = {**env, "TACIT_FORGE_ON_SUCCESS": "false"}  # the main store keeps no fix pattern
        env_b = {**env, "TACIT_HOME": str(home_b)}
        hooks = {event: shlex.split(hook_command(python, event)) for event in EVENTS}
        variants = {
            "PostToolUse via `tacit` script": [str(Path(python).parent / "tacit"), "hook", "claude-code",
                                               "PostToolUse"],
            "PostToolUse via python -m tacit.cli": [python, "-m", "tacit.cli", "hook", "claude-code",
                                                    "PostToolUse"],
        }
        if not Path(variants["PostToolUse via `tacit` script"][0]).exists():
            del variants["PostToolUse via `tacit` script"]
        baseline = [python, "-c", "pass"]

        samples: dict[str, list[float]] = {name: [] for name in ("pass", *EVENTS, *variants, WITH_PATTERNS)}
        if not store_info["fix_patterns"]:
            del samples[WITH_PATTERNS]
        cpu: dict[str, list[float]] = {name: [] for name in samples}
        outputs: dict[str, int] = {}
        for round_no in range(-1, rounds):  # round -1: warm-up (fills caches; forges the pattern in B)
            session = f"bench-{round_no + 1:04d}-5f0e-4c1a-9d7e-000000000000"
            data = {e: json.dumps(p).encode() for e, p in payloads(session, str(project),
                                                                     str(root / "t.jsonl")).items()}
            times = {"pass": run_once(baseline, b"", env_a)}
            for event in EVENTS:
                times[event] = run_once(hooks[event], data[event], env_a)
                if event == "PostToolUse":
                    for name, variant in variants.items():
                        times[name] = run_once(variant, data[event], env_a)
                if event in ("Stop", "SessionEnd"):
                    wait_for_drain(home)  # the drain it started must not overlap the next measurement
            if WITH_PATTERNS in samples:
                if round_no < 0:  # the reply of this session becomes a pattern the prompt matches
                    for event in ("UserPromptSubmit", "Stop"):
                        run_once(hooks[event], data[event], env_b)
                    wait_for_drain(home_b)
                    outputs["fix patterns, injected chars"] = len(subprocess.run(
                        hooks["UserPromptSubmit"], input=data["UserPromptSubmit"], env=env_b,
                        stdout=subprocess.PIPE).stdout)
                times[WITH_PATTERNS] = run_once(hooks["UserPromptSubmit"], data["UserPromptSubmit"], env_b)
            wait_for_drain(home)
            if round_no >= 0:
                for name, (wall, cpu_seconds) in times.items():
                    samples[name].append(wall)
                    cpu[name].append(cpu_seconds)
        # what SessionStart injects (size check)
        start_out = subprocess.run(hooks["SessionStart"], input=data["SessionStart"], env=env_a,
                                   stdout=subprocess.PIPE).stdout
        outputs["SessionStart additionalContext chars"] = len(
            json.loads(start_out)["hookSpecificOutput"]["additionalContext"]) if start_out else 0
        log_errors = 0
        for folder in (home, home_b):
            errors = folder / "logs" / "tacit.log"
            log_errors += errors.read_text().count(" ERROR ") if errors.exists() else 0

        base = statistics.median(samples["pass"])
        cpu_base = statistics.median(cpu["pass"]) or 1e-9
        load_after = os.getloadavg()
        print(f"store: {store_info['memory_entries']} memory entries, {store_info['skills']} skills, "
              f"ledger {store_info['ledger_rows']:,} rows, no fix pattern (and a copy with "
              f"{store_info['fix_patterns']:,} fix patterns; built in {built:.1f}s); {rounds} rounds; "
              f"python {sys.version.split()[0]}")
        print(f"measured: {what}")
        print(f"load average (1/5/15 min): before {'/'.join(f'{x:.2f}' for x in load_before)}, "
              f"after {'/'.join(f'{x:.2f}' for x in load_after)}")
        print(f"{'hook':38} {'median ms':>10} {'p90 ms':>8} {'ratio':>7} {'cpu ms':>7} {'cpu x':>6}  target")
        figures = {}
        missed = []
        for name, values in samples.items():
            median = statistics.median(values)
            ratio = median / base
            target = TARGETS.get(name)
            verdict = "" if target is None else (f"<= {target:.1f}  " + ("ok" if ratio <= target else "MISSED"))
            if target is not None and ratio > target:
                missed.append(name)
            label = "python -c pass (baseline)" if name == "pass" else name
            cpu_median = statistics.median(cpu[name])
            print(f"{label:38} {median * 1000:10.1f} {percentile(values, 0.9) * 1000:8.1f} {ratio:7.2f} "
                  f"{cpu_median * 1000:7.1f} {cpu_median / cpu_base:6.2f}  {verdict}")
            figures[name] = {"median_ms": round(median * 1000, 2), "p90_ms": round(percentile(values, 0.9) * 1000, 2),
                             "ratio": round(ratio, 3), "cpu_ms": round(cpu_median * 1000, 2),
                             "cpu_ratio": round(cpu_median / cpu_base, 3)}
        print(f"SessionStart injected {outputs['SessionStart additionalContext chars']:,} chars "
              f"(cap 10,000); errors logged by hooks: {log_errors}")
        if "fix patterns, injected chars" in outputs:
            print(f"{WITH_PATTERNS}: the hook printed {outputs['fix patterns, injected chars']:,} chars "
                  f"(0 = nothing injected)")
        if args.imports:
            for event in EVENTS:
                print(f"\nslowest top-level imports, {event} (ms, cumulative):")
                for ms, name in importtime(hooks[event], data[event], env_a):
                    print(f"  {ms:7.2f}  {name}")
            if WITH_PATTERNS in samples:
                print(f"\nslowest top-level imports, {WITH_PATTERNS} (ms, cumulative):")
                for ms, name in importtime(hooks["UserPromptSubmit"], data["UserPromptSubmit"], env_b):
                    print(f"  {ms:7.2f}  {name}")
        if args.json:
            Path(args.json).write_text(json.dumps({
                "store": store_info, "rounds": rounds, "measured": what, "python": sys.version.split()[0],
                "load_before": load_before, "load_after": load_after, "figures": figures,
                "missed": missed}, indent=2) + "\n")
        if missed:
            print("targets missed: " + ", ".join(missed))
        return 1 if (missed and args.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
