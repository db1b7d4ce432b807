"""Benchmark: ``tacit learn`` (dry run) on 5 MB and 50 MB of Claude Code transcripts.

    python tests/benchmarks/learn.py                 # 5 MB and 50 MB
    python tests/benchmarks/learn.py --sizes 5       # 5 MB only
    python tests/benchmarks/learn.py --keep DIR      # keep the generated transcripts in DIR

What is measured
- A folder of generated Claude Code transcripts (one file per session, about
  1 MB each) with the shapes real ones have: user prompts (requests,
  corrections, preferences, thanks), assistant text (some of it stating a
  fix), ``tool_use`` blocks (Bash, Read, Edit, Grep, Glob, Write, each with a
  realistic input) and their ``tool_result`` lines (file contents, command
  output, the ``toolUseResult`` copy Claude Code writes beside them).
- ``tacit learn --json --no-progress FOLDER`` run as a subprocess, the way a
  user runs it, in an empty data folder: wall time, CPU time (user + system)
  and peak resident memory of that child (``os.wait4``'s rusage).
- Baseline, same run, same files: ``json.loads`` of every line, read the way
  ``tacit learn`` reads them (binary lines, decoded with replacement) — the
  floor any transcript reader pays. Best of three, wall and CPU.
- Printed: size, lines, events, seconds, the ratios to the baseline (wall,
  and CPU: on a shared machine the CPU ratio is the steadier one), peak RSS,
  and the growth of the ratio from the smallest size (1.0 = linear).

The target (issue 16): ≤ 10× the baseline at 50 MB, with flat memory.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SESSION_BYTES = 1_000_000  # about one MB per transcript file, as a long real session

PROMPTS = [
    "add a date formatting helper for the invoice list",
    "the tests are failing on CI, can you look?",
    "refactor the csv export so it streams rows instead of building a list",
    "why does the dev server start on 3000?",
    "add pagination to the /api/invoices endpoint",
    "write a unit test for parse_amount with negative numbers",
    "can you explain what this regex does",
    "update the README with the new env variables",
    "the login form breaks on mobile, fix the layout",
    "run the linter and fix what it finds",
]
CORRECTIONS = [
    "no, use pnpm here, not npm",
    "dont add another utils file, we already have src/lib/helpers.ts for that",
    "the port is 5173 not 3000, the api proxy only allows 5173",
    "that's wrong, the amounts are in cents, not euros",
    "stop using print for debugging, use the logger",
]
DURABLE = [
    "I prefer tabs over spaces in this repo.",
    "We decided to use Postgres 16 for the billing service.",
    "Always run the type checker before committing.",
    "Our staging database runs on db-staging.internal.",
]
THANKS = ["thanks, that worked!", "perfect, commit it", "great, now the next one", "ok"]
FIX_REPLIES = [
    "Found it: the config loader reads `PORT` before `.env` is loaded, so I moved `load_dotenv()` "
    "to the top of main.py. The server now starts on 5173.",
    "The test failed because `parse_amount` treated the minus sign as a separator. I fixed the "
    "regex in src/lib/amounts.ts and added a case for negative values.",
    "The build broke because the lockfile was stale after the rebase; I regenerated it with "
    "`pnpm install` and the CI job passes again.",
]
PLAIN_REPLIES = [
    "I'll start by reading the relevant files.",
    "Done. I updated the component and the tests pass.",
    "Here is what the function does, step by step: it normalises the input, splits on commas and "
    "parses each part as a decimal number.",
    "Let me check how the export is wired before changing it.",
]
PROGRAMS = ["git status", "git diff --stat", "pnpm test", "pnpm run lint", "pytest -q tests/unit",
            "ls -la src", "cat package.json", "npm run build", "rg TODO src", "make check"]
WORDS = ("const let return import export function async await value result amount invoice row "
         "column format parse date total customer order line item price currency status error "
         "handler request response config server client module test expect describe").split()


def _code(rng: random.Random, lines: int) -> str:
    out = []
    for n in range(lines):
        indent = "  " * rng.randint(0, 3)
        out.append(f"{n + 1:>5}\t{indent}{' '.join(rng.choices(WORDS, k=rng.randint(3, 10)))};")
    return "\n".join(out)


class SessionWriter:
    """Writes one transcript, line by line, as Claude Code does."""

    def __init__(self, rng: random.Random, path: Path, start: datetime):
        self.rng, self.path, self.t = rng, path, start
        self.sid = str(uuid.UUID(int=rng.getrandbits(128)))
        self.parent: str | None = None
        self.handle = open(path, "w", encoding="utf-8")
        self.bytes = self.lines = 0

    def _line(self, kind: str, message: dict, **extra) -> None:
        self.t += timedelta(seconds=self.rng.uniform(1, 20))
        node = str(uuid.UUID(int=self.rng.getrandbits(128)))
        data = {"parentUuid": self.parent, "isSidechain": False, "userType": "external",
                "cwd": "/home/maya/code/invoicely", "sessionId": self.sid, "version": "2.1.197",
                "gitBranch": "main", "type": kind, "uuid": node,
                "timestamp": self.t.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "message": message, **extra}
        text = json.dumps(data, ensure_ascii=False) + "\n"
        self.handle.write(text)
        self.parent = node
        self.bytes += len(text.encode("utf-8"))
        self.lines += 1

    def user(self, text: str) -> None:
        self._line("user", {"role": "user", "content": text})

    def assistant(self, blocks: list) -> None:
        message_id = f"msg_{self.rng.getrandbits(64):016x}"
        for block in blocks:  # one line per block, sharing message.id
            self._line("assistant", {"id": message_id, "type": "message", "role": "assistant",
                                     "model": "claude-sonnet-4", "content": [block],
                                     "stop_reason": None,
                                     "usage": {"input_tokens": self.rng.randint(10, 9000),
                                               "output_tokens": self.rng.randint(10, 900)}},
                       requestId=f"req_{self.rng.getrandbits(48):012x}")

    def tool(self) -> None:
        rng = self.rng
        tool_id = f"toolu_{rng.getrandbits(64):016x}"
        name = rng.choices(["Bash", "Read", "Edit", "Grep", "Glob", "Write"], [5, 6, 4, 2, 1, 1])[0]
        path = f"/home/maya/code/invoicely/src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.ts"
        if name == "Bash":
            tool_input = {"command": rng.choice(PROGRAMS), "description": "Run a command"}
            output = _code(rng, rng.randint(1, 30))
            result = {"stdout": output, "stderr": "", "interrupted": False}
        elif name == "Read":
            tool_input = {"file_path": path}
            output = _code(rng, rng.randint(10, 120))
            result = {"type": "text", "file": {"filePath": path, "content": output}}
        elif name in ("Edit", "Write"):
            old, new = _code(rng, rng.randint(1, 8)), _code(rng, rng.randint(1, 8))
            tool_input = {"file_path": path, "old_string": old, "new_string": new}
            output = f"The file {path} has been updated."
            result = {"filePath": path, "oldString": old, "newString": new,
                      "structuredPatch": [{"lines": new.splitlines()}]}
        else:
            tool_input = {"pattern": rng.choice(WORDS), "path": "src"}
            output = "\n".join(f"src/{rng.choice(WORDS)}.ts" for _ in range(rng.randint(1, 30)))
            result = {"filenames": output.splitlines()}
        self.assistant([{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}])
        error = rng.random() < 0.05
        self._line("user", {"role": "user", "content": [
            {"tool_use_id": tool_id, "type": "tool_result", "content": output, "is_error": error}]},
            toolUseResult=result)

    def turn(self) -> None:
        rng = self.rng
        roll = rng.random()
        prompt = (rng.choice(CORRECTIONS) if roll < 0.12 else rng.choice(DURABLE) if roll < 0.2
                  else rng.choice(THANKS) if roll < 0.35 else rng.choice(PROMPTS))
        self.user(prompt)
        self.assistant([{"type": "thinking", "thinking": " ".join(rng.choices(WORDS, k=rng.randint(20, 120))),
                         "signature": f"{rng.getrandbits(256):064x}"},
                        {"type": "text", "text": rng.choice(PLAIN_REPLIES)}])
        for _ in range(rng.randint(0, 12)):
            self.tool()
        reply = rng.choice(FIX_REPLIES) if rng.random() < 0.15 else rng.choice(PLAIN_REPLIES)
        self.assistant([{"type": "text", "text": reply}])

    def close(self) -> None:
        self.handle.close()


def generate(folder: Path, total_bytes: int, seed: int = 16) -> dict:
    """Transcripts totalling about ``total_bytes``; returns what was written."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    start = datetime(2025, 3, 1, 9, tzinfo=timezone.utc)
    written = lines = files = 0
    while written < total_bytes:
        session = SessionWriter(rng, folder / f"session-{files:04d}.jsonl", start)
        session.handle.write(json.dumps({"type": "summary", "summary": "Invoices", "leafUuid": "u0"}) + "\n")
        while session.bytes < min(SESSION_BYTES, total_bytes - written):
            session.turn()
        session.close()
        written += session.bytes
        lines += session.lines + 1
        files += 1
        start += timedelta(hours=rng.uniform(3, 30))  # the next session, hours or a day later
    return {"bytes": written, "lines": lines, "files": files}


def json_baseline(folder: Path, repeats: int = 3) -> tuple[float, float]:
    """(wall, CPU) seconds to ``json.loads`` every line, best of ``repeats``."""
    paths = sorted(folder.glob("*.jsonl"))
    best_wall = best_cpu = float("inf")
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        for path in paths:
            with open(path, "rb") as handle:
                for raw in handle:
                    json.loads(raw.decode("utf-8", errors="replace"))
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu


def run_learn(folder: Path, home: Path) -> tuple[float, float, int, dict]:
    """(wall seconds, CPU seconds, peak RSS in bytes, report) of one ``tacit learn`` dry run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACIT_")}
    env["TACIT_HOME"] = str(home)
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "tacit.cli", "learn", "--json", "--no-progress",
                                 str(folder)], env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"tacit learn failed ({proc.returncode}): {err.read().decode()[-2000:]}")
        report = json.loads(out.read())
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, report


def measure(size_mb: float, keep: Path | None) -> dict:
    work = Path(tempfile.mkdtemp(prefix="tacit-bench-learn-"))
    try:
        folder = (keep or work) / f"transcripts-{size_mb:g}mb"
        if folder.exists():
            shutil.rmtree(folder)
        info = generate(folder, int(size_mb * 1_000_000))
        json_wall, json_cpu = json_baseline(folder)
        seconds, cpu, peak, report = run_learn(folder, work / "home")
        totals = report["totals"]
        return {"mb": size_mb, **info, "events": totals["events"], "turns": totals["turns"],
                "tool_calls": totals["tool_calls"], "json_s": json_wall, "json_cpu": json_cpu,
                "learn_s": seconds, "learn_cpu": cpu, "ratio": seconds / json_wall, "cpu_ratio": cpu / json_cpu,
                "peak_rss": peak}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[5, 50], help="sizes in MB")
    parser.add_argument("--keep", type=Path, default=None, help="keep the transcripts in this folder")
    parser.add_argument("--one", type=float, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:  # one size per process: the generator's memory is not the next size's
        print(json.dumps(measure(args.one, args.keep)))
        return
    print(f"tacit learn (dry run) vs json.loads of the same lines — python {sys.version.split()[0]}")
    print(f"{'size':>7} {'files':>5} {'lines':>7} {'events':>7} {'json s':>7} {'learn s':>8} "
          f"{'ratio':>7} {'json cpu':>8} {'learn cpu':>9} {'cpu ratio':>9} {'peak RSS':>9}")
    rows = []
    for size in args.sizes:
        command = [sys.executable, __file__, "--one", str(size)]
        if args.keep:
            command += ["--keep", str(args.keep)]
        row = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        rows.append(row)
        print(f"{row['mb']:>5g}MB {row['files']:>5} {row['lines']:>7,} {row['events']:>7,} "
              f"{row['json_s']:>7.2f} {row['learn_s']:>8.2f} {row['ratio']:>6.1f}× "
              f"{row['json_cpu']:>8.2f} {row['learn_cpu']:>9.2f} {row['cpu_ratio']:>8.1f}× "
              f"{row['peak_rss'] / 1e6:>7.1f}MB", flush=True)
    if len(rows) > 1:
        growth = rows[-1]["cpu_ratio"] / rows[0]["cpu_ratio"]
        print(f"CPU ratio growth {rows[0]['mb']:g} MB → {rows[-1]['mb']:g} MB: {growth:.2f}× "
              f"(1.0 = linear); peak RSS {rows[0]['peak_rss'] / 1e6:.1f} → {rows[-1]['peak_rss'] / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
