"""The two memory commands users type in prose: "review" and "forget that …" (never raises).

Design notes: docs/design/detect.md#tacitdetectcommands"""

from __future__ import annotations

import re

from tacit.lazyre import lazy

_I = re.IGNORECASE

_REVIEW_EXACT = {
    "review", "review please", "please review", "let's review", "lets review", "daily review", "nightly review",
    "memory review", "memory-review", "/memory-review", "review memory", "review memories", "review today",
    "复盘", "今日复盘", "今天复盘", "复盘一下", "回顾一下",
}
_REVIEW_RE = lazy(
    r"\breview\b[^.?!]{0,40}?\b(?:memor(?:y|ies)|captures?|what\s+you(?:'ve)?\s+(?:learned|learnt|noted|captured"
    r"|remembered|saved|stored)|notes?\s+(?:you|from\s+today))"
    r"|^(?:let'?s|let\s+us|can\s+we|time\s+(?:to|for)|do\s+(?:the|a|my|our))\s+(?:do\s+)?(?:a\s+|the\s+|our\s+|my\s+)?"
    r"(?:daily\s+|nightly\s+|end-of-day\s+|memory\s+)?review(?:\s+(?:of\s+)?today(?:'s)?(?:\s+(?:memories|captures|notes))?)?$"
    r"|^/memory-review\b|复盘|回顾(?:一下)?(?:今天|今日|记忆)",
    _I,
)


def wants_review(text: str) -> bool:
    """The user asks for the memory review ("review", "复盘", "let's review today's memories")."""
    try:
        if not isinstance(text, str):
            return False
        clean = " ".join(text.strip().lower().split()).strip(" .!。！")
        clean = re.sub(r"^(?:please|pls|ok(?:ay)?|now)[,\s]+|[,\s]+(?:please|pls|now)$", "", clean).strip(" .!。！")
        if not clean or len(clean) > 300:
            return False
        return clean in _REVIEW_EXACT or bool(_REVIEW_RE.search(clean))
    except Exception:  # noqa: BLE001 — never break the host
        return False


_FORGET_RE = lazy(
    r"^(?:(?:also|and|oh|ok(?:ay)?|actually|hey|btw)[,\s]+)*(?:please\s+|pls\s+|can\s+you\s+|could\s+you\s+)?"
    r"(?:forget|stop\s+remembering|unlearn|don'?t\s+(?:remember|store|save|keep|record|note)"
    r"|do\s+not\s+(?:remember|store|save|keep|record|note)"
    r"|(?:remove|delete|erase|drop)\s+(?:the\s+|your\s+)?(?:memory|memories|note|notes|entry)\s+(?:about|that|of|on))"
    r"\s+(?:about\s+|that\s+|the\s+fact\s+that\s+"
    r"|what\s+(?:i|we)(?:\s+have|'ve)?\s+(?:said|told\s+you|mentioned|wrote)\s+(?:about|regarding|on)\s+"
    r"|(?:everything|anything)\s+(?:about|regarding)\s+)?(?P<what>.+)$",
    _I,
)
_FORGET_ZH_RE = lazy(
    r"^(?:请|帮我|麻烦)?(?:把)?(?:忘掉|忘记|忘了吧|别记住?|不要记住?|不要记录|别记录"
    r"|(?:删掉|删除)(?=关于|(?:这条|那条)?(?:记忆|记录))"  # "删除可归档文件" deletes files, not a memory
    r")(?:关于)?(?P<what>.+)$"
)
_FORGET_VAGUE = lazy(r"^(?:it|this|that|about\s+it|everything\s+else)\b\s*(?:[,.!;]|$)", _I)


def wants_forget(text: str) -> str | None:
    """What the user asks to be forgotten ("forget that I …"), or None."""
    try:
        if not isinstance(text, str):
            return None
        clean = " ".join(text.strip().split())
        if not clean or len(clean) > 500 or re.match(r"^(?:别忘|不要忘|千万别忘)", clean):
            return None
        match = _FORGET_RE.match(clean) or _FORGET_ZH_RE.match(clean)
        if not match:
            return None
        what = match.group("what").strip().rstrip(" .!?。！？")
        what = re.sub(r"^(?:这条|那条)?(?:记忆|记录)[：:\s]*|的(?:记忆|记录)$", "", what)  # "删除关于X的记忆": X
        what = re.sub(r"\s*,?\s*(?:please|thanks|thank\s+you)$", "", what, flags=_I).strip()
        if re.match(r"^to\b", what, _I) or _FORGET_VAGUE.match(what) or len(what) < 2:
            return None  # "forget to …" is not a thing; "forget it" means never mind
        return (what[6:] if what.lower().startswith("about ") else what) or None
    except Exception:  # noqa: BLE001 — never break the host
        return None
