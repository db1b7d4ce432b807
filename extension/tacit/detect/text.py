"""Reading a user message the way the detectors need it.

Every detector in this folder judges what the *user* wrote, not what they pasted, and judges it the
way real people type: lowercase, no apostrophes, typos. This module turns raw text into that form
once.

Design notes: docs/design/detect.md#tacitdetecttext"""

from __future__ import annotations

import re
from functools import lru_cache

from tacit.lazyre import lazy

#: longer input keeps its first and last half of this many characters
MAX_INPUT_CHARS = 40_000
#: a message longer than this (after quotes and logs are gone) is judged on its edges
FOCUS_FULL_CHARS = 600
FOCUS_EDGE_CHARS = 280


def clean(text: object) -> str:
    """A str safe for every regex here: "" for non-str, surrogates replaced,
    at most ``MAX_INPUT_CHARS`` characters (head and tail)."""
    if not isinstance(text, str):
        return ""
    if len(text) > MAX_INPUT_CHARS:
        half = MAX_INPUT_CHARS // 2
        text = text[:half] + "\n\n" + text[-half:]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


# Quoted text, agent prompts, long messages
_FENCE = lazy(r"(?ms)^[ \t]*(```|~~~).*?(?:^[ \t]*\1[ \t]*$|\Z)")
_INLINE_FENCE = lazy(r"```.*?```", re.S)
_KNOWN_TAGS = ("system|system-reminder|context|conversation|transcript|example|examples|quote|memory|"
               "instructions|prompt|document|file|output|result|results|log|logs|stdout|stderr|"
               "function_results|tool_result|command-name|command-message|command-args")
_TAG_BLOCK = lazy(
    r"<((?:[a-z][\w]*[-_][\w-]*)|(?:" + _KNOWN_TAGS + r"))(?:\s[^<>]*)?>.*?</\1\s*>", re.S | re.I)
#: a host's wrapper around words the user asked it to remember (Cursor / VS Code's memory input):
#: the user's own words, kept, not a quoted block
_MEMORY_INPUT = lazy(r"<user-memory-input>(.*?)</user-memory-input>", re.S | re.I)
_QUOTE_LINE = lazy(r"(?m)^[ \t]*>.*$")
_ROLE_LINE = lazy(
    r"(?mi)^[ \t]*(?:[-*][ \t]+)?(?:\*\*|\[)?(?:user|human|assistant|ai|agent|claude|system|model|bot|tool|"
    r"hermes|pi)(?:\*\*|\])?[ \t]*:.*$")
_DQUOTE = lazy(r"\"([^\"\n]{1,400})\"|\u201c([^\u201d\n]{1,400})\u201d")
_INWORD_APOSTROPHE = lazy(r"(?<=\w)['\u2019](?=\w)")
_HIDDEN_APOSTROPHE = "\ue000"  # stands in for "don't"'s apostrophe while quotes are matched
_SQUOTE = lazy(r"(?<!\w)['\u2018]([^'\u2018\u2019\n]{1,400}?)['\u2019](?!\w)")
_BACKTICK = lazy(r"`([^`\n]{1,400})`")
_TRIGGERISH = lazy(
    r"\b(?:no|not|nope|don'?t|do not|never|stop|wrong|said|told|actually|please|why|instead|again|"
    r"should|discussed|wanted|meant|asked)\b", re.I)
PLACEHOLDER = " \u2026 "
_BLANK_LINES = lazy(r"\n[ \t]*(?:\n[ \t]*)+")


def _quoted_span(match: re.Match) -> str:
    inner = next((g for g in match.groups() if g is not None), "").replace(_HIDDEN_APOSTROPHE, "'")
    if len(inner.split()) <= 3 and not _TRIGGERISH.search(inner):
        return inner  # a name or label: "`pnpm`", "Sign in"
    return PLACEHOLDER  # quoted speech


def memory_request(text: str) -> bool:
    """The host marks the message as words the user asked it to remember."""
    return "</user-memory-input>" in text.lower() and bool(_MEMORY_INPUT.search(text))


def strip_quoted(text: str) -> str:
    """Text with everything the user merely quotes removed (see module doc)."""
    if not isinstance(text, str) or not text:
        return ""
    out = text.replace("\r\n", "\n").replace("\r", "\n")
    if "```" in out or "~~~" in out:
        out = _FENCE.sub("\n", out)
        out = _INLINE_FENCE.sub(PLACEHOLDER, out)
    if "</" in out:
        out = _TAG_BLOCK.sub("\n", _MEMORY_INPUT.sub(r"\1", out))
    if ">" in out:
        out = _QUOTE_LINE.sub("", out)
    if ":" in out or "]" in out:
        out = _ROLE_LINE.sub("", out)
    if "`" in out:
        out = _BACKTICK.sub(_quoted_span, out)
    if '"' in out or "\u201c" in out:
        out = _DQUOTE.sub(_quoted_span, out)
    if "'" in out or "\u2018" in out or "\u2019" in out:
        out = _INWORD_APOSTROPHE.sub(_HIDDEN_APOSTROPHE, out)
        out = _SQUOTE.sub(_quoted_span, out).replace(_HIDDEN_APOSTROPHE, "'")
    return _BLANK_LINES.sub("\n\n", out).strip()


_PROMPT_OPENERS = lazy(
    r"^\s*(?:#+\s*)?(?:you are (?:a|an|the|tacit|claude|hermes)\b|you're (?:a|an|the)\b|your (?:task|job|role) is\b|"
    r"this session is being continued from a previous conversation|<system\b|system:|"
    r"instructions:|task:|## task\b|you must (?:fully )?embody\b|the following is the \w+ agent history\b)", re.I)
_CHILD_MARKERS = ("tacit:child", "tacit-child", "tacit_child")


def looks_like_agent_prompt(text: str) -> bool:
    """True for text written *to* an agent by a program rather than by the
    user: a tacit child prompt, a compaction summary, a system prompt."""
    if not isinstance(text, str) or not text:
        return False
    head = text[:4000].lower()
    if any(marker in head for marker in _CHILD_MARKERS):
        return True
    if len(text) < 200 or text.count("\n") < 2:
        return False  # "you are overcomplicating it" is a user, not a prompt
    return bool(_PROMPT_OPENERS.match(text))


_LOG_LINE = lazy(
    r"""^\s*(?:
        \[?\d{4}-\d{2}-\d{2}[T\s]\d          # timestamps
      | \[?\d{2}:\d{2}:\d{2}
      | (?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\b
      | at\s+\S+\s*\(                        # JS/Java stack frames
      | File\s+"                             # Python tracebacks
      | Traceback\b
      | E\s{2,}                              # pytest
      | [=\-_*#~]{5,}
      | \S+\.(?:py|js|ts|tsx|go|rs|java|rb)(?::\d+)+
      | (?:tests?|src|lib)/\S+\s+[.FEsx]+
      | \$\s
    )""", re.X)
_BULLET = lazy(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+")


#: words and plain numbers only: "its 5173 not 3000" is prose, however few letters it has
_PROSE_WITH_NUMBERS = lazy(r"^\s*(?:(?:[A-Za-z]+|\d+(?:[.,:]\d+)*)[.,!?]*\s*)+$")
_PROSE_WORD = lazy(r"\b[A-Za-z]{2,}\b")


def is_log_line(line: str) -> bool:
    if _LOG_LINE.match(line):
        return True
    letters = sum(map(str.isalpha, line))
    visible = len(line) - sum(map(str.isspace, line))
    if visible < 12 or letters >= 0.45 * visible:
        return False
    return not (_PROSE_WITH_NUMBERS.match(line) and len(_PROSE_WORD.findall(line)) >= 2)


#: lines a program or the agent's harness writes, never the user: ssh's host-key prompt, a mail
#: notifier and heartbeat, Claude Code's local-command caveat and interrupt marker, Cursor's plan hand-off, error lines
_OUTPUT_LINE = lazy(
    r"""^\s*(?:
        the\ authenticity\ of\ host\b | \S+\ key\ fingerprint\ is\b | this\ key\ is\ not\ known\ by\b
      | are\ you\ sure\ you\ want\ to\ continue\ connecting\b | warning:\ permanently\ added\b
      | \S+@\S+:\ permission\ denied\ \(
      | \U0001F4EC\ you\ have\ new\ mail\b | you\ have\ (?:new\ )?mail\ in\ /
      | caveat:\ the\ messages\ below\ were\ generated\ by\ the\ user\ while\ running\ local\ commands
      | \[request\ interrupted\ by\ user
      | health_check:\ heartbeat\ stale\b
      | implement\ the\ plan\ as\ specified\.\ to-do'?s\ from\ the\ plan\ have\ already\ been\ created
      | (?:npm|yarn|pnpm)\ (?:ERR!|WARN\b|error\b)
      | (?-i:(?:Uncaught\ )?[A-Z]\w*(?:Error|Exception|Warning):\ | (?:fatal|error|warning):\ | Caused\ by:\ )
    )""", re.X | re.I)


def is_program_output(stripped: str) -> bool:
    """True for a (quote-stripped) message with no line of the user's own: every line is a log line
    (:func:`is_log_line`) or program / harness output, and at least one is the latter (a message of
    log lines alone is already empty once :func:`focus_text` drops them)."""
    lines = [ln for ln in stripped.split("\n") if ln.strip()]
    if not lines or not any(_OUTPUT_LINE.match(ln) for ln in lines):
        return False
    return all(_OUTPUT_LINE.match(ln) or is_log_line(ln) for ln in lines)


def focus_text(stripped: str) -> str:
    """The part of a (quote-stripped) message worth judging (see module doc)."""
    lines = [ln for ln in stripped.split("\n") if ln.strip() and not is_log_line(ln)]
    body = "\n".join(lines)
    if len(body) <= FOCUS_FULL_CHARS:
        return body
    prose = [ln for ln in lines if not _BULLET.match(ln)]
    parts = sentences("\n".join(prose))
    if not parts:
        return ""
    head: list[str] = []
    for sentence in parts:
        head.append(sentence[:FOCUS_EDGE_CHARS])
        if sum(map(len, head)) >= FOCUS_EDGE_CHARS // 2:
            break
    tail: list[str] = []
    for sentence in reversed(parts[len(head):]):
        tail.insert(0, sentence[-FOCUS_EDGE_CHARS:])
        if sum(map(len, tail)) >= FOCUS_EDGE_CHARS // 2:
            break
    return "\n".join(head + tail)


# Normalisation
_TYPOS = {
    "siad": "said", "sayed": "said", "tol": "told", "toldya": "told you", "shoudl": "should",
    "shuold": "should", "shoud": "should", "teh": "the", "pls": "please", "plz": "please",
    "plase": "please", "pleae": "please", "pleas": "please", "u": "you", "ur": "your", "dnt": "dont",
    "alredy": "already", "allready": "already", "alrdy": "already", "aleady": "already",
    "alreay": "already", "insted": "instead", "instaed": "instead", "acutally": "actually",
    "actualy": "actually", "acually": "actually", "actaully": "actually", "wnated": "wanted",
    "watned": "wanted", "aksed": "asked", "asekd": "asked", "dint": "didnt", "didint": "didnt",
    "tht": "that", "thta": "that", "waht": "what", "wat": "what", "wrnog": "wrong", "worng": "wrong",
    "stpo": "stop", "agian": "again", "agin": "again", "nevr": "never", "becuase": "because",
    "bc": "because", "cuz": "because", "coz": "because", "bcoz": "because", "thats": "thats",
    "isnt": "isnt", "dosent": "doesnt", "dosnt": "doesnt", "doesent": "doesnt", "dose": "does",
    "wont": "wont", "cant": "cant", "havent": "havent", "youre": "youre", "im": "im", "ive": "ive",
    "whats": "whats", "wasnt": "wasnt", "arent": "arent", "shouldnt": "shouldnt", "wouldnt": "wouldnt",
    "couldnt": "couldnt", "didn": "didnt", "don": "dont", "doesn": "doesnt", "isn": "isnt", "wasn": "wasnt",
    "thier": "their", "recieve": "receive", "seperate": "separate", "wierd": "weird", "anymroe": "anymore",
    "anymore": "anymore", "wokring": "working", "workign": "working", "wroking": "working", "owrking": "working",
}
_CUE_WORDS = ("said", "told", "asked", "wanted", "already", "instead", "actually", "should",
              "please", "again", "wrong", "never", "discussed", "meant", "supposed", "mentioned",
              "explicitly", "specifically", "revert", "because", "working", "still", "exists",
              "existing", "always")


@lru_cache(maxsize=8192)
def fix_token(token: str) -> str:
    """A word with a known typo fixed ("siad" → "said", "alreaddy" → "already")."""
    if token in _TYPOS:
        return _TYPOS[token]
    if len(token) < 4 or token in _CUE_WORDS:
        return token
    for word in _CUE_WORDS:
        if abs(len(word) - len(token)) > 1 or word[0] != token[0]:
            continue
        if len(word) == len(token):
            diff = [i for i in range(len(word)) if word[i] != token[i]]
            # an adjacent swap ("siad", "shuold") is a typo at any length
            if len(diff) == 2 and diff[1] == diff[0] + 1 and \
                    word[diff[0]] == token[diff[1]] and word[diff[1]] == token[diff[0]]:
                return word
            # one wrong letter only in long words ("wasted" is not "wanted")
            if len(diff) == 1 and len(word) >= 7:
                return word
        elif len(word) >= 7:  # one letter missing or doubled: "actualy", "alreaddy"
            short, long_ = (token, word) if len(token) < len(word) else (word, token)
            if any(long_[:i] + long_[i + 1:] == short for i in range(len(long_))):
                return word
    return token


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'"})
_WORD = lazy(r"(?<![\w])[a-z]+(?![\w])")
_SPACES = lazy(r"[ \t\r\f\v]+")
_NEWLINES = lazy(r" ?\n\s*")
# "don't" -> "dont", "users' " -> "users "; quote marks elsewhere stay
DROP_APOSTROPHE = lazy(r"(?<=[a-z])'(?=[a-z]|\s|$)")
_SENTENCE_BREAK = lazy(r"(?<=[.!?])\s+|\n+")
_CLAUSE_SPLIT = lazy(
    r"[,;:!?\n\u2014\u2013()]+|\.+(?=\s|$)|\s-+\s|\s(?=(?:but|though|however|except|because)\s)")


def normalise(text: str) -> tuple[str, str]:
    """(``lower``, ``bare``): see the module doc."""
    lower = _SPACES.sub(" ", text.translate(_APOSTROPHES).lower())
    lower = _NEWLINES.sub("\n", lower).strip()
    bare = DROP_APOSTROPHE.sub("", lower)
    bare = _WORD.sub(lambda m: fix_token(m.group(0)), bare)
    return lower, bare


def clauses(bare: str) -> list[str]:
    """Clauses: split at punctuation, dashes and "but/though/because"."""
    return [c.strip(" .'\"") for c in _CLAUSE_SPLIT.split(bare) if c and c.strip(" .'\"")]


def sentences(text: str) -> list[str]:
    """Sentences: split after . ! ? and at line breaks."""
    return [s.strip() for s in _SENTENCE_BREAK.split(text) if s.strip()]


_WORDS = lazy(r"[a-z0-9][a-z0-9_+#.-]*[a-z0-9+#]|[a-z0-9]")


def words(bare: str) -> list[str]:
    """Word tokens of a normalised text ("next.js", "c++", "5173" stay whole)."""
    return _WORDS.findall(bare)


_STOP = frozenset(
    "the a an and or but not no to of in on for with this that it is are was be do dont i you we my your our "
    "its at by as from so just only also very too then than there here what which when how why use used using "
    "one new old file files code please now instead should would could can will all any some more less have has "
    "had get got make made want need like yes ok okay let lets me him her they them their been being into".split())
_TOKEN = lazy(r"[a-z0-9_][a-z0-9_./-]*")
_TOKEN_PARTS = lazy(r"[./_-]+")


@lru_cache(maxsize=256)
def content_tokens(text: str) -> frozenset[str]:
    """Content words of a normalised text, compound names also split ("acme-prod-assets" → also "prod",
    "assets"); for overlap tests. Cached: the agent's previous reply is compared more than once."""
    return frozenset(part for token in _TOKEN.findall(text) for part in {token.strip("./-"), *_TOKEN_PARTS.split(token)}
                     if len(part) >= 3 and part not in _STOP)
