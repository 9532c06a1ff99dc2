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


# --- holdout13: a thing the client calls its own, Latin names in Cyrillic text -----------------

OWN_THING_FRAMES = {
    "ru": ["Нужен ролик про наш {noun} {name}", "Снимаем нашу {noun} {name} в марте."],
    "uk": ["Хочемо відео про наш {noun} {name}", "Потрібен ролик про нашу {noun} {name}."],
    "en": ["need a video for our {noun} {name}", "We want to show our {noun} {name} at work."],
}
OWN_NOUNS = {"ru": ["нож", "рюкзак", "лодку"], "uk": ["ніж", "рюкзак", "лодку"],
             "en": ["knife", "backpack", "boat"]}  # fmt: skip
THING_NAMES = ["Шеф 210", "Тайга 40", "Kestrel X2", "Nord 7", "Ridge Runner"]


@settings(deadline=3000, max_examples=60, derandomize=True)  # ms per example
@given(language=st.sampled_from(["ru", "uk", "en"]), data=st.data())
def test_a_name_after_a_noun_the_client_calls_its_own_is_the_product(language, data):
    frame = data.draw(st.sampled_from(OWN_THING_FRAMES[language]))
    noun = data.draw(st.sampled_from(OWN_NOUNS[language]))
    name = data.draw(st.sampled_from(THING_NAMES))
    assert value(read(frame.format(noun=noun, name=name), language), "productName") == name


@pytest.mark.parametrize(
    ("text", "language", "product"),
    [
        ("Запускаем карту для подростков CashBack Teen.", "ru", "CashBack Teen"),
        ("Хочемо відос про кераміку Shine 9H", "uk", "Shine 9H"),
        ("Відео про стажувальну програму Junior Camp 2027", "uk", "Junior Camp 2027"),
        ("Нужен ролик про сервис доставки FreshBox 24.", "ru", "FreshBox 24"),
        ("sauce is Ghost 7. ghost pepper and six other chiles", "en", "Ghost 7"),
        ("The app is NovaPay, it splits the bill.", "en", "NovaPay"),
    ],
)
def test_a_latin_name_after_a_cyrillic_noun_or_a_thing_named_is_the_product(
    text, language, product
):
    assert value(read(text, language), "productName") == product


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Аудитория сидит в Telegram и смотрит ролики на YouTube.", "ru"),
        ("Ролик для YouTube и Instagram.", "ru"),
        ("Наш директор Иван Петров будет в кадре.", "ru"),
        ("Снимаем в нашем городе Казань.", "ru"),
        ("Референсы: Monzo, Revolut Junior.", "ru"),
        ("Я руководитель HR-бренда в IT-компании, нас около 600 человек.", "ru"),
        ("My name is Rosa. The goal is Awareness.", "en"),
        ("our channel YouTube is small", "en"),
        ("This is Rosa from the farm.", "en"),
        ("Shooting is Monday, the premiere is March 5.", "en"),
    ],
)
def test_a_platform_a_person_a_place_or_a_field_is_no_product(text, language):
    assert value(read(text, language), "productName") is None


@pytest.mark.parametrize(
    ("text", "language", "name", "company"),
    [
        ("rosa fuentes. company is bad dog provisions, denver", "en", "Rosa Fuentes",
         "Bad Dog Provisions"),
        ("liam doyle. from copper kettle bakery", "en", "Liam Doyle", "Copper Kettle Bakery"),
        ("олег рябов. компания — сухой лог, тверь", "ru", "Олег Рябов", "Сухой Лог"),
    ],
)  # fmt: skip
def test_a_lowercase_name_closing_its_sentence_then_the_company(text, language, name, company):
    reading = read(text, language, asked=("clientName", "company"))
    assert (value(reading, "clientName"), value(reading, "company")) == (name, company)


@pytest.mark.parametrize(
    "text",
    [
        "Budget — let me check with our CFO and come back to you on that.",
        "Бюджет: уточню у директора и вернусь.",
        "Дедлайн — пока не знаю, спрошу.",
    ],
)
def test_a_sentence_under_another_facts_label_answers_no_free_text_question(text):
    language = "en" if text.isascii() or text.startswith("Budget") else "ru"
    assert read(text, language, asked=("audience",)).answer_text == ""


def test_we_can_do_an_amount_is_the_budget():
    reading = read("OK, the CFO says we can do $25k for the whole thing.", "en")
    assert (value(reading, "budget"), value(reading, "currency")) == (25000, "USD")


@pytest.mark.parametrize(
    ("text", "company"),
    [
        ("I am writing on behalf of the Harrow Valley Water Trust, a joint initiative.",
         "Harrow Valley Water Trust"),
        ("I work in the press office at the Brightwater School of Design, not the university.",
         "Brightwater School of Design"),
        ("hi this is tomas ruiz from blue heron kayaks in tampa so we rent boats",
         "Blue Heron Kayaks"),
        ("i'm fiona mcbride at copper kettle bakery", "Copper Kettle Bakery"),
    ],
)  # fmt: skip
def test_the_company_after_on_behalf_of_work_at_or_a_lowercase_name_from(text, company):
    assert value(read(text, "en"), "company") == company


def test_a_lowercase_name_from_a_place_is_no_company():
    assert (
        value(read("hi this is marta reis from lisbon and we need a video", "en"), "company")
        is None
    )


@pytest.mark.parametrize(
    ("text", "language", "product"),
    [
        ("We are preparing a campaign, 'Rinse & Return', for every household.", "en",
         "Rinse & Return"),
        ("our new tour it's called the sunday seven colours experience", "en",
         "Sunday Seven Colours Experience"),
        ("хочемо відео про наш курс він називається смартфон без страху", "uk",
         "Смартфон Без Страху"),
    ],
)  # fmt: skip
def test_a_single_quoted_name_or_a_lowercase_name_closing_the_message_is_whole(
    text, language, product
):
    assert value(read(text, language), "productName") == product


def test_an_apostrophe_opens_no_quoted_name():
    assert (
        value(read("It's the client's day and we don't want it to fail.", "en"), "productName")
        is None
    )


@pytest.mark.parametrize(
    ("text", "language", "product"),
    [
        ("Rodeo Bootcamp. 3-day course for beginners, bulls and broncs", "en", "Rodeo Bootcamp"),
        ("Лесная Тропа. Маршрут на 3 часа.", "ru", "Лесная Тропа"),
        ("Yes. The rest later.", "en", None),
        ("Thank You. It has no name yet.", "en", None),
    ],
)
def test_a_name_standing_alone_as_the_first_sentence_answers_the_product_question(
    text, language, product
):
    reading = read(text, language, asked=("productName",))
    assert value(reading, "productName") == product
    assert value(reading, "clientName") is None


def test_a_signature_after_the_product_question_is_still_the_clients_name():
    text = "You can reach me at kate@harbourmuseum.ie or on 021 496 3311.\nKate Brennan"
    assert value(read(text, "en", asked=("productName",)), "clientName") == "Kate Brennan"
