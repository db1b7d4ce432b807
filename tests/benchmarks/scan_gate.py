"""Benchmark: gating a SessionStart context (tacit.safety.gate_context).

A realistic context: a MEMORY.md and a USER.md block with 50 entries in all
(benign texts from tests/data/scan_corpus.jsonl), 200 skills (name,
description, category) and a few fix patterns and notices. Figures are
printed in milliseconds and as ratios to two baselines measured in the same
run on the same text, so they compare across machines:

- ``splitlines``: ``str.splitlines()`` over all the injected text;
- ``scan once``: one ``scan()`` of all the injected text joined.

"cold" clears every memo first (the scanner's word memo and the gate's
verdicts), as in a fresh process; "warm" is the same call again, as in the
long-lived service at the next session start.

It then times the other pure functions of tacit.safety on the same corpus
text: per typical message, and on 1 MB of trigger-dense text as a ratio to
one plain ``re.search`` pass over it (the figures in docs/scanner.md and
docs/privacy.md).

    python tests/benchmarks/scan_gate.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time
from pathlib import Path

from tacit.safety import (
    asks_not_to_keep, clean_for_context, context_gate, find_dangers, gate_context, redact_secrets, scan, scanner,
    strip_private,
)

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "scan_corpus.jsonl"

_VERBS = ["deploying", "testing", "debugging", "profiling", "migrating", "releasing", "reviewing", "formatting"]
_THINGS = ["the web app", "database migrations", "the CLI", "Docker images", "the API client", "flaky tests",
           "Python packages", "the docs site", "Terraform plans", "GitHub Actions"]
_CATEGORIES = ["devops", "testing", "python", "frontend", "data", "docs", "security", "release"]


def build_blocks(seed: int = 7) -> list[tuple]:
    rng = random.Random(seed)
    benign = [json.loads(line)["text"] for line in CORPUS.read_text(encoding="utf-8").splitlines()
              if line.strip() and json.loads(line)["label"] == "benign" and "{" not in line.split('"text"')[1][:3]]
    entries = rng.sample(benign, 50)
    blocks: list[tuple] = [
        ("memory", "MEMORY.md", "\n§\n".join(entries[:35])),
        ("memory", "USER.md", "\n§\n".join(entries[35:])),
    ]
    for i in range(200):
        verb, thing = rng.choice(_VERBS), rng.choice(_THINGS)
        name = f"{verb[:-3]}-{thing.split()[-1].lower()}-{i}"
        category = rng.choice(_CATEGORIES)
        blocks.append(("skill_category", f"skills/{category}", category))
        blocks.append(("skill_name", name, name))
        blocks.append(("skill_description", name,
                       f"Use when {verb} {thing}: the steps that worked here, in order, and what to check."))
    for i in range(5):
        blocks.append(("fix_pattern", f"fix-{i}", f"When `pnpm install` fails with ERR_{i}, run pnpm store prune "
                                                  f"and retry with --frozen-lockfile."))
    blocks.append(("notice", "", "tacit: 2 memories saved yesterday; 1 skill updated."))
    return blocks


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _median(fn, repeat: int, setup=None) -> float:
    times = []
    for _ in range(repeat):
        if setup:
            setup()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    blocks = build_blocks()
    joined = "\n".join(text for _kind, _label, text in blocks)
    result = gate_context(blocks)
    assert not result.left_out, result.notice()  # a clean context: everything is allowed

    def clear():
        scanner.clear_memo()
        context_gate.clear_memo()

    splitlines = _best(joined.splitlines, args.repeat * 10)
    scan_once_cold = _median(lambda: scan(joined), args.repeat, setup=scanner.clear_memo)
    scan_once = _best(lambda: scan(joined), args.repeat)
    cold = _median(lambda: gate_context(blocks), args.repeat, setup=clear)
    warm = _best(lambda: gate_context(blocks), args.repeat)

    pieces = len(blocks) - 2 + 50
    print(f"context: {len(blocks)} blocks ({pieces} pieces: 50 memory entries, 200 skills x 3, 5 fixes, 1 notice), "
          f"{len(joined):,} characters")
    print(f"baseline splitlines       {splitlines * 1e3:8.3f} ms")
    print(f"baseline scan once (warm) {scan_once * 1e3:8.3f} ms   (cold {scan_once_cold * 1e3:.3f} ms)")
    print(f"gate_context cold         {cold * 1e3:8.3f} ms   = {cold / splitlines:7.0f}x splitlines, "
          f"{cold / scan_once:5.1f}x scan once")
    print(f"gate_context warm         {warm * 1e3:8.3f} ms   = {warm / splitlines:7.0f}x splitlines, "
          f"{warm / scan_once:5.1f}x scan once")
    print(f"per piece: cold {cold / pieces * 1e6:.1f} us, warm {warm / pieces * 1e6:.1f} us")
    functions(args.repeat)


def _benign_texts() -> list[str]:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["text"] for r in rows if r["label"] == "benign" and "{" not in r["text"]]


def functions(repeat: int) -> None:
    """Each pure function: per typical message (60 benign corpus entries), and
    on 1 MB of the same text joined, against one plain regex pass."""
    entries = _benign_texts()[:60]
    joined = "\n".join(_benign_texts()) + "\n"
    megabyte = (joined * (1_000_000 // len(joined) + 1))[:1_000_000]
    baseline = _best(lambda: re.search(r"\bzzqq\w+", megabyte), repeat)
    print(f"\n1 MB of benign corpus text; baseline one re.search pass {baseline * 1e3:.1f} ms")
    scanner.clear_memo()
    start = time.perf_counter()
    for entry in entries:
        scan(entry)
    print(f"{'scan':18} per entry cold {(time.perf_counter() - start) / len(entries) * 1e6:7.1f} us")
    for name, fn in (("scan", scan), ("redact_secrets", redact_secrets), ("asks_not_to_keep", asks_not_to_keep),
                     ("strip_private", strip_private), ("clean_for_context", clean_for_context),
                     ("find_dangers", find_dangers)):
        per_entry = _best(lambda: [fn(entry) for entry in entries], repeat) / len(entries)
        big = _best(lambda: fn(megabyte), max(2, repeat // 10))
        print(f"{name:18} per entry warm {per_entry * 1e6:7.1f} us   1 MB {big * 1e3:8.1f} ms"
              f" = {big / baseline:6.1f}x one regex pass")


if __name__ == "__main__":
    main()
