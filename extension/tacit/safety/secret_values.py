"""Does a value look like a real credential? The checks behind ``tacit.safety.secrets``.

A prefix or a key only makes a secret when the value after it looks like one: machine tokens must
look random, a password may be weak but never a reference, a template, a call, a bare word or a
placeholder. Values named only by a space after their label ("password S3cr3t!", "token 9fQ…") must
look more like a secret still (``spaced_password``, ``random_value``): "the password field", "token
budget", Python ``pass`` statements stay."""

from __future__ import annotations

import re

from tacit.lazyre import lazy

_PLACEHOLDER_MARKERS = (
    "xxx", "***", "...", "\u2026", "\u2022\u2022", "<", ">", "{{", "${", "$(", "%(", "example",
    "placeholder", "changeme", "change_me", "change-me", "redacted", "dummy", "fake", "sample",
    "mock", "test", "demo", "your", "secret", "password", "passwd", "token", "foobar", "lorem", "todo",
    "fixme", "replace", "insert", "null", "none", "undefined",
)
_TOKEN_PLACEHOLDERS = (
    "xxxx", "example", "placeholder", "your", "dummy", "fake", "redacted", "sample",
    "changeme", "0000000", "1234567", "...", "\u2026", "***",
)
# Words that follow "password is/:" in prose about passwords, not passwords.
_NOT_PASSWORDS = frozenset((
    "sha1", "sha256", "sha512", "md5", "bcrypt", "argon2", "argon2id", "scrypt", "pbkdf2",
    "utf8", "utf-8", "base64", "hex", "2fa", "mfa", "otp", "totp", "n/a", "tbd", "xxxx",
    "1password", "keepass", "keepassxc",
))
# Passwords in URLs that are documentation, not credentials ("user:pass@").
_URL_PLACEHOLDERS = frozenset(("pass", "pwd", "pw", "pswd", "user", "username", "login", "admin:admin"))
_IDENT_CHAIN = lazy(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_PLAIN_WORD = lazy(r"[A-Za-z_]+")
_WORDS = lazy(r"[a-z]+(?:[-_.][a-z]+)*")
_WINDOWS_PATH = lazy(r"[A-Za-z]:[\\/]")
TRAILING = ".,:;?"  # sentence punctuation after a value is not part of it


def _char_classes(value: str) -> int:
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


def _placeholder(low: str) -> bool:
    if "xxx" in low and low.count("x") * 4 < len(low):  # "xxx" by chance in a long random value
        low = low.replace("xxx", "")
    return low.startswith("[redacted") or any(marker in low for marker in _PLACEHOLDER_MARKERS)


def _code_or_word(value: str) -> bool:
    """A dotted name (``settings.KEY``), a bare word, or words joined by dashes."""
    return bool(_IDENT_CHAIN.fullmatch(value) or _PLAIN_WORD.fullmatch(value)
                or _WORDS.fullmatch(value.lower()))


def strong_value(value: str) -> bool:
    """A value someone would really use as a token or key, not a placeholder."""
    value = value.strip()
    if len(value) < 8 or value[0] in "$%{<[(=!&*@#/~.-":
        return False
    if "://" in value or _placeholder(value.lower()) or _code_or_word(value):
        return False
    return _char_classes(value) >= 2 and len(set(value)) >= 5


def password_value(value: str) -> bool:
    """A literal password: weak ones count ("hunter2"), references and words do not."""
    value = value.strip()
    low = value.lower()
    if not 4 <= len(value) <= 200 or value[0] in "$%{<[(=!&*@#/~.\\":
        return False
    if "://" in value or low in _NOT_PASSWORDS or _placeholder(low) or _code_or_word(value) \
            or _WINDOWS_PATH.match(value):
        return False
    return len(set(value)) >= 3


def url_password(value: str, user: str) -> bool:
    """The password part of ``scheme://user:password@host``: any literal but a
    placeholder, a reference, or a default equal to the user (postgres:postgres)."""
    low = value.lower()
    return len(value) >= 3 and value[0] not in "$%{<[(" and low not in _URL_PLACEHOLDERS and value != user \
        and not _placeholder(low)


def looks_like_token(body: str, *, mixed: bool = False, digit: bool = False, cased: bool = False) -> bool:
    """A random-looking token body after a known prefix, with a digit (``digit``), both cases (``cased``)
    or both (``mixed``: OpenAI/Anthropic keys share ``sk-`` with kebab-case names)."""
    low = body.lower()
    if any(marker in low for marker in _TOKEN_PLACEHOLDERS):
        return False
    if len(set(body)) < min(8, max(4, len(body) // 3)):
        return False
    if (digit or mixed) and not any(c.isdigit() for c in body):
        return False
    if (cased or mixed) and not (any(c.islower() for c in body) and any(c.isupper() for c in body)):
        return False
    # "sk-component-library-name": words joined by dashes are a name, not a key
    return not (_WORDS.fullmatch(low) and any(c in body for c in "-_."))


# Values named only by a space after their label
_PIECES = lazy(r"[A-Za-z]+|[0-9]+")
_SPLIT = lazy(r"[-_./:]")
_CAMEL = lazy(r"[A-Za-z][a-z]+(?:[A-Z][a-z]+)+[0-9]{0,3}")
_FILE_LIKE = lazy(r".+\.[A-Za-z][A-Za-z0-9]{0,5}")
_VERSION = lazy(r"v?[0-9]+(?:[.x][0-9x]+)+[a-z0-9.+-]*", re.IGNORECASE)


def _made_of_names(value: str) -> bool:
    """``user_id``, ``v1.2.3``, ``getUserName``, ``arg2``, ``config.yaml``:
    words and numbers joined the way names are, not a chosen secret."""
    parts = [p for p in _SPLIT.split(value) if p]
    if len(parts) > 1 and all(_PIECES.fullmatch(p) for p in parts):
        return True
    return bool(_CAMEL.fullmatch(value) or _VERSION.fullmatch(value)
                or (_FILE_LIKE.fullmatch(value) and not any(c.isdigit() for c in value.rsplit(".", 1)[-1])
                    and value.count(".") == 1 and len(value) < 40))


def spaced_password(value: str, *, strict: bool = False) -> bool:
    """A password named by a space after its label ("with password S3cr3t!", "pw hunter2"): a
    literal with a letter and a digit or a symbol, not a name. ``strict`` (the label is "pass", also
    a verb and a keyword): three kinds of characters, or a long random-looking value."""
    value = value.strip()
    if not password_value(value) or len(value) > 64 or _made_of_names(value) or value[0] in "-+^|":
        return False
    classes = _char_classes(value)
    if not any(c.isalpha() for c in value) or classes < 2:
        return False
    return classes >= 3 or random_value(value) if strict else True


def random_value(value: str) -> bool:
    """A machine secret named by a space ("token 9fQ2…", "secret wJalr…"):
    long, varied, with a digit, and not made of names."""
    value = value.strip()
    if not strong_value(value) or _made_of_names(value) or not any(c.isdigit() for c in value):
        return False  # random machine secrets of 8+ characters all but always hold a digit
    classes = _char_classes(value)
    return (classes >= 3 and len(set(value)) >= 7) or (len(value) >= 16 and len(set(value)) >= 10 and classes >= 2)
