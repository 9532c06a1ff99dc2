"""Stage 3, production service: what to produce, in which format, and what is delivered.

The answer's JSON is exactly DESIGN.md's `{"message", "contentType", "goal", "format",
"deliverables": [], "creativeSession": false, "serviceStatus": false}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from briefing.stages.base import StageAnswer, StageSpec
from briefing.stages.checks import check_stage
from briefing.stages.fields import StageFields, Text, TextList
from briefing.stages.prompts import stage_prompt
from briefing.stages.readers import read_list, read_text, read_yes_no
from briefing.stages.summaries import labelled_lines, labels_for


class ServiceFields(StageFields):
    contentType: Text = Field(
        default=None, description="What to produce, e.g. an ad, a brand film, social clips"
    )
    goal: Text = Field(default=None, description="What this content is for and where it runs")
    format: Text = Field(default=None, description="Length, aspect ratio, live action or animation")
    deliverables: TextList = Field(
        default_factory=list, description="What is handed over, one item each"
    )
    creativeSession: bool = Field(
        default=False, description="Whether the client wants a creative session"
    )


class ServiceAnswer(ServiceFields, StageAnswer):
    serviceStatus: bool = False


REQUIRED = ("contentType", "format", "deliverables")
FIELDS = ("contentType", "goal", "format", "deliverables", "creativeSession")

TITLES = {"ru": "Производство", "uk": "Виробництво", "en": "Production service"}

QUESTIONS = {
    "ru": {
        "contentType": (
            "Какой контент нужен: рекламный ролик, имиджевый фильм, серия роликов для соцсетей?"
        ),
        "goal": "Для чего нужен этот контент — где его покажут и что он должен сделать?",
        "format": "Какой формат: длительность, соотношение сторон, съёмка или анимация?",
        "deliverables": "Что именно вы хотите получить на выходе? Перечислите через запятую.",
        "creativeSession": "Нужна ли креативная сессия, чтобы вместе придумать концепцию?",
    },
    "uk": {
        "contentType": (
            "Який контент потрібен: рекламний ролик, іміджевий фільм, серія роликів для соцмереж?"
        ),
        "goal": "Для чого потрібен цей контент — де його покажуть і що він має зробити?",
        "format": "Який формат: тривалість, співвідношення сторін, зйомка чи анімація?",
        "deliverables": "Що саме ви хочете отримати на виході? Перелічіть через кому.",
        "creativeSession": "Чи потрібна креативна сесія, щоб разом придумати концепцію?",
    },
    "en": {
        "contentType": (
            "What content do you need: an ad, a brand film, a series of social media clips?"
        ),
        "goal": "What is this content for — where will it run and what should it do?",
        "format": "What format: length, aspect ratio, live action or animation?",
        "deliverables": "What exactly should we deliver? Please list the items with commas.",
        "creativeSession": "Would you like a creative session to develop the concept together?",
    },
}

REASKS = {
    "ru": {
        "contentType": "Уточню: это один рекламный ролик, серия роликов или фильм?",
        "format": "Сколько примерно секунд или минут, и это съёмка или анимация?",
        "deliverables": "Какие файлы вы хотите получить в итоге — например, ролик и версии?",
    },
    "uk": {
        "contentType": "Уточню: це один рекламний ролик, серія роликів чи фільм?",
        "format": "Скільки приблизно секунд чи хвилин, і це зйомка чи анімація?",
        "deliverables": "Які файли ви хочете отримати в підсумку — наприклад, ролик і версії?",
    },
    "en": {
        "contentType": "Just to check: is it a single ad, a series of clips or a film?",
        "format": "Roughly how many seconds or minutes, and live action or animation?",
        "deliverables": "Which files should you get in the end, e.g. the video and its cut-downs?",
    },
}

OPENING = {
    "ru": "Отлично, идея понятна. Теперь о том, что именно нужно сделать.",
    "uk": "Чудово, ідею зрозуміло. Тепер про те, що саме потрібно зробити.",
    "en": "Great, the idea is clear. Now about what exactly we should produce.",
}

LABELS = {
    "ru": {
        "contentType": "Контент",
        "goal": "Задача",
        "format": "Формат",
        "deliverables": "Результат",
        "creativeSession": "Креативная сессия: нужна",
    },
    "uk": {
        "contentType": "Контент",
        "goal": "Завдання",
        "format": "Формат",
        "deliverables": "Результат",
        "creativeSession": "Креативна сесія: потрібна",
    },
    "en": {
        "contentType": "Content",
        "goal": "Purpose",
        "format": "Format",
        "deliverables": "Deliverables",
        "creativeSession": "Creative session: requested",
    },
}


def summary(fields: Mapping[str, Any], language: str) -> str:
    """One "Label: value" line per filled field. A creative session shows only when asked
    for: `false` is also the default, so it cannot tell "no" from "not discussed"."""
    labels = labels_for(LABELS, language)
    lines = labelled_lines(fields, labels, ("contentType", "goal", "format", "deliverables"))
    if fields.get("creativeSession") is True:
        lines.append(labels["creativeSession"])
    return "\n".join(lines)


STAGE = StageSpec(
    key="service",
    title=TITLES["en"],
    answer_model=ServiceAnswer,
    status_field="serviceStatus",
    fields=FIELDS,
    required=REQUIRED,
    prompt=stage_prompt(
        stage="production service",
        collect=(
            "the content type, its goal, the format (length, aspect ratio, live action or "
            "animation), the list of deliverables and whether a creative session is wanted"
        ),
        status_field="serviceStatus",
        required=REQUIRED,
        example="What exactly should we deliver: one main video, cut-downs, stills?",
        rules=("List each deliverable as its own item.",),
    ),
    questions=QUESTIONS,
    reasks=REASKS,
    opening=OPENING,
    summary=summary,
    readers={
        "contentType": read_text,
        "goal": read_text,
        "format": read_text,
        "deliverables": read_list,
        "creativeSession": read_yes_no,
    },
    prefill={"format": "format", "deliverables": "deliverables"},
)
check_stage(STAGE)
