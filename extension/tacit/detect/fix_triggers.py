"""The triggers of the fix-statement parser: what a diagnosis and a remedy sound like.

Each finder returns the diagnosis or remedy spans of one sentence (code-span placeholders intact);
``diag_ok`` / ``remedy_ok`` reject hedged, hypothetical and generic ones. The pairing is
:mod:`tacit.detect.fix_parse`.

Design notes: docs/design/detect.md#tacitdetectfix_parse"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice

from tacit.detect.fix_sentences import Sentence, restore
from tacit.lazyre import lazy

#: trigger matches kept per pattern per sentence
MAX_MATCHES = 6


# Lexicons

# defect vocabulary: a "because"/fallback diagnosis must talk about something wrong
DEFECT_RE = lazy(
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
SUCCESS_RE = lazy(
    r"\b(?:now\s+(?:passes|pass|works|work|succeeds|starts|loads|renders|connects|builds|runs|returns)"
    r"|pass(?:es)?\s+now|works?\s+(?:now|again|fine)|(?:is|are)\s+gone|green(?:\s+again)?|no\s+longer"
    r"|succeeds|all\s+\d+\s+tests\s+pass|tests?\s+pass|no-op|again\b|as\s+expected|fine\s+now"
    r"|renders\s+now|connects\s+now|validate\s+now|stays\s+flat|is\s+running|已经通过|正常)",
    re.IGNORECASE,
)
FAILURE_RE = lazy(
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


Diag = Remedy = _Trigger


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

_CLAUSE_BOUNDARY_RE = lazy(r";|；|\s[—–]\s|\s--\s")
# a problem runs on through dashes ("a typo — DATABSE_URL instead of …"); only
# a semicolon or the next remedy trigger ends it
_PROBLEM_BOUNDARY_RE = lazy(r";|；")


def _clause_start(text: str, pos: int) -> int:
    return max((match.end() for match in _CLAUSE_BOUNDARY_RE.finditer(text, 0, pos)), default=0)


def cut_end(text: str, start: int, stops: list[int], boundary_re: re.Pattern = _CLAUSE_BOUNDARY_RE) -> int:
    """End of a span: the first clause boundary or later trigger after start."""
    boundary = boundary_re.search(text, start)
    end = boundary.start() if boundary else len(text)
    return min((stop for stop in stops if start < stop < end), default=end)


def _is_pronoun(text: str) -> bool:
    return bool(_PRONOUN_RE.match(text)) or len(text.strip()) < 3


def _matches(pattern: re.Pattern, text: str):
    """At most MAX_MATCHES matches: a sentence full of triggers is not prose."""
    return islice(pattern.finditer(text), MAX_MATCHES)


def find_remedies(i: int, s: Sentence) -> list[Remedy]:
    text = s.text
    found: list[Remedy] = []

    def add(trig, start, kind, weight, problem=None):
        found.append(Remedy(i, trig, start, len(text), kind, weight, problem))

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
        found.append(Remedy(i, m.start(), m.start("v"), m.end("v"), "gerund", 0.88 if not problem else 0.8, problem))
    if not any(r.kind == "gerund" for r in found):
        m = _R_NP_FIXES_RE.match(text)
        if (
            m and not _REMEDY_HEDGE_RE.search(m.group("v")) and not _is_pronoun(m.group("v"))
            and not re.match(r"\s*(?:I|we)\b", m.group("v"))
        ):
            found.append(Remedy(i, 0, 0, m.end("v"), "np-fixes", 0.8))
    for regex, kind, weight in ((_R_SHOULD_HAVE_RE, "should-have-been", 0.8), (_R_NOW_RE, "now-verb", 0.74),
                                (_R_IMPER_RE, "imperative", 0.8), (_R_ZH_RE, "zh-verb", 0.86)):
        for m in _matches(regex, text):  # the remedy starts at the verb ("should have been": at the match)
            add(m.start(), m.start("v") if "v" in regex.groupindex else m.start(), kind, weight)
    return found


def remedy_ok(s: Sentence, r: Remedy, spans: list[str]) -> bool:
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
    return not _QUARANTINE_RE.search(restore(text[r.start:], spans))


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


def find_diagnoses(i: int, s: Sentence, stops: list[int]) -> list[Diag]:
    text = s.text
    found: list[Diag] = []
    for regex, kind, weight, where in _DIAGNOSES:
        for m in _matches(regex, text):
            if where in ("clause", "subject"):
                start = _clause_start(text, m.start())
                if where == "subject" and _is_pronoun(text[start: m.start()]):
                    start = m.end()
            else:  # "end", "trigger" (group 0's start) or "p"
                start = m.end() if where == "end" else m.start("p" if where == "p" else 0)
            d = Diag(i, m.start(), start, cut_end(text, start, stops, _PROBLEM_BOUNDARY_RE), kind, weight)
            if kind == "reason":
                d.text = m.group("mid").strip()  # "the build was slow"; joined later
            elif kind == "because":
                # "since yesterday" is time, not cause; "Because the API is read-heavy, I
                # added a cache" is a design reason — both need something wrong in them
                clause = text[start: d.end]
                gated = m.group(0).lower() == "since" or not text[start: m.start()].strip()
                if gated and not (DEFECT_RE.search(clause) or _CAUSAL_RE.search(clause)):
                    continue
            found.append(d)
    return found


def diag_ok(s: Sentence, d: Diag, restored: str) -> bool:
    text = s.text
    if s.question or _REQUESTED_RE.search(restored) or _RULED_OUT_RE.match(text[d.start: d.end]):
        return False
    clause = _clause_start(text, d.trig_start)
    if _DIAG_HEDGE_RE.search(text[clause: d.trig_start]) or _DIAG_HEDGE_RE.search(text[d.start: d.end]) \
            or _CONDITIONAL_START_RE.match(text[clause:]):
        return False
    # these need defect words ("noticed" also takes a cause: "I noticed the default changed")
    return not (d.kind in ("means", "noticed", "it-was", "fallback") and not DEFECT_RE.search(restored)
                and not (d.kind == "noticed" and _CAUSAL_RE.search(restored)))


