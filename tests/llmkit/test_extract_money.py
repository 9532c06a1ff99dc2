"""find_money: amounts with a money cue (currency or magnitude) in free text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmkit.extract import Money, find_money


def _found(text: str) -> list[tuple[int, str | None]]:
    return [(m.value, m.currency) for m in find_money(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Бюджет около 500 тыс. руб., сроки 15 марта, 3 видео.", [(500000, "RUB")]),
        ("готовы потратить 1,5 млн рублей", [(1500000, "RUB")]),
        ("бюджет 500 000 ₽", [(500000, "RUB")]),
        ("стоимость 2 млн", [(2000000, None)]),
        ("полмиллиона рублей", [(500000, "RUB")]),
        ("миллион рублей на всё", [(1000000, "RUB")]),
        ("за 500р", [(500, "RUB")]),
        ("около 300 т.р.", [(300000, "RUB")]),
        ("от 300 до 500 тыс", [(300000, None), (500000, None)]),
        ("от 300 до 500 тыс. руб.", [(300000, "RUB"), (500000, "RUB")]),
        ("300–500 тыс ₽", [(300000, "RUB"), (500000, "RUB")]),
        ("300-500 руб", [(300, "RUB"), (500, "RUB")]),
        ("от 300 тыс до 1 млн рублей", [(300000, "RUB"), (1000000, "RUB")]),
        ("5 млн на 3 ролика", [(5000000, None)]),
        ("стоимость 5 млн 3 ролика", [(5000000, None)]),
        ("две тысячи пятьсот, и всё", [(2500, None)]),
        ("два миллиона два ролика", [(2000000, None)]),
        ("тысяча двести рублей", [(1200, "RUB")]),
        ("от 800 до 1,5 млн руб", [(1500000, "RUB")]),
        ("пятьсот тысяч долларов", [(500000, "USD")]),
        ("3000 евро", [(3000, "EUR")]),
    ],
)
def test_find_money_russian(text: str, expected: list[tuple[int, str | None]]) -> None:
    assert _found(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("бюджет 150 тисяч гривень", [(150000, "UAH")]),
        ("десь півмільйона грн", [(500000, "UAH")]),
        ("від 200 до 300 тис ₴", [(200000, "UAH"), (300000, "UAH")]),
        ("5000 доларів", [(5000, "USD")]),
        ("1000 євро", [(1000, "EUR")]),
    ],
)
def test_find_money_ukrainian(text: str, expected: list[tuple[int, str | None]]) -> None:
    assert _found(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("budget is $2,500 for 3 videos", [(2500, "USD")]),
        ("around 50k", [(50000, None)]),
        ("$300-500k", [(300000, "USD"), (500000, "USD")]),
        ("€1.5M total", [(1500000, "EUR")]),
        ("USD 2500 or 2000 EUR", [(2500, "USD"), (2000, "EUR")]),
        ("two million dollars", [(2000000, "USD")]),
        ("six thousand five hundred us dollars", [(6500, "USD")]),
        ("12 000 American dollars", [(12000, "USD")]),
        ("2.5 million", [(2500000, None)]),
    ],
)
def test_find_money_english(text: str, expected: list[tuple[int, str | None]]) -> None:
    assert _found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "3 videos",
        "нужно 3 ролика к 15 марта",
        "2 млн просмотров",
        "10k followers",
        "снимаем в 4K",
        "рост на 12%",
        "в 2024 году",
        "звоните 8 (900) 123-45-67",
        "15.03.2027",
        "миллион причин",
        "хронометраж 30 секунд, 1080p",
    ],
)
def test_find_money_ignores_numbers_without_a_money_cue(text: str) -> None:
    assert find_money(text) == []


def test_money_evidence_is_the_exact_source_slice_without_the_full_stop() -> None:
    text = "Итого: 500 тыс. руб."
    [money] = find_money(text)
    assert money.text == "500 тыс. руб"
    assert text[money.start : money.end] == money.text
    assert money.as_dict() == {
        "value": 500000,
        "text": "500 тыс. руб",
        "start": 7,
        "end": 19,
        "currency": "RUB",
    }


def test_money_is_frozen() -> None:
    [money] = find_money("100 руб")
    with pytest.raises(AttributeError):
        money.value = 1  # type: ignore[misc]


@settings(max_examples=300)
@given(st.text())
def test_find_money_never_raises_and_evidence_matches_source(text: str) -> None:
    for money in find_money(text):
        assert isinstance(money, Money)
        assert text[money.start : money.end] == money.text
        assert isinstance(money.value, int)


_MONEYISH = st.text(alphabet="0123456789 ,.$€₽k тысмлнруб-–", max_size=40)


@settings(max_examples=300)
@given(_MONEYISH)
def test_find_money_on_money_like_noise_keeps_evidence_exact(text: str) -> None:
    for money in find_money(text):
        assert text[money.start : money.end] == money.text


_WORDS = st.lists(
    st.sampled_from(["проект", "ролик", "клиент", "video", "brand", "кампанія", "запуск"]),
    max_size=6,
).map(" ".join)


@given(
    _WORDS,
    st.integers(min_value=1, max_value=10**9),
    st.sampled_from(["руб", "рублей", "₽", "грн", "USD", "евро"]),
    _WORDS,
)
def test_an_amount_with_a_currency_in_prose_is_found(
    before: str, amount: int, currency: str, after: str
) -> None:
    text = f"{before} {amount} {currency} {after}"
    assert amount in [m.value for m in find_money(text)]
