"""What a secret is: one rule table for the scanner and for redaction.

``find_secrets`` lists every credential in a text with its kind and span; ``redact_secrets``
replaces each with ``[REDACTED:<kind>]``. The scanner (``tacit.safety.scanner``) runs the same rules
for its ``secret.*`` findings and for masking excerpts, so "blocked as a secret" and "redacted as a
secret" never disagree.

Design notes: docs/design/safety.md#tacitsafetysecrets"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass

from tacit.lazyre import LazyPattern, lazy
from tacit.safety.private_keys import PEM_END, pem_span, pem_tail_span
from tacit.safety.secret_values import (
    TRAILING, looks_like_token, password_value, random_value, spaced_password, strong_value, url_password)
from tacit.safety.text import as_text

REDACTED = "[REDACTED:{kind}]"
_REDACTED_RE = lazy(r"\[REDACTED:[a-z_-]+\]")
_REPEAT_MIN = 6  # shorter values are not searched for elsewhere in the text
_REPEAT_MAX = 64  # distinct values searched for (bounds the work)


@dataclass(frozen=True, slots=True)
class SecretSpan:
    """One secret in a text: ``text[start:end]`` is what redaction replaces."""

    kind: str  # what the marker says: "github_token", "password", "private_key" …
    start: int
    end: int
    pattern_id: str  # the scanner's id for the same secret, e.g. "secret.assignment"


@dataclass(frozen=True, slots=True)
class SecretRule:
    """One shape of secret (several rules may share a pattern id)."""

    pattern_id: str  # "secret.<kind>"
    rx: re.Pattern
    # groups of lower-case literals: each group needs one of its words in the
    # lower-cased text, or the rule cannot match and is not run
    triggers: tuple
    check: Callable | None = None  # (match, text) -> bool: the value looks real
    span: Callable | None = None  # (match, text) -> (start, end) to redact; default: whole match
    requires: tuple = ()  # substrings of which every match holds one (raw text)
    precheck: Callable | None = None  # (text) -> False only when the regex cannot match
    kind: Callable | str | None = None  # the marker's kind; default: the id after "secret."

    def kind_of(self, match) -> str:
        if self.kind is None:
            return self.pattern_id.split(".", 1)[1]
        return self.kind if isinstance(self.kind, str) else self.kind(match)


def _value_of(match, _text=None) -> tuple[int, int]:
    """The span of the ``secret`` group without trailing sentence punctuation (a rule's ``span``)."""
    start, end = match.span("secret")
    text = match.string
    while end > start and text[end - 1] in TRAILING:
        end -= 1
    return start, end


def _password(match, text) -> bool:
    """The ``secret`` group (trailing punctuation dropped) is a literal password."""
    return password_value(text[slice(*_value_of(match))])


def _token(**opts) -> Callable:
    def check(match, _text):
        return looks_like_token(match.group("secret"), **opts)

    return check


_PASSWORD_KEYS = ("password", "passwd", "passphrase", "pwd", "pw", "pass", "passcode")


def _keyed_value_check(match, text):
    """``key = value`` / "key is value": a password key takes any literal, the rest (token, api_key,
    secret …) a random-looking value; a call, subscript or attribute after the value is code."""
    raw_end = match.end("secret")
    if raw_end < len(text) and text[raw_end] in "([.":
        return False
    value = text[slice(*_value_of(match))]
    if "key" not in match.re.groupindex:  # a password stated in another language
        return password_value(value)
    key = (match.group("key") or "").lower()
    if key.endswith(_PASSWORD_KEYS):
        return password_value(value) if key != "pass" else spaced_password(value)
    return random_value(value) if key == "key" else strong_value(value)


def _basic_auth_check(match, _text):
    body = match.group("secret")
    try:
        decoded = base64.b64decode(body + "=" * (-len(body) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    user, sep, password = decoded.partition(":")
    return bool(sep and user and decoded.isprintable() and len(password) >= 4)


def _secret_span(match, _text) -> tuple[int, int]:
    return match.span("secret")


# Keyed values: assignments and prose
# Every key alternative ends with one of these words (lower-cased): the
# assignment pre-check looks for them before a ":" or "=".
ASSIGNED_WORDS = ("password", "passwd", "passphrase", "secret", "token", "key", "pw", "pwd", "pass")
_VALUE = r"(?P<q>[\"'`]?)(?P<secret>[^\s\"'`,;(){}\[\]<>]{1,300}+)"


def _ci(*words: str, boundary: str = "") -> str:
    """Case-blind keywords as branches starting with a literal letter (``p(?i:assword)|P(?i:assword)``:
    five times faster than IGNORECASE); ``boundary``: characters that may not precede the keyword."""
    branches = []
    for word in words:
        for first in dict.fromkeys((word[0].lower(), word[0].upper())):
            guard = f"(?<![{boundary}]{re.escape(first)})" if boundary else ""
            branches.append(f"{re.escape(first)}{guard}(?i:{word[1:]})")
    return "(?:" + "|".join(branches) + ")"


_ASSIGNMENT = lazy(
    r"(?P<key>" + _ci("password", "passwd", "passphrase", r"secret", "token", r"api[ _-]?key", "apikey",
                      r"access[_-]?key", r"secret[_-]?key", r"private[_-]?key", r"client[_-]?secret")
    + "|" + _ci("pwd", "pw", "pass", boundary="A-Za-z0-9") + r")[\"']?[ \t]{0,5}(?::=|=>|=|:)[ \t]{0,5}" + _VALUE,
    re.ASCII,
)


def assignment_possible(text: str) -> bool:
    """False only when the assignment rule cannot match ``text``: no ``:`` or ``=`` after one of
    ``ASSIGNED_WORDS``, an optional quote and at most five spaces or tabs."""
    for separator in ":=":
        position = text.find(separator)
        while position != -1:
            end, spaces = position, 0
            while spaces < 5 and end and text[end - 1] in " \t":
                end -= 1
                spaces += 1
            if end and text[end - 1] in "\"'":
                end -= 1
            # lower() maps every ASCII letter as the ASCII-only, case-blind
            # regex does (and may map more: that only runs the regex)
            if text[max(0, end - 10):end].lower().endswith(ASSIGNED_WORDS):
                return True
            position = text.find(separator, position + 1)
    return False


# "the password for the staging db is X": up to two "for/of/on … words" clauses
_FOR_CLAUSE = r"(?:[ \t]+(?:for|of|on|to|in|at)(?:[ \t]+[\w.@/-]{1,40}+){1,4}?)"
_PHRASE = lazy(  # "<key> (for X) is <value>"
    r"(?P<key>" + _ci("password", "passphrase", "passwd", "passcode", "pwd", "pw", "pass", "token", r"api[ _-]?key",
                      r"secret(?:[ _-]?key)?", r"access[ _-]?(?:key|token)", r"auth[ _-]?token", "key", boundary=r"\w")
    + r")(?i:" + _FOR_CLAUSE + r"?[ \t]+(?:(?:is|was|has[ \t]+been)(?:[ \t]+(?:now|still|just|actually))?"
    r"(?:[ \t]+(?:changed|set|reset|updated|rotated)[ \t]+to)?|(?:changed|set|reset|updated|rotated)[ \t]+to|to))"
    r"[ \t]*:?[ \t]*" + _VALUE,
    re.ASCII,
)
_PHRASE_FOR = lazy(  # "password for X: <value>" (without the clause it is an assignment)
    r"(?P<key>" + _ci("password", "passphrase", "passwd", "pwd", boundary=r"\w") + r")(?i:" + _FOR_CLAUSE
    + r")[ \t]*:[ \t]*" + _VALUE,
    re.ASCII,
)
# passwords stated in other languages; the value must be printable ASCII, so
# "密码是什么" (what is the password) is not a password
_ASCII_VALUE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in "\"'`,;(){}[]<>")
# "la contraseña del servidor es …": up to three words of "of the …"
_OF = (r"(?:[ \t]+(?:de|del|de[ \t]+la|para|für|fuer|vom|von|des|du|de[ \t]+l'|pour|do|da|для|от)"
       r"(?:[ \t]+\w{1,30}+){1,3}?)?")
_PHRASE_FOREIGN = lazy(
    r"(?:(?:密码|口令|パスワード)[ \t]*(?:是|为|為|は|：|:|=)"
    r"|" + _ci("contraseña") + r"(?i:" + _OF + r"(?:[ \t]+(?:es|era)[ \t]*:?|[ \t]*[:=]))"
    r"|" + _ci("senha", boundary=r"\w") + r"(?i:" + _OF + r"(?:[ \t]+(?:é|era)[ \t]*:?|[ \t]*[:=]))"
    r"|" + _ci("passwort", "kennwort", boundary=r"\w") + r"(?i:" + _OF
    + r"(?:[ \t]+(?:ist|lautet|war)[ \t]*:?|[ \t]*[:=]))"
    r"|" + _ci(r"mot[ \t]+de[ \t]+passe", boundary=r"\w") + r"(?i:" + _OF
    + r"(?:[ \t]+(?:est|était)[ \t]*:?|[ \t]*[:=]))"
    r"|" + _ci("пароль") + r"(?i:" + _OF + r"(?:[ \t]*[:=—]|[ \t]+(?:это|—))))"
    r"[ \t]*(?P<q>[\"'`«„“「]?)(?P<secret>[" + re.escape(_ASCII_VALUE) + r"]{1,200}+)",
)

# "with password S3cr3t!", "pw hunter2", "secret wJalr…", "--password S3cr3t": a
# label, spaces, a value (the value must look like a secret: secret_values)
_LABELLED = lazy(
    r"(?P<key>" + _ci("password", "passwd", "passphrase", "passcode", "pwd", "pw", "pass", r"secret(?:[ _-]?key)?",
                      "token", r"api[ _-]?key", "apikey", r"access[ _-]?(?:key|token)", r"auth[ _-]?token",
                      r"client[ _-]?secret", "key", boundary=r"\w") + r")[ \t]{1,3}" + _VALUE,
    re.ASCII,
)
# user:password@host without a scheme (ssh, scp, a DSN in prose)
_BARE_CREDENTIALS = lazy(
    r"(?<![\w.:/@%+-])(?P<user>[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}+):(?P<secret>[^\s@/:\"'`]{3,200}+)@"
    r"(?=[A-Za-z0-9][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63}){0,8}(?![\w-]*@))",
    re.ASCII,
)
_TOOL_WORDS = ("sshpass", "login", "redis-cli", "ldap", "htpasswd")
_TOOL_PASSWORD = lazy(
    r"(?<![\w.-])(?:(?:sshpass|(?:docker|podman|oc|az|helm[ \t]+registry)[ \t]+login)(?=[ \t])[^\n|;&]{0,200}?"
    r"[ \t](?:-p|--password)(?:[ \t]+|=)?|redis-cli(?=[ \t])[^\n|;&]{0,200}?[ \t]-a[ \t]+"
    r"|ldap[a-z]{2,12}(?=[ \t])[^\n|;&]{0,200}?[ \t]-w[ \t]+"
    r"|htpasswd(?:[ \t]+-[a-zA-Z]+)*?[ \t]+-[a-zA-Z]*b[a-zA-Z]*(?:[ \t]+-[a-zA-Z]+)*(?:[ \t]+[^\s-][^\s]*){2}[ \t]+)"
    r"(?P<q>[\"']?)(?P<secret>[^\s\"'`]{1,200}+)"
)
_KEY_ID = lazy(r"(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])")
_NEAR = 160  # characters around a key id searched for its secret


def _spaced_check(match, text):
    """A value named only by a space after its label: see ``secret_values``."""
    raw_end = match.end("secret")
    if raw_end < len(text) and text[raw_end] in "([" or match.group("q") and not text.startswith(
            match.group("q"), raw_end):
        return False
    value = text[slice(*_value_of(match))]
    key = match.group("key").lower()
    if key.endswith(_PASSWORD_KEYS):
        return spaced_password(value, strict=key == "pass")
    return random_value(value)


def _near_key_id(match, text):
    """A 40-character AWS secret key within a sentence of its key id."""
    start, end = match.span("secret")
    return looks_like_token(match.group("secret"), cased=True) and _KEY_ID.search(
        text, max(0, start - _NEAR), min(len(text), end + _NEAR)) is not None


# The rule table (order = report order; for overlapping matches the earlier
# rule names the replacement)
def _rule(pattern_id, regex, triggers, check=None, *, flags=0, **fields) -> SecretRule:
    rx = regex if isinstance(regex, (re.Pattern, LazyPattern)) else lazy(regex, flags)
    return SecretRule(pattern_id, rx, triggers, check, **fields)


def _keyed_kind(match) -> str:
    """"password" for a password key (or a password stated in prose), else "secret"."""
    key = match.group("key") if "key" in match.re.groupindex else None
    return "password" if key is None or key.lower().endswith(_PASSWORD_KEYS) else "secret"


RULES: tuple[SecretRule, ...] = (
    _rule(
        "secret.private_key",
        # the scanner masks everything up to the END line (or 8,000 characters)
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?P<secret>(?:(?!-----(?:END|BEGIN))[\s\S]){0,8000})",
        (("private key",),), span=pem_span,
    ),
    _rule("secret.anthropic_key", r"\bsk-ant-(?P<secret>[A-Za-z0-9_-]{20,300}+)",
          (("sk-ant-",),), _token(mixed=True)),
    _rule("secret.openai_key", r"\bsk-(?!ant-)(?P<secret>(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}+)",
          (("sk-",),), _token(mixed=True)),
    _rule("secret.stripe_key", r"\b[rs]k_(?:live|test)_(?P<secret>[A-Za-z0-9]{16,200}+)",
          (("k_live_", "k_test_"),), _token(digit=True)),
    _rule("secret.github_token", r"\b(?:gh[pousr]_|github_pat_)(?P<secret>[A-Za-z0-9_]{22,255}+)",
          (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),), _token(digit=True)),
    _rule("secret.gitlab_token", r"\bglpat-(?P<secret>[0-9A-Za-z_-]{20,100}+)",
          (("glpat-",),), _token()),
    _rule("secret.slack_token", r"\b(?:xox[abposre]|xapp-\d)-(?P<secret>[A-Za-z0-9-]{10,250}+)",
          (("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xapp-"),), _token(digit=True)),
    _rule("secret.slack_webhook",
          r"hooks\.slack\.com/services/(?P<secret>T[A-Z0-9]{6,20}/B[A-Z0-9]{6,20}/[A-Za-z0-9]{16,64})",
          (("hooks.slack.com",),), _token(), span=_secret_span),
    _rule("secret.aws_key", r"\b(?:AKIA|ASIA|ABIA|ACCA)(?P<secret>[A-Z0-9]{16})(?![A-Za-z0-9])",
          (("akia", "asia", "abia", "acca"),), _token()),
    _rule("secret.aws_secret_key",
          _ci(r"aws[_-]?secret[_-]?access[_-]?key", r"secret[_-]?access[_-]?key", r"aws[_-]?secret[_-]?key")
          + r"[\"']?[ \t]{0,5}(?::=|=>|=|:)[ \t]{0,5}[\"'`]?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
          (("secret",), ("key",)), _token(cased=True), flags=re.ASCII,
          span=_secret_span, requires=(":", "=")),
    # a bare secret access key right after its key id ("AKIA… / wJalr…")
    _rule("secret.aws_secret_key",
          r"A(?<![A-Za-z0-9_]A)(?:KIA|SIA)[A-Z0-9]{16}[\"']?[ \t]{0,3}[,;:/|][ \t]{0,3}[\"']?(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
          (("akia", "asia"),), _token(cased=True), span=_secret_span),
    _rule("secret.azure_key",
          r"\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=(?P<secret>[A-Za-z0-9+/%]{30,300}+={0,2})"
          r"|[?&]sig=(?P<sig>[A-Za-z0-9+/%]{30,300}+={0,2})",
          (("accountkey", "sharedaccesskey", "sharedaccesssignature", "sig="),),
          lambda m, _t: looks_like_token(m.group("secret") or m.group("sig")),
          span=lambda m, _t: m.span("secret") if m.group("secret") else m.span("sig")),
    _rule("secret.google_api_key", r"\bAIza(?P<secret>[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])",
          (("aiza",),), _token()),
    _rule("secret.google_oauth_secret", r"\bGOCSPX-(?P<secret>[0-9A-Za-z_-]{28})(?![0-9A-Za-z_-])",
          (("gocspx-",),), _token()),
    _rule("secret.npm_token", r"\bnpm_(?P<secret>[A-Za-z0-9]{36})(?![A-Za-z0-9])",
          (("npm_",),), _token(digit=True)),
    _rule("secret.huggingface_token", r"\bhf_(?P<secret>[A-Za-z0-9]{34,40})(?![A-Za-z0-9])",
          (("hf_",),), _token(cased=True)),
    _rule("secret.pypi_token", r"\bpypi-(?P<secret>AgE[A-Za-z0-9_-]{50,400}+)",
          (("pypi-age",),), _token()),
    _rule("secret.twilio_key", r"\bSK(?P<secret>[0-9a-fA-F]{32})(?![0-9A-Za-z])",
          (("sk",),), _token(digit=True), requires=("SK",)),
    _rule("secret.sendgrid_key", r"\bSG\.(?P<secret>[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])",
          (("sg.",),), _token(), requires=("SG.",)),
    _rule("secret.telegram_bot_token", r"\b\d{8,10}:(?P<secret>AA[A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])",
          ((":aa",),), _token(), requires=(":AA",)),
    _rule("secret.jwt", r"\beyJ[A-Za-z0-9_-]{8,2000}+\.(?P<secret>eyJ[A-Za-z0-9_-]{8,4000}+\.[A-Za-z0-9_-]{10,2000}+)",
          (("eyj",),)),
    _rule("secret.bearer_token",
          r"\b(?:Bearer|(?<=Authorization: )token)[ \t]+(?P<secret>[A-Za-z0-9\-._~+/]{20,2000}+=*)",
          (("bearer", "authorization: token"),), _token(digit=True), flags=re.IGNORECASE | re.ASCII,
          span=_secret_span),
    _rule("secret.basic_auth", r"\bBasic[ \t]+(?P<secret>[A-Za-z0-9+/]{12,1000}+={0,2})",
          (("basic",),), _basic_auth_check, flags=re.ASCII, span=_secret_span),
    # curl -u user:password
    _rule("secret.basic_auth",
          r"c(?<![\w.-]c)url(?=[ \t])[^\n|;&]{0,300}?[ \t](?:-u|--user)[ \t]*[\"']?(?P<user>[^\s:\"']{1,100}+):"
          r"(?P<secret>[^\s\"']{1,200}+)",
          (("curl",), ("-u", "--user")), _password,
          span=_value_of, kind="password"),
    _rule("secret.url_credentials", r"://(?P<user>[^\s:/@]{0,100}+):(?P<secret>[^\s@/]{1,200}+)@",
          (("://",),), lambda m, _t: url_password(m.group("secret"), m.group("user")), span=_secret_span,
          kind="password"),
    _rule("secret.assignment", _ASSIGNMENT, (ASSIGNED_WORDS,), _keyed_value_check,
          span=_value_of, requires=(":", "="), precheck=assignment_possible, kind=_keyed_kind),
    # mysql -u root -pS3cret (the password glued to -p)
    _rule("secret.assignment",
          r"(?:m(?<![\w.-]m)(?:ysql(?:dump|admin)?|ariadb))(?=[ \t])[^\n|;&]{0,200}?[ \t]-p(?P<secret>[^\s\"'`]{1,200}+)",
          (("mysql", "mariadb"),), _password, span=_value_of,
          kind="password"),
    _rule("secret.password_phrase", _PHRASE,
          (("password", "passphrase", "passwd", "passcode", "pwd", "pw", "pass", "token", "key", "secret"),),
          _keyed_value_check, span=_value_of, kind=_keyed_kind),
    _rule("secret.password_phrase", _PHRASE_FOR, (("password", "passphrase", "passwd", "pwd"),),
          _keyed_value_check, span=_value_of, kind="password"),
    _rule("secret.password_phrase", _PHRASE_FOREIGN,
          (("密码", "口令", "パスワード", "contraseña", "senha", "passwort", "kennwort", "mot de passe",
            "пароль"),),
          _keyed_value_check, span=_value_of, kind="password"),
    _rule("secret.private_key", PEM_END, (("private key",),), span=pem_tail_span),
    _rule("secret.password_phrase", _LABELLED,
          (("password", "passphrase", "passwd", "passcode", "pwd", "pw", "pass", "token", "key", "secret"),),
          _spaced_check, span=_value_of, kind=_keyed_kind),
    # the password flag of tools that take one: sshpass -p, docker login -p,
    # redis-cli -a, ldapsearch -w, htpasswd -b file user <password>
    _rule("secret.assignment", _TOOL_PASSWORD, (_TOOL_WORDS,),
          _password, span=_value_of, kind="password"),
    # npm config set //host/:_authToken <token>
    _rule("secret.assignment",
          r"n(?<![\w.-]n)pm[ \t]+config[ \t]+set[ \t]+[^\s=]{0,200}?(?:_authToken|_auth|_password)[ \t]+"
          r"(?P<secret>[^\s\"'`]{1,300}+)", (("npm",), ("_auth", "_password")),
          lambda m, t: strong_value(t[slice(*_value_of(m))]), span=_value_of, kind="secret"),
    _rule("secret.url_credentials", _BARE_CREDENTIALS, (("@",),),
          lambda m, _t: url_password(m.group("secret"), m.group("user")) and password_value(m.group("secret")),
          span=_secret_span, requires=(":",), kind="password"),
    # an AWS secret key a few words from its key id ("AKIA… with secret wJalr…")
    _rule("secret.aws_secret_key", r"(?<![A-Za-z0-9/+])(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
          (("akia", "asia"),), _near_key_id, span=_secret_span),
)


# Public API
def may_match(rule, text: str) -> bool:
    """False when a rule's exact pre-checks (``requires``, ``precheck``) show it cannot match ``text``
    (a secret rule here, or a scanner rule)."""
    return (not rule.requires or any(part in text for part in rule.requires)) and (
        rule.precheck is None or rule.precheck(text))


_TRIGGER_WORDS = tuple(sorted({w for r in RULES for g in r.triggers for w in g}))  # every rule has triggers


def matches(text: str):
    """``(rule, match)`` for every real-looking secret in ``text`` (a str)."""
    low = text.lower()
    # the trigger words present, found once for all rules (a rule runs only when
    # each of its trigger groups has a word in the text)
    present = frozenset(w for w in _TRIGGER_WORDS if w in low)
    if not present:
        return
    for rule in RULES:
        if not (all(not present.isdisjoint(group) for group in rule.triggers) and may_match(rule, text)):
            continue
        for match in rule.rx.finditer(text):
            if rule.check is None or rule.check(match, text):
                yield rule, match


def mask_spans(text: str) -> list[tuple[int, int]]:
    """Spans the scanner hides in excerpts (the ``secret`` group of each secret, else its span)."""
    spans = []
    for rule, match in matches(text):
        if "secret" in match.re.groupindex and match.group("secret") is not None:
            spans.append(match.span("secret"))
        else:
            spans.append(rule.span(match, text) if rule.span is not None else match.span())
    return sorted(spans)


def find_secrets(text) -> list[SecretSpan]:
    """Every secret in ``text``: kind and the span ``redact_secrets`` replaces,
    in text order, overlapping matches merged (the first rule names them)."""
    text = as_text(text)
    if not text:
        return []
    found = []
    for order, (rule, match) in enumerate(matches(text)):
        start, end = rule.span(match, text) if rule.span else match.span()
        if end > start:
            found.append((start, -end, order, rule.kind_of(match), rule.pattern_id))
    # a value once stated ("the password is hunter2") is a secret wherever it
    # is repeated in the same text ("… hunter2 did not work")
    repeated: dict = {}
    for start, neg_end, order, kind, pattern_id in found:
        value = text[start:-neg_end]
        if len(value) >= _REPEAT_MIN and len(repeated) < _REPEAT_MAX:
            repeated.setdefault(value, (order, kind, pattern_id))
    for value, (order, kind, pattern_id) in repeated.items():
        found += [(m.start(), -m.end(), order, kind, pattern_id) for m in re.finditer(re.escape(value), text)]
    found.sort()
    merged: list[list] = []
    for start, neg_end, _order, kind, pattern_id in found:
        if merged and start < merged[-1][2]:
            merged[-1][2] = max(merged[-1][2], -neg_end)
        else:
            merged.append([kind, start, -neg_end, pattern_id])
    return [SecretSpan(*fields) for fields in merged]


_REDACT_ROUNDS = 4


def redact_secrets(text) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``, repeated (at most four rounds)
    until nothing is found: a marker may expose another value to a rule."""
    text = as_text(text)
    for _round in range(_REDACT_ROUNDS):
        spans = find_secrets(text)
        if not spans:
            break
        pieces, pos = [], 0
        for span in spans:
            pieces.append(text[pos:span.start])
            pieces.append(REDACTED.format(kind=span.kind))
            pos = span.end
        pieces.append(text[pos:])
        text = "".join(pieces)
    return text


def was_redacted(text: str) -> bool:
    """True when ``text`` holds a ``[REDACTED:<kind>]`` left by ``redact_secrets``:
    what is left of a message that held a secret is not worth learning."""
    return isinstance(text, str) and _REDACTED_RE.search(text) is not None
