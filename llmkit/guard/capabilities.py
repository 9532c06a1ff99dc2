"""Capabilities questions ("what can you do?", "are you a bot?"): the whole (short) message
must be the question. Hand-written patterns first; when they are silent, the learned
capability model of level 1 (`llmkit.level1_model`) reads short questions with no figures."""

from __future__ import annotations

import re

from llmkit.guard import chinese, english, french, german, russian, spanish, ukrainian
from llmkit.guard.blocks import _PREFIX, _gate
from llmkit.guard.normalise import normalise

_TOKEN = re.compile(r"[^\W\d_]+")  # the engine's words, whose prefixes the gates read

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
# "bot" and "ai" after an article or "or" are what the question asks about ("are you a
# bot?", "human or ai?"), not a way of addressing the assistant ("what can you do, bot?").
_NAMED = re.compile(r"(?:\b(?:a|an|the|or|real|you|u)\s+)$")


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
            if (
                core.endswith(word)
                and (len(core) == len(word) or not core[-len(word) - 1].isalnum())
                and not _NAMED.search(core, 0, len(core) - len(word))
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


# Every capabilities pattern addresses the assistant, asks for help or about "this" chat; a
# message without one of these words (first five letters) skips the patterns.
_CAPABILITY_GATE = _gate(
    "you u yourself your ur i help start menu deine tes tus ты вы тебя вас себе себя кто "
    "зачем помощь ти ви тебе хто навіщо нащо допомога du sie dich dir kannst konnen bist "
    "sind wofur tu vous toi "
    "es etes sers servez qui peux pouvez sais savez eres usted puedes puede sabes sirves "
    "sirve haces dedicas hablame quien sos podes "
    "how this what where who is am are we как это что с тут здесь для чем як це що з для "
    "чим"
)
# The learned model (llmkit.level1_model's capability model) is asked only about a short
# question (two words or more, up to _LEARNED_MAX characters: the questions we collected
# are under 50, and a longer message tends to say something about the project first) with
# no figures in it: a message with a number carries a fact (a budget, a date) that a
# capabilities reply would leave unread.
_LEARNED_MAX = 64
# ... and only about one sentence that speaks to the assistant or asks: "мы умеем делать
# сыр" speaks about the client, and "Are you a bot? Get me a real person." asks for a
# person (level 1's intent), which a capabilities reply would not answer.
_LEARNED_ADDRESS = _gate(
    "you u your yours yourself this here bot chat assistant help what how who where why which "
    "ты вы тебя тебе тобой твой твоя твое твои вас вам вами ваш ваша ваше ваши это тут здесь "
    "бот чат помощь помочь помогаешь что как кто где зачем почему чем чего какой какая какие "
    "ти ви тебе тобі тобою твій твоя твоє твої вас вам вами ваш ваша ваше ваші це тут бот "
    "чат допомога допомогти допомагаєш що як хто де навіщо чому чим чого який яка які"
)
_SENTENCE_BREAK = re.compile(r"[.!?;]\s+\w")
_LEARNED_WORDS = re.compile(r"[^\W\d_]+")
_DIGIT = re.compile(r"\d")
_HAN = re.compile(r"[\u3400-\u9fff]")


def _learned_may_ask(text: str, core: str, prefixes: set[str]) -> bool:
    return (
        len(core) <= _LEARNED_MAX
        and not _LEARNED_ADDRESS.isdisjoint(prefixes)
        and not _SENTENCE_BREAK.search(core)
        and len(_LEARNED_WORDS.findall(core)) >= 2
        and not _DIGIT.search(text)
        and not _HAN.search(text)
    )


def _core(text: str) -> str:
    """The question itself: the normalised message less a leading greeting and trailing
    punctuation, emoji and filler words."""
    start = 0
    while start < len(text) and not (text[start].isalnum() or text[start] == "/"):
        start += 1
    return _strip_trailer(_GREETING.sub("", text[start:], count=1))


def learned_model_reads(message: str) -> bool:
    """Whether level 0 would ask the learned model about this (raw) message: what the model
    is trained and its threshold chosen on (llmkit.level1_train)."""
    text = normalise(message)
    if len(text) > _CAPABILITY_MAX * 2:
        return False
    prefixes = {word[:_PREFIX] for word in _TOKEN.findall(text)}
    return _learned_may_ask(text, _core(text), prefixes)


def _capability_rule(text: str, prefixes: set[str]) -> str | None:
    if len(text) > _CAPABILITY_MAX * 2:
        return None
    core = _core(text)
    if not core or len(core) > _CAPABILITY_MAX:
        return None
    if not _CAPABILITY_GATE.isdisjoint(prefixes) or "你" in text:
        for name, pattern in _CAPABILITY_RULES:
            if pattern.fullmatch(core):
                return name
    if _learned_may_ask(text, core, prefixes):
        from llmkit.level1_model import is_capability_question  # loads its weights once

        if is_capability_question(text):
            return "learned:capabilities"
    return None
