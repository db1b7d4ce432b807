"""Benchmark: guards derived from lesson texts, checked against a labelled
corpus of ordinary tool calls — precision, recall and speed.

    python tests/benchmarks/guards.py            # full run (a few seconds)
    python tests/benchmarks/guards.py --quick    # CI smoke run
    python tests/benchmarks/guards.py --misses   # also list every wrong answer

What is measured
- **Derivation** (``derive_guard``) over tests/data/guard_lessons.jsonl: the
  lessons that must become a guard and those that must stay memories.
- **Stops**: every lesson that derives becomes a ``Guard`` in its scope
  (project lessons under their project root, global ones everywhere); each
  call of tests/data/guard_corpus.jsonl (Claude Code, Codex, Hermes and pi
  tool shapes) is normalised and checked against all of them at once. A call
  labelled with the lessons it breaks is a TP when one of those guards
  fires, else a FN; a call that breaks none is a FP when any guard fires,
  else a TN. False-stop rate = FP / (FP + TN); stop rate = TP / (TP + FN).
  Targets: ≤ 1 % and ≥ 95 %. "wrong-guard fires" counts (call, guard) pairs
  that fired without the label, on any call.
- **Speed**: per call, ``normalize_call`` + ``GuardSet.check`` against all
  guards; the baseline, same run, same calls, is ``shlex.split`` of the
  command string (for edit tools: of the file path). Reported: mean and p99
  µs per call and the ratio to the baseline mean. Also ``check`` alone on
  calls normalised beforehand, and the time to build the ``GuardSet``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "extension"))

from tacit.guards import Guard, GuardSet, derive_guard, normalize_call  # noqa: E402

DATA = ROOT / "tests" / "data"


def load(name: str) -> list[dict]:
    with open(DATA / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def build_guards(lessons: list[dict]):
    """(guards, derivation report) — ids are the lesson ids."""
    guards, wrong = [], []
    for lesson in lessons:
        spec = derive_guard(lesson["text"])
        if (spec is not None) != lesson["derives"]:
            wrong.append((lesson["id"], lesson["text"], spec))
        if spec is not None and lesson["derives"]:
            root = lesson["project"] if lesson["scope"] == "project" else None
            guards.append(Guard(spec, lesson["id"], lesson["scope"], root, f"lesson:{lesson['id']}"))
    return guards, wrong


def to_call(case: dict):
    return normalize_call(case["tool"], case["args"], case["cwd"], project_root=case.get("project"),
                          branch=case.get("branch"))


def evaluate(guard_set: GuardSet, corpus: list[dict]) -> dict:
    table = Counter()
    per_lesson = defaultdict(Counter)
    per_host = defaultdict(Counter)
    wrong_fires = []
    misses, false_stops = [], []
    for case in corpus:
        fired = {hit.guard.id for hit in guard_set.check(to_call(case))}
        want = set(case["breaks"])
        if want:
            outcome = "TP" if fired & want else "FN"
        else:
            outcome = "FP" if fired else "TN"
        table[outcome] += 1
        per_host[case["host"]][outcome] += 1
        if outcome == "FN":
            misses.append((case, fired))
        elif outcome == "FP":
            false_stops.append((case, fired))
        for lesson in want:
            per_lesson[lesson]["cases"] += 1
            per_lesson[lesson]["stopped"] += lesson in fired
        for lesson in fired - want:
            per_lesson[lesson]["wrong"] += 1
            wrong_fires.append((case, lesson))
    return {"table": table, "per_lesson": per_lesson, "per_host": per_host,
            "wrong_fires": wrong_fires, "misses": misses, "false_stops": false_stops}


def rates(table: Counter) -> tuple[float, float]:
    negatives = table["FP"] + table["TN"]
    positives = table["TP"] + table["FN"]
    return (table["FP"] / negatives if negatives else 0.0,
            table["TP"] / positives if positives else 0.0)


def baseline_text(case: dict) -> str:
    args = case["args"]
    for key in ("command", "cmd", "file_path", "path", "notebook_path", "input", "patch"):
        value = args.get(key)
        if isinstance(value, list):
            return " ".join(value)
        if isinstance(value, str):
            return value
    action = args.get("action")
    return " ".join(action["command"]) if isinstance(action, dict) else ""


def time_per_call(fn, items, reps: int) -> list[float]:
    """µs per call for each item: best of ``reps`` passes over all items."""
    best = [float("inf")] * len(items)
    for _ in range(reps):
        for i, item in enumerate(items):
            t = time.perf_counter()
            fn(item)
            dt = time.perf_counter() - t
            if dt < best[i]:
                best[i] = dt
    return [b * 1e6 for b in best]


def shlex_baseline(text: str) -> None:
    try:
        shlex.split(text)
    except ValueError:
        pass


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer timing passes")
    ap.add_argument("--misses", action="store_true", help="list every wrong answer")
    opts = ap.parse_args()
    lessons = load("guard_lessons.jsonl")
    corpus = load("guard_corpus.jsonl")
    guards, wrong_derivations = build_guards(lessons)
    guard_set = GuardSet(guards)

    must = [lesson for lesson in lessons if lesson["derives"]]
    plain = [lesson for lesson in lessons if not lesson["derives"]]
    print(f"Derivation: {len(must)} lessons that must become guards, {len(plain)} that must stay memories")
    print(f"  derived as expected: {len(lessons) - len(wrong_derivations)}/{len(lessons)}")
    for lid, text, spec in wrong_derivations:
        print(f"  WRONG {lid}: {text!r} -> {spec}")

    result = evaluate(guard_set, corpus)
    table = result["table"]
    false_stop, stop = rates(table)
    breaking = table["TP"] + table["FN"]
    print(f"\nCorpus: {len(corpus)} calls, {breaking} break a guard, {len(corpus) - breaking} break none; "
          f"{len(guards)} guards")
    print("\n                     stopped   not stopped")
    print(f"  breaks a guard     TP {table['TP']:4d}   FN {table['FN']:4d}")
    print(f"  breaks none        FP {table['FP']:4d}   TN {table['TN']:4d}")
    print(f"\n  false-stop rate  {false_stop:6.2%}   (target <= 1%)")
    print(f"  stop rate        {stop:6.2%}   (target >= 95%)")
    print(f"  wrong-guard fires {len(result['wrong_fires'])} (call, guard) pairs")

    print("\nPer lesson                                          cases stopped wrong")
    by_id = {lesson["id"]: lesson for lesson in lessons}
    for lid in [lesson["id"] for lesson in must]:
        c = result["per_lesson"][lid]
        text = by_id[lid]["text"]
        print(f"  {lid} {text[:44]:44s} {c['cases']:5d} {c['stopped']:7d} {c['wrong']:5d}")
    print("\nPer host      TP   FN   FP   TN")
    for host in sorted(result["per_host"]):
        c = result["per_host"][host]
        print(f"  {host:8s} {c['TP']:4d} {c['FN']:4d} {c['FP']:4d} {c['TN']:4d}")

    if opts.misses or table["FN"] or table["FP"]:
        print("\nMisses (FN) and false stops (FP):")
        for case, fired in result["misses"]:
            print(f"  FN #{case['id']} {case['tool']} {baseline_text(case)!r} wants {case['breaks']}, "
                  f"fired {sorted(fired)}  {case.get('note', '')}")
        for case, fired in result["false_stops"]:
            print(f"  FP #{case['id']} {case['tool']} {baseline_text(case)!r} fired {sorted(fired)}"
                  f"  {case.get('note', '')}")
        if opts.misses:
            for case, lesson in result["wrong_fires"]:
                print(f"  wrong guard #{case['id']} {baseline_text(case)!r} fired {lesson}")

    reps = 3 if opts.quick else 15
    texts = [baseline_text(case) for case in corpus]
    calls = [to_call(case) for case in corpus]
    ours = time_per_call(lambda case: guard_set.check(to_call(case)), corpus, reps)
    check_only = time_per_call(guard_set.check, calls, reps)
    base = time_per_call(shlex_baseline, texts, reps)
    t = time.perf_counter()
    for _ in range(100):
        GuardSet(guards)
    build_ms = (time.perf_counter() - t) / 100 * 1e3
    print(f"\nSpeed, per call, {len(guards)} guards, best of {reps} passes over {len(corpus)} calls:")
    print(f"  normalize + check   mean {statistics.fmean(ours):7.1f} us   p99 {p99(ours):7.1f} us   "
          f"max {max(ours):7.1f} us")
    print(f"  check alone         mean {statistics.fmean(check_only):7.1f} us   p99 {p99(check_only):7.1f} us")
    print(f"  baseline shlex.split mean {statistics.fmean(base):6.1f} us   p99 {p99(base):7.1f} us")
    print(f"  ratio to baseline   {statistics.fmean(ours) / statistics.fmean(base):.2f}x (mean)")
    print(f"  GuardSet build      {build_ms:.3f} ms")


if __name__ == "__main__":
    main()
