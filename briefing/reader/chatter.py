"""What a client says that is no field value: confirmations, greetings, thanks and questions.
The dialogue manager never stores such a message, and the evaluation counts any field that
holds one as wrong."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W\d_]+(?:['’ʼ-][^\W\d_]+)*", re.UNICODE)

# Words that only agree, greet or thank: a message made of nothing else says nothing.
CONFIRMATION_WORDS = frozenset({
    "да", "ага", "угу", "верно", "правильно", "точно", "так", "именно", "конечно", "всё", "все",
    "есть", "и", "в", "порядке", "отлично", "хорошо", "супер", "ок", "окей", "okay", "ok",
    "вірно", "усе", "звісно", "авжеж", "саме", "добре", "чудово",
    "yes", "yep", "yeah", "yup", "sure", "correct", "right", "that's", "thats", "that", "is",
    "it's", "its", "all", "good", "looks", "fine", "exactly", "absolutely", "perfect", "great",
    "please", "so", "это", "то", "що", "це", "почти", "майже", "оно", "самое",
})  # fmt: skip
GREETING_WORDS = frozenset({
    "привет", "здравствуйте", "здраствуйте", "добрый", "день", "вечер", "утро", "доброе",
    "приветствую", "вітаю", "привіт", "добрий", "доброго", "дня", "вечір", "ранок", "ранку",
    "hi", "hello", "hey", "good", "morning", "afternoon", "evening", "there", "всем", "всім",
})  # fmt: skip
# Closing a conversation or approving what was written: "больше нечего добавить",
# "підтверджую, чекаємо", "that's all, go ahead", "Ja, passt".
CLOSING_WORDS = frozenset({
    "подтверждаю", "подтверждаем", "подтверждено", "підтверджую", "підтверджуємо",
    "підтверджено", "confirm", "confirmed", "confirming", "approve", "approved", "agreed",
    "больше", "нечего", "ничего", "добавить", "більше", "нічого", "додати", "nothing", "else",
    "to", "add", "записали", "записано", "записал", "записала", "записав", "все",
    "ждём", "ждем", "чекаємо", "чекаю", "жду", "поехали", "погнали", "вперед", "вперёд",
    "go", "ahead", "let's", "lets", "passt", "ja", "та", "да-да", "так-так", "all", "set",
    "done", "готово", "норм", "нормально", "пойдёт", "пойдет", "піде", "ок-ок",
})  # fmt: skip
THANKS_WORDS = frozenset({
    "спасибо", "спс", "благодарю", "дякую", "thanks", "thank", "you", "cheers", "большое",
    "дуже", "much", "a", "lot", "вам", "вас", "million", "ton", "heaps",
})  # fmt: skip
_AGREEING = frozenset({"подтверждаю", "подтверждаем", "підтверджую", "підтверджуємо",
                       "confirm", "confirmed", "approve", "approved", "agreed", "passt", "ja",
                       "та", "нечего", "нічого", "nothing", "готово", "норм", "done",
                       "да", "так", "yes", "yep", "yeah", "yup", "верно", "вірно", "correct",
                       "right", "правильно", "ок", "ok", "okay", "sure", "ага", "угу", "good",
                       "fine", "exactly", "perfect", "отлично", "добре", "хорошо"})  # fmt: skip
MAX_CHATTER_WORDS = 8


def words_of(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("ё", "е").replace("’", "'"))


def is_confirmation(text: str) -> bool:
    """ "Да, всё верно.", "Так, усе правильно", "Yes, that's right", "Looks good, thanks",
    "Подтверждаю, больше нечего добавить", "👍"."""
    words = words_of(text)
    if not words:  # "👍", "✅": agreement without a word
        return bool(text.strip()) and not re.search(r"[\w?]", text)
    if len(words) > MAX_CHATTER_WORDS or "?" in text:
        return False
    vocabulary = CONFIRMATION_WORDS | THANKS_WORDS | CLOSING_WORDS
    return all(w in vocabulary for w in words) and any(w in _AGREEING for w in words)


# A short message that closes the conversation in words beyond the vocabulary above: "Да, всё
# верно, согласен", "Больше ничего не добавлю, ждём звонка", "Yes, that's everything".
_CLOSING = re.compile(
    r"(?:всё|все|усе)\s+(?:верно|вірно|правильно|так|ок|отлично)(?=\s*(?:[.,!;)👍]|$))|"
    r"(?:^|[\s,])(?:верно|вірно|правильно)(?=\s*(?:[.,!;)👍]|$))|"
    r"соглас|подтвержд|підтвердж|(?:больше|более)\s+ничего|нечего\s+добав|"
    r"ничего\s+не\s+добав|нічого\s+(?:не\s+)?додат|більше\s+нічого|"
    r"that'?s\s+(?:all|everything|it)\b|nothing\s+(?:else|to\s+add|more)|"
    r"\bconfirm|\bagreed\b|sounds\s+(?:good|great|right)|looks\s+(?:good|great|right)|"
    r"all\s+(?:good|correct|set)\b",
    re.IGNORECASE,
)
MAX_CLOSING_WORDS = 10


def is_closing(text: str) -> bool:
    """A short message, with no number and no question, that agrees or says the client has
    nothing more to add."""
    words = words_of(text)
    if not words or len(words) > MAX_CLOSING_WORDS or "?" in text or re.search(r"\d", text):
        return False
    return bool(_CLOSING.search(text.replace("’", "'")))


def is_greeting(text: str) -> bool:
    """ "Добрый день!", "Привіт", "Hi there", "Hello, thanks"."""
    words = words_of(text)
    if not words or len(words) > MAX_CHATTER_WORDS:
        return False
    return all(w in GREETING_WORDS or w in THANKS_WORDS for w in words)


# Sounds that only fill a pause: "хм", "ну", "эээ", "hmm", "um".
FILLER_WORDS = frozenset({
    "хм", "хмм", "хммм", "гм", "ну", "эм", "эмм", "э", "ээ", "эээ", "мм", "ммм", "ага", "угу",
    "ой", "ох", "ах", "еее", "ех", "hmm", "hm", "hmmm", "um", "umm", "uh", "er", "erm", "ah",
    "oh", "mm", "mmm", "well", "так-так",
})  # fmt: skip


def is_filler(text: str) -> bool:
    """ "Хм", "ну...", "Hmm, um": nothing said."""
    words = words_of(text)
    return bool(words) and len(words) <= MAX_CHATTER_WORDS and all(w in FILLER_WORDS for w in words)


def is_question(text: str) -> bool:
    """A message (or value) that asks rather than answers: it ends with a question mark."""
    return text.rstrip().rstrip(")»\"'").endswith("?")


def is_chatter(value: object) -> bool:
    """A stored value that is a confirmation, a greeting, a question or a filler (never a
    field value)."""
    if isinstance(value, list):
        return any(is_chatter(item) for item in value)
    if not isinstance(value, str) or not value.strip():
        return False
    return is_confirmation(value) or is_greeting(value) or is_question(value) or is_filler(value)


# Fields that hold a name or a kind: a longer text there is a whole message, not a value.
NAME_WORDS_MAX = {"clientName": 6, "company": 8, "productName": 8, "projectType": 12}


def not_a_value(name: str, value: object) -> bool:
    """Whether `value` must not be stored as field `name`, whoever proposes it (the reader,
    the rules agent, a model): a confirmation, closing, greeting or question, or a whole
    message where a name belongs."""
    if is_chatter(value):
        return True
    limit = NAME_WORDS_MAX.get(name)
    return limit is not None and isinstance(value, str) and len(words_of(value)) > limit


# A client putting a field off: "бюджет назову после встречи", "поки не знаю", "no hard
# deadline", "TBD". Only read in the reply to a question about that field.
_DECLINING = re.compile(
    r"после\s+встреч|позже|позднее|пока\s+не\s+(?:знаю|скажу|готов)|не\s+знаю|не\s+скажу|"
    r"затрудняюсь|обсудим|(?:назвать|сказать)\s+не\s+могу|не\s+могу\s+(?:назвать|сказать)|"
    r"(?:назвати|сказати)\s+не\s+можу|не\s+можу\s+(?:назвати|сказати)|"
    r"can['’]?t\s+(?:say|name|tell)|не\s+определил|не\s+решил|нет\s+(?:жёстк|жестк|конкретн|точн)|"
    r"після\s+зустріч|пізніше|поки\s+не\s+(?:знаю|скажу|готов)|не\s+знаю|обговоримо|"
    r"не\s+визначил|не\s+вирішил|немає\s+(?:жорстк|конкретн|точн)|"
    r"\blater\b|not\s+sure(?:\s+yet)?|don'?t\s+know|\btbd\b|no\s+(?:hard|fixed|firm|set)\s+|"
    r"rather\s+not|to\s+be\s+(?:decided|confirmed)|after\s+(?:the|our)\s+(?:call|meeting)",
    re.IGNORECASE,
)


def declines(text: str) -> bool:
    """Whether a reply puts the question off rather than answering it."""
    return bool(_DECLINING.search(text.replace("’", "'")))
