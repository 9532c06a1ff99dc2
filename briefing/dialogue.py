"""The rules agent's dialogue manager: it knows everything the reader already found, asks only
for required fields still missing (two related ones together), takes the entity out of a
direct answer, never stores a confirmation, a greeting or a question, answers a
counter-question by promising the producer, and reads the brief back before it completes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from briefing.reader.chatter import is_chatter
from briefing.stages.base import StageSpec, is_empty
from briefing.stages.readers import read_budget, read_currency, read_deadline
from briefing.stages.summaries import format_value

# Fields the reader reads itself (names, contacts, amounts, dates): a direct answer to them
# is the reader's finding, not the whole message.
READER_FIELDS = frozenset(
    {"clientName", "company", "contact", "productName", "budget", "currency", "deadline"}
)

# Two related fields asked in one question: (first, second) → question by language.
QUESTION_PAIRS: dict[tuple[str, str], Mapping[str, str]] = {
    ("clientName", "company"): {
        "ru": "Как вас зовут и какую компанию вы представляете?",
        "uk": "Як вас звати і яку компанію ви представляєте?",
        "en": "What is your name, and which company do you represent?",
    },
    ("budget", "deadline"): {
        "ru": "Какой бюджет вы закладываете на проект и к какому сроку нужен результат?",
        "uk": "Який бюджет ви закладаєте на проєкт і до якого терміну потрібен результат?",
        "en": "What budget do you have in mind, and when do you need the finished result?",
    },
}
COUNTER_QUESTION = {
    "ru": "Хороший вопрос — передам его продюсеру, он ответит вам лично.",
    "uk": "Гарне питання — передам його продюсеру, він відповість вам особисто.",
    "en": "Good question: I will pass it to your producer, who will answer you personally.",
}
READBACK = {
    "ru": ("Записала: {items}.", "Если всё верно — есть ли у вас референсы или пожелания? "
           "Если что-то не так, просто поправьте меня."),
    "uk": ("Записала: {items}.", "Якщо все правильно — чи є у вас референси або побажання? "
           "Якщо щось не так, просто виправте мене."),
    "en": ("Here is what I have: {items}.", "If that is all correct, do you have any "
           "references or wishes? If anything is wrong, just correct me."),
}  # fmt: skip
READBACK_LABELS = {
    "ru": {"product": "продукт", "budget": "бюджет", "deadline": "срок"},
    "uk": {"product": "продукт", "budget": "бюджет", "deadline": "термін"},
    "en": {"product": "product", "budget": "budget", "deadline": "deadline"},
}


def _localised(texts: Mapping[str, Any], language: str) -> Any:
    return texts.get(language) or texts.get("en") or next(iter(texts.values()))


def readback(profile: Mapping[str, Mapping[str, Any]], language: str) -> str:
    """ "Записала: Олег Кравцов («Полярная Ягода»), +79051112233, продукт — Клюквенный Север,
    бюджет 2 500 000 RUB, срок 2027-04-15." — from the recorded fields, by code."""
    labels = _localised(READBACK_LABELS, language)
    intro = profile.get("intro", {})
    vision = profile.get("vision", {})
    budget = profile.get("budget", {})
    items = []
    who = intro.get("clientName") or ""
    if intro.get("company"):
        who = f"{who} («{intro['company']}»)" if who else str(intro["company"])
    items += [who] if who else []
    items += [str(intro["contact"])] if intro.get("contact") else []
    if vision.get("productName"):
        items.append(f"{labels['product']} — {vision['productName']}")
    if not is_empty(budget.get("budget")):
        amount = format_value(budget["budget"])
        if budget.get("currency"):
            amount += f" {budget['currency']}"
        items.append(f"{labels['budget']} {amount}")
    if budget.get("deadline"):
        items.append(f"{labels['deadline']} {format_value(budget['deadline'])}")
    head, ask = _localised(READBACK, language)
    return f"{head.format(items=', '.join(items))} {ask}" if items else ask


def _direct_answer(spec: StageSpec, name: str, text: str, reading: Any, language: str) -> Any:
    """The value a direct answer gives `name`: the reader's finding for the fields it reads,
    else the field's own reader over what is left of the message; never chatter."""
    if reading is None:  # no reading (a replayed turn): the field's reader over the text
        reader = spec.readers.get(name)
        return reader(text, language) if reader else None
    if reading.confirms or reading.greets:
        return None
    if name in READER_FIELDS:
        finding = reading.get(name)
        if finding is not None:
            return finding.value
        rest = reading.answer_text
        if not rest:
            return None
        fallback = {"budget": read_budget, "currency": read_currency, "deadline": read_deadline}
        reader = fallback.get(name)
        return reader(rest, language) if reader else None
    rest = reading.answer_text
    reader = spec.readers.get(name)
    if not rest or reader is None:
        return None
    value = reader(rest, language)
    return None if is_chatter(value) else value


def _question(spec: StageSpec, ask: str, values: Mapping[str, Any], language: str):
    """(question, fields asked): two related fields together when both are missing."""
    for (first, second), texts in QUESTION_PAIRS.items():
        if ask == first and second in spec.fields and is_empty(values.get(second)):
            return _localised(texts, language), [first, second]
    questions = spec.questions.get(language) or spec.questions["en"]
    return questions[ask], [ask]


def rules_reply(call: Any) -> dict[str, Any]:
    """The rules agent's answer for one stage call (a StageCall with `reading` and
    `profile`): the fields it takes from the client's answer, the next question or the
    status flag."""
    spec, language = call.spec, call.language
    values = dict(call.known)
    answer: dict[str, Any] = {}
    reading = getattr(call, "reading", None)
    client_text = call.turns[-1][1] if call.turns and call.turns[-1][0] == "client" else ""
    countered = False
    if call.asked_field and client_text and not call.opening:
        value = _direct_answer(spec, call.asked_field, client_text, reading, language)
        if not is_empty(value):
            answer[call.asked_field] = values[call.asked_field] = value
        # A question the studio's tools answered (briefing.tool_use) needs no producer.
        answered = bool(getattr(call, "tools", None) and call.tools.outcomes)
        countered = bool(reading is not None and reading.asks and is_empty(value)) and not answered
    for lock_field, lock_key in spec.locks.items():
        if call.locks.get(lock_key):
            answer[lock_field] = values[lock_field] = call.locks[lock_key]
    prefix = f"{_localised(COUNTER_QUESTION, language)} " if countered else ""
    if not spec.required:
        # The last stage: it opens with the read-back; one answer (a confirmation, a
        # correction the reader applied, references) settles it.
        if call.opening or countered or not call.asked_field:
            ask = spec.fields[0]
            message = readback(getattr(call, "profile", None) or {}, language)
            return {**answer, "message": prefix + message, "askedField": ask,
                    "askedFields": [ask], spec.status_field: False}  # fmt: skip
        return {**answer, "message": "", spec.status_field: True}
    missing = spec.missing(values)
    if not missing:
        return {**answer, "message": "", spec.status_field: True}
    question, asked = _question(spec, missing[0], values, language)
    if call.opening:
        question = f"{_localised(spec.opening, language)} {question}"
    return {**answer, "message": prefix + question, "askedField": asked[0], "askedFields": asked,
            spec.status_field: False}  # fmt: skip
