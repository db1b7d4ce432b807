"""Out-of-fold figures of the review trigger and the same-day rule, per budget, on the tune split only.

    python tests/benchmarks/oof_trigger.py                               # shipped recipe vs before-round11
    python tests/benchmarks/oof_trigger.py --variant shipped --budgets 0.6 0.8 1.0 --end 0 0.3

``quality.py --part tune`` simulates the trigger (``review_due``) and the same-day rule
(``tacit.handlers.review``) per source file with the shipped weights, which were trained on the
tune rows: their lesson scores there are in-sample, too high. Here each repository fold's
messages (every user message of the tune split, labelled or not) are analysed by scorers
trained on the other folds (``oof_decision.fit``), and ``quality.simulate_trigger`` runs over
them for each review budget and end-of-session floor. Printed per recipe and budget, averaged
over seeds and fold assignments: reviews per 100 messages (the trigger alone, and the same-day
rule's mid-session + end-of-session reviews), children per 100 messages (correction saves +
reviews), the share of labelled lessons that come before a trigger review in their file, and the
share that reach a save or a review under the same-day rule. The check part is never read.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import oof_decision as O  # noqa: E402
import quality as Q  # noqa: E402
from tacit.detect import analysis  # noqa: E402

KEYS = ("trigger_per_100", "covered", "reviews_per_100", "children_per_100", "reached")


def figures(sim: dict) -> dict:
    sd, n = sim["same_day"], sim["messages"] or 1
    reviews = sd["reviews"] + sd["end_reviews"]
    return {"trigger_per_100": sim["per_100"], "covered": sim["covered"], "reviews_per_100": 100.0 * reviews / n,
            "children_per_100": 100.0 * (sd["saves"] + reviews) / n, "reached": sd["reached"]}


def run_once(data: O.Data, rows: list[dict], recipe: O.Recipe, seed: int, salt: str, grid) -> dict:
    """(budget, end floor) -> the simulation's counts, summed over the folds."""
    run = O.fit(data, recipe, seed, salt)
    totals: dict = {}
    for k in range(O.T.FOLDS):
        sources = Q.by_source([r for r in rows if run.fold_of(r["repo"]) == k])
        with run.installed(k):
            seen = {r["id"]: analysis.analyse(r["text"], r["prev_assistant"] or None)
                    for group in sources.values() for r in group}
            for budget, end in grid:
                sim = Q.simulate_trigger(sources, lambda r: seen[r["id"]], budget, end)
                _add(totals.setdefault((budget, end), {}), sim)
    return {key: _ratios(t) for key, t in totals.items()}


def _add(total: dict, sim: dict) -> None:
    total["messages"] = total.get("messages", 0) + sim["messages"]
    total["lessons"] = total.get("lessons", 0) + sim["lessons"]
    total["trigger"] = total.get("trigger", 0) + sim["reviews"]
    total["covered"] = total.get("covered", 0) + sim["covered"] * sim["lessons"]
    for name, v in sim["same_day"].items():
        total[name] = total.get(name, 0) + (v * sim["lessons"] if name == "reached" else v)


def _ratios(t: dict) -> dict:
    lessons = t["lessons"] or 1
    sim = {"messages": t["messages"], "per_100": 100.0 * t["trigger"] / (t["messages"] or 1),
           "covered": t["covered"] / lessons,
           "same_day": {"reviews": t["reviews"], "end_reviews": t["end_reviews"], "saves": t["saves"],
                        "reached": t["reached"] / lessons}}
    return figures(sim)


def evaluate(data, rows, recipe, grid, seeds, salts) -> dict:
    runs = [run_once(data, rows, recipe, seed, salt, grid) for seed in seeds for salt in salts]
    return {key: {k: (statistics.mean(r[key][k] for r in runs), min(r[key][k] for r in runs),
                      max(r[key][k] for r in runs)) for k in KEYS} for key in grid}


def show(name: str, key, res: dict) -> str:
    budget, end = key
    m = {k: v[0] for k, v in res.items()}
    lo, hi = res["covered"][1], res["covered"][2]
    return (f"{name:16s} budget {budget:4.2f} end {end:4.2f} | trigger {m['trigger_per_100']:5.1f}/100, "
            f"lessons before a review {m['covered']:.0%} [{lo:.0%}-{hi:.0%}] | same-day reviews "
            f"{m['reviews_per_100']:5.1f}/100, children {m['children_per_100']:5.1f}/100, "
            f"lessons reaching a save or review {m['reached']:.0%}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", nargs="*", default=["before-round11", "shipped"])
    parser.add_argument("--budgets", type=float, nargs="*", default=[0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.5])
    parser.add_argument("--end", type=float, nargs="*", default=[Q.END_BUDGET], help="end-of-session floors")
    parser.add_argument("--quick", action="store_true", help="one seed, one fold assignment")
    parser.add_argument("--seeds", type=int, nargs="*", default=[7, 11])
    parser.add_argument("--salts", nargs="*", default=["fold:", "fold2:"], help="fold assignments")
    args = parser.parse_args(argv)
    if not O.T.real_data.available():
        print(f"SKIP: no real data at {O.T.real_data.data_dir()}")
        return 0
    data = O.Data()
    rows = O.T.real_data.user_rows("tune", labelled=False)
    grid = [(b, e) for e in args.end for b in args.budgets]
    kw = {"seeds": (7,), "salts": ("fold:",)} if args.quick else {"seeds": args.seeds, "salts": args.salts}
    for name in args.variant:
        res = evaluate(data, rows, O.VARIANTS[name](), grid, **kw)
        for key in grid:
            print(show(name, key, res[key]), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
