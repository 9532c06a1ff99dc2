"""find_deadlines: relative, absolute and period-end deadlines resolved against `today`."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmkit.extract import Deadline, find_deadlines

TODAY = datetime.date(2026, 5, 20)  # a Wednesday
D = datetime.date


def _found(text: str, today: datetime.date = TODAY) -> list[tuple[datetime.date, str]]:
    return [(d.date, d.kind) for d in find_deadlines(text, today=today)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("нужно через 2 недели", (D(2026, 6, 3), "relative")),
        ("через месяц", (D(2026, 6, 20), "relative")),
        ("за 10 дней", (D(2026, 5, 30), "relative")),
        ("в течение недели", (D(2026, 5, 27), "relative")),
        ("через пару недель", (D(2026, 6, 3), "relative")),
        ("через три недели", (D(2026, 6, 10), "relative")),
        ("через 2-3 недели", (D(2026, 6, 10), "relative")),  # the far end
        ("за 5 рабочих дней", (D(2026, 5, 27), "relative")),
        ("через полгода", (D(2026, 11, 20), "relative")),
        ("завтра", (D(2026, 5, 21), "relative")),
        ("послезавтра", (D(2026, 5, 22), "relative")),
        ("к пятнице", (D(2026, 5, 22), "relative")),
        ("к 15 марта", (D(2027, 3, 15), "absolute")),  # already past this year
        ("до 1 апреля", (D(2027, 4, 1), "absolute")),
        ("к 15 июня", (D(2026, 6, 15), "absolute")),
        ("к 20 мая", (D(2026, 5, 20), "absolute")),  # today is not past
        ("15 марта 2027 г.", (D(2027, 3, 15), "absolute")),
        ("15.03.2027", (D(2027, 3, 15), "absolute")),
        ("15.03.27", (D(2027, 3, 15), "absolute")),
        ("2027-03-15", (D(2027, 3, 15), "absolute")),
        ("до 15.06", (D(2026, 6, 15), "absolute")),
        ("к марту", (D(2027, 3, 1), "absolute")),
        ("до конца квартала", (D(2026, 6, 30), "period_end")),
        ("до конца месяца", (D(2026, 5, 31), "period_end")),
        ("к концу года", (D(2026, 12, 31), "period_end")),
        ("до конца следующего месяца", (D(2026, 6, 30), "period_end")),
        ("до конца марта", (D(2027, 3, 31), "period_end")),
        ("в марте", (D(2027, 3, 31), "period_end")),
        ("на следующей неделе", (D(2026, 5, 31), "period_end")),
        ("на этой неделе", (D(2026, 5, 24), "period_end")),
    ],
)
def test_find_deadlines_russian(text: str, expected: tuple[datetime.date, str]) -> None:
    assert _found(text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("через 2 тижні", (D(2026, 6, 3), "relative")),
        ("протягом 5 днів", (D(2026, 5, 25), "relative")),
        ("через місяць", (D(2026, 6, 20), "relative")),
        ("через півроку", (D(2026, 11, 20), "relative")),
        ("до п'ятниці", (D(2026, 5, 22), "relative")),
        ("післязавтра", (D(2026, 5, 22), "relative")),
        ("до 15 березня", (D(2027, 3, 15), "absolute")),
        ("до 1 вересня 2026 року", (D(2026, 9, 1), "absolute")),
        ("до кінця місяця", (D(2026, 5, 31), "period_end")),
        ("до кінця кварталу", (D(2026, 6, 30), "period_end")),
        ("до кінця наступного тижня", (D(2026, 5, 31), "period_end")),
        ("наступного тижня", (D(2026, 5, 31), "period_end")),
        ("у березні", (D(2027, 3, 31), "period_end")),
    ],
)
def test_find_deadlines_ukrainian(text: str, expected: tuple[datetime.date, str]) -> None:
    assert _found(text) == [expected]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("in 3 weeks", (D(2026, 6, 10), "relative")),
        ("within 5 days", (D(2026, 5, 25), "relative")),
        ("within a week", (D(2026, 5, 27), "relative")),
        ("in a couple of weeks", (D(2026, 6, 3), "relative")),
        ("in 10 business days", (D(2026, 6, 3), "relative")),
        ("tomorrow", (D(2026, 5, 21), "relative")),
        ("by Friday", (D(2026, 5, 22), "relative")),
        ("by March 15", (D(2027, 3, 15), "absolute")),
        ("March 15th, 2027", (D(2027, 3, 15), "absolute")),
        ("the 15th of June", (D(2026, 6, 15), "absolute")),
        ("03/15/2027", (D(2027, 3, 15), "absolute")),
        ("by the end of the quarter", (D(2026, 6, 30), "period_end")),
        ("end of next month", (D(2026, 6, 30), "period_end")),
        ("end of Q3", (D(2026, 9, 30), "period_end")),
        ("next week", (D(2026, 5, 31), "period_end")),
        ("EOM", (D(2026, 5, 31), "period_end")),
    ],
)
def test_find_deadlines_english(text: str, expected: tuple[datetime.date, str]) -> None:
    assert _found(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "за 10 дней до запуска",
        "2 weeks ago",
        "через 2 тижні тому",
        "within days",
        "на завтрак",
        "в 2024 году",
        "до 1.5 млн",
        "до 31.02.2027",
        "45 марта",
        "звоните 8 (900) 123-45-67",
        "бюджет 500 тыс",
    ],
)
def test_find_deadlines_ignores_non_deadlines(text: str) -> None:
    assert find_deadlines(text, today=TODAY) == []


@pytest.mark.parametrize(
    "text",
    [
        "з наступного місяця назва буде «Зерно і Молоко»",  # reported: read as 2026-12-31
        "З наступного тижня працюємо з новим логотипом",
        "від наступного тижня",
        "починаючи з березня",
        "з 15 березня",
        "з кінця місяця",
        "с понедельника",
        "со следующей недели",
        "с 15 марта",
        "начиная с 1 декабря",
        "с конца месяца",
        "с завтрашнего дня",
        "письмо от 15.03.2027",
        "from next week",
        "FROM NEXT WEEK",
        "since next month",
        "starting next week",
        "starting from March 1st",
        "beginning next month",
        "from the end of the month",
        "from tomorrow",
        "since 2027-03-15",
    ],
)
def test_a_start_is_not_a_deadline(text: str) -> None:
    assert find_deadlines(text, today=D(2026, 11, 29)) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("к понедельнику", [("к понедельнику", D(2026, 11, 30))]),
        ("до наступного місяця", [("наступного місяця", D(2026, 12, 31))]),
        ("by next week", [("by next week", D(2026, 12, 6))]),
        # A range keeps its end; a start before a deadline does not hide it.
        ("с 1 по 15 марта", [("по 15 марта", D(2027, 3, 15))]),
        ("from 1 to 15 March", [("15 March", D(2027, 3, 15))]),
        ("со следующей недели до конца месяца", [("до конца месяца", D(2026, 11, 30))]),
        ("Съёмка с 15 марта, сдать к 1 апреля", [("к 1 апреля", D(2027, 4, 1))]),
        # "с" after a number is seconds: a deadline with its own preposition stays one.
        ("ролик 30 с до конца месяца", [("до конца месяца", D(2026, 11, 30))]),
        ("ролик 15 с к понедельнику", [("к понедельнику", D(2026, 11, 30))]),
        ("ролик 15 с через 2 недели", [("через 2 недели", D(2026, 12, 13))]),
    ],
)
def test_deadlines_next_to_start_words_are_still_deadlines(
    text: str, expected: list[tuple[str, datetime.date]]
) -> None:
    found = find_deadlines(text, today=D(2026, 11, 29))
    assert [(d.text, d.date) for d in found] == expected


def test_feb_29_without_a_year_waits_for_a_leap_year() -> None:
    assert _found("к 29 февраля", today=D(2026, 5, 20)) == [(D(2028, 2, 29), "absolute")]


def test_year_end_rolls_over_for_past_dates() -> None:
    assert _found("к 10 января", today=D(2026, 12, 30)) == [(D(2027, 1, 10), "absolute")]
    assert _found("через месяц", today=D(2026, 1, 31)) == [(D(2026, 2, 28), "relative")]


def test_several_deadlines_in_one_message_come_in_order_longest_match_wins() -> None:
    text = "Черновик через 2 недели, финал до конца следующего месяца, запуск 2027-03-15."
    found = find_deadlines(text, today=TODAY)
    assert [d.text for d in found] == [
        "через 2 недели",
        "до конца следующего месяца",
        "2027-03-15",
    ]


def test_deadline_as_dict_is_json_ready() -> None:
    [deadline] = find_deadlines("к 15 марта.", today=TODAY)
    assert deadline.as_dict() == {
        "value": "2027-03-15",
        "date": "2027-03-15",
        "text": "к 15 марта",
        "start": 0,
        "end": 10,
        "kind": "absolute",
    }


@settings(max_examples=300)
@given(st.text(), st.dates(min_value=D(1, 1, 1), max_value=D(9999, 12, 31)))
def test_find_deadlines_never_raises_and_evidence_matches_source(
    text: str, today: datetime.date
) -> None:
    for deadline in find_deadlines(text, today=today):
        assert isinstance(deadline, Deadline)
        assert text[deadline.start : deadline.end] == deadline.text


_DEADLINE_NOISE = st.text(
    alphabet="0123456789 .-/через дней недели до конца месяца к марта in weeks by",
    max_size=60,
)


@settings(max_examples=300)
@given(_DEADLINE_NOISE, st.dates(min_value=D(1, 1, 1), max_value=D(9999, 12, 31)))
def test_find_deadlines_on_deadline_like_noise_never_raises(
    text: str, today: datetime.date
) -> None:
    for deadline in find_deadlines(text, today=today):
        assert text[deadline.start : deadline.end] == deadline.text


@given(st.integers(min_value=1, max_value=365))
def test_days_from_today(days: int) -> None:
    assert _found(f"через {days} дней") == [(TODAY + datetime.timedelta(days=days), "relative")]


@given(st.dates(min_value=D(2000, 1, 1), max_value=D(2099, 12, 31)))
def test_numeric_dates_read_back(day: datetime.date) -> None:
    assert _found(f"срок {day:%d.%m.%Y}") == [(day, "absolute")]
    assert _found(f"due {day.isoformat()}") == [(day, "absolute")]
