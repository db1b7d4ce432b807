"""The rule parser for fix statements: pairs the diagnoses and remedies its triggers find.

The hand-written parser of the earlier fix detector, kept for two jobs: it
*extracts* the problem and solution texts of a reply the scorer in
:mod:`tacit.detect.fix` judged to state a fix, and its verdict is one of the
scorer's features. Sentences: :mod:`tacit.detect.fix_sentences`; triggers:
:mod:`tacit.detect.fix_triggers`.

Design notes: docs/design/detect.md#tacitdetectfix_parse"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from itertools import groupby

from tacit.detect.fix_sentences import MAX_SENTENCES, Sentence, read_sentences, restore, text_weight
from tacit.detect.fix_triggers import (
    DEFECT_RE, FAILURE_RE, SUCCESS_RE, Diag, Remedy, cut_end, diag_ok, find_diagnoses, find_remedies, remedy_ok,
)
from tacit.lazyre import lazy

__all__ = ["FixStatement", "Sentence", "parse", "read", "MIN_CONFIDENCE", "MAX_REPLY_CHARS"]

#: below this a candidate pair is not reported as a fix
MIN_CONFIDENCE = 0.6
#: replies longer than this are cut (fix statements come early, and the hook
#: path must stay fast on pasted logs)
MAX_REPLY_CHARS = 20_000
#: problem / solution texts are cut to this many characters (at a word)
MAX_PART_CHARS = 300
#: shorter replies cannot hold both a problem and a solution
MIN_REPLY_CHARS = 40


@dataclass(frozen=True, slots=True)
class FixStatement:
    """A problem and the solution the agent applied or prescribed for it; ``pattern``: how it was found
    (``"found-it+i-verb"``, ``"scored:<diagnosis>+<remedy>"``); ``confidence``: the score (0..1)."""

    problem: str
    solution: str
    pattern: str
    confidence: float

    def as_dict(self) -> dict:
        return asdict(self)


_ERROR_START_RE = lazy(
    r"^\s*(?:error\b|fatal\b|exception\b|failed\b|failure\b|sorry\b|unfortunately\b"
    r"|i\s+(?:couldn'?t|could\s+not|can'?t|cannot|was\s+unable|wasn'?t\s+able|am\s+unable|am\s+not\s+able"
    r"|don'?t\s+have\s+(?:access|permission|network))"
    r"|\w*(?:Error|Exception)\s*:|traceback\b|抱歉|错误[:：])",
    re.IGNORECASE,
)

_WHICH_FIXES_RE = lazy(
    r",?\s+which\s+(?:fixes|fixed|solves|solved|resolves|resolved|prevents|avoids|removes|gets\s+rid\s+of)\s+",
    re.IGNORECASE,
)
_SUCCESS_TAIL_RE = lazy(
    r"(?:,\s*|\s+)(?:and|so)\s+(?:now\s+)?(?:the|it|all|everything|tests?|ci|build|pytest|make)\b[^;]{0,80}?"
    r"\b(?:pass(?:es)?|works?|is\s+green|succeeds?|is\s+gone|green\s+again|runs?|loads?|renders?|connects?"
    r"|starts?|no-op|import\s+fine)\b.*$",
    re.IGNORECASE,
)
# solutions drop their subject ("so I moved X" -> "moved X"); problems keep
# theirs ("We were hitting the rate limit", "That SSL error is because …")
_LEAD_CONNECTOR_RE = lazy(
    r"^(?:[\s,;:—–-]+|(?:so|and|then|that|also|just|I|we|I've|we've|I\s+have|we\s+have|I\s+also)\s+)+", re.IGNORECASE
)
_PROBLEM_LEAD_RE = lazy(r"^(?:[\s,;:—–-]+|(?:so|and|then)\s+)+", re.IGNORECASE)
_TRAIL_CONNECTOR_RE = lazy(
    r"(?:[\s,;:—–(-]+|\s+(?:so|and|then|which|thus|hence|therefore|but))+$", re.IGNORECASE
)


def _clean(text: str, spans: list[str], lead_re: re.Pattern = _LEAD_CONNECTOR_RE) -> str:
    text = " ".join(restore(text, spans).split())
    for _ in range(3):
        text = lead_re.sub("", text)
        text = _TRAIL_CONNECTOR_RE.sub("", text)
    return shorten(text.strip().rstrip(".。!！"))


def shorten(text: str) -> str:
    """``text`` cut to ``MAX_PART_CHARS`` characters (at a word), marked with "…" when cut."""
    if len(text) > MAX_PART_CHARS:
        cut = text.rfind(" ", 0, MAX_PART_CHARS)
        text = text[: cut if cut > MAX_PART_CHARS // 2 else MAX_PART_CHARS].rstrip(" ,;:") + " …"
    return text


def _meaningful(text: str) -> bool:
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return cjk >= 3 or (len(text) >= 6 and len(text.split()) >= 2) or bool(re.search(r"\w[\w.()/=<>-]{5,}", text))


def _solution_text(sentences: list[Sentence], r: Remedy) -> str:
    if r.text:
        return r.text
    text = sentences[r.sent].text
    body = text[r.start: r.end if r.kind in ("np-fixes", "gerund") else cut_end(text, r.start, [])]
    which = _WHICH_FIXES_RE.search(body)
    body = _SUCCESS_TAIL_RE.sub("", body[: which.start()] if which else body)
    if not body.strip(" :—–-") and r.sent + 1 < len(sentences):
        return sentences[r.sent + 1].text  # "The fix is simple:" + next sentence
    return body


def _parse(sentences: list[Sentence], spans: list[str], restored: list[str], done: bool) -> FixStatement | None:
    _drop_defect_solutions(sentences, restored)
    remedies = [r for i, s in enumerate(sentences) if s.role != "solution"
                for r in find_remedies(i, s) if remedy_ok(s, r, spans)]
    diagnoses = _unlabelled_diagnoses(sentences, remedies, spans)
    _labelled_sections(sentences, spans, remedies, diagnoses)
    best = _Best(sentences, spans, restored, done)
    for r in remedies:
        if r.problem:  # combined trigger: "fixed X by Y", "to fix X, Y", "Y, which fixes X"
            best.consider(r.weight, r.sent * 1000 + r.trig_start, r.problem, _solution_text(sentences, r), r.kind, r)
        body = sentences[r.sent].text[r.start:] if not r.text else ""
        which = _WHICH_FIXES_RE.search(body)
        if which and r.kind in ("i-verb", "bare-verb"):
            best.consider(0.86, r.sent * 1000 + r.trig_start, body[which.end():], body[: which.start()], "which-fixes", r)
    _pair(diagnoses, remedies, sentences, best)
    return best.found[2] if best.found else None


def _drop_defect_solutions(sentences: list[Sentence], restored: list[str]) -> None:
    """"Solution: downgrade X. The generated files were made with an old Y that's incompatible…": a
    later prose sentence that describes a defect is the diagnosis, not more solution."""
    for i, (previous, s) in enumerate(zip(sentences, sentences[1:]), 1):
        if (
            s.role == "solution" and previous.section == s.section
            and not s.item and DEFECT_RE.search(restored[i]) and not find_remedies(i, s)
        ):
            for later in sentences[i:]:
                if later.section != s.section:
                    break
                later.role = later.section = None


def _unlabelled_diagnoses(sentences: list[Sentence], remedies: list[Remedy], spans: list[str]) -> list[Diag]:
    diagnoses: list[Diag] = []
    for i, s in enumerate(sentences):
        if s.role is not None:
            continue
        stops = [r.trig_start for r in remedies if r.sent == i]
        diagnoses += [d for d in find_diagnoses(i, s, stops)
                      if diag_ok(s, d, restore(s.text[d.start: d.end], spans))]
        # fallback: a clause that describes something wrong, before a remedy (a clause that opens
        # with a change — "Updated the help text" — is work done, not a description of what was wrong)
        if not s.question and not any(x <= 2 for x in stops):
            first_stop = min([x for x in stops if x > 0], default=len(s.text))
            clause = restore(s.text[:first_stop], spans)
            if len(clause.split()) >= 4 or sum("\u4e00" <= c <= "\u9fff" for c in clause) >= 6:
                d = Diag(i, 0, 0, first_stop, "fallback", 0.66)
                weak = Diag(i, 0, 0, first_stop, "weak", 0.62)  # no defect words: needs support
                if diag_ok(s, d, clause):
                    diagnoses.append(d)
                elif diag_ok(s, weak, clause):
                    diagnoses.append(weak)
    return diagnoses


def _labelled_sections(sentences: list[Sentence], spans: list[str], remedies: list[Remedy],
                       diagnoses: list[Diag]) -> None:
    """Labelled sections become one diagnosis / remedy each."""
    by_section: dict[int, list[int]] = {}
    for i, s in enumerate(sentences):
        if s.section is not None and s.role:
            by_section.setdefault(s.section, []).append(i)
    for idxs in by_section.values():
        role = sentences[idxs[0]].role
        joiner = "; " if sentences[idxs[0]].item and len(idxs) > 1 else " "
        if role == "problem":
            parts = []
            for i in idxs:
                inner = [r for r in find_remedies(i, sentences[i]) if remedy_ok(sentences[i], r, spans)]
                if inner and parts:
                    remedies.extend(inner)
                    break
                parts.append(sentences[i].text.rstrip(". "))
            diagnoses.append(Diag(idxs[0], 0, 0, 0, "label", 0.92, text=joiner.join(parts)))
        else:
            parts = [sentences[i].text.rstrip(". ") for i in idxs]
            remedies.append(Remedy(idxs[0], 0, 0, 0, "label", 0.92, text=joiner.join(parts)))


class _Best:
    """The best pairing considered so far: ``found`` is ``(confidence, order, FixStatement)``."""

    def __init__(self, sentences: list[Sentence], spans: list[str], restored: list[str], done: bool):
        self.sentences, self.spans, self.done = sentences, spans, done
        self.failures = [i for i, t in enumerate(restored) if FAILURE_RE.search(t)]
        self.success_after = [i for i, t in enumerate(restored) if SUCCESS_RE.search(t)]
        self.found: tuple[float, int, FixStatement] | None = None

    def consider(self, conf: float, order: int, problem: str, solution: str, pattern: str, r: Remedy) -> bool:
        """Score one pairing; returns False when it is not a usable fix at all."""
        # a failure phrase after the remedy (in the remedy's own sentence: after the remedy starts)
        if any(k > r.sent or k == r.sent and r.kind != "label"
               and FAILURE_RE.search(restore(self.sentences[k].text[r.start:], self.spans))
               for k in self.failures):
            return False
        problem_c, solution_c = _clean(problem, self.spans, _PROBLEM_LEAD_RE), _clean(solution, self.spans)
        if not (_meaningful(problem_c) and _meaningful(solution_c)):
            return False
        if any(k >= r.sent for k in self.success_after):
            conf += 0.04
        if self.done:
            conf += 0.04
        conf = round(min(conf, 0.99), 3)
        if conf < MIN_CONFIDENCE:
            return False
        found = self.found
        if found is None or conf > found[0] or (conf == found[0] and order < found[1]):
            self.found = (conf, order, FixStatement(problem_c, solution_c, pattern, conf))
        return True


def _pair(diagnoses: list[Diag], remedies: list[Remedy], sentences: list[Sentence], best: _Best) -> None:
    """Each diagnosis takes the nearest acceptable remedy after it (the text's own pairing); a remedy
    just before it is the last resort."""
    ordered = sorted(remedies, key=lambda r: (r.sent, r.trig_start))
    label_remedies = [r for r in ordered if r.kind == "label"]
    by_sentence = {sent: list(group) for sent, group in groupby(ordered, key=lambda r: r.sent)}
    for d in diagnoses[: MAX_SENTENCES * 2]:
        if d.kind == "label":
            near = ordered
            after = sorted(near, key=lambda r: (r.kind != "label", abs(r.sent - d.sent), r.trig_start))
        else:
            near = [r for k in range(d.sent - 1, d.sent + 3) for r in by_sentence.get(k, ())]
            near += [r for r in label_remedies if r not in near]
            # an explicit "Fix:" / "Changes:" section beats an incidental verb
            after = [r for r in near if r.kind == "label"] + [
                r for r in near if r.kind != "label" and (r.sent, r.trig_start) >= (d.sent, d.trig_start)
            ]
        before = [r for r in reversed(near) if r not in after]
        for r in after + before:
            if not _pairable(d, r, sentences, best.success_after, best.done):
                continue
            conf, problem, solution = _pairing(d, r, sentences)
            if problem and best.consider(conf, d.sent * 1000 + d.trig_start, problem, solution, f"{d.kind}+{r.kind}", r):
                break


def _pairing(d: Diag, r: Remedy, sentences: list[Sentence]) -> tuple[float, str, str]:
    """The confidence, problem text and solution text of diagnosis d with remedy r."""
    gap = r.sent - d.sent
    conf = min(d.weight, r.weight)
    if gap == 2:
        conf -= 0.06
    elif gap == -1 and r.kind != "label":  # a labelled "Solution:" may come first
        conf -= 0.08
    if d.sent == r.sent and d.kind not in ("fallback", "weak", "label") and r.kind != "label":
        conf += 0.02
    problem = _diag_text(sentences, d)
    solution = _solution_text(sentences, r)
    if gap == 0 and d.kind == "because" and r.trig_start < d.trig_start and r.kind != "label":
        # "Added retries to the upload, since uploads fail with SlowDown"
        text = sentences[d.sent].text
        problem = re.sub(r"^(?:because(?:\s+of)?|since|due\s+to)\s+", "", text[d.trig_start: d.end], flags=re.IGNORECASE)
        solution = text[r.start: d.trig_start]
    if gap == 2 and d.kind != "label":
        # "It was a timezone issue. The server runs in UTC, so …. I replaced …":
        # the sentence in between explains the problem
        middle = sentences[d.sent + 1]
        if not middle.question and middle.role is None and not find_remedies(d.sent + 1, middle):
            problem = f"{problem.rstrip(' .')}. {middle.text}"
    return conf, problem, solution


def _pairable(d: Diag, r: Remedy, sentences: list[Sentence], success_after: list[int], done: bool) -> bool:
    """Whether diagnosis d and remedy r may form one fix statement."""
    gap = r.sent - d.sent
    if gap > 2 or gap < (-3 if r.kind == "label" else -1):
        return False  # a labelled "Changes:" list may come before its explanation
    if gap < 0 and r.kind != "label" and d.kind not in _EXPLICIT_DIAGNOSES:
        return False  # "I did X. It does Y because Z" is rationale, not diagnosis
    if gap == 0 and r.kind != "label" and d.kind != "label" and r.trig_start < d.trig_start:
        # remedy first, diagnosis after, in one sentence: "X — the cause was Y",
        # "X, which is why Y", or "Added X, since uploads fail with Y" read that
        # way; "I did X because Y" with no failure in Y is rationale
        text = sentences[d.sent].text
        if d.kind == "because":
            if not _STRONG_DEFECT_RE.search(text[d.trig_start:]) or _UNDO_RE.search(text[: d.trig_start]):
                return False
        elif d.kind != "which-is-why" and not re.search(r"\s[—–]\s|;", text[r.start: d.start]):
            return False
    if d.kind == "weak" and not done and not any(k >= r.sent and k - r.sent <= 1 for k in success_after):
        return False  # a bare description pairs only when the fix is announced or confirmed
    if d.kind in ("fallback", "weak") and (r.kind in ("imperative", "to-fix") or (gap < 0 and r.kind != "label")) \
            or not done and (d.kind == "weak" and r.kind == "now-verb"
                             or r.kind == "should-have-been" and d.kind != "fixed-colon"):
        return False
    if d.kind == "fallback" and r.kind == "now-verb" and not re.match(
        r"\s*(?:now\s+)?(?:it|this|that|they|both|all|each)\b", sentences[r.sent].text[r.start:], re.IGNORECASE
    ):
        return False  # "The query plan now uses …" after a number is a report, not a fix
    return not (r.kind == "to-fix" and gap < 0
                or d.kind in ("fallback", "weak") and gap == 0 and r.trig_start < d.end and d.end != r.trig_start)


# a reason strong enough to make "did X because Y" a fix rather than a rationale
_STRONG_DEFECT_RE = lazy(
    r"\bfail|\berror|\bcrash|\bbrok(?:e|en)\b|\bbug\b|\bexception|\btime[sd]?\s*out|\btimeout|\bleak"
    r"|\bhang|\bdenied\b|\brefused\b|(?-i:\w(?:Error|Exception)\b|\bE[A-Z]{4,}\b|[A-Z][a-z]+[A-Z]\w*)",
    re.IGNORECASE,
)
# undoing one's own change is not a reusable fix
_UNDO_RE = lazy(
    r"\b(?:reverted|rolled\s+back|undid|backed\s+out)\s+(?:my|the|our|that|this|commit|\ue000)", re.IGNORECASE
)

_EXPLICIT_DIAGNOSES = frozenset(
    {"issue-was", "reason", "found-it", "turns-out", "caused-by", "comes-from", "label", "zh", "there-was"}
)


def _diag_text(sentences: list[Sentence], d: Diag) -> str:
    if d.kind == "label":
        return d.text
    text = sentences[d.sent].text[d.start: d.end]
    if d.kind == "reason" and d.text:
        return f"{d.text} because {text}"
    return text


def _is_prose(reply: str, restored: list[str]) -> bool:
    """Not a reply too short, an error dump or no prose."""
    reply = reply.strip()
    return bool(restored) and text_weight(reply) >= MIN_REPLY_CHARS and not reply.startswith("Traceback") \
        and not _ERROR_START_RE.match(restored[0]) and text_weight(" ".join(restored)) >= MIN_REPLY_CHARS


def read(reply: str) -> tuple[list[Sentence], bool, FixStatement | None]:
    """(the reply's prose sentences within the budget, code spans restored; whether it opens with a
    "Fixed:"-like preamble; the best diagnosis + remedy pair or None). Never raises."""
    try:
        if not isinstance(reply, str):
            return [], False, None
        reply = reply[:MAX_REPLY_CHARS]
        spans: list[str] = []
        sentences, done = read_sentences(reply, spans)
        restored = [restore(s.text, spans) for s in sentences]
        prose = [replace(s, text=text) for s, text in zip(sentences, restored)]  # the parser changes roles
    except Exception:  # noqa: BLE001
        return [], False, None
    try:
        return prose, done, _parse(sentences, spans, restored, done) if _is_prose(reply, restored) else None
    except Exception:  # noqa: BLE001 — a parser must never break the host
        return prose, done, None


def parse(reply: str) -> FixStatement | None:
    """The best diagnosis + remedy pair in ``reply``, or None (never raises)."""
    return read(reply)[2]
