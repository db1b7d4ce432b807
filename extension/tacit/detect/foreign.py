"""Corrections in the languages tacit's privacy phrases cover (de, fr, es, ru, ja, pt, ko; zh in markers).

Design notes: docs/design/detect.md#tacitdetectforeign"""

from __future__ import annotations

import re

from tacit.lazyre import lazy

__all__ = ["foreign_correction"]

_I = re.IGNORECASE | re.UNICODE
_PHRASES = [
    # German
    r"\b(?:das|es|dies)\s+ist\s+(?:falsch|nicht\s+richtig|nicht\s+korrekt|nicht\s+was\s+ich)\b",
    r"\bich\s+(?:habe|hab)\s+(?:doch\s+)?(?:gesagt|geschrieben|gemeint)\b|\bich\s+sagte\b",
    r"^\s*nein\s*[,.!]\s*(?:nicht|das|du|benutze|verwende|nimm|mach)\b|\bfalsche?n?\s+(?:datei|ansatz|weg)\b",
    r"\bdu\s+hast\s+(?:das|es|mich)\s+(?:falsch|missverstanden)\b|\bmach\s+das\s+r(?:ü|ue)ckg(?:ä|ae)ngig\b",
    # French
    r"\bce\s+n'?est\s+pas\s+(?:ça|ca|ce\s+que|correct|bon|juste)\b|\bc'?est\s+(?:faux|incorrect)\b",
    r"\bj'?ai\s+dit\b|\bje\s+t'?ai\s+dit\b|\btu\s+(?:as\s+mal\s+compris|t'?es\s+tromp)",
    r"^\s*non\s*[,.!]\s*(?:pas|ce|c'|tu|utilise|mets|fais|il\s+faut)\b|\bannule\s+(?:ça|ca|cette)\b",
    # Spanish
    r"\b(?:eso|esto)\s+(?:est(?:á|a)\s+mal|no\s+es\s+(?:correcto|lo\s+que))\b|\best(?:á|a)s?\s+equivocad[oa]\b",
    r"\bte\s+dije\b|\bya\s+te\s+dije\b|\bdije\s+que\b|\bno\s+es\s+eso\b",
    # Portuguese
    r"\b(?:isso|isto)\s+(?:est(?:á|a)\s+errado|n(?:ã|a)o\s+(?:est(?:á|a)\s+certo|é\s+o\s+que))\b",
    r"\beu\s+(?:te\s+)?disse\b|\bvoc(?:ê|e)\s+(?:entendeu\s+errado|errou)\b|\bn(?:ã|a)o\s+foi\s+isso\b",
    r"^\s*n(?:ã|a)o\s*[,.!]\s*(?:use|usa|faça|faz|isso|n(?:ã|a)o)\b",
    # Russian
    r"неправильно|не\s+так\b|это\s+не\s+то|я\s+(?:же\s+)?(?:сказал|говорил|просил)|ты\s+(?:ошибся|не\s+понял)",
    r"^\s*нет\s*[,.!]\s*(?:не|это|используй|сделай|надо|нужно)",
    r"откати|верни\s+как\s+было",
    # Japanese
    r"違います|違う(?:よ|って|でしょ|。|、|$)|そうじゃない|間違って(?:いる|る|います)|言ったのに|って言った",
    r"元に戻して",
    # Korean
    r"틀렸|잘못\s*(?:했|됐|되었|이해)|그게\s+아니|말했잖아|아니(?:요|야)?\s*[,.!]\s*\S",
    r"되돌려",
]
_FOREIGN = [lazy(p, _I) for p in _PHRASES]
_SPANISH_NO = lazy(r"^\s*no\s*[,.!]\s*(?:usa|utiliza|haz|pon|eso|esto|no)\b", _I)


def foreign_correction(text: str) -> str | None:
    """The correction phrase a non-English message (quotes removed; the caller checks) opens or states, or None."""
    if not isinstance(text, str) or not text.strip():
        return None
    head = text.strip()[:2000]
    match = next(filter(None, (pattern.search(head) for pattern in (*_FOREIGN, _SPANISH_NO))), None)
    return match.group(0).strip() if match else None
