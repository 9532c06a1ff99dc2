"""Names only from sources (briefing.turn.source_names): natural agent replies in Russian,
Ukrainian and English that name what the tools returned or the client wrote pass, inflected
or not; a work, client or service the agent made up is caught, quoted or not."""

from __future__ import annotations

import json

import pytest

from briefing.turn.source_names import presented_names, unsourced_names

PORTFOLIO = json.dumps(
    {
        "items": [
            {"title": "Клюквенный Север — весенняя кампания", "client": "Полярная Ягода",
             "kind": "video", "year": 2025, "link": "https://example.com/work/polar-berry"},
            {"title": "Открытие шоурума «Автомир»", "client": "Автомир", "kind": "video",
             "year": 2024, "link": "https://example.com/work/avtomir"},
            {"title": "Кофейня на углу", "client": "Ember Roasters", "kind": "video",
             "year": 2024, "link": "https://example.com/work/ember-roasters"},
        ]
    },
    ensure_ascii=False,
)  # fmt: skip
RATE_CARD = json.dumps(
    {"items": [{"title": "Рекламный ролик", "unit": "ролик до 60 секунд", "price_min": 350000,
                "price_max": 1200000, "currency": "RUB"}]},
    ensure_ascii=False,
)  # fmt: skip
CLIENT = "Здравствуйте, меня зовут Анна Соколова, компания «Северный Мёд». Есть похожие работы?"
SOURCES = [PORTFOLIO, RATE_CARD, CLIENT]

SHOULD_PASS = [
    ("ru", "Да, мы снимали для Полярной Ягоды весеннюю кампанию «Клюквенный Север»: "
           "https://example.com/work/polar-berry. Для каких площадок нужен ролик?"),
    ("ru", "Похожая работа — открытие шоурума «Автомира» в 2024 году. Анна, какой у вас "
           "бюджет? Ролик для Instagram или для ТВ?"),
    ("ru", "По прайсу студии «Рекламный ролик» — от 350 000 до 1 200 000 RUB за ролик до 60 "
           "секунд. Точную смету подготовит продюсер."),
    ("ru", "Спасибо, Анна! Записала компанию «Северный мёд». Что будем рекламировать для "
           "Северного Мёда? Снимаем в Москве или у вас?"),
    ("ru", "Благодарим Вас за ответ. Как Вам удобнее получить смету?"),
    ("ru", "Какой формат нужен — «сторис», «рилс» или горизонтальный ролик «под ключ»?"),
    ("uk", "Так, ми знімали для Полярної Ягоди кампанію «Клюквенный Север». Як вас звати?"),
    ("uk", "Схожа робота — «Кофейня на углу» для Ember Roasters (2024). Який у вас бюджет?"),
    ("en", "We made “Кофейня на углу” for Ember Roasters in 2024. Could you tell me the "
           "deadline — is Monday, May 20 fine? I will pass it to your producer."),
    ("en", "Thank you, Anna. What is the goal of the video for Северный Мёд on YouTube?"),
]  # fmt: skip

SHOULD_FAIL = [
    ("ru", "Мы делали похожий ролик для Сбербанка, посмотрите.", "Сбербанка"),
    ("ru", "Вот пример: «Газпром нефти — 30 лет» (2023).", "Газпром нефти — 30 лет"),
    ("ru", "Мы уже снимали для компании Ромашка рекламу мёда.", "Ромашка"),
    ("ru", "Похожая работа — кампания Медовый Спас для пасеки.", "Медовый Спас"),
    ("uk", "Ми знімали рекламу для «Світанку» минулого року.", "Світанку"),
    ("uk", "Схожа робота — ролик для Київстару, подивіться.", "Київстару"),
    ("en", "We shot a similar film for Acme Industries last year.", "Acme Industries"),
    ("en", "See our work “Golden Honey” for a beekeeper.", "Golden Honey"),
]


@pytest.mark.parametrize(("language", "message"), SHOULD_PASS)
def test_names_from_the_tools_or_the_client_pass(language, message):
    assert unsourced_names(message, SOURCES, language=language) == []


@pytest.mark.parametrize(("language", "message", "invented"), SHOULD_FAIL)
def test_a_name_no_source_holds_is_caught(language, message, invented):
    assert unsourced_names(message, SOURCES, language=language) == [invented]


def test_only_names_are_presented_not_sentence_starts_or_abbreviations():
    message = "Отлично! Ролик для ТВ и RUB. Снимем весной, Анна Соколова подтвердит."
    assert presented_names(message, "ru") == ["Анна Соколова"]


def test_an_inflected_name_matches_its_dictionary_form():
    assert unsourced_names("Для «Полярной Ягоды»", ["Полярная Ягода"], language="ru") == []
    # A different word of the same length is not an inflection.
    assert unsourced_names("Для «Полярной Сливы»", ["Полярная Ягода"], language="ru") == [
        "Полярной Сливы"
    ]
