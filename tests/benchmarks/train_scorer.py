"""Train the learned scorer of ``learned_scorer.py`` (issue 22's experiment) on the TUNE split.

    python tests/benchmarks/train_scorer.py             # the grouped cross-validation: today vs learned
    python tests/benchmarks/train_scorer.py --out PATH  # ... then train on every tune row, write the weights

Reads only the tune part of ``tests/data/real_split.json`` (via ``real_data``). Two logistic models
over the hashed vector of ``learned_scorer.vector``: ``correction``
(``correction_class == correction``) and ``lesson`` (a correction or a durable statement).
Every choice — the L2 strength and the two thresholds — is made on out-of-fold scores of a 5-fold
cross-validation grouped by repository inside the tune part; the check part is never read here.
The thresholds are the targets' operating points of the whole decision (the rule overrides of
``judge_correction`` and the forced highlights of ``analyse`` included): the correction threshold
with the best precision at recall >= MIN_RECALL, the lesson threshold with the most lessons
highlighted at <= MAX_SHARE of the messages. Training is seeded Adagrad SGD in pure Python, so a
rerun writes the same file. The file holds hashed indices and floats only, never text.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "extension"))
sys.path.insert(0, str(HERE))

import real_data  # noqa: E402
import learned_scorer as learned  # noqa: E402
import train_detectors as td  # noqa: E402
from tacit.detect import correction as corr  # noqa: E402
from tacit.detect import features as ufeat  # noqa: E402
from tacit.detect.commands import wants_forget, wants_review  # noqa: E402
from tacit.detect.model import model  # noqa: E402

SEED, EPOCHS, LR = 7, 8, 0.1
L2_GRID = (1e-2, 3e-2, 1e-1)
MIN_COUNT, PRUNE = 2, 0.005
#: the operating points, with a small margin under / over the targets (0.55 recall, 30 % of messages)
MIN_RECALL, MAX_SHARE = 0.58, 0.28


def train(data, l2: float, seed: int = SEED):
    """data: list of (items [(index, value)], label, weight). Returns (bias, weights)."""
    weights: dict[int, float] = {}
    hist: dict[int, float] = {}
    bias = bias_hist = 0.0
    order = list(range(len(data)))
    rng = random.Random(seed)
    for _epoch in range(EPOCHS):
        rng.shuffle(order)
        for i in order:
            items, y, w = data[i]
            z = bias + sum(weights.get(k, 0.0) * v for k, v in items)
            p = 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))
            g = (p - y) * w
            bias_hist += g * g
            bias -= LR * g / math.sqrt(bias_hist + 1e-8)
            for k, v in items:
                old = weights.get(k, 0.0)
                gk = g * v + l2 * old
                h = hist.get(k, 0.0) + gk * gk
                hist[k] = h
                weights[k] = old - LR * gk / math.sqrt(h + 1e-8)
    return bias, weights


def _score(bias, weights, items) -> float:
    return learned.sigmoid(bias + sum(weights.get(k, 0.0) * v for k, v in items))


def _frequent(vectors) -> set[int]:
    counts: dict[int, int] = {}
    for items in vectors:
        for k, _v in items:
            counts[k] = counts.get(k, 0) + 1
    return {k for k, c in counts.items() if c >= MIN_COUNT}


def fit(vectors, labels, weights_, l2: float):
    keep = _frequent(vectors)
    data = [([(k, v) for k, v in items if k in keep], y, w) for items, y, w in zip(vectors, labels, weights_)]
    return train(data, l2)


def oof(vectors, labels, weights_, folds, l2: float) -> list[float]:
    out = [0.0] * len(vectors)
    for k in range(td.FOLDS):
        idx = [i for i, f in enumerate(folds) if f != k]
        bias, w = fit([vectors[i] for i in idx], [labels[i] for i in idx], [weights_[i] for i in idx], l2)
        for i, f in enumerate(folds):
            if f == k:
                out[i] = _score(bias, w, vectors[i])
    return out


# ---------------------------------------------------------------------------
# rows, and the rule parts of today's decision
# ---------------------------------------------------------------------------
def override(reading, phrased) -> tuple[bool | None, bool]:
    """(what a rule of ``judge_correction`` decides whatever the score — or None, whether the phrased
    rule makes a below-threshold message a correction), as the runtime does."""
    if reading.skipped in ("empty", "agent-prompt"):
        return False, False
    raw = corr.strip_quoted(reading.raw)
    if (not reading.english and corr.chinese_correction(raw)) or (reading.skipped is None
                                                                  and corr.foreign_correction(raw)):
        return True, False
    if reading.skipped == "quoted-only":
        return False, False
    hit = reading.original
    if hit is not None and hit.kind == "strong":
        return True, False
    if hit is not None and hit.kind == "negative" and reading.n_words <= corr.NEGATIVE_MAX_WORDS:
        return False, False
    if reading.skipped is None and reading.english:
        terse = corr.terse_verdict(reading)
        if terse is not None:
            return terse[0], False
    rule = phrased
    return None, bool(rule is not None and (rule.rejects_prev or rule.rejection or (rule.contrast and not reading.prev)))


def terse_of(reading):
    """``terse_verdict`` where ``judge_correction`` asks it (an English message not skipped)."""
    return corr.terse_verdict(reading) if reading.skipped is None and reading.english else None


def read_message(text: str, prev: str | None):
    """(reading, named features, phrased rule, hashed vector) of one message, as the wiring computes them."""
    reading = ufeat.read(text, prev)
    feats = ufeat.user_features(reading)
    phrased = corr.phrased_rule_of(reading)
    vec = learned.vector(feats, learned.rule_features(reading, phrased, terse_of(reading)), reading.bare,
                         reading.n_words)
    return reading, feats, phrased, vec


def prepare(rows) -> list[dict]:
    out = []
    for r in rows:
        reading, feats, phrased, vec = read_message(r["text"], r["prev_assistant"] or None)
        ov, ph = override(reading, phrased)
        quiet = reading.skipped is not None or wants_forget(reading.raw) is not None or wants_review(reading.raw) \
            or (reading.english and corr.not_a_lesson(reading))
        out.append({"feats": feats, "items": sorted(vec.items()), "override": ov, "phrased": ph,
                    "durable_rule": phrased is not None,
                    "quiet": quiet, "repo": r["repo"], "weight": td.row_weight(r),
                    "correction": r["correction_class"] == "correction",
                    "lesson": r["correction_class"] == "correction" or r["memory_category"] != "none",
                    "durable": r["memory_category"] != "none"})
    return out


def decide(scores, rows, t: float) -> list[bool]:
    return [r["override"] if r["override"] is not None else (s >= t or r["phrased"]) for s, r in zip(scores, rows)]


def prf(pred, gold) -> tuple[float, float]:
    tp = sum(p and g for p, g in zip(pred, gold))
    return tp / max(1, sum(pred)), tp / max(1, sum(gold))


def correction_point(scores, rows, min_recall: float):
    """(threshold, P, R): the best precision of the whole decision at recall >= min_recall."""
    gold = [r["correction"] for r in rows]
    best = None
    for t in sorted({round(s, 4) for s in scores}):
        p, r_ = prf(decide(scores, rows, t), gold)
        if r_ >= min_recall and (best is None or p > best[1]):
            best = (t, p, r_)
    return best or (0.0, *prf(decide(scores, rows, 0.0), gold))


def highlight_point(lesson, forced, rows, max_share: float):
    """(threshold, recall, share): the most lessons highlighted at <= max_share of the messages."""
    gold = [r["lesson"] for r in rows]
    best = (1.01, 0.0, 0.0)
    for t in sorted({round(s, 4) for s in lesson}, reverse=True):
        lit = [f or (not r["quiet"] and s >= t) for s, f, r in zip(lesson, forced, rows)]
        share = sum(lit) / len(lit)
        if share > max_share:
            break
        best = (t, prf(lit, gold)[1], share)
    return best


def _at(lesson, forced, rows, t: float) -> tuple[float, float]:
    """(lessons highlighted, share of messages) at threshold ``t``."""
    lit = [f or (not r["quiet"] and s >= t) for s, f, r in zip(lesson, forced, rows)]
    return prf(lit, [r["lesson"] for r in rows])[1], sum(lit) / len(lit)


def forced_highlights(corrected, durable_scores, rows, today: bool = False) -> list[bool]:
    """What ``analyse`` always highlights: a detected correction, a rule tacit can phrase, a confident
    durable statement (what the same-day rule reviews at once); ``today``: any durable statement."""
    scorer = model("user_model.json", "durable")
    confident = scorer.threshold if today or scorer.confident is None else scorer.confident
    return [c or (not r["quiet"] and (d >= confident or r["durable_rule"]))
            for c, d, r in zip(corrected, durable_scores, rows)]


# ---------------------------------------------------------------------------
# cross-validation: today's named-feature scorers against the learned one
# ---------------------------------------------------------------------------
def today_oof(rows) -> dict[str, list[float]]:
    """Out-of-fold scores of today's named-feature models, trained as ``train_detectors`` does."""
    groups = [r["repo"] for r in rows]
    synth = td.synthetic_user()
    out = {}
    for name, key in (("correction", "correction"), ("lesson", "lesson"), ("durable", "durable")):
        samples = [(r["feats"], int(r[key]), r["weight"]) for r in rows]
        extra = [(f, int(c != "none"), td.SYNTH_WEIGHT) for f, _y, c in synth if c is not None] \
            if name == "durable" else []
        out[name] = td.oof_scores(samples, groups, td.MODELS[name]["hyper"], extra)
    return out


def cross_validate(rows, report: bool = True) -> dict:
    """Every choice, on out-of-fold scores grouped by repository (see the module doc)."""
    folds = td.folds_of([r["repo"] for r in rows])
    vectors = [r["items"] for r in rows]
    wts = [r["weight"] for r in rows]
    today = today_oof(rows)
    t_today = model("user_model.json", "correction").threshold
    res: dict = {"today": {"correction_at_threshold": prf(decide(today["correction"], rows, t_today),
                                                          [r["correction"] for r in rows]),
                           "correction_point": correction_point(today["correction"], rows, MIN_RECALL)}}
    forced = forced_highlights(decide(today["correction"], rows, t_today), today["durable"], rows, today=True)
    res["today"]["highlight_point"] = highlight_point(today["lesson"], forced, rows, MAX_SHARE)
    res["today"]["highlight_at_threshold"] = _at(today["lesson"], forced, rows,
                                                 model("user_model.json", "lesson").threshold)
    best_c = best_l = None
    for l2 in L2_GRID:
        c_scores = oof(vectors, [int(r["correction"]) for r in rows], wts, folds, l2)
        point = correction_point(c_scores, rows, MIN_RECALL)
        if report:
            print(f"  learned correction l2={l2:g}: P {point[1]:.3f} at R {point[2]:.3f} (t={point[0]:.4f})")
        if best_c is None or point[1] > best_c[1][1]:
            best_c = (l2, point, c_scores)
    corrected = decide(best_c[2], rows, best_c[1][0])
    forced = forced_highlights(corrected, today["durable"], rows)
    for l2 in L2_GRID:
        l_scores = oof(vectors, [int(r["lesson"]) for r in rows], wts, folds, l2)
        point = highlight_point(l_scores, forced, rows, MAX_SHARE)
        if report:
            print(f"  learned lesson l2={l2:g}: lessons highlighted {point[1]:.3f} at {point[2]:.1%} (t={point[0]:.4f})")
        if best_l is None or point[1] > best_l[1][1]:
            best_l = (l2, point)
    res["learned"] = {"correction": {"l2": best_c[0], "point": best_c[1]},
                      "lesson": {"l2": best_l[0], "point": best_l[1]}}
    return res


def _pack(bias: float, weights: dict[int, float], threshold: float) -> dict:
    kept = sorted((k, round(w, 4)) for k, w in weights.items() if abs(w) >= PRUNE)
    return {"bias": round(bias, 4), "threshold": round(threshold, 4),
            "index": [k for k, _w in kept], "weight": [w for _k, w in kept]}


def build(rows, cv: dict) -> dict:
    """The weights file's content: both models trained on every tune row with the chosen settings."""
    vectors = [r["items"] for r in rows]
    wts = [r["weight"] for r in rows]
    models = {}
    for name in ("correction", "lesson"):
        choice = cv["learned"][name]
        bias, weights = fit(vectors, [int(r[name]) for r in rows], wts, choice["l2"])
        models[name] = _pack(bias, weights, choice["point"][0])
    return {"about": "Hashed logistic scorers trained by tests/benchmarks/train_scorer.py on the tune split "
                     "(tests/data/real_split.json); hashed indices and floats only. Do not edit by hand.",
            "bits": learned.BITS, "models": models}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the weights file here (default: report only)")
    args = parser.parse_args(argv)
    if not real_data.available():
        print(f"SKIP: no real data at {real_data.data_dir()} (set TACIT_REAL_DATA)")
        return 0
    started = time.time()
    rows = prepare(real_data.user_rows("tune"))
    print(f"tune split: {len(rows)} labelled user messages; grouped {td.FOLDS}-fold CV")
    cv = cross_validate(rows)
    t = cv["today"]
    print(f"today (named features, out-of-fold): correction at its threshold P {t['correction_at_threshold'][0]:.3f} "
          f"R {t['correction_at_threshold'][1]:.3f}; best P at R >= {MIN_RECALL}: {t['correction_point'][1]:.3f} "
          f"(R {t['correction_point'][2]:.3f}); lessons highlighted {t['highlight_point'][1]:.3f} "
          f"at {t['highlight_point'][2]:.1%} of messages ({t['highlight_at_threshold'][0]:.3f} at "
          f"{t['highlight_at_threshold'][1]:.1%} at its threshold)")
    c, l_ = cv["learned"]["correction"], cv["learned"]["lesson"]
    print(f"learned (out-of-fold): correction P {c['point'][1]:.3f} R {c['point'][2]:.3f} (l2 {c['l2']:g}, "
          f"t {c['point'][0]:.4f}); lessons highlighted {l_['point'][1]:.3f} at {l_['point'][2]:.1%} of messages "
          f"(l2 {l_['l2']:g}, t {l_['point'][0]:.4f})")
    if args.out is not None:
        data = build(rows, cv)
        args.out.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {args.out} ({args.out.stat().st_size / 1024:.0f} KB)")
    print(f"done in {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
