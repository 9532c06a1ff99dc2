"""parse_number: one whole string read as one quantity, in Russian, Ukrainian and English."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmkit.extract import parse_number

NBSP, NNBSP, THIN = "\u00a0", "\u202f", "\u2009"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("около 500 тыс", 500000),
        ("1,5 млн", 1500000),
        ("полмиллиона", 500000),
        ("пол-миллиона", 500000),
        ("полтора миллиона", 1500000),
        ("два миллиона", 2000000),
        ("пятьсот тысяч рублей", 500000),
        ("двадцать пять тысяч", 25000),
        ("тысяча двести", 1200),
        ("миллион", 1000000),
        ("500 000 ₽", 500000),
        ("500 тыс. руб.", 500000),
        ("500 т.р.", 500000),
        ("3 млрд", 3000000000),
        ("1 млн 200 тыс", 1200000),
        ("2 тысячи 500 рублей", 2500),
        ("примерно 2,5 млн руб", 2500000),
        ("до 500 тыс", 500000),
        ("500к", 500000),
        ("12%", 12),
        ("12 процентов", 12),
        ("1,5", 1.5),
        ("0,5", 0.5),
        ("-5", -5),
        ("0", 0),
    ],
)
def test_parse_number_russian(text: str, expected: float) -> None:
    assert parse_number(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("півмільйона", 500000),
        ("150 тисяч гривень", 150000),
        ("два мільйони", 2000000),
        ("п'ятсот тисяч", 500000),
        ("п’ятсот тисяч", 500000),
        ("півтора мільйона", 1500000),
        ("близько 300 тис. грн", 300000),
        ("200 тис ₴", 200000),
    ],
)
def test_parse_number_ukrainian(text: str, expected: float) -> None:
    assert parse_number(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$2,500", 2500),
        ("2.5k", 2500),
        ("2.5K", 2500),
        ("1.2 mln", 1200000),
        ("$1.5M", 1500000),
        ("USD 2500", 2500),
        ("2500 USD", 2500),
        ("€300", 300),
        ("a million", 1000000),
        ("half a million", 500000),
        ("two million five hundred thousand", 2500000),
        ("one hundred and fifty", 150),
        ("twenty-five", 25),
        ("about 3 billion dollars", 3000000000),
        ("up to 500k", 500000),
        ("500k+", 500000),
    ],
)
def test_parse_number_english(text: str, expected: float) -> None:
    assert parse_number(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2,500", 2500),  # one separator + three digits: thousands
        ("2.500", 2500),
        ("2,500 млн", 2500000),  # ... unless a magnitude follows: a decimal
        ("0,500", 0.5),  # ... or it starts with 0
        ("1,25", 1.25),
        ("1,500,000", 1500000),
        ("1.500.000", 1500000),
        ("1,234.56", 1234.56),
        ("1.234,56", 1234.56),
        ("1 000 000", 1000000),
        (f"1{NBSP}000{NBSP}000", 1000000),
        (f"1{NNBSP}000{NNBSP}000", 1000000),
        (f"1{THIN}500", 1500),
        ("1 500,50", 1500.5),
    ],
)
def test_parse_number_separators(text: str, expected: float) -> None:
    assert parse_number(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "not sure",
        "",
        "   ",
        "от 100 до 200 тыс",
        "100-200",
        "300 или 400",
        "млн",
        "15.03.2027",
        "500 тыс в месяц",
        "три ролика",
        "около",
        "2 + 2",
    ],
)
def test_parse_number_rejects_what_is_not_one_quantity(text: str) -> None:
    assert parse_number(text) is None


def test_parse_number_returns_int_when_integral_and_float_otherwise() -> None:
    assert type(parse_number("1,5 млн")) is int
    assert type(parse_number("1,1 млн")) is int  # no binary float error: 1100000 exactly
    assert parse_number("1,1 млн") == 1100000
    assert type(parse_number("1,5")) is float


def test_parse_number_ignores_non_strings() -> None:
    assert parse_number(None) is None  # type: ignore[arg-type]
    assert parse_number(500) is None  # type: ignore[arg-type]


@given(st.integers(min_value=0))
def test_parse_number_reads_back_any_non_negative_int(n: int) -> None:
    assert parse_number(str(n)) == n


@given(st.integers(min_value=0, max_value=10**15), st.sampled_from([",", " ", NBSP, NNBSP]))
def test_parse_number_reads_grouped_thousands(n: int, separator: str) -> None:
    assert parse_number(f"{n:,}".replace(",", separator)) == n


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["тыс", "тысяч", "k", "тис"]))
def test_parse_number_scales_by_thousands(n: int, word: str) -> None:
    glue = "" if word == "k" else " "
    assert parse_number(f"{n}{glue}{word}") == n * 1000


@settings(max_examples=300)
@given(st.text())
def test_parse_number_never_raises(text: str) -> None:
    result = parse_number(text)
    assert result is None or isinstance(result, int | float)
