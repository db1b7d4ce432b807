"""What guards derive and stop over every guard corpus, as one file to compare.

    python tests/benchmarks/guard_fingerprint.py --out /tmp/before.txt
    python tests/benchmarks/guard_fingerprint.py --compare /tmp/before.txt

For a change meant to keep behaviour (a refactor, a trim): every rule line's
and lesson's derived specs, and the guards each labelled call fires, are
written one item a line. ``--compare`` prints how many items differ per part
and names only the tune and self-written ones (check rows are never shown).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import guards as bench  # noqa: E402  (tests/benchmarks/guards.py)


def items() -> list[tuple[str, str, str]]:
    """(part, id, fingerprint) for every derivation and labelled call."""
    out = []
    rows = bench.load("guard_rules_real.jsonl")
    lessons = bench.load("guard_lessons_real.jsonl")
    bench.know(rows + lessons)
    specs = {row["id"]: bench.line_specs(row["text"]) for row in rows}
    sets = bench.repo_guard_sets(rows, lambda row: specs[row["id"]])
    for row in rows:
        out.append((row["split"], row["id"], repr(specs[row["id"]])))
        folder = bench.row_folder(row)
        for n, entry in enumerate(row.get("violations", []) + row.get("fine", [])):
            out.append((row["split"], f"{row['id']}#{n}", repr(sorted(bench.stopped(sets, row["repo"], entry, folder)))))
    for lesson in lessons:
        found = list(bench.derive_guards(lesson["text"]))
        out.append((lesson["split"], lesson["id"], repr(found)))
        one = {lesson["id"]: bench.GuardSet([bench.Guard(spec, lesson["id"], "project", bench.REAL_ROOT, "lesson")
                                             for spec in found])}
        for n, entry in enumerate(lesson["violations"] + lesson["fine"]):
            out.append((lesson["split"], f"{lesson['id']}#{n}", repr(sorted(bench.stopped(one, lesson["id"], entry)))))
    old = bench.load("guard_lessons.jsonl")
    guards, _ = bench.build_guards(old)
    for lesson in old:
        out.append(("self", lesson["id"], repr(bench.derive_guard(lesson["text"]))))
    guard_set = bench.GuardSet(guards)
    for case in bench.load("guard_corpus.jsonl"):
        out.append(("self", f"corpus{case['id']}", repr(sorted(hit.guard.id for hit in guard_set.check(bench.to_call(case))))))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="write the fingerprint here")
    ap.add_argument("--compare", help="compare with a fingerprint written before")
    opts = ap.parse_args()
    now = items()
    lines = [f"{part}\t{key}\t{value}" for part, key, value in now]
    if opts.out:
        Path(opts.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{len(lines)} items written to {opts.out}")
    if opts.compare:
        before = {}
        for line in Path(opts.compare).read_text(encoding="utf-8").splitlines():
            part, key, value = line.split("\t", 2)
            before[(part, key)] = value
        after = {(part, key): value for part, key, value in now}
        differ = Counter()
        for key in sorted(set(before) | set(after)):
            if before.get(key) != after.get(key):
                differ[key[0]] += 1
                if key[0] != "check":
                    print(f"  differs {key[0]} {key[1]}: {before.get(key)} -> {after.get(key)}")
        total = sum(differ.values())
        print(f"{len(after)} items, {total} differ" + (f" ({dict(differ)})" if total else " (identical)"))


if __name__ == "__main__":
    main()
