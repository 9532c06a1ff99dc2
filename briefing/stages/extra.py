"""Stage 5, extra information: references, preferences, constraints and last notes. It has no
required field: it closes when the agent sets extraStatus, i.e. the client has nothing to add."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from briefing.stages.base import StageAnswer, StageSpec
from briefing.stages.checks import check_stage
from briefing.stages.fields import StageFields, Text, TextList
from briefing.stages.prompts import stage_prompt
from briefing.stages.readers import read_references, read_text
from briefing.stages.summaries import labelled_lines, labels_for


class ExtraFields(StageFields):
    references: TextList = Field(
        default_factory=list, description="Links or named works the client likes"
    )
    preferences: Text = Field(default=None, description="Style, music, cast, locations")
    constraints: Text = Field(
        default=None, description="Brand guidelines, legal limits, what must not be shown"
    )
    notes: Text = Field(default=None, description="Anything else the client adds")


class ExtraAnswer(ExtraFields, StageAnswer):
    extraStatus: bool = False


REQUIRED: tuple[str, ...] = ()
FIELDS = ("references", "preferences", "constraints", "notes")

TITLES = {"ru": "Дополнительно", "uk": "Додатково", "en": "Extra information"}

QUESTIONS = {
    "ru": {
        "references": "Есть ли референсы — ролики или ссылки, которые вам нравятся?",
        "preferences": "Есть ли пожелания по стилю, музыке, актёрам или локациям?",
        "constraints": "Есть ли ограничения: брендбук, юридические требования, запретные темы?",
        "notes": "Хотите что-нибудь добавить напоследок?",
    },
    "uk": {
        "references": "Чи є референси — ролики або посилання, які вам подобаються?",
        "preferences": "Чи є побажання щодо стилю, музики, акторів або локацій?",
        "constraints": "Чи є обмеження: брендбук, юридичні вимоги, заборонені теми?",
        "notes": "Бажаєте щось додати наостанок?",
    },
    "en": {
        "references": "Do you have any references — videos or links you like?",
        "preferences": "Any preferences on style, music, cast or locations?",
        "constraints": "Any constraints: brand guidelines, legal requirements, topics to avoid?",
        "notes": "Is there anything else you would like to add?",
    },
}

REASKS: dict[str, dict[str, str]] = {"ru": {}, "uk": {}, "en": {}}  # nothing required

OPENING = {
    "ru": "Почти готово, осталось несколько вопросов.",
    "uk": "Майже готово, залишилося кілька запитань.",
    "en": "Almost done, just a few more questions.",
}

LABELS = {
    "ru": {
        "references": "Референсы",
        "preferences": "Пожелания",
        "constraints": "Ограничения",
        "notes": "Заметки",
    },
    "uk": {
        "references": "Референси",
        "preferences": "Побажання",
        "constraints": "Обмеження",
        "notes": "Нотатки",
    },
    "en": {
        "references": "References",
        "preferences": "Preferences",
        "constraints": "Constraints",
        "notes": "Notes",
    },
}


def summary(fields: Mapping[str, Any], language: str) -> str:
    """One "Label: value" line per filled field; references joined with commas."""
    return "\n".join(labelled_lines(fields, labels_for(LABELS, language), FIELDS))


STAGE = StageSpec(
    key="extra",
    title=TITLES["en"],
    answer_model=ExtraAnswer,
    status_field="extraStatus",
    fields=FIELDS,
    required=REQUIRED,
    prompt=stage_prompt(
        stage="extra information",
        collect=(
            "references (links or named videos), preferences (style, music, cast, "
            "locations), constraints and any last notes"
        ),
        status_field="extraStatus",
        required=REQUIRED,
        example="Are there any videos you like that we could use as a reference?",
        rules=("Put each link or named reference in references as its own item.",),
    ),
    questions=QUESTIONS,
    reasks=REASKS,
    opening=OPENING,
    summary=summary,
    readers={
        "references": read_references,
        "preferences": read_text,
        "constraints": read_text,
        "notes": read_text,
    },
    prefill={"references": "references"},
)
check_stage(STAGE)
