"""Features of one user message (with the agent's previous reply) for the learned scorers.

:func:`user_features` reads a message once and returns named features; the models in
:mod:`tacit.detect.model` weigh them. The same function runs in training
(``tests/benchmarks/train_detectors.py``) and at run time, so the two cannot drift apart.

Design notes: docs/design/detect.md#tacitdetectfeatures"""

from __future__ import annotations

from dataclasses import dataclass

from tacit.lazyre import lazy
from tacit.detect import cues as _cues
from tacit.detect.model import bucket, flags
from tacit.detect.markers import DurableMarkers, durable_markers
from tacit.detect.patterns import OriginalHit, default_patterns, original_rule
from tacit.detect.text import (
    PLACEHOLDER, clean, content_tokens, focus_text, is_program_output, looks_like_agent_prompt, sentences,
    strip_quoted, words,
)

#: n-grams come from at most this many leading and trailing words
HEAD_WORDS, TAIL_WORDS = 48, 16

_NUM = lazy(r"^\d[\d.,:x]*$")
_TERSE_CONTRAST = lazy(
    r"^(?:no+[,.!]?\s+|nope[,.!]?\s+|its\s+|use\s+|it should be\s+|should be\s+)?"
    r"(?P<a>[\w@#.+/:-]+(?:\s[\w@#.+/:-]+)?)\s*,?\s+(?:not|instead of|over|rather than)\s+"
    r"(?P<b>[\w@#.+/:-]+(?:\s[\w@#.+/:-]+)?)(?:\s+(?:here|please|pls|thanks|thx|in this (?:repo|project)))?[.!]*$")
_NEGATION = lazy(r"\b(?:not|dont|do not|no|never|wrong|isnt|didnt|doesnt|wasnt|arent|cant|shouldnt|stop)\b")
_PREV_CLAIMS_FIX = lazy(
    r"\b(?:fixed|should (?:now )?(?:work|be fixed|be resolved)|now (?:works|work|shows|loads|renders|returns)|"
    r"is now|are now|resolved|works now|done|try (?:it )?(?:again|now)|refresh)\b")
_PREV_IN_PROGRESS = lazy(r"\b(?:let me|ill|i will|im going to|now i|next i|first i)\b")
_PREV_CHOICE = lazy(r"\b(?:option|which|prefer|would you like|do you want|or)\b[^?]*\?\s*$")
_YOU = lazy(r"\b(?:you|your|youre|youve)\b")
_I_WANT = lazy(r"\bi (?:want|need|wanted|meant|asked|said|told)\b")
_PASTE = lazy(r"\[pasted text|\[image #?\d|<image>|@\S+\.\w+")
_UPPER_WORD = lazy(r"\b[A-Z]{3,}\b")
_FRUSTRATION = lazy(r"\b(?:wtf|seriously|ugh+|come on|again|annoying|terrible|awful|horrible|useless|stupid|"
                          r"ridiculous|frustrat\w*|bro|dude|omg|jesus|fucking|fuck|damn|crap|nonsense|sigh)\b|!!|\?\?")
_YOU_PAST = lazy(r"\b(?:you|u)(?: just| also| still| again| even)? (?:\w+ed|did|made|put|broke|took|wrote|"
                       r"left|ran|set|got)\b")
_STILL = lazy(r"\bstill\b")
#: an instruction that opens the message ("use uv", "dont touch the tests", "please remove …")
_IMPERATIVE = lazy(r"^(?:please |pls |just |now |also |then |ok(?:ay)? |so )?(?:use|dont|do not|never|always|"
                         r"stop|make|keep|avoid|remove|add|put|move|rename|switch|change|fix|revert|undo|ignore|"
                         r"prefer)\b")
_YOU_MODAL = lazy(r"\byou (?:should|must|need to|have to|shouldnt|cant|didnt|forgot|missed|broke)\b")
_DURABLE_CUE = lazy(r"\b(?:always|never|from now on|going forward|in (?:the )?future|every time|by default|"
                          r"(?:we|i) (?:use|prefer|always|never|like|want)|our (?:\w+ )?(?:is|are|uses))\b")
_CODE_OR_PATH = lazy(r"\b\w+\.(?:py|ts|tsx|js|json|md|yml|yaml|toml|go|rs|sh)\b|/\w+/")
_PREV_ERROR = lazy(r"error|traceback|failed|exception")
#: a failure report's form (``rep:``; issue 22, eleventh round: the correction scorer only, chosen out
#: of fold on the tune split): the result fails, nothing the agent chose is rejected
_REPORT_FORMS = (
    ("still-fails", lazy(r"\bstill (?:not|doesnt|isnt|wont|cant|fails?|failing|broken|getting|seeing|see|get|"
                         r"shows?|showing|the same|happening|having|an? error|errors?|no)\b")),
    ("same", lazy(r"\bsame (?:error|issue|problem|thing|result|bug|output|behaviou?r)\b")),
    ("not-working", lazy(r"\b(?:not|isnt|doesnt|dont|didnt|wont|cant) (?:work|working|load|loading|show|showing|"
                         r"render|rendering|compile|build|run|running|start|starting|fixed|resolved|change|"
                         r"changed|appear|display|displaying|happen)\b")),
    ("i-get", lazy(r"\b(?:i (?:get|got|see|saw|am getting|m getting|am seeing|m seeing|still get|still see)|"
                   r"im getting|im seeing|getting (?:an?|this|the)|it (?:says|shows|gives|returns|throws|outputs)|"
                   r"now (?:it|i|there))\b")),
    ("error-word", lazy(r"\b(?:error|errors|exception|traceback|failed|failing|fails|crash\w*|undefined|null|"
                        r"warning)\b")),
)
#: the agent's reply asked the user to try its change (a failure report usually answers that)
_PREV_ASKS_TEST = lazy(r"\b(?:try (?:it|again|now|running|that)|please (?:test|try|run|check|refresh)|"
                       r"can you (?:test|try|run|check|confirm|refresh)|let me know|give it a (?:try|go)|refresh|"
                       r"restart)\b")
#: word shapes (issue 22): the opening word's class and function-word cues, which do not name a
#: project's words and so carry over to other projects (chosen by out-of-fold figures on the tune split)
_OPENER = {**dict.fromkeys(("no", "nope", "nah", "wrong", "incorrect"), "reject"),
           **dict.fromkeys(("stop", "wait", "hold", "hang", "whoa"), "halt"),
           **dict.fromkeys(("actually", "hmm", "but", "well", "however"), "turn"),
           **dict.fromkeys(("you", "youre", "youve", "u", "your"), "you"),
           **dict.fromkeys(("why", "whyd"), "why"), **dict.fromkeys(("how", "what", "where"), "wh"),
           **dict.fromkeys(("please", "pls"), "polite"), **dict.fromkeys(("can", "could", "would"), "ask"),
           **dict.fromkeys(("ok", "okay", "yes", "great", "thanks", "perfect", "good"), "ok"),
           **dict.fromkeys(("i", "im", "ive"), "i"), **dict.fromkeys(("we", "our"), "we"), "lets": "lets"}
_SHAPES = {
    "instead": lazy(r"\binstead\b|\brather than\b"),
    "again": lazy(r"\bagain\b|\bonce more\b"),
    "still": lazy(r"\bstill\b"),
    "already": lazy(r"\balready\b"),
    "should": lazy(r"\b(?:should(?:nt)? (?:be|have|not)|supposed to|meant to|expected)\b"),
    "wrong": lazy(r"\b(?:wrong|incorrect|mistake|broke|broken|messed|wtf|nonsense)\b"),
    "i-meant": lazy(r"\bi (?:meant|asked|said|told|wanted|mean)\b"),
    "dont-want": lazy(r"\bi (?:dont|do not|didnt|did not) (?:want|need|like|ask)\b"),
    "not-x-but": lazy(r"\bnot\b[^,.;!?]{1,40}\bbut\b|\b\w+,? not \w+\b"),
    "why-you": lazy(r"\bwhy (?:did|do|are|is|would|have) (?:you|u|it|this|that)\b"),
    "you-verb-ed": lazy(r"\b(?:you|u) (?:just |also |still |again |even )?\w+ed\b"),
    "neg": lazy(r"\b(?:not|dont|do not|no|never|cant|isnt|doesnt|didnt|wont)\b"),
    "please": lazy(r"\b(?:please|pls|plz)\b"),
    "thanks": lazy(r"\b(?:thanks|thank you|great|perfect|awesome|nice|works)\b"),
}
#: the shapes also read together with the message's size and the reply's state
_SHAPES_IN_CONTEXT = frozenset(("neg", "instead", "again", "wrong", "should", "i-meant", "still"))
_YOU_WORDS = frozenset(("you", "your", "youre", "youve", "u"))
_OBJECT_WORDS = frozenset(("the", "a", "an", "all", "this", "that", "these", "those", "my", "it", "them", "any"))
#: closed-class words the form n-grams (``fw:``) keep; every other word becomes "~", so "you ~ ~
#: again" is shared by every project (issue 22, seventh round: chosen out of fold on the tune split)
FORM_WORDS = frozenset("""
i me my mine we us our you your yours it its they them their he she this that these those there here
a an the some any all every each no not nor never none nothing dont didnt doesnt isnt wasnt arent cant
wont shouldnt wouldnt havent hasnt im ive id youre youve youd thats theres lets
am is are was were be been being do does did done have has had will would shall should can could may
might must need needs want wanted meant mean said say told ask asked
and or but so if then than because as of to in on at by for from with without about into over under
again still already just only also too instead rather actually really please thanks thank ok okay
yes yeah yep nope wait stop why what how when where which who whom whose
use using used try tried make made keep change changed revert undo remove add fix fixed work works
working wrong right correct same other another always first before after now like #num
""".split())
#: the n-gram features of a message share this much weight (each gets NGRAM_MASS / sqrt(count)),
#: so a long message does not outweigh the hand-built cues by its length alone
NGRAM_MASS = 2.0


@dataclass(frozen=True, slots=True)
class MessageReading:
    """One message read once; what every detector needs from it."""

    raw: str  # cleaned input (bounded, surrogates replaced)
    focus: str  # quotes, code and logs removed; long messages cut to their edges
    lower: str
    bare: str
    prev: str | None
    msg: _cues.Message | None  # None when there is nothing to judge
    hits: tuple  # correction cue hits (name, weight, firm, matched)
    contrast: _cues.Contrast | None
    signals: _cues.Signals | None
    heuristic: float  # the hand-tuned correction scorer, 0..1
    markers: DurableMarkers
    skipped: str | None  # "empty" | "agent-prompt" | "quoted-only" | None
    english: bool
    original: OriginalHit | None = None  # the original rule with the built-in lists
    n_words: int = 0
    output_only: bool = False  # every line is program or harness output: judged, never a correction or lesson


def _is_english(text: str) -> bool:
    letters = [c for c in text[:2000] if c.isalpha()]
    return not letters or sum(map(str.isascii, letters)) >= 0.8 * len(letters)


_EMPTY_MARKERS = durable_markers("")


def read(text: object, prev_assistant: object = None) -> MessageReading:
    """Read a message once (never raises on odd input)."""
    raw = clean(text)
    prev = clean(prev_assistant) or None

    def skipped(why: str, english: bool = True) -> MessageReading:
        return MessageReading(raw, "", "", "", prev, None, (), None, None, 0.0, _EMPTY_MARKERS, why, english)

    if not raw.strip():
        return skipped("empty")
    if looks_like_agent_prompt(raw):
        return skipped("agent-prompt")
    stripped = strip_quoted(raw)
    focus = focus_text(stripped)
    if not focus.strip(" \n\u2026"):
        return skipped("quoted-only", _is_english(raw))
    msg = _cues.read_message(focus, prev)
    lower, bare = msg.lower, msg.bare
    approval = _cues.approval_turn(msg)
    hits = tuple(_cues.cue_hits(msg))
    contrast = _cues.contrast_cue(msg)
    sig = _cues.signals(msg, approval)
    heuristic = _cues.heuristic_score(msg, list(hits), contrast, sig)
    markers = durable_markers(focus)
    original = original_rule("\n".join(sentences(lower)), default_patterns())
    return MessageReading(raw, focus, lower, bare, prev, msg, hits, contrast, sig, heuristic, markers, None,
                          _is_english(focus), original, len(words(bare)), is_program_output(stripped))


def user_features(reading: MessageReading) -> dict[str, float]:
    """Named features of a read message (see module doc)."""
    if reading.skipped:
        return {"skip=" + reading.skipped: 1.0}
    f: dict[str, float] = {}
    n = _text_features(reading, f)
    negated = _cue_features(reading, f, n)
    _prev_features(reading, f, n, negated)
    _report_features(reading, f)
    _shape_features(reading, f)
    _marker_features(reading.markers, f)
    return f


def _text_features(reading: MessageReading, f: dict[str, float]) -> int:
    """Word n-grams and the message's shape; returns its length in words."""
    tokens = ["#num" if _NUM.match(t) else t for t in words(reading.bare)]
    n = len(tokens)
    view = tokens if n <= HEAD_WORDS + TAIL_WORDS else tokens[:HEAD_WORDS] + tokens[-TAIL_WORDS:]
    grams = {"w=" + t for t in view} | {f"b={a}_{b}" for a, b in zip(view, view[1:])}
    for name in grams:
        f[name] = NGRAM_MASS / len(grams) ** 0.5
    if tokens:
        f["first=" + tokens[0]] = 1.0
        f["first2=" + "_".join(tokens[:2])] = 1.0
        f["last=" + tokens[-1]] = 1.0
        _form_features(tokens, view, grams, f)
    f["len" + bucket(n, (2, 5, 10, 20, 40, 80))] = 1.0
    focus = reading.focus
    flags(f, (("lines>=4", focus.count("\n") >= 3),
               ("mostly-pasted", len(reading.raw) > 2 * max(1, len(focus))),
               ("has-quote", PLACEHOLDER.strip() in focus),
               ("paste-or-file-ref", bool(_PASTE.search(reading.raw[:2000].lower()))),
               ("ends-?", focus.rstrip().endswith("?")), ("has-!", "!" in focus),
               ("shouting", len(_UPPER_WORD.findall(focus[:600])) >= 2), ("not-english", not reading.english),
               ("code-or-path", bool(_CODE_OR_PATH.search(focus)))))
    return n


def _form_features(tokens: list[str], view: list[str], grams: set[str], f: dict[str, float]) -> None:
    """The word n-grams again with every word outside ``FORM_WORDS`` as "~" (``fw:``): the
    message's form without its topic (a collapsed n-gram sums the values of its sources)."""
    def form(t: str) -> str:
        return t if t in FORM_WORDS else "~"
    value = NGRAM_MASS / len(grams) ** 0.5
    names = [f"fw:w={form(t)}" for t in set(view)] + [f"fw:b={form(a)}_{form(b)}" for a, b in set(zip(view, view[1:]))]
    for name in names:
        f[name] = f.get(name, 0.0) + value
    f["fw:first=" + form(tokens[0])] = f["fw:last=" + form(tokens[-1])] = 1.0
    f["fw:first2=" + "_".join(form(t) for t in tokens[:2])] = 1.0


def _cue_features(reading: MessageReading, f: dict[str, float], n: int) -> bool:
    """Correction cues and signals; returns whether the message negates."""
    msg, bare = reading.msg, reading.bare
    for name, _weight, firm, _matched in reading.hits:
        f["cue=" + name] = 1.0
        if firm:
            f["cue-firm"] = 1.0
    if reading.hits:
        f["cues" + bucket(len(reading.hits), (1, 2, 3))] = 1.0
    c = reading.contrast
    if c is not None:
        f["contrast=" + c.kind] = 1.0
        if c.in_prev:
            f["contrast-in-prev"] = 1.0
    terse = _TERSE_CONTRAST.match(bare) if n <= 10 else None
    if terse:
        f["terse-contrast"] = 1.0
        if reading.prev and content_tokens(terse.group("b")) & content_tokens(msg.prev_bare):
            f["terse-contrast-in-prev"] = 1.0
    sig = reading.signals
    flags(f, (("sig=bug", msg.bug), ("sig=request", msg.request), ("sig=question", msg.is_question),
               ("sig=approval", sig.approval), ("sig=curious", sig.curious), ("sig=own-doing", sig.own_doing),
               ("sig=opens-task", sig.opens_task), ("sig=repeated", sig.repeated)))
    f["heuristic"] = reading.heuristic
    if reading.heuristic >= 0.5:
        f["heuristic>=0.5"] = 1.0
    if reading.original is not None:
        f["orig=" + reading.original.kind] = 1.0
    flat = " ".join(bare.split())
    negated = bool(_NEGATION.search(bare))
    flags(f, (("negation", negated), ("you", _YOU.search(bare)), ("frustration", _FRUSTRATION.search(bare)),
               ("you-past", _YOU_PAST.search(bare)), ("still", _STILL.search(bare)),
               ("i-want", _I_WANT.search(bare)), ("imperative", _IMPERATIVE.match(flat)),
               ("you-modal", _YOU_MODAL.search(flat)), ("durable-cue", _DURABLE_CUE.search(flat))))
    return negated


def _prev_features(reading: MessageReading, f: dict[str, float], n: int, negated: bool) -> None:
    """What the agent's previous reply did, and how the message relates to it."""
    msg = reading.msg
    if not reading.prev:
        f["prev=none"] = 1.0
        return
    prev_bare = msg.prev_bare
    choice = msg.prev_asks and _PREV_CHOICE.search(prev_bare[-300:])
    flags(f, (("prev=asks", msg.prev_asks), ("prev=offers-choice", choice),
              ("short-answer-to-choice", choice and n <= 12)))
    flags(f, (("prev=acted", msg.prev_acted), ("prev=claims-fix", _PREV_CLAIMS_FIX.search(prev_bare[-400:])),
               ("prev=error", _PREV_ERROR.search(reading.prev.lower())),
               ("prev=in-progress", _PREV_IN_PROGRESS.search(prev_bare[-200:]))))
    mine = content_tokens(reading.bare)
    if mine:
        share = len(mine & content_tokens(prev_bare)) / len(mine)
        f["overlap" + ("=0" if share == 0 else "<0.3" if share < 0.3 else ">=0.3")] = 1.0
    flags(f, (("negation&prev-acted", negated and msg.prev_acted),
               ("cue&prev-acted", reading.hits and msg.prev_acted),
               ("bug&prev-claims-fix", msg.bug and "prev=claims-fix" in f)))


def _report_features(reading: MessageReading, f: dict[str, float]) -> None:
    """The form of a failure report (``rep:``): what it says (still failing, same error, I get …, an
    error word), how much of it is pasted, a ":" before a paste, and each form with the reply's state."""
    found = [name for name, rx in _REPORT_FORMS if rx.search(reading.bare)]
    pasted = 1.0 - len(reading.focus) / max(1, len(reading.raw))
    f["rep:pasted" + ("=0" if pasted < 0.05 else "<0.5" if pasted < 0.5 else ">=0.5")] = 1.0
    flags(f, (("rep:ends-colon", reading.focus.rstrip().endswith(":")), ("rep:any", found)))
    prev = "none"
    if reading.prev:
        asks_test = bool(_PREV_ASKS_TEST.search(reading.msg.prev_bare[-300:]))
        flags(f, (("rep:prev-asks-test", asks_test),))
        prev = "claims" if "prev=claims-fix" in f else "test" if asks_test else \
            "acted" if reading.msg.prev_acted else "other"
    for name in found:
        f["rep:" + name] = f[f"rep:{name}&prev={prev}"] = 1.0


def _shape_features(reading: MessageReading, f: dict[str, float]) -> None:
    """Word shapes (``sh:``): the opening word's class, function-word cues, and their
    conjunctions with the message's size, a question mark and the agent's reply."""
    tokens = words(reading.bare)
    if not tokens:
        return
    opener = _OPENER.get(tokens[0], "other")
    if opener == "halt" and len(tokens) > 1 and tokens[1] in _OBJECT_WORDS:
        opener = "do"  # "stop the server and restart it": an instruction, not a halt
    opener = "sh:open=" + opener
    size = "short" if len(tokens) <= 8 else "mid" if len(tokens) <= 30 else "long"
    msg = reading.msg
    prev = "none" if not reading.prev else "acted" if msg.prev_acted else "asks" if msg.prev_asks else "other"
    f[opener] = f["sh:size=" + size] = f["sh:prev=" + prev] = 1.0
    f[f"{opener}&prev={prev}"] = f[f"{opener}&{size}"] = 1.0
    for name, rx in _SHAPES.items():
        if rx.search(reading.bare):
            f["sh:" + name] = 1.0
            if name in _SHAPES_IN_CONTEXT:
                f[f"sh:{name}&{size}"] = f[f"sh:{name}&prev={prev}"] = 1.0
    if reading.focus.rstrip().endswith("?"):
        f[f"sh:q&{size}"] = f[f"sh:q&{opener[3:]}"] = 1.0
    you = sum(t in _YOU_WORDS for t in tokens)
    f["sh:you" + ("=0" if not you else "=1" if you == 1 else ">1")] = 1.0


def _marker_features(m: DurableMarkers, f: dict[str, float]) -> None:
    """The durable-statement markers found."""
    for category, found in m.found.items():
        if found:
            f["m=" + category] = 1.0
            if len(found) > 1:
                f["m2=" + category] = 1.0
    flags(f, (("m-boost", m.boosts), ("m-emphasis", m.emphasis), ("m-remember", m.remember),
               ("m-transient", m.transient), ("m-approval-only", m.approval_only)))
    if m.default_category:
        f["m-default=" + m.default_category] = 1.0
    f["m-rule=" + m.rule_category] = 1.0
    kinds = set(m.kinds)  # at most one of the three
    flags(f, (("kinds=task-only", kinds == {"task"}), ("kinds=question-only", kinds == {"question"}),
              ("kinds=has-statement", "statement" in kinds)))
