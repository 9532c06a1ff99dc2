"""The rules agent: a deterministic Provider that fills a JSON Schema from the extractors."""

from __future__ import annotations

import datetime
import json
import logging
from typing import Any, Literal

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from llmkit.providers.rules import RulesProvider, RulesTurn
from llmkit.types import Completion, Message, Provider, Usage

TODAY = datetime.date(2026, 5, 20)
BRIEF = (
    "Бюджет около 500 тыс. руб., звоните 8 (900) 123-45-67 или +7 916 765 43 21, "
    "почта Ivan@Example.com, сайт www.example.ru. Нужно через 2 недели."
)


class Lead(BaseModel):
    client_intent: Literal["purchase", "service", "info", "complaint"]
    product_class: str | None = None
    budget_rub: int | None = Field(default=None, ge=0)
    urgency_days: int | None = Field(default=None, ge=1, le=90)
    needs_call_back: bool = False
    phones: list[str] = Field(default_factory=list)
    emails: list[str] = Field(default_factory=list)
    summary: str = Field(max_length=200)


class Contact(BaseModel):
    phone: str | None = None
    email: str = ""
    website: str | None = None


class Budget(BaseModel):
    message: str
    budget: int | None = Field(default=None, ge=0)
    currency: str | None = None
    deadline: datetime.date | None = None
    flexible: bool = False
    contact: Contact
    tone: Literal["formal", "casual"] | None = None


def _provider(**kwargs: Any) -> RulesProvider:
    return RulesProvider(today=lambda: TODAY, **kwargs)


def _ask(schema: dict | None, text: str = BRIEF, **kwargs: Any) -> Any:
    messages = [Message("system", "Ты помощник."), Message("user", text)]
    return json.loads(_provider(**kwargs).chat(messages, schema=schema).text)


def test_it_is_a_provider_named_rules() -> None:
    provider = RulesProvider()
    assert isinstance(provider, Provider)
    assert (provider.name, provider.model) == ("rules", "rules-v1")
    assert provider.needs_budget is False  # no I/O: failover may call it after the budget


def test_without_a_schema_it_answers_an_empty_object_at_no_cost() -> None:
    completion = _provider().chat([Message("user", BRIEF)])
    assert isinstance(completion, Completion)
    assert completion.text == "{}"
    assert completion.usage == Usage()
    assert completion.provider == "rules"
    assert completion.model == "rules-v1"
    assert completion.latency_s >= 0


def test_it_fills_a_lead_card_from_the_last_user_message() -> None:
    schema = Lead.model_json_schema()
    answer = _ask(schema)
    jsonschema.validate(answer, schema)
    Lead.model_validate(answer)
    assert answer == {
        "client_intent": "purchase",  # an enum gets its first value
        "product_class": None,  # a nullable string stays null
        "budget_rub": 500000,
        "urgency_days": 14,
        "needs_call_back": False,
        "phones": ["+79001234567", "+79167654321"],
        "emails": ["ivan@example.com"],
        "summary": "",  # a required string with nothing to say
    }


def test_it_fills_nested_models_through_refs() -> None:
    schema = Budget.model_json_schema()
    answer = _ask(schema)
    jsonschema.validate(answer, schema)
    Budget.model_validate(answer)
    assert answer["budget"] == 500000
    assert answer["currency"] == "RUB"
    assert answer["deadline"] == "2026-06-03"
    assert answer["flexible"] is False
    assert answer["tone"] is None  # a nullable enum is null
    assert answer["contact"] == {
        "phone": "+79001234567",
        "email": "ivan@example.com",
        "website": "https://www.example.ru",
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Хотим ролик к лету", "Спасибо"),
        ("Хочемо відео, дякую", "Дякую"),
        ("We need a video", "Thank you"),
    ],
)
def test_the_message_is_short_neutral_and_in_the_clients_language(text: str, expected: str) -> None:
    answer = _ask({"type": "object", "properties": {"message": {"type": "string"}}}, text)
    assert answer["message"].startswith(expected)


def test_a_currency_specific_field_takes_only_that_currency() -> None:
    schema = {
        "type": "object",
        "properties": {
            "budget_rub": {"type": ["integer", "null"]},
            "budgetUsd": {"type": ["integer", "null"]},
            "price_eur": {"type": ["integer", "null"]},
        },
    }
    answer = _ask(schema, "готовы $3000 или 250 тыс руб")
    assert answer == {"budget_rub": 250000, "budgetUsd": 3000, "price_eur": None}


def test_range_ends_go_to_min_and_max_fields() -> None:
    schema = {
        "type": "object",
        "properties": {
            "budget_min": {"type": "integer"},
            "budget_max": {"type": "integer"},
            "amounts": {"type": "array", "items": {"type": "integer"}},
        },
    }
    answer = _ask(schema, "от 300 до 500 тыс рублей")
    assert answer == {"budget_min": 300000, "budget_max": 500000, "amounts": [300000, 500000]}


def test_types_without_findings_get_neutral_values() -> None:
    schema = {
        "type": "object",
        "required": ["a", "b", "c", "d", "e", "f", "g", "h"],
        "properties": {
            "a": {"type": "boolean"},
            "b": {"type": "string"},
            "c": {"type": ["string", "null"]},
            "d": {"type": "array", "items": {"type": "string"}},
            "e": {"enum": ["x", "y"]},
            "f": {"type": "integer", "minimum": 3},
            "g": {"const": "fixed"},
            "h": {"type": "object", "properties": {"deep": {"type": "number"}}},
        },
        "additionalProperties": False,
    }
    answer = _ask(schema, "просто привет")
    jsonschema.validate(answer, schema)
    assert answer == {
        "a": False,
        "b": "",
        "c": None,
        "d": [],
        "e": "x",
        "f": 3,
        "g": "fixed",
        "h": {"deep": 0},
    }


def test_phone_string_field_and_out_of_range_days() -> None:
    schema = {
        "type": "object",
        "properties": {
            "phone": {"type": "string"},
            "deadline_days": {"anyOf": [{"type": "integer", "maximum": 7}, {"type": "null"}]},
            "due": {"type": "string", "format": "date"},
        },
    }
    answer = _ask(schema, "8 900 123 45 67, через месяц")
    # 31 days does not fit "maximum: 7": left empty rather than squeezed into the range.
    assert answer == {"phone": "+79001234567", "deadline_days": None, "due": "2026-06-20"}


def test_it_reads_only_the_last_user_message() -> None:
    schema = {"type": "object", "properties": {"budget": {"type": ["integer", "null"]}}}
    messages = [
        Message("user", "бюджет 100 тыс руб"),
        Message("assistant", "А сколько готовы потратить максимум? Например 900 тыс руб"),
        Message("user", "200 тыс руб"),
    ]
    answer = json.loads(_provider().chat(messages, schema=schema).text)
    assert answer == {"budget": 200000}


def test_a_responder_adds_stage_specific_fields() -> None:
    seen: list[RulesTurn] = []

    def responder(turn: RulesTurn) -> dict[str, Any]:
        seen.append(turn)
        return {"message": "Какой бюджет?" if not turn.money else "Записал бюджет."}

    schema = {
        "type": "object",
        "properties": {"message": {"type": "string"}, "budget": {"type": ["integer", "null"]}},
    }
    answer = _ask(schema, "бюджет 1 млн руб", responder=responder)
    assert answer == {"message": "Записал бюджет.", "budget": 1000000}
    [turn] = seen
    assert turn.text == "бюджет 1 млн руб"
    assert turn.language == "ru"
    assert turn.filled == {"message": turn.filled["message"], "budget": 1000000}


def test_a_failing_responder_falls_back_to_the_rules_fill() -> None:
    def responder(turn: RulesTurn) -> dict[str, Any]:
        raise RuntimeError("template bug")

    schema = {"type": "object", "properties": {"budget": {"type": ["integer", "null"]}}}
    assert _ask(schema, "1 млн руб", responder=responder) == {"budget": 1000000}


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#"},
        {"$ref": "#/nowhere"},
        {"$ref": "https://example.com/schema.json"},
        {"type": "object", "properties": {"loop": {"$ref": "#"}}},
        {"type": "object", "properties": "not a dict"},
        {"type": "array"},
        {"anyOf": []},
        {"allOf": [{"type": "object", "properties": {"a": {"type": "boolean"}}}]},
    ],
)
def test_odd_schemas_still_get_json(schema: dict) -> None:
    completion = _provider().chat([Message("user", BRIEF)], schema=schema)
    json.loads(completion.text)


def test_odd_messages_do_not_break_it() -> None:
    provider = _provider()
    for messages in ([], None, "text", [None, 5, {"role": "user", "content": "5 млн руб"}]):
        completion = provider.chat(
            messages,  # type: ignore[arg-type]
            schema={"type": "object", "properties": {"budget": {"type": ["integer", "null"]}}},
        )
        json.loads(completion.text)
    completion = provider.chat(
        [{"role": "user", "content": "5 млн руб"}],  # type: ignore[list-item]
        schema={"type": "object", "properties": {"budget": {"type": "integer"}}},
    )
    assert json.loads(completion.text) == {"budget": 5000000}


_JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=10)
_SCHEMAS = st.recursive(
    st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(
                ["object", "array", "string", "integer", "number", "boolean", "null"]
            )
            | st.lists(st.sampled_from(["string", "integer", "null"]), max_size=3),
            "enum": st.lists(_JSON_SCALARS, max_size=3),
            "format": st.sampled_from(["date", "date-time", "email", "uri", "phone"]),
            "minimum": st.integers(-5, 5),
            "maximum": st.integers(-5, 5),
            "maxLength": st.integers(0, 5),
            "$ref": st.sampled_from(["#", "#/properties", "#/$defs/x", "bad"]),
        },
    ),
    lambda children: st.fixed_dictionaries(
        {},
        optional={
            "type": st.just("object"),
            "properties": st.dictionaries(
                st.sampled_from(["budget", "phones", "email", "deadline", "x_days", "message"]),
                children,
                max_size=4,
            ),
            "items": children,
            "anyOf": st.lists(children, max_size=3),
            "allOf": st.lists(children, max_size=2),
            "$defs": st.fixed_dictionaries({"x": children}),
        },
    ),
    max_leaves=12,
)


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@settings(max_examples=200)
@given(st.text(max_size=300), _SCHEMAS)
def test_it_never_raises_and_always_answers_json(text: str, schema: dict) -> None:
    errors = _Errors()
    logger = logging.getLogger("llmkit.providers.rules")
    logger.addHandler(errors)
    try:
        completion = _provider().chat([Message("user", text)], schema=schema)
    finally:
        logger.removeHandler(errors)
    json.loads(completion.text)
    assert completion.usage == Usage()
    # The catch-all is a last resort, not how odd schemas are handled.
    assert errors.records == []


def test_a_call_gives_the_rules_agent_its_own_responder_and_the_chain_stays_shared():
    """rules_answering: the chain's last link answers one call's way; the other links and the
    circuit breakers are the same objects, and the chain itself is left as it was."""
    from llmkit.failover import FailoverChain
    from llmkit.providers.rules import rules_answering

    class Down:
        name, model = "down", "down-1"

        def chat(self, messages, **kwargs):
            from llmkit.types import ProviderError

            raise ProviderError("unavailable", "down")

    base = FailoverChain([Down(), RulesProvider()], budget_s=5)
    schema = {"title": "Answer", "type": "object", "properties": {"answer": {"type": "string"}}}
    ask = [Message("user", "hello")]
    mine = rules_answering(base, lambda turn: {"answer": "mine"})
    theirs = rules_answering(base, lambda turn: {"answer": "theirs"})
    assert json.loads(mine.chat(ask, schema=schema).text) == {"answer": "mine"}
    assert json.loads(theirs.chat(ask, schema=schema).text) == {"answer": "theirs"}
    assert mine.providers[0] is base.providers[0]
    assert mine.breakers == base.breakers
    assert base.providers[-1].responder is None  # the shared chain answers generically
    plain = rules_answering(RulesProvider(), lambda turn: {"answer": "alone"})
    assert json.loads(plain.chat(ask, schema=schema).text) == {"answer": "alone"}
