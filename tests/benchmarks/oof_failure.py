"""Correction vs failure report, and the training recipe (issue 22, eleventh round), out of fold on the tune split.

    python tests/benchmarks/oof_failure.py                               # every lever, runs 7:fold 11:fold2
    python tests/benchmarks/oof_failure.py --lever report failneg2 --runs 13:fold3 17:fold4 19:fold5

Figures of the raw scorers, as in ``oof_generalise.py``: "corr" = best correction precision at
recall >= 0.55, "hl" = lessons highlighted at <= 30 % of messages, each lever next to the recipe
shipped before this round, trained in the same folds (5 folds grouped by repository; a run is
``seed:fold-salt``). Levers: the form of a failure report (``features._report_features``, ``rep:``:
still failing, same error, I get / it shows, an error word, the pasted share, a ":" before a paste,
the reply asked the user to try it; each form crossed with the reply's state); the form of a
rejection (not what I asked, revert, I didn't ask, don't + verb); failure reports as heavier
negatives for the correction scorer; other low-confidence row weights (both scorers, the lesson
scorer alone); stronger regularisation of the hand-built features. The check part is never read.
Results: docs/detectors.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "extension"))
sys.path.insert(0, str(HERE))

import train_detectors as T  # noqa: E402
from oof_levers import _no_shapes, cli, figures, oof, report  # noqa: E402
from tacit.detect import features as F  # noqa: E402
from tacit.lazyre import lazy  # noqa: E402

def report_features(reading: F.MessageReading) -> dict[str, float]:
    """The ``rep:`` features of ``features._report_features`` alone (the form of a failure report)."""
    return {n: v for n, v in F.user_features(reading).items() if n.startswith("rep:")}


_REJECT_FORMS = (
    ("not-what", lazy(r"\b(?:not what i|thats not|that is not|this is not|this isnt|thats wrong|wrong (?:file|one|"
                      r"place|thing|approach|way))\b")),
    ("undo", lazy(r"\b(?:revert|undo|roll ?back|put (?:it|that|them) back|go back to|restore)\b")),
    ("didnt-ask", lazy(r"\b(?:i (?:didnt|did not|never) (?:ask|say|want|tell)|who (?:asked|told) you|no one asked)\b")),
    ("dont-do", lazy(r"\b(?:dont|do not|stop|never) (?:add|use|change|touch|create|remove|delete|modify|do|make|"
                     r"write|put|run|install|mock|hardcode)\b")),
    ("should-have", lazy(r"\b(?:should have|shouldve|supposed to|was meant to|you were)\b")),
)


def reject_features(reading: F.MessageReading) -> dict[str, float]:
    """Experiment: the form of a rejection (what the agent chose is refused), with the reply's state."""
    if reading.skipped:
        return {}
    base = F.user_features(reading)
    prev = "none" if not reading.prev else "claims" if "prev=claims-fix" in base else \
        "test" if "rep:prev-asks-test" in base else "acted" if reading.msg.prev_acted else "other"
    f: dict[str, float] = {}
    for name, rx in _REJECT_FORMS:
        if rx.search(reading.bare):
            f["rej:" + name] = 1.0
            if prev:
                f[f"rej:{name}&prev={prev}"] = 1.0
    return f


class Data:
    def __init__(self):
        self.rows = T.real_data.user_rows("tune")
        self.reads = [F.read(r["text"], r["prev_assistant"] or None) for r in self.rows]
        self.feats = [{n: v for n, v in F.user_features(x).items() if not n.startswith("rep:")} for x in self.reads]
        self.extra = [report_features(x) for x in self.reads]
        self.groups = [r["repo"] for r in self.rows]
        self.weights = [T.row_weight(r) for r in self.rows]
        self.targets = [T.user_targets(r) for r in self.rows]


def learner(weigh=None, **hyper):
    """The shipped logistic recipe; ``weigh(features, y, w) -> w`` reweights the training rows."""
    def fit(samples, seed):
        if weigh is not None:
            samples = [(f, y, weigh(f, y, w)) for f, y, w in samples]
        bias, w = T.train_logistic(samples, seed=seed, **dict(T._BASE, **hyper))
        return lambda f: T.score(bias, w, f)
    return fit


def run(data: Data, levers, seed: int, salt: str) -> dict:
    no_form = [{n: v for n, v in f.items() if not n.startswith("fw:")} for f in data.feats]
    corr_feats, lesson_feats = no_form, [_no_shapes(f) for f in data.feats]  # as shipped before round 11
    failure = [t["failure"] for t in data.targets]
    base_c = oof(data, "correction", corr_feats, learner(), seed, salt)
    base_l = oof(data, "lesson", lesson_feats, learner(), seed, salt)
    res = {"base (recipe before round 11)": figures(data, base_c, base_l)}

    def corr_only(name, feats=corr_feats, fit=None):
        res[name] = figures(data, oof(data, "correction", feats, fit or learner(), seed, salt), base_l)

    def lesson_only(name, feats=lesson_feats, fit=None):
        res[name] = figures(data, base_c, oof(data, "lesson", feats, fit or learner(), seed, salt))

    for lever in levers:
        if lever == "report":
            corr_only("+ report features (correction)", [dict(f, **e) for f, e in zip(corr_feats, data.extra)])
            lesson_only("+ report features (lesson)", [dict(f, **e) for f, e in zip(lesson_feats, data.extra)])
        elif lever == "reject":
            rej = [reject_features(x) for x in data.reads]
            corr_only("+ report + reject features (correction)",
                      [dict(f, **e, **r) for f, e, r in zip(corr_feats, data.extra, rej)])
        elif lever == "form-avg":  # the correction scorer with the form n-grams, alone and averaged with the base
            rep = [dict(f, **e) for f, e in zip(corr_feats, data.extra)]
            plain_c = oof(data, "correction", rep, learner(), seed, salt)
            form_c = oof(data, "correction", [dict(f, **e) for f, e in zip(data.feats, data.extra)], learner(), seed, salt)
            res["+ report, + form n-grams (correction)"] = figures(data, form_c, base_l)
            res["+ report, mean(with, without form)"] = figures(data, [(a + b) / 2 for a, b in zip(plain_c, form_c)],
                                                                base_l)
        elif lever == "report-plain":
            keep = [{n: v for n, v in e.items() if "&" not in n} for e in data.extra]
            corr_only("+ report features, no crosses", [dict(f, **e) for f, e in zip(corr_feats, keep)])
        elif lever.startswith("failneg"):  # failneg2: failure reports weigh 2 as correction negatives
            k = float(lever[7:])
            feats = [dict(f) for f in corr_feats]
            fails = {id(f) for f, fl in zip(feats, failure) if fl}
            corr_only(f"failure reports x{k} as negatives",
                      feats, learner(weigh=lambda f, y, w: w * k if id(f) in fails else w))
        elif lever.startswith("lowconf"):  # lowconf0.4
            k = float(lever[7:])
            low = {i for i, r in enumerate(data.rows) if r.get("label_confidence") == "low"}
            cf = [dict(f) for f in corr_feats]
            lf = [dict(f) for f in lesson_feats]
            ids = {id(f) for i, f in enumerate(cf) if i in low} | {id(f) for i, f in enumerate(lf) if i in low}
            fit = learner(weigh=lambda f, y, w: k if id(f) in ids else w)
            res[f"low-confidence weight {k}"] = figures(data, oof(data, "correction", cf, fit, seed, salt),
                                                        oof(data, "lesson", lf, fit, seed, salt))
        elif lever.startswith("lesson-lowconf"):  # lesson-lowconf0.4: the lesson scorer only
            k = float(lever[14:])
            low = {i for i, r in enumerate(data.rows) if r.get("label_confidence") == "low"}
            lf = [dict(f) for f in lesson_feats]
            ids = {id(f) for i, f in enumerate(lf) if i in low}
            lesson_only(f"lesson: low-confidence weight {k}", lf, learner(weigh=lambda f, y, w: k if id(f) in ids else w))
        elif lever.startswith(("lesson-lowpos", "lesson-lowneg")):  # only the low-confidence positives / negatives
            k, pos = float(lever[13:]), lever.startswith("lesson-lowpos")
            low = {i for i, r in enumerate(data.rows) if r.get("label_confidence") == "low"
                   and data.targets[i]["lesson"] == pos}
            lf = [dict(f) for f in lesson_feats]
            ids = {id(f) for i, f in enumerate(lf) if i in low}
            lesson_only(f"lesson: low-confidence {'positives' if pos else 'negatives'} {k}", lf,
                        learner(weigh=lambda f, y, w: k if id(f) in ids else w))
        elif lever.startswith("lesson-failneg"):
            k = float(lever[14:])
            lf = [dict(f) for f in lesson_feats]
            ids = {id(f) for f, t in zip(lf, data.targets) if t["failure"]}
            lesson_only(f"lesson: failure reports x{k}", lf, learner(weigh=lambda f, y, w: w * k if id(f) in ids else w))
        elif lever.startswith("l2x"):  # l2x3: hand-built regularisation x3 (n-grams stay at 3 x 0.03)
            k = float(lever[3:])
            fit = learner(l2=T._BASE["l2"] * k, ngram_l2=T._BASE["ngram_l2"] / k)
            res[f"hand-built l2 x{k}"] = figures(data, oof(data, "correction", corr_feats, fit, seed, salt),
                                                 oof(data, "lesson", lesson_feats, fit, seed, salt))
        else:
            raise SystemExit(f"unknown lever {lever}")
    return res


LEVERS = ["report", "reject", "report-plain", "failneg2", "failneg3", "lowconf0.4", "lowconf1", "l2x3", "lesson-lowconf0.4",
          "lesson-lowconf0.2", "lesson-lowconf0"]


def main(argv=None) -> int:
    parsed = cli(__doc__.splitlines()[0], LEVERS, argv)
    if parsed is None:
        return 0
    args, _data = parsed
    data = Data()
    report(args.runs, lambda seed, salt: run(data, args.lever, seed, salt), width=40, each=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
