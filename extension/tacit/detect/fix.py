"""Does an agent's reply state a fix (a cause AND what fixes it)? Problem and solution out.

On ``turn_end`` the engine hands the agent's final reply to :func:`detect_fix`; a hit becomes a
stored fix pattern whose :func:`lookup_text` the lexical index ranks when a similar problem comes
back (tokenised by :mod:`tacit.detect.fix_tokens`). Nothing here
touches storage, config or the network. Figures: docs/detectors.md.

Design notes: docs/design/detect.md#tacitdetectfix"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tacit.detect import fix_parse
from tacit.detect.fix_parse import FixStatement
from tacit.detect.model import bucket, flags, model
from tacit.lazyre import lazy

__all__ = ["FixStatement", "detect_fix", "fix_score", "lookup_text", "reply_features"]

#: n-grams come from this many leading words of the prose
NGRAM_WORDS = 160
WEIGHTS_FILE = "fix_model.json"


# Sentence cues
_I = re.IGNORECASE
_DIAGNOSIS: dict[str, re.Pattern] = {
    "d-issue-is": lazy(
        r"\b(?:the|this|that|one|main|real|actual|root|underlying|core|only)?\s*(?:real\s+|actual\s+|root\s+|"
        r"underlying\s+|main\s+|core\s+)?(?:issue|problem|bug|error|cause|culprit|reason|failure|crash)s?\s+"
        r"(?:is|was|are|were|here is|seems to be|comes|came|occurs|occurred|happens|happened|lies)\b", _I),
    "d-root-cause": lazy(r"\broot[\s-]+cause\b|\bunderlying (?:issue|problem|cause)\b", _I),
    "d-because": lazy(r"\b(?:because|due to|caused by|since the|as a result of|stems from|"
                            r"comes from|coming from|originates)\b", _I),
    "d-thats-why": lazy(r"\b(?:that'?s why|this is why|which is why|which explains|that explains|"
                              r"explains why|hence the|that'?s what'?s causing|is what'?s causing|is causing)\b", _I),
    "d-found": lazy(r"\b(?:turns? out|turned out|found (?:it|the (?:issue|problem|bug|cause|culprit))|"
                          r"i see the (?:issue|problem|bug)|i found the|the culprit|there'?s the (?:issue|problem)|"
                          r"that'?s the (?:issue|problem|bug))\b", _I),
    "d-missing": lazy(r"\b(?:is|was|are|were|being|been)\s+(?:still\s+)?(?:missing|undefined|null|"
                            r"empty|wrong|incorrect|stale|outdated|not\s+(?:being\s+)?\w+|never\s+\w+)\b"
                            r"|\bmissing\b|\bdoesn'?t exist\b|\bno longer exists?\b", _I),
    "d-negation": lazy(r"\b(?:doesn'?t|does not|isn'?t|is not|wasn'?t|weren'?t|aren'?t|didn'?t|can'?t|"
                             r"cannot|won'?t|never|fails? to|failed to)\b", _I),
    "d-error-name": lazy(r"\b\w+(?:Error|Exception)\b|\bE[A-Z]{4,}\b|\b[45]\d\d\b"),
    "d-means": lazy(r"\b(?:this|that|which|it) (?:means|indicates|suggests|tells us)\b|\bthe (?:error|"
                          r"message|log|output|trace) (?:says|shows|indicates|means|tells)\b", _I),
    "d-mismatch": lazy(r"\b(?:mismatch|conflict|incompatible|not compatible|typo|off-by-one|race "
                             r"condition|instead of|rather than|expects?|expected)\b", _I),
}
_REMEDY: dict[str, re.Pattern] = {
    "r-i-did": lazy(
        r"\bi(?:'ve| have)?\s+(?:just\s+|now\s+|also\s+|already\s+)?(?:fixed|changed|updated|added|removed|"
        r"replaced|moved|set|renamed|wrapped|switched|patched|adjusted|modified|corrected|rewrote|restored|"
        r"reverted|installed|configured|created|deleted|made|pinned|bumped|upgraded|downgraded|disabled|"
        r"enabled|increased|reduced|refactored|converted|applied|implemented|edited|cleaned)\b", _I),
    "r-fix-is": lazy(r"\b(?:the\s+)?(?:fix|solution|workaround|remedy|resolution)\s*(?:is|was|here|:)|"
                           r"\bfixed (?:it |this |that )?by\b|\bto (?:fix|solve|resolve) (?:this|it|that|the)\b|"
                           r"\bresolved by\b|\bfix(?:ed)?:", _I),
    "r-will-fix": lazy(
        r"\b(?:let me|let'?s|i'?ll|i will|i'?m going to|now i'?ll|i need to|we need to|need to)\s+(?:now\s+)?"
        r"(?:fix|update|change|add|remove|correct|patch|modify|replace|restart|create|set|move|rename|wrap|"
        r"install|switch|adjust|rewrite|revert|restore|delete|clean|configure|make|initiali[sz]e|handle|"
        r"rebuild|regenerate|reinstall|pin|bump|upgrade|downgrade)\b|\b(?:fixing|updating|patching) (?:that|"
        r"this|it|the)\b", _I),
    "r-now": lazy(r"\b(?:now (?:works|returns|uses|shows|loads|renders|passes|handles|correctly|properly|"
                        r"points|reads|starts|builds|runs)|should now|will now|no longer|is now|are now)\b", _I),
    "r-imperative": lazy(
        r"^(?:\d+[.)]\s*)?(?:you (?:can|should|need to|must)\s+|just\s+|simply\s+|please\s+)?(?:add|change|set|"
        r"replace|run|install|use|update|remove|delete|restart|rename|move|wrap|pass|enable|disable|upgrade|"
        r"downgrade|pin|export|initiali[sz]e|create|edit|open|clear|reinstall|try|point|configure)\b", _I),
    "r-done": lazy(r"^(?:done|fixed|all set|resolved)\b|\b(?:has|have) been (?:fixed|resolved|updated|"
                         r"changed|removed|added)\b|\bis (?:now )?fixed\b", _I),
    "r-progressive": lazy(
        r"\bi'?m (?:now |also |just )?(?:applying|adding|patching|updating|fixing|changing|removing|replacing|"
        r"switching|moving|setting|installing|rewriting|wrapping|restoring|reverting|enabling|disabling|making|"
        r"pinning|bumping|guarding|tightening|correcting)\b|^(?:applying|adding|patching|updating|fixing|changing|"
        r"removing|replacing|switching|restructuring|rewriting|wrapping|moving|pinning|correcting)\b", _I),
    "r-corrected": lazy(r"\b(?:corrected|fixed|updated) (?:version|config|code|file)\b|\breplaced with\b|"
                              r"\bsafe to (?:delete|remove)\b|\binstead\b", _I),
    "r-change-to": lazy(r"\b(?:changed?|switch(?:ed)?|updated?|set|moved?|renamed?)\b[^.]{1,80}?\b(?:to|"
                              r"from|instead)\b", _I),
}
_STRONG_DIAGNOSIS = ("d-issue-is", "d-root-cause", "d-because", "d-thats-why", "d-found")
_STRONG_REMEDY = ("r-i-did", "r-fix-is", "r-will-fix", "r-done", "r-change-to", "r-progressive")
_PLAN = lazy(r"^(?:i'?ll|i will|let me (?:check|look|read|search|see|examine|investigate|explore|find|"
                   r"start|first|get|review|analy[sz]e|understand)|first,? (?:let me|i'?ll)|now let me (?:check|"
                   r"look|read|see))\b", _I)
_QUESTION_OUT = lazy(r"\b(?:would you like|do you want|should i|shall i|want me to|let me know if)\b", _I)
_HEDGE = lazy(r"\b(?:might|maybe|possibly|probably|could be|likely|i suspect|not sure|perhaps|may be)\b", _I)
_SUMMARY = lazy(r"^(?:summary|here'?s what|changes made|i'?ve (?:implemented|created|built|added the)|"
                      r"the (?:implementation|feature) (?:is|now))\b", _I)
_USER_PROBLEM = lazy(r"\b(?:error|errors|not working|doesn'?t work|does not work|broken|fails?|failing|"
                           r"failed|crash\w*|still|bug|issue|exception|traceback|wrong|why)\b", _I)
_WORD = lazy(r"[a-z][a-z0-9_'-]*")


def _cues(text: str, table: dict[str, re.Pattern]) -> set[str]:
    return {name for name, pattern in table.items() if pattern.search(text)}


@dataclass(frozen=True, slots=True)
class _Reading:
    sentences: list  # list[fix_parse.Sentence]
    diag: list  # set of diagnosis cue names per sentence
    remedy: list  # set of remedy cue names per sentence
    candidate: FixStatement | None
    done: bool


def _read(reply: object) -> _Reading:
    sentences, done, candidate = fix_parse.read(reply)
    diag = [_cues(s.text, _DIAGNOSIS) | ({"d-label"} if s.role == "problem" else set()) for s in sentences]
    remedy = [_cues(s.text, _REMEDY) | ({"r-label"} if s.role == "solution" else set()) for s in sentences]
    return _Reading(sentences, diag, remedy, candidate, done)


def _features(reading: _Reading, prev_user: object) -> dict[str, float]:
    sentences = reading.sentences
    if not sentences:
        return {"no-prose": 1.0}
    f: dict[str, float] = {}
    c = reading.candidate
    if c is not None:
        f["parse=found"] = 1.0
        d_kind, _, r_kind = c.pattern.partition("+")
        f["parse-d=" + d_kind] = 1.0
        f["parse-r=" + r_kind] = 1.0
        if c.confidence >= 0.8:
            f["parse>=0.8"] = 1.0
    if reading.done:
        f["preamble-fixed"] = 1.0
    all_diag: set[str] = set().union(*reading.diag)
    all_remedy: set[str] = set().union(*reading.remedy)
    for name in all_diag | all_remedy:
        f["has=" + name] = 1.0
    strong_d = [i for i, d in enumerate(reading.diag) if d & set(_STRONG_DIAGNOSIS) or "d-label" in d]
    strong_r = [i for i, r in enumerate(reading.remedy) if r & set(_STRONG_REMEDY) or "r-label" in r]
    any_d = [i for i, d in enumerate(reading.diag) if d]
    any_r = [i for i, r in enumerate(reading.remedy) if r]
    if strong_d:
        f["strong-diag"] = 1.0
        f["first-strong-diag" + bucket(strong_d[0], (0, 2, 5))] = 1.0
    flags(f, (("strong-remedy", strong_r), ("strong-both", strong_d and strong_r),
              ("strong-pair-near", any(0 <= r - d <= 2 for d in strong_d for r in strong_r)),
              ("diag-then-remedy", any(0 <= r - d <= 1 for d in any_d for r in strong_r)),
              ("same-sentence", any(d == r for d in strong_d for r in any_r))))
    for i in strong_d[:3]:
        for name in reading.diag[i]:
            for j in range(i, min(i + 3, len(sentences))):
                for rname in reading.remedy[j]:
                    f[f"pair={name}+{rname}"] = 1.0
    first, last = sentences[0].text, sentences[-1].text
    flags(f, (("opens-with-plan", _PLAN.match(first)), ("opens-with-summary", _SUMMARY.match(first)),
              ("ends-asking", last.rstrip().endswith("?") or _QUESTION_OUT.search(last))))
    hedges = sum(1 for s in sentences if _HEDGE.search(s.text))
    if hedges:
        f["hedge" + bucket(hedges, (1, 3))] = 1.0
    items = sum(1 for s in sentences if s.item)
    if items:
        f["items" + bucket(items, (2, 6))] = 1.0
    f["sentences" + bucket(len(sentences), (1, 3, 6, 12, 25))] = 1.0
    if isinstance(prev_user, str) and prev_user.strip():
        if _USER_PROBLEM.search(prev_user[:400]):
            f["user-reported-problem"] = 1.0
    else:
        f["user=none"] = 1.0
    words = _WORD.findall(" ".join(s.text for s in sentences).lower())[:NGRAM_WORDS]
    f.update(("w=" + w, 1.0) for w in set(words))
    f.update((f"b={a}_{b}", 1.0) for a, b in set(zip(words, words[1:])))
    return f


def reply_features(reply: object, prev_user: object = None) -> dict[str, float]:
    """Named features of an agent reply (for training and scoring); ``{"no-prose": 1.0}`` for none."""
    return _features(_read(reply), prev_user)


# Extraction and the verdict
_DIAG_RANK = ("d-label", "d-issue-is", "d-root-cause", "d-found", "d-thats-why", "d-because", "d-means",
              "d-missing", "d-mismatch", "d-error-name", "d-negation")
_REMEDY_RANK = ("r-label", "r-fix-is", "r-i-did", "r-done", "r-change-to", "r-progressive", "r-will-fix",
                "r-corrected", "r-now", "r-imperative")
_LEAD = lazy(r"^(?:so|and|then|now|also|ok(?:ay)?|great|good news|perfect)[,:!]?\s+", _I)


def _cut(text: str) -> str:
    return fix_parse.shorten(_LEAD.sub("", " ".join(text.split())).strip().rstrip(".。!:"))


def _rank(names: set[str], order: tuple[str, ...]) -> int:
    return min((order.index(n) for n in names if n in order), default=len(order))


def _extract(reading: _Reading) -> tuple[str, str, str] | None:
    """(problem, solution, pattern) from the cue sentences, or None."""
    diag_idx = [i for i, d in enumerate(reading.diag) if d and not reading.sentences[i].heading]
    if not diag_idx:
        return None
    best = min(diag_idx, key=lambda i: (_rank(reading.diag[i], _DIAG_RANK), i))
    d_name = _DIAG_RANK[_rank(reading.diag[best], _DIAG_RANK)]
    for j in list(range(best, min(best + 4, len(reading.sentences)))) + [best - 1]:
        if j < 0 or not reading.remedy[j] or reading.sentences[j].heading:
            continue
        if j == best and not (reading.remedy[j] & set(_STRONG_REMEDY)):
            continue  # one sentence holding both needs a clear remedy ("…, so I moved X")
        r_name = (*_REMEDY_RANK, "r-other")[_rank(reading.remedy[j], _REMEDY_RANK)]
        problem = _cut(reading.sentences[best].text)
        solution = _cut(reading.sentences[j].text)
        if problem and solution:
            return problem, solution, f"scored:{d_name}+{r_name}"
    return None


def fix_score(reply: object, prev_user: object = None) -> float:
    """How likely ``reply`` states a fix (0..1); 0.0 on bad input."""
    try:
        return model(WEIGHTS_FILE, "fix").score(reply_features(reply, prev_user))
    except Exception:  # noqa: BLE001
        return 0.0


def detect_fix(reply: str, prev_user: str | None = None) -> FixStatement | None:
    """The fix statement in ``reply`` (``prev_user``: the user's message before it, when known), or
    None; never raises (any internal failure is "no fix here")."""
    try:
        if not isinstance(reply, str) or not reply.strip():
            return None
        reading = _read(reply)
        scorer = model(WEIGHTS_FILE, "fix")
        score = scorer.score(_features(reading, prev_user))
        c = reading.candidate
        if not scorer.weights:  # no weight file: the parser alone decides
            return c
        if score < scorer.threshold:
            return None
        if c is not None:
            return replace(c, confidence=round(score, 3))
        found = _extract(reading)
        return FixStatement(*found, round(score, 3)) if found else None
    except Exception:  # noqa: BLE001 — a detector must never break the host
        return None


# Lookup text
# what makes a word an identifier: punctuation inside it, mixed case, all-caps,
# digits, or kebab-case (package names, CLI flags)
_CODEY_RE = lazy(r"[_./\\@:=<>()]|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]|^[A-Z0-9]{3,}$|\d|\w-\w|^--?\w")


def _identifiers(text: str) -> list[str]:
    tokens = (raw.strip(",;:!?\"'()[]{}").rstrip(".") for raw in text.split())
    return [t for t in tokens if len(t) >= 2 and _CODEY_RE.search(t) and t.lower() not in ("e.g", "i.e")]


def lookup_text(fix: FixStatement) -> str:
    """The text the lexical index ranks on: the problem plus the solution's identifiers (why: docs/fix-patterns.md)."""
    seen = {t.lower() for t in _identifiers(fix.problem)}
    extra: dict[str, str] = {}  # the first spelling of each new identifier
    for ident in _identifiers(fix.solution):
        extra.setdefault(ident.lower(), ident)
    return " ".join([fix.problem.strip(), *(i for low, i in extra.items() if low not in seen)]).strip()
