"""Benchmark: guards from real rule lines and typed lessons, per split (check
first, then tune), and from the old self-written corpus (docs/guards.md,
"How well it works").

    python tests/benchmarks/guards.py              # check, tune, old corpus
    python tests/benchmarks/guards.py --split check --misses --no-old
    python tests/benchmarks/guards.py --quick      # fewer timing passes

Real: tests/data/guard_rules_real.jsonl (sources and labelling in its
SOURCES.md) and guard_lessons_real.jsonl; each repository's lines are one
project's GuardSet. Old: guard_lessons.jsonl derived, guard_corpus.jsonl
checked against all of them (TP/FN/FP/TN), and the check's cost per call as
a ratio to a bare ``shlex.split`` measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "extension"))

from tacit.guards import Guard, GuardSet, derive_guard, derive_guards, normalize_call, spec_from_pattern  # noqa: E402
from tacit.stores.guard_files import applies_at  # noqa: E402

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


REAL_ROOT = "/repo"
try:  # the instruction-file reader, where tacit has one
    from tacit.guards.instructions import rules_in  # type: ignore
except ImportError:  # pragma: no cover - older code reads a line as a lesson
    rules_in = None
try:  # the lines put to the rule-reading child, where tacit has one
    from tacit.guards.instructions import read_text  # type: ignore
    from tacit.guards.why import ungrounded  # type: ignore
    from tacit.guards.instructions import refusing_text, unread_rule  # type: ignore
    from tacit.guards.clauses import clean_line  # type: ignore
except ImportError:  # pragma: no cover
    read_text = unread_rule = None


def line_specs(text: str) -> list:
    """The guard specs tacit derives from one instruction-file line."""
    if rules_in is not None:
        try:
            return [rule.spec for rule in rules_in(text, "AGENTS.md")]
        except Exception:  # a refused line derives nothing  # noqa: BLE001
            return []
    return list(derive_guards(text))


def row_folder(row: dict) -> str:
    """Where tacit places a row's guards: below the folder its instruction
    file applies to (``packages/web/AGENTS.md`` → ``/repo/packages/web``)."""
    below = applies_at(row["path"]) if "path" in row else ""
    return f"{REAL_ROOT}/{below}" if below else REAL_ROOT


def real_call(entry: dict, folder: str = REAL_ROOT):
    """A labelled call, run from ``folder`` (the row's file's folder, where an
    agent works when that file's rules are in play); a command that names a
    path below the folder from the root (``web/src/x``) was written from the
    repository root and runs there."""
    cwd = folder
    command = entry["args"].get("command")
    if folder != REAL_ROOT and isinstance(command, str) and folder[len(REAL_ROOT) + 1:] + "/" in command:
        cwd = REAL_ROOT
    return normalize_call(entry["tool"], entry["args"], cwd, project_root=REAL_ROOT, branch=entry.get("branch"),
                          exists=KNOWN.__contains__)


# the files of the labelled world: those a labelled call reads or edits (a Write
# alone may make a new one), for guards on existing files only
KNOWN: set = set()
_KNOWING_TOOLS = ("Read", "Edit", "MultiEdit", "NotebookEdit")


def know(items: list[dict]) -> None:
    for item in items:
        for entry in item.get("violations", []) + item.get("fine", []):
            path = entry.get("args", {}).get("file_path")
            if entry.get("tool") in _KNOWING_TOOLS and isinstance(path, str):
                KNOWN.add(path)


def call_text(entry: dict) -> str:
    args = entry["args"]
    where = f" @{entry['branch']}" if entry.get("branch") else ""
    return f"{entry['tool']} {args.get('command', args.get('file_path', ''))}{where}"


def pct(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:6.1%}" if whole else f"{part}/0"


def repo_guard_sets(rows: list[dict], specs_of) -> dict:
    """One GuardSet per repository: every guard its rows derive (ids: row ids)."""
    guards = defaultdict(list)
    for row in rows:
        for spec in specs_of(row):
            guards[row["repo"]].append(Guard(spec, row["id"], "project", row_folder(row),
                                             f"{row['path']}:{row['line']}"))
    return {repo: GuardSet(found) for repo, found in guards.items()}


def stopped(sets: dict, repo: str, entry: dict, folder: str = REAL_ROOT) -> set:
    guard_set = sets.get(repo)
    return {hit.guard.id for hit in guard_set.check(real_call(entry, folder))} if guard_set else set()


def score_rows(rows: list[dict], specs: dict, sets: dict, key: str = "id") -> dict:
    """Counts over labelled rows (rule lines or lessons) whose guards are in ``sets``."""
    c = Counter()
    wrong = defaultdict(list)
    for row in rows:
        derived = bool(specs[row[key]])
        shaped = row.get("has_shape", True) and not row.get("exception", False)
        if shaped:
            c["shape"] += 1
            c["shape_guard"] += derived
            if not derived:
                wrong["not derived"].append(row)
            for v in row["violations"]:
                hit = stopped(sets, row["repo"], v, row_folder(row))
                c["viol"] += 1
                c["viol_stopped"] += bool(hit)
                c["viol_own"] += row[key] in hit
                if derived:
                    c["viol_of_guards"] += 1
                    c["viol_of_guards_stopped"] += bool(hit)
                if not hit:
                    wrong["violation not stopped"].append((row, v))
        elif row.get("exception"):
            c["exception"] += 1
            c["exception_guard"] += derived
            if derived:
                wrong["exception became a guard"].append(row)
        else:
            c["noshape"] += 1
            c["noshape_guard"] += derived
            if derived:
                wrong["no-shape became a guard"].append(row)
        for f in row["fine"]:
            hit = stopped(sets, row["repo"], f, row_folder(row))
            c["fine"] += 1
            c["fine_stopped"] += bool(hit)
            if hit:
                wrong["fine stopped"].append((row, f, sorted(hit)))
    return {"c": c, "wrong": wrong}


def print_misses(wrong: dict, limit: int | None) -> None:
    for what, items in wrong.items():
        print(f"    {what}: {len(items)}")
        for item in items[:limit]:
            row = item[0] if isinstance(item, tuple) else item
            extra = f"  -> {call_text(item[1])}" if isinstance(item, tuple) else ""
            extra += f"  by {item[2]}" if isinstance(item, tuple) and len(item) > 2 else ""
            print(f"      {row['id']} {row['text'][:90]!r}{extra}")


def print_rounds(part: list[dict], specs: dict, sets: dict, from_row: int) -> None:
    """The same figures for the rows before row ``from_row`` and from it on (a later round)."""
    for name, rows in (("earlier rows", [r for r in part if int(r["id"][1:]) < from_row]),
                       (f"rows R{from_row}+", [r for r in part if int(r["id"][1:]) >= from_row])):
        c = score_rows(rows, specs, sets)["c"]
        print(f"  {name}: shape lines -> guards {pct(c['shape_guard'], c['shape'])}; violations stopped "
              f"{pct(c['viol_stopped'], c['viol'])}; fine stopped {pct(c['fine_stopped'], c['fine'])}; "
              f"no-shape -> guards {pct(c['noshape_guard'], c['noshape'])}; exception -> guards "
              f"{pct(c['exception_guard'], c['exception'])}")


def rules_section(rows: list[dict], split: str, misses: bool, from_row: int | None = None) -> dict:
    part = [row for row in rows if row["split"] == split]
    specs = {row["id"]: line_specs(row["text"]) for row in part}
    sets = repo_guard_sets(part, lambda row: specs[row["id"]])
    result = score_rows(part, specs, sets)
    c = result["c"]
    repos = len({row["repo"] for row in part})
    print(f"\n== Real rule lines, {split} split: {len(part)} lines from {repos} repositories "
          f"({sum(len(s) for s in specs.values())} guards) ==")
    print(f"  shape lines that became guards      {pct(c['shape_guard'], c['shape'])}   (target >= 60%)")
    print(f"  their violations stopped (all)       {pct(c['viol_stopped'], c['viol'])}")
    print(f"    of lines that became guards        {pct(c['viol_of_guards_stopped'], c['viol_of_guards'])}   (target >= 90%)")
    print(f"    by the line's own guard            {pct(c['viol_own'], c['viol'])}")
    print(f"  fine calls stopped                   {pct(c['fine_stopped'], c['fine'])}   (target <= 1%)")
    print(f"  no-shape lines that became guards    {pct(c['noshape_guard'], c['noshape'])}   (want 0)")
    print(f"  exception lines that became guards   {pct(c['exception_guard'], c['exception'])}   (want 0: vetoed)")
    if from_row:
        print_rounds(part, specs, sets, from_row)
    if misses:
        print_misses(result["wrong"], None)
    if read_text is not None and LESSONS_BY_ROW:
        reader_section(part, specs)
    return c


LESSONS_BY_ROW: dict = {}  # row id -> its bare lesson (guard_lessons_real.jsonl), for the reader's oracle


def unread(text: str) -> bool:
    try:
        return bool(read_text(text, "AGENTS.md")[1])
    except Exception:  # noqa: BLE001 — a refused line goes to no one
        return False


def reader_section(part: list[dict], specs: dict) -> None:
    """The lines the rule-reading child is shown (``tacit guard add --line``),
    and an oracle: the child phrases each as the row's bare lesson, and only
    the guards every word of which is in the line are kept (the store's check)."""
    sent = {row["id"] for row in part if not specs[row["id"]] and unread(row["text"])}
    kinds = Counter()
    for row in part:
        kind = "exception" if row.get("exception") else "shape" if row.get("has_shape", True) else "noshape"
        kinds[kind] += 1
        kinds[kind + "_unread_pool"] += not specs[row["id"]]
        kinds[kind + "_sent"] += row["id"] in sent
    print(f"  put to the rule reader (unread): {len(sent)} lines — shape {pct(kinds['shape_sent'], kinds['shape_unread_pool'])} "
          f"of the shape lines not read, no-shape {pct(kinds['noshape_sent'], kinds['noshape'])}, exception "
          f"{pct(kinds['exception_sent'], kinds['exception'])}")
    oracle = dict(specs)
    for row in part:
        lesson = LESSONS_BY_ROW.get(row["id"])
        if row["id"] in sent and lesson:
            oracle[row["id"]] = [s for s in derive_guards(lesson) if not ungrounded(s, refusing_text(row["text"]))]
    c = score_rows(part, oracle, repo_guard_sets(part, lambda row: oracle[row["id"]]))["c"]
    print(f"  oracle reader (each sent line phrased as its bare lesson, kept if grounded): shape lines -> guards "
          f"{pct(c['shape_guard'], c['shape'])}; violations stopped {pct(c['viol_stopped'], c['viol'])}; fine stopped "
          f"{pct(c['fine_stopped'], c['fine'])}")
    alone, kinds = {}, Counter()  # routing alone: as if no reading derived a guard, every line put to the reader or not
    for row in part:
        kind = "exception" if row.get("exception") else "shape" if row.get("has_shape", True) else "noshape"
        shown = " ".join(clean_line(row["text"].strip()).replace("**", "").split())
        sent_alone = unread_rule(shown)
        kinds[kind] += 1
        kinds[kind + "_sent"] += sent_alone
        lesson = LESSONS_BY_ROW.get(row["id"])
        alone[row["id"]] = [s for s in derive_guards(lesson) if not ungrounded(s, refusing_text(shown))] \
            if sent_alone and lesson else []
    c = score_rows(part, alone, repo_guard_sets(part, lambda row: alone[row["id"]]))["c"]
    print(f"  routing alone (as if no reading derived a guard): sent shape {pct(kinds['shape_sent'], kinds['shape'])}, "
          f"no-shape {pct(kinds['noshape_sent'], kinds['noshape'])}, exception "
          f"{pct(kinds['exception_sent'], kinds['exception'])}; its oracle: shape lines -> guards "
          f"{pct(c['shape_guard'], c['shape'])}, fine stopped {pct(c['fine_stopped'], c['fine'])}")
    naive = dict(specs)  # a careless reader: the first quoted name of every line sent, as the test's fake agent does
    for row in part:
        if row["id"] in sent:
            quoted = re.findall(r"`([^`]+)`", row["text"])
            name = quoted[0] if quoted else ""
            pattern = f"path:{name}" if ("/" in name or "." in name) and " " not in name else name
            spec = spec_from_pattern(pattern, row["text"]) if name else None
            naive[row["id"]] = [spec] if spec is not None and not ungrounded(spec, refusing_text(row["text"])) else []
    c = score_rows(part, naive, repo_guard_sets(part, lambda row: naive[row["id"]]))["c"]
    print(f"  careless reader (the first quoted name of each line sent, kept if grounded): shape lines -> guards "
          f"{pct(c['shape_guard'], c['shape'])}; violations stopped {pct(c['viol_stopped'], c['viol'])}; fine stopped "
          f"{pct(c['fine_stopped'], c['fine'])}; no-shape lines -> guards {pct(c['noshape_guard'], c['noshape'])}")


def lessons_section(lessons: list[dict], split: str, misses: bool) -> dict:
    part = [lesson for lesson in lessons if lesson["split"] == split]
    specs = {lesson["id"]: list(derive_guards(lesson["text"])) for lesson in part}
    by_kind = defaultdict(list)
    for lesson in part:
        by_kind[lesson["kind"]].append(lesson)
    print(f"\n== Lessons as people type them, {split} split: {len(part)} lessons from "
          f"{len({lesson['source'] for lesson in part})} rule lines ==")
    print("  kind        derived            violations stopped   fine stopped")
    out, reader = {}, {}
    for kind in ("bare", "reason", "polite", "emphasis", "exception"):
        group = by_kind.get(kind, [])
        if not group:
            continue
        # each lesson alone in its project: what that one lesson stops
        sets = {lesson["id"]: GuardSet([Guard(spec, lesson["id"], "project", REAL_ROOT, "lesson")
                                        for spec in specs[lesson["id"]]]) for lesson in group}
        c = Counter()
        wrong = defaultdict(list)
        for lesson in group:
            derived = bool(specs[lesson["id"]])
            c["n"] += 1
            c["derived"] += derived
            if derived != (kind != "exception"):
                wrong["derived" if derived else "not derived"].append(lesson)
            for v in lesson["violations"] if kind != "exception" else ():
                hit = stopped(sets, lesson["id"], v)
                c["viol"] += 1
                c["viol_stopped"] += bool(hit)
            for f in lesson["fine"]:
                hit = stopped(sets, lesson["id"], f)
                c["fine"] += 1
                c["fine_stopped"] += bool(hit)
                if hit:
                    wrong["fine stopped"].append((lesson, f))
        out[kind] = c
        label = "vetoed" if kind == "exception" else "derived"
        shown = c["n"] - c["derived"] if kind == "exception" else c["derived"]
        viol = pct(c["viol_stopped"], c["viol"]) if kind != "exception" else "-"
        print(f"  {kind:10s}  {label} {pct(shown, c['n']):18s} {viol:20s} {pct(c['fine_stopped'], c['fine'])}")
        if misses:
            print_misses(wrong, None)
        if unread_rule is not None:
            pool = [lesson for lesson in group if not specs[lesson["id"]]]
            sent = sum(unread_rule(lesson["text"]) for lesson in pool)
            reader[kind] = f"{kind} {pct(sent, len(pool))}"
    if reader:
        print("  not derived, put to the rule reader: " + "; ".join(reader.values()) + "  (exception: want 0)")
    if out.get("bare"):
        base = out["bare"]["derived"] / out["bare"]["n"]
        for kind in ("reason", "polite", "emphasis"):
            if out.get(kind):
                rate = out[kind]["derived"] / out[kind]["n"]
                print(f"  {kind} vs bare: {rate:6.1%} vs {base:6.1%} (target: as often)")
    return out


def self_written(opts) -> None:
    print("\n== Self-written corpus (guard_lessons.jsonl, guard_corpus.jsonl) ==")
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer timing passes")
    ap.add_argument("--misses", action="store_true", help="list every wrong answer")
    ap.add_argument("--split", choices=("check", "tune", "both"), default="both",
                    help="which part of the real corpus to report (default: check, then tune)")
    ap.add_argument("--no-old", action="store_true", help="skip the self-written corpus")
    ap.add_argument("--from-row", type=int, default=None,
                    help="also report rows before R<N> and from R<N> on (a later round) apart")
    opts = ap.parse_args()
    rows = load("guard_rules_real.jsonl")
    lessons = load("guard_lessons_real.jsonl") if (DATA / "guard_lessons_real.jsonl").exists() else []
    know(rows + lessons)
    LESSONS_BY_ROW.update({lesson["source"]: lesson["text"] for lesson in lessons if lesson["kind"] == "bare"})
    for split in (("check", "tune") if opts.split == "both" else (opts.split,)):
        rules_section(rows, split, opts.misses, opts.from_row)
        if lessons:
            lessons_section(lessons, split, opts.misses)
    if not opts.no_old:
        self_written(opts)


if __name__ == "__main__":
    main()
