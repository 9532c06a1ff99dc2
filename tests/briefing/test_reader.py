"""The reader (briefing/reader) on messages written for these tests, not taken from the
conversation set it was measured on: names, companies, products, budgets against prices,
slang amounts, relative dates, corrections, counter-questions and chatter."""

from __future__ import annotations

import datetime

import pytest

from briefing.reader import ANSWER, CORRECTION, MENTION, message_read
from briefing.reader.chatter import is_chatter, is_closing, is_confirmation, is_greeting
from briefing.reader.contacts import contacts_find, contacts_merged

TODAY = datetime.date(2026, 12, 1)


def read(text, language="ru", asked=(), known=()):
    return message_read(text, language=language, today=TODAY, asked=asked, known=known)


def value(reading, name):
    finding = reading.get(name)
    return finding.value if finding else None


@pytest.mark.parametrize(
    ("text", "language", "name", "company"),
    [
        ("Здравствуйте, меня зовут Вера Полякова, я из агентства «Мята».", "ru", "Вера Полякова",
         "Мята"),
        ("Добрий вечір, мене звати Остап Гнатюк, студія «Карпатський Дим».", "uk", "Остап Гнатюк",
         "Карпатський Дим"),
        ("Hi, I'm Nora Blake from Lighthouse Labs Ltd and we need an ad.", "en", "Nora Blake",
         "Lighthouse Labs Ltd"),
        ("Good afternoon, this is Omar Haddad, marketing lead at Sandline Inc.", "en",
         "Omar Haddad", "Sandline Inc"),
    ],
)  # fmt: skip
def test_a_name_and_a_company_come_out_as_names_not_sentences(text, language, name, company):
    reading = read(text, language)
    assert value(reading, "clientName") == name
    assert value(reading, "company") == company
    assert reading.get("clientName").kind == MENTION
    assert reading.get("clientName").evidence in text


def test_natasha_finds_a_russian_name_without_an_introduction():
    reading = read("Пишет вам Григорий Степанович Лаптев по поводу видео.", asked=("clientName",))
    assert value(reading, "clientName").startswith("Григорий")


def test_a_quoted_name_after_a_preposition_is_put_in_the_nominative():
    reading = read("Меня зовут Лев, я из «Северного Ветра».", asked=("clientName", "company"))
    assert value(reading, "company") == "Северный Ветер"
    assert value(reading, "clientName") == "Лев"


def test_the_product_is_told_from_the_company_by_the_noun_before_it():
    reading = read("Мы пекарня «Булка», хотим ролик про новый хлеб «Ржаной Бор».")
    assert value(reading, "company") == "Булка"
    # "хлеб" is no product noun of the list: the second quoted name is left to the agent
    assert value(reading, "productName") in (None, "Ржаной Бор")
    reading = read("Нужен ролик для приложения «Пешеход», мы из «Тропы».")
    assert value(reading, "productName") == "Пешеход"
    assert value(reading, "company") == "Тропа"


@pytest.mark.parametrize(
    ("text", "language", "budget", "currency"),
    [
        ("Бюджет около трёх миллионов рублей.", "ru", 3_000_000, "RUB"),
        ("На всё готовы потратить пол-ляма.", "ru", 500_000, "RUB"),
        ("Бюджет полтора ляма.", "ru", 1_500_000, "RUB"),
        ("Виділили двісті п'ятдесят тисяч гривень.", "uk", 250_000, "UAH"),
        ("Our budget is around 40 grand in euros.", "en", 40_000, "EUR"),
        ("We can spend $18k on this.", "en", 18_000, "USD"),
    ],
)
def test_a_cued_amount_is_the_budget(text, language, budget, currency):
    reading = read(text, language)
    assert value(reading, "budget") == budget
    assert value(reading, "currency") == currency


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Наш квас стоит 89 рублей за бутылку.", "ru"),
        ("Підписка коштує 199 гривень на місяць.", "uk"),
        ("The course is priced at $49 per student.", "en"),
        ("Доставка от 300 рублей, привозим за час.", "ru"),
    ],
)
def test_a_price_is_a_mention_never_the_budget(text, language):
    reading = read(text, language)
    assert reading.get("budget") is None
    assert [m.field for m in reading.mentions] == ["price"]


def test_an_amount_answering_the_budget_question_is_the_budget():
    assert value(read("Примерно 700 тысяч рублей.", asked=("budget",)), "budget") == 700_000
    # not asked and with no cue, an amount in a sentence about something else is only mentioned
    assert read("Примерно 700 тысяч рублей стоит наш станок.").get("budget") is None
    # but a message that is only an amount answers the budget, whatever was asked last
    assert value(read("Примерно 700 тысяч рублей."), "budget") == 700_000


@pytest.mark.parametrize(
    ("text", "language", "deadline"),
    [
        ("Сдать нужно к концу апреля.", "ru", "2027-04-30"),
        ("Нужно успеть через три недели.", "ru", "2026-12-22"),
        ("Треба здати до середини лютого.", "uk", "2027-02-15"),
        ("We need it ready by mid-May.", "en", "2027-05-15"),
        ("Deadline is in ten days.", "en", "2026-12-11"),
    ],
)
def test_dates_in_words_and_relative_dates(text, language, deadline):
    assert value(read(text, language), "deadline") == deadline


def test_a_duration_in_a_description_is_no_deadline():
    reading = read("Научим кататься на сноуборде за два дня.", asked=("coreIdea",))
    assert reading.get("deadline") is None


@pytest.mark.parametrize(
    ("text", "language", "name", "expected"),
    [
        ("Ой, бюджет не 900 тысяч, а 1,2 млн.", "ru", "budget", 1_200_000),
        ("Вибачте, не до 10 березня, а до 20 березня.", "uk", "deadline", "2027-03-20"),
        ("Make that $15,000, the board agreed.", "en", "budget", 15_000),
    ],
)
def test_a_correction_names_the_new_value(text, language, name, expected):
    finding = read(text, language).get(name)
    assert finding.value == expected
    assert finding.kind == CORRECTION


def test_a_rhetorical_not_but_is_no_correction():
    reading = read("Это не просто кофе, а утренний ритуал.", asked=("coreIdea",))
    assert not reading.corrects
    assert reading.answer_text == "Это не просто кофе, а утренний ритуал."


def test_a_counter_question_is_read_as_a_question_with_nothing_to_store():
    reading = read("А вы снимаете с дрона?", asked=("format",))
    assert reading.asks
    assert reading.answer_text == ""
    assert reading.findings == ()


def test_findings_of_an_answer_are_answers():
    reading = read("+7 912 000-11-22", asked=("contact",))
    assert reading.get("contact").kind == ANSWER
    assert reading.get("contact").value == "+79120001122"
    assert 0 < reading.get("contact").confidence <= 1


def test_an_email_is_a_contact():
    assert value(read("Пишите на ivan@example.org"), "contact") == "ivan@example.org"


@pytest.mark.parametrize(
    "text", ["Да, всё верно.", "Так, усе правильно", "Yes, that's right.", "Looks good, thanks"]
)
def test_confirmations_are_chatter(text):
    assert is_confirmation(text)
    assert is_chatter(text)


@pytest.mark.parametrize("text", ["Добрый день!", "Привіт", "Hi there"])
def test_greetings_are_chatter(text):
    assert is_greeting(text)


@pytest.mark.parametrize(
    "text", ["Да, нужен ролик на 30 секунд", "Yes, we sell bikes", "Добрый день, я Олег"]
)
def test_an_answer_that_starts_with_yes_or_a_greeting_is_no_chatter(text):
    assert not is_chatter(text)


@pytest.mark.parametrize(
    ("text", "language", "role"),
    [
        (
            "Добрый день, я Марк Левин, руководитель отдела рекламы.",
            "ru",
            "руководитель отдела рекламы",
        ),
        ("Мене звати Ганна Бойко, я засновниця кав'ярні.", "uk", "засновниця"),
        ("Hello, I'm Ruth Adler, the owner.", "en", "owner"),
        ("Hi! Sarah Lin here, founder of Fitloop LLC.", "en", "founder"),
    ],
)
def test_the_role_after_the_name(text, language, role):
    assert value(read(text, language), "role") == role


@pytest.mark.parametrize(
    ("text", "language", "budget", "currency"),
    [
        ("Small fix on the money side: it's $14,000, not $12,000.", "en", 14000, "USD"),
        ("Бюджет будет 350 тысяч рублей, а не 300, директор подписал.", "ru", 350000, "RUB"),
        ("Виділили 60 тисяч гривень, а не 50 — так вирішили на нараді.", "uk", 60000, "UAH"),
    ],
)  # fmt: skip
def test_the_amount_before_a_negated_one_is_the_correction(text, language, budget, currency):
    reading = read(text, language, asked=("budget",))
    assert (value(reading, "budget"), value(reading, "currency")) == (budget, currency)
    assert reading.get("budget").kind == CORRECTION


def test_a_date_corrected_in_a_later_sentence_wins():
    reading = read("Здати треба 10 березня... ой ні, сплутала — 17 березня.", "uk",
                   asked=("deadline",))  # fmt: skip
    assert value(reading, "deadline") == "2027-03-17"


@pytest.mark.parametrize(
    ("text", "budget", "currency"),
    [
        ("Есть штук 7 баксов... то есть 7 штук баксов на всё", 7000, "USD"),
        ("Потянем триста косарей, не больше", 300000, "RUB"),
    ],
)
def test_thousands_in_slang(text, budget, currency):
    reading = read(text, asked=("budget",))
    assert (value(reading, "budget"), value(reading, "currency")) == (budget, currency)


def test_pieces_are_not_thousands():
    assert value(read("Нужно 4 штуки роликов и обложка", asked=("deliverables",)), "budget") is None


def test_an_amount_said_as_the_budget_beats_one_that_only_answers():
    text = "Конкуренты платили агентству 900к, это перебор. Мы готовы на 500 тысяч рублей."
    reading = read(text, asked=("budget",))
    assert (value(reading, "budget"), value(reading, "currency")) == (500000, "RUB")


@pytest.mark.parametrize(
    ("text", "language", "company"),
    [
        ("Оля Гринь, кав'ярня Grain&Foam на Подолі", "uk", "Grain&Foam"),
        ("sam here, our agency is Northwind Creative", "en", "Northwind Creative"),
        ("Priya Nair; company's Blue Heron Tea. We'd like a video", "en", "Blue Heron Tea"),
        ("Я Марія, у нас сімейна пасіка «Золотий Стільник».", "uk", "Золотий Стільник"),
    ],
)  # fmt: skip
def test_a_company_named_after_the_word_that_says_so(text, language, company):
    reading = read(text, language, asked=("clientName", "company"))
    assert value(reading, "company") == company


# --- every contact kept --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("current", "new", "correction", "kept"),
    [
        ("+79161234567", "anna@zerno.ru", False, "+79161234567, anna@zerno.ru"),
        ("+79161234567, anna@zerno.ru", "+79161234567", False, "+79161234567, anna@zerno.ru"),
        ("+79161234567, anna@zerno.ru", "+79035551234", True, "anna@zerno.ru, +79035551234"),
        ("ciara.byrne@byrnewalsh.ie", "ciara.byrne@byrne-walsh.ie", False,
         "ciara.byrne@byrne-walsh.ie"),
        ("anna@zerno.ru", "@zerno_coffee", False, "anna@zerno.ru, @zerno_coffee"),
    ],
)  # fmt: skip
def test_a_new_contact_is_added_and_a_correction_replaces_its_own_kind(
    current, new, correction, kept
):
    assert contacts_merged(current, new, correction=correction) == kept


def test_phones_e_mails_and_handles_are_read_together_in_the_order_written():
    text = "мій номер 093 715 40 28, пошта ostap@velolev.ua, інста @velolev.lviv"
    found = [c.value for c in contacts_find(text, "uk")]
    assert found == ["+380937154028", "ostap@velolev.ua", "@velolev.lviv"]


@pytest.mark.parametrize(
    ("text", "language", "found"),
    [
        ("Пишите в телеграм t.me/medovyi_dim или на сайт medovyi-dim.ua", "ru",
         ["t.me/medovyi_dim", "medovyi-dim.ua"]),
        ("WhatsApp: https://wa.me/447700900412, our website is www.kestrelgin.co.uk.", "en",
         ["https://wa.me/447700900412", "www.kestrelgin.co.uk"]),
        ("наш веб-сайт — квіти-львів.укр, телефон 067 314 22 85", "uk",
         ["квіти-львів.укр", "+380673142285"]),
        # A link given as a reference is not a way to reach the client.
        ("Референс: https://youtube.com/watch?v=abc, сайт сделаем потом", "ru", []),
    ],
)  # fmt: skip
def test_messenger_links_and_the_clients_own_website_are_contacts(text, language, found):
    assert [c.value for c in contacts_find(text, language)] == found


@pytest.mark.parametrize(
    ("text", "closing"),
    [
        ("Да, всё верно, согласен.", True),
        ("Больше ничего не добавлю, ждём звонка.", True),
        ("Yes, that's everything, thanks.", True),
        ("Підтверджую ✅", True),
        ("Это всё так сложно", False),
        ("Верно говорите, бюджет маленький", False),
        ("Ничего особенного, просто ролик про кофе", False),
        ("Всё верно? А бюджет?", False),
    ],
)
def test_a_closing_is_told_from_a_message_that_says_something(text, closing):
    assert is_closing(text) is closing


# --- clients who write without capitals, names said in passing, amounts and dates as said ---


@pytest.mark.parametrize(
    ("text", "language", "name", "company"),
    [
        ("добрый день меня зовут ольга смирнова у нас пекарня хлебный дом в туле", "ru",
         "Ольга Смирнова", "Хлебный Дом"),
        ("привіт мене звати тарас бондар ми кав'ярня називається зерно і дим", "uk",
         "Тарас Бондар", "Зерно і Дим"),
        ("hi my name is priya and i run a bakery", "en", "Priya", None),
        # an oblique case names no company ("салон красоты" is a kind of salon)
        ("меня зовут ирина у нас салон красоты в центре", "ru", "Ирина", None),
    ],
)  # fmt: skip
def test_a_client_who_writes_in_lowercase_is_read_and_the_names_capitalised(
    text, language, name, company
):
    reading = read(text, language)
    assert value(reading, "clientName") == name
    assert value(reading, "company") == company


@pytest.mark.parametrize(
    ("text", "language", "product"),
    [
        ("We also make kayaks, and the new one is called the Drift 9, out in May.", "en",
         "Drift 9"),
        ("запускаем новую услугу, называется «Чистый Лист», для малого бизнеса", "ru",
         "Чистый Лист"),
        ("у нас сеть аптек «Здоровье», открываем лабораторию «Анализ Плюс» весной", "ru",
         "Анализ Плюс"),
    ],
)  # fmt: skip
def test_whatever_a_client_names_besides_their_company_is_the_product(text, language, product):
    assert value(read(text, language), "productName") == product


@pytest.mark.parametrize(
    ("text", "language", "product"),
    [
        ("Весной открываем семейный глэмпинг «Сосновый Берег» под Выборгом.", "ru",
         "Сосновый Берег"),
        ("Запускаємо нову послугу — «Сад під ключ», озеленення дворів.", "uk", "Сад під ключ"),
        ("мы варим сидр и вот новый назвали его северный ветер хотим ролик", "ru",
         "Северный Ветер"),
        ("We turned the old mill into a café, called The Millrace, opening in May.", "en",
         "The Millrace"),
        # someone else's name is a reference, not the product
        ("Нам нравится, как снимает «Азбука вкуса», хотим так же.", "ru", None),
    ],
)  # fmt: skip
def test_a_name_the_client_gives_a_thing_of_theirs_is_the_product(text, language, product):
    assert value(read(text, language), "productName") == product


def test_a_person_called_something_is_no_product():
    reading = read("Hi! I'm called Sam by everyone, the team is small.", "en")
    assert value(reading, "productName") is None


@pytest.mark.parametrize(
    ("text", "budget"),
    [
        ("бюджет где-то лям триста, не больше", 1_300_000),
        ("можем выделить миллион пятьсот", 1_500_000),
        ("маємо мільйон двісті гривень", 1_200_000),
        ("бюджет миллион 200 тысяч", 1_200_000),
    ],
)
def test_a_million_and_the_hundreds_after_it_are_one_amount(text, budget):
    assert value(read(text, "uk" if "маємо" in text else "ru"), "budget") == budget


@pytest.mark.parametrize(
    ("text", "language", "deadline"),
    [
        ("премьера у нас недели через три, надо успеть", "ru", "2026-12-22"),
        ("ролик нужен к Дню святого Валентина", "ru", "2027-02-14"),
        ("хочемо запустити до Великодня", "uk", "2027-05-02"),
        ("we need it live before Easter", "en", "2027-03-28"),
        # a written date wins over the holiday it is for
        ("ideally before Christmas, so by 18 December", "en", "2026-12-18"),
    ],
)  # fmt: skip
def test_relative_and_holiday_deadlines(text, language, deadline):
    assert value(read(text, language), "deadline") == deadline


def test_a_value_said_instead_of_another_corrects_it():
    reading = read("Good news: we can go up to 55 thousand instead of 40. Still dollars.", "en")
    assert reading.corrects
    assert value(reading, "budget") == 55_000


@pytest.mark.parametrize(
    ("text", "language", "name", "found"),
    [
        ("Audience is retired sailors on the south coast.", "en", "audience",
         "retired sailors on the south coast"),
        ("Главная мысль — свежий хлеб каждое утро. Цель — очереди с утра.", "ru", "coreIdea",
         "свежий хлеб каждое утро"),
        ("Deliverables: a 60-second film, two cut-downs, and a poster.", "en", "deliverables",
         ["a 60-second film", "two cut-downs", "a poster"]),
    ],
)  # fmt: skip
def test_a_labelled_answer_fills_its_field(text, language, name, found):
    assert value(read(text, language), name) == found


@pytest.mark.parametrize(
    ("text", "language", "deadline"),
    [
        ("Премьера 30 апреля, ролик нужен за неделю до неё, то есть к 23 апреля.", "ru",
         "2027-04-23"),
        ("The launch is on 5 June and we need the film two weeks before, so 22 May.", "en",
         "2027-05-22"),
    ],
)  # fmt: skip
def test_the_deadline_the_client_works_out_wins_over_the_date_it_comes_from(
    text, language, deadline
):
    assert value(read(text, language), "deadline") == deadline


@pytest.mark.parametrize(
    ("text", "day_fix"),
    [
        ("Ой, не 12-го, а 19-го, перепутала.", (12, 19)),
        ("Sorry, not the 3rd but the 10th.", (3, 10)),
        ("ні, не 10-го числа, а 17-го", (10, 17)),
        ("не 2 ролика, а 3", None),  # pieces, not days
    ],
)
def test_a_day_corrected_without_its_month_is_read_as_such(text, day_fix):
    assert read(text).day_fix == day_fix


@pytest.mark.parametrize(
    ("text", "language", "asked", "name"),
    [
        ("Sorry, I should have said — Morag McKenzie, I run the distillery.", "en",
         ("clientName", "company"), "Morag McKenzie"),
        ("Hi, Declan O'Brien here, from Atlantic Kayaks.", "en", (), "Declan O'Brien"),
        ("добрий день! я оксана мельник, пекарня «Колосок»", "uk", (), "Оксана Мельник"),
        ("прізвище — ковальчук 🙂 тарас ковальчук", "uk", ("clientName", "company"),
         "Тарас Ковальчук"),
        ("Kind regards,\nEleanor Whitfield\nHead of Marketing, Tyne Ales", "en", (),
         "Eleanor Whitfield"),
        ("Дякую.\n\nСвітлана Гнатюк", "uk", (), "Світлана Гнатюк"),
        # what is said where a name was asked is no name when it is a contact or a field word
        ("почта anna@teplo.org, телефон не даю", "ru", ("clientName",), None),
        ("Sorry, one moment please.", "en", ("clientName",), None),
        ("мы из пекарни", "ru", ("clientName",), None),
    ],
)  # fmt: skip
def test_a_name_is_read_wherever_a_person_writes_it_and_nothing_else_is(
    text, language, asked, name
):
    assert value(read(text, language, asked=asked), "clientName") == name


@pytest.mark.parametrize(
    ("text", "language", "name"),
    [
        ("здравствуйте это расшифровка голосового так что простите если криво меня зовут алексей "
         "третьяков я из спортивного клуба", "ru", "Алексей Третьяков"),
        ("алло це голосове добрий день мене звать тарас гуменюк фірма сонцедах з вінниці", "uk",
         "Тарас Гуменюк"),
    ],
)  # fmt: skip
def test_a_lowercase_name_follows_the_cue_that_introduces_someone(text, language, name):
    # the first cue ("это", "це") introduces the message, not a person
    assert value(read(text, language), "clientName") == name


def test_a_currency_named_on_its_own_fills_the_currency_only_while_it_is_empty():
    reading = read("Oh, and the sixty is US dollars, obviously.", "en")
    assert value(reading, "currency") == "USD"
    assert reading.get("currency").confidence < 0.85  # never replaces a currency already read
    assert value(read("Цены у конкурентов в рублях и долларах", "ru"), "currency") is None


@pytest.mark.parametrize(
    ("text", "language", "asked", "field", "expected"),
    [
        # a role is not a name, a surname keeps its particle
        ("Good afternoon, I'm Head of Communications at the harbour museum.", "en", (),
         "clientName", None),
        ("Company: Groenwerk, Eindhoven. I'm Sanne de Vries, product marketing.", "en",
         ("clientName", "company"), "clientName", "Sanne de Vries"),
        # a formal letter's opening verb is not part of the name
        ("Добрый день. Обращается Павел Кожевников, начальник отдела продвижения.", "ru", (),
         "clientName", "Павел Кожевников"),
        ("Доброго дня. Пише Дмитро Савицький, я керую маркетингом.", "uk", (), "clientName",
         "Дмитро Савицький"),
        # the thing launched or named in apposition is the product
        ("We're launching the Hallam Chef 8, an 8-inch chef's knife, in the US.", "en", (),
         "productName", "Hallam Chef 8"),
        ("Our big fundraiser, the Whisker Ball, is on April 17.", "en", (), "productName",
         "Whisker Ball"),
        # a quoted name after a noun for a thing is the product, after an organisation the company
        ("Котёл новый — «Байкал 24 Турбо», настенный.", "ru", ("clientName", "company"),
         "productName", "Байкал 24 Турбо"),
        ("Я керую маркетингом у громадській організації «Data Dnipro Community».", "uk", (),
         "company", "Data Dnipro Community"),
        # a sentence with a subject is no product name, asked or not
        ("Should we find someone? We'd like a Yorkshire accent.", "en", ("productName",),
         "productName", None),
    ],
)  # fmt: skip
def test_names_products_and_companies_as_clients_introduce_them(
    text, language, asked, field, expected
):
    assert value(read(text, language, asked=asked), field) == expected


def test_each_phone_is_read_in_the_first_region_that_reads_it():
    # the international number reads in any region (the first, US); the local one only as
    # British, the second region an English message's numbers are read in
    text = "+380 67 314 22 85 is the Kyiv office, mobile 07911 123456 — mobile's best"
    found = [c.value for c in contacts_find(text, "en")]
    assert found == ["+380673142285", "+447911123456"]
