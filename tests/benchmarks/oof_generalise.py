"""Levers meant to generalise across repositories (issue 22, seventh round), out of fold on the tune split.

    python tests/benchmarks/oof_generalise.py                         # every lever, runs 7:fold 11:fold2
    python tests/benchmarks/oof_generalise.py --lever base repo1 --runs 13:fold3 17:fold4 19:fold5

Figures of the raw scorers, as in ``oof_levers.py``: "corr" = best correction precision at recall
>= 0.55, "hl" = lessons highlighted at <= 30 % of messages, each lever next to the shipped recipe
trained in the same folds (5 folds grouped by repository; a run is ``seed:fold-salt``). Levers:
repository-balanced row weights, class weights, n-grams hashed into few buckets (collisions as a
regulariser), a separate scorer (or shared + per-context feature copies) for messages with and
without the agent's previous reply, feature dropout, averaged weights, fewer epochs, delexicalised
n-grams (the form n-grams ``fw:`` of ``features.FORM_WORDS``: words outside a closed list of function
words become ``~``), and mixes of the two objectives. The check part is never read. Results: docs/detectors.md.
"""

from __future__ import annotations

import hashlib
import sys
import zlib
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "extension"))
sys.path.insert(0, str(HERE))

import train_detectors as T  # noqa: E402
from oof_levers import Data, _no_shapes, cli, figures, oof, report  # noqa: E402

def _weights(data: Data, idx, alpha: float, pos_weight: float, target: str):
    """Row weights: the label confidence × (mean rows per repository / this repository's rows) ** alpha."""
    per = Counter(data.groups[i] for i in idx)
    mean = len(idx) / len(per)
    raw = {i: data.weights[i] * (mean / per[data.groups[i]]) ** alpha for i in idx}
    scale = sum(data.weights[i] for i in idx) / sum(raw.values())
    return {i: raw[i] * scale * (pos_weight if data.targets[i][target] else 1.0) for i in idx}


def weighted_oof(data: Data, target: str, feats, seed: int, salt: str, alpha=0.0, pos_weight=1.0, **hyper):
    """Out-of-fold scores of the logistic recipe with repository-balanced and class weights."""
    fold = [int(hashlib.sha256((salt + g).encode()).hexdigest()[:8], 16) % T.FOLDS for g in data.groups]
    out = [0.0] * len(feats)
    for k in range(T.FOLDS):
        idx = [i for i in range(len(feats)) if fold[i] != k]
        w = _weights(data, idx, alpha, pos_weight, target)
        bias, wt = T.train_logistic([(feats[i], int(data.targets[i][target]), w[i]) for i in idx], seed=seed,
                                    **dict(T._BASE, **hyper))
        for i in range(len(feats)):
            if fold[i] == k:
                out[i] = T.score(bias, wt, feats[i])
    return out


def learner(**hyper):
    def fit(samples, seed):
        bias, w = T.train_logistic(samples, seed=seed, **dict(T._BASE, **hyper))
        return lambda f: T.score(bias, w, f)
    return fit


def split_by_context(samples, seed):
    """Two scorers: messages with the agent's previous reply, and messages without it."""
    parts = {}
    for has in (True, False):
        sub = [s for s in samples if ("prev=none" not in s[0]) == has]
        bias, w = T.train_logistic(sub, seed=seed, **T._BASE)
        parts[has] = (bias, w)
    return lambda f: T.score(*parts["prev=none" not in f], f)


def augment_context(f: dict) -> dict:
    """Every feature twice: shared, and a copy for its context (with / without the reply)."""
    tag = "ctx0|" if "prev=none" in f else "ctx1|"
    out = dict(f)
    out.update((tag + n, v) for n, v in f.items())
    return out


def hashed(f: dict, bits: int) -> dict:
    """N-grams folded into 2**bits buckets, still regularised and counted as n-grams."""
    out: dict[str, float] = {}
    for n, v in f.items():
        if T._is_handbuilt(n):
            out[n] = v
        else:
            key = "w=#%d" % (zlib.crc32(n.encode()) & ((1 << bits) - 1))
            out[key] = out.get(key, 0.0) + v
    return out


def as_handbuilt(f: dict) -> dict:
    """The form n-grams renamed so that training treats them as hand-built cues (no minimum count,
    the cues' regularisation)."""
    return {("d:" + n[3:] if n.startswith("fw:") else n): v for n, v in f.items()}


def rank01(scores):
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    out = [0.0] * len(scores)
    for r, i in enumerate(order):
        out[i] = r / max(1, len(scores) - 1)
    return out


def run(data: Data, levers, seed: int, salt: str) -> dict:
    # the base is the recipe shipped before this round: no form n-grams; shapes for corrections only
    full, full_plain = data.feats, [_no_shapes(f) for f in data.feats]
    feats, plain = ([{n: v for n, v in f.items() if not n.startswith("fw:")} for f in fs] for fs in (full, full_plain))
    res = {}
    base_c = oof(data, "correction", feats, learner(), seed, salt)
    base_l = oof(data, "lesson", plain, learner(), seed, salt)
    res["base (shipped recipe)"] = figures(data, base_c, base_l)

    def both(name, fc, fl, fit=None):
        fit = fit or learner()
        res[name] = figures(data, oof(data, "correction", fc, fit, seed, salt),
                            oof(data, "lesson", fl, fit, seed, salt))

    for lever in levers:
        if lever.startswith("repo"):  # repo0.5, repo1
            a = float(lever[4:])
            res[f"repository-balanced weights ^{a}"] = figures(
                data, weighted_oof(data, "correction", feats, seed, salt, alpha=a),
                weighted_oof(data, "lesson", plain, seed, salt, alpha=a))
        elif lever.startswith("pos"):  # pos2, pos0.5
            pw = float(lever[3:])
            both(f"positive class weight {pw}", feats, plain, learner(pos_weight=pw))
        elif lever.startswith("hash"):
            bits = int(lever[4:])
            both(f"n-grams hashed to 2^{bits}", [hashed(f, bits) for f in feats], [hashed(f, bits) for f in plain])
        elif lever == "ctx-split":
            both("separate scorers with / without reply", feats, plain, split_by_context)
        elif lever == "ctx-augment":
            both("shared + per-context copies", [augment_context(f) for f in feats],
                 [augment_context(f) for f in plain])
        elif lever.startswith("dropout"):
            d = float(lever[7:])
            both(f"feature dropout {d}", feats, plain, learner(dropout=d))
        elif lever == "average":
            both("weights averaged over epochs", feats, plain, learner(average=True))
        elif lever.startswith("epochs"):
            e = int(lever[6:])
            both(f"{e} epochs", feats, plain, learner(epochs=e))
        elif lever == "form-cues":
            both("form n-grams + lexical, regularised as cues", [as_handbuilt(f) for f in full],
                 [as_handbuilt(f) for f in full_plain])
        elif lever == "form":
            both("form n-grams + lexical (shipped)", full, full_plain)
        elif lever == "form-tilde":
            both("form n-grams with a ~ only + lexical", *([{n: v for n, v in f.items() if not n.startswith("fw:")
                                                             or "~" in n} for f in fs] for fs in (full, full_plain)))
        elif lever == "form-bag":
            both("form uni/bigrams (no first/last) + lexical", *([{n: v for n, v in f.items() if not n.startswith(
                ("fw:first", "fw:last"))} for f in fs] for fs in (full, full_plain)))
        elif lever == "form-only":
            both("form n-grams instead of lexical", *([{n: v for n, v in f.items() if T._is_handbuilt(n)
                                                        or n.startswith("fw:")} for f in fs] for fs in (full, full_plain)))
        elif lever == "form-bigrams":
            both("form bigrams + lexical", *([{n: v for n, v in f.items() if not n.startswith("fw:")
                                              or n.startswith("fw:b=")} for f in fs] for fs in (full, full_plain)))
        elif lever == "mix":
            rc, rl = rank01(base_c), rank01(base_l)
            for b in (0.15, 0.3, 0.5):
                res[f"rank mix, other objective x{b}"] = figures(
                    data, [c + b * le for c, le in zip(rc, rl)], [le + b * c for c, le in zip(rc, rl)])
        else:
            raise SystemExit(f"unknown lever {lever}")
    return res


LEVERS = ["repo0.5", "repo1", "pos2", "pos0.5", "hash10", "hash13", "ctx-split", "ctx-augment",
          "dropout0.2", "dropout0.4", "average", "epochs4", "hash16", "form", "form-cues", "form-only",
          "form-bigrams", "form-tilde", "form-bag", "mix"]


def main(argv=None) -> int:
    parsed = cli(__doc__.splitlines()[0], LEVERS, argv)
    if parsed is None:
        return 0
    args, data = parsed
    report(args.runs, lambda seed, salt: run(data, args.lever, seed, salt), width=40, each=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
