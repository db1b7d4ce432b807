"""The content scanner: keeps poison out of the system prompt.

Everything tacit writes into MEMORY.md, USER.md or a SKILL.md ends up in a future system prompt, so
every write is scanned, and every entry is scanned again when a snapshot is loaded (people edit
these files by hand). A finding blocks the text; ``describe`` turns findings into the one-line
reason the agent and the person see.

Design notes: docs/design/safety.md#tacitsafetyscanner"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass

from tacit.lazyre import lazy
from tacit.safety import invisible, secrets
from tacit.safety.scan_rules import ANCHOR_MARK, RULES, negated
from tacit.safety.text import as_text

CATEGORIES = ("invisible_unicode", "injection", "hidden_instruction", "exfiltration", "secret")


@dataclass(frozen=True, slots=True)
class Finding:
    """One reason to block a text."""

    pattern_id: str  # stable id, "<category>" or "<category>.<name>"
    category: str  # one of CATEGORIES
    reason: str  # short human sentence
    excerpt: str  # short, printable excerpt around the match; secrets masked

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


# Reasons, one per pattern id (the id list is the public contract).
_REASONS: dict[str, str] = {
    "invisible_unicode": "invisible or bidirectional control character",
    "injection.ignore_previous": "prompt injection ('ignore previous instructions')",
    "injection.disregard_rules": "prompt injection ('disregard your rules')",
    "injection.role_hijack": "role hijack ('you are now …')",
    "injection.new_system_prompt": "prompt injection ('new system prompt')",
    "injection.fake_system_tag": "fake system or chat-template tag",
    "injection.prompt_extraction": "prompt extraction ('reveal your system prompt')",
    "injection.jailbreak": "jailbreak mode request",
    "injection.act_unrestricted": "role hijack ('act … without restrictions')",
    "hidden_instruction.conceal_from_user": "hidden instruction ('do not tell the user')",
    "hidden_instruction.html_comment": "hidden instruction (HTML comment addressed to the AI)",
    "hidden_instruction.covert_action": "hidden instruction ('secretly …')",
    "exfiltration.curl_secret": "exfiltration (network command carrying a secret variable)",
    "exfiltration.env_dump": "exfiltration (environment dumped to a network command)",
    "exfiltration.env_file": "exfiltration (reads or sends a .env file)",
    "exfiltration.ssh_key": "exfiltration (reads or sends an SSH private key)",
    "exfiltration.authorized_keys": "exfiltration (reads, sends or writes authorized_keys)",
    "exfiltration.netrc": "exfiltration (reads or sends .netrc)",
    "exfiltration.shadow": "exfiltration (reads or sends /etc/shadow or sudoers)",
    "exfiltration.credential_file": "exfiltration (reads or sends a credentials file)",
    "exfiltration.send_secrets": "exfiltration (tells the agent to send secrets to an outside address)",
    "exfiltration.markdown_image": "exfiltration (markdown image or link URL with templated data)",
    "secret.private_key": "secret: PEM private key",
    "secret.anthropic_key": "secret: Anthropic API key",
    "secret.openai_key": "secret: OpenAI API key",
    "secret.stripe_key": "secret: Stripe API key",
    "secret.github_token": "secret: GitHub token",
    "secret.gitlab_token": "secret: GitLab token",
    "secret.slack_token": "secret: Slack token",
    "secret.slack_webhook": "secret: Slack webhook URL",
    "secret.aws_key": "secret: AWS access key id",
    "secret.aws_secret_key": "secret: AWS secret access key",
    "secret.azure_key": "secret: Azure storage or service-bus key",
    "secret.google_api_key": "secret: Google API key",
    "secret.google_oauth_secret": "secret: Google OAuth client secret",
    "secret.npm_token": "secret: npm token",
    "secret.huggingface_token": "secret: Hugging Face token",
    "secret.pypi_token": "secret: PyPI token",
    "secret.twilio_key": "secret: Twilio API key",
    "secret.sendgrid_key": "secret: SendGrid API key",
    "secret.telegram_bot_token": "secret: Telegram bot token",
    "secret.jwt": "secret: JSON Web Token",
    "secret.bearer_token": "secret: bearer token",
    "secret.basic_auth": "secret: HTTP basic-auth credentials",
    "secret.url_credentials": "secret: password inside a URL",
    "secret.assignment": "secret: credential assigned a real-looking value",
    "secret.password_phrase": "secret: password stated in text",
}


def pattern_ids() -> list[str]:
    """Every pattern id the scanner can report, in report order."""
    return list(_REASONS)


# Public API
def scan(text: str) -> list[Finding]:
    """All findings for ``text``, one per pattern id, in category order."""
    return list(_findings(text, stop_first=False))


def first_finding(text: str) -> Finding | None:
    """The first finding (cheaper than ``scan`` when only a verdict is needed)."""
    return next(_findings(text, stop_first=True), None)


def describe(findings: list[Finding]) -> str:
    """One line for a person or an agent: what was blocked and why."""
    if not findings:
        return "clean: no threat patterns found"
    head = findings[0]
    line = f"blocked: {head.reason} [{head.pattern_id}]"
    rest = [f.pattern_id for f in findings[1:]]
    if rest:
        line += f" (+{len(rest)} more: {', '.join(rest)})"
    return line


# Trigger words (docs/design/safety.md, "Clean text is cheap"): each rule's trigger groups (every group
# needs one of its words), and for each word the rules that mention it
_RULE_GROUPS = tuple(tuple(frozenset(group) for group in rule.triggers) for rule, _rx in RULES)
_UNTRIGGERED = tuple(i for i, groups in enumerate(_RULE_GROUPS) if not groups)


def _grouped(pairs) -> dict:
    """``{key: (value, …)}`` from ``(key, value)`` pairs, keys and values in order."""
    out: dict = {}
    for key, value in pairs:
        out.setdefault(key, []).append(value)
    return {key: tuple(values) for key, values in out.items()}


_WORD_RULES = _grouped((word, index) for index, groups in enumerate(_RULE_GROUPS)
                       for word in sorted(set().union(*groups)))
_ANCHOR_WORDS = frozenset(word for word in _WORD_RULES if word.startswith(ANCHOR_MARK))
_SPACED_WORDS = tuple(word for word in sorted(_WORD_RULES) if any(ch.isspace() for ch in word))
_SOLID_WORDS = tuple(sorted((w for w in _WORD_RULES
                             if w not in _SPACED_WORDS and w not in _ANCHOR_WORDS), key=len))
# a trigger phrase with a space is looked for only where its first part, found inside a token like any
# other word (a "gate" marker), is present
_GATE_MARK = "\x01"
_GATE_PHRASES = _grouped((_GATE_MARK + phrase[:next(i for i, ch in enumerate(phrase) if ch.isspace())], phrase)
                         for phrase in _SPACED_WORDS)
_GATES = frozenset(_GATE_PHRASES)
# (text to look for inside a token, word it reports), shortest first
_NEEDLES = tuple(sorted([(w, w) for w in _SOLID_WORDS] + [(g[1:], g) for g in _GATE_PHRASES],
                        key=lambda pair: len(pair[0])))
# one-character needles, and the longer ones by their first two characters
_SHORT_NEEDLES = tuple(pair for pair in _NEEDLES if len(pair[0]) < 2)
_PAIR_NEEDLES = _grouped((pair[0][:2], pair) for pair in _NEEDLES if len(pair[0]) >= 2)
_ANCHOR_COMMANDS = tuple(sorted(word[1:] for word in _ANCHOR_WORDS))
_TOKEN_WORDS: dict = {}  # whitespace-free token -> the trigger words inside it (a bounded memo)
_CANDIDATES: dict = {}  # frozenset of trigger words present -> rule indices to run (bounded memo)
_CANDIDATES_MAX = 4096
_TOKEN_MEMO_MAX = 20_000  # a few MB at most in a long-lived process
_TOKEN_PATH_MAX_CHARS = 20_000  # longer texts are searched word by word (no memo churn)
_NO_WORDS: frozenset = frozenset()


def clear_memo() -> None:
    """Forget the memos built from texts seen so far (benchmarks, tests):
    results never depend on them, only speed does."""
    _TOKEN_WORDS.clear()
    _CANDIDATES.clear()


def _words_in_token(token: str) -> frozenset:
    """The trigger words, gate markers and anchored command words of one token (the token's character
    pairs select the few needles worth a substring check)."""
    words = [word for needle, word in _SHORT_NEEDLES if needle in token]
    pairs = _PAIR_NEEDLES.keys() & {token[i:i + 2] for i in range(len(token) - 1)}
    words += [word for pair in pairs for needle, word in _PAIR_NEEDLES[pair] if needle in token]
    if token.endswith(_ANCHOR_COMMANDS):
        for command in _ANCHOR_COMMANDS:
            if token.endswith(command):
                before = len(token) - len(command) - 1
                # the commands' regex: (?<![\w.-])command — \w is isalnum() or "_"
                if before < 0 or not (token[before].isalnum() or token[before] in "_.-"):
                    words.append(ANCHOR_MARK + command)
    return frozenset(words) if words else _NO_WORDS  # one shared empty set: the memo stays small


def _present_words(low: str) -> frozenset:
    """The trigger words present in ``low`` (already lower-cased): the same answer as ``word in low``
    for every trigger word (an anchored command: it ends a token), from a per-token memo; very long
    texts search each word once. No regex is compiled (docs/design/safety.md)."""
    if len(low) > _TOKEN_PATH_MAX_CHARS:
        present = {word for word in _SOLID_WORDS + _SPACED_WORDS if word in low}
        present.update(ANCHOR_MARK + command for command in _ANCHOR_COMMANDS if command in low)
        return frozenset(present)
    memo = _TOKEN_WORDS
    tokens = low.split()
    try:
        present = _NO_WORDS.union(*map(memo.__getitem__, tokens))  # the lookups run in C
    except KeyError:  # a token not seen before
        tokens = set(tokens)
        if len(memo) + len(tokens) > _TOKEN_MEMO_MAX:
            memo.clear()
        present = _NO_WORDS.union(*[
            memo[token] if token in memo else memo.setdefault(token, _words_in_token(token))
            for token in tokens])
    if present.isdisjoint(_GATES):
        return present
    present = set(present)
    for gate in _GATES.intersection(present):
        present.discard(gate)
        for phrase in _GATE_PHRASES[gate]:
            if phrase in low:
                present.add(phrase)
    return frozenset(present)


# Views of the text, negation, excerpts
def _fold_table() -> dict:
    table = {ord(c): None for c in invisible.INVISIBLE_CHARS + "\u00ad"}
    table.update({cp: None for cp in range(0xE0000, 0xE0080)})
    for lookalikes, letters in (("авекмнорстухіјѕԁӏɡАВЕКМНОРСТХУІЈЅ", "abekmhopctyxijsdlgABEKMHOPCTXYIJS"),  # Cyrillic
                                ("αονριεκΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "aovpiekABEZHIKMNOPTYX"),  # Greek
                                ("ıȷſK", "ijsK")):  # Latin oddities that case-insensitive regex equates with ASCII
        table.update(str.maketrans(lookalikes, letters))
    return table


def _char_ranges(code_points: list) -> str:
    """A regex character-class body for sorted code points, as ranges: a class
    of a few ranges is checked in constant time per character, a class of a
    hundred single astral characters is not (measured: 25x slower)."""
    spans: list = []
    for cp in code_points:
        if spans and cp == spans[-1][1] + 1:
            spans[-1][1] = cp
        else:
            spans.append([cp, cp])
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
                   for a, b in spans)


_FOLD = _fold_table()
_FOLD_CHARS = lazy("[" + _char_ranges(sorted(_FOLD)) + "]")  # any character _FOLD changes


def _prepare(text: str) -> str:
    """The view phrase rules read: NFKC, no invisible characters, look-alikes folded."""
    if text.isascii():
        return text
    normal = unicodedata.normalize("NFKC", text)
    # translate() with a dict costs a lookup per character: skip it when no
    # character it would change is present (the usual case: "§", accents)
    return normal.translate(_FOLD) if _FOLD_CHARS.search(normal) else normal


def _lower_aligned(text: str) -> str:
    """``text.lower()`` with the same length, so match positions map back (a character that lower-cases
    to two, ``İ`` -> ``i̇``, is kept as it is)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text)


class _Views:
    """The text as each kind of rule reads it, built lazily and at most once."""

    def __init__(self, raw: str):
        self.raw = raw
        prepared = _prepare(raw)
        # Non-ASCII text that normalising left unchanged (an "§", an accent):
        # one view serves every rule, so trigger words are found once.
        self.prepared = raw if prepared == raw else prepared
        self._lower: dict[str, str] = {}
        self._masks: dict[str, list] = {}
        self._present: dict[str, frozenset] = {}

    def _base(self, view: str) -> str:
        # "raw" and "prepared" are the same string for ASCII text
        return "raw" if view == "raw" or self.prepared is self.raw else "prepared"

    def _lowered(self, base: str) -> str:
        if base not in self._lower:
            self._lower[base] = _lower_aligned(self.shown(base))
        return self._lower[base]

    def text(self, view: str) -> str:
        """What the rule's regex runs on."""
        return self._lowered(self._base("prepared")) if view == "lower" else self.shown(view)

    def shown(self, view: str) -> str:
        """What excerpts are cut from (same positions as ``text(view)``)."""
        return self.raw if view == "raw" else self.prepared

    def present(self, base: str) -> frozenset:
        """The trigger words in the lower-cased ``base`` view (found once)."""
        words = self._present.get(base)
        if words is None:
            words = self._present[base] = _present_words(self._lowered(base))
        return words

    def candidate_rules(self) -> list:
        """Indices of the rules whose trigger groups are all present, in rule (= report) order; with one
        view, memoised on the set of trigger words present."""
        if self.prepared is self.raw:
            key = self.present("raw")
            chosen = _CANDIDATES.get(key)
            if chosen is None:
                if len(_CANDIDATES) >= _CANDIDATES_MAX:
                    _CANDIDATES.clear()
                chosen = _CANDIDATES[key] = self._choose(("raw",))
            return chosen
        return self._choose(("raw", "prepared"))

    def _choose(self, bases: tuple) -> list:
        chosen = set(_UNTRIGGERED)
        for base in bases:
            present = self.present(base)
            for word in present:
                for index in _WORD_RULES[word]:
                    if index in chosen or self._base(RULES[index][0].view) != base:
                        continue
                    if all(not present.isdisjoint(group) for group in _RULE_GROUPS[index]):
                        chosen.add(index)
        return sorted(chosen)

    def masks(self, view: str) -> list:
        """Spans of every real-looking secret in the excerpt source of ``view``."""
        base = self._base(view)
        if base not in self._masks:
            self._masks[base] = secrets.mask_spans(self.shown(base))
        return self._masks[base]


_EXCERPT_RADIUS = 40
_EXCERPT_MATCH_MAX = 80
_MASK = "****"
_SPACES = lazy(r"\s+")


def _printable(fragment: str) -> str:
    """Make an excerpt safe to print and to encode: controls, format characters,
    lone surrogates and unassigned code points become ``<U+XXXX>``."""
    if fragment.isprintable():
        return fragment
    return "".join(ch if ch.isprintable() else " " if ch.isspace() else f"<U+{ord(ch):04X}>" for ch in fragment)


def _excerpt(text: str, start: int, end: int, masks: list) -> str:
    shown_end = min(end, start + _EXCERPT_MATCH_MAX)
    lo, hi = max(0, start - _EXCERPT_RADIUS), min(len(text), shown_end + _EXCERPT_RADIUS)
    pieces, pos = [], lo
    for mask_start, mask_end in masks:
        if mask_end <= pos or mask_start >= hi:
            continue
        mask_start = max(mask_start, pos)
        pieces.append(text[pos:mask_start])
        pieces.append(_MASK)
        pos = min(mask_end, hi)
    pieces.append(text[pos:hi])
    body = _SPACES.sub(" ", _printable("".join(pieces))).strip()
    return ("\u2026" if lo > 0 else "") + body + ("\u2026" if hi < len(text) else "")


# The scan loop
def _clean_ascii(text: str) -> bool:
    """True when ``_findings`` would find nothing in the ASCII ``text`` because no rule can run on it
    (the full path's decisions, without its views); False: run the full path, which decides."""
    low = text.lower()
    chosen = _CANDIDATES.get(_present_words(low))
    if chosen is None:
        return False
    rules = [RULES[index][0] for index in chosen]
    return all(rule.requires and not secrets.may_match(rule, low if rule.view == "lower" else text) for rule in rules)


def _findings(text, *, stop_first: bool):
    if type(text) is str and text.isascii() and _clean_ascii(text):
        return
    text = as_text(text)
    if not text:
        return
    views = _Views(text)

    hit = invisible.first_hidden(text)
    if hit is not None:
        yield Finding(
            "invisible_unicode", "invisible_unicode", invisible.reason(hit.group()[0]),
            _excerpt(text, hit.start(), hit.end(), views.masks("raw")),
        )
        if stop_first:
            return

    seen: set[str] = set()
    for index in views.candidate_rules():
        rule, rx = RULES[index]
        if rule.pattern_id in seen:
            continue
        subject = views.text(rule.view)
        if not secrets.may_match(rule, subject):
            continue
        for match in rx.finditer(subject):
            if rule.negation and negated(subject, match.start(), rule.negation):
                continue
            pattern_id = rule.check(match, subject) if rule.check else rule.pattern_id
            if not pattern_id or pattern_id in seen:
                continue
            seen.add(pattern_id)
            yield Finding(
                pattern_id, pattern_id.split(".", 1)[0], _REASONS[pattern_id],
                _excerpt(views.shown(rule.view), match.start(), match.end(), views.masks(rule.view)),
            )
            if stop_first:
                return
            if rule.pattern_id:
                break  # one finding per id; dynamic rules keep looking for other ids
