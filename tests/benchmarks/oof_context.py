"""Issue 22, fourteenth round: what new kinds of evidence buy, out of fold on the tune split only.

    python tests/benchmarks/oof_context.py --causes            # FP / FN of the shipped recipe by cause
    python tests/benchmarks/oof_context.py --variant NAME ...  # a feature family added to every scorer

Families tried (each a ``Recipe.extra`` of ``oof_decision``): the session around a message (its
position, a restatement of an earlier user message of the same source file), scoped imperatives
("always X", "from now on", "in this repo we"), a negated directive right after the agent acted or
claimed it was done, quoted code or paths (a fix request, not a lesson), an offered option picked.
Sessions are the source files of ``user.jsonl`` (every row, labelled or not, in id order; the ids
are not the order typed, so position and restatement are weak proxies here). ``@scorer,…`` gives
the features to those scorers only. ``--causes`` tags the errors of one run at the operating points
(corrections: best precision at recall >= 0.55; lessons: 30 % of messages highlighted).
Results (none shipped, every one inside the spread between runs): docs/detectors.md, fourteenth round.
The check part is never read.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "extension"))
sys.path.insert(0, str(HERE))

import oof_decision as O  # noqa: E402
from quality import operating_points  # noqa: E402
from tacit.detect.text import content_tokens  # noqa: E402

#: the message's forms and the reply's (one regex each)
_FORMS = {name: re.compile("".join(parts)) for name, parts in (
    ("scope", (r"\b(?:always|never|from now on|going forward|moving forward|in (?:the )?future|every ?time|",
               r"whenever|each time|by default|next time|in this (?:repo|project|codebase|team)|",
               r"(?:we|i) (?:always|never|dont|do not|prefer|use)|make sure (?:to|you)(?: always)?|",
               r"remember (?:to|that))\b")),
    ("neg-open", (r"^(?:no+\W*|please |pls |just |but |and |so |actually |also |now )*",
                  r"(?:dont|do not|never|stop|no more|not )\b")),
    ("done", (r"\b(?:done|ive (?:updated|added|created|fixed|changed|removed|implemented|made|refactored)|",
              r"i (?:have )?(?:updated|added|created|fixed|changed|removed|implemented|made|refactored)|",
              r"successfully|all set|complete[ds]?|now (?:uses|works|has|shows)|is now|are now|",
              r"should now|summary of changes|changes made)\b")),
    ("pick", (r"^\W*(?:(?:ok(?:ay)?|yes|yeah|yep|sure|great|good|lets|well|we ?ll|ill|go|do|use|pick|choose|take|",
              r"i (?:choose|pick|prefer|d go|would go)|going)\W+)*(?:with\W+)?(?:the\W+)?",
              r"(?:option|opt|choice|approach|plan)\s*[#(]?\s*(?:[a-d1-9]|one|two|three)\b")),
    ("code", (r"`[^`\n]+`|```|\b\w+\.(?:py|ts|tsx|js|jsx|json|md|ya?ml|toml|go|rs|sh|css|html|sql|rb|java)\b",
              r"|(?:^|\s)(?:\.{0,2}/)?[\w.-]+/[\w./-]+|:\d+\b|\b\w+\(\)")),
)}
_SCOPE, _NEG_OPEN, _DONE, _CODE = (_FORMS[n] for n in ("scope", "neg-open", "done", "code"))


class Sessions:
    """Earlier user messages of each labelled row's source file."""

    def __init__(self, data: O.Data):
        rows = O.T.real_data.user_rows("tune", labelled=False)
        by_source: dict[str, list[dict]] = {}
        for r in rows:
            by_source.setdefault(r["source"], []).append(r)
        self.ctx: dict[tuple, tuple] = {}
        for group in by_source.values():
            group.sort(key=lambda r: r["id"])
            toks = [content_tokens(r["text"][:2000].lower()) for r in group]
            for i, r in enumerate(group):
                key = (r["text"], r["prev_assistant"] or None)
                self.ctx[key] = (i, len(group), toks[:i], len(r["text"]), [len(g["text"]) for g in group[:i]])

    def of(self, reading):
        return self.ctx.get((reading.raw, reading.prev))


def context_features(sessions: Sessions, reading, parts: frozenset) -> dict:
    f: dict[str, float] = {}
    bare = " ".join(reading.bare.split())
    msg = reading.msg
    acted = bool(reading.prev) and msg.prev_acted
    done = bool(reading.prev) and bool(_DONE.search(msg.prev_bare[-400:]))
    if "scope" in parts and _SCOPE.search(bare):
        f["cx:scope"] = 1.0
        f["cx:scope&" + ("short" if reading.n_words <= 20 else "long")] = 1.0
    if "neg" in parts and _NEG_OPEN.match(bare):
        f["cx:neg-open"] = 1.0
        state = "done" if done else "acted" if acted else "none" if not reading.prev else "other"
        f["cx:neg-open&prev=" + state] = 1.0
    if "done" in parts and reading.prev:
        f["cx:prev-done"] = float(done)
        if done and re.search(r"\b(?:not|dont|didnt|doesnt|isnt|wrong|still|but)\b", bare):
            f["cx:prev-done&objects"] = 1.0
    if "code" in parts and _CODE.search(reading.raw[:3000]):
        f["cx:code"] = 1.0
        f["cx:code&" + ("short" if reading.n_words <= 20 else "long")] = 1.0
    if "redirect" in parts:
        _redirect(reading, f)
    if "pick" in parts and reading.n_words <= 25 and _FORMS["pick"].search(bare):
        f["cx:pick-option"] = 1.0
    ctx = sessions.of(reading) if ("pos" in parts or "repeat" in parts) else None
    if ctx is not None:
        i, n, earlier, length, lengths = ctx
        if "pos" in parts:
            f["cx:pos=" + ("0" if i == 0 else "1-2" if i <= 2 else "3-9" if i <= 9 else "10+")] = 1.0
            if lengths:
                med = sorted(lengths)[len(lengths) // 2]
                f["cx:len" + ("<half" if length < med / 2 else ">2x" if length > 2 * med else "~")] = 1.0
        if "repeat" in parts:
            mine = content_tokens(reading.focus.lower())
            best = max((len(mine & e) / max(1, min(len(mine), len(e))) for e in earlier if e), default=0.0) \
                if len(mine) >= 3 else 0.0
            if best >= 0.6:
                f["cx:repeat"] = 1.0
            elif best >= 0.35:
                f["cx:repeat-part"] = 1.0
    return f


PARTS = ("scope", "neg", "done", "code", "pos", "repeat", "redirect", "pick")
_REDIRECT_SHAPE = re.compile(r"\b(?:not|dont|do not|instead|rather|should|shouldnt|i (?:want|need|meant|asked|said)|"
                             r"wrong|only|no)\b")


def _redirect(reading, f: dict) -> None:
    """The message names something the agent's reply named, and pushes back on it."""
    if not reading.prev or not _REDIRECT_SHAPE.search(reading.bare):
        return
    shared = content_tokens(reading.bare) & content_tokens(reading.msg.prev_bare)
    if shared:
        f["cx:redirect"] = 1.0
        f["cx:redirect" + ("=1" if len(shared) == 1 else ">1")] = 1.0


_ONLY_FOR: dict[str, tuple] = {}
_REAL_SHAPES_FOR = O._shapes_for


def _shapes_for(name, recipe, samples):
    samples = _REAL_SHAPES_FOR(name, recipe, samples)
    only = _ONLY_FOR.get(id(recipe))
    return samples if only is None or name in only else O.T.without(samples, "cx:")


O._shapes_for = _shapes_for


def recipe_for(name: str, sessions: Sessions) -> O.Recipe:
    """NAME: parts joined by "+", optionally "@scorer,scorer" (the scorers given the features)."""
    if name == "shipped":
        return O.Recipe()
    spec, _, only = name.partition("@")
    parts = frozenset(PARTS) if spec == "all" else frozenset(spec.split("+"))
    recipe = replace(O.Recipe(), extra=lambda reading: context_features(sessions, reading, parts))
    if only:
        _ONLY_FOR[id(recipe)] = tuple(only.split(","))
    return recipe


def _lesson(r) -> bool:
    return r["correction_class"] == "correction" or r["memory_category"] != "none"


def cause_tags(sessions: Sessions, row, reading) -> list[str]:
    out = []
    f = context_features(sessions, reading, frozenset(PARTS)) if not reading.skipped else {}
    out += [n[3:] for n in f if n in ("cx:scope", "cx:neg-open", "cx:prev-done", "cx:code", "cx:repeat",
                                      "cx:repeat-part", "cx:pos=0")]
    if not row["prev_assistant"]:
        out.append("no-prev")
    if row["correction_class"] == "failure_report":
        out.append("gold=failure")
    if row["memory_category"] != "none":
        out.append("gold=durable")
    if row.get("label_confidence") == "low":
        out.append("low-conf")
    if reading.skipped:
        out.append("gated")
    return out


def causes(data: O.Data, sessions: Sessions, seed: int, salt: str) -> None:
    seen = {}
    real = O._figures

    def keep(data_, results, oof, thresholds, recipe):
        seen["results"], seen["t"] = results, thresholds
        return real(data_, results, oof, thresholds, recipe)

    O._figures = keep
    try:
        O.run_once(data, O.Recipe(), seed, salt)
    finally:
        O._figures = real
    res = seen["results"]
    scores = [a.correction.score for a in res]
    gold = [t["correction"] for t in data.targets]
    point, _ = operating_points(scores, gold, 0.55, 0.60)
    lesson = [a.lesson_score for a in res]
    cut = sorted(lesson, reverse=True)[int(0.3 * len(lesson))]
    for title, pred, gold_ in (("corrections at best P@R>=.55", [s >= point["t"] for s in scores], gold),
                               ("lessons at 30 % highlighted", [s > cut for s in lesson],
                                [_lesson(r) for r in data.rows])):
        tally = {k: Counter() for k in ("FP", "FN", "TP", "TN")}
        for row, reading, p, g in zip(data.rows, data.reads, pred, gold_):
            kind = ("T" if p == g else "F") + ("P" if p else "N")
            tally[kind]["(rows)"] += 1
            tally[kind].update(cause_tags(sessions, row, reading))
        print(f"{title} (run {seed}:{salt})")
        names = sorted({c for t in tally.values() for c in t}, key=lambda c: -(tally["FP"][c] + tally["FN"][c]))
        print(f"  {'cause':16s} {'FP':>5s} {'FN':>5s} {'TP':>5s} {'TN':>5s}")
        for c in names:
            print(f"  {c:16s} " + " ".join(f"{tally[k][c]:5d}" for k in ("FP", "FN", "TP", "TN")))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", nargs="*", default=[])
    parser.add_argument("--causes", action="store_true")
    parser.add_argument("--quick", action="store_true", help="one seed, one fold assignment")
    args = parser.parse_args(argv)
    if not O.T.real_data.available():
        print(f"SKIP: no real data at {O.T.real_data.data_dir()}")
        return 0
    data = O.Data()
    sessions = Sessions(data)
    if args.causes:
        causes(data, sessions, 7, "fold:")
    kw = {"seeds": (7,), "salts": ("fold:",)} if args.quick else {}
    for name in args.variant:
        print(O.show(name, O.evaluate(data, recipe_for(name, sessions), **kw)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
