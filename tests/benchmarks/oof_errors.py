"""The out-of-fold correction errors of the whole decision, sorted into pipeline causes (tune split only).

    python tests/benchmarks/oof_errors.py                     # runs 7:fold 7:fold2 11:fold 11:fold2
    python tests/benchmarks/oof_errors.py --runs 7:fold --list log-left   # and the rows of one cause

Each run is ``oof_decision.run_once`` (scorers trained on the other folds, ``analyse`` on the held-out
fold); at its operating point (best correction precision at recall >= 0.55) the false positives and
false negatives are tagged with the causes that are the pipeline's rather than the model's: gated out
before scoring, pasted log text left in the judged text, logs removed, a quoted part, a long message
judged on its edges, a Latin-script language read as English, no agent reply, a failure report
(LABELS.md: the result fails, the approach is not rejected), a low-confidence label. A row can carry
several causes. Printed: the count of each cause among FP, FN, TP and TN, per run and summed, and
the precision and lessons figures of the run. The check part is never read. Results: docs/detectors.md.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "extension"))
sys.path.insert(0, str(HERE))

import oof_decision as O  # noqa: E402
from quality import operating_points  # noqa: E402
from tacit.detect.text import PLACEHOLDER, strip_quoted  # noqa: E402

_LOG_LEFT = re.compile(r"(?m)^\s*(?:\w*(?:Error|Exception|Warning)\b:?|error:|warning:|\S+\s+@\s+\S+:\d+|"
                       r"\S+@\S+\s.*\$\s|FAIL\b|\d+\|)|\^{3,}")
_LATIN_NOT_EN = re.compile(r"\b(?:que|para|não|nao|por|faça|arquivo|antes|el|la|los|es|en|und|ich|nicht|warum|"
                           r"habe|kein|dodaj|na|nowo|widzę|sie|le|les|est|pas|desu|kara|suru)\b", re.I)
_ROLE = re.compile(r"^\s*(?:you are|you're|youre)\s+(?:a|an|my|now|executing)\b", re.I)
CAUSES = ("gated", "log-left", "log-removed", "quoted-part", "long-cut", "non-english", "role-prompt",
          "no-prev", "gold=failure", "low-conf")


def causes(row: dict, reading) -> list[str]:
    text, focus = row["text"], reading.focus
    out = []
    if reading.skipped:
        out.append("gated")
    if _LOG_LEFT.search(focus):
        out.append("log-left")
    elif len(text) > 2 * max(1, len(focus)) or re.search(r"(?m)^(Traceback|\s+File \")", text):
        out.append("log-removed")
    if PLACEHOLDER.strip() in focus:
        out.append("quoted-part")
    if len(strip_quoted(text)) > 600:
        out.append("long-cut")
    if not reading.english or len(_LATIN_NOT_EN.findall(text)) >= 2:
        out.append("non-english")
    if _ROLE.match(text):
        out.append("role-prompt")
    if not row["prev_assistant"]:
        out.append("no-prev")
    if row["correction_class"] == "failure_report":
        out.append("gold=failure")
    if row.get("label_confidence") == "low":
        out.append("low-conf")
    return out


def errors(data: O.Data, seed: int, salt: str):
    """(figures, operating point, {kind: [(row, reading, score)]}) of one out-of-fold run."""
    seen = {}
    real = O._figures

    def keep(data_, results, oof, thresholds, recipe):
        seen["results"] = results
        return real(data_, results, oof, thresholds, recipe)

    O._figures = keep
    try:
        figures = O.run_once(data, O.Recipe(), seed, salt)
    finally:
        O._figures = real
    scores = [a.correction.score for a in seen["results"]]
    gold = [t["correction"] for t in data.targets]
    point, _ = operating_points(scores, gold, 0.55, 0.60)
    kinds: dict[str, list] = {"FP": [], "FN": [], "TP": [], "TN": []}
    for row, reading, score, g in zip(data.rows, data.reads, scores, gold):
        kind = ("T" if (score >= point["t"]) == g else "F") + ("P" if score >= point["t"] else "N")
        kinds[kind].append((row, reading, score))
    return figures, point, kinds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", nargs="*", default=["7:fold:", "7:fold2:", "11:fold:", "11:fold2:"])
    parser.add_argument("--list", default=None, help="print the FP and FN rows of this cause")
    args = parser.parse_args(argv)
    data = O.Data()
    total = {k: Counter() for k in ("FP", "FN", "TP", "TN")}
    for run in args.runs:
        seed, salt = run.split(":", 1)
        salt = salt if salt.endswith(":") else salt + ":"
        figures, point, kinds = errors(data, int(seed), salt)
        print(f"run {seed}:{salt} corr P {point['p']:.3f} at R {point['r']:.3f} (t {point['t']}, fp {point['fp']}, "
              f"fn {point['fn']}) | lessons at <=30 % {figures['hl30']:.3f}")
        for kind, rows in kinds.items():
            total[kind].update(c for row, reading, _s in rows for c in causes(row, reading))
            if args.list and kind in ("FP", "FN"):
                for row, reading, score in rows:
                    if args.list in causes(row, reading):
                        print(f"  {kind} {row['id']} {row['correction_class']} {score:.3f} {reading.focus[:120]!r}")
    print(f"{'cause (summed over runs)':26s} {'FP':>5s} {'FN':>5s} {'TP':>5s} {'TN':>5s}")
    for cause in CAUSES:
        print(f"{cause:26s} " + " ".join(f"{total[k][cause]:5d}" for k in ("FP", "FN", "TP", "TN")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
