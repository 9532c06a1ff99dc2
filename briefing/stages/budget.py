"""Stage 4, budget and timeline: the amount, its currency, the deadline and how firm they are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, get_args

from pydantic import BeforeValidator, Field

from briefing.stages.base import StageAnswer, StageSpec
from briefing.stages.checks import check_stage
from briefing.stages.fields import StageFields, Text
from briefing.stages.prompts import stage_prompt
from briefing.stages.readers import read_budget, read_currency, read_deadline, read_text
from briefing.stages.summaries import format_value, labels_for
from llmkit.extract import Currency

CURRENCIES = frozenset(get_args(Currency))


def _currency_code(value: Any) -> Any:
    """ "" is unknown, and "руб." / "$" / "usd" name a code: not worth a retry."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.upper() in CURRENCIES:
        return text.upper()
    if not text:
        return None
    # An unknown currency is left as it is, to fail validation rather than vanish.
    return read_currency(text, "ru") or text


class BudgetFields(StageFields):
    budget: int | None = Field(
        default=None, ge=0, description="The budget as a whole number of currency units"
    )
    currency: Annotated[Currency | None, BeforeValidator(_currency_code)] = Field(
        default=None, description="The budget's currency"
    )
    deadline: Text = Field(
        default=None,
        description="The deadline as an ISO date YYYY-MM-DD when known, else the client's words",
    )
    flexibility: Text = Field(
        default=None, description="How flexible the budget and the deadline are"
    )


class BudgetAnswer(BudgetFields, StageAnswer):
    budgetStatus: bool = False


REQUIRED = ("budget", "deadline")
FIELDS = ("budget", "currency", "deadline", "flexibility")

TITLES = {"ru": "Бюджет и сроки", "uk": "Бюджет і терміни", "en": "Budget and timeline"}

QUESTIONS = {
    "ru": {
        "budget": "Какой бюджет вы закладываете на проект?",
        "currency": "В какой валюте бюджет: рубли, доллары, евро или гривны?",
        "deadline": "К какому сроку нужен готовый результат?",
        "flexibility": "Насколько гибки бюджет и сроки?",
    },
    "uk": {
        "budget": "Який бюджет ви закладаєте на проєкт?",
        "currency": "У якій валюті бюджет: гривні, долари, євро чи рублі?",
        "deadline": "До якого терміну потрібен готовий результат?",
        "flexibility": "Наскільки гнучкі бюджет і терміни?",
    },
    "en": {
        "budget": "What budget do you have in mind for the project?",
        "currency": "Which currency is the budget in: RUB, USD, EUR or UAH?",
        "deadline": "When do you need the finished result?",
        "flexibility": "How flexible are the budget and the deadline?",
    },
}

REASKS = {
    "ru": {
        "budget": "Хотя бы примерно: на какую сумму вы ориентируетесь?",
        "deadline": "Есть ли дата, к которой всё должно быть готово?",
    },
    "uk": {
        "budget": "Хоча б приблизно: на яку суму ви орієнтуєтеся?",
        "deadline": "Чи є дата, до якої все має бути готово?",
    },
    "en": {
        "budget": "Even roughly, what amount are you thinking of?",
        "deadline": "Is there a date by which it all has to be ready?",
    },
}

OPENING = {
    "ru": "Спасибо! Теперь о бюджете и сроках.",
    "uk": "Дякую! Тепер про бюджет і терміни.",
    "en": "Thank you! Now about the budget and the timeline.",
}

LABELS = {
    "ru": {"budget": "Бюджет", "deadline": "срок", "deadline_first": "Срок"},
    "uk": {"budget": "Бюджет", "deadline": "термін", "deadline_first": "Термін"},
    "en": {"budget": "Budget", "deadline": "deadline", "deadline_first": "Deadline"},
}


def summary(fields: Mapping[str, Any], language: str) -> str:
    """ "Бюджет: 500 000 RUB, срок: 2027-03-15 (гибко)": the flexibility in brackets."""
    labels = labels_for(LABELS, language)
    parts = []
    budget, currency = fields.get("budget"), fields.get("currency")
    if budget is not None and budget != "":
        amount = format_value(budget) + (f" {currency}" if currency else "")
        parts.append(f"{labels['budget']}: {amount}")
    deadline = fields.get("deadline")
    if deadline:
        label = labels["deadline"] if parts else labels["deadline_first"]
        parts.append(f"{label}: {format_value(deadline)}")
    line = ", ".join(parts)
    flexibility = fields.get("flexibility")
    if flexibility and line:
        line += f" ({format_value(flexibility)})"
    elif flexibility:
        line = format_value(flexibility)
    return line


STAGE = StageSpec(
    key="budget",
    title=TITLES["en"],
    answer_model=BudgetAnswer,
    status_field="budgetStatus",
    fields=FIELDS,
    required=REQUIRED,
    prompt=stage_prompt(
        stage="budget and timeline",
        collect=(
            "the budget (a whole number), its currency (RUB, USD, EUR or UAH), the deadline "
            "and how flexible both are"
        ),
        status_field="budgetStatus",
        required=REQUIRED,
        example="What budget do you have in mind, and by when do you need the result?",
        rules=(
            "Write the deadline as YYYY-MM-DD when the client names a date, else in their words.",
        ),
    ),
    questions=QUESTIONS,
    reasks=REASKS,
    opening=OPENING,
    summary=summary,
    readers={
        "budget": read_budget,
        "currency": read_currency,
        "deadline": read_deadline,
        "flexibility": read_text,
    },
    prefill={"budget": "budget", "currency": "currency", "deadline": "deadline"},
)
check_stage(STAGE)
