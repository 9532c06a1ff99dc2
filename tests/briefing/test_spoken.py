"""Numbers and e-mail addresses said in words (briefing/reader/spoken.py), as a voice
message's transcript writes them, read as the digits a typed message would carry: amounts
and phones spelled by num2words (a library that knows nothing of our reader), dictated
days before a month, and what must stay words."""

from __future__ import annotations

import datetime

import phonenumbers
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from num2words import num2words

from briefing.reader import message_read
from briefing.reader.contacts import contacts_find
from briefing.reader.dates import month_number
from briefing.reader.spoken import spoken_numbers_written

TODAY = datetime.date(2026, 12, 2)
LANGUAGES = ("ru", "uk", "en")
CURRENCY = {"ru": "рублей", "uk": "гривень", "en": "dollars"}
BUDGET = {"ru": "бюджет", "uk": "бюджет", "en": "the budget is"}


def written(text: str, language: str) -> str:
    return spoken_numbers_written(text, language=language, month_of=month_number)


@settings(deadline=1000, max_examples=150, derandomize=True)  # ms per example
@given(value=st.integers(min_value=1000, max_value=9_999_999), language=st.sampled_from(LANGUAGES))
def test_an_amount_spelled_out_is_read_as_the_budget(value, language):
    # (from 1,000: smaller sums are no production budget, see test_reader_budgets.py)
    spoken = num2words(value, lang=language)
    text = f"{BUDGET[language]} {spoken} {CURRENCY[language]}"
    reading = message_read(text, language=language, today=TODAY, asked=("budget",))
    found = reading.get("budget")
    assert found is not None, (text, reading.text)
    assert found.value == value, (text, reading.text)


@settings(deadline=1000, max_examples=100, derandomize=True)  # ms per example
@given(
    digits=st.text(alphabet="0123456789", min_size=7, max_size=7),
    operator=st.sampled_from(["915", "926", "903", "985"]),
    grouping=st.sampled_from([(1,) * 7, (3, 2, 2), (1, 2, 2, 2), (3, 2, 1, 1)]),
    language=st.sampled_from(["ru", "uk"]),
)
def test_a_russian_mobile_dictated_in_groups_is_one_phone(digits, operator, grouping, language):
    groups, rest = [], digits
    for size in grouping:
        groups.append(rest[:size])
        rest = rest[size:]
    # A group said as a number ("сорок один"), a leading zero as a digit ("ноль пять"): the
    # ways people dictate a Russian mobile (never in groups of four).
    # "девятьсот двадцать" is 920 to any listener: a group ending in a zero before the next
    # is said in a way this test does not model ("девятьсот, двадцать").
    assume(all(not g.endswith("0") or not g.strip("0") for g in groups[:-1]))
    said = []
    for group in ["8", operator, *groups]:
        said += [num2words(0, lang=language)] * (len(group) - len(group.lstrip("0")))
        if group.lstrip("0"):
            said.append(num2words(int(group), lang=language))
    text = f"телефон {' '.join(said)} звоните"
    found = contacts_find(written(text, language), language)
    assert [c.value for c in found] == [f"+7{operator}{digits}"], (text, written(text, language))


@pytest.mark.parametrize(
    ("text", "language", "phone"),
    [
        ("телефон нуль шістдесят сім чотириста тридцять один двадцять вісімдесят вісім там і "
         "вайбер", "uk", "+380674312088"),
        ("my number is oh eight seven two two one four four nine oh that's my mobile, or email "
         "aoife at ivorylanebridal dot ie", "en", "+353872214490"),
    ],
)  # fmt: skip
def test_a_dictated_local_number_takes_the_country_of_the_clients_domain(text, language, phone):
    values = [c.value for c in contacts_find(written(text, language), language)]
    assert phone in values


@pytest.mark.parametrize(
    ("text", "language", "deadline"),
    [
        ("ролик нужен к двадцать третьему апреля", "ru", "2027-04-23"),
        ("дедлайн пятнадцатое марта надо к распродаже", "ru", "2027-03-15"),
        ("треба до дев'ятнадцятого березня", "uk", "2027-03-19"),
        ("we need it by the twenty-third of May", "en", "2027-05-23"),
    ],
)
def test_a_day_said_as_an_ordinal_is_the_deadlines_day(text, language, deadline):
    reading = message_read(text, language=language, today=TODAY, asked=("deadline",))
    assert reading.get("deadline").value == deadline


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Это одна из лучших идей, ни одного лишнего кадра", "ru"),
        ("Нужно два-три ролика, пятый по счёту сезон", "ru"),
        ("No one else does it, one of our clients said so, bread and butter", "en"),
        ("Ми одна команда, жодного стоку", "uk"),
    ],
)
def test_a_lone_number_word_in_prose_stays_a_word(text, language):
    assert written(text, language) == text


def test_a_dictated_email_is_an_address():
    text = "пишите ivan.petrov собака mail точка ru или aoife at ivorylanebridal dot ie"
    found = [c.value for c in contacts_find(written(text, "ru"), "ru")]
    assert found == ["ivan.petrov@mail.ru", "aoife@ivorylanebridal.ie"]


def test_a_local_number_beside_a_country_domain_is_that_countrys():
    text = "You can reach me at niamh@corkmuseum.ie or on 021 496 3388 (my desk)."
    assert "+353214963388" in [c.value for c in contacts_find(text, "en")]
    # a generic domain names no country: the language's regions decide
    assert "+79161234567" in [c.value for c in contacts_find("8 916 123 45 67, a@b.io", "ru")]
    # an international number keeps its own country whatever the domain
    assert (
        phonenumbers.parse(contacts_find("+7 383 209-14-76, x@y.ie", "en")[0].value).country_code
        == 7
    )


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        ("my number is plus nine one nine eight four five zero double one two three six",
         "+919845011236"),
        ("call me on plus four four seven nine double one triple one two three four",
         "+447911111234"),
        ("my number is plus 353 87 214 6630", "+353872146630"),
    ],
)  # fmt: skip
def test_a_phone_dictated_with_plus_and_doubled_digits(text, phone):
    found = [c.value for c in contacts_find(written(text, "en"), "en")]
    assert phone in found, (written(text, "en"), found)
