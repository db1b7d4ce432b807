"""Benchmark: how well tacit's detectors do on REAL users' messages, before and after issue 16.

    python tests/benchmarks/quality.py                 # check split (the figures to report) + tune split
    python tests/benchmarks/quality.py --part tune     # tune split only (what tuning may look at)
    python tests/benchmarks/quality.py --part check

Data: ``<repo>/../shared/data/real`` (or ``TACIT_REAL_DATA``): labelled user
messages with the agent's previous reply, labelled agent replies. When the
folder is absent this prints why and exits 0. Split by repository, fixed in
``tests/data/real_split.json`` (see ``real_data.py``); the weights were
trained on the tune part only.

Per part it prints precision / recall / F1 of
- **corrections** (``correction_class == correction``): the original regex
  rule, the detector as of 74d60c6 (both from the frozen copy in
  ``original_detectors/``), and :func:`tacit.detect.analysis.analyse`; plus
  the best operating points the new score allows (precision at recall ≥ 0.55,
  recall at precision ≥ 0.60);
- **failure reports** (new only: the original had none);
- **durable statements** (``memory_category != none``) and their category:
  macro-F1 over preference / decision / goal / fact counted over all rows,
  and the category accuracy among durable statements found;
- **fix statements** in agent replies, and how well the extracted problem /
  solution overlap the labelled spans;
- **review highlighting**: among messages with ``lesson_score`` at or above
  the threshold, the share of real lessons (corrections + durable
  statements), the share of lessons highlighted, and how many reviews per
  100 user messages the trigger rule (:func:`tacit.detect.analysis.review_due`:
  highlighted lesson scores since the last review add up to
  ``REVIEW_BUDGET``) starts over every user message of the part, grouped by
  source file as pseudo-sessions, and the share of labelled lessons that a
  review started after them would see (lessons after a file's last review
  are missed: a session-end review would catch them);
- **speed**: median and p95 of ``analyse`` and ``detect_fix`` per message.

Every figure is printed for all rows and for ``label_confidence: high`` rows only.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "extension"))
sys.path.insert(0, str(HERE))

import real_data  # noqa: E402
from original_detectors import correction as old_correction  # noqa: E402
from original_detectors import fix as old_fix  # noqa: E402
from original_detectors import importance as old_importance  # noqa: E402
from tacit.detect import analysis  # noqa: E402
from tacit.detect.fix import detect_fix, fix_score  # noqa: E402
from tacit.handlers.review import END_BUDGET, _durable_now  # noqa: E402

CATEGORIES = ("preference", "decision", "goal", "fact")
TARGETS = {
    "correction": (0.60, 0.55),
    "durable": (0.65, 0.55),
    "fix": (0.85, 0.55),
    "category_macro_f1": 0.50,
    # issue 22: lessons highlighted (recall, at most this share of messages highlighted)
    "highlight": (0.90, 0.30),
}


def prf(pred, gold):
    tp = sum(1 for p, g in zip(pred, gold) if p and g)
    fp = sum(1 for p, g in zip(pred, gold) if p and not g)
    fn = sum(1 for p, g in zip(pred, gold) if g and not p)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"p": precision, "r": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn, "n": len(gold)}


def operating_points(scores, gold, min_recall: float, min_precision: float):
    """(best precision with recall ≥ min_recall, best recall with precision ≥ min_precision)."""
    best_p, best_r = None, None
    for t in sorted(set(round(s, 4) for s in scores)):
        m = prf([s >= t for s in scores], gold)
        if m["r"] >= min_recall and (best_p is None or m["p"] > best_p["p"]):
            best_p = dict(m, t=t)
        if m["p"] >= min_precision and m["tp"] >= 3 and (best_r is None or m["r"] > best_r["r"]):
            best_r = dict(m, t=t)
    return best_p, best_r


def highlight_points(scores, gold) -> dict:
    """The lesson score's other operating points: the recall when at most the
    target share of messages is highlighted, and the share needed for the target recall."""
    want_recall, max_share = TARGETS["highlight"]
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    positives = sum(gold) or 1
    tp, recall_at_share, share_for_recall = 0, 0.0, 1.0
    for rank, i in enumerate(order, 1):
        tp += bool(gold[i])
        cut = rank == len(order) or scores[order[rank]] != scores[i]  # ties are highlighted together
        if cut and rank <= max_share * len(order):
            recall_at_share = tp / positives
        if cut and tp / positives >= want_recall and share_for_recall == 1.0:
            share_for_recall = rank / len(order)
    return {"recall_at_share": recall_at_share, "share_for_recall": share_for_recall}


def _tokens(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9_]{3,}", (text or "").lower()))


def _overlap(found: str, gold: str) -> float:
    a, b = _tokens(found), _tokens(gold)
    return len(a & b) / len(b) if b else 0.0


def _same_day_step(a, text: str, lesson: bool, kept: list, tally: dict, budget: float) -> None:
    """One user message under the same-day rule of ``tacit.handlers.review`` (issue 22): a
    correction is saved by its own child; another highlighted message waits for a review, which
    starts when a durable statement waits or the highlights add up (at the turn's end; a review
    still running is not modelled), and at the session's end for what is left."""
    if a.is_correction:
        tally["saves"] += 1
        tally["reached"] += lesson
        return
    if not a.highlight:
        return
    kept.append({"score": a.lesson_score, "durable": _durable_now(a, text), "lesson": lesson})
    tally["reached"] += lesson  # reaches a review at its turn's end or the session's (unless left below END_BUDGET)
    if any(h["durable"] for h in kept) or analysis.review_due([h["score"] for h in kept], budget):
        tally["reviews"] += 1
        kept.clear()


def by_source(rows: list[dict]) -> dict[str, list[dict]]:
    """User messages grouped by source file (the pseudo-sessions), each in order."""
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(r["source"], []).append(r)
    for group in out.values():
        group.sort(key=lambda r: r["id"])
    return out


def simulate_trigger(sources: dict[str, list[dict]], analyse, budget: float | None = None,
                     end_budget: float | None = None) -> dict:
    """The trigger rule and the same-day rule over every pseudo-session (``analyse(row)`` gives a
    row's :class:`MessageAnalysis`; the budgets default to the shipped ones)."""
    budget = analysis.REVIEW_BUDGET if budget is None else budget
    end_budget = END_BUDGET if end_budget is None else end_budget
    reviews, messages, lessons, covered = 0, 0, 0, 0
    same_day = {"reviews": 0, "end_reviews": 0, "saves": 0, "reached": 0}
    for rows in sources.values():
        pending: list[float] = []
        waiting = 0  # labelled lessons since the last review
        kept: list[dict] = []  # the same-day rule's highlights not covered yet
        for r in rows:
            messages += 1
            lesson = r.get("correction_class") == "correction" or r.get("memory_category") not in (None, "none")
            if lesson:
                lessons += 1
                waiting += 1
            a = analyse(r)
            pending.append(a.lesson_score)
            if analysis.review_due(pending, budget):
                reviews += 1
                covered += waiting
                pending, waiting = [], 0
            _same_day_step(a, r["text"], lesson, kept, same_day, budget)
        if kept and sum(h["score"] for h in kept) >= end_budget:  # the session's end reviews what is left
            same_day["end_reviews"] += 1
        elif kept:
            same_day["reached"] -= sum(h["lesson"] for h in kept)
    return {"messages": messages, "sessions": len(sources), "reviews": reviews,
            "per_100": 100.0 * reviews / messages if messages else 0.0,
            "budget": budget, "end_budget": end_budget, "lessons": lessons,
            "covered": covered / lessons if lessons else 0.0,
            "same_day": dict(same_day, reached=same_day["reached"] / lessons if lessons else 0.0)}


def evaluate(part: str) -> dict:
    """All figures for one part of the split (see the module doc)."""
    out: dict = {"part": part}
    users = real_data.user_rows(part)
    analyses, times = [], []
    for r in users:
        started = time.perf_counter()
        analyses.append(analysis.analyse(r["text"], r["prev_assistant"] or None))
        times.append(time.perf_counter() - started)
    out["n_user"] = len(users)
    high = [r["label_confidence"] == "high" for r in users]

    def both(pred, gold):
        return {"all": prf(pred, gold),
                "high": prf([p for p, h in zip(pred, high) if h], [g for g, h in zip(gold, high) if h])}

    gold_c = [r["correction_class"] == "correction" for r in users]
    out["correction"] = {
        "original rule": both([old_correction.detect_correction_original(r["text"]).is_correction for r in users],
                              gold_c),
        "before (74d60c6)": both([old_correction.detect_correction(r["text"], r["prev_assistant"] or None).is_correction
                                  for r in users], gold_c),
        "after": both([a.is_correction for a in analyses], gold_c),
    }
    out["correction_points"] = operating_points([a.correction.score for a in analyses], gold_c,
                                                TARGETS["correction"][1], TARGETS["correction"][0])
    gold_f = [r["correction_class"] == "failure_report" for r in users]
    out["failure"] = {"after": both([a.failure_report for a in analyses], gold_f)}

    gold_d = [r["memory_category"] != "none" for r in users]
    old_imp = [old_importance.score_importance(r["text"]) for r in users]
    old_cat = [i.category if i.category in CATEGORIES else "none" for i in old_imp]
    new_cat = [a.category for a in analyses]
    out["durable"] = {
        "before (74d60c6)": both([c != "none" for c in old_cat], gold_d),
        "after": both([c != "none" for c in new_cat], gold_d),
    }
    out["durable_points"] = operating_points([a.durable_score for a in analyses], gold_d,
                                             TARGETS["durable"][1], TARGETS["durable"][0])
    gold_cat = [r["memory_category"] for r in users]

    def macro(pred, gold, keep):
        rows = [(p, g) for p, g, k in zip(pred, gold, keep) if k]
        f1s = {c: prf([p == c for p, _ in rows], [g == c for _, g in rows])["f1"] for c in CATEGORIES}
        return sum(f1s.values()) / len(f1s), f1s

    def cat_accuracy(pred, gold, keep):
        rows = [(p, g) for p, g, k in zip(pred, gold, keep) if k and g != "none" and p != "none"]
        return (sum(p == g for p, g in rows) / len(rows) if rows else 0.0), len(rows)

    everyone = [True] * len(users)
    out["category"] = {
        name: {"macro_f1": {"all": macro(pred, gold_cat, everyone), "high": macro(pred, gold_cat, high)},
               "accuracy_found": {"all": cat_accuracy(pred, gold_cat, everyone),
                                  "high": cat_accuracy(pred, gold_cat, high)}}
        for name, pred in (("before (74d60c6)", old_cat), ("after", new_cat))
    }

    # review highlighting and the trigger rule
    gold_l = [c or d for c, d in zip(gold_c, gold_d)]
    highlighted = [a.highlight for a in analyses]
    out["highlight"] = {"threshold": analysis.lesson_threshold(), **both(highlighted, gold_l),
                        "points": highlight_points([a.lesson_score for a in analyses], gold_l)}
    out["reviews"] = simulate_trigger(by_source(real_data.user_rows(part, labelled=False)),
                                      lambda r: analysis.analyse(r["text"], r["prev_assistant"] or None))

    replies = real_data.assistant_rows(part)
    high_a = [r["label_confidence"] == "high" for r in replies]
    gold_x = [bool(r["fix"]) for r in replies]
    fix_times, new_found = [], []
    for r in replies:
        started = time.perf_counter()
        new_found.append(detect_fix(r["text"], r.get("prev_user")))
        fix_times.append(time.perf_counter() - started)
    old_found = [old_fix.detect_fix(r["text"]) for r in replies]

    def both_a(pred, gold):
        return {"all": prf(pred, gold),
                "high": prf([p for p, h in zip(pred, high_a) if h], [g for g, h in zip(gold, high_a) if h])}

    out["n_replies"] = len(replies)
    out["fix"] = {"before (74d60c6)": both_a([f is not None for f in old_found], gold_x),
                  "after": both_a([f is not None for f in new_found], gold_x)}
    out["fix_points"] = operating_points([fix_score(r["text"], r.get("prev_user")) for r in replies], gold_x,
                                         TARGETS["fix"][1], TARGETS["fix"][0])
    spans = [(f, r) for f, r in zip(new_found, replies) if f is not None and r["fix"]]
    out["fix_spans"] = {
        "n": len(spans),
        "problem_overlap": statistics.mean(_overlap(f.problem, r["problem"]) for f, r in spans) if spans else 0.0,
        "solution_overlap": statistics.mean(_overlap(f.solution, r["solution"]) for f, r in spans) if spans else 0.0,
    }
    out["speed_ms"] = {
        "analyse_median": 1000 * statistics.median(times), "analyse_p95": 1000 * sorted(times)[int(0.95 * len(times))],
        "fix_median": 1000 * statistics.median(fix_times), "fix_p95": 1000 * sorted(fix_times)[int(0.95 * len(fix_times))],
    }
    return out


def _fmt(m: dict) -> str:
    return f"P {m['p']:.2f}  R {m['r']:.2f}  F1 {m['f1']:.2f}  (tp {m['tp']}, fp {m['fp']}, fn {m['fn']})"


def _point(label: str, point: dict | None) -> str:
    if point is None:
        return f"    {label}: none"
    return f"    {label}: P {point['p']:.2f}  R {point['r']:.2f}  (score >= {point['t']:.3f})"


def report(res: dict) -> str:
    note = ("  (the weights were trained on these rows: 'after' is in-sample, for reference only; "
            "train_detectors.py prints out-of-fold figures)" if res["part"] == "tune" else "")
    lines = [f"=== {res['part']} split: {res['n_user']} labelled user messages, {res['n_replies']} labelled replies"
             + note]
    for title, key in (("corrections", "correction"), ("failure reports", "failure"),
                       ("durable statements", "durable"), ("fix statements", "fix")):
        target = TARGETS.get(key)
        suffix = f"   [target P >= {target[0]:.2f} at R >= {target[1]:.2f}]" if isinstance(target, tuple) else ""
        lines.append(f"{title}{suffix}")
        for name, m in res[key].items():
            lines.append(f"  {name:17s} all  {_fmt(m['all'])}")
            lines.append(f"  {'':17s} high {_fmt(m['high'])}")
        points = res.get(f"{key}_points")
        if points:
            lines.append("  after, other operating points of the same score (all rows):")
            lines.append(_point(f"best precision at recall >= {target[1]:.2f}", points[0]))
            lines.append(_point(f"best recall at precision >= {target[0]:.2f}", points[1]))
        if key == "durable":
            lines.append(f"  category (preference/decision/goal/fact)   [target macro-F1 >= "
                         f"{TARGETS['category_macro_f1']:.2f}]")
            for name, c in res["category"].items():
                for which in ("all", "high"):
                    f1, per = c["macro_f1"][which]
                    acc, n = c["accuracy_found"][which]
                    shown = " ".join(f"{k[:4]} {v:.2f}" for k, v in per.items())
                    lines.append(f"  {name:17s} {which:4s} macro-F1 {f1:.2f} ({shown}); "
                                 f"accuracy among {n} found {acc:.2f}")
        if key == "fix":
            s = res["fix_spans"]
            lines.append(f"  after: extracted spans of {s['n']} true fixes cover the labelled problem's words "
                         f"{s['problem_overlap']:.0%}, the solution's {s['solution_overlap']:.0%}")
    h = res["highlight"]
    want_recall, max_share = TARGETS["highlight"]
    lines.append(f"review highlighting (lesson_score >= {h['threshold']:.3f}; lesson = correction or durable)"
                 f"   [target lessons highlighted >= {want_recall:.2f} at <= {max_share:.0%} of messages]")
    for which in ("all", "high"):
        m = h[which]
        lines.append(f"  {which:4s} share of real lessons among highlighted {m['p']:.2f}; lessons highlighted "
                     f"{m['r']:.2f} ({m['tp'] + m['fp']} highlighted = {(m['tp'] + m['fp']) / max(1, m['n']):.1%} "
                     f"of messages)")
    pts = h["points"]
    lines.append(f"  other operating points of lesson_score (all rows): lessons highlighted {pts['recall_at_share']:.2f} "
                 f"at <= {max_share:.0%} of messages; {pts['share_for_recall']:.1%} of messages highlighted "
                 f"for {want_recall:.2f} of the lessons")
    rv = res["reviews"]
    lines.append(f"  trigger (highlighted lesson scores since the last review >= {rv['budget']}): {rv['reviews']} "
                 f"reviews over {rv['messages']} user messages in {rv['sessions']} source files = "
                 f"{rv['per_100']:.1f} per 100 messages; {rv['covered']:.0%} of the {rv['lessons']} labelled lessons "
                 f"come before a review in their file")
    sd = rv["same_day"]
    lines.append(f"  same-day rule (issue 22: a correction saved at once; a review when a durable statement waits "
                 f"or the highlights add up, and at the session's end when they reach {rv['end_budget']}): {sd['saves']} correction saves + "
                 f"{sd['reviews']} reviews + {sd['end_reviews']} end-of-session reviews over {rv['messages']} "
                 f"messages = {100.0 * (sd['saves'] + sd['reviews'] + sd['end_reviews']) / rv['messages']:.1f} "
                 f"children per 100 messages ({100.0 * (sd['reviews'] + sd['end_reviews']) / rv['messages']:.1f} "
                 f"reviews); {sd['reached']:.0%} of the labelled lessons reach a save or a review")
    sp = res["speed_ms"]
    lines.append(f"speed: analyse median {sp['analyse_median']:.2f} ms, p95 {sp['analyse_p95']:.2f} ms; "
                 f"detect_fix median {sp['fix_median']:.2f} ms, p95 {sp['fix_p95']:.2f} ms")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("check", "tune", "both"), default="both")
    args = parser.parse_args(argv)
    if not real_data.available():
        print(f"SKIP: no real-conversation data at {real_data.data_dir()} "
              f"(expected <repo>/../shared/data/real; set TACIT_REAL_DATA to point elsewhere)")
        return 0
    parts = ("check", "tune") if args.part == "both" else (args.part,)
    for part in parts:
        print(report(evaluate(part)))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
