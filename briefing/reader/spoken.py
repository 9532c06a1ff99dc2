"""Numbers and e-mail addresses said in words, written as digits and addresses before a
message is read: a voice message's transcript dictates phones ("восемь девять два семь …
сорок один ноль пять"), budgets ("двести восемьдесят тысяч") and dates ("к двадцать
tретьему апреля", "the twenty-third of
May") the way people speak them. Cardinals go through number-parser (Russian, Ukrainian,
English); day ordinals before a month name through a small table of ordinal stems, which
number-parser does not read in Russian or Ukrainian.

Only runs of two or more number words are rewritten (and a day ordinal before a month): a
lone "one", "одна" or "раз" in ordinary prose stays a word."""

from __future__ import annotations

import functools
import re

from number_parser import parse

_LANGUAGES = {"ru": "ru", "uk": "uk", "en": "en"}
_WORD = re.compile(r"[A-Za-zА-Яа-яЁёІіЇїЄєҐґ']+")
# The spoken zero of an English phone number ("oh eight seven …"), only inside a run.
_EN_ZERO = frozenset({"oh", "o"})

# Day ordinals (1–31) by stem, Russian and Ukrainian, in any case ending.
_UNIT_ORDINALS = {
    "перв": 1, "втор": 2, "трет": 3, "четвёрт": 4, "четверт": 4, "пят": 5, "шест": 6,
    "седьм": 7, "восьм": 8, "девят": 9, "десят": 10, "одиннадцат": 11, "двенадцат": 12,
    "тринадцат": 13, "четырнадцат": 14, "пятнадцат": 15, "шестнадцат": 16,
    "семнадцат": 17, "восемнадцат": 18, "девятнадцат": 19, "двадцат": 20, "тридцат": 30,
    "перш": 1, "друг": 2, "п'ят": 5, "шост": 6, "сьом": 7, "дев'ят": 9,
    "одинадцят": 11, "дванадцят": 12, "тринадцят": 13, "чотирнадцят": 14,
    "п'ятнадцят": 15, "шістнадцят": 16, "сімнадцят": 17, "вісімнадцят": 18,
    "дев'ятнадцят": 19, "двадцят": 20, "тридцят": 30,
}  # fmt: skip
_TENS = {"двадцать": 20, "тридцать": 30, "двадцять": 20, "тридцять": 30}
_ORDINAL_ENDING = r"(?:ого|ому|ое|ый|ий|ій|ом|ой|ье|ьего|ьему|ья|ей|ем|ього|ьому|є|е)"
_ORDINAL = re.compile(
    r"\b(?:(?P<tens>" + "|".join(_TENS) + r")\s+)?"
    r"(?P<stem>"
    + "|".join(sorted(_UNIT_ORDINALS, key=len, reverse=True))
    + r")"
    + _ORDINAL_ENDING
    + r"\s+(?P<month>[а-яёіїєґ]+)",
    re.IGNORECASE,
)


# A day said alone as an ordinal where a day is put right ("не двадцятого а до двадцять
# восьмого бо …", "не десятого, а пятого"): after "не", "а", "до", "к", before a pause or a
# conjunction, never before a noun ("до первого звонка").
_ORDINAL_DAY_ALONE = re.compile(
    r"\b(?P<cue>не|а|до|к|ко|по)\s+(?:(?P<tens>" + "|".join(_TENS) + r")\s+)?"
    r"(?P<stem>"
    + "|".join(sorted(_UNIT_ORDINALS, key=len, reverse=True))
    + r")(?:ого|ього|го)(?=\s*(?:[,.;!?—–-]|$|\s(?:а|но|але|бо|потому|тому|ні|нет|не)\b))",
    re.IGNORECASE,
)
_EN_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}  # fmt: skip
_EN_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december)"
)
_EN_ORDINAL_WORD = r"(?:(?P<tens>twenty|thirty)[\s-])?(?P<ordinal>" + "|".join(_EN_ORDINALS) + r")"
# "the sixth of february", "sixth february", "february the sixth", "march twenty-first"
_EN_ORDINAL_DATE = re.compile(
    rf"\b(?:the\s+)?{_EN_ORDINAL_WORD}(?:\s+of)?\s+(?P<month>{_EN_MONTHS})\b"
    rf"|\b(?P<month2>{_EN_MONTHS})\s+(?:the\s+)?"
    r"(?:(?P<tens2>twenty|thirty)[\s-])?(?P<ordinal2>" + "|".join(_EN_ORDINALS) + r")\b",
    re.IGNORECASE,
)


# A day said alone as an ordinal where a day is put right ("sorry no the seventeenth", "no
# wait, the twenty first"), as the Russian one above: after "the", before a pause or a
# conjunction, never before a noun ("the first video", "the second week").
_EN_ORDINAL_DAY_ALONE = re.compile(
    rf"\bthe\s+{_EN_ORDINAL_WORD}\b(?=\s*(?:[,.;!?—–-]|$|\s(?:and|but|because|since|as|so|not|"
    r"sorry|the|instead|then|please|ok|okay)\b|\s\d))",
    re.IGNORECASE,
)


def _en_ordinal_value(ordinal: str, tens: str | None) -> int:
    value = _EN_ORDINALS[ordinal.lower()] + (20 if tens and tens.lower() == "twenty" else 0)
    return value + (30 if tens and tens.lower() == "thirty" else 0)


def _en_ordinal_dates(text: str) -> str:
    def date(m: re.Match[str]) -> str:
        ordinal, tens = (m["ordinal"], m["tens"]) if m["ordinal"] else (m["ordinal2"], m["tens2"])
        value = _en_ordinal_value(ordinal, tens)
        if value > 31:
            return m[0]
        return f"{value} {m['month'] or m['month2']}"

    def day_alone(m: re.Match[str]) -> str:
        value = _en_ordinal_value(m["ordinal"], m["tens"])
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(value % 10 if value // 10 != 1 else 0, "th")
        return f"the {value}{suffix}" if value <= 31 else m[0]

    return _EN_ORDINAL_DAY_ALONE.sub(day_alone, _EN_ORDINAL_DATE.sub(date, text))


def _spelled(text: str, language: str) -> str:
    # number-parser spells Ukrainian with the modifier apostrophe ("пʼятдесят"); clients type
    # the ASCII or the typographic one.
    return text.replace("'", "ʼ").replace("’", "ʼ") if language == "uk" else text


def _parse(text: str, language: str) -> str:
    return parse(_spelled(text, language), language=language)


@functools.lru_cache(maxsize=4096)
def _is_number_word(word: str, language: str) -> bool:
    lowered = word.lower()
    if language == "en" and lowered in ("a", "an", "and"):
        return False
    return _parse(lowered, language) != _spelled(lowered, language)


def _ordinal_days(text: str, month_of) -> str:
    def day(m: re.Match[str]) -> str:
        if month_of(m["month"]) is None:
            return m[0]
        value = _UNIT_ORDINALS[m["stem"].lower()] + (_TENS[m["tens"].lower()] if m["tens"] else 0)
        if value > 31:
            return m[0]
        return f"{value} {m['month']}"

    def day_alone(m: re.Match[str]) -> str:
        value = _UNIT_ORDINALS[m["stem"].lower()] + (_TENS[m["tens"].lower()] if m["tens"] else 0)
        return f"{m['cue']} {value}-го" if value <= 31 else m[0]

    return _ORDINAL_DAY_ALONE.sub(day_alone, _ORDINAL.sub(day, text))


def _runs(text: str, language: str) -> list[tuple[int, int]]:
    """Spans of two or more number words separated by spaces; in English also by a hyphen
    ("twenty-third"), "and" ("two hundred and fifty") and a comma after a thousand or a
    million ("twelve thousand, five hundred"). "два-три" is a range, not a number."""
    words = list(_WORD.finditer(text))
    spans: list[tuple[int, int]] = []
    run: list[re.Match[str]] = []

    def close() -> None:
        while run and run[-1][0].lower() == "and":
            run.pop()
        if len(run) >= 2 and any(w[0].lower() not in _EN_ZERO for w in run):
            spans.append((run[0].start(), run[-1].end()))
        run.clear()

    def joined(word: re.Match[str]) -> bool:
        gap = text[run[-1].end() : word.start()]
        if language != "en":
            return bool(re.fullmatch(r"[ \t]+", gap))
        after_magnitude = _is_magnitude(run[-1][0], language)
        return bool(re.fullmatch(r"[ \t-]+" + ("|,[ \t]*" if after_magnitude else ""), gap))

    for index, word in enumerate(words):
        lowered = word[0].lower()
        following = words[index + 1][0] if index + 1 < len(words) else ""
        if run and not joined(word):
            close()
        number = _is_number_word(word[0], language)
        if language == "en" and not number:
            # "oh eight seven": a spoken zero inside a run; "hundred and fifty": a joiner
            inner = bool(run) or _is_number_word(following, language)
            number = (lowered in _EN_ZERO and inner) or (
                lowered == "and" and bool(run) and _is_number_word(following, language)
            )
        if number:
            run.append(word)
        else:
            close()
    close()
    return spans


def _is_magnitude(word: str, language: str) -> bool:
    return _parse(word.lower(), language) in ("1000", "1000000", "1000000000")


def _digits_as_typed(spoken: str, language: str) -> str:
    """A run as people type it: a round amount keeps its magnitude word ("двести восемьдесят
    тысяч" -> "280 тысяч", "twelve thousand" -> "12 thousand"), any other single number is
    grouped by thousands ("сто сорок тысяч восемьсот девяносто два" -> "140 892"), and digits
    dictated one group at a time stay apart ("восемь девятьсот пятнадцать" -> "8 915")."""
    words = spoken.split()
    zeros = [i for i, word in enumerate(words) if _parse(word, language) == "0"]
    if zeros:
        # a zero is always a digit of its own ("сто ноль ноль" is 1, 0, 0, never 100 0)
        pieces, start = [], 0
        for i in [*zeros, len(words)]:
            if words[start:i]:
                pieces.append(_digits_as_typed(" ".join(words[start:i]), language))
            if i < len(words):
                pieces.append("0")
            start = i + 1
        return " ".join(pieces)
    millions = [i for i, word in enumerate(words) if _parse(word, language) == "1000000"]
    if millions and len(words) - millions[-1] - 1 == 1:
        tail = _parse(words[-1], language)
        if tail.isdigit() and int(tail) % 100 == 0:
            # "миллион двести" is 1.2 million as people say it, not 1 000 200: the amount
            # reader reads it so; left as words
            return spoken
    if (
        len(words) > 1
        and _is_magnitude(words[-1], language)
        and not any(_is_magnitude(word, language) for word in words[:-1])
    ):  # ("один миллион пятьсот тысяч" is written whole: 1 500 000)
        head = _parse(" ".join(words[:-1]), language)
        if head.isdigit():
            return f"{head} {words[-1]}"
    written = _parse(spoken, language)
    return f"{int(written):,}".replace(",", " ") if written.isdigit() else written


# A digit said twice or thrice, as British, Irish and Indian callers dictate numbers
# ("zero double one two", "triple five").
_REPEATED_DIGIT = re.compile(
    r"\b(?P<times>double|triple)\s+(?P<digit>zero|oh|o|one|two|three|four|five|six|seven|"
    r"eight|nine)\b",
    re.IGNORECASE,
)
# "plus nine one …", "плюс семь …": the plus of an international number, said.
_SPOKEN_PLUS = re.compile(r"\b(?:plus|плюс)\s+(?=\d)", re.IGNORECASE)


def _repeated_digits(text: str) -> str:
    def repeated(m: re.Match[str]) -> str:
        return " ".join([m["digit"]] * (2 if m["times"].lower() == "double" else 3))

    return _REPEATED_DIGIT.sub(repeated, text)


def spoken_numbers_written(text: str, *, language: str, month_of) -> str:
    """`text` with its spoken numbers as digits; `month_of(word)` names a month's number."""
    language = _LANGUAGES.get(language, "ru")
    text = spoken_emails_written(text)
    if language == "en":
        text = _repeated_digits(text)
    ru_uk = language in ("ru", "uk")
    text = _ordinal_days(text, month_of) if ru_uk else _en_ordinal_dates(text)
    spans = _runs(text, language)
    if not spans:
        return _SPOKEN_PLUS.sub("+", text)
    parts: list[str] = []
    last = 0
    for start, end in spans:
        spoken = text[start:end]
        if language == "en":
            spoken = re.sub(r"\b(?:oh|o)\b", "zero", spoken.replace(",", " "), flags=re.I)
        parts += [text[last:start], _digits_as_typed(spoken, language)]
        last = end
    parts.append(text[last:])
    return _SPOKEN_PLUS.sub("+", "".join(parts))


# An e-mail address dictated: "aoife at ivorylanebridal dot ie", "ivan собака mail точка ru".
_SPOKEN_EMAIL = re.compile(
    r"\b(?P<user>[a-z0-9][a-z0-9._-]*)\s+(?:at|собака|собачка|равлик)\s+"
    r"(?P<host>[a-z0-9][a-z0-9-]*(?:\s+(?:dot|точка|крапка)\s+[a-z0-9-]+)*)"
    r"\s+(?:dot|точка|крапка)\s+(?P<tld>[a-z]{2,12})\b",
    re.IGNORECASE,
)


def spoken_emails_written(text: str) -> str:
    """`text` with its dictated e-mail addresses written as addresses."""

    def address(m: re.Match[str]) -> str:
        host = re.sub(r"\s+(?:dot|точка|крапка)\s+", ".", m["host"], flags=re.IGNORECASE)
        return f"{m['user']}@{host}.{m['tld']}".lower()

    return _SPOKEN_EMAIL.sub(address, text)
