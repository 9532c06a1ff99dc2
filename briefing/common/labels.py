"""Human labels of stage fields and lock keys (ru, uk, en) for people: the one mapping the
back office's timeline, inline editors, status lines, brief and exports read, never the
camelCase field keys and snake_case lock keys the models and the API use."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _lazy

# Each stage field under its stage key. A name two stages share ("goal") has a label per
# stage, so a table with every field as a column never shows two alike.
FIELD_LABELS: Mapping[str, Mapping[str, Mapping[str, str]]] = {
    "intro": {
        "clientName": {"ru": "Имя клиента", "uk": "Ім'я клієнта", "en": "Client name"},
        "company": {"ru": "Компания", "uk": "Компанія", "en": "Company"},
        "contact": {"ru": "Контакт", "uk": "Контакт", "en": "Contact"},
        "role": {"ru": "Роль", "uk": "Роль", "en": "Role"},
        "projectType": {"ru": "Тип проекта", "uk": "Тип проєкту", "en": "Project type"},
    },
    "vision": {
        "productName": {"ru": "Продукт", "uk": "Продукт", "en": "Product"},
        "coreIdea": {"ru": "Основная идея", "uk": "Основна ідея", "en": "Core idea"},
        "goal": {"ru": "Цель проекта", "uk": "Мета проєкту", "en": "Project goal"},
        "audience": {"ru": "Аудитория", "uk": "Аудиторія", "en": "Audience"},
        "keyMessage": {"ru": "Главная мысль", "uk": "Головна думка", "en": "Key message"},
        "brandTone": {"ru": "Тон бренда", "uk": "Тон бренду", "en": "Brand tone"},
    },
    "service": {
        "contentType": {"ru": "Вид контента", "uk": "Вид контенту", "en": "Content type"},
        "goal": {"ru": "Задача контента", "uk": "Завдання контенту", "en": "Content purpose"},
        "format": {"ru": "Формат", "uk": "Формат", "en": "Format"},
        "deliverables": {"ru": "Результаты", "uk": "Результати", "en": "Deliverables"},
        "creativeSession": {
            "ru": "Креативная сессия",
            "uk": "Креативна сесія",
            "en": "Creative session",
        },
    },
    "budget": {
        "budget": {"ru": "Бюджет", "uk": "Бюджет", "en": "Budget"},
        "currency": {"ru": "Валюта", "uk": "Валюта", "en": "Currency"},
        "deadline": {"ru": "Срок", "uk": "Термін", "en": "Deadline"},
        "flexibility": {"ru": "Гибкость", "uk": "Гнучкість", "en": "Flexibility"},
    },
    "extra": {
        "references": {"ru": "Референсы", "uk": "Референси", "en": "References"},
        "preferences": {"ru": "Пожелания", "uk": "Побажання", "en": "Preferences"},
        "constraints": {"ru": "Ограничения", "uk": "Обмеження", "en": "Constraints"},
        "notes": {"ru": "Заметки", "uk": "Нотатки", "en": "Notes"},
    },
}

LABEL_LANGUAGES = ("ru", "uk", "en")


def label_language(language: str | None = None) -> str:
    """ "ru-RU" → "ru"; a language without labels gets English; None is the language the
    request (or translation.override) made active, the producer's in the back office."""
    if language is None:
        language = get_language()
    code = (language or "").split("-")[0].lower()
    return code if code in LABEL_LANGUAGES else "en"


def field_label(stage_key: str, name: str, language: str | None = None) -> str:
    """The field's label in `language` (the active one by default); a field without one gets
    its key spelled out ("keyMessage" → "Key message") rather than shown as code. A field
    named without its stage ("" or an unknown key) takes the first stage's label of that
    name."""
    labels = FIELD_LABELS.get(stage_key, {}).get(name)
    if labels is None:
        labels = next((f[name] for f in FIELD_LABELS.values() if name in f), None)
    if labels:
        return labels.get(label_language(language)) or labels["en"]
    return _spelled_out(name)


def field_labels(stage_key: str, names: Iterable[str], language: str | None = None) -> str:
    """Several fields' labels as one comma-separated phrase ("Бюджет, Срок")."""
    return ", ".join(field_label(stage_key, name, language) for name in names)


def _lock_fields() -> dict[str, tuple[str, str]]:
    """Lock key → (stage key, field) from every briefing type's stages: a lock is labelled
    as the field it holds ("product_name" → "Продукт")."""
    from briefing.stages.registry import BRIEFING_TYPES

    found: dict[str, tuple[str, str]] = {}
    for stages in BRIEFING_TYPES.values():
        for spec in stages:
            for name, lock_key in spec.locks.items():
                found.setdefault(lock_key, (spec.key, name))
    return found


def lock_label(key: str, language: str | None = None) -> str:
    """A lock key's label in `language` (the active one by default): the label of the stage
    field that holds it ("client_name" → "Имя клиента"), else the key spelled out (a lock a
    producer named by hand)."""
    where = _lock_fields().get(key)
    if where:
        return field_label(*where, language)
    return _spelled_out(key)


# The kinds of fact client memory holds (studio.memory.ClientFacts), as the briefing page
# lists them.
MEMORY_FACT_LABELS: Mapping[str, Mapping[str, str]] = {
    "company": {"ru": "Компания", "uk": "Компанія", "en": "Company"},
    "names": {"ru": "Люди", "uk": "Люди", "en": "People"},
    "contacts": {"ru": "Контакты", "uk": "Контакти", "en": "Contacts"},
    "products": {"ru": "Продукты", "uk": "Продукти", "en": "Products"},
    "tones": {"ru": "Тон", "uk": "Тон", "en": "Tone"},
    "briefs": {"ru": "Прошлый бриф", "uk": "Минулий бриф", "en": "Earlier brief"},
    "works": {"ru": "Работа для них", "uk": "Робота для них", "en": "Work made for them"},
    "requests": {"ru": "Прошлая заявка", "uk": "Минула заявка", "en": "Earlier request"},
}


def memory_fact_label(kind: str, language: str | None = None) -> str:
    labels = MEMORY_FACT_LABELS.get(kind)
    return (labels.get(label_language(language)) or labels["en"]) if labels else _spelled_out(kind)


# The studio tools a stage agent may call (studio.tools), as a producer knows the data.
TOOL_LABELS = {
    "rate_card_quote": _lazy("rate card"),
    "portfolio_search": _lazy("portfolio"),
    "calendar_check": _lazy("production calendar"),
    "client_history": _lazy("the client's history"),
}


def tool_label(name: str) -> str:
    """A studio tool under the name of the data it reads ("прайс-лист"), never its code."""
    label = TOOL_LABELS.get(name)
    return str(label) if label is not None else _spelled_out(name)


def _spelled_out(name: str) -> str:
    words, word = [], ""
    for char in name.replace("_", " "):
        if char.isupper() and word:
            words.append(word)
            word = char.lower()
        elif char == " ":
            words.append(word)
            word = ""
        else:
            word += char
    words.append(word)
    text = " ".join(w for w in words if w)
    return text[:1].upper() + text[1:]


__all__ = [
    "FIELD_LABELS",
    "LABEL_LANGUAGES",
    "field_label",
    "field_labels",
    "label_language",
    "lock_label",
]
