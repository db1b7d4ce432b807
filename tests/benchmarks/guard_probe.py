"""Benchmark: guards from a fresh probe of real rule lines, per probe.

    python tests/benchmarks/guard_probe.py                 # every probe file
    python tests/benchmarks/guard_probe.py --misses        # and each miss

A probe file (tests/data/guard_probe_*.jsonl) has the rows of
guard_rules_real.jsonl, each with ``probe`` (A, B, …) in place of ``split``.
Probe A is the one readings may be written from; the others stay untouched, so
their figures tell whether a reading generalises. guard_probe_rules14.jsonl is
split by repository into C1 (readings may be written from it) and C2 (untouched). Scored as guards.py scores a
split: each repository's lines are one project's GuardSet.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from guards import DATA, know, line_specs, pct, print_misses, repo_guard_sets, score_rows  # noqa: E402


def probe_section(rows: list[dict], name: str, misses: bool) -> dict:
    specs = {row["id"]: line_specs(row["text"]) for row in rows}
    sets = repo_guard_sets(rows, lambda row: specs[row["id"]])
    result = score_rows(rows, specs, sets)
    c = result["c"]
    print(f"\n== {name}: {len(rows)} lines from {len({row['repo'] for row in rows})} repositories ==")
    print(f"  shape lines that became guards      {pct(c['shape_guard'], c['shape'])}")
    print(f"  their violations stopped             {pct(c['viol_stopped'], c['viol'])}")
    print(f"  fine calls stopped                   {pct(c['fine_stopped'], c['fine'])}")
    print(f"  no-shape lines that became guards    {pct(c['noshape_guard'], c['noshape'])}")
    print(f"  exception lines that became guards   {pct(c['exception_guard'], c['exception'])}")
    if misses:
        print_misses(result["wrong"], None)
    return c


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--misses", action="store_true")
    opts = ap.parse_args()
    for path in sorted(DATA.glob("guard_probe_*.jsonl")):
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        know(rows)
        for probe in sorted({row["probe"] for row in rows}):
            probe_section([row for row in rows if row["probe"] == probe], f"{path.stem} probe {probe}", opts.misses)


if __name__ == "__main__":
    main()
