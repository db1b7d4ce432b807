"""Benchmark: a SessionStart hook run in-process with a huge MEMORY.md.

Run as a script (not collected by pytest):

    python tests/benchmarks/memory_size.py              # a 10 MB MEMORY.md, 3 repeats
    python tests/benchmarks/memory_size.py --mb 1 --repeat 5

Each sample is a new process (``tacit.hosts.hooks.run_in_process``, what a
Claude Code SessionStart hook does when no service answers it) on a data
folder of its own; the files tacit keeps on disk between hooks (its memos)
stay, as they do between a user's sessions. The first run of each folder is
printed apart (it fills those memos); the figure is the median of the others.

- **baseline**: the same hook with a MEMORY.md at its limit (2,200
  characters of the same entries) — what every session start pays;
- **huge**: the same hook with a MEMORY.md of ``--mb`` MB of such entries
  (benign texts of tests/data/scan_corpus.jsonl, separated by ``§``).

Printed: seconds, and huge as a ratio to the baseline measured in the same
run. ``main(argv)`` returns 0: timing on a shared machine is a report.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "scan_corpus.jsonl"
LIMIT = 2200
HOOK = ("import sys; from tacit.hosts import hooks; "
        "sys.stdout.write(hooks.run_in_process('claude-code', 'SessionStart', sys.stdin.buffer.read()))")


def entries(chars: int, seed: int = 5) -> str:
    """Benign entries joined by ``§`` until ``chars`` characters."""
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    benign = [r["text"] for r in rows if r.get("label") == "benign" and "§" not in r["text"]]
    rng = random.Random(seed)
    out, size = [], 0
    while True:
        text = f"{rng.choice(benign)} (note {len(out) + 1})"
        if size + len(text) + 3 > chars:
            return "\n§\n".join(out)
        out.append(text)
        size += len(text) + 3


def folder(memory: str) -> Path:
    home = Path(tempfile.mkdtemp(prefix="tacit-memsize-"))
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text(memory, encoding="utf-8")
    (home / "memories" / "USER.md").write_text("The user is called Ada and prefers short answers.", encoding="utf-8")
    (home / "project").mkdir()
    return home


def session_start(home: Path, n: int) -> tuple[float, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TACIT_HOME": str(home),
           "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    body = json.dumps({"session_id": f"bench-{n}", "cwd": str(home / "project"), "hook_event_name": "SessionStart",
                       "source": "startup"}).encode()
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", HOOK], input=body, env=env, capture_output=True, timeout=900,
                          check=True)
    return time.perf_counter() - start, proc.stdout.decode("utf-8")


def measure(memory: str, repeat: int) -> dict:
    home = folder(memory)
    try:
        first, out = session_start(home, 0)
        rest = [session_start(home, n)[0] for n in range(1, repeat + 1)]
    finally:
        shutil.rmtree(home, ignore_errors=True)
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
    return {"first": first, "median": statistics.median(rest), "context_chars": len(context)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    huge = entries(int(args.mb * 1_000_000))
    base = measure(entries(LIMIT), args.repeat)
    big = measure(huge, args.repeat)
    print(f"SessionStart in-process, MEMORY.md of {len(huge):,} characters ({huge.count('§') + 1:,} entries), "
          f"limit {LIMIT:,}; median of {args.repeat} new processes after a first one")
    for name, got in (("baseline (MEMORY.md at its limit)", base), ("huge MEMORY.md", big)):
        print(f"  {name:<34} first {got['first']:7.2f} s   median {got['median']:7.2f} s   "
              f"context {got['context_chars']:,} chars")
    print(f"  ratio huge / baseline: first {big['first'] / base['first']:.2f}x, "
          f"median {big['median'] / base['median']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
