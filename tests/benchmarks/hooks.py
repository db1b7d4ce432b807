"""Benchmark: Claude Code hook processes through the service, as a ratio to a bare interpreter.

    python tests/benchmarks/hooks.py            # 30 rounds
    python tests/benchmarks/hooks.py --quick    # 6 rounds, smaller store (a smoke run)
    python tests/benchmarks/hooks.py --tree     # the source tree as it is, not an installed copy

What is measured
- Every hook event exactly as ``tacit install claude-code`` writes it
  (``tacit.commandline.hook_command``: ``python -I -S -c "…hook_client…"
  claude-code <Event>``), fed the payload shapes Claude Code 2.1.197 sends,
  timed from start to exit in a separate process — what Claude Code waits
  for. The service is warm (started by the first hook) unless said otherwise.
- The baseline, in the same run and interleaved with the hooks (load on a
  shared machine hits both alike): the same interpreter running ``-c pass``.
- A populated home: 50 memory entries, 200 skills, 5,000 fix patterns (one of
  which the benchmark's prompt matches, so UserPromptSubmit injects a
  ``<learned-patterns>`` block) and a ``config.toml`` with a few keys; and a
  second project whose memory holds the 25 rule lessons of
  tests/data/guard_lessons.jsonl, where PreToolUse checks a call against the
  guards they become: one that passes, one that is stopped (``npm install``).
- Cold start: no service yet; the SessionStart hook starts it and waits.
- The client with and without ``-S`` (is skipping ``site`` worth it?).
- The service's resident memory when idle (``tacit service status``).

What runs: tacit as installed. The package is copied the way the wheel lays
it out and compiled with ``compileall`` like pip does (this environment sets
``PYTHONDONTWRITEBYTECODE``, and an editable install would otherwise compile
tacit on every process start); ``--tree`` measures the checkout as it is.

Target (issue 11): median ≤ 1.15× for every event with the service warm.
Figures are printed, never asserted: timing on a shared machine is a report.
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
sys.path.insert(0, str(HERE))

TARGET = 1.15
PATTERN_EVENT = "UserPromptSubmit (fix pattern injected)"
GUARD_PASS = "PreToolUse (25 guards, passes)"
GUARD_STOP = "PreToolUse (25 guards, stops npm)"


def payloads(session_id: str, cwd: str, guarded: str | None = None) -> dict[str, dict]:
    common = {"session_id": session_id, "transcript_path": "/nonexistent.jsonl", "cwd": cwd}
    turn = {**common, "prompt_id": "c98e6a81-1b2c-4d5e-8f90-123456789abc", "permission_mode": "default"}
    bash = {"command": "python -m pytest tests/test_parser.py -q", "description": "Run the parser tests"}
    return {
        "SessionStart": {**common, "hook_event_name": "SessionStart", "source": "startup"},
        "UserPromptSubmit": {**turn, "hook_event_name": "UserPromptSubmit",
                             "prompt": "great, now add a short section on the config file to the README"},
        PATTERN_EVENT: {**turn, "hook_event_name": "UserPromptSubmit",
                        "prompt": "the parser drops the last token again when the file has no trailing "
                                  "newline, same error as before"},
        "PreToolUse": {**turn, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": bash,
                       "tool_use_id": "toolu_01ABCDEF"},
        "PostToolUse": {**turn, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": bash,
                        "tool_response": {"stdout": "." * 40 + "\n40 passed in 0.31s", "stderr": "",
                                          "interrupted": False},
                        "tool_use_id": "toolu_01ABCDEF", "duration_ms": 812},
        "PostToolUseFailure": {**turn, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
                               "tool_input": {"command": "npm run build", "description": "Build"},
                               "tool_use_id": "toolu_01ABCDEG", "error": "Exit code 1\nsh: npm: not found"},
        "Stop": {**turn, "hook_event_name": "Stop", "stop_hook_active": False,
                 "last_assistant_message": "Added a Configuration section to the README."},
        "PreCompact": {**turn, "hook_event_name": "PreCompact", "trigger": "auto"},
        "SessionEnd": {**common, "hook_event_name": "SessionEnd", "reason": "other"},
        # a project whose memory holds the 25 rule lessons of tests/data/guard_lessons.jsonl
        GUARD_PASS: {**turn, "cwd": guarded or cwd, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                     "tool_input": {"command": "python3 -m pytest tests/test_parser.py -q", "description": "t"},
                     "tool_use_id": "toolu_01GUARDP"},
        GUARD_STOP: {**turn, "cwd": guarded or cwd, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                     "tool_input": {"command": "npm install left-pad", "description": "add"},
                     "tool_use_id": "toolu_01GUARDS"},
    }


EVENT_OF = {name: name.split(" ")[0] for name in payloads("s", "/tmp")}


def installed_copy(dest: Path) -> Path:
    """The package laid out as the wheel installs it, compiled like pip compiles it."""
    site = dest / "site-packages"
    shutil.copytree(ROOT / "extension" / "tacit", site / "tacit",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for resource in ("prompts", "skills_template"):
        shutil.copytree(ROOT / resource, site / "tacit" / resource)
    if not compileall.compile_dir(str(site / "tacit"), quiet=1):
        raise RuntimeError("compileall failed")
    return site


def make_store(home: Path, *, skills: int, patterns: int) -> dict:
    """50 memory entries, ``skills`` skills, ``patterns`` fix patterns, a config.toml."""
    from tacit.config import load_config
    from tacit.stores.memory import MemoryStore

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        "# a few keys, as a user would have\nnudge_interval = 12\nreview_min_user_turns = 4\n"
        "skill_index_budget = 6000\nchild_enabled = false\nforge_on_success = false\n", encoding="utf-8")
    cfg = load_config(env={"TACIT_HOME": str(home), "HOME": str(home.parent)})
    from tacit.stores.history import USER

    store = MemoryStore(cfg, actor=USER)  # the benchmark's setup writes as you
    facts = ["builds with `make all`", "tests run with `pytest -q`", "deploys go through `make deploy`",
             "the API lives in src/api", "migrations are in db/migrations", "CI is GitHub Actions"]
    for i in range(30):
        assert store.add("memory", f"Fact {i:02d}: the project {facts[i % len(facts)]}.")["success"]
    for i in range(20):
        assert store.add("user", f"Pref {i:02d}: prefers concise answers, pnpm, tabs={i % 2}.")["success"]
    from skill_index import make_skills

    make_skills(cfg.skills_dir, skills)
    from patterns import build_store

    lessons = [json.loads(line)["text"] for line in (ROOT / "tests" / "data" / "guard_lessons.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip() and json.loads(line)["derives"]]
    from tacit.projects import project_for

    guarded = home.parent / "guarded"
    subprocess.run(["git", "init", "-q", str(guarded)], check=True, capture_output=True)
    project_store = MemoryStore(cfg.with_settings(project_char_limit=20000), project_for(str(guarded)), actor=USER)
    for text in lessons:
        assert project_store.add("project", text)["success"], text
    ledger, _, _ = build_store(cfg, patterns, random.Random(5))
    from tacit.detect.fix import FixStatement
    from tacit.learn import fixes

    # the one the benchmark's prompt is about
    with ledger.write() as conn:
        forged = fixes.forge(conn, cfg, FixStatement(
            "the parser dropped the last token when the file had no trailing newline",
            "changed the loop bound in parse() to range(len(tokens))", "bench", 0.9),
            title="parser drops the last token without a trailing newline").action == "created"
    ledger.close()
    return {"memory_entries": 50, "skills": skills, "fix_patterns": patterns, "forged": bool(forged),
            "guard_lessons": len(lessons)}


def run_once(argv: list[str], stdin: bytes, env: dict) -> tuple[float, bytes]:
    started = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, env=env)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{argv} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return elapsed, proc.stdout


def service(env: dict, action: str) -> dict:
    out = subprocess.run([sys.executable, "-P", "-m", "tacit", "service", action, "--json"], env=env,
                         capture_output=True, text=True, timeout=60)
    return json.loads(out.stdout) if out.stdout.strip() else {}


def ratio_table(times: dict[str, list[float]], base: list[float]) -> list[dict]:
    base_median = statistics.median(base)
    rows = []
    for name, values in times.items():
        median = statistics.median(values)
        rows.append({"event": name, "median_ms": round(median * 1000, 2),
                     "ratio": round(median / base_median, 3),
                     "p90_ratio": round(sorted(values)[int(0.9 * (len(values) - 1))] / base_median, 3)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tree", action="store_true")
    parser.add_argument("--rounds", type=int)
    args = parser.parse_args(argv)
    rounds = args.rounds or (6 if args.quick else 30)
    skills, patterns = (60, 500) if args.quick else (200, 5000)

    with tempfile.TemporaryDirectory(prefix="tacit-hooks-bench-") as tmp:
        tmp = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith("TACIT_")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if not args.tree:
            site = installed_copy(tmp)
            env["PYTHONPATH"] = str(site)
            sys.path.insert(0, str(site))
        else:
            sys.path.insert(0, str(ROOT / "extension"))
        from tacit.commandline import hook_command

        home = tmp / "home" / ".tacit"
        env.update(HOME=str(home.parent), TACIT_HOME=str(home), TACIT_SERVICE_IDLE_SECONDS="3600")
        from tacit.stores import history

        with history.acting(history.USER):  # the benchmark's memory is the user's own
            store = make_store(home, skills=skills, patterns=patterns)
        project = tmp / "project"
        project.mkdir()
        python = sys.executable
        guarded = str(home.parent / "guarded")
        commands = {name: shlex.split(hook_command(python, "claude-code", EVENT_OF[name])) for name in
                    payloads("s", str(project), guarded)}
        baseline = [python, "-c", "pass"]

        # cold: no service yet, the first hook starts it
        cold = []
        for n in range(3 if args.quick else 5):
            service(env, "stop")
            body = json.dumps(payloads(f"cold-{n}", str(project))["SessionStart"]).encode()
            cold.append(run_once(commands["SessionStart"], body, env)[0])
        time.sleep(1.0)

        # warm: interleaved with the baseline
        times: dict[str, list[float]] = {name: [] for name in commands}
        base: list[float] = []
        injected = stopped = 0
        for r in range(rounds):
            bodies = payloads(f"round-{r}", str(project), guarded)
            for name, argv_ in commands.items():
                base.append(run_once(baseline, b"", env)[0])
                elapsed, out = run_once(argv_, json.dumps(bodies[name]).encode(), env)
                times[name].append(elapsed)
                if name == PATTERN_EVENT and b"learned-patterns" in out:
                    injected += 1
                if name == GUARD_STOP and b"permissionDecision" in out:
                    stopped += 1
            time.sleep(0.6)  # the learners run once a burst is over; let them, between rounds

        # the client without -S (site imported) on the cheapest event, for the -S question
        code = shlex.split(hook_command(python, "claude-code", "PostToolUse"))
        with_site = [python, "-c", code[code.index("-c") + 1], "claude-code", "PostToolUse"]
        site_times, site_base = [], []
        body = json.dumps(payloads("site", str(project))["PostToolUse"]).encode()
        for _ in range(rounds):
            site_base.append(run_once(baseline, b"", env)[0])
            site_times.append(run_once(with_site, body, env)[0])
        time.sleep(1.5)
        status = service(env, "status")
        service(env, "stop")

    rows = ratio_table(times, base)
    print(f"hooks through the service, {rounds} rounds, store: {store}")
    print(f"baseline `python -c pass`: median {statistics.median(base) * 1000:.1f} ms")
    print(f"{'event':45} {'median':>9} {'ratio':>7} {'p90':>7}")
    for row in rows:
        flag = "" if row["ratio"] <= TARGET else f"  (> {TARGET}x)"
        print(f"{row['event']:45} {row['median_ms']:7.2f}ms {row['ratio']:6.3f}x {row['p90_ratio']:6.3f}x{flag}")
    print(f"fix pattern injected in {injected}/{rounds} rounds; npm stopped in {stopped}/{rounds}")
    base_median = statistics.median(base)
    print(f"cold start (SessionStart, service not running): median {statistics.median(cold) * 1000:.0f} ms "
          f"= {statistics.median(cold) / base_median:.1f}x")
    print(f"client without -S (PostToolUse): {statistics.median(site_times) / statistics.median(site_base):.3f}x"
          f" vs with -I -S: {next(r['ratio'] for r in rows if r['event'] == 'PostToolUse'):.3f}x")
    print(f"service idle: rss {status.get('rss_kb', 0) / 1024:.1f} MB, max rss "
          f"{status.get('max_rss_kb', 0) / 1024:.1f} MB, {status.get('threads')} threads, "
          f"{status.get('events')} events served")
    return 0


if __name__ == "__main__":
    sys.exit(main())
