"""What a person marks as private, and messages that ask not to be kept.

``strip_private`` removes ``<private>…</private>`` spans; ``asks_not_to_keep`` says whether a
message asks tacit not to keep or learn from it ("don't save this", "off the record", "不要记住"). Both
run at the host boundary, before anything is stored or sent anywhere.

Design notes: docs/design/safety.md#tacitsafetyprivate"""

from __future__ import annotations

import re
import unicodedata

from tacit.lazyre import lazy
from tacit.safety.text import as_text

PRIVATE_MARKER = "[private]"

# <private> spans
_TAG = lazy(r"<[ \t]*(/)?[ \t]*private(?=[\s/>])[^<>]{0,200}>", re.IGNORECASE)


def strip_private(text) -> str:
    """``text`` without its ``<private>…</private>`` spans, each replaced by ``PRIVATE_MARKER``."""
    text = as_text(text)
    if "<" not in text or "rivate" not in text.lower():
        return text
    out: list[str] = []
    depth, pos = 0, 0
    for tag in _TAG.finditer(text):
        if depth == 0:
            out.append(text[pos:tag.start()])
        pos = tag.end()
        if tag.group(1):  # closing tag; a stray one (depth 0) is just dropped
            if depth > 0:
                depth -= 1
                if depth == 0:
                    out.append(PRIVATE_MARKER)
        elif not tag.group().rstrip(" \t>").endswith("/"):
            depth += 1
    out.append(text[pos:] if depth == 0 else PRIVATE_MARKER)
    return "".join(out)


# "Don't keep this"
# code and quoted strings are mentions, not requests: `// don't store this`,
# grep for 'off the record' (a quote opens after a non-word character, so the
# apostrophe in "don't" or "it's" never does)
# (every branch starts with its quote character, so the engine skips to quotes
# in C; the "not after a word character" check is a lookbehind after it)
_MENTIONS = lazy(
    r"```.*?(?:```|\Z)|`[^`\n]{0,500}`|'(?<!\w')[^'\n]{1,120}'(?!\w)|\"(?<!\w\")[^\"\n]{1,120}\"(?!\w)"
    "|\u201c[^\u201d\n]{1,120}\u201d",
    re.DOTALL,
)
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\uff07": "'"})

# Each construction is found by its rare part (the negation, "private", "off the record") with a
# regex whose branches all start with a literal, so the engine skips most positions in C; the clause
# start before it is then checked in a short window. (A regex that begins with "start of clause"
# tries every branch at every position: ten times slower.)
_LOOKBACK = 48
# the end of a window where a clause starts: a line break, punctuation, or a
# conjunction/interjection, then optional emphasis and please/just
_CLAUSE = (r"(?:[\n.!?;:,(\u2014\u2013\-\u2022*>]|\b(?:and|but|so|please|pls|plz|also|just|ok|okay|oh|hey"
           r"|btw|then|actually|oops))[\s*_]{0,8}(?:(?:please|pls|plz|kindly|just)\s{1,4})?")
_CLAUSE_BEFORE = lazy(_CLAUSE + r"$")
_NEG_AT = lazy(r"(?:don'?t|do\s{1,4}not|never|do\s{0,2}n't)\s{1,4}(?:(?:ever|please|even)\s{1,4})?")
# what the clause may end with (but not a condition: "nicht speichern, wenn …")
_END = (r"(?!\s{0,4},?\s{0,4}(?:if|unless|until|when|whenever|before|after|while|wenn|falls|bis|solange|si"
        r"|quand|hasta|cuando|mientras)\b)"
        r"(?=\s{0,4}(?:$|[.!?;:,\n)\u2014\u2013\"\u201d*]|\s-\s"
        r"|(?:please|pls|though|ok|okay|thanks|thx|thank\s{1,3}you)\b"
        r"|(?:in|to|into)\s{1,4}(?:your\s{1,4}|the\s{1,4}|tacit'?s?\s{1,4}|long[- ]term\s{1,4})?"
        r"(?:memory|memories|notes|tacit|knowledge\s{1,3}base|profile|user\.md|memory\.md)\b"
        r"|(?:for|in)\s{1,4}(?:later|next\s{1,3}time|the\s{1,3}future|future(?:\s{1,3}sessions)?"
        r"|other\s{1,3}sessions|later\s{1,3}sessions)\b"
        r"|(?:anywhere|permanently|at\s{1,3}all|either|anymore|long[- ]term)\b))")
_END_AT = lazy(_END)
# objects that point at the conversation itself
_SELF = (r"(?:this|that|these|those|any\s{1,3}of\s{1,3}(?:this|that|it)|all\s{1,3}(?:of\s{1,3})?this"
         r"|(?:these|those)\s{1,3}(?:details|messages|notes|bits|parts|things|facts|numbers)"
         r"|this\s{1,3}(?:message|conversation|chat|session|part|bit|info|information|detail|details|one"
         r"|exchange|note|fact|stuff|thread|last\s{1,3}part|last\s{1,3}bit)"
         r"|that\s{1,3}(?:message|part|bit|info|information|detail|one|stuff|last\s{1,3}part)"
         r"|what\s{1,3}i\s{1,3}(?:just\s{1,3})?(?:said|say|told\s{1,3}you|wrote|typed|shared|mentioned)"
         r"(?:\s{1,3}about(?:\s{1,3}[\w'-]{1,30}){1,4}?)?"
         r"|my\s{1,3}(?:last\s{1,3})?(?:message|reply|answer)"
         r"|my\s{1,3}(?:password|passwords|pin|token|tokens|api\s{1,3}key|keys?|address|phone\s{1,3}number"
         r"|number|email|credentials|ssn|personal\s{1,3}(?:info|information|details|data))"
         r"|the\s{1,3}following|anything\s{1,3}(?:from|about|in)\s{1,3}(?:this|that|here)"
         r"(?:\s{1,3}(?:conversation|chat|session|message|thread))?"
         r"|anything\s{1,3}i\s{1,3}(?:say|said|tell\s{1,3}you|told\s{1,3}you|share)(?:\s{1,3}(?:here|now|today))?)")
# verbs that only mean "keep in memory"; "it" is fine as their object
_MEMORY_VERB = (r"(?:remember|memori[sz]e|learn\s{1,3}from|retain|keep\s{1,3}a\s{1,3}record\s{1,3}of"
                r"|make\s{1,3}a\s{1,3}(?:note|memory)\s{1,3}(?:of|from|out\s{1,3}of)|take\s{1,3}note\s{1,3}of"
                r"|keep\s{1,3}in\s{1,3}mind)")
_STORE_VERB = r"(?:save|store|keep|record|persist|log|add|put|write|carry\s{1,3}over)"
# after "don't" at the start of a clause
_AFTER_NEG = lazy(
    # don't remember/memorize (this|it|…)
    _MEMORY_VERB + r"(?:\s{1,4}(?:" + _SELF + r"|it))?" + _END
    # don't write/note/jot this down
    + r"|(?:write|note|jot)\s{1,4}(?:" + _SELF + r"|it)\s{1,4}down" + _END
    # don't save/store/keep/record this (in your memory)
    + r"|" + _STORE_VERB + r"\s{1,4}" + _SELF + _END
    + r"|" + _STORE_VERB + r"\s{1,4}it\s{1,4}(?:in|to|into)\s{1,4}(?:your\s{1,4}|the\s{1,4})?"
    r"(?:memory|memories|notes)\b"
)
# constructions that need no clause start (each branch starts with a literal)
_EN_PHRASES = lazy(
    # no need to remember this / you don't have to remember this
    r"(?:no\s{1,3}need\s{1,3}to|you\s{1,3}(?:don'?t|do\s{1,3}not)\s{1,3}(?:need|have)\s{1,3}to)\s{1,3}"
    r"(?:remember|memori[sz]e|save|store|keep)\s{1,4}(?:" + _SELF + r"|it)" + _END
    # keep/leave this out of your memory
    + r"|(?:keep|leave)\s{1,3}(?:this|that|it|all\s{1,3}this)\s{1,3}out\s{1,3}of\s{1,3}(?:your\s{1,3}|the\s{1,3})?"
    r"(?:memory|memories|notes|record)\b"
    # off the record / not for the record
    + r"|off[\s-]{1,3}the[\s-]{1,3}record\b|not\s{1,3}for\s{1,3}the\s{1,3}record\b"
    # keep this between us / confidential / to yourself
    + r"|keep\s{1,3}(?:this|that|it)\s{1,3}(?:just\s{1,3})?(?:between\s{1,3}(?:us|ourselves|you\s{1,3}and\s{1,3}me)"
    r"|confidential|to\s{1,3}yourself)\b"
    + r"|just\s{1,3}between\s{1,3}(?:us|you\s{1,3}and\s{1,3}me|ourselves)\b"
)
# "this is private": the adjective, then the subject before it
_PRIVATE_AT = lazy(r"(?:private|confidential|between\s{1,3}us|between\s{1,3}you\s{1,3}and\s{1,3}me"
                         r"|just\s{1,3}for\s{1,3}you)\b")
_SUBJECT_BEFORE = lazy(
    _CLAUSE + r"(?:this|that|the\s{1,3}following|what\s{1,3}follows|everything\s{1,3}below"
    r"|what\s{1,3}i'?m\s{1,3}about\s{1,3}to\s{1,3}(?:say|tell\s{1,3}you)"
    r"|this\s{1,3}(?:message|part|bit|info|information|one|conversation|chat))\s{1,3}(?:is|stays|remains)"
    r"\s{1,3}(?:strictly\s{1,3}|just\s{1,3}|completely\s{1,3})?$"
)


def _window(low: str, pos: int, size: int = _LOOKBACK) -> str:
    """The text before ``pos``, starting with a line break at the text's start
    (a clause starts there) and with a neutral letter when cut mid-text."""
    start = pos - size
    return "\n" + low[:pos] if start <= 0 else "x" + low[start:pos]


def _word_start(low: str, pos: int) -> bool:
    return pos == 0 or not (low[pos - 1].isalnum() or low[pos - 1] == "_")


def _english(low: str) -> bool:
    if any(_word_start(low, neg.start()) and _CLAUSE_BEFORE.search(_window(low, neg.start()))
           and _AFTER_NEG.match(low, neg.end()) for neg in _NEG_AT.finditer(low)) \
            or any(_word_start(low, phrase.start()) for phrase in _EN_PHRASES.finditer(low)):
        return True
    for word in _PRIVATE_AT.finditer(low):
        if not _word_start(low, word.start()):
            continue
        if word.group().startswith("between") and "you" in word.group() \
                and _CLAUSE_BEFORE.search(_window(low, word.start())):
            return True  # "Between you and me, …"
        if _END_AT.match(low, word.end()) and _SUBJECT_BEFORE.search(_window(low, word.start(), 96)):
            return True
    return False


_ZH_NEG = r"(?:不要|别|不用|不必|无需|无须|请勿|勿|千万别|千万不要|请不要|请别)"
_ZH_THIS = (r"(?:这|这个|这些|这条|这段|这句|这件事|这次|刚才说的|刚刚说的|刚才的?|刚刚的?|我说的|我刚才说的"
            r"|以上|上面的?|下面的?|它)")
_ZH_END = r"(?=$|[，。！？,.!?；;：:\n\s）)]|啊|哦|哈|喔|吧|哟|呀)"
_ZH_MEMORY = r"(?:记忆|memory|笔记|脑子)"
_CJK = lazy(
    # 不要记住(这个) / 别记下来
    _ZH_NEG + r"(?:帮我|给我)?(?:记住|记下来?|记录下来|存下来|存起来|记在心里)(?:" + _ZH_THIS + r"[话内容信息事]?)?" + _ZH_END
    # 不要保存这个 / 别存这些
    + r"|" + _ZH_NEG + r"(?:保存|存储|储存|存|记录|记)" + _ZH_THIS + r"[话内容信息事]?" + _ZH_END
    + r"|" + _ZH_NEG + r"(?:保存|存储|储存|记录)" + _ZH_END
    # 不要写进记忆 / 别存到记忆里
    + r"|" + _ZH_NEG + r"(?:把" + _ZH_THIS + r"[话内容信息事]?)?(?:写|存|记|保存|放|加)(?:进|到|入)(?:你的)?" + _ZH_MEMORY
    # 这个不要记 / 以上别保存
    + r"|" + _ZH_THIS + r"[话内容信息事]?(?:就|也|你)?" + _ZH_NEG + r"(?:记|记住|记下来?|保存|存|记录)" + _ZH_END
    # 别把这个记下来
    + r"|" + _ZH_NEG + r"把" + _ZH_THIS + r"[话内容信息事]?(?:记住|记下来?|记录下来|存下来|保存下来|存起来)" + _ZH_END
    # 这是私密的 / 请保密
    + r"|这(?:是|些是|个是)(?:私密|隐私|机密|私人)(?:的|信息|内容|的信息|的内容)?" + _ZH_END
    + r"|(?:请|帮我|替我|要)保密"
    # Japanese: これは覚えないで / 内緒 / オフレコ
    + r"|(?:これ|それ|この話|今の話|この内容|今のこと)(?:は|を)?(?:覚え|記憶し|保存し|記録し|メモし)"
    r"(?:ないで|なくていい|ないでください|ないでね)"
    + r"|覚えないで|覚えなくていい|内緒(?:にして|だよ|です|ね|で)|オフレコ"
    # Korean: 기억하지 마 / 이거 저장하지 마 / 비밀로 해
    + r"|기억하지\s?마|(?:이거|이건|이것|이 내용)\s?(?:저장|기록)하지\s?마|비밀로\s?해"
)

# other languages: each regex runs only when one of its words is in the text
_GERMAN_NICHT = lazy(r"nicht\s{1,3}(?:speichern|merken|aufschreiben|notieren|behalten|aufheben)\b" + _END)
_GERMAN_BEFORE = lazy(_CLAUSE + r"(?:(?:das|dies|dieses|es)\s{1,3})?(?:bitte\s{1,3})?$")
_LANGUAGES = (
    # German
    (("speicher", "merk", "notier", "unter uns", "vertraulich", "privat"), lazy(
        r"\b(?:speicher|speichere|speichert|notier|notiere|merk|merke)\s{1,3}(?:dir\s{1,3}|euch\s{1,3})?"
        r"(?:das|dies|es)\s{1,3}(?:bitte\s{1,3})?nicht\b" + _END
        + r"|\b(?:das|dies)\s{1,3}(?:bleibt|ist)\s{1,3}(?:unter\s{1,3}uns|vertraulich|privat)\b" + _END
        + r"|\bunter\s{1,3}uns\s{1,3}gesagt\b")),
    # French
    (("retien", "retene", "morise", "enregistr", "sauvegard", "garde", "note", "stocke", "c'est", "entre nous"),
     lazy(
        r"\bne\s{1,3}(?:le\s{1,3}|la\s{1,3}|les\s{1,3}|l')?(?:retiens|retenez|m[ée]morise|m[ée]morisez|m[ée]morises)"
        r"\s{1,3}pas\b(?:\s{1,3}(?:[çc]a|cela|ceci))?" + _END
        + r"|\b(?:ne\s{1,3}|n')(?:enregistre|enregistrez|sauvegarde|sauvegardez|garde|gardez|note|notez|stocke"
        r"|stockez)\s{1,3}pas\s{1,3}(?:[çc]a|cela|ceci)(?:\s{1,3}en\s{1,3}m[ée]moire)?" + _END
        + r"|\bne\s{1,3}(?:le\s{1,3}|la\s{1,3}|l')?(?:garde|gardez)\s{1,3}pas\s{1,3}en\s{1,3}m[ée]moire\b"
        + r"|\bc'est\s{1,3}(?:priv[ée]|confidentiel|entre\s{1,3}nous)\b" + _END
        + r"|\b(?:[çc]a\s{1,3}reste|que\s{1,3}[çc]a\s{1,3}reste|reste)\s{1,3}entre\s{1,3}nous\b"
        r"|\bentre\s{1,3}nous\s{1,3}soit\s{1,3}dit\b")),
    # Spanish
    (("recuerd", "memoric", "guard", "almacen", "anot", "registr", "grab", "privado", "confidencial",
      "entre nosotros", "entre t"), lazy(
        r"\bno\s{1,3}(?:lo\s{1,3}|la\s{1,3})?(?:recuerdes|recuerde|memorices|memorice)\b(?:\s{1,3}(?:esto|eso))?" + _END
        + r"|\bno\s{1,3}(?:guardes|guarde|almacenes|almacene|anotes|anote|registres|registre|grabes|grabe)\s{1,3}"
        r"(?:esto|eso|nada\s{1,3}de\s{1,3}esto)(?:\s{1,3}en\s{1,3}(?:tu\s{1,3}|la\s{1,3})?memoria)?" + _END
        + r"|\b(?:esto|eso)\s{1,3}es\s{1,3}(?:privado|confidencial)\b" + _END
        + r"|\b(?:que\s{1,3})?(?:quede|queda)\s{1,3}entre\s{1,3}nosotros\b|\bentre\s{1,3}t[úu]\s{1,3}y\s{1,3}yo\b")),
    # Portuguese
    (("guard", "salv", "armazen", "memoriz", "grav", "privado", "confidencial", "entre n"), lazy(
        r"\bn[ãa]o\s{1,3}(?:guarde|guardes|salve|salves|armazene|memorize|memorizes|grave)\s{1,3}(?:isso|isto)" + _END
        + r"|\b(?:isso|isto)\s{1,3}[ée]\s{1,3}(?:privado|confidencial)\b" + _END
        + r"|\b(?:fica|que\s{1,3}fique)\s{1,3}entre\s{1,3}n[óo]s\b")),
    # Russian
    (("запомин", "сохраня", "записыва", "конфиденциальн", "приватн", "между нами"), lazy(
        r"не(?<!\wне)\s{1,3}(?:запоминай|запоминайте)(?:\s{1,3}(?:это|этого))?" + _END
        + r"|не(?<!\wне)\s{1,3}(?:сохраняй|сохраняйте|записывай|записывайте)\s{1,3}(?:это|этого)" + _END
        + r"|это(?<!\wэто)\s{1,3}(?:конфиденциально|приватно|между\s{1,3}нами)" + _END
        + r"|только(?<!\wтолько)\s{1,3}между\s{1,3}нами")),
)
_CJK_WORDS = ("记", "存", "保", "私", "密", "覚", "記", "メモ", "内緒", "オフレコ", "기억", "저장", "기록", "비밀")


def _other_languages(low: str) -> bool:
    if "nicht" in low:
        for nicht in _GERMAN_NICHT.finditer(low):
            if _word_start(low, nicht.start()) and _GERMAN_BEFORE.search(_window(low, nicht.start())):
                return True
    if any(any(word in low for word in words) and rx.search(low) is not None for words, rx in _LANGUAGES):
        return True
    return not low.isascii() and any(word in low for word in _CJK_WORDS) and _CJK.search(low) is not None


_MAX_CHARS = 200_000  # a message longer than this is read at its head and tail


def _normal(text: str) -> str:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)
    if "`" in text or "'" in text or '"' in text or "\u201c" in text:
        text = _MENTIONS.sub(" ", text)
    return text.lower()


def asks_not_to_keep(text) -> bool:
    """True when the message asks not to be kept or learned from (see docs/privacy.md)."""
    text = as_text(text)
    if not text:
        return False
    if len(text) > _MAX_CHARS:
        half = _MAX_CHARS // 2
        text = text[:half] + "\n" + text[-half:]
    low = _normal(text)
    return _english(low) or _other_languages(low)
