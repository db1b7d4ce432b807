"""Issue 22, third round: attempts at the correction scorer, on the TUNE split only.

    python tests/benchmarks/correction_experiments.py

Out-of-fold figures of a 5-fold cross-validation grouped by repository inside
the tune split (the folds of ``train_detectors.py``); the check part is never
read. Prints one line per attempt: precision / recall / F1 at the threshold
``train_detectors.py`` would pick (best F1 with precision >= 0.5), the best
precision at recall >= 0.55, and the best F1 anywhere on the curve.

1. per-model feature sets: the correction scorer without the five cues added
   in the second round (one at a time and all together);
2. features of the conversation context (below, ``context_features``);
3. a second stage: products of the correction score with the durable,
   failure and lesson scores, a stacked logistic over their logits, and a
   correction-vs-failure-report discriminator.
Nothing here is shipped; the results are in docs/detectors.md.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "extension"))
sys.path.insert(0, str(HERE))

import train_detectors as T  # noqa: E402
from tacit.detect import features as F  # noqa: E402
from tacit.detect.text import words  # noqa: E402

SECOND_ROUND = ("imperative", "you-modal", "durable-cue", "code-or-path", "prev=error")
_SUCCESS = re.compile(r"\b(?:done|completed?|successfully|all (?:\w+ )?(?:tests? )?pass\w*|now (?:works|working)|"
                      r"is ready|ive (?:implemented|added|updated|created|fixed|made|changed)|summary)\b|\u2705")
_PROPOSE = re.compile(r"\b(?:shall i|should i|would you like|want me to|let me know|do you want|i can also|"
                      r"next steps?|i recommend|i suggest|you could)\b")
_APOLOGY = re.compile(r"\b(?:sorry|apologi[sz]e|you(?:re| are) (?:absolutely )?right|my (?:mistake|bad)|i was wrong)\b")


def context_features(x: F.MessageReading) -> dict[str, float]:
    """The agent's previous reply claimed success / proposed or asked /
    apologised; length ratio; the message echoes the reply's words; a
    question, an instruction or a negation after a success claim or proposal."""
    f: dict[str, float] = {}
    if x.skipped or not x.prev or x.msg is None:
        return f
    prev = x.msg.prev_bare
    success, propose = bool(_SUCCESS.search(prev[-400:])), bool(_PROPOSE.search(prev[-400:]))
    apology = bool(_APOLOGY.search(prev))
    for name, on in (("success", success), ("proposes", propose), ("apology", apology)):
        if on:
            f["ctx=prev-" + name] = 1.0
    ratio = len(x.focus) / max(1, len(x.prev))
    f["ctx=ratio" + ("<0.05" if ratio < 0.05 else "<0.2" if ratio < 0.2 else "<1" if ratio < 1 else ">=1")] = 1.0
    mine, theirs = words(x.bare), words(prev)
    if len(set(zip(mine, mine[1:])) & set(zip(theirs, theirs[1:]))) >= 2:
        f["ctx=echoes-prev"] = 1.0
    flat = " ".join(x.bare.split())
    kinds = {"q": x.focus.rstrip().endswith("?") or bool(x.msg.is_question),
             "imp": bool(F._IMPERATIVE.match(flat)), "neg": bool(F._NEGATION.search(x.bare))}
    for kind, on in kinds.items():
        if on and success:
            f[f"ctx={kind}&success"] = 1.0
        if on and propose:
            f[f"ctx={kind}&proposes"] = 1.0
    if kinds["neg"] and apology:
        f["ctx=neg&apology"] = 1.0
    return f


def curve(oof, gold, threshold):
    """(P, R, F1 at threshold, best P at R >= 0.55, its R, best F1)."""
    p, r, f1 = T.prf([s >= threshold for s in oof], gold)
    best_p, best_r, best_f1 = 0.0, 0.0, 0.0
    for t in sorted(set(round(s, 3) for s in oof)):
        cp, cr, cf = T.prf([s >= t for s in oof], gold)
        best_f1 = max(best_f1, cf)
        if cr >= 0.55 and cp > best_p:
            best_p, best_r = cp, cr
    return p, r, f1, best_p, best_r, best_f1


def report(name, oof, gold):
    t = T.choose_threshold(oof, gold, 0.0, 0.5)
    p, r, f1, bp, br, bf = curve(oof, gold, t)
    print(f"  {name:44s} P {p:.3f} R {r:.3f} F1 {f1:.3f} (t={t:.3f}) | P {bp:.3f} at R {br:.3f} | "
          f"best F1 {bf:.3f}", flush=True)


def oof(feats, gold, weights, groups, hyper=None):
    samples = [(f, int(g), w) for f, g, w in zip(feats, gold, weights)]
    return T.oof_scores(samples, groups, hyper or T._BASE)


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def second_stage(scores, gold, weights, groups):
    """Products and a stacked logistic over out-of-fold first-stage scores."""
    c, d, fl, les = scores["correction"], scores["durable"], scores["failure"], scores["lesson"]
    report("corr x (1 - durable)", [a * (1 - b) for a, b in zip(c, d)], gold)
    report("corr x (1 - max(0, durable - corr))", [a * (1 - max(0.0, b - a)) for a, b in zip(c, d)], gold)
    report("corr x lesson", [a * b for a, b in zip(c, les)], gold)
    report("corr x (1 - failure / 2)", [a * (1 - b / 2) for a, b in zip(c, fl)], gold)
    stacked = [{"c": _logit(a), "d": _logit(b), "f": _logit(e), "l": _logit(g), "cd": _logit(a) * _logit(b) / 10}
               for a, b, e, g in zip(c, d, fl, les)]
    report("stacked logistic over c, d, f, l", oof(stacked, gold, weights, groups, dict(T._BASE, epochs=30)), gold)


def failure_aware(feats, targets, weights, groups, base):
    """Failure reports as soft positives; a correction-vs-failure discriminator times the score."""
    gold = [t["correction"] for t in targets]
    fail = [t["failure"] for t in targets]
    fold = T.folds_of(groups)

    def run(make, keep=lambda i: True):
        out = [0.0] * len(feats)
        for k in range(T.FOLDS):
            train = [s for i in range(len(feats)) if fold[i] != k and keep(i) for s in make(i)]
            bias, w = T.train_logistic(train, **T._BASE)
            for i in range(len(feats)):
                if fold[i] == k:
                    out[i] = T.score(bias, w, feats[i])
        return out

    soft = run(lambda i: [(feats[i], 1, weights[i] * 0.2), (feats[i], 0, weights[i] * 0.8)] if fail[i]
               else [(feats[i], int(gold[i]), weights[i])])
    report("failure reports as soft positives (0.2)", soft, gold)
    disc = run(lambda i: [(feats[i], int(gold[i]), weights[i])], keep=lambda i: gold[i] or fail[i])
    report("corr x (correction vs failure)^0.6", [a * b ** 0.6 for a, b in zip(base, disc)], gold)


def main() -> int:
    if not T.real_data.available():
        print(f"SKIP: no real data at {T.real_data.data_dir()}")
        return 0
    rows = T.real_data.user_rows("tune")
    reads = [F.read(r["text"], r["prev_assistant"] or None) for r in rows]
    feats = [F.user_features(x) for x in reads]
    ctx = [context_features(x) for x in reads]
    groups, weights = [r["repo"] for r in rows], [T.row_weight(r) for r in rows]
    targets = [T.user_targets(r) for r in rows]
    gold = [t["correction"] for t in targets]
    print("correction scorer, out-of-fold on the tune split:")
    base = oof(feats, gold, weights, groups)
    report("shipped features", base, gold)
    print("1. per-model feature sets")
    drop = lambda names: [{k: v for k, v in f.items() if k not in names} for f in feats]  # noqa: E731
    report("without the five second-round cues", oof(drop(set(SECOND_ROUND)), gold, weights, groups), gold)
    for name in SECOND_ROUND:
        report(f"without {name}", oof(drop({name}), gold, weights, groups), gold)
    hand = [{k: v for k, v in f.items() if T._is_handbuilt(k)} for f in feats]
    report("hand-built features only (no n-grams)", oof(hand, gold, weights, groups), gold)
    print("2. conversation context")
    with_ctx = [dict(f, **c) for f, c in zip(feats, ctx)]
    report("shipped + context", oof(with_ctx, gold, weights, groups), gold)
    report("without the five + context", oof([dict(f, **c) for f, c in zip(drop(set(SECOND_ROUND)), ctx)],
                                             gold, weights, groups), gold)
    report("hand-built + context", oof([dict(f, **c) for f, c in zip(hand, ctx)], gold, weights, groups), gold)
    print("3. second stage")
    scores = {"correction": base}
    for name in ("durable", "failure", "lesson"):
        scores[name] = oof(feats, [t[name] for t in targets], weights, groups)
    second_stage(scores, gold, weights, groups)
    failure_aware(feats, targets, weights, groups, base)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
