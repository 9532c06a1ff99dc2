"""The production briefing's stage definitions: answer models, gates, question templates,
readers, summaries and the registry."""

from __future__ import annotations

import dataclasses
import datetime
import functools
import re

import pytest
from pydantic import ValidationError

from briefing.reader import FINDING_FIELDS
from briefing.stages.base import LANGUAGES, StageAnswer
from briefing.stages.checks import check_stage
from briefing.stages.fields import READ_TEXT_MAX
from briefing.stages.readers import (
    read_budget,
    read_contact,
    read_currency,
    read_deadline,
    read_list,
    read_name,
    read_references,
    read_text,
    read_yes_no,
)
from briefing.stages.registry import (
    BRIEFING_TYPES,
    DEFAULT_BRIEFING_TYPE,
    stage_by_key,
    stage_title,
    stages_for,
)
from briefing.stages.service import ServiceAnswer
from briefing.stages.summaries import THIN_SPACE, format_number

STAGES = stages_for(DEFAULT_BRIEFING_TYPE)
TODAY = datetime.date(2026, 11, 29)

# A full, valid value for every field of every stage.
FULL = {
    "intro": {
        "clientName": "Иван Петров",
        "company": "ООО «Ромашка»",
        "contact": "+79161234567",
        "role": "маркетолог",
        "projectType": "промо-ролик",
    },
    "vision": {
        "productName": "Ромашка Плюс",
        "coreIdea": "Утро начинается с чая",
        "goal": "продажи",
        "audience": "женщины 25–40",
        "keyMessage": "натурально",
        "brandTone": "тёплый",
    },
    "service": {
        "contentType": "рекламный ролик",
        "goal": "ТВ и соцсети",
        "format": "30 секунд, 16:9",
        "deliverables": ["ролик 30 с", "3 тизера"],
        "creativeSession": True,
    },
    "budget": {
        "budget": 500000,
        "currency": "RUB",
        "deadline": "2027-03-15",
        "flexibility": "гибко",
    },
    "extra": {
        "references": ["https://youtube.com/watch?v=1"],
        "preferences": "без закадрового голоса",
        "constraints": "брендбук",
        "notes": "позвонить после 18:00",
    },
}


def ids(spec):
    return spec.key


# --- the answer models and the gate -----------------------------------------------------


def test_production_type_has_the_five_stages_in_order():
    assert [s.key for s in STAGES] == ["intro", "vision", "service", "budget", "extra"]
    assert [s.status_field for s in STAGES] == [f"{s.key}Status" for s in STAGES]


@pytest.mark.parametrize("spec", STAGES, ids=ids)
def test_an_answer_with_only_a_message_validates(spec):
    answer = spec.answer_model.model_validate({"message": "hi"})
    assert isinstance(answer, StageAnswer)
    assert getattr(answer, spec.status_field) is False
    assert spec.missing(answer.model_dump()) == list(spec.required)


@pytest.mark.parametrize("spec", STAGES, ids=ids)
def test_a_full_answer_validates_and_leaves_nothing_missing(spec):
    answer = spec.answer_model.model_validate(
        {"message": "ok", **FULL[spec.key], spec.status_field: True}
    )
    dumped = answer.model_dump()
    assert {name: dumped[name] for name in spec.fields} == FULL[spec.key]
    assert spec.missing(dumped) == []


@pytest.mark.parametrize("spec", STAGES, ids=ids)
def test_blank_strings_count_as_empty(spec):
    blanks = {name: "  " for name in spec.fields if isinstance(FULL[spec.key][name], str)}
    answer = spec.answer_model.model_validate({"message": "hi", **blanks})
    assert spec.missing(answer.model_dump()) == list(spec.required)


def test_a_partial_answer_misses_the_rest():
    intro = stage_by_key("production", "intro")
    assert intro.missing({"clientName": "Иван", "contact": ""}) == ["contact", "projectType"]
    service = stage_by_key("production", "service")
    partial = {"contentType": "ролик", "format": "16:9", "deliverables": []}
    assert service.missing(partial) == ["deliverables"]


def test_the_extra_stage_has_no_required_field():
    assert stage_by_key("production", "extra").missing({}) == []


def test_service_answer_json_is_exactly_the_design_shape():
    expected = {
        "message": "hi",
        "askedField": None,
        "contentType": None,
        "goal": None,
        "format": None,
        "deliverables": [],
        "creativeSession": False,
        "serviceStatus": False,
    }
    dumped = ServiceAnswer.model_validate({"message": "hi"}).model_dump(mode="json")
    assert dumped == expected
    assert list(dumped) == list(expected)
    assert list(ServiceAnswer.model_json_schema()["properties"]) == list(expected)


def test_budget_rejects_a_negative_amount_and_an_unknown_currency():
    budget = stage_by_key("production", "budget")
    with pytest.raises(ValidationError, match="budget"):
        budget.answer_model.model_validate({"message": "x", "budget": -5})
    with pytest.raises(ValidationError, match="currency"):
        budget.answer_model.model_validate({"message": "x", "currency": "GBP"})


@pytest.mark.parametrize(
    ("given", "expected"), [("rub", "RUB"), ("руб.", "RUB"), ("$", "USD"), ("", None)]
)
def test_budget_currency_takes_common_spellings(given, expected):
    budget = stage_by_key("production", "budget")
    answer = budget.answer_model.model_validate({"message": "x", "currency": given})
    assert answer.currency == expected


def test_prefill_and_locks_point_at_the_stage_fields():
    specs = {spec.key: spec for spec in STAGES}
    assert set(specs["intro"].prefill) == {
        "clientName", "company", "role", "contact", "projectType"
    }  # fmt: skip
    assert specs["budget"].prefill == {
        "budget": "budget",
        "currency": "currency",
        "deadline": "deadline",
    }
    assert specs["extra"].prefill == {"references": "references"}
    # each finding goes to one stage only
    taken = [finding for spec in STAGES for finding in spec.prefill]
    assert len(taken) == len(set(taken))
    assert specs["intro"].locks == {"clientName": "client_name"}
    assert specs["vision"].locks == {"productName": "product_name", "brandTone": "brand_tone"}
    assert all(set(spec.prefill) <= set(FINDING_FIELDS) for spec in STAGES)
    lock_keys = [key for spec in STAGES for key in spec.locks.values()]
    assert len(lock_keys) == len(set(lock_keys))


def test_unknown_keys_in_an_answer_are_ignored():
    answer = ServiceAnswer.model_validate({"message": "hi", "mood": "great"})
    assert "mood" not in answer.model_dump()


# --- texts -------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", STAGES, ids=ids)
def test_every_field_has_a_question_and_every_stage_an_opening_in_each_language(spec):
    for language in LANGUAGES:
        assert set(spec.questions[language]) == set(spec.fields)
        assert all("?" in q for q in spec.questions[language].values())
        assert spec.opening[language].strip()
        assert stage_title(spec, language).strip()


def _texts(spec, language):
    return [
        *spec.questions[language].values(),
        spec.opening[language],
        stage_title(spec, language),
    ]


@pytest.mark.parametrize("spec", STAGES, ids=ids)
def test_ukrainian_texts_have_no_russian_only_letters(spec):
    for text in _texts(spec, "uk"):
        assert not re.search("[ыэъё]", text, re.IGNORECASE), text


@pytest.mark.parametrize("spec", STAGES, ids=ids)
def test_texts_are_in_their_own_language(spec):
    for text in _texts(spec, "en"):
        assert not re.search("[а-яіїєґ]", text, re.IGNORECASE), text
    for text in _texts(spec, "ru"):
        assert not re.search("[іїєґ]", text, re.IGNORECASE), text
    # Each language is written on its own, not copied from another.
    assert spec.questions["uk"] != spec.questions["ru"]


@pytest.mark.parametrize("spec", STAGES, ids=ids)
def test_prompt_is_a_short_english_block_naming_the_gate(spec):
    lines = spec.prompt.splitlines()
    assert 3 <= len(lines) <= 12
    assert spec.prompt.isascii()
    assert spec.status_field in spec.prompt
    assert all(name in spec.prompt for name in spec.required)
    assert "Example question" in spec.prompt
    assert "{" not in spec.prompt  # the engine appends the schema, not the prompt


@pytest.mark.parametrize("spec", STAGES, ids=ids)
def test_readers_only_for_the_stage_fields(spec):
    assert set(spec.readers) <= set(spec.fields)
    assert all(name in spec.readers for name in spec.required)


def test_check_stage_catches_drift():
    intro = stage_by_key("production", "intro")
    with pytest.raises(ValueError, match="questions"):
        check_stage(dataclasses.replace(intro, questions={**intro.questions, "uk": {}}))
    with pytest.raises(ValueError, match="required"):
        check_stage(dataclasses.replace(intro, required=("nope",)))
    with pytest.raises(ValueError, match="fields"):
        check_stage(dataclasses.replace(intro, fields=intro.fields[:-1]))


# --- readers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("8 (916) 123-45-67", "ru", "+79161234567"),
        ("мій номер 067 123 45 67", "uk", "+380671234567"),
        ("8 916 123 45 67", "uk", "+79161234567"),
        # every contact is kept, in the order written
        (
            "пишите на Ivan@Example.com или звоните +7 916 765 43 21",
            "ru",
            "ivan@example.com, +79167654321",
        ),
        ("ivan@example.com please", "en", "ivan@example.com"),
        ("в телеграме", "ru", None),
    ],
)
def test_read_contact(text, language, expected):
    assert read_contact(text, language) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("около 500 тыс", 500000),
        ("1,5 млн ₽", 1500000),
        ("500 000", 500000),
        ("150 тисяч гривень", 150000),
        ("$20k", 20000),
        ("от 300 до 500 тыс руб", 300000),
        ("12%", None),
        ("пока не знаю", None),
    ],
)
def test_read_budget(text, expected):
    assert read_budget(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,5 млн ₽", "RUB"),
        ("150 тисяч гривень", "UAH"),
        ("$20k", "USD"),
        ("в рублях", "RUB"),
        ("у гривнях", "UAH"),
        ("euro", "EUR"),
        ("500 тыс", None),
        ("рубли или доллары", None),
    ],
)
def test_read_currency(text, expected):
    assert read_currency(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("к 15 марта", "ru", "2027-03-15"),
        ("через 2 недели", "ru", "2026-12-13"),
        ("до кінця місяця", "uk", "2026-11-30"),
        ("by March 15, 2027", "en", "2027-03-15"),
        ("как можно скорее", "ru", "как можно скорее"),
        ("не знаю", "ru", None),
    ],
)
def test_read_deadline(text, language, expected):
    assert read_deadline(text, language, today=TODAY) == expected
    assert functools.partial(read_deadline, today=TODAY)(text, language) == expected


def test_read_deadline_defaults_to_today():
    expected = (datetime.date.today() + datetime.timedelta(days=14)).isoformat()
    assert read_deadline("in 2 weeks", "en") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ролик 30 с, 3 тизера и обложки", ["ролик 30 с", "3 тизера", "обложки"]),
        ("відео та фото; банери", ["відео", "фото", "банери"]),
        (
            "- main video\n- two cut-downs\n- stills and a poster.",
            ["main video", "two cut-downs", "stills", "a poster"],
        ),
        ("нет", None),
    ],
)
def test_read_list(text, expected):
    assert read_list(text, "ru") == expected


def test_read_references_takes_links_else_the_clients_words():
    text = "вот youtube.com/watch?v=1 и https://vimeo.com/2, ещё www.apple.com."
    assert read_references(text, "ru") == [
        "https://youtube.com/watch?v=1",
        "https://vimeo.com/2",
        "https://www.apple.com",
    ]
    assert read_references("как у Apple, минимализм", "ru") == ["как у Apple, минимализм"]
    assert read_references("нет", "ru") is None


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("Да, конечно", "ru", True),
        ("Нет, не нужна", "ru", False),
        ("Думаю, не нужно", "ru", False),
        ("Хотим, было бы здорово", "ru", True),
        ("не знаю", "ru", None),
        ("Так, звісно", "uk", True),
        ("Ні", "uk", False),
        ("Не потрібна", "uk", False),
        ("Yes please", "en", True),
        ("No need, thanks", "en", False),
        ("We'd like that", "en", True),
        ("maybe later", "en", None),
        ("Так себе идея", "ru", None),
    ],
)
def test_read_yes_no(text, language, expected):
    assert read_yes_no(text, language) is expected


def test_read_text_trims_caps_and_drops_nothing_answers():
    assert read_text("  промо-ролик\n для сайта ", "ru") == "промо-ролик для сайта"
    assert read_text("не знаю", "ru") is None
    assert read_text("N/A", "en") is None
    long = read_text("слово " * 200, "ru")
    assert long is not None
    assert len(long) <= READ_TEXT_MAX
    assert long.endswith("слово")


def test_read_name_drops_a_lead_in():
    assert read_name("Меня зовут Иван Петров.", "ru") == "Иван Петров"
    assert read_name("Мене звати Олена", "uk") == "Олена"
    assert read_name("I'm John from Acme", "en") == "John from Acme"
    assert read_name("ООО «Ромашка»", "ru") == "ООО «Ромашка»"


def test_the_stages_wire_the_right_readers():
    intro = stage_by_key("production", "intro")
    assert intro.readers["contact"]("тел. 8 916 123-45-67", "ru") == "+79161234567"
    budget = stage_by_key("production", "budget")
    assert budget.readers["budget"]("бюджет 2 млн рублей", "ru") == 2000000
    assert budget.readers["currency"]("бюджет 2 млн рублей", "ru") == "RUB"
    service = stage_by_key("production", "service")
    assert service.readers["creativeSession"]("да", "ru") is True
    assert service.readers["deliverables"]("video and photos", "en") == ["video", "photos"]
    vision = stage_by_key("production", "vision")
    assert vision.readers["audience"](" молодые мамы ", "ru") == "молодые мамы"


# --- summaries ---------------------------------------------------------------------------


def test_format_number_uses_thin_spaces():
    assert format_number(500000) == f"500{THIN_SPACE}000"
    assert format_number(1234567.5) == f"1{THIN_SPACE}234{THIN_SPACE}567,5"
    assert format_number(999) == "999"


def test_budget_summary_reads_like_the_example():
    budget = stage_by_key("production", "budget")
    fields = {"budget": 500000, "currency": "RUB", "deadline": "2027-03-15", "flexibility": "гибко"}
    assert (
        budget.summary(fields, "ru") == f"Бюджет: 500{THIN_SPACE}000 RUB, срок: 2027-03-15 (гибко)"
    )
    assert budget.summary({"deadline": "2027-03-15"}, "uk") == "Термін: 2027-03-15"
    assert budget.summary({"budget": 0}, "en") == "Budget: 0"


@pytest.mark.parametrize("spec", STAGES, ids=ids)
@pytest.mark.parametrize("language", LANGUAGES)
def test_summaries_omit_empty_fields(spec, language):
    empty = spec.answer_model.model_validate({"message": "hi"}).model_dump()
    assert spec.summary(empty, language) == ""
    full = spec.summary(FULL[spec.key], language)
    assert full
    for value in FULL[spec.key].values():
        if isinstance(value, str):
            assert value in full


def test_summaries_are_written_in_the_language():
    intro = stage_by_key("production", "intro")
    fields = {"clientName": "Иван", "contact": "+79161234567"}
    assert intro.summary(fields, "ru") == "Клиент: Иван\nКонтакт: +79161234567"
    assert intro.summary(fields, "uk") == "Клієнт: Иван\nКонтакт: +79161234567"
    assert intro.summary(fields, "en") == "Client: Иван\nContact: +79161234567"
    service = stage_by_key("production", "service")
    summary = service.summary(FULL["service"], "en")
    assert "Deliverables: ролик 30 с, 3 тизера" in summary
    assert "Creative session: requested" in summary
    assert "Creative" not in service.summary({**FULL["service"], "creativeSession": False}, "en")


# --- the registry ------------------------------------------------------------------------


def test_registry_lookups():
    assert BRIEFING_TYPES[DEFAULT_BRIEFING_TYPE] is STAGES
    assert stage_by_key("production", "budget").key == "budget"
    with pytest.raises(KeyError, match=r"unknown briefing type 'podcast'.*production"):
        stages_for("podcast")
    with pytest.raises(KeyError, match=r"no stage 'outro'.*intro, vision"):
        stage_by_key("production", "outro")


def test_stage_titles_are_localised():
    vision = stage_by_key("production", "vision")
    assert stage_title(vision, "ru") == "Идея проекта"
    assert stage_title(vision, "uk") == "Ідея проєкту"
    assert stage_title(vision, "en") == vision.title == "Core vision"
    assert stage_title(vision, "de") == "Core vision"


@pytest.mark.parametrize(
    "text",
    ["Хм, пока не знаю", "Не уверен, надо подумать", "not sure yet", "Ще не знаю, треба подумати"],
)
def test_hesitation_is_no_answer(text):
    from briefing.stages.readers import read_list, read_name, read_text

    assert read_text(text, "ru") is None
    assert read_name(text, "ru") is None
    assert read_list(text, "ru") is None


def test_a_long_answer_that_hesitates_first_is_still_an_answer():
    from briefing.stages.readers import read_text

    text = "Не знаю точно, но думаю про молодых родителей в больших городах"
    assert read_text(text, "ru") == text


@pytest.mark.parametrize(
    "text",
    [
        "Референсов нет",
        "Референсов пока нет, спасибо",
        "Nothing to add, thanks!",
        "Ні, дякую.",
        "Нет, спасибо",
        "No references",
        "Нет ограничений",
        "Ничего не нужно, спасибо",
    ],
)
def test_a_polite_no_is_nothing(text):
    assert read_text(text, "ru") is None
    assert read_list(text, "ru") is None
    assert read_references(text, "ru") is None


@pytest.mark.parametrize(
    "text",
    [
        "Нет ограничений по хронометражу, главное вертикально",
        "No voice-over, just music",
        "Нет, озвучка не нужна",
        "No references, but we like https://youtu.be/x",
    ],
)
def test_a_no_with_content_is_an_answer(text):
    assert read_text(text, "ru") == text
    assert read_references(text, "ru")


def test_a_polite_no_is_still_a_no_to_a_yes_no_question():
    assert read_yes_no("Нет, спасибо", "ru") is False
    assert read_yes_no("Ні, дякую.", "uk") is False
    assert read_yes_no("Думаю, нет", "ru") is False


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Меня зовут Анна Соколова, я маркетолог.", "Анна Соколова"),
        ("I'm Mark Tayler, head of marketing at Brightside.", "Mark Tayler"),
        ("Анна Петрова — генеральный директор", "Анна Петрова"),
        ("Олена, бренд-менеджер", "Олена"),
        ("Мене звати Олена. Я відповідаю за SMM", "Олена"),
        ("Іван Петренко (SMM)", "Іван Петренко"),
        ("Anna Lee, co-founder of Brightside", "Anna Lee"),
        # A company (no role word) is part of who they are; initials are no sentence end.
        ("Анна Петрова, компания «Вкусно»", "Анна Петрова, компания «Вкусно»"),
        ("Анна Петрова, компания «Вкусно», маркетолог", "Анна Петрова, компания «Вкусно»"),
        ("Mark J. Tayler", "Mark J. Tayler"),
        ("Anna, Headway Inc", "Anna, Headway Inc"),
    ],
)
def test_read_name_drops_a_role_after_the_name(text, expected):
    assert read_name(text, "ru") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Around €18,000.", ["Around €18,000"]),
        ("1,5 млн, 2 ролика", ["1,5 млн", "2 ролика"]),
        ("subtitles in Dutch and English", ["subtitles in Dutch and English"]),
        ("Dutch and English subtitles, a poster", ["Dutch and English subtitles", "a poster"]),
        (
            "субтитры на русском и английском, обложки",
            ["субтитры на русском и английском", "обложки"],
        ),
        ("ролик для Instagram и TikTok", ["ролик для Instagram и TikTok"]),
        # Other conjunctions still split: a list without commas, or "a, b and c".
        ("video and photos", ["video", "photos"]),
        ("3 тизера для соцсетей и обложки", ["3 тизера для соцсетей", "обложки"]),
        (
            "ролик 15 с, два ролики по 6 с та фото меню",
            ["ролик 15 с", "два ролики по 6 с", "фото меню"],
        ),
        ("a teaser, a poster and stills", ["a teaser", "a poster", "stills"]),
    ],
)
def test_read_list_keeps_numbers_and_language_pairs_whole(text, expected):
    assert read_list(text, "en") == expected
