"""Corrections and standing rules in German, French, Spanish, Portuguese, Russian, Japanese and
Korean (tacit.detect.foreign): an unambiguous phrase decides, ordinary requests in the same
language stay plain, and English messages are not read by these phrases. Made-up examples."""

from __future__ import annotations

import pytest

from tacit.detect.analysis import analyse
from tacit.detect.foreign import foreign_correction, foreign_standing_rule

PREV = "I installed the dependencies with npm and deleted the old test file."

CORRECTIONS = {
    "de": ["nein, nimm pnpm", "Das ist falsch, die Datei liegt unter src", "ich habe doch gesagt: keine Kommentare",
           "Warum hast du die Tests gelöscht?", "Wähle \"/start\" stattdessen als Namen",
           "du hast die falsche Datei bearbeitet, es ist die falschen Datei"],
    "fr": ["non, utilise pnpm", "ce n'est pas ce que j'ai demandé", "Cela n\u2019est pas du tout adapté au design",
           "je t'ai déjà dit de ne pas toucher au README", "pourquoi tu as supprimé le test ?",
           "utilise yarn au lieu de npm"],
    "es": ["no, usa pnpm", "te dije que no tocaras el README", "eso está mal, el puerto es 3000",
           "¿por qué borraste el test?", "usa pnpm en lugar de npm", "no, así no", "no es lo que te pedí"],
    "pt": ["não, use pnpm", "eu disse para não mexer no README", "isso está errado, a porta é 3000",
           "por que você apagou o teste?", "use pnpm em vez de npm", "não foi isso que eu pedi"],
    "ru": ["нет, используй pnpm", "я же просил не трогать README", "это не то, что нужно",
           "зачем ты удалил тест?", "используй pnpm вместо npm", "ты сломал сборку"],
    "ja": ["違います、pnpmを使って", "勝手にファイルを消さないで", "npmじゃなくてpnpmを使って",
           "なんでテストを削除したの？", "元に戻して"],
    "ko": ["틀렸어요, pnpm을 써요", "말했잖아, README는 건드리지 마", "왜 테스트를 삭제했어?",
           "npm 말고 pnpm을 써", "되돌려 줘"],
}

PLAIN = {
    "de": ["Kannst du bitte die Tests ausführen?", "Füge eine neue Seite für das Dashboard hinzu"],
    "fr": ["Ajoute une page de connexion", "Analyse le projet et continue la tâche suivante"],
    "es": ["Agrega un botón para exportar a CSV", "¿Puedes explicar cómo funciona el caché?"],
    "pt": ["Adicione uma página de login", "Como funciona o cache do projeto?"],
    "ru": ["Добавь страницу входа", "Как работает кэш в этом проекте?"],
    "ja": ["ログインページを追加してください", "キャッシュの仕組みを説明して"],
    "ko": ["로그인 페이지를 추가해 줘", "캐시가 어떻게 동작하는지 설명해 줘"],
}

STANDING_RULES = {
    "de": ["Nutze pnpm standardmäßig", "Verwende immer pnpm für dieses Projekt", "von nun an keine Emojis in Commits"],
    "fr": ["Utilise pnpm par défaut", "N'utilise jamais var dans le code", "désormais, réponds en français"],
    "es": ["usa pnpm por defecto", "siempre usa pnpm en este proyecto", "a partir de ahora responde en español"],
    "pt": ["Usar pnpm por padrão nos apps", "nunca use var no código", "a partir de agora responda em português"],
    "ru": ["используй pnpm по умолчанию", "всегда пиши тесты на pytest", "никогда не удаляй миграции"],
    "ja": ["今後は日本語で答えてください", "絶対にmainへ直接pushしないで"],
    "ko": ["앞으로는 한국어로 답해 줘", "절대 main 브랜치를 삭제하지 마"],
}


@pytest.mark.parametrize("lang,text", [(lang, t) for lang, ts in CORRECTIONS.items() for t in ts])
def test_a_correction_phrase_decides(lang, text):
    verdict = analyse(text, PREV).correction
    assert verdict.is_correction, (lang, text, verdict.reason)
    assert verdict.rule == "foreign-phrase" and verdict.matched
    assert analyse(text).is_correction  # no agent reply needed
    assert analyse(text, PREV).highlight


@pytest.mark.parametrize("lang,text", [(lang, t) for lang, ts in PLAIN.items() for t in ts])
def test_an_ordinary_request_is_not_a_correction(lang, text):
    assert foreign_correction(text) is None and foreign_standing_rule(text) is None, (lang, text)
    assert not analyse(text, PREV).is_correction


@pytest.mark.parametrize("lang,text", [(lang, t) for lang, ts in STANDING_RULES.items() for t in ts])
def test_a_standing_rule_is_a_durable_preference(lang, text):
    assert foreign_standing_rule(text), (lang, text)
    result = analyse(text)
    assert result.category != "none" and result.durable_score >= 0.6 and result.highlight


@pytest.mark.parametrize("text", [
    "use the USA date format please", "The API is served at /nie/v2 today", "call it from ab jetzt.py",
    "I never use var", "this button does nothing, why?",
])
def test_english_is_not_read_by_the_foreign_phrases(text):
    assert foreign_correction(text) is None and foreign_standing_rule(text) is None


def test_quoted_foreign_text_does_not_trigger():
    text = "translate this:\n```\ndas ist falsch\n```"
    assert analyse(text).correction.rule != "foreign-phrase"
