"""Capabilities questions ("what can you do?"): the whole (short) message must be the question."""

from __future__ import annotations

import re

from llmkit.guard import chinese, english, french, german, russian, spanish, ukrainian
from llmkit.guard.blocks import _gate

_CAPABILITY_MAX = 100

_GREETING = re.compile(
    r"^(?:(?:hi|hello|hey|ok|okay|so|and|but|well|please|ai|bot|assistant|there|then"
    r"|привет|здравствуй|здравствуйте|добрый\s+(?:день|вечер)|доброе\s+утро|ок|окей|а|и|так"
    r"|слушай|слушайте|скажи|скажите|подскажи|подскажите|ну|привіт|вітаю|добрий\s+день"
    r"|скажіть|підкажи|підкажіть|слухай|hallo|guten\s+tag|sag\s+mal|bonjour|salut|dis\s+moi"
    r"|dites\s+moi|hola|buenos\s+dias|buenas|oye|dime)(?:\s*[,!.:;\-]\s*|\s+|$)"
    r"|(?:你好|您好|请问|那么|那)[\s,!.:;，。！]*)+"
)
# Words and particles that trail a question without changing it ("what can you do, please").
_TRAILING_WORDS = (
    "please",
    "then",
    "exactly",
    "again",
    "anyway",
    "ai",
    "bot",
    "пожалуйста",
    "вообще",
    "конкретно",
    "будь ласка",
    "взагалі",
    "bitte",
    "eigentlich",
    "s'il te plait",
    "s'il vous plait",
    "por favor",
)
_TRAILING_PARTICLES = "呢吗啊呀嘛"


def _strip_trailer(core: str) -> str:
    """Drop trailing punctuation, emoji and filler words, which many can follow each other.

    A loop over the last characters instead of one regex with `+$`: the regex would be
    tried at every position of the message."""
    while True:
        end = len(core)
        while end and not core[end - 1].isalnum():
            end -= 1
        core = core[:end]
        if core and core[-1] in _TRAILING_PARTICLES:
            core = core[:-1]
            continue
        for word in _TRAILING_WORDS:
            if core.endswith(word) and (
                len(core) == len(word) or not core[-len(word) - 1].isalnum()
            ):
                core = core[: -len(word)]
                break
        else:
            return core


_CAPABILITY_PATTERNS: dict[str, str] = {
    "en": english.CAPABILITIES,
    "ru": russian.CAPABILITIES,
    "uk": ukrainian.CAPABILITIES,
    "de": german.CAPABILITIES,
    "fr": french.CAPABILITIES,
    "es": spanish.CAPABILITIES,
    "zh": chinese.CAPABILITIES,
}
_CAPABILITY_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (f"{lang}:capabilities", re.compile(pattern)) for lang, pattern in _CAPABILITY_PATTERNS.items()
)


# Every capabilities pattern addresses the assistant or asks for help; a message without
# one of these words (first five letters) is not one, and skips the patterns.
_CAPABILITY_GATE = _gate(
    "you u yourself your ur i help start menu deine tes tus ты вы тебя вас себе себя кто "
    "зачем помощь ти ви тебе хто навіщо нащо допомога du sie dich dir kannst konnen bist "
    "sind wofur tu vous toi "
    "es etes sers servez qui peux pouvez sais savez eres usted puedes puede sabes sirves "
    "sirve haces dedicas hablame quien sos podes"
)


def _capability_rule(text: str, prefixes: set[str]) -> str | None:
    if len(text) > _CAPABILITY_MAX * 2:
        return None
    if _CAPABILITY_GATE.isdisjoint(prefixes) and "你" not in text:
        return None
    start = 0
    while start < len(text) and not (text[start].isalnum() or text[start] == "/"):
        start += 1
    core = _strip_trailer(_GREETING.sub("", text[start:], count=1))
    if not core or len(core) > _CAPABILITY_MAX:
        return None
    for name, pattern in _CAPABILITY_RULES:
        if pattern.fullmatch(core):
            return name
    return None
