"""Other levers for the lesson and correction scores (issue 22, sixth round), out of fold on the tune split.

    python tests/benchmarks/oof_levers.py                          # every lever, runs 7:fold 11:fold2
    python tests/benchmarks/oof_levers.py --lever gbdt rank --runs 13:fold3 17:fold4 19:fold5

Figures of the raw scorers (each scorer's out-of-fold score, before ``analyse``'s rule overrides):
best correction precision at recall >= 0.55 and lessons highlighted at <= 30 % of messages, each
next to the shipped logistic recipe trained in the same folds (5 folds grouped by repository; a
run is ``seed:fold-salt``). Levers: a small gradient-boosted tree ensemble (alone and averaged with
the logistic score), a pairwise ranking objective, cues of the agent's previous reply, the lesson
score calibrated per session (source file), and the session context of the rows found in
``sessions.jsonl`` (a table, no scorer). The check part is never read. Results: docs/detectors.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "extension"))
sys.path.insert(0, str(HERE))

import train_detectors as T  # noqa: E402
from quality import highlight_points, operating_points  # noqa: E402
from tacit.detect import features as F  # noqa: E402


class Data:
    def __init__(self):
        self.rows = T.real_data.user_rows("tune")
        self.feats = [F.user_features(F.read(r["text"], r["prev_assistant"] or None)) for r in self.rows]
        self.groups = [r["repo"] for r in self.rows]
        self.weights = [T.row_weight(r) for r in self.rows]
        self.targets = [T.user_targets(r) for r in self.rows]


def _no_shapes(f: dict) -> dict:
    return {n: v for n, v in f.items() if not n.startswith("sh:")}


def oof(data: Data, target: str, feats: list, learner, seed: int, salt: str) -> list[float]:
    """Out-of-fold scores of ``learner(samples, seed) -> predict(features)`` for one target."""
    fold = [int(hashlib.sha256((salt + g).encode()).hexdigest()[:8], 16) % T.FOLDS for g in data.groups]
    out = [0.0] * len(feats)
    for k in range(T.FOLDS):
        train = [(feats[i], int(data.targets[i][target]), data.weights[i]) for i in range(len(feats)) if fold[i] != k]
        predict = learner(train, seed)
        for i in range(len(feats)):
            if fold[i] == k:
                out[i] = predict(feats[i])
    return out


def logistic(samples, seed):
    bias, w = T.train_logistic(samples, seed=seed, **T._BASE)
    return lambda f: T.score(bias, w, f)


# ---------------------------------------------------------------------------
# learners
# ---------------------------------------------------------------------------
def gbdt(samples, seed, rounds=150, depth=3, lr=0.1, lam=1.0, min_hess=3.0, min_count=5):
    """Gradient-boosted trees (logistic loss, Newton leaves) splitting on a feature's presence."""
    counts: dict[str, int] = {}
    for f, _y, _w in samples:
        for n, v in f.items():
            if v > 0:
                counts[n] = counts.get(n, 0) + 1
    index = {n: i for i, n in enumerate(n for n, c in counts.items() if c >= min_count)}
    xs = [{index[n] for n, v in f.items() if n in index and v > 0} for f, _y, _w in samples]
    ys, ws = [y for _f, y, _w in samples], [w for _f, _y, w in samples]
    prior = sum(y * w for y, w in zip(ys, ws)) / sum(ws)
    base = math.log(prior / (1 - prior))
    margins, trees = [base] * len(ys), []
    for _round in range(rounds):
        probs = [T.score(m, {}, {}) for m in margins]
        g = [(p - y) * w for p, y, w in zip(probs, ys, ws)]
        h = [max(p * (1 - p), 1e-6) * w for p, w in zip(probs, ws)]
        tree = _grow(list(range(len(ys))), xs, g, h, depth, lam, min_hess, lr)
        trees.append(tree)
        margins = [m + _leaf(tree, x) for m, x in zip(margins, xs)]
    names = {i: n for n, i in index.items()}
    named = [_rename(t, names) for t in trees]

    def predict(f):
        present = {n for n, v in f.items() if v > 0}
        return T.score(base + sum(_leaf(t, present) for t in named), {}, {})
    return predict


def _grow(rows, xs, g, h, depth, lam, min_hess, lr):
    G, H = sum(g[i] for i in rows), sum(h[i] for i in rows)
    leaf = -G / (H + lam) * lr
    if depth == 0 or len(rows) < 4:
        return leaf
    gl: dict[int, float] = {}
    hl: dict[int, float] = {}
    for i in rows:
        for j in xs[i]:
            gl[j] = gl.get(j, 0.0) + g[i]
            hl[j] = hl.get(j, 0.0) + h[i]
    parent, best, best_gain = G * G / (H + lam), None, 1e-9
    for j, gj in gl.items():
        hj = hl[j]
        if hj < min_hess or H - hj < min_hess:
            continue
        gain = gj * gj / (hj + lam) + (G - gj) ** 2 / (H - hj + lam) - parent
        if gain > best_gain:
            best, best_gain = j, gain
    if best is None:
        return leaf
    yes = [i for i in rows if best in xs[i]]
    no = [i for i in rows if best not in xs[i]]
    return (best, _grow(yes, xs, g, h, depth - 1, lam, min_hess, lr), _grow(no, xs, g, h, depth - 1, lam, min_hess, lr))


def _leaf(tree, present) -> float:
    while isinstance(tree, tuple):
        tree = tree[1] if tree[0] in present else tree[2]
    return tree


def _rename(tree, names):
    return (names[tree[0]], _rename(tree[1], names), _rename(tree[2], names)) if isinstance(tree, tuple) else tree


def pairwise(samples, seed, pairs_per_positive=20, l2=0.03, lr=0.1):
    """A linear scorer trained on (lesson, non-lesson) pairs: logistic loss on the margin difference."""
    counts: dict[str, int] = {}
    for f, _y, _w in samples:
        for n in f:
            counts[n] = counts.get(n, 0) + 1
    allowed = {n for n, c in counts.items() if c >= T.MIN_COUNT or T._is_handbuilt(n)}
    pos = [({n: v for n, v in f.items() if n in allowed}, w) for f, y, w in samples if y]
    neg = [({n: v for n, v in f.items() if n in allowed}, w) for f, y, w in samples if not y]
    reg = {n: l2 * (1.0 if T._is_handbuilt(n) else T._BASE["ngram_l2"]) for n in allowed}
    rng, w, hist = random.Random(seed), {}, {}
    for _step in range(pairs_per_positive * len(pos)):
        (fp, wp), (fn, wn) = rng.choice(pos), rng.choice(neg)
        diff = dict(fp)
        for n, v in fn.items():
            diff[n] = diff.get(n, 0.0) - v
        z = sum(w.get(n, 0.0) * v for n, v in diff.items())
        grad = -wp * wn * (1.0 - T.score(z, {}, {}))
        for n, v in diff.items():
            old = w.get(n, 0.0)
            gn = grad * v + reg[n] * old
            hist[n] = hist.get(n, 0.0) + gn * gn
            w[n] = old - lr * gn / math.sqrt(hist[n] + 1e-8)
    return lambda f: T.score(0.0, w, f)


# ---------------------------------------------------------------------------
# levers
# ---------------------------------------------------------------------------
_REPLY_CUES = {
    "px:done": r"\b(?:done|completed|all set|finished|implemented|i(?:ve| have) (?:updated|added|created|fixed|"
               r"implemented|changed|removed|made))\b|\u2705",
    "px:offers": r"\b(?:next steps?|would you like me to|shall i|should i|want me to|do you want)\b",
    "px:recommends": r"\b(?:recommend|suggest|i'd go with|best option)\b",
    "px:summary": r"(?m)^\s*(?:#+ |\*\*summary|summary:)",
    "px:code": r"```|`[^`]+`",
    "px:list": r"(?m)^\s*(?:[-*]|\d+\.)\s.*\n\s*(?:[-*]|\d+\.)\s",
    "px:tests-pass": r"\b(?:tests? (?:pass|passed|passing)|build (?:succeeded|passes))\b",
}


def reply_cues(data: Data) -> list[dict]:
    """More cues of the agent's previous reply (what it claimed, offered, showed)."""
    out = []
    for r in data.rows:
        prev = r["prev_assistant"] or ""
        out.append({k: 1.0 for k, rx in _REPLY_CUES.items() if prev and re.search(rx, prev, re.I)})
    return out


def calibrated(data: Data, scores: list[float], alpha: float, how: str) -> list[float]:
    """The lesson score minus ``alpha`` × the mean (or max) score of the other messages of its source file."""
    by: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(data.rows):
        by[r["source"]].append(i)
    overall = statistics.mean(scores)
    out = []
    for i, r in enumerate(data.rows):
        others = [scores[j] for j in by[r["source"]] if j != i]
        ref = (statistics.mean(others) if how == "mean" else max(others)) if others else overall
        out.append(scores[i] - alpha * ref)
    return out


def figures(data: Data, corr: list[float] | None, lesson: list[float] | None) -> tuple[float, float]:
    gc = [t["correction"] for t in data.targets]
    gl = [t["lesson"] for t in data.targets]
    c = (operating_points(corr, gc, 0.55, 0.60)[0] or {"p": 0.0})["p"] if corr else float("nan")
    return c, highlight_points(lesson, gl)["recall_at_share"] if lesson else float("nan")


def run_levers(data: Data, levers: list[str], seed: int, salt: str) -> dict[str, tuple[float, float]]:
    feats, plain = data.feats, [_no_shapes(f) for f in data.feats]  # as shipped: shapes for corrections only
    base_c = oof(data, "correction", feats, logistic, seed, salt)
    base_l = oof(data, "lesson", plain, logistic, seed, salt)
    out = {"shipped logistic": figures(data, base_c, base_l)}
    if "gbdt" in levers:
        gc, gl = oof(data, "correction", feats, gbdt, seed, salt), oof(data, "lesson", plain, gbdt, seed, salt)
        out["gbdt"] = figures(data, gc, gl)
        out["(gbdt + logistic) / 2"] = figures(data, [(a + b) / 2 for a, b in zip(gc, base_c)],
                                               [(a + b) / 2 for a, b in zip(gl, base_l)])
    if "rank" in levers:
        rc, rl = oof(data, "correction", feats, pairwise, seed, salt), oof(data, "lesson", plain, pairwise, seed, salt)
        out["pairwise ranking"] = figures(data, rc, rl)
    if "reply-cues" in levers:
        cues = reply_cues(data)
        out["+ reply cues"] = figures(data, oof(data, "correction", [dict(f, **e) for f, e in zip(feats, cues)],
                                                logistic, seed, salt),
                                      oof(data, "lesson", [dict(f, **e) for f, e in zip(plain, cues)],
                                          logistic, seed, salt))
    if "session" in levers:
        for alpha in (0.25, 0.5, -0.25, -0.5):
            for how in ("mean", "max"):
                out[f"lesson - {alpha} x session {how}"] = figures(data, None, calibrated(data, base_l, alpha, how))
    return out


def session_context(data: Data) -> list[str]:
    """Lesson rates of the labelled rows found in sessions.jsonl, by position, repetition and tools."""
    index = {}
    for line in (T.real_data.data_dir() / "sessions.jsonl").read_text(encoding="utf-8").splitlines():
        s = json.loads(line)
        users = [i for i, t in enumerate(s["turns"]) if t["role"] == "user"]
        for k, i in enumerate(users):
            index[s["turns"][i]["text"][:200]] = (s["turns"], k, i)
    words = lambda t: set(re.findall(r"[a-z]{4,}", t.lower()))  # noqa: E731
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r, t in zip(data.rows, data.targets):
        found = index.get(r["text"][:200])
        if not found:
            continue
        turns, k, i = found
        mine = words(r["text"])
        repeat = max((len(mine & words(u["text"])) / max(1, len(mine)) for u in turns[:i] if u["role"] == "user"),
                     default=0.0)
        reply = next((u for u in reversed(turns[:i]) if u["role"] == "assistant"), None)
        for key in ("all", "first message" if k == 0 else "messages 2-4" if k < 4 else "message 5+",
                    "overlap with an earlier message >= 0.5" if repeat >= 0.5 else "overlap < 0.5",
                    "reply used tools" if reply and reply.get("tools") else "reply used no tools"):
            tally[key][0] += t["lesson"]
            tally[key][1] += 1
    return [f"  {k:40s} {a:4d} lessons / {n:4d} rows = {a / n:.2f}" for k, (a, n) in tally.items()]


def cli(description: str, levers: list[str], argv=None):
    """(``--lever`` / ``--runs`` arguments, the tune data), or None when the data is absent."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--lever", nargs="*", default=levers)
    parser.add_argument("--runs", nargs="*", default=["7:fold", "11:fold2"], help="seed:fold-salt")
    args = parser.parse_args(argv)
    if not T.real_data.available():
        print(f"SKIP: no real data at {T.real_data.data_dir()}")
        return None
    return args, Data()


def main(argv=None) -> int:
    parsed = cli(__doc__.splitlines()[0], ["gbdt", "rank", "reply-cues", "session", "session-context"], argv)
    if parsed is None:
        return 0
    args, data = parsed
    if "session-context" in args.lever:
        print("session context (tune rows found in sessions.jsonl):", *session_context(data), sep="\n")
    report(args.runs, lambda seed, salt: run_levers(data, args.lever, seed, salt))
    return 0


def report(runs: list[str], one_run, width: int = 32, each: bool = False) -> None:
    """Run ``one_run(seed, salt) -> {lever: (corr, hl)}`` per ``seed:salt`` and print each lever's mean."""
    results: dict[str, list] = defaultdict(list)
    for run in runs:
        seed, salt = run.split(":")
        for name, pair in one_run(int(seed), salt + ":").items():
            results[name].append(pair)
            if each:
                print(f"  [{run}] {name:{width}s} corr {pair[0]:.3f} hl {pair[1]:.3f}", flush=True)
    for name, pairs in results.items():
        c, le = ([p[i] for p in pairs] for i in (0, 1))
        print(f"{name:{width}s} corr best P@R>=.55 {statistics.mean(c):.3f} {[round(x, 3) for x in c]} | "
              f"lessons @<=30% {statistics.mean(le):.3f} {[round(x, 3) for x in le]}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
