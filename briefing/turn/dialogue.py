"""The rules agent's dialogue manager: it knows everything the reader already found, asks only
for required fields still missing and not asked twice (related ones together, a second
time in other words), takes the entity out of a direct answer (after a second ask, a short
reply as it stands, to check), leaves a declined field for the producer, never stores a
confirmation, a greeting or a question, answers a counter-question by promising the producer
and moves on. `readback` writes the summary the orchestrator gives before completion, whichever
agent holds the conversation."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from briefing.reader.chatter import NAME_WORDS_MAX, declines, is_chatter, not_a_value
from briefing.reader.topics import tells_something_else
from briefing.stages.base import StageSpec, is_empty
from briefing.stages.readers import read_budget, read_currency, read_deadline
from briefing.stages.summaries import format_value
from briefing.turn.field_states import (
    LEFT,
    TO_CHECK,
    asks,
    exhausted,
    field_names,
    left_fields,
    state_of,
)
from llmkit.extract import find_money

# Fields the reader reads itself (names, contacts, amounts, dates): a direct answer to them
# is the reader's finding, not the whole message.
READER_FIELDS = frozenset(
    {"clientName", "company", "contact", "productName", "budget", "currency", "deadline"}
)

# What the read-back shows (readback below): the reader's fields, each a fact or a name.
READBACK_FIELDS = READER_FIELDS

# Facts the read-back's free-text answer never holds: a reply stating one puts that right.
FACT_FIELDS = frozenset({"contact", "budget", "currency", "deadline"})

# Related fields asked in one question, as a producer would (fields → question by language);
# the reply's labelled parts fill each ("Цель — …", "Audience is …"), the rest the first.
QUESTION_GROUPS: dict[tuple[str, ...], Mapping[str, str]] = {
    ("clientName", "company"): {
        "ru": "Как вас зовут и какую компанию вы представляете?",
        "uk": "Як вас звати і яку компанію ви представляєте?",
        "en": "What is your name, and which company do you represent?",
    },
    ("coreIdea", "goal", "audience"): {
        "ru": "Расскажите об идее: что вы хотите показать, какой результат ждёте от проекта "
        "и кто должен его увидеть?",
        "uk": "Розкажіть про ідею: що ви хочете показати, якого результату чекаєте від проєкту "
        "і хто має його побачити?",
        "en": "Tell me about the idea: what do you want to show, what should the project "
        "achieve, and who should see it?",
    },
    ("contentType", "format", "deliverables"): {
        "ru": "Что именно нужно сделать: какой контент, в каком формате (длительность, "
        "вертикаль или горизонталь) и что вы хотите получить на выходе?",
        "uk": "Що саме потрібно зробити: який контент, у якому форматі (тривалість, "
        "вертикаль чи горизонталь) і що ви хочете отримати на виході?",
        "en": "What exactly should we make: what kind of content, in what format (length, "
        "vertical or horizontal), and what do you need delivered?",
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
# After a question back at the read-back: the summary is not repeated, only the ask.
READBACK_AGAIN = {
    "ru": "А в остальном всё, что я записала выше, верно? Если да — просто напишите «да».",
    "uk": "А в іншому все, що я записала вище, правильно? Якщо так — просто напишіть «так».",
    "en": "Apart from that, is everything I wrote above right? If so, just say yes.",
}
# The ask of the second read-back, after a correction: in other words than the first.
READBACK_CORRECTED = {
    "ru": "Поправила. Теперь всё верно?",
    "uk": "Виправила. Тепер усе правильно?",
    "en": "Corrected. Is everything right now?",
}
# What the read-back adds for fields the conversation could not settle.
READBACK_OPEN = {
    "ru": ("Уточнит продюсер: {fields}.", "Проверьте, пожалуйста: {items}."),
    "uk": ("Уточнить продюсер: {fields}.", "Перевірте, будь ласка: {items}."),
    "en": ("Your producer will follow up on: {fields}.", "Please check: {items}."),
}
FIELD_NAMES = {
    "ru": {"clientName": "имя", "company": "компания", "contact": "контакт",
           "projectType": "тип проекта", "productName": "продукт", "coreIdea": "идея",
           "goal": "цель", "audience": "аудитория", "contentType": "вид контента",
           "format": "формат", "deliverables": "что сдаём", "budget": "бюджет",
           "deadline": "срок"},
    "uk": {"clientName": "ім’я", "company": "компанія", "contact": "контакт",
           "projectType": "тип проєкту", "productName": "продукт", "coreIdea": "ідея",
           "goal": "мета", "audience": "аудиторія", "contentType": "вид контенту",
           "format": "формат", "deliverables": "що здаємо", "budget": "бюджет",
           "deadline": "термін"},
    "en": {"clientName": "name", "company": "company", "contact": "contact",
           "projectType": "project type", "productName": "product", "coreIdea": "idea",
           "goal": "goal", "audience": "audience", "contentType": "content type",
           "format": "format", "deliverables": "deliverables", "budget": "budget",
           "deadline": "deadline"},
}  # fmt: skip
READBACK_LABELS = {
    "ru": {"product": "продукт", "budget": "бюджет", "deadline": "срок"},
    "uk": {"product": "продукт", "budget": "бюджет", "deadline": "термін"},
    "en": {"product": "product", "budget": "budget", "deadline": "deadline"},
}


def _localised(texts: Mapping[str, Any], language: str) -> Any:
    return texts.get(language) or texts.get("en") or next(iter(texts.values()))


def readback(
    profile: Mapping[str, Mapping[str, Any]],
    language: str,
    dialogues: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    ask: bool = True,
    again: bool = False,
) -> str:
    """ "Записала: Олег Кравцов («Полярная Ягода»), +79051112233, продукт — Клюквенный Север,
    бюджет 2 500 000 RUB, срок 2027-04-15. Уточнит продюсер: бюджет." — from the recorded
    fields and their states (`dialogues`: stage key → field states), by code; `ask` ends it
    with the question whether it is right (not when the brief completes with it), in other
    words when it reads a correction back (`again`)."""
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
    head, question = _localised(READBACK, language)
    parts = [head.format(items=", ".join(items))] if items else []
    names = _localised(FIELD_NAMES, language)
    left, to_check = [], []
    for stage_key, dialogue in (dialogues or {}).items():
        fields = profile.get(stage_key, {})
        for name in field_names(dialogue):
            label = names.get(name, name)
            if state_of(dialogue, name) == LEFT and is_empty(fields.get(name)):
                left.append(label)
            elif state_of(dialogue, name) == TO_CHECK and not is_empty(fields.get(name)):
                to_check.append(f"{label} — {format_value(fields[name])}")
    open_left, open_check = _localised(READBACK_OPEN, language)
    if to_check:
        parts.append(open_check.format(items="; ".join(to_check)))
    if left:
        parts.append(open_left.format(fields=", ".join(left)))
    if again:
        question = _localised(READBACK_CORRECTED, language)
    return " ".join([*parts, question] if ask else parts)


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
    if not spec.required and any(f.field in FACT_FIELDS for f in reading.findings):
        # "Бюджет 6 000 евро. Платим через белградский офис" to the read-back's "any
        # references?": a budget, a date or a contact put right, not a wish (names do occur
        # in references: "the old Apple «Think Different» ad"; and an idea may name a date)
        return None
    value = reader(rest, language)
    return None if is_chatter(value) else value


def _question(spec: StageSpec, ask: str, values: Mapping[str, Any], dialogue, language: str):
    """(question, fields asked): related fields together when all are missing and none was
    asked before; a field asked once already gets its second, reworded question."""
    if asks(dialogue, ask):
        reasks = spec.reasks.get(language) or spec.reasks.get("en") or {}
        if ask in reasks:
            return reasks[ask], [ask]
    for group, texts in QUESTION_GROUPS.items():
        if ask == group[0] and all(
            other in spec.fields
            and is_empty(values.get(other))
            and not asks(dialogue, other)
            and other not in left_fields(dialogue)
            for other in group[1:]
        ):
            return _localised(texts, language), list(group)
    questions = spec.questions.get(language) or spec.questions["en"]
    return questions[ask], [ask]


# An unquoted reply taken as a name after the second ask: "Облако", "Рейс домой", "Nook".
UNQUOTED_NAME_WORDS = 3


def _taken_after_second_ask(name: str, reading: Any) -> str | None:
    """The reply to a name asked for the second time, taken as it stands when it plausibly is
    one (a quoted name, a short phrase, never chatter); the producer checks it."""
    if reading is None or name not in NAME_WORDS_MAX:
        return None
    quoted = re.search(r"[«\"“]([^«»\"“”]{1,80})[»\"”]", reading.text)
    if quoted is None and reading.findings:
        return None  # a reply that states other facts (a budget, a date) answers those
    value = quoted.group(1) if quoted else reading.answer_text.strip(" .!,;")
    if not value or not_a_value(name, value) or declines(value):
        return None
    if not quoted and (len(value.split()) > UNQUOTED_NAME_WORDS or re.search(r"[,;:]", value)):
        return None  # a phrase or a list, not a name said on its own
    if find_money(value):
        return None  # "300к руб" is an amount
    if tells_something_else(value) or any(m.field == "date" for m in reading.mentions):
        return None  # "60 sec + shorts", "і ще шортси", "deadlien 5 february plz"
    return value


def rules_reply(call: Any) -> dict[str, Any]:
    """The rules agent's answer for one stage call (a StageCall with `reading`, `profile` and
    the stage's `dialogue` state): the fields it takes from the client's answer, the next
    question or the status flag. It asks only what is missing and not yet asked MAX_ASKS
    times (briefing.turn.field_states): no question comes a third time."""
    spec, language = call.spec, call.language
    values = dict(call.known)
    dialogue = getattr(call, "dialogue", None) or {}
    answer: dict[str, Any] = {}
    reading = getattr(call, "reading", None)
    client_text = call.turns[-1][1] if call.turns and call.turns[-1][0] == "client" else ""
    countered = False
    asked = [
        name for name in (getattr(call, "asked_fields", ()) or [call.asked_field])
        if name in spec.fields
    ]  # fmt: skip
    to_check: list[str] = []
    declined: list[str] = []
    if asked and client_text and not call.opening:
        unanswered = []
        for position, name in enumerate(asked):
            if position:  # the second of a pair: only what the reader found in the reply
                if is_empty(values.get(name)) and declines(client_text):
                    declined.append(name)
                continue
            value = _direct_answer(spec, name, client_text, reading, language)
            if not is_empty(value) and not not_a_value(name, value):
                answer[name] = values[name] = value
                continue
            if not is_empty(values.get(name)):
                continue
            taken = _taken_after_second_ask(name, reading) if exhausted(dialogue, name) else None
            if taken is not None:
                answer[name] = values[name] = taken
                to_check.append(name)
            elif declines(client_text):
                declined.append(name)
            else:
                unanswered.append(name)
        # A question the studio's tools answered (briefing.turn.tool_use) needs no producer.
        answered = bool(getattr(call, "tools", None) and call.tools.outcomes)
        countered = bool(reading is not None and reading.asks and unanswered) and not answered
    for lock_field, lock_key in spec.locks.items():
        if call.locks.get(lock_key):
            answer[lock_field] = values[lock_field] = call.locks[lock_key]
    settled = {"toCheckFields": to_check, "declinedFields": declined}
    prefix = f"{_localised(COUNTER_QUESTION, language)} " if countered else ""
    if not spec.required:
        # The last stage: the orchestrator reads the brief back when it opens and once more
        # after a correction (whatever the agent); one answer (a confirmation, references)
        # settles it. A question back gets the hand-off line and the read-back again.
        if countered:  # the summary stands above: only whether it is right, in new words
            message = _localised(READBACK_AGAIN, language)
            return {**answer, "message": prefix + message, spec.status_field: False}
        return {**answer, "message": "", spec.status_field: True}
    # Fields asked MAX_ASKS times are left for the producer by the orchestrator's gate.
    left = left_fields(dialogue) | set(declined)
    askable = [
        name for name in spec.missing(values, left=left) if not exhausted(dialogue, name)
    ]  # fmt: skip
    if countered:  # the hand-off line once, then the next field rather than the same one
        askable = [name for name in askable if name not in asked] or askable
    if not askable:
        return {**answer, **settled, "message": "", spec.status_field: True}
    question, asked_now = _question(spec, askable[0], values, dialogue, language)
    if call.opening:
        question = f"{_localised(spec.opening, language)} {question}"
    return {**answer, **settled, "message": prefix + question, "askedField": asked_now[0],
            "askedFields": asked_now, spec.status_field: False}  # fmt: skip
