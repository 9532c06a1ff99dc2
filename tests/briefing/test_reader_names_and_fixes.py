"""The reader on what clients of holdout8 did (first run 1/24): names with diacritics,
signatures in every form, a name restated in a correcting message, a role before the
company, a reply that is no name, a budget said one sentence after its cue, slang for
thousands, and a day put right alone. Properties over names and wordings, not the set's
sentences."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from briefing.reader import CORRECTION, message_read
from briefing.reader.findings import ANY_DAY
from briefing.reader.names import name_nominative
from briefing.turn.reading import _month_restated, _respelt_into, surname_put_right

TODAY = datetime.date(2026, 12, 3)

# Names as European clients write them: Polish, Czech, German, French, Spanish, Portuguese,
# Nordic, Turkish, Romanian, Hungarian.
FIRST_NAMES = ["Paweł", "Łukasz", "Zoë", "José", "Søren", "Ángela", "Çağla", "Jiří", "Émile",
               "Björn", "Małgorzata", "João", "Ştefan", "Ádám", "Inés", "Anna"]  # fmt: skip
SURNAMES = ["Zieliński", "Żak", "Müller", "Núñez", "Ørsted", "Dvořák", "Gonçalves", "Öztürk",
            "Lefèvre", "Šimek", "Kowalczyk", "Ångström", "Popescu", "Szűcs", "Brennan"]  # fmt: skip

RU_NAMES = ["Тимур Садыков", "Варвара Лыкова", "Геннадий Ломов", "Ольга Сизова", "Игорь Белов"]
UK_NAMES = ["Наталія Решетняк", "Юлія Гринчук", "Оксана Кміть", "Дмитро Стоянов"]
EN_NAMES = ["Jordan Pike", "Marcus Reyes", "Niamh O'Shea", "Paweł Zieliński"]


def read(text, language, asked=()):
    return message_read(text, language=language, today=TODAY, asked=asked)


def value(reading, name):
    finding = reading.get(name)
    return finding.value if finding else None


@settings(deadline=2000, max_examples=60, derandomize=True)  # ms per example
@given(
    first=st.sampled_from(FIRST_NAMES),
    last=st.sampled_from(SURNAMES),
    opening=st.sampled_from(["My name is {}, ", "Hi, I'm {} and ", "Hello! This is {}, "]),
)
def test_a_name_with_diacritics_is_read_whole(first, last, opening):
    name = f"{first} {last}"
    text = opening.format(name) + "I run marketing at a small firm. We need a launch video."
    assert value(read(text, "en"), "clientName") == name


SIGNATURES = {
    "ru": ["С уважением, {}", "\n\n{}", "\n— {}, агентство «Север»", "\n{}, директор"],
    "uk": ["З повагою, {}", "\n\n{}", "\n— {}, студія «Лан»", "\n{}, власниця"],
    "en": ["Kind regards, {}", "\n\n{}", "\n— {}, Latchwell", "\n{}, head of marketing"],
}
BODIES = {
    "ru": "Телефон +7 913 615-37-40, пишите в любое время.",
    "uk": "Телефон 067 481 29 03, пишіть будь-коли.",
    "en": "Best number (512) 555-0143, e-mail works too.",
}


@settings(deadline=2000, max_examples=60, derandomize=True)  # ms per example
@given(data=st.data(), language=st.sampled_from(["ru", "uk", "en"]))
def test_a_signed_name_is_read_in_every_form_of_signature(data, language):
    names = {"ru": RU_NAMES, "uk": UK_NAMES, "en": EN_NAMES}[language]
    name = data.draw(st.sampled_from(names))
    signature = data.draw(st.sampled_from(SIGNATURES[language]))
    text = BODIES[language] + signature.format(name)
    assert value(read(text, language), "clientName") == name


@pytest.mark.parametrize(
    ("text", "language", "name"),
    [
        ("Звати мене Ганна Мельничук. Перепрошую — Мельник, Ганна Мельник, це автозаміна 🙈",
         "uk", "Ганна Мельник"),
        ("Sorry, typo central this morning: it's Ashworth-Lee, double-barrelled — Tom "
         "Ashworth-Lee.", "en", "Tom Ashworth-Lee"),
        ("Меня зовут Инна Ковальчук, ой, опечатка: Инна Ковальчик.", "ru", "Инна Ковальчик"),
    ],
)  # fmt: skip
def test_the_last_full_name_of_a_correcting_message_stands(text, language, name):
    finding = read(text, language).get("clientName")
    assert finding.value == name
    assert finding.kind == CORRECTION


@pytest.mark.parametrize(
    ("text", "language", "company"),
    [
        ("Здравствуйте. Я CMO в «Бастион Софт», Казань.", "ru", "Бастион Софт"),
        ("Я руководитель отдела маркетинга на хладокомбинате «Северный Пломбир».", "ru",
         "Северный Пломбир"),
        ("Мене звати Дмитро Стоянов, я комерційний директор виноробні «Бессарабські Пагорби».",
         "uk", "Бессарабські Пагорби"),
    ],
)  # fmt: skip
def test_a_quoted_name_after_the_clients_role_is_the_company(text, language, company):
    assert value(read(text, language), "company") == company
    assert value(read(text, language), "productName") is None


@pytest.mark.parametrize(
    ("text", "language"),
    [("Цель — привести зрителей на трибуны.", "ru"), ("By Canada Day.", "en"),
     ("До весни, десь у березні.", "uk"), ("Мета — продажі в мережах.", "uk")],
)  # fmt: skip
def test_a_reply_to_the_name_question_that_is_no_name_gives_none(text, language):
    assert value(read(text, language, asked=("clientName",)), "clientName") is None


@pytest.mark.parametrize("name", ["Олена", "Варя", "Aoife", "Jordan"])
def test_a_first_name_alone_still_answers_the_name_question(name):
    language = "uk" if name == "Олена" else "ru" if name == "Варя" else "en"
    assert value(read(name, language, asked=("clientName",)), "clientName") == name


def test_a_plural_reading_never_makes_a_surname():
    assert value(read("Меня Тимур зовут, Тимур Садыков.", "ru"), "clientName") == "Тимур Садыков"


# (as written, the nominative): a woman's surname the dictionary knows only as a man's, and a
# first name that could be a woman's in the nominative or a man's in the genitive
NAMES_IN_CASES = {
    "ru": [("Лариса Кобзева", "Лариса Кобзева"), ("Ларисой Кобзевой", "Лариса Кобзева"),
           ("Олега Кравцова", "Олег Кравцов"), ("Инну Бурцеву", "Инна Бурцева")],
    "uk": [("Олександра Коваленка", "Олександр Коваленко"), ("Марії Шевченко", "Марія Шевченко")],
}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "written", "name"),
    [(language, written, name) for language, rows in NAMES_IN_CASES.items()
     for written, name in rows],
)  # fmt: skip
def test_a_surname_takes_the_case_and_gender_of_its_first_name(language, written, name):
    assert name_nominative(written, language) == name


@pytest.mark.parametrize(
    ("text", "language", "budget", "currency"),
    [
        ("Бюджет считаем в евро, ролик для клиентов в ОАЭ. 18 000 евро. Это ок?", "ru", 18000,
         "EUR"),
        ("Budget: we talked it over with the board. $45,000, all in.", "en", 45000, "USD"),
        ("ну по деньгам полтора ляма где-то можем, а ски-пасс будет стоить тыщу девятьсот",
         "ru", 1_500_000, "RUB"),
        ("грошей маємо сто двадцять кусків гривень на відео", "uk", 120_000, "UAH"),
        ("бюджет сорок кусков", "ru", 40_000, "RUB"),
    ],
)  # fmt: skip
def test_the_budget_is_read_where_clients_put_it(text, language, budget, currency):
    reading = read(text, language)
    assert value(reading, "budget") == budget
    assert value(reading, "currency") == currency


@pytest.mark.parametrize(
    "text",
    [
        "Бюджет пока назвать не могу. Призовой фонд турнира 1 миллион.",
        "Budget: can't say yet. Last year we spent $30,000 on ads.",
    ],
)
def test_an_amount_after_a_budget_put_off_is_no_budget(text):
    assert value(read(text, "en" if text.startswith("Budget") else "ru"), "budget") is None


@pytest.mark.parametrize(
    ("text", "language", "deadline"),
    [
        ("Deadline is April 12th. Sorry — the 19th, I was looking at the wrong sprint.", "en",
         "2027-04-19"),
        ("Відео треба до 1 серпня. Ой, ні, до 10-го — 1-го ще не буде програми.", "uk",
         "2027-08-10"),
        ("видео хотим выпустить ко Дню космонавтики, 12 апреля", "ru", "2027-04-12"),
        ("Нужно к 10 февраля. Хотя нет, не 10-го, а к 5-му — потом выставка.", "ru",
         "2027-02-05"),
        # said in one breath, the day in words (a voice message)
        ("треба до двадцятого березня ні стоп не двадцятого а до двадцять восьмого бо лак",
         "uk", "2027-03-28"),
        ("need it by waitangi day the sixth of february that's when bookings open", "en",
         "2027-02-06"),
        ("we'd love it by march the twenty-first if possible", "en", "2027-03-21"),
        ("Doors open May 20, so we need it by May 12 — oh wait, the printers need time, make "
         "it the 6th.", "en", "2027-05-06"),
        # a holiday with its date, beside an event's own date or a length of time
        ("20 февраля проводим фестиваль «Огни Склона». Ролик нужен к Татьяниному дню, "
         "25 января, — стартуют скидки.", "ru", "2027-01-25"),
        ("choreography designed in two weeks, not two months. We'd like it finished by Anzac "
         "Day, 25 April, as bookings open then.", "en", "2027-04-25"),
    ],
)  # fmt: skip
def test_a_deadline_and_the_day_put_right_after_it(text, language, deadline):
    assert value(read(text, language), "deadline") == deadline


def test_a_day_alone_put_right_names_the_new_day_only():
    reading = read("Sorry — the 19th, I was looking at the wrong sprint.", "en")
    assert reading.day_fix == (ANY_DAY, 19)
    assert read("Sorry, 3 videos, not 2.", "en").day_fix is None


@pytest.mark.parametrize(
    ("text", "language", "references", "constraints"),
    [
        ("References: the old Magners ads, but faster 😄 Must-haves: nobody under 25 on screen.",
         "en", ["the old Magners ads, but faster 😄"], "nobody under 25 on screen"),
        ("Рефы: канал «Рыбалка с Фишером». Ограничения: без алкоголя в кадре.", "ru",
         ["канал «Рыбалка с Фишером»"], "без алкоголя в кадре"),
    ],
)  # fmt: skip
def test_labelled_references_and_constraints_are_theirs_not_the_questions(
    text, language, references, constraints
):
    reading = read(text, language, asked=("contentType", "format"))
    assert value(reading, "references") == references
    assert value(reading, "constraints") == constraints
    assert reading.answer_text == ""


@pytest.mark.parametrize(
    ("text", "language", "wanted"),
    [
        ("Creative session yes, we want the trailer to tell a story.", "en", True),
        ("Yes please to a creative session — we have a mood board but no script.", "en", True),
        ("Refs: the AirTag film. Creative session: nah, our agency wrote the script.", "en", False),
        ("No creative session. Refs: Lemonade ads.", "en", False),
        ("референсы ну ролики дикой мяты нравятся креативную сессию давайте", "ru", True),
        ("Креативна сесія потрібна.", "uk", True),
        ("Креативную сессию не нужно, сценарий готов.", "ru", False),
    ],
)  # fmt: skip
def test_a_creative_session_said_in_passing_is_read_and_answers_nothing_else(
    text, language, wanted
):
    reading = read(text, language, asked=("format",))
    assert value(reading, "creativeSession") is wanted
    assert "creative" not in reading.answer_text.lower()
    assert "креатив" not in reading.answer_text.lower()


@pytest.mark.parametrize(
    "text",
    [
        "Also, can you even shoot 'summer' in Ireland in February?",
        "By the way, do you work with archive footage?",
        "Кстати, а вы на косу выезжаете?",
        "Снимаете ли вы на настоящей тренировке?",
    ],
)
def test_a_question_to_the_studio_is_a_question_however_it_opens(text):
    language = "en" if text.isascii() else "ru"
    reading = read(text, language, asked=("deliverables",))
    assert reading.asks
    assert reading.answer_text == ""


@pytest.mark.parametrize(
    ("text", "language", "deadline"),
    [
        ("We need it by St Patrick's Day, as the cans go out that week.", "en", "2027-03-17"),
        ("By Canada Day.", "en", "2027-07-01"),
        ("Відео треба до Дня Незалежності.", "uk", "2027-08-24"),
        ("ролик надо к майским", "ru", "2027-05-01"),
    ],
)
def test_holidays_clients_set_deadlines_by(text, language, deadline):
    assert value(read(text, language), "deadline") == deadline


@pytest.mark.parametrize(
    "text",
    [
        "A new cider (€4.50 a can), the audience is 25-40 drinkers, a 30s spot, that week.",
        "Спиннинг стоит 12 990, ЦА 30–55 лет, ролик на 15 сек, через неделю пришлём бриф.",
    ],
)
def test_prices_ranges_and_lengths_are_no_dates(text):
    reading = read(text, "en" if text.isascii() else "ru", asked=("deadline",))
    assert value(reading, "deadline") in (None, "2026-12-10")  # only "через неделю" is a date


def test_a_name_in_apposition_after_our_new_thing_is_the_product():
    text = "Need a video for our new renters' insurance plan, RenterShield."
    assert value(read(text, "en"), "productName") == "RenterShield"


def test_a_preposition_is_never_a_first_name_in_lowercase():
    text = "на видео семьсот пятьдесят тысяч это из гранта"
    assert value(read(text, "ru", asked=("clientName",)), "clientName") is None


@pytest.mark.parametrize(
    ("text", "language", "fix"),
    [
        ("школа называется Volga Talks, не Volga English, мы ребрендились", "ru",
         ("Volga English", "Volga Talks")),
        ("Бондаренко, не Бондар", "uk", ("Бондар", "Бондаренко")),
        ("it's Smak Hospitality, not Smak Group", "en", ("Smak Group", "Smak Hospitality")),
    ],
)  # fmt: skip
def test_the_words_put_right_in_two_names_that_start_alike(text, language, fix):
    assert read(text, language).word_fix == fix


@pytest.mark.parametrize(
    ("text", "product"),
    [
        ("so we've got this new deck coming out called the burnside it's made from old lanes",
         "Burnside"),
        ("our new tour is called sea breeze so yeah we need a video", "Sea Breeze"),
    ],
)  # fmt: skip
def test_a_lowercase_english_name_stops_where_the_sentence_goes_on(text, product):
    assert value(read(text, "en"), "productName") == product


@pytest.mark.parametrize(
    "text",
    [
        "the old bowling alley then our shop then kids skating it at the park",
        "deadline 20th march, the shop rollout got moved up",
    ],
)
def test_lowercase_english_after_an_organisation_word_names_no_company(text):
    assert value(read(text, "en"), "company") is None


def test_a_greeted_team_is_the_studio_not_the_clients_company():
    reading = read("Hi team — Priya Nair here, head of marketing at Saltbush Skincare.", "en")
    assert value(reading, "clientName") == "Priya Nair"
    assert value(reading, "company") == "Saltbush Skincare"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("hiya, i'm fiona mcbride from Thistle & Tartan in Edinburgh 👋", "Fiona Mcbride"),
        ("hi um so this is marta reis from salt and sun retreats", "Marta Reis"),
        ("i'm looking for a studio from Kyiv", None),
        ("this is our new shop at the corner", None),
        ("i'm really excited, we launch soon", None),
    ],
)
def test_a_lowercase_english_name_needs_where_the_client_is_from(text, name):
    assert value(read(text, "en"), "clientName") == name


@pytest.mark.parametrize(
    ("text", "deadline"),
    [
        ("need by Chinese New Year, 6 Feb, the sambal goes into gift packs", "2027-02-06"),
        ("We need it by Burns Night, that's when bookings kick off.", "2027-01-25"),
        ("Ready by Australia Day, when our summer push starts.", "2027-01-26"),
        ("Нужно к Новому году.", "2026-12-31"),
    ],
)
def test_a_holiday_deadline_is_its_own_day_and_the_lunar_new_year_no_31_december(text, deadline):
    language = "ru" if text.startswith("Нужно") else "en"
    assert value(read(text, language), "deadline") == deadline


def test_a_budget_cue_after_but_belongs_to_the_amount_after_it():
    text = "bottle is S$8.90 only, but budget for video we set USD 25k, all in USD"
    reading = read(text, "en")
    assert (value(reading, "budget"), value(reading, "currency")) == (25000, "USD")


@pytest.mark.parametrize(
    ("text", "language", "name"),
    [
        ("Добрый день. Пишет Воронова Елена Сергеевна, начальник отдела маркетинга.", "ru",
         "Елена Воронова"),
        ("Здравствуйте, Иванов Пётр Сергеевич, директор.", "ru", "Пётр Иванов"),
        ("Добрий день, Коваленко Ірина Петрівна, маркетолог.", "uk", "Ірина Коваленко"),
        ("Меня зовут Олег Кравцов.", "ru", "Олег Кравцов"),
        # a surname that looks like a patronymic of the other gender stays a surname
        ("Я маркетолог на фабрике «Нить», зовут Дарья Климович.", "ru", "Дарья Климович"),
    ],
)  # fmt: skip
def test_a_name_written_as_a_form_writes_it_is_read_first_name_then_surname(text, language, name):
    assert value(read(text, language), "clientName") == name


@pytest.mark.parametrize(
    ("text", "language", "current", "fixed"),
    [
        ("ой сори, фамилия Мелихова, через и, вечно автозамена(((", "ru", "Кристина Мелехова",
         "Кристина Мелихова"),
        ("McDonagh, one word — my phone keeps splitting it, sorry!", "en", "Siobhan Mc Donagh",
         "Siobhan McDonagh"),
        ("там написало ракитин а правильно ракитский с и краткой на конце", "ru",
         "Глеб Ракитин", "Глеб Ракитский"),
        ("Sorry, it's spelt Nicholls, double l", "en", "Ann Nichols", "Ann Nicholls"),
    ],
)  # fmt: skip
def test_a_name_spelt_again_replaces_the_word_it_nearly_is(text, language, current, fixed):
    words = read(text, language).respelt
    assert words
    for word in words:
        current = _respelt_into(current, word)
    assert current == fixed


@pytest.mark.parametrize("current", ["Марина Ковальчук", "Anna Brown"])
def test_a_word_spelt_again_leaves_a_name_it_is_not_alone(current):
    for word in read("правильно будет так: бюджет 2 млн, sorry", "ru").respelt:
        assert _respelt_into(current, word) == current


def test_a_deadline_said_again_by_its_month_keeps_the_day_known():
    reading = read("А знімати можете в травні? Хоча ні, дедлайн же в березні...", "uk")
    month_only = reading.get("deadline")
    assert month_only.value == "2027-03-31"
    assert _month_restated(month_only, "2027-03-20")
    assert not _month_restated(month_only, "2027-04-20")
    assert not _month_restated(read("Дедлайн — 25 березня.", "uk").get("deadline"), "2027-03-20")


@pytest.mark.parametrize(
    ("current", "said", "name"),
    [
        ("Greg Halvorsen", "Halverson", "Greg Halverson"),
        ("Марина Кузмина", "Кузьмина", "Марина Кузьмина"),
        ("Greg Halvorsen", "Gregory Halvorsen", "Gregory Halvorsen"),
        ("Greg Halvorsen", "Anna", "Anna"),  # a new name, not a word put right
        ("Greg", "Gregg", "Gregg"),
    ],
)
def test_a_single_word_for_a_full_name_puts_right_the_word_it_nearly_is(current, said, name):
    assert surname_put_right(current, said) == name


@pytest.mark.parametrize(
    "opening",
    ["Здравствуйте, это {}.", "Меня зовут {}.", "это {} из центра", "алло это {} ну в общем"],
)
@pytest.mark.parametrize("written", ["Галина Петровна Ремезова", "галина петровна ремезова"])
def test_a_patronymic_between_the_first_name_and_the_surname_is_dropped(opening, written):
    text = opening.format(written)
    text = text.lower() if written.islower() else text
    assert value(read(text, "ru"), "clientName") == "Галина Ремезова"


@pytest.mark.parametrize(
    "text",
    [
        "аудитория мужики от двадцати пяти до сорока и компании которые корпоратив ищут",
        "у нас компания ну короче небольшая",
    ],
)
def test_a_pronoun_or_a_particle_after_an_organisation_word_starts_no_name(text):
    assert value(read(text, "ru"), "company") is None
