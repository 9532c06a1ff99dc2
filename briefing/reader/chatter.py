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
THANKS_WORDS = frozenset({
    "спасибо", "спс", "благодарю", "дякую", "thanks", "thank", "you", "cheers", "большое",
    "дуже", "much", "a", "lot", "вам", "вас",
})  # fmt: skip
_AGREEING = frozenset({"да", "так", "yes", "yep", "yeah", "yup", "верно", "вірно", "correct",
                       "right", "правильно", "ок", "ok", "okay", "sure", "ага", "угу", "good",
                       "fine", "exactly", "perfect", "отлично", "добре", "хорошо"})  # fmt: skip
MAX_CHATTER_WORDS = 8


def words_of(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("ё", "е").replace("’", "'"))


def is_confirmation(text: str) -> bool:
    """ "Да, всё верно.", "Так, усе правильно", "Yes, that's right", "Looks good, thanks"."""
    words = words_of(text)
    if not words or len(words) > MAX_CHATTER_WORDS or "?" in text:
        return False
    vocabulary = CONFIRMATION_WORDS | THANKS_WORDS
    return all(w in vocabulary for w in words) and any(w in _AGREEING for w in words)


def is_greeting(text: str) -> bool:
    """ "Добрый день!", "Привіт", "Hi there", "Hello, thanks"."""
    words = words_of(text)
    if not words or len(words) > MAX_CHATTER_WORDS:
        return False
    return all(w in GREETING_WORDS or w in THANKS_WORDS for w in words)


def is_question(text: str) -> bool:
    """A message (or value) that asks rather than answers: it ends with a question mark."""
    return text.rstrip().rstrip(")»\"'").endswith("?")


def is_chatter(value: object) -> bool:
    """A stored value that is a confirmation, a greeting or a question (never a field value)."""
    if isinstance(value, list):
        return any(is_chatter(item) for item in value)
    if not isinstance(value, str) or not value.strip():
        return False
    return is_confirmation(value) or is_greeting(value) or is_question(value)
