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
