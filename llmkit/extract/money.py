"""Money amounts in free Russian, Ukrainian and English text ("500 тыс. руб.", "$2.5k",
"150 тисяч гривень", "от 300 до 500 тыс").

An amount is money only with a money cue: a currency, or a magnitude word ("500 тыс",
"2 млн") that is not followed by a counted noun ("2 млн просмотров"). Plain numbers
("3 videos", "15 марта") are never money. Ranges give one finding per end, both scaled by
the shared magnitude and currency: "от 300 до 500 тыс руб" → 300000 RUB and 500000 RUB
(the first finding's evidence is just "300").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP
from typing import Literal

from llmkit.extract._common import FindingMixin
from llmkit.extract.numbers import Amount, is_percent, parse_amount
from llmkit.extract.tokens import Tok, tokenize

Currency = Literal["RUB", "USD", "EUR", "UAH"]


@dataclass(frozen=True, slots=True)
class Money(FindingMixin):
    value: int
    text: str
    start: int
    end: int
    currency: Currency | None


# Words joining the two ends of a range, or two amounts that share one magnitude.
_CONNECTOR_SYMBOLS = {"-", "\u2010", "\u2012", "\u2013", "\u2014", "\u2212"}
_CONNECTOR_WORDS = {"до", "to", "по", "или", "or", "або", "и", "і", "and", "та"}
# Counted things: "2 млн просмотров" is an audience, not a budget.
_COUNTED_NOUNS = (
    "просмотр",
    "подписчик",
    "человек",
    "люд",
    "пользовател",
    "клиент",
    "посетител",
    "зрител",
    "охват",
    "показ",
    "лайк",
    "репост",
    "штук",
    "шт",
    "экземпляр",
    "единиц",
    "раз",
    "лет",
    "год",
    "минут",
    "секунд",
    "час",
    "дн",
    "недел",
    "месяц",
    "км",
    "метр",
    "кг",
    "тонн",
    "слов",
    "знак",
    "символ",
    "перегляд",
    "підписник",
    "користувач",
    "осіб",
    "відвідувач",
    "глядач",
    "охоплен",
    "показів",
    "років",
    "view",
    "user",
    "subscriber",
    "follower",
    "people",
    "person",
    "visitor",
    "customer",
    "client",
    "impression",
    "like",
    "download",
    "install",
    "unit",
    "piece",
    "cop",
    "year",
    "hour",
    "minute",
    "word",
    "character",
    "km",
    "kg",
)


def _followed_by_counted_noun(tokens: list[Tok], k: int) -> bool:
    if k >= len(tokens) or tokens[k].newline_before or tokens[k].kind != "word":
        return False
    return tokens[k].norm.startswith(_COUNTED_NOUNS)


def _is_money(amount: Amount, tokens: list[Tok]) -> bool:
    if amount.currency is not None:
        return True
    if not amount.scaled or not amount.has_number or is_percent(tokens, amount.next):
        return False
    if amount.letter_magnitude:
        # "5m" is as often minutes or metres, "4K" a video resolution: without a currency
        # only "k" with at least two digits ("50k", "2.5k") reads as money.
        if amount.magnitude != 1000:
            return False
        if amount.base == amount.base.to_integral_value() and amount.base < 10:
            return False
    return not _followed_by_counted_noun(tokens, amount.next)


def _connected(tokens: list[Tok], left: Amount, right: Amount) -> bool:
    between = tokens[left.next : right.first]
    if len(between) != 1 or between[0].newline_before or tokens[right.first].newline_before:
        return False
    joint = between[0]
    return joint.text in _CONNECTOR_SYMBOLS or joint.norm in _CONNECTOR_WORDS


def _scan(tokens: list[Tok]) -> list[Amount]:
    amounts: list[Amount] = []
    i = 0
    while i < len(tokens):
        amount = parse_amount(tokens, i)
        if amount is None:
            i += 1
            continue
        amounts.append(amount)
        i = amount.next
    return amounts


def _link_ranges(amounts: list[Amount], tokens: list[Tok]) -> list[Amount]:
    """ "от 300 до 500 тыс руб", "$300-500k": the ends share magnitude and currency."""
    linked = list(amounts)
    for index in range(len(linked) - 1):
        left, right = linked[index], linked[index + 1]
        if not _connected(tokens, left, right):
            continue
        # Only a smaller number takes the magnitude: "от 800 до 1,5 млн" is not 800 млн.
        scales = left.magnitude == 1 and right.magnitude > 1 and left.value < right.base
        if scales and left.has_number:
            left = replace(
                left,
                value=left.value * right.magnitude,
                base=left.value,
                magnitude=right.magnitude,
                scaled=True,
                letter_magnitude=right.letter_magnitude,
            )
        # "300-500 руб", "300 тыс - 1 млн руб"; but not the unscaled 800 of
        # "от 800 до 1,5 млн руб", which stays a bare number.
        takes_currency = left.magnitude > 1 or right.magnitude == 1
        if left.currency is None and right.currency is not None and takes_currency:
            left = replace(left, currency=right.currency)
        gives_currency = right.has_number and not _followed_by_counted_noun(tokens, right.next)
        if right.currency is None and left.currency is not None and gives_currency:
            right = replace(right, currency=left.currency)
        linked[index], linked[index + 1] = left, right
    return linked


def find_money(text: str) -> list[Money]:
    """Money amounts in `text`, in order. `value` is rounded to whole units."""
    if not isinstance(text, str) or not text:
        return []
    tokens = tokenize(text)
    found: list[Money] = []
    for amount in _link_ranges(_scan(tokens), tokens):
        if not _is_money(amount, tokens):
            continue
        value = int(amount.value.to_integral_value(rounding=ROUND_HALF_UP))
        found.append(
            Money(
                value=value,
                text=text[amount.start : amount.end],
                start=amount.start,
                end=amount.end,
                currency=amount.currency,  # type: ignore[arg-type]
            )
        )
    return found


__all__ = ["Currency", "Money", "find_money"]
