"""The reader on products and introductions as clients of holdout9 wrote them: a product's
name holding small words ("Cage & Kelp", "Kilt in a Box"), whatever a launched thing is
called is the product even when its noun could be a company's ("an oat bar called …"), a
new thing in apposition ("a new cardiology unit, the Heartline Centre,"), lowercase names
in voice messages after the noun that says what they are, and an introduction line of a
name and a quoted company. Properties over names and wordings, not the set's sentences."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from briefing.reader import message_read

TODAY = datetime.date(2026, 12, 3)

WORDS = ["Stack", "Kelp", "Box", "Harbour", "Thunder", "Lantern", "Copper", "Meadow", "Atlas"]
JOINERS = ["&", "of", "in a", "on the", "n'"]
NOUNS = ["oat bar", "cafe", "tour", "app", "brand", "studio", "service", "range"]
LAUNCHES = [
    "We're launching a new {noun} called {name} and need a video.",
    "hi! we are launching our {noun} called {name}, can you help?",
    "This spring we're opening a {noun} called {name}: the morning in the cage, then lunch.",
    "We're introducing a {noun}, called {name}, to the UK market.",
]


def read(text, language, asked=()):
    return message_read(text, language=language, today=TODAY, asked=asked)


def value(reading, name):
    finding = reading.get(name)
    return finding.value if finding else None


@settings(deadline=2000, max_examples=80, derandomize=True)  # ms per example
@given(
    first=st.sampled_from(WORDS),
    joiner=st.sampled_from(JOINERS),
    last=st.sampled_from(WORDS),
    noun=st.sampled_from(NOUNS),
    template=st.sampled_from(LAUNCHES),
)
def test_a_launched_things_name_is_the_product_whole(first, joiner, last, noun, template):
    name = f"{first} {joiner} {last}"
    reading = read(template.format(noun=noun, name=name), "en")
    assert value(reading, "productName") == name
    assert value(reading, "company") != name


@pytest.mark.parametrize("month", ["April", "March", "Friday"])
def test_a_month_or_a_weekday_after_a_name_is_no_part_of_it(month):
    reading = read(f"Our new soda is called Fizzleaf in {month} and we need a video.", "en")
    assert value(reading, "productName") == "Fizzleaf"


@pytest.mark.parametrize("noun", ["veterinary cardiology unit", "oat bar", "day tour"])
def test_a_new_thing_in_apposition_is_the_product(noun):
    text = f"We're opening a new {noun}, the Heartline Cardiology Centre, in the spring."
    assert value(read(text, "en"), "productName") == "Heartline Cardiology Centre"


@pytest.mark.parametrize(
    ("text", "language", "field", "expected"),
    [
        ("ну и у нас новый продукт горная гречка это хлопья быстрого приготовления", "ru",
         "productName", "Горная Гречка"),
        ("у нас влітку буде табір карпатський ритм в яремчі два тижні", "uk",
         "productName", "Карпатський Ритм"),
        ("запускаем фестиваль волжская волна в самаре в июле", "ru",
         "productName", "Волжская Волна"),
        ("я директор школи танців стихія в івано-франківську", "uk", "company", "Стихія"),
        ("я управляющая студии йоги тихая гавань в казани", "ru", "company", "Тихая Гавань"),
    ],
)  # fmt: skip
def test_a_lowercase_name_after_the_noun_that_says_what_it_is(text, language, field, expected):
    assert value(read(text, language), field) == expected


@pytest.mark.parametrize(
    "text", ["у нас новый продукт хлопья быстрого приготовления", "есть курс для начинающих"]
)
def test_a_common_noun_after_a_product_noun_is_no_name(text):
    assert value(read(text, "ru"), "productName") is None


@pytest.mark.parametrize(
    ("text", "language", "name", "company"),
    [
        ("добрый. артём зуев, «Глубина Байкала», иркутск", "ru", "Артём Зуев", "Глубина Байкала"),
        ("Игорь Петров, «Пульс», Самара", "ru", "Игорь Петров", "Пульс"),
        ("Вітаю, оксана кміть, «Лан», Полтава", "uk", "Оксана Кміть", "Лан"),
    ],
)
def test_an_introduction_line_names_the_client_and_the_company(text, language, name, company):
    reading = read(text, language)
    assert (value(reading, "clientName"), value(reading, "company")) == (name, company)
    assert value(reading, "productName") is None


def test_a_thing_and_its_quoted_name_is_still_the_product():
    assert value(read("молоко, «Простоквашино»", "ru"), "productName") == "Простоквашино"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Я бренд-менеджерка фабрики «Солодке Поділля» з Вінниці, звати Христина Мельничук.", "uk"),
        ("Я маркетолог сети «Ромашка», зовут Христина Мельничук, пишу по поводу ролика.", "ru"),
    ],
)
def test_a_name_after_zovut_alone_is_the_clients(text, language):
    assert value(read(text, language), "clientName") == "Христина Мельничук"


def test_a_quoted_letter_is_no_name():
    text = "Опечатка в названии компании: правильно «СолнцеДом», через «ц»."
    reading = read(text, "ru")
    assert value(reading, "productName") is None
    assert value(reading, "company") == "СолнцеДом"


@pytest.mark.parametrize(
    ("text", "language", "company"),
    [
        ("я смм-щик в компании Ортолайн, мы из Самары делаем элайнеры", "ru", "Ортолайн"),
        ("Я бренд-менеджер в сидрерии Горный Сад, мы из Адыгеи.", "ru", "Горный Сад"),
        ("Я керую маркетингом курорту «Буковель Парк» у Карпатах.", "uk", "Буковель Парк"),
        ("I own a bookshop in Galway, Tidewater Books, on Dominick Street.", "en",
         "Tidewater Books"),
        ("I am writing on behalf of Harbourfront Fertility Centre in Toronto.", "en",
         "Harbourfront Fertility Centre"),
        ("I'm Marcus Delgado, development associate at the Beacon Hill Children's Fund.", "en",
         "Beacon Hill Children's Fund"),
        ("Игорь Петров, Пульс Фитнес, Самара", "ru", "Пульс Фитнес"),
    ],
)  # fmt: skip
def test_the_company_after_its_noun_or_the_clients_role(text, language, company):
    assert value(read(text, language), "company") == company


@pytest.mark.parametrize(
    ("text", "language", "asked"),
    [
        ("We're putting on our gala on April 17 at the Boston Public Library.", "en", ()),
        ("Анна Петрова, Москва", "ru", ("clientName", "company")),
        ("Jane Doe, Leeds", "en", ("clientName", "company")),
    ],
)
def test_a_place_is_no_company(text, language, asked):
    assert value(read(text, language, asked), "company") is None


@pytest.mark.parametrize(
    ("text", "language", "product"),
    [
        ("Запускаем новый сидр Айва Брют и хотим под него brand video", "ru", "Айва Брют"),
        ("Весною випускаємо нову лінійку Друге Дихання для молодих пар", "uk", "Друге Дихання"),
    ],
)
def test_what_a_russian_or_ukrainian_client_launches_is_the_product(text, language, product):
    reading = read(text, language)
    assert value(reading, "productName") == product
    assert value(reading, "clientName") is None


def test_a_launch_in_a_place_names_no_product():
    assert value(read("Запускаем в Москве новую линейку", "ru"), "productName") is None


def test_a_brand_the_video_is_for_is_the_product_and_a_brand_one_works_at_the_company():
    reading = read("Нужен ролик для бренда Лесная Полка — это наши коробочки.", "ru")
    assert (value(reading, "productName"), value(reading, "company")) == ("Лесная Полка", None)
    assert value(read("я маркетолог бренда Лесная Полка", "ru"), "company") == "Лесная Полка"


def test_an_organisation_word_in_a_handle_names_no_company():
    text = "мій номер 067 481 29 03, інста @kmit.bakery\nОксана Кміть, власниця"
    reading = read(text, "uk")
    assert value(reading, "company") is None
    assert value(reading, "clientName") == "Оксана Кміть"


def test_a_rebranded_company_is_the_new_name_whole():
    text = "Correction — sorry, we rebranded in the summer: we're now the Cork Museum of the Sea."
    found = read(text, "en").get("company")
    assert (found.value, found.kind) == ("Cork Museum of the Sea", "correction")
