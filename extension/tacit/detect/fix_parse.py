"""The rule parser for fix statements: diagnosis triggers, remedy triggers, pairing.

The hand-written parser of the earlier fix detector, kept for two jobs: it
*extracts* the problem and solution texts of a reply the scorer in
:mod:`tacit.detect.fix` judged to state a fix, and its verdict is one of the
scorer's features.

Design notes: docs/design/detect.md#tacitdetectfix_parse"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from itertools import accumulate, groupby, islice, takewhile

from tacit.lazyre import lazy

__all__ = ["FixStatement", "Sentence", "parse", "read", "MIN_CONFIDENCE", "MAX_REPLY_CHARS"]

#: below this a candidate pair is not reported as a fix
MIN_CONFIDENCE = 0.6
#: replies longer than this are cut (fix statements come early, and the hook
#: path must stay fast on pasted logs)
MAX_REPLY_CHARS = 20_000
#: real sentences are far shorter; longer runs (pasted data, minified code
#: outside fences) are cut into pieces so the trigger scan stays linear
MAX_SENTENCE_CHARS = 600
#: sentences analysed per reply (a fix statement does not hide in sentence 300)
MAX_SENTENCES = 160
#: prose characters analysed per reply (fenced code does not count)
MAX_PROSE_CHARS = 10_000
#: trigger matches kept per pattern per sentence
MAX_MATCHES = 6
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


# Markdown / code handling

_PH_OPEN, _PH_CLOSE = "\ue000", "\ue001"
_PH_RE = lazy(_PH_OPEN + r"(\d+)" + _PH_CLOSE)
_CODE_SPAN_RE = lazy(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_FENCE_RE = lazy(r"^\s{0,3}(```+|~~~+)")
_HEADING_RE = lazy(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BOLD_LINE_RE = lazy(r"^\s*\*\*(.+?)\*\*\s*[:：]?\s*$")
_BULLET_RE = lazy(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+(.*)$")
_QUOTE_RE = lazy(r"^\s*>\s?")
_LINK_RE = lazy(r"\[([^\]\n]+)\]\([^)\s]+\)")
_TRACEBACK_LINE_RE = lazy(r'^\s*(?:Traceback \(most recent call last\)|File ".*", line \d+)')

_ABBREVIATIONS = {"e.g", "i.e", "vs", "cf", "approx", "mr", "mrs", "dr", "fig"}


def _protect_code_spans(text: str, spans: list[str]) -> str:
    def swap(match: re.Match) -> str:
        spans.append(match.group(2).strip())
        return f"{_PH_OPEN}{len(spans) - 1}{_PH_CLOSE}"

    return _CODE_SPAN_RE.sub(swap, text)


def _restore(text: str, spans: list[str]) -> str:
    return _PH_RE.sub(lambda m: spans[int(m.group(1))], text)


@dataclass(slots=True)
class _Unit:
    text: str
    kind: str  # heading | item | para
    block: int


def _units(reply: str, spans: list[str]) -> list[_Unit]:
    """Split markdown into headings, list items and paragraphs (code removed)."""
    units: list[_Unit] = []
    block = 0
    in_fence = False
    current: _Unit | None = None
    for raw in reply.splitlines():
        fence = _FENCE_RE.match(raw)
        if fence or not (in_fence or raw.strip()):  # a fence, or a blank line outside one, ends a block
            in_fence ^= bool(fence)
            block += 1
            current = None
            continue
        if in_fence or _TRACEBACK_LINE_RE.match(raw):
            continue
        line = _QUOTE_RE.sub("", raw)
        line = _protect_code_spans(line, spans)
        line = _LINK_RE.sub(r"\1", line)
        heading = _HEADING_RE.match(line) or _BOLD_LINE_RE.match(line)
        if heading:
            units.append(_Unit(heading.group(1).replace("**", "").strip(), "heading", block))
            current = None
            continue
        line = line.replace("**", "")
        bullet = _BULLET_RE.match(line)
        if bullet:
            current = _Unit(bullet.group(1).strip(), "item", block)
            units.append(current)
        elif current is not None:
            current.text += " " + line.strip()
        else:
            current = _Unit(line.strip(), "para", block)
            units.append(current)
    return units


_SENT_END_RE = lazy(r"[.!?]+(?=\s|$)|[。！？]+")


def _split_sentences(text: str) -> list[str]:
    """Split at sentence ends that are really sentence ends (see module doc)."""
    out: list[str] = []
    start = 0
    for match in _SENT_END_RE.finditer(text):
        end = match.end()
        if match.group(0)[0] not in "。！？":
            rest = text[end:].lstrip()
            if rest and rest[0].islower():
                continue  # "e.g. in", "i.e. it", "v2. and"
            word = text[:match.start()].rsplit(None, 1)[-1].lower() if text[:match.start()].strip() else ""
            if word.strip("(") in _ABBREVIATIONS and match.group(0) == ".":
                continue
        _append_bounded(out, text[start:end])
        start = end
    _append_bounded(out, text[start:])
    return out


def _append_bounded(out: list[str], piece: str) -> None:
    piece = piece.strip()
    while len(piece) > MAX_SENTENCE_CHARS:
        cut = piece.rfind(" ", MAX_SENTENCE_CHARS // 2, MAX_SENTENCE_CHARS)
        cut = cut if cut > 0 else MAX_SENTENCE_CHARS
        out.append(piece[:cut].strip())
        piece = piece[cut:].strip()
    if piece:
        out.append(piece)


# Lexicons

_PROBLEM_LABEL = (
    r"(?:the\s+)?(?:root[\s-]+cause|underlying\s+cause|cause|problem|issue|bug|diagnosis|culprit"
    r"|what\s+was\s+wrong|what\s+went\s+wrong|what\s+was\s+(?:happening|going\s+on|broken)|what\s+happened"
    r"|why\s+it\s+(?:failed|broke|happened)|reason|symptom|root\s+of\s+the\s+(?:problem|issue)"
    r"|根本原因|根因|原因|问题原因|问题)"
)
_SOLUTION_LABEL = (
    r"(?:the\s+)?(?:fix(?:es)?|solution|resolution|workaround|remedy|what\s+i\s+(?:changed|did|fixed)"
    r"|changes?\s+made|change|changes|修复方法|修复|解决方法|解决办法|解决方案|修改)"
)
_LABEL_HEADING_RE = lazy(
    rf"^\s*(?P<problem>{_PROBLEM_LABEL})?(?P<solution>{_SOLUTION_LABEL})?\s*[:：]?\s*$", re.IGNORECASE
)
_INLINE_LABEL_RE = lazy(
    rf"(?:^|(?<=[;.。；])\s*)(?:(?P<problem>{_PROBLEM_LABEL})|(?P<solution>{_SOLUTION_LABEL}))\s*[:：]\s*",
    re.IGNORECASE,
)
_PREAMBLE_RE = lazy(
    r"^(?:(?:great|good)\s+(?:news|question|catch)[!.,]?\s*)?"
    r"(?:fixed|solved|resolved|done|all\s+fixed|should\s+be\s+fixed(?:\s+now)?"
    r"|this\s+(?:is|should\s+be)\s+fixed(?:\s+now)?|it'?s\s+fixed(?:\s+now)?"
    r"|I'?ve\s+(?:made|applied|pushed)\s+the\s+fix|tracked\s+it\s+down|root-caused|problem\s+solved"
    r"|(?:ah,?\s+|ok(?:ay)?,?\s+)?I\s+see\s+(?:it|the\s+(?:problem|issue|bug))(?:\s+now)?|that\s+was\s+it"
    r"|(?:yep|yes|ok(?:ay)?|alright)[,!]?\s+(?:that\s+was\s+it|found\s+it)|修好了|已修复|搞定了?"
    r"|(?:I\s+)?found\s+the\s+(?:issue|problem|bug)\s+and\s+fixed\s+it|got\s+it\s+working"
    r"|(?:the\s+)?[\w\s'-]{1,40}?\s(?:has\s+been|is(?:\s+now)?)\s+fixed)\s*[:!.—–-]+\s*",
    re.IGNORECASE,
)

# defect vocabulary: a "because"/fallback diagnosis must talk about something wrong
_DEFECT_RE = lazy(
    r"n't\b|\bnot\b|\bno\b|\bnever\b|\bmissing\b|\bwithout\b|\binstead\s+of\b|\bwrong\b|\bincorrect"
    r"|\bbrok(?:e|en)\b|\bfail|\berror|\bexception|\bcrash|\bhang|\bhung\b|\btime[sd]?\s*out|\btimeout"
    r"|\bleak|\brace\b|\bstale\b|\bmismatch|\bconflict|\btypo\b|\boff-by-one\b|\boverflow|\bduplicat"
    r"|\bdouble-count|\bundefined\b|\bnull\b|\bnone\b|\bempty\b|\binvalid|\bdenied\b|\brefused\b"
    r"|\bforever\b|\bblocked\b|\bslow|\bgarbled\b|\bflaky\b|\bskipped\b|\bunset\b|\bout\s+of\s+date"
    r"|\boutdated\b|\bregression|\bchok|\bstray\b|\bkilled\b|\bstuck\b|\bcorrupt"
    r"|\bunescaped\b|\bunquoted\b|\bcut(?:ting)?\s+off\b|\bloop(?:ed|ing)\b|\bignored\b|\bmisses\b"
    r"|\bbug\b|\bissue\b|\bproblem\b|\b[45]\d\d\b|(?-i:\w(?:Error|Exception)\b|\bE[A-Z]{4,}\b|\bE\d{4}\b)"
    r"|\bpermission\b|\bunauthenticated\b|\brate\s+limit|\bincompatible\b|\bunsupported\b|\bunused\b"
    r"|\bcomplain|\bsilently\b|\bdid\s+nothing\b|\bfroze\b|\bfrozen\b|\btiming\s+out\b|\b[45]\d\d(?:s|\b)"
    r"|\btwice\b|\btoo\s+(?:old|new|large|big|small|slow|long|short|many|few|early|late)\b|\bgrowth\b"
    r"|\bgrowing\b|\bmisleading|\binconsistent|\bunexpected|\baccidentally\b|\bwrongly\b|\bmistaken"
    r"|\bthrows?\b|\bthrown\b|\bhard-?coded\b|\bblank\b|\blost\b|\bdropping\b|\boverwr[io]t|\bclobber"
    r"|\bbypass|\bleftover\b|\bwarning\b|\bdiverg",
    re.IGNORECASE,
)
# change-events are typical causes in "X because Y" (upgrade renamed, default changed)
_CAUSAL_RE = lazy(
    r"\b(?:changed|renamed|removed|moved|upgraded|updated|bumped|introduced|switched|defaulted"
    r"|default|only|still|already|before|after|assumed|expects?|expected|requires?|treated|cached)\b",
    re.IGNORECASE,
)
_SUCCESS_RE = lazy(
    r"\b(?:now\s+(?:passes|pass|works|work|succeeds|starts|loads|renders|connects|builds|runs|returns)"
    r"|pass(?:es)?\s+now|works?\s+(?:now|again|fine)|(?:is|are)\s+gone|green(?:\s+again)?|no\s+longer"
    r"|succeeds|all\s+\d+\s+tests\s+pass|tests?\s+pass|no-op|again\b|as\s+expected|fine\s+now"
    r"|renders\s+now|connects\s+now|validate\s+now|stays\s+flat|is\s+running|已经通过|正常)",
    re.IGNORECASE,
)
_FAILURE_RE = lazy(
    r"\b(?:didn'?t|did\s+not|doesn'?t|does\s+not|won'?t|hasn'?t|haven'?t|has\s+not|have\s+not)\s+"
    r"(?:(?:really|actually|yet|fully)\s+)?(?:fix(?:ed)?|help(?:ed)?|work(?:ed)?|solved?|resolved?"
    r"|change[d]?|touch(?:ed)?|make\s+a\s+difference)\b"
    r"|\bI\s+(?:couldn'?t|could\s+not|was\s+unable\s+to|wasn'?t\s+able\s+to)\b"
    r"|\bnone\s+of\s+(?:them|these|those|the\s+\w+)\s+(?:worked|helped|fixed)"
    r"|\bstill\s+(?:fails?|failing|broken|there|happening|happens|getting|get|see|seeing|throws"
    r"|errors|crashes|crashing|hangs|times\s+out|returns\s+\d{3})\b"
    r"|\bno\s+luck\b|\bnot\s+(?:yet\s+)?fixed\b|\bno\s+root\s+cause\b",
    re.IGNORECASE,
)
_DIAG_HEDGE_RE = lazy(
    r"\b(?:maybe|might|possibly|probably|perhaps|i\s+think|i\s+believe|i\s+suspect|i\s+guess"
    r"|likely|could\s+be|may\s+be|not\s+sure|one\s+possibility|my\s+guess|seems?"
    r"|presumably|hypothes\w+|可能|也许|大概)",
    re.IGNORECASE,
)
_CONDITIONAL_START_RE = lazy(r"^\s*(?:if|whether|assuming|suppose|in\s+case|如果|假如)\b", re.IGNORECASE)
_REMEDY_HEDGE_RE = lazy(
    r"\b(?:will|would|could|can|should|might|may|going\s+to|gonna|plan(?:ning)?\s+to|want\s+to"
    r"|need\s+to|let\s+me|let's|try|trying|consider|suggest|recommend|perhaps|maybe|probably"
    r"|if|unless|whether|want\s+me)\b|'ll\b|'d\b|我会|我将|可以试|建议|打算",
    re.IGNORECASE,
)
_GENERIC_RE = lazy(
    r"\b(?:usual|usually|common|commonly|typical|typically|in\s+general|generally|often|sometimes"
    r"|standard|general)\b",
    re.IGNORECASE,
)
_QUESTION_START_RE = lazy(
    r"^\s*(?:should\s+i|shall\s+i|do\s+you\s+want|would\s+you\s+like|want\s+me\s+to|can\s+you"
    r"|could\s+you|which\b|what\b|why\b|how\b|is\s+it\b|are\s+you\b)",
    re.IGNORECASE,
)
_ERROR_START_RE = lazy(
    r"^\s*(?:error\b|fatal\b|exception\b|failed\b|failure\b|sorry\b|unfortunately\b"
    r"|i\s+(?:couldn'?t|could\s+not|can'?t|cannot|was\s+unable|wasn'?t\s+able|am\s+unable|am\s+not\s+able"
    r"|don'?t\s+have\s+(?:access|permission|network))"
    r"|\w*(?:Error|Exception)\s*:|traceback\b|抱歉|错误[:：])",
    re.IGNORECASE,
)
_PRONOUN_RE = lazy(r"^\s*(?:this|that|it|these|those|which|the\s+(?:issue|problem|error|bug))\s*$", re.IGNORECASE)

_VERBS_PAST = (
    r"changed|moved|added|removed|replaced|updated|set|pinned|bumped|switched|renamed|wrapped|patched"
    r"|reverted|deleted|installed|uninstalled|reinstalled|upgraded|downgraded|rewrote|adjusted"
    r"|guarded|passed|mocked|stubbed|reordered|escaped|quoted|configured|corrected|fixed|raised"
    r"|lowered|increased|decreased|reduced|enabled|disabled|regenerated|rebuilt|restarted|cleared"
    r"|converted|modified|edited|marked|registered|exported|initiali[sz]ed|dropped|excluded|included"
    r"|defined|declared|collected|created|gave|put|swapped|made|forced|limited|capped|extended"
    r"|normali[sz]ed|sorted|deduplicated|deduped|handled|caught|skipped|ignored|inlined|extracted"
    r"|stripped|trimmed|cast|re-ran|reran|merged|pointed|restored|relaxed|tightened|saniti[sz]ed"
    r"|encoded|decoded|closed|reused|applied|specified|aligned|synced|unset|reset|widened|narrowed"
    r"|cached|invalidated|flushed|awaited|locked|throttled|debounced|bound|vendored|filtered|loaded"
    r"|imported|taught|told|allowed|whitelisted|allowlisted|rotated|re-generated|recreated|re-created"
    r"|committed|deployed|redeployed|rolled\s+back|separated|isolated|seeded|froze|frozen|quarantined"
    r"|split\s+out|filled|populated|supplied|provided|killed|stopped|started|terminated|granted"
    r"|mounted|linked|symlinked|copied|wired|hooked|allocated|assigned|attached|parsed|coerced"
)
_VERBS_NOW = (
    r"send|use|pass|set|read|load|check|call|sort|return|close|reuse|create|handle|wait|retry|stream"
    r"|validate|escape|skip|parse|verify|convert|take|compute|strip|quote|normali[sz]e|trim|cache"
    r"|catch|point|depend\s+on|include|exclude|ignore|write|resolve|await|guard|respect|fall\s+back"
)
# third person and plural: "it now uses", "both sides use … now"
_VERBS_PRESENT = (
    r"uses?|reads?|depends?\s+on|sorts?|sends?|returns?|checks?|waits?|handles?|calls?|points?|loads?"
    r"|runs?|retries|retry|validates?|escapes?|skips?|closes?|creates?|streams?|catches|catch|falls?\s+back"
    r"|respects?|includes?|excludes?|ignores?|strips?|quotes?|writes?|resolves?|verifies|verify|parses?"
    r"|awaits?|guards?|converts?|takes?|computes?|normali[sz]es?|trims?|caches?|passes|pass|sets?"
    r"|encodes?|decodes?|formats?|seriali[sz]es?|compares?|opens?|flush(?:es)?|locks?|rounds?|splits?"
    r"|joins?|merges?|filters?|emits?|logs?|raises?|reports?|accepts?|rejects?|limits?|backs?\s+off"
    r"|batch(?:es)?|paginates?|expires?|refresh(?:es)?|reuses?|renews?|saniti[sz]es?|appl(?:y|ies)"
    r"|stores?|saves?|builds?|installs?|exits?|deduplicates?|dedupes?|matches|match"
)
_GERUNDS = (
    r"setting|adding|removing|passing|using|switching|moving|changing|updating|pinning|upgrading"
    r"|downgrading|reverting|replacing|running|installing|escaping|wrapping|renaming|reusing|clearing"
    r"|deleting|reinstalling|bumping|disabling|enabling|exporting|declaring|defining|quoting|sorting"
    r"|calling|importing|marking|raising|lowering|increasing|reducing|restarting|regenerating"
    r"|rebuilding|pointing|making|giving|forcing|caching|closing|putting|dropping|excluding|including"
    r"|specifying|seeding|freezing|mocking|locking|converting|casting|trimming|stripping|normali[sz]ing"
)
_IMPERATIVES = (
    r"run|set|install|add|use|pass|change|remove|delete|upgrade|downgrade|pin|update|export|move"
    r"|replace|put|enable|disable|restart|reinstall|rename|wrap|switch|bump|clear|call|import|declare"
    r"|define|configure|edit|point|unset|escape|quote"
)


# Triggers.  Each finder returns spans on one sentence (placeholders intact).


@dataclass(slots=True)
class _Trigger:
    """A diagnosis or remedy in sentence ``sent``: its trigger phrase starts at ``trig_start``, its text
    spans ``start:end`` (``text``: a label section's, assembled; ``problem``: a combined trigger's)."""

    sent: int
    trig_start: int
    start: int
    end: int
    kind: str
    weight: float
    problem: str | None = None
    text: str = ""


_Diag = _Remedy = _Trigger


_D_ISSUE_RE = lazy(
    r"\b(?:(?:the|this|that|our|one|my)\s+)?(?:(?:real|actual|underlying|main|root|only)\s+)?"
    r"(?:issue|bug|problem|culprit|root[\s-]+cause|cause|regression|failure)"
    r"(?:\s+here|\s+with\s+[^,;:.]{1,40}?)?\s+"
    r"(?:was|is|turned\s+out\s+to\s+be|turns\s+out\s+to\s+be|came\s+from|comes\s+from|lies\s+in|lay\s+in"
    r"|(?:was|is)\s+coming\s+from|came\s+in\s+with|was\s+introduced\s+(?:in|by))\b\s*[:：]?\s*(?:that\s+)?",
    re.IGNORECASE,
)
_D_REASON_RE = lazy(
    r"\bthe\s+reason\b(?P<mid>[^.;:]{0,80})\s+(?:is|was)\s+(?:that\s+|because\s+)?", re.IGNORECASE
)
_D_FOUND_RE = lazy(
    r"\b(?:(?:found\s+(?:it|the\s+(?:bug|issue|problem|cause|culprit|root\s+cause|reason))|got\s+it"
    r"|figured\s+it\s+out|mystery\s+solved|nailed\s+it(?:\s+down)?)\s*(?:[:—–-]+|,)"
    r"|(?:tracked|traced|narrowed)\s+(?:it|this|the\s+[^:;]{1,40}?)\s+(?:down\s+)?to\b)\s*",
    re.IGNORECASE,
)
_D_TURNS_RE = lazy(r"\b(?:it\s+)?turn(?:s|ed)\s+out\b\s*,?\s*(?:that\s+)?", re.IGNORECASE)
_D_CAUSED_RE = lazy(
    r"\b(?:was|is|were|are|being|been|gets|got)\s+(?:\w+\s+)?(?:caused|triggered)\s+by\s+", re.IGNORECASE
)
_D_FROM_RE = lazy(
    r"\b(?:comes|came|is\s+coming|was\s+coming|stems|stemmed|results|resulted|originates|originated)\s+from\s+",
    re.IGNORECASE,
)
_D_BECAUSE_RE = lazy(r"\b(?:because(?:\s+of)?|due\s+to|since|as\s+a\s+result\s+of)\b", re.IGNORECASE)
_D_WHEN_RE = lazy(
    r"\b(?:happens|happened|occurs|occurred|shows\s+up|showed\s+up|appears|appeared|is\s+raised"
    r"|was\s+raised|is\s+thrown|was\s+thrown|breaks|broke|crashes|crashed)\s+(?:only\s+)?(?:when|whenever|if)\b",
    re.IGNORECASE,
)
_D_THERE_RE = lazy(
    r"\bthere\s+(?:was|is|were)\s+(?:a|an|two|some)\b[^.;]{0,40}?\b(?:race|typo|bug|off-by-one"
    r"|mismatch|conflict|leak|deadlock|problem|issue|cycle|collision|regression|overflow)\b",
    re.IGNORECASE,
)
_D_MEANS_RE = lazy(r"\b(?:means|meant|indicates|indicated)\s+(?:that\s+)?", re.IGNORECASE)
_D_WHY_RE = lazy(r"\b(?:(?:which|that|this)\s+is\s+why|that'?s\s+why)\b", re.IGNORECASE)
_D_ITWAS_RE = lazy(r"^\s*(?:it|this)\s+was\s+(?:the|a|an|our)\s+", re.IGNORECASE)
_D_NOTICED_RE = lazy(
    r"\bI\s+(?:noticed|saw|realized|realised|discovered|spotted)\s+(?:that\s+)?", re.IGNORECASE
)
_D_FIXED_COLON_RE = lazy(r"^(?:I(?:'ve|\s+have)?\s+)?fixed\s+(?P<p>[^:;—–]{3,100}?)\s*[:—–]\s*", re.IGNORECASE)
_D_ZH_RE = lazy(
    r"(?:问题在于|问题出在|问题是|原因是|根本原因是|根因是|找到原因了|找到问题了|是因为|由于|因为)[:：，,\s]*"
)

_R_FIX_IS_RE = lazy(
    r"\b(?:(?:the|my|a|one|our)\s+)?(?:(?:simple|quick|real|proper|actual|easy|usual|common|typical|standard)\s+)?"
    r"(?:fix|solution|workaround|remedy|resolution|cure)(?:\s+(?:for|to)\s+[^,;.]{1,60}?)?\s+"
    r"(?:is|was)\b\s*(?:(?:simple|easy|straightforward|a\s+one-liner)\s*)?[:—–-]?\s*(?:to\s+)?",
    re.IGNORECASE,
)
_R_FIX_IS_ZH_RE = lazy(r"(?:解决方法是|解决办法是|修复方法是|解决方案是|修复方式是)[:：，,\s]*")
_R_FIXED_X_BY_RE = lazy(
    r"(?:^|(?<=[;:—–]\s))\s*(?:I(?:'ve|\s+have)?\s+)?(?:fixed|resolved|solved|addressed|worked\s+around)\s+"
    r"(?P<p>(?:(?!\bby\b)[^;]){3,140}?)\s+by\s+",
    re.IGNORECASE,
)
_R_BY_RE = lazy(
    r"\b(?:fixed|resolved|solved|addressed|avoided|worked\s+around)(?:\s+(?:it|this|that|them))?\s+by\s+",
    re.IGNORECASE,
)
_BY_SUBJECT_RE = lazy(r"(?:\bwas|\bwere|\bis|\bare|\bhas\s+been|\bhave\s+been|\bgot|\bgets|\bit'?s|\bit\s+is)\s*$", re.IGNORECASE)
_R_TOFIX_RE = lazy(
    r"(?:^|(?<=[.;:]\s)|\bso\s+)(?:in\s+order\s+)?to\s+(?:fix|solve|resolve|address|work\s+around|get\s+rid\s+of"
    r"|avoid|prevent|stop)\s+(?P<p>[^,]{1,150}?)\s*,\s*",
    re.IGNORECASE,
)
_R_IVERB_RE = lazy(
    r"(?:^|(?<=[,;:—–(])\s*|\b(?:so|and|then|therefore|thus|hence)\s+)(?:(?:so|and|then)\s+)?"
    r"(?:I(?:'ve|\s+have|\s+also|\s+then|\s+just|\s+finally)*\s+(?P<v>(?:{_VERBS_PAST})\b"
    rf"|(?:{_VERBS_NOW})\b(?=[^.;]{{0,80}}\bnow\b))|(?:I|we)\s+(?P<v2>now\s+(?:{_VERBS_NOW})\b))".replace(
        "{_VERBS_PAST}", _VERBS_PAST),
    re.IGNORECASE,
)
_R_BARE_RE = lazy(
    rf"(?:^|(?<=[;:—–])\s*|\b(?:then|and\s+then)\s+)(?P<v>(?:{_VERBS_PAST}))\b(?!\s+(?:by|to\s+be)\b)",
    re.IGNORECASE,
)
_R_GERUND_RE = lazy(
    rf"(?:^|(?<=[;:—–])\s*|\b(?:and|so)\s+)(?P<v>(?:{_GERUNDS})\b.{{2,200}}?)\s+(?:(?:also|then|finally|completely)\s+)?"
    r"(?P<verb>fixes|fixed|solves|solved|resolves|resolved|stops|stopped|keeps|kept|removes|removed"
    r"|prevents|prevented|avoids|avoided|gets\s+rid\s+of|got\s+rid\s+of|eliminates|eliminated|cures|cured"
    r"|did\s+the\s+trick|does\s+the\s+trick|made\s+it\s+work|makes\s+it\s+work|took\s+care\s+of"
    r"|takes\s+care\s+of|brought\s+it\s+down|brings\s+it\s+down|cut\s+it|cuts\s+it|sped\s+it\s+up"
    r"|speeds\s+it\s+up|got\s+it\s+working|gets\s+it\s+working"
    r"|makes?\s+(?:it|them|the\s+\w+)\s+(?:deterministic|work|pass|stable|reliable|consistent|green)"
    r"|made\s+(?:it|them|the\s+\w+)\s+(?:deterministic|work|pass|stable|reliable|consistent|green)"
    r"|brought\s+[^,;.]{1,40}?\s+down|brings\s+[^,;.]{1,40}?\s+down)\b\s*(?P<obj>[^;]*)",
    re.IGNORECASE,
)
_R_NP_FIXES_RE = lazy(
    r"^(?P<v>.{3,200}?)\s+(?:fixed|fixes|solved|solves|resolved|resolves)\s+"
    r"(?:it|this|that|the\s+(?:issue|problem|error|bug|crash|failure|warning))\b",
    re.IGNORECASE,
)
#: gerund-remedy verbs whose object is the problem ("adding X fixed the race")
_FIXING_VERBS = ("fix", "solv", "resolv", "remov", "prevent", "avoid", "get", "got", "elimin", "cur", "stop", "took",
                 "take")
_NOW_SUBJECT = (
    r"(?:it|this|that|they|(?:both|all|each)(?:\s+\w+)?|\ue000\d+\ue001(?:\s+\w+)?|[A-Za-z_][\w.]*\(\))"
)
_R_SHOULD_HAVE_RE = lazy(r"[^,;:]{2,80}?\s+should\s+have\s+been\s+[^,;]{1,80}", re.IGNORECASE)
_R_NOW_RE = lazy(
    rf"(?:^|(?<=[;:—–])\s*|\band\s+)(?P<v>(?:{_NOW_SUBJECT}|now\s+it|the\s+[^,;.]{{1,40}}?)\s+now\s+(?:{_VERBS_PRESENT})\b"
    rf"|{_NOW_SUBJECT}\s+(?:is|are|'s|'re)\s+(?:now\s+)?(?:on|in|at|under|behind|set\s+to|using|pointing\s+at)\b[^,;.]{{0,60}}?\s+now\b"
    rf"|{_NOW_SUBJECT}\s+(?:{_VERBS_PRESENT})\b[^,;.]{{0,60}}?\s+now\b"
    rf"|(?:it|this|that|they)(?:'s|\s+is|\s+are|'re)\s+now\s+\w+(?:ed|en)\b"
    rf"|now\s+(?:it|we|I|the\s+\w+)\s+(?:{_VERBS_PRESENT}|{_VERBS_NOW})\b"
    rf"|now\s+(?:it|they|this|that)(?:'s|'re|\s+is|\s+are)\s+\w+(?:ed|en)\b)",
    re.IGNORECASE,
)
_R_IMPER_RE = lazy(
    rf"(?:^|\byou(?:'ll|\s+will)?\s+(?:need|have)\s+to\s+|\bjust\s+)(?P<v>(?:{_IMPERATIVES})\b)", re.IGNORECASE
)
_R_ZH_RE = lazy(
    r"(?:^|(?<=[，,；;]))\s*(?P<v>(?:我|已经|已|并|于是|所以)[^。！？；;]*?"
    r"(?:改成|改为|换成|替换成|替换为|加上|添加了|加了|删掉|删除了|移除了|更新了|升级到|升级了|降级到"
    r"|设置为|设置了|设成|修改为|修改了|重新运行了|重新生成|运行了|去掉了|固定在|锁定在))"
)

# skipping or quarantining a failing test hides the problem; it is not a fix
_QUARANTINE_RE = lazy(
    r"\b(?:mark(?:ed)?|decorat(?:ed)?)\s+(?:it|them|the\s+\w+)\s+(?:as\s+|with\s+)?\S*(?:flaky|skip|xfail)"
    r"|\b(?:skipped|disabled|commented\s+out)\s+(?:the\s+)?(?:failing\s+)?tests?\b|\bxfail\b",
    re.IGNORECASE,
)
# "because you asked for it" is a reason for a change, not a diagnosis
_REQUESTED_RE = lazy(r"\byou\s+(?:asked|wanted|requested|said)|\bas\s+requested\b|\bper\s+your\b", re.IGNORECASE)
# "it wasn't the cache" rules a cause out
_RULED_OUT_RE = lazy(r"^\s*(?:it|this|that)\s+(?:wasn'?t|was\s+not|isn'?t|is\s+not)\b", re.IGNORECASE)

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
_CLAUSE_BOUNDARY_RE = lazy(r";|；|\s[—–]\s|\s--\s")
# a problem runs on through dashes ("a typo — DATABSE_URL instead of …"); only
# a semicolon or the next remedy trigger ends it
_PROBLEM_BOUNDARY_RE = lazy(r";|；")


def _clause_start(text: str, pos: int) -> int:
    return max((match.end() for match in _CLAUSE_BOUNDARY_RE.finditer(text, 0, pos)), default=0)


def _cut_end(text: str, start: int, stops: list[int], boundary_re: re.Pattern = _CLAUSE_BOUNDARY_RE) -> int:
    """End of a span: the first clause boundary or later trigger after start."""
    boundary = boundary_re.search(text, start)
    end = boundary.start() if boundary else len(text)
    return min((stop for stop in stops if start < stop < end), default=end)


# Detection


@dataclass(slots=True)
class Sentence:
    """One sentence of a reply's prose (code blocks dropped; code spans as placeholders until restored)."""

    text: str
    section: int | None = None
    role: str | None = None  # "problem" | "solution" inside a labelled section ("Root cause:", "Fix:")
    item: bool = False
    heading: bool = False

    @property
    def question(self) -> bool:
        stripped = self.text.rstrip()
        return stripped.endswith(("?", "？")) or bool(_QUESTION_START_RE.match(stripped))


def _sentences(units: list[_Unit]) -> tuple[list[Sentence], bool]:
    """Sentences with section roles, within the budget; also reports a "Fixed:"-style preamble."""
    sentences: list[Sentence] = []
    done = False
    section_id = 0
    pending_role: str | None = None
    pending_block = -1
    pending_section = None
    for unit in units:
        text = unit.text
        label = _LABEL_HEADING_RE.match(text)
        # a "Root cause" heading (not one naming both parts) or a "Fix:" paragraph opens a section
        if label and (label.group("problem") or label.group("solution")) and (
            unit.kind == "heading" and not (label.group("problem") and label.group("solution"))
            or unit.kind == "para" and text.rstrip().endswith((":", "："))
        ):
            section_id += 1
            pending_role = "problem" if label.group("problem") else "solution"
            pending_section, pending_block = section_id, -1
            continue
        if unit.kind == "heading":
            pending_role = None
            sentences.append(Sentence(text, heading=True))
            continue
        pre = _PREAMBLE_RE.match(text)
        if pre:
            done = True
            text = text[pre.end():]
        role = section = None
        if pending_role is not None:
            if pending_block in (-1, unit.block):
                pending_block = unit.block
                role, section = pending_role, pending_section
            else:
                pending_role = None
        # inline labels: "Root cause: X. Fix: Y" / "cause: X; fix: Y" / "- **Fix:** Y"
        matches = list(_INLINE_LABEL_RE.finditer(text))
        # the text before the first label (an empty one yields no sentence), then each label's part
        segments = [(text[: matches[0].start()] if matches else text, role, section)]
        for match, seg_end in zip(matches, [m.start() for m in matches[1:]] + [len(text)]):
            section_id += 1
            seg_role = "problem" if match.group("problem") else "solution"
            segments.append((text[match.end():seg_end], seg_role, section_id))
        for seg_text, seg_role, seg_section in segments:
            for piece in _split_sentences(seg_text):
                sentences.append(Sentence(piece, seg_section, seg_role, item=unit.kind == "item"))
    return _within_budget(sentences), done


def _text_weight(text: str) -> int:
    """Length where a CJK character counts double (it carries about a word)."""
    return len(text) + sum(1 for ch in text if "\u3400" <= ch <= "\u9fff")


def _is_pronoun(text: str) -> bool:
    return bool(_PRONOUN_RE.match(text)) or len(text.strip()) < 3


def _matches(pattern: re.Pattern, text: str):
    """At most MAX_MATCHES matches: a sentence full of triggers is not prose."""
    return islice(pattern.finditer(text), MAX_MATCHES)


def _find_remedies(i: int, s: Sentence) -> list[_Remedy]:
    text = s.text
    found: list[_Remedy] = []

    def add(trig, start, kind, weight, problem=None):
        found.append(_Remedy(i, trig, start, len(text), kind, weight, problem))

    for regex, weight in ((_R_FIX_IS_RE, 0.93), (_R_FIX_IS_ZH_RE, 0.9)):
        for m in _matches(regex, text):
            add(m.start(), m.end(), "fix-is", weight)
    for m in _matches(_R_FIXED_X_BY_RE, text):
        p = m.group("p")
        add(m.start(), m.end(), "fixed-x-by", 0.9, None if _is_pronoun(p) else p)
    for m in _matches(_R_BY_RE, text):
        if any(r.kind == "fixed-x-by" and r.start == m.end() for r in found):
            continue
        before = text[_clause_start(text, m.start()): m.start()]
        subj = _BY_SUBJECT_RE.search(before)
        candidate = before[: subj.start()].strip() if subj else ""
        problem = None if _is_pronoun(candidate) else candidate  # "" is a pronoun too
        add(m.start(), m.end(), "fixed-by", 0.9 if problem else 0.88, problem)
    for m in _matches(_R_TOFIX_RE, text):
        p = m.group("p")
        if _REMEDY_HEDGE_RE.search(p) or re.match(r"\s*which\b", text[m.end():], re.IGNORECASE):
            continue
        add(m.start(), m.end(), "to-fix", 0.86, None if _is_pronoun(p) else p)
    for m in _matches(_R_IVERB_RE, text):
        add(m.start(), m.start("v") if m.group("v") else m.start("v2"), "i-verb", 0.88)
    for m in _matches(_R_BARE_RE, text):
        if m.group("v").lower() == "fixed":
            continue  # "Fixed X: …" / "Fixed X by Y" are their own triggers
        if any(r.start <= m.start("v") < r.end and r.kind == "i-verb" and r.start == m.start("v") for r in found):
            continue
        add(m.start(), m.start("v"), "bare-verb", 0.84)
    for m in _matches(_R_GERUND_RE, text):
        if re.search(r"(?:\b(?:should|would|could|might|will|may|can)|'ll)\s*$", m.group("v"), re.IGNORECASE):
            continue
        obj = m.group("obj").strip()
        fixing = m.group("verb").lower().startswith(_FIXING_VERBS)
        problem = obj if obj and fixing and not re.match(r"^(?:it|this|that|them)\b", obj, re.IGNORECASE) else None
        found.append(_Remedy(i, m.start(), m.start("v"), m.end("v"), "gerund", 0.88 if not problem else 0.8, problem))
    if not any(r.kind == "gerund" for r in found):
        m = _R_NP_FIXES_RE.match(text)
        if (
            m and not _REMEDY_HEDGE_RE.search(m.group("v")) and not _is_pronoun(m.group("v"))
            and not re.match(r"\s*(?:I|we)\b", m.group("v"))
        ):
            found.append(_Remedy(i, 0, 0, m.end("v"), "np-fixes", 0.8))
    for regex, kind, weight in ((_R_SHOULD_HAVE_RE, "should-have-been", 0.8), (_R_NOW_RE, "now-verb", 0.74),
                                (_R_IMPER_RE, "imperative", 0.8), (_R_ZH_RE, "zh-verb", 0.86)):
        for m in _matches(regex, text):  # the remedy starts at the verb ("should have been": at the match)
            add(m.start(), m.start("v") if "v" in regex.groupindex else m.start(), kind, weight)
    return found


def _remedy_ok(s: Sentence, r: _Remedy, spans: list[str]) -> bool:
    """Reject plans, hypotheticals, generic advice and questions."""
    if s.question:
        return False
    if r.kind == "should-have-been":
        return True  # pairs only with an announced fix (see _pairable)
    text = s.text
    clause = _clause_start(text, r.trig_start)
    if _REMEDY_HEDGE_RE.search(text[clause: r.trig_start]) \
            or _REMEDY_HEDGE_RE.search(" ".join(text[r.start:].split()[:3])):
        return False
    if r.kind in ("fix-is", "to-fix") and (
        _GENERIC_RE.search(text[: r.start]) or _GENERIC_RE.search(" ".join(text[r.start:].split()[:8]))
    ):
        return False
    if r.kind == "fix-is" and re.match(r"(?:tracked|pending|planned|coming|in\s+progress|not\b|still|unknown|unclear"
                                       r"|upstream|on\s+its\s+way|being|looks|differs|depends)",
                                       text[r.start:].lstrip(" :—–-").lower()):
        return False
    if _CONDITIONAL_START_RE.match(text[clause:]):
        return False
    return not _QUARANTINE_RE.search(_restore(text[r.start:], spans))


# (trigger, kind, weight, where the problem text starts), in the order found: "end" after the
# trigger, "trigger" at it, "clause" at its clause's start, "subject" there unless the clause's
# subject is a pronoun, "p" at the group ``p``
_DIAGNOSES = (
    (_D_ISSUE_RE, "issue-was", 0.92, "end"),
    (_D_REASON_RE, "reason", 0.85, "end"),
    (_D_FOUND_RE, "found-it", 0.9, "end"),
    (_D_TURNS_RE, "turns-out", 0.88, "end"),
    (_D_CAUSED_RE, "caused-by", 0.88, "subject"),
    (_D_FROM_RE, "comes-from", 0.85, "subject"),
    (_D_BECAUSE_RE, "because", 0.84, "clause"),
    (_D_WHEN_RE, "happens-when", 0.82, "clause"),
    (_D_THERE_RE, "there-was", 0.82, "trigger"),
    (_D_MEANS_RE, "means", 0.78, "clause"),
    (_D_WHY_RE, "which-is-why", 0.8, "clause"),
    (_D_ITWAS_RE, "it-was", 0.74, "trigger"),
    (_D_NOTICED_RE, "noticed", 0.78, "end"),
    (_D_FIXED_COLON_RE, "fixed-colon", 0.8, "p"),
    (_D_ZH_RE, "zh", 0.86, "end"),
)


def _find_diagnoses(i: int, s: Sentence, stops: list[int]) -> list[_Diag]:
    text = s.text
    found: list[_Diag] = []
    for regex, kind, weight, where in _DIAGNOSES:
        for m in _matches(regex, text):
            if where in ("clause", "subject"):
                start = _clause_start(text, m.start())
                if where == "subject" and _is_pronoun(text[start: m.start()]):
                    start = m.end()
            else:  # "end", "trigger" (group 0's start) or "p"
                start = m.end() if where == "end" else m.start("p" if where == "p" else 0)
            d = _Diag(i, m.start(), start, _cut_end(text, start, stops, _PROBLEM_BOUNDARY_RE), kind, weight)
            if kind == "reason":
                d.text = m.group("mid").strip()  # "the build was slow"; joined later
            elif kind == "because":
                # "since yesterday" is time, not cause; "Because the API is read-heavy, I
                # added a cache" is a design reason — both need something wrong in them
                clause = text[start: d.end]
                gated = m.group(0).lower() == "since" or not text[start: m.start()].strip()
                if gated and not (_DEFECT_RE.search(clause) or _CAUSAL_RE.search(clause)):
                    continue
            found.append(d)
    return found


def _diag_ok(s: Sentence, d: _Diag, restored: str) -> bool:
    text = s.text
    if s.question or _REQUESTED_RE.search(restored) or _RULED_OUT_RE.match(text[d.start: d.end]):
        return False
    clause = _clause_start(text, d.trig_start)
    if _DIAG_HEDGE_RE.search(text[clause: d.trig_start]) or _DIAG_HEDGE_RE.search(text[d.start: d.end]) \
            or _CONDITIONAL_START_RE.match(text[clause:]):
        return False
    # these need defect words ("noticed" also takes a cause: "I noticed the default changed")
    return not (d.kind in ("means", "noticed", "it-was", "fallback") and not _DEFECT_RE.search(restored)
                and not (d.kind == "noticed" and _CAUSAL_RE.search(restored)))


def _clean(text: str, spans: list[str], lead_re: re.Pattern = _LEAD_CONNECTOR_RE) -> str:
    text = " ".join(_restore(text, spans).split())
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


def _solution_text(sentences: list[Sentence], r: _Remedy) -> str:
    if r.text:
        return r.text
    text = sentences[r.sent].text
    body = text[r.start: r.end if r.kind in ("np-fixes", "gerund") else _cut_end(text, r.start, [])]
    which = _WHICH_FIXES_RE.search(body)
    body = _SUCCESS_TAIL_RE.sub("", body[: which.start()] if which else body)
    if not body.strip(" :—–-") and r.sent + 1 < len(sentences):
        return sentences[r.sent + 1].text  # "The fix is simple:" + next sentence
    return body


def _parse(sentences: list[Sentence], spans: list[str], restored: list[str], done: bool) -> FixStatement | None:
    _drop_defect_solutions(sentences, restored)
    remedies = [r for i, s in enumerate(sentences) if s.role != "solution"
                for r in _find_remedies(i, s) if _remedy_ok(s, r, spans)]
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


def _within_budget(sentences: list[Sentence]) -> list[Sentence]:
    """The first sentences, up to ``MAX_SENTENCES`` and ``MAX_PROSE_CHARS``."""
    totals = accumulate(len(sentence.text) for sentence in sentences[:MAX_SENTENCES])
    return sentences[:sum(1 for _ in takewhile(lambda total: total <= MAX_PROSE_CHARS, totals))]


def _drop_defect_solutions(sentences: list[Sentence], restored: list[str]) -> None:
    """"Solution: downgrade X. The generated files were made with an old Y that's incompatible…": a
    later prose sentence that describes a defect is the diagnosis, not more solution."""
    for i, (previous, s) in enumerate(zip(sentences, sentences[1:]), 1):
        if (
            s.role == "solution" and previous.section == s.section
            and not s.item and _DEFECT_RE.search(restored[i]) and not _find_remedies(i, s)
        ):
            for later in sentences[i:]:
                if later.section != s.section:
                    break
                later.role = later.section = None


def _unlabelled_diagnoses(sentences: list[Sentence], remedies: list[_Remedy], spans: list[str]) -> list[_Diag]:
    diagnoses: list[_Diag] = []
    for i, s in enumerate(sentences):
        if s.role is not None:
            continue
        stops = [r.trig_start for r in remedies if r.sent == i]
        diagnoses += [d for d in _find_diagnoses(i, s, stops)
                      if _diag_ok(s, d, _restore(s.text[d.start: d.end], spans))]
        # fallback: a clause that describes something wrong, before a remedy (a clause that opens
        # with a change — "Updated the help text" — is work done, not a description of what was wrong)
        if not s.question and not any(x <= 2 for x in stops):
            first_stop = min([x for x in stops if x > 0], default=len(s.text))
            clause = _restore(s.text[:first_stop], spans)
            if len(clause.split()) >= 4 or sum("\u4e00" <= c <= "\u9fff" for c in clause) >= 6:
                d = _Diag(i, 0, 0, first_stop, "fallback", 0.66)
                weak = _Diag(i, 0, 0, first_stop, "weak", 0.62)  # no defect words: needs support
                if _diag_ok(s, d, clause):
                    diagnoses.append(d)
                elif _diag_ok(s, weak, clause):
                    diagnoses.append(weak)
    return diagnoses


def _labelled_sections(sentences: list[Sentence], spans: list[str], remedies: list[_Remedy],
                       diagnoses: list[_Diag]) -> None:
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
                inner = [r for r in _find_remedies(i, sentences[i]) if _remedy_ok(sentences[i], r, spans)]
                if inner and parts:
                    remedies.extend(inner)
                    break
                parts.append(sentences[i].text.rstrip(". "))
            diagnoses.append(_Diag(idxs[0], 0, 0, 0, "label", 0.92, text=joiner.join(parts)))
        else:
            parts = [sentences[i].text.rstrip(". ") for i in idxs]
            remedies.append(_Remedy(idxs[0], 0, 0, 0, "label", 0.92, text=joiner.join(parts)))


class _Best:
    """The best pairing considered so far: ``found`` is ``(confidence, order, FixStatement)``."""

    def __init__(self, sentences: list[Sentence], spans: list[str], restored: list[str], done: bool):
        self.sentences, self.spans, self.done = sentences, spans, done
        self.failures = [i for i, t in enumerate(restored) if _FAILURE_RE.search(t)]
        self.success_after = [i for i, t in enumerate(restored) if _SUCCESS_RE.search(t)]
        self.found: tuple[float, int, FixStatement] | None = None

    def consider(self, conf: float, order: int, problem: str, solution: str, pattern: str, r: _Remedy) -> bool:
        """Score one pairing; returns False when it is not a usable fix at all."""
        # a failure phrase after the remedy (in the remedy's own sentence: after the remedy starts)
        if any(k > r.sent or k == r.sent and r.kind != "label"
               and _FAILURE_RE.search(_restore(self.sentences[k].text[r.start:], self.spans))
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


def _pair(diagnoses: list[_Diag], remedies: list[_Remedy], sentences: list[Sentence], best: _Best) -> None:
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


def _pairing(d: _Diag, r: _Remedy, sentences: list[Sentence]) -> tuple[float, str, str]:
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
        if not middle.question and middle.role is None and not _find_remedies(d.sent + 1, middle):
            problem = f"{problem.rstrip(' .')}. {middle.text}"
    return conf, problem, solution


def _pairable(d: _Diag, r: _Remedy, sentences: list[Sentence], success_after: list[int], done: bool) -> bool:
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


def _diag_text(sentences: list[Sentence], d: _Diag) -> str:
    if d.kind == "label":
        return d.text
    text = sentences[d.sent].text[d.start: d.end]
    if d.kind == "reason" and d.text:
        return f"{d.text} because {text}"
    return text


def _is_prose(reply: str, restored: list[str]) -> bool:
    """Not a reply too short, an error dump or no prose."""
    reply = reply.strip()
    return bool(restored) and _text_weight(reply) >= MIN_REPLY_CHARS and not reply.startswith("Traceback") \
        and not _ERROR_START_RE.match(restored[0]) and _text_weight(" ".join(restored)) >= MIN_REPLY_CHARS


def read(reply: str) -> tuple[list[Sentence], bool, FixStatement | None]:
    """(the reply's prose sentences within the budget, code spans restored; whether it opens with a
    "Fixed:"-like preamble; the best diagnosis + remedy pair or None). Never raises."""
    try:
        if not isinstance(reply, str):
            return [], False, None
        reply = reply[:MAX_REPLY_CHARS]
        spans: list[str] = []
        sentences, done = _sentences(_units(reply, spans))
        restored = [_restore(s.text, spans) for s in sentences]
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
