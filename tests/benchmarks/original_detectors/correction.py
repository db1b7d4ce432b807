"""Is this user message a correction of what the agent just did?

A pure, stdlib-only function the engine calls on every user ``message_end``
and that ``tacit detect correction`` exposes for tuning. It returns a
:class:`CorrectionVerdict`; it never raises on odd input and never reads
config or the environment itself (the caller passes compiled patterns).

Design decisions, and why
- **The original rule runs first, unchanged in spirit:** negative → strong →
  weak+directive over the configurable pattern lists
  (``correction_strong_patterns`` etc.). Users who tuned those lists keep the
  behaviour they tuned. An invalid regex in config is reported in
  ``CorrectionPatterns.problems`` and skipped, never fatal.
- **Then a contextual scorer for what real people type.** The original lists
  catch few real corrections (recall 0.12 on tests/data/corrections.jsonl): people write lowercase,
  without apostrophes ("dont", "thats"), with typos, and without "no," in
  front. So the text is normalised first (lowercase, apostrophes dropped, a
  small typo map plus adjacent-letter swaps for the cue words) and scored by
  *cues* — "I said/told/asked/wanted …", "why did you <verb>", "stop <verb>ing",
  "don't <verb>", "we use X here", "X, not Y", "revert that", "wrong file" …
  — each with a weight. Firm cues (someone quoting their earlier instruction,
  "why did you …") fire on their own; moderate ones need support.
- **Not everything that starts with "no" is a correction.** Bug reports ("no
  the page is still empty"), new requests ("actually, also add a test"),
  answers to the agent's own question ("Should I commit?" → "no, not yet"),
  approvals ("perfect, thanks") and plain questions dampen the moderate cues.
  A weak+directive hit of the original rule is subject to the same vetoes.
- **The agent's previous reply is context, not a requirement.** A correction
  answers something the agent just did: if the reply reports an action ("I
  added …", "Running …") moderate cues get a bonus, and in "X, not Y" the
  rejected Y appearing in that reply is strong evidence. Without a previous
  reply contrastive cues count less ("sort by date, not by name" is usually a
  request). If the reply ended in a question, the message is probably an
  answer.
- **Quoted text never triggers.** :func:`strip_quoted` removes code fences,
  ``>`` quote lines, role-labelled transcript lines (``user: …``), host tag
  blocks (``<system-reminder>…``) and quoted speech before matching. Whole
  agent prompts (a child's prompt, a compaction summary) are recognised and
  skipped. Long messages are judged on their leading and trailing sentences
  only, after dropping log-shaped lines, so a pasted log or spec can't fire
  on a line buried inside it — and the cost stays bounded.
- **Fast, also in a one-process-per-event hook:** each cue regex runs only
  when one of its key substrings occurs, and is compiled on first use, so
  a hook process compiles only what its one message needs. A message costs
  ~0.1 ms once compiled.
- **Most messages are settled without a regex.** ``might_be_correction``
  answers "certainly not a correction" for a message none of the built-in
  rules can match, using a table of literal words derived from the compiled
  regexes (see "The fast negative" below); the correction handler calls it
  first when no pattern list is configured, so a hook process judging a plain
  request never imports ``re``.
- **Cheap to import.** A Claude Code hook imports this module in a process
  whose whole budget is about one interpreter start-up, so it imports nothing
  at module level: ``re`` is imported when the first regex is compiled (flags
  are named, ``_Lazy(source, "SI")``), the value classes are hand-written
  rather than dataclasses (``dataclasses`` pulls in ``inspect``, ~15 ms), and
  caches are plain dicts rather than ``functools.lru_cache``.
"""

from __future__ import annotations

__all__ = [
    "CorrectionPatterns",
    "CorrectionVerdict",
    "DEFAULT_STRONG_PATTERNS",
    "DEFAULT_WEAK_PATTERNS",
    "DEFAULT_NEGATIVE_PATTERNS",
    "DEFAULT_DIRECTIVE_WORDS",
    "default_patterns",
    "patterns_from_config",
    "compile_patterns",
    "detect_correction",
    "detect_correction_original",
    "strip_quoted",
    "might_be_correction",
    "looks_like_agent_prompt",
]


class _Lazy:
    """A regex compiled on first use. Compiling all of this module's patterns
    costs 10–20 ms, paid on every event by hosts that run one process per
    event; most messages need only some of them. ``flags`` names ``re``
    flags by letter ("S", "I", "X", …) so that defining one imports nothing."""

    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, flags: str = "") -> None:
        self._source, self._flags, self._compiled = source, flags, None

    def _get(self) -> re.Pattern:
        if self._compiled is None:
            import re

            flags = 0
            for letter in self._flags:
                flags |= getattr(re, letter)
            self._compiled = re.compile(self._source, flags)
        return self._compiled

    def search(self, *args: Any) -> re.Match | None:
        return self._get().search(*args)

    def match(self, *args: Any) -> re.Match | None:
        return self._get().match(*args)

    def sub(self, *args: Any) -> str:
        return self._get().sub(*args)

    def split(self, *args: Any) -> list:
        return self._get().split(*args)

    def finditer(self, *args: Any):
        return self._get().finditer(*args)

    def findall(self, *args: Any) -> list:
        return self._get().findall(*args)


# ---------------------------------------------------------------------------
# The original design's lists. Matched case-insensitively against the text
# both with apostrophes and without them, so "dont do that" also matches. The
# `'?` keeps them readable either way. Two deliberate narrowings, documented
# in docs/corrections.md: "please don't hesitate/worry" is not a correction,
# and "no need" is only an approval when it is not "no need for X / to <verb>"
# ("no need for a new class" *is* a correction).
# ---------------------------------------------------------------------------
DEFAULT_STRONG_PATTERNS: tuple[str, ...] = (
    r"don'?t do that",
    r"not like that",
    r"^i said\b",
    r"^i told you\b",
    r"we already discussed",
    r"^please don'?t\b(?!\s+(?:hesitate|worry|be sorry|apologi[sz]e))",
    r"^that'?s not what i\b",
)
DEFAULT_WEAK_PATTERNS: tuple[str, ...] = (r"^no\b", r"^wrong\b", r"^actually\b", r"^stop\b")
DEFAULT_NEGATIVE_PATTERNS: tuple[str, ...] = (
    r"^no (?:worries|problem|thanks)\b",
    r"^no need\b(?!\s+(?:for\b|to\s+(?!worry|apologi[sz]e|thank|be sorry|rush|hurry)))",
    r"^actually\b[\s,]*(?:(?:that|this|it)(?:'?s| is| was| looks)?\s+)?(?:looks?\s+|is\s+)?"
    r"(?:really\s+|pretty\s+|totally\s+)?(?:great|perfect|good|correct|right|fine)\b",
    r"^stop (?:there|here|for now)\b",
)
# A weak opener counts only when a directive follows it ("no, use pnpm").
# Additive verbs ("add", "also") are left out on purpose: "actually, also add
# a test" is a new request, not a correction.
DEFAULT_DIRECTIVE_WORDS: tuple[str, ...] = (
    "use", "don't", "do not", "never", "always", "should", "must", "instead", "rather",
    "keep", "put", "revert", "undo", "leave", "remove", "go back", "change it", "switch",
    "prefer", "meant", "wanted", "supposed to", "needs to", "has to", "not", "only",
)

_SETTING_KEYS = {
    "strong": "correction_strong_patterns",
    "weak": "correction_weak_patterns",
    "negative": "correction_negative_patterns",
}


from .values import FrozenValue as _Frozen  # noqa: E402 — cheap; no dataclasses


class CorrectionPatterns(_Frozen):
    """Compiled pattern lists for the original negative/strong/weak rule:
    ``strong``, ``weak``, ``negative`` (tuples of ``re.Pattern``),
    ``directive_words`` (tuple of str) and ``problems`` (tuple of str, default
    ``()``)."""

    __slots__ = ("strong", "weak", "negative", "directive_words", "problems")
    _defaults = {"problems": ()}


class CorrectionVerdict(_Frozen):
    """What the detector decided and why: ``is_correction``, ``rule``,
    ``score``, ``matched``, ``reason``.

    ``rule`` is one of: ``negative``, ``strong``, ``weak+directive``,
    ``contextual``, ``none``, ``empty``, ``quoted-only``, ``agent-prompt``.
    ``score`` is in [0, 1]; ``matched`` is the text that decided it.
    """

    __slots__ = ("is_correction", "rule", "score", "matched", "reason")

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of ``tacit detect correction``."""
        return {
            "correction": self.is_correction,
            "rule": self.rule,
            "score": round(self.score, 3),
            "matched": self.matched,
            "reason": self.reason,
        }


# ---------------------------------------------------------------------------
# Building the pattern lists
# ---------------------------------------------------------------------------
def _norm_word(word: str) -> str:
    import re

    return re.sub(r"\s+", " ", word.strip().lower().replace("\u2019", "'").replace("'", ""))


_OPTIONAL_APOSTROPHE = _Lazy(r"['\u2019](?![?*+{])")


def _compile_list(key: str, configured: Any, defaults: tuple[str, ...],
                  problems: list[str]) -> tuple[re.Pattern, ...]:
    import re
    from collections.abc import Iterable

    if configured is None or configured == [] or configured == ():
        configured = list(defaults)
    elif isinstance(configured, str) or not isinstance(configured, Iterable):
        problems.append(f"{key}: expected a list of regex strings, got {configured!r}; using defaults")
        configured = list(defaults)
    compiled: list[re.Pattern] = []
    for pattern in configured:
        if not isinstance(pattern, str):
            problems.append(f"{key}: {pattern!r} is not a string (ignored)")
            continue
        try:
            # MULTILINE: "^" is the start of any sentence of the message.
            # An apostrophe is optional: "that's" also matches "thats".
            compiled.append(re.compile(_OPTIONAL_APOSTROPHE.sub("'?", pattern), re.IGNORECASE | re.MULTILINE))
        except re.error as exc:
            problems.append(f"invalid regex in {key}: {pattern!r}: {exc} (ignored)")
    if not compiled:
        # Every configured pattern was bad: silently disabling the list would
        # be worse than the defaults the user started from.
        problems.append(f"{key}: no valid pattern left; using the built-in list")
        compiled = [re.compile(p, re.IGNORECASE | re.MULTILINE) for p in defaults]
    return tuple(compiled)


_COMPILED: dict = {}  # (strong, weak, negative, directive) -> CorrectionPatterns
_CACHE_SIZE = 32


def _compile_cached(strong: tuple, weak: tuple, negative: tuple, directive: tuple) -> CorrectionPatterns:
    key = (strong, weak, negative, directive)
    patterns = _COMPILED.get(key)
    if patterns is None:
        if len(_COMPILED) >= _CACHE_SIZE:
            _COMPILED.pop(next(iter(_COMPILED)))
        patterns = _COMPILED[key] = _compile_uncached(strong, weak, negative, directive)
    return patterns


def _compile_uncached(strong: tuple, weak: tuple, negative: tuple, directive: tuple) -> CorrectionPatterns:
    problems: list[str] = []
    strong_c = _compile_list(_SETTING_KEYS["strong"], list(strong), DEFAULT_STRONG_PATTERNS, problems)
    weak_c = _compile_list(_SETTING_KEYS["weak"], list(weak), DEFAULT_WEAK_PATTERNS, problems)
    negative_c = _compile_list(_SETTING_KEYS["negative"], list(negative), DEFAULT_NEGATIVE_PATTERNS, problems)
    words: list[str] = []
    for word in directive or DEFAULT_DIRECTIVE_WORDS:
        if isinstance(word, str) and _norm_word(word):
            words.append(_norm_word(word))
        else:
            problems.append(f"correction_directive_words: {word!r} is not a word (ignored)")
    if not words:
        words = [_norm_word(w) for w in DEFAULT_DIRECTIVE_WORDS]
    return CorrectionPatterns(strong_c, weak_c, negative_c, tuple(dict.fromkeys(words)), tuple(problems))


def _as_tuple(value: Any) -> tuple:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)  # reported as "not a list" by the caller below
    try:
        return tuple(value)
    except TypeError:
        return (value,)


def compile_patterns(strong: Iterable[str] | None = None, weak: Iterable[str] | None = None,
                     negative: Iterable[str] | None = None,
                     directive_words: Iterable[str] | None = None) -> CorrectionPatterns:
    """Compile pattern lists; an empty or missing list means the built-in one."""
    return _compile_cached(_as_tuple(strong), _as_tuple(weak), _as_tuple(negative),
                           _as_tuple(directive_words))


def patterns_from_config(cfg: Any) -> CorrectionPatterns:
    """Patterns from a Config (attributes) or a plain mapping of settings."""

    from collections.abc import Mapping

    def read(name: str) -> Any:
        if isinstance(cfg, Mapping):
            return cfg.get(name)
        return getattr(cfg, name, None)

    return compile_patterns(read("correction_strong_patterns"), read("correction_weak_patterns"),
                            read("correction_negative_patterns"), read("correction_directive_words"))


def default_patterns() -> CorrectionPatterns:
    return _compile_cached((), (), (), ())


# ---------------------------------------------------------------------------
# Quoted text, agent prompts, long messages
# ---------------------------------------------------------------------------
_FENCE = _Lazy(r"(?ms)^[ \t]*(```|~~~).*?(?:^[ \t]*\1[ \t]*$|\Z)")
_INLINE_FENCE = _Lazy(r"```.*?```", "S")
_KNOWN_TAGS = ("system|system-reminder|context|conversation|transcript|example|examples|quote|memory|"
               "instructions|prompt|document|file|output|result|results|log|logs|stdout|stderr|"
               "function_results|tool_result|command-name|command-message|command-args")
_TAG_BLOCK = _Lazy(
    r"<((?:[a-z][\w]*[-_][\w-]*)|(?:" + _KNOWN_TAGS + r"))(?:\s[^<>]*)?>.*?</\1\s*>", "SI")
_QUOTE_LINE = _Lazy(r"(?m)^[ \t]*>.*$")
_ROLE_LINE = _Lazy(
    r"(?mi)^[ \t]*(?:[-*][ \t]+)?(?:\*\*|\[)?(?:user|human|assistant|ai|agent|claude|system|model|bot|tool|"
    r"hermes|pi)(?:\*\*|\])?[ \t]*:.*$")
_DQUOTE = _Lazy(r"\"([^\"\n]{1,400})\"|\u201c([^\u201d\n]{1,400})\u201d")
_INWORD_APOSTROPHE = _Lazy(r"(?<=\w)['\u2019](?=\w)")
_HIDDEN_APOSTROPHE = "\ue000"  # stands in for "don't"'s apostrophe while quotes are matched
_SQUOTE = _Lazy(r"(?<!\w)['\u2018]([^'\u2018\u2019\n]{1,400}?)['\u2019](?!\w)")
_BACKTICK = _Lazy(r"`([^`\n]{1,400})`")
_TRIGGERISH = _Lazy(
    r"\b(?:no|not|nope|don'?t|do not|never|stop|wrong|said|told|actually|please|why|instead|again|"
    r"should|discussed|wanted|meant|asked)\b", "I")
_PLACEHOLDER = " \u2026 "
_BLANK_LINES = _Lazy(r"\n[ \t]*(?:\n[ \t]*)+")


def _quoted_span(match: re.Match) -> str:
    # Short names and labels ("Sign in", `cargo test`) stay, so "X not Y"
    # still reads; quoted speech ("I said don't") becomes a placeholder.
    inner = next((g for g in match.groups() if g is not None), "").replace(_HIDDEN_APOSTROPHE, "'")
    if len(inner.split()) <= 3 and not _TRIGGERISH.search(inner):
        return inner
    return _PLACEHOLDER


def strip_quoted(text: str) -> str:
    """Text with everything the user merely quotes removed.

    Removes code fences, host tag blocks (``<system-reminder>…</…>``), ``>``
    quote lines and role-labelled transcript lines (``user: …``); quoted
    speech in double/single quotes or backticks becomes a placeholder while
    short names and labels are kept as plain words.
    """
    if not text:
        return ""
    out = text.replace("\r\n", "\n").replace("\r", "\n")
    # each pass runs only if its marker occurs (most messages have none)
    if "```" in out or "~~~" in out:
        out = _FENCE.sub("\n", out)
        out = _INLINE_FENCE.sub(_PLACEHOLDER, out)
    if "</" in out:
        out = _TAG_BLOCK.sub("\n", out)
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
    # spacing inside lines is kept: log-line shapes (pytest's "E   ") need it
    return _BLANK_LINES.sub("\n\n", out).strip()


_PROMPT_OPENERS = _Lazy(
    r"^\s*(?:#+\s*)?(?:you are (?:a|an|the|tacit|claude|hermes)\b|you're (?:a|an|the)\b|your (?:task|job|role) is\b|"
    r"this session is being continued from a previous conversation|<system\b|system:|"
    r"instructions:|task:|## task\b)", "I")
_CHILD_MARKERS = ("tacit:child", "tacit-child", "tacit_child")


def looks_like_agent_prompt(text: str) -> bool:
    """True for text written *to* an agent by a program rather than by the
    user: a tacit child prompt, a compaction summary, a system prompt."""
    if not text:
        return False
    head = text[:4000].lower()
    if any(marker in head for marker in _CHILD_MARKERS):
        return True
    if len(text) < 200 or text.count("\n") < 2:
        return False  # "you are overcomplicating it" is a user, not a prompt
    return bool(_PROMPT_OPENERS.match(text))


_LOG_LINE = _Lazy(
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
    )""", "X")
_BULLET = _Lazy(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+")
_SENTENCE_SPLIT = _Lazy(r"(?<=[.!?])\s+|\n+")
FOCUS_FULL_CHARS = 600
FOCUS_EDGE_CHARS = 280


def _is_log_line(line: str) -> bool:
    if _LOG_LINE.match(line):
        return True
    letters = sum(map(str.isalpha, line))
    visible = len(line) - sum(map(str.isspace, line))
    return visible >= 12 and letters < 0.45 * visible


def focus_text(stripped: str) -> str:
    """The part of a (quote-stripped) message worth judging.

    Log-shaped lines go. A long message keeps only its leading and trailing
    sentences: a user's correction sits at the start or the end, while the
    middle of a long message is pasted material or a spec.
    """
    lines = [ln for ln in stripped.split("\n") if ln.strip() and not _is_log_line(ln)]
    body = "\n".join(lines)
    if len(body) <= FOCUS_FULL_CHARS:
        return body
    prose = [ln for ln in lines if not _BULLET.match(ln)]
    sentences = [s.strip() for s in _SENTENCE_SPLIT.split("\n".join(prose)) if s and s.strip()]
    if not sentences:
        return ""
    head: list[str] = []
    for sentence in sentences:
        head.append(sentence[:FOCUS_EDGE_CHARS])
        if sum(map(len, head)) >= FOCUS_EDGE_CHARS // 2:
            break
    tail: list[str] = []
    for sentence in reversed(sentences[len(head):]):
        tail.insert(0, sentence[-FOCUS_EDGE_CHARS:])
        if sum(map(len, tail)) >= FOCUS_EDGE_CHARS // 2:
            break
    return "\n".join(head + tail)


# ---------------------------------------------------------------------------
# Normalisation
# ---------------------------------------------------------------------------
_TYPOS = {
    "siad": "said", "sayed": "said", "tol": "told", "toldya": "told you", "shoudl": "should",
    "shuold": "should", "shoud": "should", "teh": "the", "pls": "please", "plz": "please",
    "plase": "please", "pleae": "please", "u": "you", "ur": "your", "dnt": "dont",
    "alredy": "already", "allready": "already", "alrdy": "already", "insted": "instead",
    "instaed": "instead", "acutally": "actually", "actualy": "actually", "acually": "actually",
    "actaully": "actually", "wnated": "wanted", "watned": "wanted", "aksed": "asked",
    "asekd": "asked", "dint": "didnt",
    "tht": "that", "thta": "that", "waht": "what", "wat": "what", "wrnog": "wrong", "worng": "wrong",
    "stpo": "stop", "agian": "again", "agin": "again", "nevr": "never", "becuase": "because",
    "bc": "because", "cuz": "because", "coz": "because",
}
_CUE_WORDS = ("said", "told", "asked", "wanted", "already", "instead", "actually", "should",
              "please", "again", "wrong", "never", "discussed", "meant", "supposed", "mentioned",
              "explicitly", "specifically", "revert", "because")


_FIXED: dict = {}  # token -> _fix_token(token), for the last _FIXED_SIZE distinct tokens
_FIXED_SIZE = 8192


def _fix_token(token: str) -> str:
    fixed = _FIXED.get(token)
    if fixed is None:
        if len(_FIXED) >= _FIXED_SIZE:
            _FIXED.clear()
        fixed = _FIXED[token] = _fix_token_uncached(token)
    return fixed


def _fix_token_uncached(token: str) -> str:
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
            for i in range(len(long_)):
                if long_[:i] + long_[i + 1:] == short:
                    return word
    return token


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'"})
_WORD = _Lazy(r"(?<![\w])[a-z]+(?![\w])")
_SPACES = _Lazy(r"[ \t\r\f\v]+")
_NEWLINES = _Lazy(r" ?\n\s*")
# "don't" -> "dont", "users' " -> "users "; quote marks elsewhere stay
_DROP_APOSTROPHE = _Lazy(r"(?<=[a-z])'(?=[a-z]|\s|$)")
_SENTENCE_BREAK = _Lazy(r"(?<=[.!?])\s+|\n+")


def _normalise(text: str) -> tuple[str, str]:
    """(lowercase with ASCII apostrophes, the same with apostrophes dropped
    and typos fixed). Config patterns see both; built-in cues the second."""
    lower = _SPACES.sub(" ", text.translate(_APOSTROPHES).lower())
    lower = _NEWLINES.sub("\n", lower).strip()
    bare = _DROP_APOSTROPHE.sub("", lower)
    bare = _WORD.sub(lambda m: _fix_token(m.group(0)), bare)
    return lower, bare


_CLAUSE_SPLIT = _Lazy(
    r"[,;:!?\n\u2014\u2013()]+|\.+(?=\s|$)|\s-+\s|\s(?=(?:but|though|however|except|because)\s)")


def _clauses(bare: str) -> list[str]:
    return [c.strip(" .'\"") for c in _CLAUSE_SPLIT.split(bare) if c and c.strip(" .'\"")]


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_BREAK.split(text) if s.strip()]


# ---------------------------------------------------------------------------
# Contextual cues. Each is (name, weight, firm, regex, anchored). Anchored
# cues match at the start of a clause; the others anywhere in the message.
# Firm cues stand on their own and are not dampened by bug-report, request or
# question signals; moderate cues add up and are.
# ---------------------------------------------------------------------------
_LEAD = (r"(?:(?:but|and|no|nope|nah|so|hey|hmm+|um+|uh+|ugh|ok|okay|oh|oops|wait|dude|man|yo|well|also|just|"
         r"please|again|like|see|remember|btw|fyi|reminder|note that)\s+)*")
_PAST = (r"(?:keep|kept|always|broke|forgot|missed|misunderstood|misread|ignored|reverted|removed|deleted|"
         r"changed|put|used|added|made|renamed|moved|touched|edited|overwrote|dropped|left|skipped|installed|"
         r"created|wrote|rewrote|replaced|converted|switched|introduced|didnt|did not|never|went|mixed|"
         r"messed|undid|lost|duplicated|hardcoded|committed|pushed|ran|picked|chose|swapped|"
         r"(?!suggested|mentioned|recommended|proposed|asked|offered|wanted|needed|explained|described|showed|"
         r"noticed|seemed|helped|figured|nailed|solved|fixed it)\w+ed|"
         r"(?:re|are) (?:still |again |now |just )?(?!doing (?:great|well|good)|getting (?:close|there)|"
         r"making progress|welcome)\w+ing\b)")
_CUES: list[tuple[str, float, bool, str, bool]] = [
    ("i-said", 0.8, True,
     _LEAD + r"(?:as |like )?i (?:(?:already|just|literally|clearly|specifically|explicitly|did|even|also|"
     r"only|never|basically|definitely) ){0,3}"
     r"(?:said|told you|asked (?:you |for )|asked you not|mentioned|wanted (?!to (?:ask|know|check|see|say|"
     r"let|confirm|make sure|try))|meant (?!to (?:ask|say))|was asking for|never (?:said|asked|told|wanted)|"
     r"didnt (?:ask|say|want|tell|mean)|did not (?:ask|say|want|tell|mean)|specifically said)\b", True),
    ("as-i-said", 0.8, True, r"\b(?:as|like) (?:i|we) (?:said|told you|mentioned|discussed)\b", False),
    ("i-dont-want", 0.6, False, _LEAD + r"i (?:dont|do not) want (?!to\b)", True),
    ("not-what-asked", 0.85, True,
     r"\b(?:thats|that is|this is|that was|this was|its|it is|thats just)\s+not\s+(?:quite\s+|really\s+|even\s+)?"
     r"(?:what|how|right|correct|the (?:right|correct|layout|one|way|design|behavio|format|thing|file|page|"
     r"component|command|version|branch|repo|color|colour|api|approach|style|order)\w*|it|my|our|at all)\b"
     r"|\b(?:this|that|it) (?:isnt|wasnt|is not|was not) (?:what|how|right|correct|the right|the correct)\b"
     r"|\bnot what i (?:asked|wanted|meant|said|had in mind|need)", False),
    ("thats-wrong", 0.75, True,
     r"\b(?:thats|that is|this is|thats all|its all|that was|you are|youre|ur)\s+(?:completely\s+|totally\s+|all\s+)?"
     r"(?:wrong|incorrect|mistaken|backwards|overkill|the old \w+|too (?:much|complicated|complex|verbose|long))\b",
     False),
    ("why-you", 0.75, True,
     _LEAD + r"(?:why|whyd|how come)(?: (?:on earth|the hell|tf))? (?:did|would|are|do|were|have|didnt|dont|"
     r"arent|havent|is it that|d)? ?(?:you|u)\b(?! (?:so|choose|chose|pick|picked|decide|decided|think|recommend|"
     r"suggest|prefer|go with|say that|mention|ask|like|want|need|use a)\b)", True),
    ("why-is-this", 0.3, False, r"(?:why|whyd) (?:is|are) (?:there|this|that|these|those|it) ", True),
    ("stop-doing", 0.8, True,
     _LEAD + r"(?:can you |could you |will you |would you )?(?:stop|quit)\s+(?!\w*thing\b)\w+ing\b", True),
    ("stop-interjection", 0.35, False, r"(?:stop|wait|hold on|hang on|whoa)$", True),
    ("dont-imperative", 0.7, True,
     _LEAD + r"(?:dont|do not|never|dont ever|do not ever)\s+(?!forget|hesitate|worry|mind|be sorry|apologi|"
     r"get me wrong|know|think|see|understand|have|want\b|need\b|like|care|remember|bother)\w+", True),
    ("always-never", 0.55, False, _LEAD + r"(?:always|never)\s+(?!mind\b)\w+", True),
    ("from-now-on", 0.45, False,
     r"\b(?:from now on|in (?:the )?future|next time|going forward|moving forward|whenever you|every time you|"
     r"remember (?:that |we |to )|for future reference)\b", False),
    ("you-did", 0.55, False, _LEAD + r"(?:you|u)(?:ve| have| just| again| still| also| already| even| only)? ?"
     + _PAST
     + r"\b", True),
    ("you-misunderstood", 0.8, True,
     r"\byou (?:misunderstood|misread|misunderstand|got it wrong|got that wrong|ignored (?:what|my))|"
     r"\b(?:you|u)(?:re| are) (?:overcomplicating|overthinking|overengineering|doing it wrong)", False),
    ("we-convention", 0.55, False,
     _LEAD + r"(?:here |in this (?:repo|project|codebase|team) )?(?:we|were)(?: are| re)? (?:only )?"
     r"(?:use(?! (?:this|that|it|these|those)\b)|dont use|do not use|dont do|dont|never|always|prefer|follow|"
     r"work on|deploy|moved|switched|"
     r"are on|re on|on|re using|are using|squash|name|keep|stick|write|run|test|put)\b"
     r"|(?:this|the|our) (?:project|repo|codebase|team|app) (?:uses|use|follows|is on|runs on|doesnt use)\b",
     True),
    ("we-have", 0.35, False, _LEAD + r"we (?:already )?(?:have|got) ", True),
    ("for-that", 0.3, False, r"\b(?:for that|for this|use that|use those|use it|use them|instead)\s*$", True),
    ("revert", 0.55, False,
     _LEAD + r"(?:undo|revert|roll ?back|restore|go back to|put (?:it|them|that|those|this) back|"
     r"bring (?:it|them|that|this) back|change (?:it|that|this) back|rename (?:it|that|this) back)\b", True),
    ("put-back", 0.55, False,
     r"\b(?:put|bring|change|rename|move|set|turn|switch|split|roll|give|merge|make) (?:(?:it|them|that|this|"
     r"those|these)|(?:the |my |our )(?:[\w./-]+ ){0,4}?)back\b", False),
    ("too-clever", 0.5, False,
     r"\btoo (?:clever|fancy|magic\w*|complex|complicated|abstract|hacky|verbose|smart)\b", False),
    ("unneeded", 0.5, False,
     r"\b(?:you can skip|you can drop|you dont need (?:to|the|a|an|any|this|that|it|those|these)|you dont have to|"
     r"you do not need to|no need (?:to|for)|"
     r"theres no need|dont bother|not necessary|isnt necessary|unnecessary|is overkill|overkill|"
     r"overcomplicat\w*|overengineer\w*|way too (?:much|many|long|complex)|too verbose)\b", False),
    ("keep-simple", 0.3, False, r"\bkeep it simple\b", False),
    ("leave-alone", 0.55, False,
     r"\bleave (?:\S+ ){1,4}(?:alone|as is|as it (?:is|was)|untouched|out of (?:it|this))\b", False),
    ("keep-old", 0.4, False,
     _LEAD + r"(?:keep|leave|stick with|stay with|stay on|go back to) (?:the |my |our )?(?:old|original|existing|"
     r"previous|current|first)\b", True),
    ("as-everywhere", 0.45, False,
     r"\b(?:like|as) (?:everywhere else|the rest of (?:the|this) \w+|we (?:always )?do (?:it )?(?:here|elsewhere|"
     r"everywhere)|before|usual|always|in the other \w+|the other \w+ do)\b", False),
    ("the-other-one", 0.45, False,
     r"(?:\b(?:its|it is|i meant|i mean|thats|that is|no|nope) |^)the other (?:one|\w+)\b", False),
    ("prefer", 0.45, False, _LEAD + r"(?:i |we )?(?:prefer|would prefer|would rather|d rather|d prefer)\b", True),
    ("no-i-want", 0.5, False, r"^(?:no+|nope|nah|hmm+ no|no no)[,.!]?\s+i (?:want|need|mean|meant|prefer)\b", False),
    ("no-thing", 0.35, False,
     r"(?:please |pls )?(?:no|nope) (?:more )?(?!idea|luck|change|errors?\b|output|response|difference|"
     r"way\b|clue|worries|problem|thanks|need|rush|pressure|hurry|biggie|matter|one\b|results?\b|data\b|effect|success|"
     r"it\b|that\b|this\b|i\b|we\b|you\b|the\b|not\b|wait|sorry)[a-z_][\w./-]*(?: [\w./-]+){0,6}$", True),
    ("can-you-not", 0.6, True,
     _LEAD + r"(?:can|could|would|will) (?:you|u) (?:please )?(?:not|stop|quit)\b", True),
    ("we-went-over", 0.7, True,
     r"\bwe(?:ve| have)? (?:already )?(?:went|gone|been) (?:over|through) (?:this|that|it)\b|"
     r"\bwe (?:already )?(?:discussed|talked about|covered) (?:this|that|it)\b|\bhow many times\b", False),
    ("who-told-you", 0.75, True, r"\bwho (?:told|asked) (?:you|u) to\b", False),
    ("not-asking", 0.75, True,
     _LEAD + r"(?:i )?(?:wasnt|was not|didnt|did not|never|am not|im not) (?:ask|asking|asked) (?:for|you)\b", True),
    ("you-supposed", 0.7, True, r"\b(?:you|u)(?:re| are| were) (?:not )?supposed to\b", False),
    ("should-have-been", 0.5, False, r"\b(?:should|could)(?:ve| have| of) been\b", False),
    ("was-enough", 0.4, False,
     r"\b(?:was|is|would be|would have been|wouldve been) (?:enough|plenty|sufficient)\b", False),
    ("already-exists", 0.35, False,
     r"\balready (?:does|exists|exist|handles|handle|has|have|provides|covers|do)\b", False),
    ("too-much-code", 0.45, False,
     r"\b(?:a lot of|so much|too much|way too much|lots of) (?:code|boilerplate|work|complexity|files|"
     r"abstraction) for\b", False),
    ("wont-work", 0.45, False,
     r"\b(?:that|this|it)(?:s| is)? not (?:gonna|going to) work\b|\b(?:that|this) (?:wont|will not|cant|"
     r"doesnt|does not) work (?:with|for|because|since|in)\b", False),
    ("cant-do", 0.45, False,
     _LEAD + r"(?:we|you|u) (?:cant|cannot|can not|shouldnt|should not|mustnt|must not) \w+", True),
    ("bad-idea", 0.5, False,
     r"\b(?:bad|terrible|horrible|not a good|dangerous) idea\b", False),
    ("spec-says", 0.45, False,
     r"\bthe (?:spec|ticket|issue|docs?|readme|design|requirements?|mockup|figma|story|brief) (?:says|said|"
     r"clearly says|asks for|is clear)\b", False),
    ("thats-the-x", 0.3, False,
     _LEAD + r"(?:thats|its|this is|that is) the (?!one\b|spirit|idea|plan|way|error|issue|problem|bug|same)"
     r"(?:[\w./-]+ ){0,2}[\w./-]+$", True),
    ("no-such", 0.4, False,
     r"\b(?:there is|theres|there are) no (?:such )?\w+|\b(?:doesnt|does not|dont|do not) (?:even )?exist\b", False),
    ("dismissive-opener", 0.3, False, r"^(?:nah|nope|nooo+|no no|nono|ugh|meh|bro|dude)\b", False),
    ("you-caused", 0.6, True,
     r"\b(?:because|since|after|when|cause) (?:you|u) (?:\w+ed|broke|ran|put|made|wrote|took)\b|"
     r"\b(?:you|u) (?:broke|ignored|messed up|destroyed|wiped|overwrote|clobbered)\b", False),
    ("you-should-have", 0.7, True,
     r"\b(?:you|u) (?:should(?:nt| not)? (?:have|of)|shouldve|couldve|could have just|were supposed to|"
     r"werent supposed to|were not supposed to|never should have)\b", False),
    ("we-agreed", 0.5, False,
     r"(?:^" + _LEAD + r"|\b(?:sure|thought|think|remember|recall|know|believe) )we (?:already |just |literally )?"
     r"(?:agreed|decided|settled on|said)\b", False),
    ("no-more", 0.5, False, r"(?:please |pls )?no more (?!errors?\b|warnings?\b|crash\w*|issues?\b)\w+", True),
    ("cant-do-that", 0.6, True,
     r"\b(?:we|you|u) (?:cant|cannot|can not|shouldnt|should not|must not|mustnt) \w+ (?:that|this|it|those|"
     r"these)\b", False),
    ("we-already-have", 0.35, False, r"\bwe already (?:have|got)\b", False),
    ("outdated", 0.45, False,
     r"\b(?:is|are|its|thats|was) (?:deprecated|outdated|obsolete|legacy|dead code|the old (?:one|version|api|"
     r"way|\w+))\b", False),
    ("isnt-the", 0.5, False,
     r"\b(?:this|that|it|these|those|they)\s+(?:isnt|arent|wasnt|werent|is not|are not)\s+(?:the|our|my|what|how|"
     r"right|correct)\b", False),
    ("was-fine", 0.5, False,
     r"\b(?:was|were) (?:fine|ok|okay|good|better|perfect|great)(?: before| as it was| the way it was)?\b"
     r"|\b(?:like|as|the way) it was\b", False),
    ("only-asked", 0.45, False,
     r"\bi only (?:asked|wanted|said|needed|meant)\b|\bonly (?:the )?\w+(?: \w+)? (?:needed|was supposed|"
     r"should have)\b", False),
    ("that-not-this", 0.5, False,
     r"\b(?:thats|its|this is|that is) (?!exactly|just|what|how|all|it\b|why|where|precisely|totally)"
     r"(?:the |a |an )?[\w./-]+(?: [\w./-]+)?,? (?:i|we) (?:need|want|meant|"
     r"asked for|wanted|use)\b", False),
    ("wrong-target", 0.6, False,
     _LEAD + r"(?:(?:thats|its|this is|that is|youre (?:in|on|editing|looking at|using)|you (?:edited|changed|"
     r"used|opened|picked|ran|fixed|touched|updated|modified) )\s*)?(?:the |a |an )?wrong (?!password|credential"
     r"|results?\b|outputs?\b|values?\b|totals?\b|numbers?\b|data\b|answers?\b|response|status|error|format|"
     r"type\b|dates?\b|times?\b|timezone)\w+", True),
    ("the-wrong", 0.4, False, r"\bthe wrong (?!password|credential|results?\b|outputs?\b|values?\b|totals?\b|"
     r"numbers?\b|data\b|answers?\b|response|status|error|dates?\b|times?\b|timezone)\w+", False),
    ("bare-wrong", 0.5, False, r"(?:wrong|incorrect|not quite|nope not quite|not right)$", True),
    ("rejection-opener", 0.3, False,
     r"(?:no+|nope|nah|no no|no no no|hmm+ no|oops no|uh no|no wait|wait no|ugh|nooo+)$", True),
    ("other-way", 0.6, False, r"\b(?:the )?other way (?:a)?round\b|\bthe opposite\b", False),
    ("supposed-to", 0.45, False,
     r"\b(?:is|are|its|was|were|thats|theyre|it was) supposed to\b|\bsupposed to (?:be|use|go|have|run|close|"
     r"show|return|stay)\b", False),
    ("should-be", 0.3, False,
     r"\b(?:should|must|needs to|has to|have to|need to)\s+(?:only\s+)?(?:be|go|live|stay|use|return|"
     r"include|have|close|run|say|show|come|sit|point)\b", False),
    ("norm-goes", 0.3, False,
     r"^(?:the |all |our )?\w+(?: \w+)? (?:go|goes|belong|belongs|live|lives) (?:in|into|under|next to|on)\b", True),
    ("not-opener", 0.5, False,
     r"(?:(?:no+|nope|nah|wait|oh|oops|uh+|hmm+|ugh|no no)\s+)*not (?!sure|yet|now|really|bad|much|a big|"
     r"exactly sure|working|loading|showing|urgent|important|"
     r"a problem|an issue|today|at the moment|that i know|anymore|related|\w+ing\b|\w+ed\b)(?:in |on |the |this |"
     r"that |my |a |an )?\w+", True),
]
# A cue's regex runs only if one of these substrings is in the message: a
# C-level substring test is ~100x cheaper than a regex search, and most cues
# can't match most messages. (No entry: always run.)
_CUE_NEEDS: dict[str, tuple[str, ...]] = {
    "i-said": ("said", "told", "asked", "mentioned", "wanted", "meant", "asking", "never", "didnt", "did not"),
    "as-i-said": ("as i", "like i", "as we", "like we"),
    "i-dont-want": ("want",),
    "not-what-asked": ("not", "isnt", "wasnt"),
    "thats-wrong": ("wrong", "incorrect", "mistaken", "backwards", "overkill", "the old", "too "),
    "why-you": ("why", "how come"),
    "why-is-this": ("why",),
    "stop-doing": ("stop", "quit"),
    "stop-interjection": ("stop", "wait", "hold on", "hang on", "whoa"),
    "dont-imperative": ("dont", "do not", "never"),
    "always-never": ("always", "never"),
    "from-now-on": ("from now", "future", "next time", "forward", "whenever you", "every time you", "remember"),
    "you-did": ("you",),
    "you-misunderstood": ("you",),
    "we-convention": ("we", "project", "repo", "codebase", "team", "app"),
    "we-have": ("we ",),
    "for-that": ("for that", "for this", "use that", "use those", "use it", "use them", "instead"),
    "revert": ("undo", "revert", "roll", "restore", "go back", " back"),
    "put-back": (" back",),
    "too-clever": ("too ",),
    "unneeded": ("skip", "drop", "need", "have to", "bother", "necessary", "overkill", "overcomplicat",
                 "overengineer", "way too", "verbose"),
    "keep-simple": ("simple",),
    "leave-alone": ("leave",),
    "keep-old": ("old", "original", "existing", "previous", "current", "first"),
    "as-everywhere": ("like ", "as "),
    "the-other-one": ("other",),
    "prefer": ("prefer", "rather"),
    "no-i-want": ("no",),
    "no-thing": ("no",),
    "can-you-not": (" not", " stop", " quit"),
    "we-went-over": ("over", "through", "discussed", "talked about", "covered", "how many times"),
    "who-told-you": ("who",),
    "not-asking": ("ask",),
    "you-supposed": ("supposed",),
    "should-have-been": ("been",),
    "was-enough": ("enough", "plenty", "sufficient"),
    "already-exists": ("already",),
    "too-much-code": (" for",),
    "wont-work": ("work",),
    "cant-do": ("cant", "cannot", "can not", "shouldnt", "should not", "mustnt", "must not"),
    "cant-do-that": ("cant", "cannot", "can not", "shouldnt", "should not", "mustnt", "must not"),
    "bad-idea": ("idea",),
    "spec-says": ("spec", "ticket", "issue", "doc", "readme", "design", "requirement", "mockup", "figma",
                  "story", "brief"),
    "thats-the-x": ("the ",),
    "no-such": ("no ", "exist"),
    "you-caused": ("you",),
    "you-should-have": ("you",),
    "we-agreed": ("we ",),
    "no-more": ("no more",),
    "we-already-have": ("we already",),
    "outdated": ("deprecated", "outdated", "obsolete", "legacy", "dead code", "the old"),
    "isnt-the": ("isnt", "arent", "wasnt", "werent", "is not", "are not"),
    "was-fine": ("was", "were"),
    "only-asked": ("only",),
    "that-not-this": ("need", "want", "meant", "asked", "use"),
    "wrong-target": ("wrong",),
    "the-wrong": ("wrong",),
    "bare-wrong": ("wrong", "incorrect", "not quite", "not right"),
    "rejection-opener": ("no", "nah", "ugh"),
    "other-way": ("other way", "opposite"),
    "supposed-to": ("supposed",),
    "should-be": ("should", "must", "need", "has to", "have to"),
    "norm-goes": ("go", "belong", "live"),
    "not-opener": ("not",),
}
_FIRST_CLAUSE_ONLY = {"not-opener", "rejection-opener", "stop-interjection", "bare-wrong"}
_CUE_TABLE = [(index, name, weight, firm, anchored, _CUE_NEEDS.get(name, ()))
              for index, (name, weight, firm, _rx, anchored) in enumerate(_CUES)]


_CUE_COMPILED: dict = {}  # cue index -> compiled regex


def _cue_regex(index: int) -> re.Pattern:
    """Compiled on first use: compiling every cue costs ~20 ms, and a hook
    process that judges one message needs only the few whose key words occur.
    Anchored cues run once over all clauses joined by newlines (multiline ^
    and $ mark clause edges), several times faster than one search per
    clause; inside them whitespace may not cross into the next clause."""
    compiled = _CUE_COMPILED.get(index)
    if compiled is None:
        import re

        compiled = _CUE_COMPILED[index] = re.compile(_cue_source(index))
    return compiled


def _cue_source(index: int) -> str:
    """The regex source a cue runs as (anchored cues: at each clause start)."""
    _name, _weight, _firm, source, anchored = _CUES[index]
    return "(?m)^" + source.replace(r"\s", r"[ \t]") if anchored else source


# Contrast: "A, not B", "is A not B", "A instead of B". Weighted by context.
_NOT_STATE = (r"(?:sure|yet|now|working|loading|showing|found|defined|bad|only|just|really|much|needed|"
              r"necessary|available|supported|a big deal|allowed|responding|rendering|updating|saving|"
              r"displaying|visible|clickable|even|always|everything|all|too|that bad|so|at all|\w+ing\b|"
              r"\w+ed\b)")
_COPULA_CONTRAST = _Lazy(
    r"\b(?:is|are|its|was|were|should be|must be|needs to be|has to be|called|named|goes|go|belongs|lives|"
    r"live|stays|stay|runs on|means|meant)\s+(?!(?:definitely|really|just|probably|simply|certainly|actually|"
    r"still|also|clearly|obviously|surely)\s+not\b)(?P<a>[^,.;!?]{1,50}?)\s*,?\s+(?:and\s+)?"
    r"not\s+(?!" + _NOT_STATE + r")(?P<b>[^,.;!?]{1,50})")
# The generic forms are searched from their anchor ("not", "instead") and the
# A part is sliced out afterwards: a lazy "A" group tried at every word
# boundary was the slowest thing in the detector.
_GENERIC_CONTRAST = _Lazy(
    r"(?:,[ \t]*|[ \t]+(?:and|but)[ \t]+)(?:and |but )?not[ \t]+(?!" + _NOT_STATE + r")(?P<b>[^,.;!?\n]{1,50})")
_NOT_B_ITS_A = _Lazy(
    r"\b(?:its|it is|thats|that is|this is|they are|theyre|were|we are)\s+not\s+(?!" + _NOT_STATE
    + r")(?P<b>[^,.;!?]{1,40})[,;.]\s*(?:its|it is|thats|that is|this is|they are|theyre|were|we are|but|its a|"
    r"it uses)\s+(?P<a>[^,.;!?]{1,40})")
_INSTEAD = _Lazy(r"\binstead(?: of (?P<b>[^,.;!?\n]{1,50}))?\b")
_PART_BREAK = _Lazy(r"[,.;!?\n]")

# Signals that dampen moderate cues.
_BUG = _Lazy(
    r"\b(?:still|error(?! handling| message| toast| page| boundar| state| code| type| format)|errors|"
    r"exception|traceback|crash\w*|(?<!to )(?<!should )(?<!must )fail\w*|broken|breaks|doesnt work|dont work|"
    r"not working|isnt working|does nothing|nothing happens|blank|empty|404|500|undefined|nan|segfault|"
    r"hangs?|freez\w*|stuck|same (?:error|thing|issue|problem|result)|no luck|no change|keeps? (?:crashing|"
    r"failing)|permission denied|cannot|cant find|not found)\b")
_REQUEST = _Lazy(
    r"(?<!you )\b(?:also|too(?=\s*(?:[.!?,]|$))|as well|additionally|in addition|another thing|next|"
    r"now (?:lets|add|make|do|can|write|implement)|lets also|and then|can you|could you|would you|lets)\b")
_QUESTION_START = _Lazy(r"^(?:can|could|would|will|should|is|are|does|do|did|what|how|where|which|when|"
                             r"who|whats|hows|wheres|any idea|is there)\b")
_APPROVAL = _Lazy(
    r"^(?!(?:yeah|yes|ok|okay|yep)\s+no\b)"  # "yeah no" means no
    r"(?:perfect|great|awesome|nice|cool|thanks|thank you|thx|ty|lgtm|looks (?:good|great|perfect|fine)|"
    r"works|working|yes|yep|yeah|yup|exactly|ok(?:ay)?|sounds good|much better|good (?:job|call|catch|stuff)|"
    r"love it|brilliant|excellent|amazing|sweet|beautiful|all good|that works|this works|that fixed it|"
    r"correct|right|you were right|nailed it|good|(?:thats|this is|that is|its) (?:exactly|just|precisely) what|"
    r"(?:thats|this is|its) (?:it|perfect|great|better|much better|right|correct|what i (?:wanted|meant|needed)))\b")
_TURN = _Lazy(r"\b(?:but|except|however|though|although|only thing|one thing)\b")
_CURIOUS = _Lazy(r"\b(?:just curious|out of curiosity|im curious|curious (?:why|how|what)|i wonder)\b")
_OWN_DOING = _Lazy(r"\b(?:my (?:last|own|test|previous|local)|by mistake|i (?:committed|pushed|broke|"
                        r"messed))\b")
_REQUEST_VERB = _Lazy(r"^(?:please |pls |can you |could you )?(?:add|create|write|implement|build|make|"
                           r"set up|setup|generate|design|refactor|migrate|convert|port)\b")

# The agent's previous reply: did it act, or ask?
_PREV_ACTION = _Lazy(
    r"\b(?:i(?:ve| have)?\s+(?:just\s+|also\s+|now\s+)?(?:\w+ed|made|wrote|rewrote|put|set|built|ran|kept|left|"
    r"took|did|split|moved)|ill|i will|im going to|let me|running|now applying|now running|applying|"
    r"committed|installed|renamed|created|added|updated|converted|switched|done|here is|heres|now \w+s|"
    r"is now|are now)\b")
_PREV_ASKS = _Lazy(
    r"(?:should i|shall i|do you want|would you like|want me to|which|do you prefer|or\b|is it|is the|"
    r"what|do you|can you confirm|right|anything else|any other|next)[^?]*\?\s*$")
_STOP = frozenset(
    "the a an and or but not no to of in on for with this that it is are was be do dont i you we my your our "
    "its at by as from so just only also very too then than there here what which when how why use used using "
    "one new old file files code please now instead should would could can will all any some more less".split())
_TOKEN = _Lazy(r"[a-z0-9_][a-z0-9_./-]*")
_TOKEN_PARTS = _Lazy(r"[./_-]+")


def _tokens(text: str) -> set[str]:
    out: set[str] = set()
    for token in _TOKEN.findall(text):
        # "acme-prod-assets" also yields "prod" and "assets"
        for part in {token.strip("./-"), *_TOKEN_PARTS.split(token)}:
            if len(part) >= 3 and part not in _STOP:
                out.add(part)
    return out


def _preceding_part(text: str, end: int, limit: int = 60) -> str:
    """The words before ``end`` back to the previous punctuation mark."""
    start = max(0, end - limit)
    breaks = [m.end() for m in _PART_BREAK.finditer(text, start, end)]
    return text[breaks[-1] if breaks else start:end].strip()


def _overlaps(part: str, prev_tokens: set[str]) -> bool:
    for token in _tokens(part):
        if token in prev_tokens:
            return True
        if len(token) >= 4 and any(p.startswith(token) or token.startswith(p) for p in prev_tokens
                                   if len(p) >= 4):
            return True
    return False


# ---------------------------------------------------------------------------
# The detector
# ---------------------------------------------------------------------------
THRESHOLD = 0.5
# Only a long message's edges are judged anyway; keeping 20k characters at
# each end bounds the cost of quote stripping on a huge paste.
_MAX_INPUT = 40_000
# Words that keep a message corrective even when it also asks for something.
_CORRECTIVE_WORDS = _Lazy(r"\b(?:dont|do not|never|not|instead|revert|undo|again)\b")
_REPEATED = _Lazy(r"\b(?:again|every time|each time|once more|how many times|yet again|"
                       r"for the (?:second|third|\w+th) time)\b")


def _search_any(patterns: Iterable[re.Pattern], *texts: str) -> re.Match | None:
    for pattern in patterns:
        for text in texts:
            match = pattern.search(text)
            if match:
                return match
    return None


_DIRECTIVE_COMPILED: dict = {}  # directive words -> compiled regex


def _directive_re(words: tuple[str, ...]) -> re.Pattern:
    compiled = _DIRECTIVE_COMPILED.get(words)
    if compiled is None:
        import re

        if len(_DIRECTIVE_COMPILED) >= _CACHE_SIZE:
            _DIRECTIVE_COMPILED.pop(next(iter(_DIRECTIVE_COMPILED)))
        alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        compiled = _DIRECTIVE_COMPILED[words] = re.compile(r"(?<![a-z])(?:" + alternatives + r")(?![a-z])")
    return compiled


def _has_directive(text: str, words: tuple[str, ...]) -> str | None:
    match = _directive_re(words).search(text) if words else None
    return match.group(0) if match else None


def _verdict(is_correction: bool, rule: str, score: float, matched: str | None, reason: str) -> CorrectionVerdict:
    return CorrectionVerdict(is_correction, rule, round(max(0.0, min(1.0, score)), 3), matched, reason)


class _Message:
    """One user message, normalised, with the signals every stage reads."""

    __slots__ = ("lower", "bare", "lower_sents", "bare_sents", "prev", "prev_bare", "prev_asks",
                 "prev_acted", "bug", "request", "is_question")

    def __init__(self, lower: str, bare: str, lower_sents: list[str], bare_sents: list[str],
                 prev: str | None, prev_bare: str, prev_asks: bool, prev_acted: bool) -> None:
        self.lower = lower  # lowercase, ASCII apostrophes
        self.bare = bare  # apostrophes dropped, typos fixed
        self.lower_sents = lower_sents
        self.bare_sents = bare_sents
        self.prev = prev  # the agent's previous reply, as given
        self.prev_bare = prev_bare
        self.prev_asks = prev_asks  # that reply ended with a question to the user
        self.prev_acted = prev_acted  # that reply reports something the agent did
        self.bug = None  # re.Match | None
        self.request = None  # re.Match | None
        self.is_question = False

    def refresh_signals(self) -> None:
        bare = self.bare
        self.bug = _BUG.search(bare)
        self.request = _REQUEST.search(bare)
        last = (_sentences(bare) or [bare])[-1]
        self.is_question = last.rstrip().endswith("?") and bool(
            _QUESTION_START.match(last) or _QUESTION_START.match((_clauses(last) or [""])[-1]))

    def keep_after(self, position: int) -> None:
        """Judge only what follows ``position`` ("no worries, but …")."""
        self.bare = self.lower = self.bare[position:].strip()
        self.lower_sents = self.bare_sents = [self.bare]
        self.refresh_signals()


def _read_message(focus: str, prev_assistant: Any) -> _Message:
    lower, bare = _normalise(focus)
    lower_sents, bare_sents = _sentences(lower) or [lower], _sentences(bare) or [bare]
    if len(lower_sents) != len(bare_sents):  # cannot happen with today's rules; stay safe
        bare_sents = [_normalise(s)[1] for s in lower_sents]
    prev = prev_assistant if isinstance(prev_assistant, str) and prev_assistant.strip() else None
    prev_bare = _normalise(strip_quoted(prev[-1500:]))[1] if prev else ""
    prev_asks = bool(prev and _PREV_ASKS.search(prev_bare[-300:]))
    prev_acted = bool(prev and not prev_asks and _PREV_ACTION.search(prev_bare))
    msg = _Message(lower, bare, lower_sents, bare_sents, prev, prev_bare, prev_asks, prev_acted)
    msg.refresh_signals()
    return msg


def detect_correction(text: str, prev_assistant: str | None = None,
                      patterns: CorrectionPatterns | None = None) -> CorrectionVerdict:
    """Decide whether ``text`` (a user message) corrects the agent.

    ``prev_assistant`` is the end of the agent's previous reply when the host
    provides it. Never raises: bad input is a ``none`` verdict.
    """
    try:
        return _detect(text, prev_assistant, patterns or default_patterns())
    except Exception as exc:  # a detector must never break a host
        return _verdict(False, "none", 0.0, None, f"detector error: {type(exc).__name__}: {exc}")


def detect_correction_original(text: str, patterns: CorrectionPatterns | None = None) -> CorrectionVerdict:
    """The original design's rule alone, for comparison and benchmarks:
    negative → strong → weak+directive over the whole lowercased message,
    with no quote stripping, vetoes, context or scorer."""
    patterns = patterns or default_patterns()
    if not isinstance(text, str) or not text.strip():
        return _verdict(False, "empty", 0.0, None, "no text")
    lower = text.strip().lower().replace("\u2019", "'")
    neg = _search_any(patterns.negative, lower)
    if neg:
        return _verdict(False, "negative", 0.0, neg.group(0), "negative pattern: not a correction")
    strong = _search_any(patterns.strong, lower)
    if strong:
        return _verdict(True, "strong", 0.95, strong.group(0), "strong pattern matched")
    weak = _search_any(patterns.weak, lower)
    if weak:
        directive = _has_directive(_normalise(lower[weak.end():])[1], patterns.directive_words)
        if directive:
            return _verdict(True, "weak+directive", 0.7, f"{weak.group(0)} … {directive}",
                            f"weak opener {weak.group(0)!r} followed by directive {directive!r}")
    return _verdict(False, "none", 0.0, None, "no pattern matched")


def _detect(text: Any, prev_assistant: Any, patterns: CorrectionPatterns) -> CorrectionVerdict:
    if not isinstance(text, str) or not text.strip():
        return _verdict(False, "empty", 0.0, None, "no text")
    if len(text) > _MAX_INPUT:
        text = text[:_MAX_INPUT // 2] + "\n\n" + text[-_MAX_INPUT // 2:]
    if looks_like_agent_prompt(text):
        return _verdict(False, "agent-prompt", 0.0, None, "text is a prompt written for an agent, not by the user")
    focus = focus_text(strip_quoted(text))
    if not focus.strip():
        return _verdict(False, "quoted-only", 0.0, None, "nothing left after removing quoted text and logs")
    msg = _read_message(focus, prev_assistant)
    return _original_rule(msg, patterns) or _score(msg)


def _original_rule(msg: _Message, patterns: CorrectionPatterns) -> CorrectionVerdict | None:
    """negative → strong → weak+directive; None when it has no verdict."""
    neg = _search_any(patterns.negative, msg.lower_sents[0], msg.bare_sents[0])
    if neg:
        turn = _TURN.search(msg.bare, neg.end())
        if not turn:
            return _verdict(False, "negative", 0.0, neg.group(0), "negative pattern: not a correction")
        msg.keep_after(turn.end())

    # One sentence per line; the patterns are MULTILINE, so "^" is a sentence start.
    lower_joined, bare_joined = "\n".join(msg.lower_sents), "\n".join(msg.bare_sents)
    strong = _search_any(patterns.strong, lower_joined, bare_joined)
    if strong:
        return _verdict(True, "strong", 0.95, strong.group(0), "strong pattern matched")

    for pattern in patterns.weak:
        for joined, is_bare in ((bare_joined, True), (lower_joined, False)):
            weak = pattern.search(joined)
            if not weak:
                continue
            rest = joined[weak.end():] if is_bare else _normalise(joined[weak.end():])[1]
            directive = _has_directive(rest, patterns.directive_words)
            if not directive:
                continue
            # The original rule fired; real "no, …" is often something else.
            if msg.bug or (msg.request and not _CORRECTIVE_WORDS.search(msg.bare)) \
                    or msg.prev_asks or msg.is_question:
                return None  # let the scorer weigh it with the vetoes
            return _verdict(True, "weak+directive", 0.7, f"{weak.group(0)} … {directive}",
                            f"weak opener {weak.group(0)!r} followed by directive {directive!r}")
    return None


def _score(msg: _Message) -> CorrectionVerdict:
    """The contextual scorer: cue weights, context bonus, dampeners."""
    reasons: list[str] = []
    bare = msg.bare

    # An approval opening the message cancels it, unless a "but …" follows:
    # then only what follows the turn is judged.
    approval = _APPROVAL.match(bare)
    if approval:
        turn = _TURN.search(bare, approval.end())
        if turn:
            msg.keep_after(turn.end())
            bare, approval = msg.bare, None
    clauses = _clauses(bare)

    firm: list[tuple[float, str, str]] = []
    moderate: dict[str, tuple[float, str]] = {}
    joined = "\n".join(clauses)
    first = clauses[0] if clauses else ""
    for index, name, weight, is_firm, anchored, needs in _CUE_TABLE:
        if needs and not any(word in bare for word in needs):
            continue
        match = _cue_regex(index).search(bare if not anchored else first if name in _FIRST_CLAUSE_ONLY else joined)
        if match:
            if is_firm:
                firm.append((weight, name, match.group(0)))
            elif name not in moderate:
                moderate[name] = (weight, match.group(0))
    _contrast_cues(msg, moderate, reasons)

    # Dampeners of the moderate cues.
    damp = 0.0
    if msg.bug:
        damp += 0.5
        reasons.append(f"bug-report signal {msg.bug.group(0)!r}")
    if msg.request and not _CORRECTIVE_WORDS.search(bare):
        damp += 0.35
        reasons.append(f"new-request signal {msg.request.group(0)!r}")
    if msg.is_question and not firm:
        damp += 0.3
        reasons.append("question")
    if msg.prev_asks:
        damp += 0.4
        reasons.append("answers the agent's question")
    if _OWN_DOING.search(bare):
        damp += 0.4
        reasons.append("about the user's own action")
    if not msg.prev and _REQUEST_VERB.match(first):
        # "add a footer but don't use images", "write it in go, not python":
        # constraints on a new task, not a correction of a finished one
        damp += 0.3
        reasons.append("opens a new task")
        if any(name == "dont-imperative" for _, name, _ in firm):
            firm = [f for f in firm if f[1] != "dont-imperative"]
            moderate["dont-in-request"] = (0.3, "")

    mod_sum = sum(w for w, _ in moderate.values())
    if moderate and msg.prev_acted:
        mod_sum += 0.2
        reasons.append("the agent's reply reports an action")
    if moderate and _REPEATED.search(bare):
        mod_sum += 0.25
        reasons.append("repeated")
    mod_score = max(0.0, min(1.0, mod_sum) - damp)

    # Firm cues stand alone; only an approval or mere curiosity cancels them.
    firm_score = max((w for w, _, _ in firm), default=0.0)
    global_damp = 0.0
    if approval:
        global_damp += 0.6
        reasons.append(f"approval {approval.group(0)!r}")
    if _CURIOUS.search(bare):
        global_damp += 0.7
        reasons.append("asks out of curiosity")
    score = max(0.0, min(1.0, firm_score + mod_score) - global_damp)

    cues = firm + [(w, n, m) for n, (w, m) in moderate.items()]
    if not cues:
        return _verdict(False, "none", 0.0, None, "no correction cue")
    cues.sort(key=lambda c: -c[0])
    detail = "cues: " + ", ".join(n for _, n, _ in cues) + "".join(f"; {r}" for r in reasons)
    return _verdict(score >= THRESHOLD, "contextual", score, cues[0][2] or None, detail)


def _contrast_cues(msg: _Message, moderate: dict[str, tuple[float, str]], reasons: list[str]) -> None:
    """"A, not B" / "is A not B" / "A instead of B", weighted by what the
    agent just said: rejecting something its reply mentions is strong
    evidence; with no reply at all a contrast is as likely a new request."""
    bare, prev = msg.bare, msg.prev
    prev_tokens = _tokens(msg.prev_bare) if prev else set()
    contrast, kind = None, "is-A-not-B"
    if "not" in bare:
        contrast = _NOT_B_ITS_A.search(bare) or _COPULA_CONTRAST.search(bare)
        if not contrast:
            contrast, kind = _GENERIC_CONTRAST.search(bare), "A-not-B"
            if contrast and not _preceding_part(bare, contrast.start()):
                contrast = None  # ", not B" with nothing before it
    if contrast:
        rejected = contrast.group("b")
        base = 0.55 if kind == "is-A-not-B" else 0.3
        if prev and _overlaps(rejected, prev_tokens):
            weight = base + 0.45
            reasons.append(f"rejects {rejected.strip()!r}, which the agent's reply mentions")
        else:
            weight = base - 0.1 if prev else base
        shown = contrast.group(0) if kind != "A-not-B" else \
            _preceding_part(bare, contrast.start()) + contrast.group(0)
        moderate["contrast"] = (weight, shown.strip())
        return
    instead = _INSTEAD.search(bare) if "instead" in bare else None
    if instead:
        part = (instead.group("b") or "") + " " + _preceding_part(bare, instead.start())
        if prev and _overlaps(part, prev_tokens):
            moderate["instead"] = (0.6, instead.group(0))
            reasons.append("the replaced thing is in the agent's reply")
        else:
            moderate["instead"] = (0.25 if prev else 0.3, instead.group(0))


# ---------------------------------------------------------------------------
# The fast negative: "certainly not a correction", without importing re
# ---------------------------------------------------------------------------
# A Claude Code hook judges one message per process. Importing ``re`` and
# compiling the cues that message needs costs more than the interpreter's own
# start-up, and most messages are not corrections. ``might_be_correction``
# answers False only when no rule that can make ``detect_correction`` say
# "correction" with the built-in lists can match the message: the strong
# patterns, weak opener + directive word, every cue, the contrast forms.
#
# How it stays exact: each rule is reduced to literal words its regex cannot
# match without (``tacit.detect.correction_prefilter.RULES``: rules of clauses of atoms; a rule can
# fire only if each of its clauses has an atom in the message). An atom is a
# word with a space on a side where the regex guarantees a word edge (``\b``,
# ``^``, a space or punctuation, a lookaround excluding letters): " said "
# must be a whole word, " you" a word's start, "ed " a word's end, "no" any
# part. The message side over-approximates every string the detector's
# regexes can see: its a-z runs, lowercased as ``_normalise`` does; every way
# quote and apostrophe removal can join or split them (cut at each apostrophe
# or quote mark, all contiguous pieces kept); and the typo fixes of each.
# The table is derived from the compiled regexes themselves (their parse
# trees: literal words, and the word edges that ``\b``, ``^``, spaces and
# lookarounds guarantee) by tests/unit/test_hook_imports.py, which fails when
# it is not current; never written by hand. Configured pattern lists are
# arbitrary regexes: for them the caller skips this and runs the detector.
#
# Not judged here (the detector runs): messages over _PREFILTER_MAX_CHARS
# (a long message nearly always holds some rule's words, so judging it would
# only add time: ~8 ms at 40,000 characters), messages over FOCUS_FULL_CHARS
# with a line longer than FOCUS_EDGE_CHARS or a backtick (focus_text may cut
# such a message inside a word), and messages with the two non-ASCII
# characters a case-insensitive ``re`` matches as ASCII letters after
# lowercasing ("ı" as i, "ſ" as s).
_PREFILTER_JOINERS = str.maketrans({c: "'" for c in "\"\u201c\u201d\ue000"})
_PREFILTER_RUNS = bytes(c if (97 <= c <= 122 or c == 39) else 32 for c in range(256))
_PREFILTER_MAX_CUTS = 8  # apostrophes/quotes inside one run before we just run the detector
_PREFILTER_MAX_CHARS = 2000  # longer messages go straight to the detector (< _MAX_INPUT)


def might_be_correction(text) -> bool:
    """False only if ``detect_correction(text, <any previous reply>)`` with
    the built-in pattern lists is certainly not a correction. Pure Python
    (no ``re``); see the comment above for why it is exact."""
    if not isinstance(text, str) or not text.strip():
        return False  # the detector's "empty" verdict
    if len(text) > FOCUS_FULL_CHARS:
        if len(text) > _PREFILTER_MAX_CHARS or "`" in text:
            return True
        if max(map(len, text.replace("\r", "\n").split("\n"))) > FOCUS_EDGE_CHARS:
            return True
    lower = text.translate(_APOSTROPHES).lower()
    if "\u0131" in lower or "\u017f" in lower:
        return True
    marked = lower.translate(_PREFILTER_JOINERS).encode("ascii", "replace").translate(_PREFILTER_RUNS)
    words: set = set()
    for run in set(marked.split()):
        if 39 not in run:  # no apostrophe: the run is a word as it stands
            words.add(run.decode("ascii"))
            continue
        pieces = run.decode("ascii").split("'")
        if len(pieces) > _PREFILTER_MAX_CUTS + 1:
            return True
        for start in range(len(pieces)):
            for end in range(start + 1, len(pieces) + 1):
                joined = "".join(pieces[start:end])
                if joined:
                    words.add(joined)
    for word in list(words):
        fixed = _fix_token(word)
        if fixed != word:
            words.update(fixed.split())
    line = " " + " ".join(words) + " "
    from .correction_prefilter import RULES

    for rule in RULES:
        for clause in rule:
            for atom in clause:
                if atom in line:
                    break
            else:
                break  # a clause with no atom in the message: this rule cannot match
        else:
            return True
    return False
