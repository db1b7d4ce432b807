"""Corrections and standing rules in the languages tacit's privacy phrases cover besides English.

German, French, Spanish, Portuguese, Russian, Japanese and Korean (Chinese: :mod:`markers`). The
learned scorers are trained on English rows only and read a Latin-script message as English, so
an unambiguous phrase decides: "das ist falsch", "te dije que", "por que você apagou", "зачем ты",
"勝手に" (a correction); "siempre usa", "n'utilise jamais", "всегда пиши" (a standing rule).

Design notes: docs/design/detect.md#tacitdetectforeign"""

from __future__ import annotations

import re

from tacit.lazyre import gate, lazy

_A = "['\u2019]"  # an apostrophe, straight or typographic

#: phrases that reject, contradict or redirect what the agent did
_CORRECTION_PHRASES = [
    # German
    r"\b(?:das|es|dies)\s+ist\s+(?:falsch|nicht\s+richtig|nicht\s+korrekt|nicht\s+was\s+ich)\b",
    r"\bich\s+(?:habe|hab)\s+(?:doch\s+)?(?:gesagt|geschrieben|gemeint)\b|\bich\s+sagte\b",
    r"^\s*nein\s*[,.!]\s*(?:nicht|das|du|benutze|verwende|nimm|mach)\b"
    r"|\bfalschen?\s+(?:datei|ansatz|weg|ordner|branch|version|funktion)\b",
    r"\bdu\s+hast\s+(?:das|es|mich)\s+(?:falsch|missverstanden)\b|\bmach\s+das\s+r(?:ü|ue)ckg(?:ä|ae)ngig\b",
    r"\bwarum\s+hast\s+du\b[^.?!\n]{0,60}?\b(?:gelöscht|entfernt|geändert|überschrieben|kaputt\s*gemacht)\b"
    r"|\bdas\s+(?:habe|hab)\s+ich\s+nicht\s+(?:gesagt|gemeint|verlangt)\b",
    r"(?:wähle|nimm|benutze|verwende|nutze)\b[^.!?\n]{0,60}?\bstattdessen\b",
    # French
    rf"\b(?:ce|cela|ca)\s+n{_A}?est\s+pas\s+(?:du\s+tout\s+)?(?:ça|ca|ce\s+que|correct|bon|juste|adapté)"
    rf"|\bc{_A}?est\s+(?:faux|incorrect)\b",
    rf"ça\s+n{_A}?est\s+pas\s+(?:du\s+tout\s+)?(?:ça|ca|ce\s+que|correct|bon|juste|adapté)",
    rf"\bj{_A}?ai\s+dit\b|\bje\s+t{_A}?ai\s+(?:déjà\s+)?dit\b|\btu\s+(?:as\s+mal\s+compris|t{_A}?es\s+tromp)",
    rf"^\s*non\s*[,.!]\s*(?:pas|ce|c{_A}|tu|utilise|mets|fais|il\s+faut)\b|\bannule\s+(?:ça|ca|cette)\b",
    r"\bpourquoi\s+(?:tu\s+as|as[- ]tu)\s+(?:supprimé|effacé|changé|modifié|enlevé|cassé)"
    r"|\b(?:utilise|prends|mets|garde)\b[^.!?\n]{0,60}?\bau\s+lieu\s+d|\btu\s+as\s+(?:tout\s+)?cassé\b",
    # Spanish
    r"\b(?:eso|esto)\s+(?:est(?:á|a)\s+mal|no\s+es\s+(?:correcto|lo\s+que))\b|\best(?:á|a)s?\s+equivocad[oa]\b",
    r"\bte\s+dije\b|\bya\s+te\s+dije\b|\bdije\s+que\b|\bno\s+es\s+eso\b|\bte\s+ped[íi]\s+que\b",
    r"\bpor\s*qu[ée]\s+(?:has\s+)?(?:borra|elimina|cambia|quita|modifica)(?:ste|do)\b|\b(?:rompiste|has\s+roto)\b"
    r"|\b(?:usa|utiliza|pon)\b[^.!?\n]{0,60}?\ben\s+(?:lugar|vez)\s+de\b"
    r"|\bno\s+es\s+lo\s+que\s+(?:te\s+)?(?:ped[íi]|quer[íi]a)\b",
    # Portuguese
    r"\b(?:isso|isto)\s+(?:est(?:á|a)\s+errado|n(?:ã|a)o\s+(?:est(?:á|a)\s+certo|é\s+o\s+que))\b",
    r"\beu\s+(?:te\s+)?disse\b|\bvoc(?:ê|e)\s+(?:entendeu\s+errado|errou|quebrou)\b|\bn(?:ã|a)o\s+(?:foi|era)\s+isso\b",
    r"^\s*n(?:ã|a)o\s*[,.!]\s*(?:use|usa|faça|faz|isso|n(?:ã|a)o)\b",
    r"\bpor\s*qu[eê]\s+(?:voc[êe]\s+)?(?:apagou|removeu|mudou|alterou|quebrou|deletou)\b"
    r"|\b(?:use|usa|utilize|coloque)\b[^.!?\n]{0,60}?\b(?:em\s+vez|ao\s+inv[ée]s)\s+de\b"
    r"|\beu\s+(?:te\s+)?pedi\s+(?:para|pra)\b",
    r"^\s*no\s*[,.!]\s*(?:usa|utiliza|haz|pon|eso|esto|no|as[íi]\s+no)\b",  # Spanish "no, …": looked for last
]
_CORRECTIONS = [lazy(p, re.IGNORECASE) for p in _CORRECTION_PHRASES]
gate(*_CORRECTIONS)

#: the same in a script of its own, looked for only in a text that holds a letter of it
_SCRIPT_PHRASES = [
    ("[\u0400-\u04ff]", [  # Russian
        r"неправильно|не\s+так\b|это\s+не\s+то|я\s+(?:же\s+)?(?:сказал|говорил|просил)|ты\s+(?:ошибся|не\s+понял)",
        r"^\s*нет\s*[,.!]\s*(?:не|это|используй|сделай|надо|нужно)",
        r"откати|верни\s+как\s+было|зачем\s+ты\b|почему\s+ты\s+(?:удалил|изменил|сломал|убрал)"
        r"|ты\s+(?:сломал|испортил)|(?:используй|возьми|поставь)\b[^.!?\n]{0,60}?\bвместо\b",
    ]),
    ("[\u3040-\u30ff\u4e00-\u9fff]", [  # Japanese
        r"違います|違う(?:よ|って|でしょ|。|、|$)|そうじゃない|間違って(?:いる|る|います)|言ったのに|って言った",
        r"元に戻して|勝手に|じゃなくて|(?:なんで|なぜ)[^。？?\n]{0,20}(?:消した|削除した|変えた|壊した)",
    ]),
    ("[\uac00-\ud7af]", [  # Korean
        r"틀렸|잘못\s*(?:했|됐|되었|이해)|그게\s+아니|말했잖아|아니(?:요|야)?\s*[,.!]\s*\S",
        r"되돌려|왜\s*[^.?!\n]{0,20}(?:삭제했|지웠|바꿨|망가뜨)|말고[^.!?\n]{0,30}(?:써|사용해)",
    ]),
]
_SCRIPTS = [(lazy(script), [lazy(p, re.IGNORECASE) for p in phrases]) for script, phrases in _SCRIPT_PHRASES]

#: a standing rule: always / never / from now on with an instruction
_STANDING_RULE = lazy(
    # Spanish
    r"\b(?:siempre|nunca)\s+(?:usa|uses|utiliza|utilices|escribe|escribas|haz|hagas|pon|pongas|agrega|añade"
    r"|crea|borres|elimines|responde|respondas|contesta|contestes|trabaja)\b"
    r"|\ba\s+partir\s+de\s+ahora\b|\bde\s+ahora\s+en\s+adelante\b"
    # Portuguese
    r"|\b(?:sempre|nunca)\s+(?:use|usa|utilize|escreva|faça|coloque|adicione|crie|apague|delete|responda|trabalhe)\b"
    r"|\ba\s+partir\s+de\s+agora\b|\bdaqui\s+(?:pra|para)\s+frente\b"
    # French
    r"|\btoujours\s+(?:utiliser|écrire|répondre)\b|\b(?:utilise|écris|réponds|mets|fais)\s+toujours\b"
    rf"|\bn{_A}?(?:utilise|écris|ajoute|mets|fais|crée|supprime|modifie)\s+jamais\b"
    r"|\bà\s+partir\s+de\s+maintenant\b|\bdésormais\b"
    # German
    r"|\b(?:immer|niemals|nie)\s+(?:verwenden|benutzen|schreiben|nutzen|antworten)\b"
    r"|\b(?:verwende|benutze|nutze|schreib|schreibe|antworte)\s+(?:bitte\s+)?(?:immer|niemals|nie)\b"
    r"|\bvon\s+nun\s+an\b|\bab\s+(?:jetzt|sofort)\s+(?:immer|nie|bitte)\b"
    # "use X by default" (es, pt, fr, de)
    r"|\b(?:usar|use|usa|utilize|utiliza|utilizar)\b[^.!?\n]{0,40}?\bpor\s+(?:padr[ãa]o|defecto)\b"
    r"|\b(?:utilise|utiliser)\b[^.!?\n]{0,40}?\bpar\s+défaut\b"
    r"|\b(?:verwende|benutze|nutze)\b[^.!?\n]{0,40}?\bstandardmäßig\b"
    # Russian
    r"|(?:используй|использовать)\s+[^.!?\n]{0,40}?по\s+умолчанию|всегда\s+(?:используй|использовал|пиши|писал|отвечай|отвечал|работай|работал|делай|делал)\b"
    r"|никогда\s+не\s+(?:используй|удаляй|пиши|делай|трогай|меняй|коммить|пушь)|с\s+этого\s+момента|впредь|отныне"
    # Japanese
    r"|今後は|これからは|(?:常に|必ず|いつも)[^。、\n]{0,20}(?:使って|書いて|答えて|返答して)"
    r"|絶対に[^。\n]{0,20}(?:しないで|使わないで|消さないで)"
    # Korean
    r"|앞으로는|항상\s*[^.\n]{0,20}(?:사용해|써|작성해|답해)|절대\s*[^.\n]{0,20}(?:하지\s*마|쓰지\s*마|삭제하지)",
    re.IGNORECASE,
)


def foreign_correction(text: str) -> str | None:
    """The correction phrase a non-English message (quotes removed; the caller checks) opens or states, or None."""
    head = text.strip()[:2000]
    patterns = _CORRECTIONS if head.isascii() else \
        _CORRECTIONS + [p for script, group in _SCRIPTS if script.search(head) for p in group]
    match = next(filter(None, (pattern.search(head) for pattern in patterns)), None)
    return match.group(0).strip() if match else None


#: a word every standing-rule phrase holds: the regex runs only on a text with one (per message, fast)
_STANDING_WORDS = (
    "siempre", "nunca", "partir de", "en adelante", "sempre", "daqui", "toujours", "jamais", "sormais",
    "immer", "nie", "nun an", "ab jetzt", "ab sofort", "всегда", "никогда", "этого момента", "впредь",
    "отныне", "por padr", "por defecto", "par défaut", "standardmäßig", "по умолчанию", "今後は", "これからは", "常に", "必ず", "いつも", "絶対に", "앞으로는", "항상", "절대",
)


def foreign_standing_rule(text: str) -> str | None:
    """The "always / never / from now on" phrase of a non-English standing rule, or None."""
    head = text[:2000]
    low = head.lower()
    if not any(word in low for word in _STANDING_WORDS):
        return None
    match = _STANDING_RULE.search(head)
    return match.group(0).strip() if match else None
