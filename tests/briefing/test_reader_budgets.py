"""The budget among the other money a client names (holdout10's first run read a coffee's
price, a theatre's grant and last year's spend as the budget): money that is someone else's
nearer the amount than the budget's cue, an amount the client says is no budget, a cue
after an amount that belongs to the next sentence, sums too small for a production, and
hundreds counted as a noun. Properties over wordings, not the set's sentences."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from briefing.reader import message_read

TODAY = datetime.date(2026, 12, 3)


def budget(text, language, asked=()):
    found = message_read(text, language=language, today=TODAY, asked=asked).get("budget")
    return found.value if found else None


DISTRACTORS = {
    "ru": ["в прошлом году потратили {}", "грант {}", "зарплата оператора {}", "выручка {}"],
    "uk": ["торік витратили {}", "грант {}", "зарплата оператора {}", "виторг {}"],
    "en": ["last year we spent {}", "we raised {}", "a grant of {}", "we paid {}"],
}
MONEY = {"ru": "{} тысяч рублей", "uk": "{} тисяч гривень", "en": "${}k"}
BUDGETS = {
    "ru": "Бюджет на ролик — {}.",
    "uk": "Бюджет на ролик — {}.",
    "en": "For this video we've put aside {}.",
}


@settings(deadline=2000, max_examples=60, derandomize=True)  # ms per example
@given(
    language=st.sampled_from(["ru", "uk", "en"]),
    data=st.data(),
    other=st.integers(min_value=2, max_value=900),
    wanted=st.integers(min_value=2, max_value=900),
)
def test_someone_elses_money_is_no_budget_and_the_budget_after_it_is(language, data, other, wanted):
    distractor = data.draw(st.sampled_from(DISTRACTORS[language]))
    opening = {"ru": "По деньгам: ", "uk": "По грошах: ", "en": "Money-wise: "}[language]
    text = (
        opening
        + distractor.format(MONEY[language].format(other))
        + ". "
        + BUDGETS[language].format(MONEY[language].format(wanted))
    )
    assert budget(text, language) == wanted * 1000


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Коробка на полке 290 р. Это не бюджет)", "ru"),
        ("Квиток 450 грн — це не бюджет, просто для розуміння.", "uk"),
        ("A ticket is $45, not the budget obviously.", "en"),
        ("Money-wise — a flat white will be €3.80, just so you know.", "en"),
        ("комод після реставрації в нас іде за 12-15 тищ, це шоб ви розуміли рівень", "uk"),
        ("Операція в нас стоїть 28 тисяч за обидва ока.", "uk"),
    ],
)
def test_an_amount_the_client_says_is_no_budget_or_too_small_is_none(text, language):
    assert budget(text, language) is None


def test_a_budget_cue_in_the_next_sentence_is_not_the_amount_befores():
    text = (
        "В прошлом году на рекламу ушло 1,1 млн руб. Бюджет на производство ролика — "
        "1,4 млн руб. с НДС."
    )
    assert budget(text, "ru") == 1_400_000


@pytest.mark.parametrize(
    ("text", "language", "value"),
    [
        ("На ролик маємо півтори сотні тисяч гривень.", "uk", 150_000),
        ("бюджет две сотни тысяч рублей", "ru", 200_000),
        ("бюджет один миллион пятьсот тысяч рублей", "ru", 1_500_000),
        ("The board approved $18.5k for the film.", "en", 18_500),
    ],
)
def test_budgets_said_in_words_and_approved(text, language, value):
    assert budget(text, language) == value


def test_a_budget_a_grant_pays_is_the_budget():
    text = "Бюджет у нас в євро, бо фінансує європейський грант: 12 000 євро."
    assert budget(text, "uk") == 12_000


# --- holdout11's families: a cue speaks of the first amount after it, prices per unit,
# bought/sold money, giving verbs, ceilings, "and a half", bare sums -----------------------

HALF_FRAMES = {
    "ru": ("Бюджет на ролик — {} с половиной тысячи рублей.", "На видео готовы выделить {} с "
           "половиной тысячи рублей."),
    "uk": ("На відос даємо {} з половиною тищі гривень.", "Бюджет — {} з половиною тисячі "
           "гривень."),
    "en": ("For the video we've got {} and a half grand.", "We can spend {} and a half "
           "thousand dollars on the film."),
}  # fmt: skip
NUMBER_WORDS = {
    "ru": {3: "три", 4: "четыре", 7: "семь", 12: "двенадцать", 25: "двадцать пять"},
    "uk": {3: "три", 4: "чотири", 7: "сім", 12: "дванадцять", 25: "двадцять п'ять"},
    "en": {3: "three", 4: "four", 7: "seven", 12: "twelve", 25: "twenty-five"},
}


@settings(deadline=2000, max_examples=60, derandomize=True)  # ms per example
@given(language=st.sampled_from(["ru", "uk", "en"]), data=st.data())
def test_a_number_and_a_half_of_thousands_is_read_whole_in_three_languages(language, data):
    frame = data.draw(st.sampled_from(HALF_FRAMES[language]))
    number = data.draw(st.sampled_from([*NUMBER_WORDS[language], 2, 15, 40, 99]))
    said = data.draw(st.sampled_from([str(number), NUMBER_WORDS[language].get(number, number)]))
    assert budget(frame.format(said), language) == number * 1000 + 500


# Per language: an opening that names money, a price per unit (a plausible budget were it
# not per unit), money spent or earned elsewhere, then the budget with its own cue.
OPENINGS = {"ru": "По деньгам: ", "uk": "По грошах так: ", "en": "Money-wise: "}
PER_UNIT = {
    "ru": ["тур {} тысяч рублей с человека", "чан у нас {} тысяч рублей за два часа",
           "номер {} тысяч рублей за ночь", "аренда {} тысяч рублей в месяц"],
    "uk": ["тур {} тисяч гривень з людини", "прокат {} тисяч гривень за годину",
           "номер {} тисяч гривень за ніч"],
    "en": ["the tour is ${}k per person", "a suite is ${}k a night", "tickets are ${}k a head",
           "the boat is ${}k an hour"],
}  # fmt: skip
ELSEWHERE = {
    "ru": ["новый снегоход купили за {} тысяч рублей", "блогерам отдали {} тысяч рублей",
           "за сезон продали на {} тысяч рублей", "подняли seed на {} тысяч рублей"],
    "uk": ["партію брали за {} тисяч гривень", "нові байки обійшлися в {} тисяч гривень",
           "торік блогерам віддали {} тисяч гривень"],
    "en": ["we bought a compressor for ${}k", "a photographer charged us ${}k",
           "we did ${}k in bookings", "we sold ${}k of tickets"],
}  # fmt: skip
GIVEN = {
    "ru": ["а на видео готовы выделить {} тысяч рублей", "а на съёмку я могу дать {} тысяч "
           "рублей", "на продакшн заложили {} тысяч рублей"],
    "uk": ["а на відос даємо {} тисяч гривень", "на відео можемо виділити {} тисяч гривень"],
    "en": ["for the video we've got ${}k", "the owners agreed ${}k for the film",
           "we can put ${}k into the video"],
}  # fmt: skip


@settings(deadline=2000, max_examples=80, derandomize=True)  # ms per example
@given(
    language=st.sampled_from(["ru", "uk", "en"]),
    data=st.data(),
    price=st.integers(min_value=2, max_value=900),
    other=st.integers(min_value=2, max_value=900),
    wanted=st.integers(min_value=2, max_value=900),
)
def test_a_cue_speaks_of_the_first_amount_after_it_not_of_prices_or_others_money(
    language, data, price, other, wanted
):
    per_unit = data.draw(st.sampled_from(PER_UNIT[language]))
    elsewhere = data.draw(st.sampled_from(ELSEWHERE[language]))
    given_ = data.draw(st.sampled_from(GIVEN[language]))
    text = (
        f"{OPENINGS[language]}{per_unit.format(price)}, {elsewhere.format(other)}, "
        f"{given_.format(wanted)}."
    )
    assert budget(text, language) == wanted * 1000


CEILINGS = {
    "ru": ["{} тысяч рублей максимум", "{} тысяч рублей, больше не потянем",
           "{} тысяч рублей — это прям потолок"],
    "uk": ["{} тисяч гривень, більше не потягнемо", "{} тисяч гривень максимум"],
    "en": ["${}k tops", "${}k max", "${}k at most"],
}  # fmt: skip


@settings(deadline=2000, max_examples=40, derandomize=True)  # ms per example
@given(language=st.sampled_from(["ru", "uk", "en"]), data=st.data())
def test_an_amount_said_as_a_ceiling_is_the_budget(language, data):
    wanted = data.draw(st.integers(min_value=2, max_value=900))
    ceiling = data.draw(st.sampled_from(CEILINGS[language]))
    assert budget(ceiling.format(wanted), language) == wanted * 1000


BARE_SUMS = [
    ("На ролик можем {} с НДС.", "ru"), ("Бюджет — {} з ПДВ.", "uk"),
    ("For the film we can do {} + VAT.", "en"), ("Бюджет у нас {}.", "ru"),
]  # fmt: skip


@settings(deadline=2000, max_examples=40, derandomize=True)  # ms per example
@given(
    frame=st.sampled_from(BARE_SUMS),
    wanted=st.integers(min_value=3_000, max_value=9_000_000),
)
def test_a_bare_sum_with_its_tax_or_right_after_a_cue_is_the_budget(frame, wanted):
    text, language = frame
    grouped = f"{wanted:,}".replace(",", " ")
    assert budget(text.format(grouped), language) == wanted


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Тур 9 500 с человека, новый снегоход купили за 1 100 000.", "ru"),
        ("Мы работаем с 2019 года, на ролик 2026 не влезет.", "ru"),
        ("Звоните 8 800 2000 600.", "ru"),
    ],
)
def test_a_bare_number_without_a_cue_or_tax_is_no_budget(text, language):
    assert budget(text, language) is None


def test_a_cyrillic_k_is_roubles_and_tyshchi_are_thousands():
    found = message_read("на видео 120к", language="ru", today=TODAY)
    assert (found.get("budget").value, found.get("currency").value) == (120_000, "RUB")
    found = message_read("на відос даєм 18 тищ доларів", language="uk", today=TODAY)
    assert (found.get("budget").value, found.get("currency").value) == (18_000, "USD")


@pytest.mark.parametrize(
    ("text", "language", "budget", "currency"),
    [
        ("300к", "ru", 300_000, "RUB"),
        ("где-то 300к", "ru", 300_000, "RUB"),
        ("десь 40 тисяч гривень", "uk", 40_000, "UAH"),
        ("about €9k", "en", 9_000, "EUR"),
    ],
)
def test_a_message_that_is_only_an_amount_is_the_budget_whatever_was_asked(
    text, language, budget, currency
):
    reading = message_read(text, language=language, today=TODAY, asked=("format",))
    assert reading.get("budget").value == budget
    assert reading.get("currency").value == currency


@pytest.mark.parametrize("text", ["Коробка 290 р", "9000", "в 2027", "2 шт", "300к? дорого"])
def test_a_price_a_bare_number_or_a_question_alone_is_no_budget(text):
    reading = message_read(text, language="ru", today=TODAY, asked=("format",))
    assert reading.get("budget") is None


@pytest.mark.parametrize(
    ("text", "language", "currency"),
    [("сорок кусків", "uk", "UAH"), ("200 тищ на все", "uk", "UAH"), ("300 косарей", "ru", "RUB")],
)
def test_slang_thousands_are_the_local_money(text, language, currency):
    reading = message_read(text, language=language, today=TODAY, asked=("budget",))
    assert reading.get("currency").value == currency
