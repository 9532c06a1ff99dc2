"""Deadlines in free Russian, Ukrainian and English text, resolved to a calendar date.

Kinds:
- "relative": an offset from today ("через 2 недели", "in 3 weeks", "за 10 рабочих дней",
  "завтра", "к пятнице"). Business days skip Saturdays and Sundays (no holiday calendar).
- "absolute": a calendar date ("к 15 марта", "by March 15", "15.03.2027", "2027-03-15",
  "до 15.03", "к марту" → the 1st of that month). A date without a year that is already
  past this year resolves to next year. Numeric dates are day-first; "03/15/2027" is read
  month-first only because 15 cannot be a month.
- "period_end": the last day of a period ("до конца квартала", "end of the month",
  "до кінця місяця", "к концу года", "на следующей неделе", "в марте"). Weeks end on
  Sunday; "next week" means the end of next week, the latest date it still allows.

A range ("через 2-3 недели") resolves to its far end. Overlapping matches keep the longest.

A date or period right after a "from" word ("с/со понедельника", "з наступного місяця",
"починаючи з березня", "від 15 березня", "from next week", "since May 1", "starting next
month") is when something starts, not a deadline, and is not reported; "к понедельнику",
"до наступного місяця", "by next week" are. A range "с 1 по 15 марта" keeps its end
("по 15 марта").
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from llmkit.extract._common import FindingMixin, fold, word_alternation
from llmkit.extract.calendar_dates import (
    absolute_date,
    add_months,
    month_end,
    next_yearly,
    shifted,
    year_of,
)
from llmkit.extract.tokens import NUMBER_WORDS, ONE_AND_HALF

DeadlineKind = Literal["relative", "absolute", "period_end"]


@dataclass(frozen=True, slots=True)
class Deadline(FindingMixin):
    value: datetime.date  # the resolved deadline
    text: str
    start: int
    end: int
    kind: DeadlineKind

    @property
    def date(self) -> datetime.date:
        """The resolved deadline (same as `value`)."""
        return self.value

    def as_dict(self) -> dict[str, object]:
        result = FindingMixin.as_dict(self)
        result["date"] = result["value"]
        return result


# --- vocabulary --------------------------------------------------------------------------

_MONTH_FORMS = {
    1: "января январь январе январю янв січня січень січні january jan",
    2: "февраля февраль феврале февралю фев февр лютого лютий лютому february feb",
    3: "марта март марте марту мар березня березень березні march mar",
    4: "апреля апрель апреле апрелю апр квітня квітень квітні april apr",
    5: "мая май мае маю травня травень травні may",
    6: "июня июнь июне июню июн червня червень червні june jun",
    7: "июля июль июле июлю июл липня липень липні july jul",
    8: "августа август августе августу авг серпня серпень серпні august aug",
    9: "сентября сентябрь сентябре сентябрю сен сент вересня вересень вересні september sep sept",
    10: "октября октябрь октябре октябрю окт жовтня жовтень жовтні october oct",
    11: "ноября ноябрь ноябре ноябрю ноя нояб листопада листопад листопаді november nov",
    12: "декабря декабрь декабре декабрю дек грудня грудень грудні december dec",
}
MONTHS = {form: month for month, forms in _MONTH_FORMS.items() for form in forms.split()}
_EN_MONTHS = {form: month for form, month in MONTHS.items() if form.isascii()}
_MONTH = word_alternation(MONTHS)
_EN_MONTH = word_alternation(_EN_MONTHS)

_UNIT_FORMS = {
    "day": "день дня дней дн сутки суток днів дні доба доби діб day days",
    "week": "неделя неделю недели недель нед тиждень тижні тижнів тижня week weeks wk wks",
    "month": "месяц месяца месяцев мес місяць місяці місяців місяця month months",
    "year": "год года лет рік роки років року year years",
}
_UNITS = {form: unit for unit, forms in _UNIT_FORMS.items() for form in forms.split()}
# Forms that mean "one" on their own ("через неделю", "within a day" has its "a"); plurals
# without a number ("within days") are no deadline.
_SINGULAR_UNITS = frozenset(
    {
        "день",
        "дня",
        "сутки",
        "суток",
        "неделя",
        "неделю",
        "недели",
        "месяц",
        "месяца",
        "год",
        "года",
        "тиждень",
        "тижня",
        "місяць",
        "місяця",
        "рік",
        "року",
        "доба",
        "доби",
        "day",
        "week",
        "month",
        "year",
    }
)
_HALF_UNITS = {
    "полгода": ("month", 6),
    "полугода": ("month", 6),
    "пол года": ("month", 6),
    "півроку": ("month", 6),
    "пів року": ("month", 6),
    "half a year": ("month", 6),
    "полмесяца": ("day", 15),
    "пол месяца": ("day", 15),
    "півмісяця": ("day", 15),
    "пів місяця": ("day", 15),
    "half a month": ("day", 15),
}
_SMALL_NUMBERS = {word: value for word, (value, _cls) in NUMBER_WORDS.items() if value < 100} | {
    "a": 1,
    "an": 1,
    "пару": 2,
    "пара": 2,
    "пары": 2,
    "пари": 2,
    "couple": 2,
}
_NUMBER_WORD = word_alternation(set(_SMALL_NUMBERS) | ONE_AND_HALF)
_NUMBER = rf"(?:\d{{1,3}}(?:[.,]5)?|(?:a\s+)?couple(?:\s+of)?|{_NUMBER_WORD})"

_WEEKDAY_FORMS = {
    0: "понедельник понедельника понедельнику понеділок понеділка понеділку monday",
    1: "вторник вторника вторнику вівторок вівторка вівторку tuesday",
    2: "среда среду среды среде середа середу середи середі wednesday",
    3: "четверг четверга четвергу четвер четверга thursday",
    4: "пятница пятницу пятницы пятнице п'ятниця п'ятницю п'ятниці friday",
    5: "суббота субботу субботы субботе субота суботу суботи суботі saturday",
    6: "воскресенье воскресенья воскресенью неділя неділю неділі sunday",
}
_WEEKDAYS = {form: day for day, forms in _WEEKDAY_FORMS.items() for form in forms.split()}

_PERIOD_FORMS = {
    "week": "недели неделе неделю тижня тижні тиждень week",
    "month": "месяца месяце місяця місяці місяць month",
    "quarter": "квартала квартале кварталу кварталі квартал quarter",
    "half": "полугодия полугодии півріччя півріччі half",
    "year": "года году року році рік year",
}
_PERIODS = {form: period for period, forms in _PERIOD_FORMS.items() for form in forms.split()}

_B = r"(?<![\w'’ʼ])"  # word start
_E = r"(?![\w'’ʼ])"  # word end
_S = r"[ \t\u00a0\u202f\u2009]+"  # horizontal space

# --- patterns ----------------------------------------------------------------------------

_RELATIVE_INTRO = (
    r"через|за|в\s+течени[ея]|на\s+протяжении|в\s+пределах|в\s+ближайшие|в\s+ближайший|"
    r"в\s+ближайшую|протягом|упродовж|впродовж|в\s+межах|у\s+межах|найближчі|"
    r"within|in|after|over\s+the\s+next|in\s+the\s+next|within\s+the\s+next"
)
_APPROX = (
    r"примерно|около|приблизительно|где-то|максимум|не\s+более\s+чем|приблизно|близько|десь|"
    r"максимум|about|around|approximately|roughly|at\s+most|the\s+next|ближайшие|найближчі"
)
_BUSINESS = r"рабочих|рабочие|рабочий|раб\.|робочих|робочі|робочий|business|working|work"
_CALENDAR = r"календарных|календарные|календарний|календарних|календарні|calendar"
_RELATIVE = re.compile(
    rf"{_B}(?P<intro>{_RELATIVE_INTRO}){_S}(?:(?:{_APPROX}){_S})?"
    rf"(?:(?P<half>{word_alternation(_HALF_UNITS)})"
    rf"|(?:(?P<n1>{_NUMBER})(?:{_S}(?P<n2>{_NUMBER}))?"
    rf"(?:\s*(?:-|–|—|или|або|or|to)\s*(?P<n3>{_NUMBER}))?{_S})?"
    rf"(?:(?P<business>{_BUSINESS})|{_CALENDAR})?\s*(?P<unit>{word_alternation(_UNITS)}))"
    rf"{_E}(?!\.?{_S}(?:до|назад|тому|ago|before)\b)",
    re.IGNORECASE,
)

_PREP = (
    r"к|ко|до|по|не\s+позднее|не\s+позже|не\s+пізніше|к\s+самому|by|until|till|before|"
    r"no\s+later\s+than|on|due|deadline"
)
_DAY_SUFFIX = r"(?:-?(?:го|ого|му|е|st|nd|rd|th))?"
_YEAR_TAIL = rf"(?:,?{_S}(?P<y>\d{{4}})(?:{_S}?(?:г\.|года|году|г|р\.|року|р)(?![\w'’ʼ]))?)?"
_DAY_MONTH = re.compile(
    rf"{_B}(?:(?P<prep>{_PREP}){_S})?(?P<d>[0-3]?\d){_DAY_SUFFIX}{_S}(?:of{_S})?"
    rf"(?P<m>{_MONTH})\.?{_YEAR_TAIL}{_E}",
    re.IGNORECASE,
)
_MONTH_DAY = re.compile(
    rf"{_B}(?:(?P<prep>{_PREP}){_S})?(?P<m>{_EN_MONTH})\.?{_S}(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
    rf"(?!\d)(?:,?{_S}(?P<y>\d{{4}}))?{_E}",
    re.IGNORECASE,
)
_ISO = re.compile(r"(?<![\d.\-/])(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?!\d)")
_NUMERIC = re.compile(
    rf"{_B}(?:(?P<prep>{_PREP}){_S})?(?<![\d.\-/])(?P<a>\d{{1,2}})(?P<sep>[./])(?P<b>\d{{1,2}})"
    r"(?P=sep)(?P<y>\d{4}|\d{2})(?![\d]|[.,/]\d)",
    re.IGNORECASE,
)
# Without a year "15.03" is also a decimal: only after a deadline preposition, and never
# before a magnitude or currency ("до 15.03 млн").
_NUMERIC_NO_YEAR = re.compile(
    rf"{_B}(?P<prep>{_PREP}){_S}(?P<d>\d{{1,2}})\.(?P<m>\d{{2}})(?![\d]|[.,/]\d)"
    r"(?!\s*(?:млн|млрд|тыс|тис|k|m|руб|р\b|грн|\$|€|₽|₴|%))",
    re.IGNORECASE,
)
_MONTH_ONLY = re.compile(
    rf"{_B}(?P<prep>к|ко|до|by|until|till|before|в|во|у|in|during){_S}(?P<m>{_MONTH}){_E}"
    rf"(?!\.?{_S}\d)",
    re.IGNORECASE,
)
_END_WORDS = (
    r"(?:(?:до|к|в|на|под|у|під|ближе\s+к|by|before|until|till|at|in|to|towards?|around|"
    r"no\s+later\s+than)\s+)?(?:самого\s+|самому\s+|the\s+)?"
    r"(?:конца|концу|конце|конец|исходу|исходе|кінця|кінці|кінець|end\s+of)"
    r"|наприкінці"
)
_PERIOD_MODIFIER = (
    r"этого|этой|текущего|текущей|следующего|следующей|будущего|будущей|цього|цієї|"
    r"поточного|поточної|наступного|наступної|this|current|next|the\s+next|the\s+current"
)
_PERIOD_END = re.compile(
    rf"{_B}(?:{_END_WORDS}){_S}(?:the{_S})?(?:(?P<mod>{_PERIOD_MODIFIER}){_S})?"
    rf"(?:(?P<period>{word_alternation(_PERIODS)})|(?P<m>{_MONTH})\.?|(?:q|кв\.?\s*)(?P<q>[1-4]))"
    rf"(?:,?{_S}(?P<y>\d{{4}}))?{_E}",
    re.IGNORECASE,
)
_EOX = re.compile(r"(?<![\w])(?P<x>EOD|EOW|EOM|EOQ|EOY)(?!\w)")
_THIS_NEXT = re.compile(
    rf"{_B}(?:"
    r"(?:на|в|во|у)\s+(?P<ru_mod>этой|текущей|следующей|будущей|этом|текущем|следующем|"
    r"будущем|цьому|поточному|наступному|цій|наступній)\s+"
    r"(?P<ru_period>неделе|месяце|квартале|полугодии|году|тижні|місяці|кварталі|півріччі|році)"
    r"|(?P<uk_mod>цього|наступного|поточного)\s+(?P<uk_period>тижня|місяця|кварталу|року)"
    r"|(?:(?:by|during|within|in)\s+)?(?P<en_mod>this|next)\s+(?P<en_period>week|month|quarter|year)"
    rf"){_E}",
    re.IGNORECASE,
)
_DAY_WORDS = {
    "послезавтра": 2,
    "післязавтра": 2,
    "the day after tomorrow": 2,
    "day after tomorrow": 2,
    "завтрашнего дня": 1,
    "завтрашнему дню": 1,
    "завтра": 1,
    "tomorrow": 1,
    "сегодняшнего дня": 0,
    "сегодня": 0,
    "сьогодні": 0,
    "today": 0,
    "tonight": 0,
}
_DAY_WORD = re.compile(
    rf"{_B}(?:(?:к|до|на|by|until|till|for){_S})?(?P<w>{word_alternation(_DAY_WORDS)}){_E}",
    re.IGNORECASE,
)
_WEEKDAY = re.compile(
    rf"{_B}(?P<prep>к|ко|до|в|во|у|by|until|till|before|on|next|this|this\s+coming)"
    rf"(?:{_S}(?:следующ\w+|ближайш\w+|наступн\w+|найближч\w+))?"
    rf"{_S}(?P<wd>{word_alternation(_WEEKDAYS)}){_E}",
    re.IGNORECASE,
)


# --- resolvers: match → (date, kind) or None -----------------------------------------------

Resolved = tuple[datetime.date, DeadlineKind] | None


def _number(word: str | None) -> float | None:
    if word is None:
        return None
    folded = fold(word)
    if "couple" in folded:
        return 2.0
    if folded in ONE_AND_HALF:
        return 1.5
    if folded in _SMALL_NUMBERS:
        return float(_SMALL_NUMBERS[folded])
    try:
        return float(folded.replace(",", "."))
    except ValueError:
        return None


def _relative(m: re.Match[str], today: datetime.date) -> Resolved:
    if m.group("half"):
        unit, amount = _HALF_UNITS[re.sub(r"\s+", " ", fold(m.group("half")))]
        return shifted(today, amount, unit, False), "relative"
    unit_word = fold(m.group("unit"))
    unit = _UNITS[unit_word]
    first, second, last = (_number(m.group(g)) for g in ("n1", "n2", "n3"))
    if first is None and unit_word not in _SINGULAR_UNITS:
        return None
    amount = first if first is not None else 1.0
    if second is not None:
        # "двадцать пять дней": tens then units; anything else is not one number.
        if first is None or first < 20 or first % 10 or second >= 10:
            return None
        amount = first + second
    if last is not None:
        amount = max(amount, last)  # a range ends at its far end
    if amount <= 0 or amount > 1000:
        return None
    intro = fold(m.group("intro"))
    if intro == "in" and first is None:
        return None  # "in week 3", "in month" are not offsets
    return shifted(today, amount, unit, bool(m.group("business"))), "relative"


def _day_month(m: re.Match[str], today: datetime.date) -> Resolved:
    day = int(m.group("d"))
    month = MONTHS[fold(m.group("m"))]
    date = absolute_date(year_of(m.group("y")), month, day, today)
    return (date, "absolute") if date else None


def _iso(m: re.Match[str], today: datetime.date) -> Resolved:
    date = absolute_date(int(m.group("y")), int(m.group("m")), int(m.group("d")), today)
    return (date, "absolute") if date else None


def _numeric(m: re.Match[str], today: datetime.date) -> Resolved:
    first, second = int(m.group("a")), int(m.group("b"))
    day, month = first, second
    if month > 12 and day <= 12:
        day, month = month, day  # "03/15/2027" can only be month-first
    date = absolute_date(year_of(m.group("y")), month, day, today) if 1 <= month <= 12 else None
    return (date, "absolute") if date else None


def _numeric_no_year(m: re.Match[str], today: datetime.date) -> Resolved:
    day, month = int(m.group("d")), int(m.group("m"))
    if not 1 <= month <= 12:
        return None
    date = absolute_date(None, month, day, today)
    return (date, "absolute") if date else None


def _month_only(m: re.Match[str], today: datetime.date) -> Resolved:
    month = MONTHS[fold(m.group("m"))]
    prep = fold(m.group("prep"))
    if prep in ("в", "во", "у", "in", "during"):
        # "в марте": any day of March, so the deadline is its last day.
        year = today.year if month >= today.month else today.year + 1
        return month_end(year, month), "period_end"
    if fold(m.group("m")) == "may" and prep in ("by",) and m.group("m").islower():
        return None  # "by may" is more often a verb than the month
    date = next_yearly(month, 1, today)
    return (date, "absolute") if date else None


def _period_end(
    period: str, modifier: str, today: datetime.date, year: int | None = None
) -> datetime.date:
    ahead = 1 if modifier.startswith(("след", "будущ", "наступн", "next", "the next")) else 0
    if period == "week":
        return today + datetime.timedelta(days=6 - today.weekday() + 7 * ahead)
    if period == "month":
        start = add_months(today.replace(day=1), ahead)
        return month_end(start.year, start.month)
    if period == "quarter":
        quarter = (today.month - 1) // 3 + ahead
        year_, index = divmod(quarter, 4)
        return month_end(today.year + year_, index * 3 + 3)
    if period == "half":
        half = (today.month - 1) // 6 + ahead
        year_, index = divmod(half, 2)
        return month_end(today.year + year_, index * 6 + 6)
    return datetime.date((year or today.year) + ahead, 12, 31)


def _period_end_match(m: re.Match[str], today: datetime.date) -> Resolved:
    modifier = fold(m.group("mod") or "")
    year = int(m.group("y")) if m.group("y") else None
    if m.group("m"):
        month = MONTHS[fold(m.group("m"))]
        if year is None:
            year = today.year if month >= today.month else today.year + 1
        return month_end(year, month), "period_end"
    if m.group("q"):
        quarter = int(m.group("q"))
        if year is None:
            year = today.year if quarter * 3 >= today.month else today.year + 1
        return month_end(year, quarter * 3), "period_end"
    period = _PERIODS[fold(m.group("period"))]
    if year is not None and period != "year":
        return None
    return _period_end(period, modifier, today, year), "period_end"


def _eox(m: re.Match[str], today: datetime.date) -> Resolved:
    code = m.group("x")
    if code == "EOD":
        return today, "relative"
    period = {"EOW": "week", "EOM": "month", "EOQ": "quarter", "EOY": "year"}[code]
    return _period_end(period, "", today), "period_end"


def _this_next(m: re.Match[str], today: datetime.date) -> Resolved:
    modifier = m.group("ru_mod") or m.group("uk_mod") or m.group("en_mod") or ""
    word = m.group("ru_period") or m.group("uk_period") or m.group("en_period") or ""
    folded = fold(word)
    period = next(
        (p for prefix, p in _THIS_NEXT_PERIODS if folded.startswith(prefix)),
        "week",
    )
    return _period_end(period, fold(modifier), today), "period_end"


_THIS_NEXT_PERIODS = (
    ("нед", "week"),
    ("тиж", "week"),
    ("week", "week"),
    ("мес", "month"),
    ("міс", "month"),
    ("month", "month"),
    ("квартал", "quarter"),
    ("quarter", "quarter"),
    ("полугод", "half"),
    ("півріч", "half"),
    ("год", "year"),
    ("рок", "year"),
    ("роц", "year"),
    ("year", "year"),
)


def _day_word(m: re.Match[str], today: datetime.date) -> Resolved:
    offset = _DAY_WORDS[re.sub(r"\s+", " ", fold(m.group("w")))]
    return today + datetime.timedelta(days=offset), "relative"


def _weekday(m: re.Match[str], today: datetime.date) -> Resolved:
    weekday = _WEEKDAYS[fold(m.group("wd"))]
    ahead = (weekday - today.weekday()) % 7 or 7  # the next one, never today
    return today + datetime.timedelta(days=ahead), "relative"


_RULES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str], datetime.date], Resolved]], ...] = (
    (_RELATIVE, _relative),
    (_DAY_MONTH, _day_month),
    (_MONTH_DAY, _day_month),
    (_ISO, _iso),
    (_NUMERIC, _numeric),
    (_NUMERIC_NO_YEAR, _numeric_no_year),
    (_MONTH_ONLY, _month_only),
    (_PERIOD_END, _period_end_match),
    (_EOX, _eox),
    (_THIS_NEXT, _this_next),
    (_DAY_WORD, _day_word),
    (_WEEKDAY, _weekday),
)


# A "from" word right before a match makes it a start ("з наступного місяця назва буде…"),
# not a deadline. "начиная с", "починаючи з", "starting from" end in one of these too.
_START_WORD = re.compile(
    r"(?<![\w'’ʼ])(?:с|со|з|зі|із|від|от|from|since|starting|beginning)"
    r"[ \t\u00a0\u202f\u2009]+$",
    re.IGNORECASE,
)
_START_WINDOW = 16  # enough for the longest start word and its spaces
# A match that opens with its own preposition ("до конца месяца", "к пятнице", "в марте",
# "by next week", "через 2 недели") is that, whatever precedes it: in "ролик 30 с до
# конца месяца" the "с" is seconds. Only a bare date or period follows a "from" word.
_OWN_LEAD = frozenset({
    "к", "ко", "до", "по", "под", "на", "в", "во", "у", "не", "ближе", "через", "за",
    "протягом", "упродовж", "впродовж", "найближчі", "наприкінці", "by", "until", "till",
    "before", "on", "due", "deadline", "in", "during", "within", "at", "to", "toward",
    "towards", "around", "no", "after", "over",
})  # fmt: skip
_FIRST_WORD = re.compile(r"[^\W\d_]+")


def _is_start(text: str, match: re.Match[str]) -> bool:
    """Whether `match` is a bare date or period right after a "from" word."""
    first = _FIRST_WORD.match(match.group(0))
    if first is not None and fold(first.group(0)) in _OWN_LEAD:
        return False
    start = match.start()
    return _START_WORD.search(text, max(0, start - _START_WINDOW), start) is not None


# Words whose dot belongs to them ("15 дек.", "2027 г."); any other final dot is a full stop.
_ABBREVIATIONS = {"г", "р"} | {
    form for form in MONTHS if len(form) <= 4 and form not in ("май", "may", "мая", "june", "july")
}
_LAST_WORD = re.compile(r"[^\W\d_]+$")


def _last_word(text: str) -> str:
    match = _LAST_WORD.search(text)
    return fold(match.group(0)) if match else ""


def find_deadlines(text: str, *, today: datetime.date) -> list[Deadline]:
    """Deadlines in `text`, in order, each resolved against `today`."""
    if not isinstance(text, str) or not text:
        return []
    candidates: list[Deadline] = []
    for pattern, resolve in _RULES:
        for match in pattern.finditer(text):
            try:
                resolved = resolve(match, today)
            except (ValueError, OverflowError, KeyError):
                resolved = None  # a date beyond the calendar, or an unknown spelling
            if resolved is None or _is_start(text, match):
                continue
            date, kind = resolved
            start, end = match.span()
            if text[end - 1] == "." and _last_word(text[start : end - 1]) not in _ABBREVIATIONS:
                end -= 1  # a full stop, not an abbreviation's dot
            candidates.append(Deadline(date, text[start:end], start, end, kind))
    # Longest first, then earliest: "до конца следующего месяца" beats "следующего месяца".
    candidates.sort(key=lambda d: (-(d.end - d.start), d.start))
    taken: list[Deadline] = []
    occupied = bytearray(len(text))  # linear overlap checks, even for thousands of matches
    for candidate in candidates:
        if occupied.find(1, candidate.start, candidate.end) == -1:
            occupied[candidate.start : candidate.end] = b"\x01" * (candidate.end - candidate.start)
            taken.append(candidate)
    return sorted(taken, key=lambda d: d.start)


__all__ = ["Deadline", "DeadlineKind", "find_deadlines"]
