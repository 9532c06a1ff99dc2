"""The reader on companies and client names as clients of holdout11 gave them: organisation
words the reader did not know (a bathhouse complex, a reindeer camp, an anti-café, a food
truck), a quoted name after any preposition put in the nominative, a place that is no
company, the English cues of the work a client does for a company, the company said before
its noun ("«X», парк отдыха", "X, a vertical farm"), and a surname put right after an
autocorrect slip or a marriage. Properties over frames, names and languages, not the set's
sentences."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from briefing.reader import CORRECTION, message_read
from briefing.reader.findings import NAME_FIELDS

TODAY = datetime.date(2026, 12, 3)


def read(text, language, asked=()):
    return message_read(text, language=language, today=TODAY, asked=asked)


def value(reading, name):
    finding = reading.get(name)
    return finding.value if finding else None


AMOUNT_FRAMES = {
    "ru": ["призовой фонд турнира {}", "у фонда {} на счету", "клуб {} человек, бюджет 90к"],
    "uk": ["призовий фонд турніру {}", "фонд {} гривень", "у клубу {} учасників, бюджет 40к"],
    "en": ["the prize fund is {}", "our club has {} members", "company {} and counting"],
}


@settings(deadline=3000, max_examples=60, derandomize=True)  # ms per example
@given(
    language=st.sampled_from(["ru", "uk", "en"]),
    data=st.data(),
    amount=st.from_regex(r"\A[1-9]\d{0,2}(?: \d{3})?(?:[.,]\d{1,2})?\Z"),
)
def test_a_name_field_never_holds_a_value_without_letters(language, data, amount):
    frame = data.draw(st.sampled_from(AMOUNT_FRAMES[language]))
    asked = data.draw(st.sampled_from([(), ("company",), ("clientName", "company")]))
    reading = read(frame.format(amount), language, asked)
    for finding in reading.findings:
        if finding.field in NAME_FIELDS:
            assert any(ch.isalpha() for ch in str(finding.value)), finding


ORG_FRAMES = {
    "ru": [("у нас банный комплекс «{}» в Тюмени", "Кедровый Пар"),
           ("нина юрьева. стойбище «{}», Ловозеро", "Тундровый Дом"),
           ("Мы держим антикафе «{}» у вокзала", "Кубик и Кофе"),
           ("Пишу из парка «{}», нужен ролик", "Озёрный Край")],
    "uk": [("у нас антикафе «{}», Івано-Франківськ", "Кубик і Кава"),
           ("родинна виноробня «{}» з Берегового", "Берегівська Лоза"),
           ("наш готельний комплекс «{}» біля моря", "Синя Хвиля")],
    "en": [("kasia. truck is {}, chicago", "Babcia's Wheels"),
           ("We run a distillery, {}, in Hobart", "Derwent Heads"),
           ("Our lodge is {} and we need a film", "Acacia Ridge")],
}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "frame", "company"),
    [(language, frame, company) for language, rows in ORG_FRAMES.items()
     for frame, company in rows],
)  # fmt: skip
def test_the_name_after_an_organisation_word_is_the_company(language, frame, company):
    assert value(read(frame.format(company), language), "company") == company


@pytest.mark.parametrize(
    ("text", "language", "company"),
    [
        ("у нас банный комплекс кедровый пар в тюмени и мы запускаем новую штуку", "ru",
         "Кедровый Пар"),
        ("у нас сыроварня белый луг в угличе вот", "ru", "Белый Луг"),
        ("у нас родинна виноробня берегівська лоза це берегове", "uk", "Берегівська Лоза"),
        # a noun that also reads as an adverb ("вік"), and the town said right after the name
        ("це ганна руденко громадська організація золотий вік луцьк ми вчимо", "uk",
         "Золотий Вік"),
    ],
)  # fmt: skip
def test_a_lowercase_adjective_and_its_noun_name_the_company_whole(text, language, company):
    """ "пар" reads first as the genitive plural of "пара": after an adjective it agrees
    with, it is the name's noun in the nominative."""
    assert value(read(text, language), "company") == company


OBLIQUE = {
    # (as written after the preposition, the nominative): singular and plural, every gender,
    # lowercase words of the name agreeing with its noun as well
    "ru": [("Тактилике", "Тактилика"), ("Северном Ветре", "Северный Ветер"),
           ("Глубине Байкала", "Глубина Байкала"), ("Пульсе", "Пульс"),
           ("Сибирских Кедрах", "Сибирские Кедры"), ("Добром Утре", "Доброе Утро"),
           ("Волжских речных верфях", "Волжские речные верфи")],
    "uk": [("Тактиліці", "Тактиліка"), ("Північному Вітрі", "Північний Вітер"),
           ("Зеленому Полі", "Зелене Поле"), ("Карпатських Травах", "Карпатські Трави")],
}  # fmt: skip
ROLE_FRAMES = {
    "ru": ["Привет! Я Арина Вепрева, CMO в «{}», Томск.", "Я маркетолог в «{}».",
           "Работаю директором по маркетингу в «{}»."],
    "uk": ["Я Олена Гнатюк, маркетологиня в «{}».", "Я керую маркетингом у «{}»."],
}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("We are a vertical farm in Jurong, Singapore, and need a film.", "en"),
        ("I run a bakery in Porto, Portugal, since 2010.", "en"),
        ("аудиторія це ресторани київ львів сомельє винні бари", "uk"),
        ("аудитория это рестораны москва казань и бары", "ru"),
    ],
)
def test_a_place_or_organisations_in_general_name_no_company(text, language):
    assert value(read(text, language), "company") is None


GENITIVE = {
    "ru": [("Сибирских Кедров", "Сибирские Кедры"), ("Доброго Утра", "Доброе Утро"),
           ("Волжских речных верфей", "Волжские речные верфи"),
           ("Тверского областного фонда культуры", "Тверской областной фонд культуры")],
    "uk": [("Зеленого Поля", "Зелене Поле"), ("Карпатських Трав", "Карпатські Трави")],
}  # fmt: skip
FROM_FRAMES = {
    "ru": ["Пишу из «{}», нужен ролик.", "Здравствуйте, это Олег Рябов из «{}»."],
    "uk": ["Пишу з «{}», потрібен ролик.", "Добрий день, це Олег Рябко від «{}»."],
}


@pytest.mark.parametrize(
    ("language", "frame", "written", "company"),
    [(language, frame, written, company)
     for frames_by_language, forms in ((ROLE_FRAMES, OBLIQUE), (FROM_FRAMES, GENITIVE))
     for language, frames in frames_by_language.items()
     for frame in frames for written, company in forms[language]],
)  # fmt: skip
def test_a_quoted_company_after_any_preposition_is_put_in_the_nominative(
    language, frame, written, company
):
    """The adjectives take the noun's number and gender: the words after the noun keep their
    own case ("фонда культуры" → "фонд культуры")."""
    assert value(read(frame.format(written), language), "company") == company


WORK_CUES = {
    "en": ["I look after marketing for {}, we're based in Gozo.",
           "Hi, I'm Rebecca. I do marketing and bookings for {}.",
           "I handle the socials at {} and need a film."],
    "ru": ["Я отвечаю за маркетинг в «{}».", "Я веду соцсети в «{}», нужен ролик."],
    "uk": ["Я керую маркетингом у «{}».", "Я відповідаю за рекламу в «{}»."],
}  # fmt: skip
WORK_COMPANIES = {
    "en": ["Saltpan Divers", "Nore Ash Hurleys", "Canopy Stack"],
    "ru": ["Тундровый Дом", "Лён и Луг"],
    "uk": ["Кубик і Кава", "Берегівська Лоза"],
}


@pytest.mark.parametrize(
    ("language", "frame", "company"),
    [(language, frame, company) for language, frames in WORK_CUES.items() for frame in frames
     for company in WORK_COMPANIES[language]],
)  # fmt: skip
def test_the_company_after_the_work_a_client_does_for_it(language, frame, company):
    assert value(read(frame.format(company), language), "company") == company


@pytest.mark.parametrize("company", ["Olare Plains Camp", "Nore Ash Hurleys"])
def test_the_company_after_the_work_a_client_does_for_it_in_lowercase(company):
    text = f"so um i do marketing and bookings for {company.lower()} we're small and new"
    assert value(read(text, "en"), "company") == company


APPOSED = {
    "en": ["{}, we're a dive centre in Xlendi.", "{}, a small distillery by the river.",
           "Greetings from {}, a vertical farm in Jurong, Singapore."],
    "ru": ["Мы — «{}», парк отдыха у озера.", "«{}», банный комплекс в Тюмени, пишет вам."],
    "uk": ["Ми — «{}», антикафе біля Ратуші.", "«{}» — родинна виноробня з Берегового."],
}  # fmt: skip
APPOSED_NAMES = {"en": ["Derwent Heads", "Canopy Stack"], "ru": ["Озёрный Край", "Кедровый Пар"],
                 "uk": ["Кубик і Кава", "Берегівська Лоза"]}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "frame", "company"),
    [(language, frame, company) for language, frames in APPOSED.items() for frame in frames
     for company in APPOSED_NAMES[language] if "{}" in frame],
)  # fmt: skip
def test_the_company_said_before_what_it_is(language, frame, company):
    assert value(read(frame.format(company), language), "company") == company


@pytest.mark.parametrize(
    "text",
    ["Morag McKenzie, I run the distillery.", "Jane Smith, a bakery owner from Leeds.",
     "Jane Smith, the owner of Crumbs bakery."],
)  # fmt: skip
def test_a_person_and_their_role_is_no_company(text):
    assert value(read(text, "en"), "company") not in ("Morag McKenzie", "Jane Smith")


RENAMES = {
    "en": ["Oh shoot, I wrote the old name. We renamed last spring — it's {} now.",
           "We rebranded in May, we're {} now, the old name was taken."],
    "ru": ["Мы переименовались, теперь мы «{}»."],
    "uk": ["Ми перейменувалися — тепер «{}», стару назву забрали."],
}  # fmt: skip
RENAMED = {"en": ["Lantern Row Tours", "Copper Kettle Co"], "ru": ["Северный Лён"],
           "uk": ["Кубик і Кава"]}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "frame", "company"),
    [(language, frame, company) for language, frames in RENAMES.items() for frame in frames
     for company in RENAMED[language]],
)  # fmt: skip
def test_a_renamed_company_is_a_correction_and_no_person(language, frame, company):
    reading = read(frame.format(company), language)
    assert value(reading, "company") == company
    assert reading.get("company").kind == CORRECTION
    assert value(reading, "clientName") != company


SURNAME_SAID = {
    "en": ["last name {last_lower} btw, {first_lower} {last_lower}",
           "Sorry, my surname changed: please write {first} {last}."],
    "ru": ["Поправлю фамилию: я вышла замуж. Пишите, пожалуйста, {first} {last}."],
    "uk": ["Вибачте, виправлю прізвище: тепер {last}. Пишіть, будь ласка, {first} {last}."],
}  # fmt: skip
PEOPLE = {"en": [("Kasia", "Nowicki"), ("Ciaran", "Dwyer")],
          "ru": [("Олеся", "Шибанова"), ("Анна", "Мелихова-Рощина")],
          "uk": [("Лариса", "Мороз-Кравець"), ("Ганна", "Мельник")]}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "frame", "first", "last"),
    [(language, frame, first, last) for language, frames in SURNAME_SAID.items()
     for frame in frames for first, last in PEOPLE[language]],
)  # fmt: skip
def test_the_full_name_after_a_client_speaks_of_their_surname_stands(language, frame, first, last):
    text = frame.format(first=first, last=last, first_lower=first.lower(),
                        last_lower=last.lower())  # fmt: skip
    reading = read(text, language)
    assert value(reading, "clientName") == f"{first} {last}"
    assert reading.get("clientName").kind == CORRECTION


@pytest.mark.parametrize(
    ("text", "language", "word"),
    [("ой автозамена, Шибанова! через и", "ru", "Шибанова"),
     ("sorry autocorrect, its Dwyer, no O. ciaran dwyer", "en", "Dwyer"),
     ("Ой, автозаміна: Мельник, звісно", "uk", "Мельник")],
)  # fmt: skip
def test_a_capitalised_word_after_owning_up_to_a_slip_is_spelt_again(text, language, word):
    assert word in read(text, language).respelt


@pytest.mark.parametrize(
    ("text", "name", "company"),
    [("ciaran o'dwyer, nore ash hurleys. family business, 3 generations", "Ciaran O'dwyer",
      "Nore Ash Hurleys"),
     ("олеся шибанова, лён и луг. всё делаю сама", "Олеся Шибанова", "Лён и Луг")],
)  # fmt: skip
def test_a_lowercase_introduction_line_answers_name_and_company(text, name, company):
    reading = read(text, "en" if text.isascii() else "ru", ("clientName", "company"))
    assert value(reading, "clientName") == name
    assert value(reading, "company") == company


@pytest.mark.parametrize(
    ("text", "language", "company"),
    [
        ("Мы — «Озёрный Край», парк отдыха. Тропа называется «Ледовая миля».", "ru",
         "Озёрный Край"),
        ("Ми — «Кубик і Кава», антикафе. Подія — «Ніч настолок».", "uk", "Кубик і Кава"),
    ],
)  # fmt: skip
def test_asked_for_the_company_the_one_said_as_ours_outranks_a_quoted_thing(
    text, language, company
):
    assert value(read(text, language, ("company",)), "company") == company


@pytest.mark.parametrize(
    ("text", "company"),
    [
        (
            "The official name is Rio Claro Workspaces, Lda. We rent desks.",
            "Rio Claro Workspaces Lda",
        ),
        ("We are Acme Widgets, Inc. and need a film.", "Acme Widgets Inc"),
        ("Our studio is Nordlys Film Oy in Tampere.", "Nordlys Film Oy"),
    ],
)
def test_a_legal_form_after_a_comma_or_of_any_country_closes_the_company(text, company):
    assert value(read(text, "en"), "company") == company


def test_countries_a_client_names_in_passing_are_no_company():
    text = "Target is remote teams, 25–40, from Germany, Netherlands, US. Goal: fill the desks."
    assert value(read(text, "en"), "company") is None


def test_a_capital_abbreviation_after_a_comma_is_no_legal_form():
    assert value(read("Hi, I am with Brightline, AB testing is our thing.", "en"), "company") == (
        "Brightline"
    )


def test_the_old_name_of_a_renamed_organisation_is_no_product_and_since_when_no_deadline():
    reading = read(
        "Организатор — ассоциация «Северный Код». Ой, поправлюсь: с января мы "
        "переименовались, теперь «Код Севера».",
        "ru",
    )
    assert value(reading, "company") == "Код Севера"
    assert value(reading, "productName") is None
    assert value(reading, "deadline") is None


@pytest.mark.parametrize(
    ("text", "language", "company"),
    [
        ("Я Віра Гайова, заступниця директора з наукової роботи Ніжинського краєзнавчого "
         "музею.", "uk", "Ніжинський краєзнавчий музей"),
        ("Я маркетолог Уральского завода металлоконструкций.", "ru",
         "Уральский завод металлоконструкций"),
        ("это ольга сергеевна пахомова из тамбовского областного центра занятости ну в общем",
         "ru", "Тамбовский областной центр занятости"),
        ("Пишу з Полтавської обласної бібліотеки.", "uk", None),  # no organisation word we know
    ],
)  # fmt: skip
def test_an_organisation_in_an_oblique_case_after_a_role_or_from_is_put_in_the_nominative(
    text, language, company
):
    assert value(read(text, language), "company") == company


@pytest.mark.parametrize(
    "text",
    ["Наш директор из соседнего фитнес клуба пришёл.",
     "Я директор, работаем в крупных сетевых магазинах."],
)  # fmt: skip
def test_organisations_in_general_are_no_company(text):
    assert value(read(text, "ru"), "company") is None


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("После ребрендинга мы «Северный Путь», старое «Полярный Круг» нигде не пишите.", "ru"),
        ("Тепер ми «Лан», стару назву «Поле» не згадуйте.", "uk"),
        ("We're 'Harbour Lights' now, the old name 'Pier Nine' is gone.", "en"),
    ],
)
def test_a_name_the_client_gave_up_is_no_value(text, language):
    reading = read(text, language)
    assert value(reading, "productName") is None
    assert value(reading, "company") not in ("Полярный Круг", "Поле", "Pier Nine")


def test_a_second_quoted_name_after_the_company_asked_for_is_the_new_thing():
    reading = read(
        "Я главврач клиники «Добрый Доктор» в Туле, Ирина Лапина. В марте открываем "
        "детское отделение — «Доктор Мишка»: педиатры и ЛОР.",
        "ru",
        asked=("clientName", "company"),
    )
    assert (value(reading, "company"), value(reading, "productName")) == (
        "Добрый Доктор",
        "Доктор Мишка",
    )


def test_a_lowercase_name_after_an_organisation_word_wins_over_the_word_itself():
    text = "меня зовут олег рябов я из футбольного клуба северная звезда мы в твери"
    assert value(read(text, "ru"), "company") == "Северная Звезда"


def test_a_name_said_to_be_the_old_one_after_it_is_no_value():
    reading = read(
        "Поправлю: полное наименование компании — «Север-Химпром». «Север-Хим» — прежнее название.",
        "ru",
    )
    assert (value(reading, "company"), value(reading, "productName")) == ("Север-Химпром", None)


def test_the_first_quoted_thing_stays_the_product_over_an_event_named_later():
    text = (
        "Просим снять ролик о нашей новой кровельной мастике «КровляПро Норд». Срок — к "
        "открытию выставки «Стройфорум» 10 марта."
    )
    assert value(read(text, "ru"), "productName") == "КровляПро Норд"


def test_a_quoted_name_after_we_already_in_the_reply_to_who_are_you_is_the_company_again():
    reading = read(
        "Я Ігор Ткач, співзасновник «ЕкоБджола». Ой, стоп, ми з осені вже «Медобджола».",
        "uk",
        asked=("clientName", "company"),
    )
    assert value(reading, "productName") is None
    assert value(reading, "company") == "Медобджола"


def test_a_name_put_right_with_not_but_is_read_though_a_product_came_before():
    reading = read("Вибачте, не «Сумипромнасос», а «Сумипромгідро».", "uk")
    assert value(reading, "productName") == "Сумипромгідро"


@pytest.mark.parametrize(
    ("text", "language", "company"),
    [
        ("Меня зовут Ольга Минина, я основательница «Ростовской сыроварни».", "ru",
         "Ростовская сыроварня"),
        ("Я засновниця «Карпатської майстерні».", "uk", "Карпатська майстерня"),
        ("Я директор «Альфа Групп».", "ru", "Альфа Групп"),
        ("Я из «Альфа Групп».", "ru", "Альфа Групп"),
    ],
)  # fmt: skip
def test_a_quoted_company_governed_by_a_role_is_put_in_the_nominative(text, language, company):
    assert value(read(text, language), "company") == company


def test_a_quoted_name_after_called_takes_its_nouns_kind_when_the_company_was_asked():
    reading = read(
        "Компания «Полевое Небо», я директор. Услуга называется «АгроЛёт»: приезжаем.",
        "ru",
        asked=("clientName", "company"),
    )
    assert (value(reading, "company"), value(reading, "productName")) == (
        "Полевое Небо",
        "АгроЛёт",
    )
