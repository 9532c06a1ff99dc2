"""Deadlines in a client's message: llmkit's (absolute, relative and period-end dates in three
languages) first, then the forms it misses ("до середины марта", "by mid-February", "к
Новому году", "на початку квітня"), then dateparser for dates in words it can still read."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from dateutil.easter import EASTER_ORTHODOX, EASTER_WESTERN, easter

from core.input import date_problem
from llmkit.extract import find_deadlines
from llmkit.extract.numbers import parse_number

_MONTHS = {
    "январ": 1, "феврал": 2, "март": 3, "апрел": 4, "ма": 5, "июн": 6, "июл": 7, "август": 8,
    "сентябр": 9, "октябр": 10, "ноябр": 11, "декабр": 12,
    "січ": 1, "лют": 2, "берез": 3, "квіт": 4, "травн": 5, "черв": 6, "лип": 7, "серп": 8,
    "верес": 9, "жовт": 10, "листопад": 11, "груд": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH_WORD = r"([a-zа-яёіїєґ]+)"
_MIDDLE = re.compile(rf"(?:середин[аеыуіи]|mid-?|middle\s+of)\s*{_MONTH_WORD}", re.IGNORECASE)
_START = re.compile(rf"(?:начал[аеоу]|початку|початок|early|start\s+of|beginning\s+of)\s+"
                    rf"{_MONTH_WORD}", re.IGNORECASE)  # fmt: skip
# ... not the Chinese (lunar) one, whose date moves and which clients name with it
_NEW_YEAR = re.compile(r"(?<!chinese\s)(?<!lunar\s)(?:нов(?:ому|ого|ый|ий|оро)\s+год|"
                       r"нов(?:ого|ий)\s+рок|new\s+year)", re.IGNORECASE)  # fmt: skip
# "недель через восемь", "тижнів через шість": the number after "через".
_UNIT_DAYS = {"недел": 7, "тижн": 7, "тижд": 7, "месяц": 30, "місяц": 30, "дн": 1, "ден": 1}
_INVERTED_RELATIVE = re.compile(
    r"(?P<unit>недел\w*|тижн\w*|тиждень|месяц\w*|місяц\w*|дн(?:ей|я|ів)|дені?в?)\s+через\s+"
    r"(?P<number>\d{1,3}|[а-яёіїєґ'’]+)",
    re.IGNORECASE,
)
# Holidays clients set deadlines by, on the day they fall (the next one from today): fixed
# dates, and Easter by the calendar the language's churches keep.
_HOLIDAYS: tuple[tuple[re.Pattern[str], tuple[int, int] | str], ...] = (
    (
        re.compile(r"8\s+марта|8\s+березня|международн\w+\s+женск\w+\s+д|women['’]s\s+day", re.I),
        (3, 8),
    ),
    (
        re.compile(
            r"(?:дн\w+|день)\s+(?:всех\s+|всіх\s+)?(?:святого\s+|святих\s+|св\.\s*)?"
            r"валентин\w*|валентин\w*\s+д|valentine['’]?s?(?:\s+day)?",
            re.I,
        ),
        (2, 14),
    ),
    (re.compile(r"23\s+феврал\w*|дн\w+\s+защитник\w*", re.I), (2, 23)),
    (re.compile(r"(?:st\.?|saint)\s+patrick['’]?s?(?:\s+day)?|paddy['’]?s\s+day", re.I), (3, 17)),
    (re.compile(r"дн\w+\s+космонавтик\w*", re.I), (4, 12)),
    (
        # "к майским", "до травневих (свят)": the May holidays, from their first day
        re.compile(
            r"первома\w*|майск\w+(?!\s+(?:день|дня|дне|числ))|травнев\w+\s+свят|"
            r"травнев(?:і|их|им|ими)\b(?!\s+(?:день|дня|дні|числ))",
            re.I,
        ),
        (5, 1),
    ),
    (re.compile(r"canada\s+day", re.I), (7, 1)),
    (re.compile(r"burns\s+night", re.I), (1, 25)),
    (re.compile(r"australia\s+day", re.I), (1, 26)),
    (re.compile(r"дн\w+\s+незалежност\w*", re.I), (8, 24)),
    (re.compile(r"дн\w+\s+знаний|дн\w+\s+знань", re.I), (9, 1)),
    (re.compile(r"хэллоуин\w*|хелловін\w*|гелловін\w*|halloween", re.I), (10, 31)),
    (re.compile(r"christmas|xmas|різдв\w*|католическ\w+\s+рождеств\w*", re.I), (12, 25)),
    (re.compile(r"рождеств\w*", re.I), (1, 7)),
    (re.compile(r"пасх\w*|великдн\w*|великодн\w*|великдень", re.I), "orthodox_easter"),
    (re.compile(r"\beaster\b", re.I), "easter"),
)
# Worth handing to dateparser (slow): a month name or a relative word llmkit did not resolve.
_DATEISH = re.compile(
    r"январ|феврал|март|апрел|мая|июн|июл|август|сентябр|октябр|ноябр|декабр|січ|лют|берез|"
    r"квіт|травн|черв|лип|серп|верес|жовт|листопад|груд|january|february|march|april|may|june|"
    r"july|august|september|october|november|december|недел|тиж|week|месяц|місяц|month|"
    r"завтра|tomorrow|понедельник|пятниц|monday|friday|п'ятниц|понеділ",
    re.IGNORECASE,
)


# A deadline given without a day: a season ("навесні", "к весне", "by the summer"), a
# quarter ("первый квартал", "in Q2"), the holidays or the trade's season ("до сезону",
# "after the holidays"). A season's adjective ("весенняя коллекция") is none.
_VAGUE_PERIOD = (
    r"весн[аеуыи]|весні|літ[оау]|лет[оау]|осен[ьи]|осін[ьі]|зим[аеуыі]|"
    r"spring|summer|autumn|fall|winter|"
    r"квартал[аеуі]?|quarter|q[1-4]|сезон[аеуі]?|season|праздник\w*|свят(?:а|ам|ами)?|"
    r"holidays?"
)
_ORDINAL_QUARTER = (
    r"(?:перв|втор|трет|четв[её]рт|перш|друг|четверт)\w*\s+квартал\w*|"
    r"(?:first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter|q[1-4]"
)
VAGUE_WHEN = re.compile(
    r"(?<![\w])(?:(?:к|ко|до|на|в|во|у|после|після|ближе\s+к|ближче\s+до|by|before|in|"
    r"until|till|after|for|around|over|next|this|early|late|end\s+of|start\s+of)\s+"
    r"(?:(?:the|this|next|следующ\w+|наступн\w+|ближайш\w+|найближч\w+|цього|этого|этой|"
    r"этим|этот|цієї|новог?о|нового)\s+)?(?:" + _ORDINAL_QUARTER + "|" + _VAGUE_PERIOD + r")|"
    r"навесні|весной|весною|влітку|летом|восени|осенью|взимку|зимой|" + _ORDINAL_QUARTER + r")"
    r"(?![\w])",
    re.IGNORECASE,
)
# ... or none at all: "как можно скорее", "ASAP", "жёсткой даты нет", "no hard deadline"
# (a deadline only where the client names the deadline itself).
NO_FIXED_DATE = re.compile(
    r"как\s+можно\s+(?:скорее|быстрее|раньше)|якнайшвидше|якомога\s+(?:швидше|раніше)|"
    r"\basap\b|as\s+soon\s+as\s+possible|"
    r"(?:жёстк|жестк|жорстк|точн|конкретн|фиксированн|фіксован)\w*\s+(?:дат\w*|срок\w*|"
    r"дедлайн\w*|термін\w*)\s+(?:нет|немає|нема|не\s+скаж\w*|пока\s+нет)|"
    r"no\s+(?:hard|fixed|firm|set)\s+(?:date|deadline)",
    re.IGNORECASE,
)


_FIGURES = re.compile(r"(?<![\d,.])\d{1,2}[./]\d{1,2}(?:[./]\d{2,4})?(?![\d,])")


@dataclass(frozen=True)
class DateFinding:
    value: datetime.date
    start: int
    end: int
    text: str


def month_number(word: str) -> int | None:
    word = word.lower()
    for stem, number in sorted(_MONTHS.items(), key=lambda item: -len(item[0])):
        if word.startswith(stem) and (len(stem) > 2 or word in ("мая", "май", "мае")):
            return number
    return None


def _month_named(text: str) -> bool:
    return any(month_number(word) for word in re.findall(r"[a-zа-яёіїєґ]{3,}", text.lower()))


def _next(day: datetime.date, today: datetime.date) -> datetime.date:
    return day if day >= today else day.replace(year=day.year + 1)


def _holiday(when: tuple[int, int] | str, today: datetime.date) -> datetime.date:
    """The holiday's next day on or after `today`."""
    if isinstance(when, tuple):
        return _next(datetime.date(today.year, *when), today)
    method = EASTER_ORTHODOX if when == "orthodox_easter" else EASTER_WESTERN
    day = easter(today.year, method)
    return day if day >= today else easter(today.year + 1, method)


_DAY_MONTH_ALONE = re.compile(r"^\W*(\d{1,2})[./](\d{2})\W*$")


def deadlines_find(text: str, *, today: datetime.date, language: str) -> list[DateFinding]:
    found = [
        DateFinding(d.value, d.start, d.end, d.text) for d in find_deadlines(text, today=today)
    ]
    extra = []
    for pattern, day in ((_MIDDLE, 15), (_START, 1)):
        for match in pattern.finditer(text):
            month = month_number(match.group(1))
            if month:
                value = _next(datetime.date(today.year, month, day), today)
                extra.append(DateFinding(value, match.start(), match.end(), match.group(0)))
    for match in _NEW_YEAR.finditer(text):
        value = datetime.date(today.year, 12, 31)
        extra.append(DateFinding(value, match.start(), match.end(), match.group(0)))
    for match in _INVERTED_RELATIVE.finditer(text):
        number = parse_number(match.group("number"))
        unit = next((days for stem, days in _UNIT_DAYS.items()
                     if match.group("unit").lower().startswith(stem)), None)  # fmt: skip
        if number and unit and 0 < number <= 366:
            value = today + datetime.timedelta(days=round(number * unit))
            extra.append(DateFinding(value, match.start(), match.end(), match.group(0)))
    alone = _DAY_MONTH_ALONE.match(text)
    if alone and not found:
        try:  # "15.01" said alone is a day and a month, not a decimal
            value = _next(datetime.date(today.year, int(alone[2]), int(alone[1])), today)
        except ValueError:
            value = None
        if value is not None:
            extra.append(DateFinding(value, alone.start(1), alone.end(2), alone.group(0).strip()))
    for item in extra:
        # the longer, more precise reading wins where two overlap
        overlapping = [f for f in found if f.start < item.end and item.start < f.end]
        if all(f.end - f.start < item.end - item.start for f in overlapping):
            found = [f for f in found if f not in overlapping] + [item]
    if not found:
        # A holiday is the date only when no date is written ("before Valentine's, say by
        # 10 February" is the 10th).
        found = [
            DateFinding(_holiday(when, today), match.start(), match.end(), match.group(0))
            for pattern, when in _HOLIDAYS
            for match in pattern.finditer(text)
        ]
    if not found and _DATEISH.search(text):
        found = _dateparser_find(text, today=today, language=language)
    # "31 December 9999" is no deadline a person means (and the calendar would walk to it).
    return sorted((f for f in found if not date_problem(f.value)), key=lambda f: f.start)


def _dateparser_find(text: str, *, today: datetime.date, language: str) -> list[DateFinding]:
    from dateparser.search import search_dates

    settings = {
        "RELATIVE_BASE": datetime.datetime.combine(today, datetime.time()),
        "PREFER_DATES_FROM": "future",
        "DATE_ORDER": "DMY",
    }
    languages = [language] if language in ("ru", "uk", "en") else ["ru", "uk", "en"]
    try:
        hits = search_dates(text, languages=languages, settings=settings) or []
    except Exception:  # dateparser raises on odd input; a date is then simply not found
        return []
    result = []
    for phrase, moment in hits:
        start = text.find(phrase)
        # "a month" in "$4.99 a month" is no date: a month's name must be there, or a figure
        # with a relative word ("in 2 weeks") or a date written in figures ("15.03"); "50 a"
        # of "€4.50 a can", "25-40" of an age range or "a 30s" of a spot's length are none
        if (
            start < 0
            or phrase.strip().isdigit()
            or not (
                _month_named(phrase)
                or (
                    re.search(r"\d", phrase)
                    and (_DATEISH.search(phrase) or _FIGURES.search(phrase))
                )
            )
        ):
            continue
        if not re.search(r"\d", phrase):
            # a month alone ("с января", "в марте") names no day: dateparser writes today's
            # day into it, a date nobody said
            continue
        if moment.date() < today:
            continue
        result.append(DateFinding(moment.date(), start, start + len(phrase), phrase))
    return result
