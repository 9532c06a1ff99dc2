"""Coercion to the schema and the deterministic normalisers."""

import pytest

from llmkit.parse.coerce import coerce
from tests.llmkit.schemas import LeadCard

SCHEMA = LeadCard.model_json_schema()


def coerced(**fields):
    data, changes = coerce({"client_intent": "purchase", **fields}, SCHEMA)
    return data, {c.path: c.kind for c in changes}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("около 500 тыс", 500_000),
        ("1,5 млн", 1_500_000),
        ("полмиллиона", 500_000),
        ("$2,500", 2_500),
        ("2.5k", 2_500),
        ("500 000 ₽", 500_000),
        ("150 тисяч", 150_000),
    ],
)
def test_budget_written_as_text_becomes_an_integer(text, expected):
    data, kinds = coerced(budget_rub=text)
    assert data["budget_rub"] == expected
    assert kinds["budget_rub"] in {"number_text", "number_in_text"}
    assert kinds["budget_rub"] == "number_text"


@pytest.mark.parametrize(
    ("word", "expected"),
    [("да", True), ("Yes", True), ("так", True), ("нет", False), ("no", False), ("ні", False)],
)
def test_booleans_from_words(word, expected):
    data, kinds = coerced(needs_call_back=word)
    assert data["needs_call_back"] is expected
    assert kinds["needs_call_back"] == "bool_text"


@pytest.mark.parametrize("word", ["не указано", "n/a", "—", "unknown", "невідомо"])
def test_null_likes_become_null_where_null_is_allowed(word):
    data, kinds = coerced(product_class=word, budget_rub=word)
    assert data["product_class"] is None
    assert data["budget_rub"] is None
    assert kinds["product_class"] == "null_like"


def test_enum_by_case_and_synonym():
    assert coerce({"client_intent": "PURCHASE"}, SCHEMA)[0]["client_intent"] == "purchase"
    assert coerce({"client_intent": "покупка"}, SCHEMA)[0]["client_intent"] == "purchase"
    # An unknown word stays as it was: validation must report it, not a guess.
    assert coerce({"client_intent": "refund"}, SCHEMA)[0]["client_intent"] == "refund"


def test_single_value_where_a_list_is_expected():
    data, kinds = coerced(phones="8 (916) 123-45-67")
    assert data["phones"] == ["+79161234567"]
    assert kinds["phones"] == "wrap_list"
    assert kinds["phones.0"] == "phone_e164"


@pytest.mark.parametrize(
    "written", ["8 916 123 45 67", "+7 (916) 123-45-67", "8-916-123-45-67", "89161234567"]
)
def test_russian_phones_are_normalised_to_e164(written):
    assert coerced(phones=[written])[0]["phones"] == ["+79161234567"]


def test_emails_lowercased_and_strings_trimmed():
    data, kinds = coerced(emails=["  Ivan@Example.COM "], summary="  hello  ")
    assert data["emails"] == ["ivan@example.com"]
    assert data["summary"] == "hello"
    assert kinds["summary"] == "trimmed"


def test_integral_float_becomes_int_and_renamed_key_is_taken():
    data, changes = coerce({"clientIntent": "info", "urgency_days": 14.0}, SCHEMA)
    assert data["client_intent"] == "info"
    assert data["urgency_days"] == 14
    assert {c.kind for c in changes} == {"key_alias", "float_to_int"}


def test_values_that_already_fit_are_left_alone():
    clean = {
        "client_intent": "service",
        "product_class": "SUV",
        "budget_rub": 3_000_000,
        "urgency_days": 7,
        "needs_call_back": True,
        "phones": ["+79161234567"],
        "emails": ["a@b.ru"],
        "summary": "wants a test drive",
    }
    data, changes = coerce(clean, SCHEMA)
    assert data == clean
    assert changes == []


def test_text_that_is_not_a_number_is_left_for_validation_to_report():
    data, kinds = coerced(budget_rub="ask the manager")
    assert data["budget_rub"] == "ask the manager"
    assert "budget_rub" not in kinds


@pytest.mark.parametrize(
    ("text", "expected"),
    [("~120 тыс. в месяц", 120_000), ("45 days", 45), ("примерно 300 000 рублей", 300_000)],
)
def test_the_one_number_of_a_short_phrase(text, expected):
    data, kinds = coerced(budget_rub=text)
    assert data["budget_rub"] == expected
    assert kinds["budget_rub"] in {"number_text", "number_in_text"}


@pytest.mark.parametrize("text", ["от 100 до 200 тыс", "2 or 3 million", "call me"])
def test_ranges_and_words_are_not_guessed(text):
    assert coerced(budget_rub=text)[0]["budget_rub"] == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Да, немного", True),
        ("not yet", False),
        ("No, but maybe later", False),
        ("пока нет", False),
    ],
)
def test_booleans_from_phrases_opening_with_yes_or_no(text, expected):
    assert coerced(needs_call_back=text)[0]["needs_call_back"] is expected


def test_a_phrase_without_a_yes_or_no_word_stays_for_validation():
    assert coerced(needs_call_back="depends on price")[0]["needs_call_back"] == "depends on price"
