"""Deadlines among the other dates of a message (holdout11's first run kept a date the
client took back with "wait, no", an opening day before "крайний срок", a holiday season after
"не позже", and read nothing in "первый квартал" or "навесні"): a day put right after a
"no" said back to oneself, a date named as the limit over an event's date, and a deadline
without a day kept in the client's words. Properties over frames x values x languages, not
the set's sentences."""

from __future__ import annotations

import datetime
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from briefing.reader import message_read
from briefing.turn.reading import RESTATED_CONFIDENCE

TODAY = datetime.date(2026, 12, 3)  # a Thursday; a date without a year is the next one


def deadline(text, language, asked=()):
    found = message_read(text, language=language, today=TODAY, asked=asked).get("deadline")
    return found


def deadline_value(text, language, asked=()):
    found = deadline(text, language, asked)
    return found.value if found else None


MONTHS = {
    "ru": ["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа",
           "сентября", "октября", "ноября"],
    "uk": ["січня", "лютого", "березня", "квітня", "травня", "червня", "липня", "серпня",
           "вересня", "жовтня", "листопада"],
    "en": ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November"],
}  # fmt: skip
_EN_UNITS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"]
_EN_TEENS = ["tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
             "sixteenth", "seventeenth", "eighteenth", "nineteenth"]  # fmt: skip


def en_ordinal_words(day: int) -> str:
    if day < 10:
        return _EN_UNITS[day - 1]
    if day < 20:
        return _EN_TEENS[day - 10]
    return "twentieth" if day == 20 else f"twenty {_EN_UNITS[day - 21]}"


def en_ordinal(day: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(day % 10 if day // 10 != 1 else 0, "th")
    return f"{day}{suffix}"


# A date, then the day alone put right after a "no" the client says back to themselves.
DAY_FIXES = {
    "ru": [
        "Сдать нужно к {d1} {month}. Ой, нет, к {d2}-му.",
        "Срок — {d1} {month}. Стоп, нет — {d2}-го.",
        "Ролик нужен до {d1} {month}, подождите, нет, до {d2}-го, у нас выставка.",
    ],
    "uk": [
        "Термін — до {d1} {month}. Ні, стоп, до {d2}-го.",
        "Здати треба {d1} {month}. Ой, ні, {d2}-го, бо ярмарок.",
        "Потрібно до {d1} {month}, зачекайте, ні — до {d2}-го.",
    ],
    "en": [
        "I'd need the finished video by {month} {d1}. Wait, no, make it the {d2_ord}.",
        "we need it by the {d1_words} of {month_lower} sorry no the {d2_words} because of the fair",
        "Deadline is {d1} {month}. No wait, the {d2_ord}.",
        "we need it by the {d1_words} of {month_lower} oops no the {d2_words} the {d2_words} of "
        "{month_lower}",
    ],
}


@settings(deadline=3000, max_examples=60, derandomize=True)  # ms per example
@given(
    language=st.sampled_from(["ru", "uk", "en"]),
    data=st.data(),
    month=st.integers(min_value=1, max_value=11),
    d1=st.integers(min_value=1, max_value=28),
    d2=st.integers(min_value=1, max_value=28),
)
def test_a_day_put_right_after_a_no_said_back_is_the_deadline(language, data, month, d1, d2):
    frame = data.draw(st.sampled_from(DAY_FIXES[language]))
    name = MONTHS[language][month - 1]
    text = frame.format(
        d1=d1, d2=d2, month=name, month_lower=name.lower(), d2_ord=en_ordinal(d2),
        d1_words=en_ordinal_words(d1), d2_words=en_ordinal_words(d2),
    )  # fmt: skip
    assert deadline_value(text, language) == datetime.date(2027, month, d2).isoformat(), text


def test_a_no_with_no_figure_after_it_corrects_nothing():
    reading = message_read("Sorry, no idea yet about the format.", language="en", today=TODAY)
    assert not reading.corrects


# An event's date (context), then the date named as the limit: the limit is the deadline.
EVENTS = {
    "ru": ["Открываемся {d} {month}", "Премьера {d} {month}", "Ярмарка {d} {month}"],
    "uk": ["Відкриваємось {d} {month}", "Прем'єра {d} {month}", "Ярмарок {d} {month}"],
    "en": ["We open on {month} {d}", "The premiere is on {month} {d}", "The fair is {month} {d}"],
}
LIMITS = {
    "ru": ["ролик нужен раньше — крайний срок {d} {month}", "срок сдачи — {d} {month}",
           "сдать нужно не позже {d} {month}", "дедлайн {d} {month}"],
    "uk": ["відео треба раніше — крайній термін {d} {month}", "дедлайн — {d} {month}",
           "здати не пізніше {d} {month}"],
    "en": ["the deadline is {month} {d}", "we need it no later than {month} {d}",
           "due date: {month} {d}"],
}  # fmt: skip


@settings(deadline=3000, max_examples=60, derandomize=True)  # ms per example
@given(
    language=st.sampled_from(["ru", "uk", "en"]),
    data=st.data(),
    month=st.integers(min_value=1, max_value=11),
    event_day=st.integers(min_value=15, max_value=28),
    limit_day=st.integers(min_value=1, max_value=14),
)
def test_the_date_named_as_the_limit_wins_over_an_events_date_before_it(
    language, data, month, event_day, limit_day
):
    event = data.draw(st.sampled_from(EVENTS[language]))
    limit = data.draw(st.sampled_from(LIMITS[language]))
    name = MONTHS[language][month - 1]
    text = f"{event.format(d=event_day, month=name)}, {limit.format(d=limit_day, month=name)}."
    assert deadline_value(text, language) == datetime.date(2027, month, limit_day).isoformat(), text


@pytest.mark.parametrize(
    ("text", "language", "wanted"),
    [
        # "не позже" is a limit, as "к"; the first limit of the sentence is the deadline
        ("Сдать нужно не позже 9 марта: к 23 марта все залы уже заняты.", "ru", "2027-03-09"),
        ("Здати не пізніше 9 березня: до 23 березня все заброньовано.", "uk", "2027-03-09"),
        ("Video no later than March 9: by March 23 every slot is booked.", "en", "2027-03-09"),
    ],
)
def test_a_limit_said_with_no_later_than_is_the_deadline(text, language, wanted):
    assert deadline_value(text, language) == wanted


@pytest.mark.parametrize(
    ("text", "language"),
    [("Ролик надо к майским.", "ru"), ("Відео треба до травневих.", "uk"),
     ("Здати до травневих свят.", "uk")],
)  # fmt: skip
def test_the_may_holidays_are_their_first_day_in_both_languages(text, language):
    assert deadline_value(text, language) == "2027-05-01"


# A deadline without a day, in the client's words: a season, a quarter, the holidays, the
# trade's season, or no date at all, said of the deadline or of when the work is needed.
VAGUE = {
    "ru": ["Дедлайн — {when}, жёсткой даты нет.", "Ролик нужен {when}.",
           "По срокам — {when}, точнее скажу позже.", "Хотелось бы успеть {when}."],
    "uk": ["Терміни — {when}, точної дати немає.", "Відео треба {when}.",
           "По часу десь {when}, не горить.", "Хочемо встигнути {when}."],
    "en": ["Deadline: {when}, no hard date.", "We need it {when}.",
           "Timing is {when}, nothing fixed.", "Ideally {when}."],
}  # fmt: skip
WHEN = {
    "ru": ["к весне", "весной", "первый квартал", "до лета", "к сезону", "после праздников",
           "в первом квартале", "ближе к осени"],
    "uk": ["навесні", "до весни", "перший квартал", "до літа", "до сезону", "після свят",
           "влітку", "восени"],
    "en": ["in spring", "before the summer", "in Q1", "in the first quarter", "by the season",
           "after the holidays", "by autumn", "over the winter"],
}  # fmt: skip
ISO = re.compile(r"\d{4}-\d{2}-\d{2}")


@settings(deadline=3000, max_examples=80, derandomize=True)  # ms per example
@given(language=st.sampled_from(["ru", "uk", "en"]), data=st.data())
def test_a_deadline_without_a_day_is_kept_in_the_clients_words(language, data):
    frame = data.draw(st.sampled_from(VAGUE[language]))
    when = data.draw(st.sampled_from(WHEN[language]))
    text = frame.format(when=when)
    found = deadline(text, language)
    assert found is not None, text
    assert not ISO.fullmatch(found.value), text
    assert when.lower() in found.value.lower(), text
    # a date said later (or before) is surer: a reading without a day never replaces it
    assert found.confidence < min(0.8, RESTATED_CONFIDENCE)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Снимать будем весной, когда растает снег.", "ru"),
        ("Нужен ролик для весенней коллекции.", "ru"),
        ("Нужно много планов весной.", "ru"),
        ("Зйомка влітку, на пляжі.", "uk"),
        ("We sell the most in summer and we need more bookings.", "en"),
        ("Can you shoot in winter?", "en"),
        ("Как можно скорее пришлите договор.", "ru"),
    ],
)
def test_a_period_said_of_something_else_is_no_deadline(text, language):
    assert deadline(text, language) is None


@pytest.mark.parametrize(
    ("text", "language", "wanted"),
    [
        ("Дедлайн — первый квартал, а точнее 20 марта.", "ru", "2027-03-20"),
        ("Відео треба навесні, до 20 березня.", "uk", "2027-03-20"),
        ("We need it in spring, by March 20th.", "en", "2027-03-20"),
    ],
)
def test_a_date_in_the_message_wins_over_its_period(text, language, wanted):
    assert deadline_value(text, language) == wanted


@pytest.mark.parametrize(
    ("text", "deadline"),
    [("15.01", "2027-01-15"), ("ну 20 марта", "2027-03-20"), ("к 5 февраля!", "2027-02-05")],
)
def test_a_message_that_is_only_a_date_is_the_deadline_whatever_was_asked(text, deadline):
    reading = message_read(text, language="ru", today=TODAY, asked=("format",))
    assert reading.get("deadline").value == deadline


@pytest.mark.parametrize("text", ["3.5", "31.02", "20 марта открываемся", "15.01 подходит?"])
def test_a_decimal_an_impossible_day_an_event_or_a_question_alone_is_no_deadline(text):
    reading = message_read(text, language="ru", today=TODAY, asked=("format",))
    assert reading.get("deadline") is None


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("срок — к Новому году, чтоб подарки поймать. лучше до 20 декабря", "ru", "2026-12-20"),
        ("к 8 марта, а лучше до 1 марта", "ru", "2027-03-01"),
        ("до Великодня, а краще до 20 березня", "uk", "2027-03-20"),
        ("by Easter, ideally by March 20", "en", "2027-03-20"),
        ("Дедлайн — конец марта, hard deadline 27.03, потом релиз.", "ru", "2027-03-27"),
        ("end of April, final deadline April 24", "en", "2027-04-24"),
    ],
)
def test_the_date_a_client_would_rather_have_is_the_deadline(text, language, expected):
    assert deadline_value(text, language) == expected


@pytest.mark.parametrize(
    ("text", "day_fix"),
    [
        ("Поправлюсь: не до 12-го, а до 4-го — седьмого июня открывается ярмарка.", (12, 4)),
        ("Ой, не до 20-го, а до 14-го, 18 марта у нас презентация.", (20, 14)),
        ("Correction: not the 20th but the 14th, the fair opens on 18 March.", (20, 14)),
    ],
)
def test_a_day_put_right_wins_over_an_events_date_after_it(text, day_fix):
    language = "en" if text.startswith("Correction") else "ru"
    reading = message_read(text, language=language, today=TODAY)
    assert reading.get("deadline") is None
    assert reading.day_fix == day_fix


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("хотели к Новому году, но понимаю, что не успеете, поэтому до 25 января", "ru",
         "2027-01-25"),
        ("хотіли до нового року але розумію що не встигнете тому до тридцятого січня", "uk",
         "2027-01-30"),
        ("we wanted it by Christmas but that's too soon, so by January 20", "en", "2027-01-20"),
        ("хотели к 1 марта, и это реально", "ru", "2027-03-01"),
    ],
)  # fmt: skip
def test_a_date_wished_for_and_given_up_is_no_deadline(text, language, expected):
    assert deadline_value(text, language) == expected


def test_an_age_range_after_a_word_ending_in_ne_puts_no_day_right():
    text = "Аудитория — горожане 25–40. Эфир стартует 1 марта, материалы нужны до 15 февраля."
    reading = message_read(text, language="ru", today=TODAY)
    assert (reading.get("deadline").value, reading.day_fix) == ("2027-02-15", None)


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("Відкриття 20 грудня, трейлер хочемо до 15-го.", "uk", "2026-12-15"),
        ("Открытие 20 февраля, ролик нужен к 10-му.", "ru", "2027-02-10"),
        ("The store opens on March 20, we need the film by the 12th.", "en", "2027-03-12"),
        ("Ролик нужен к 10 февраля, открытие 20-го.", "ru", "2027-02-10"),
    ],
)
def test_a_day_set_as_the_limit_takes_the_month_of_the_date_beside_it(text, language, expected):
    assert deadline_value(text, language) == expected
