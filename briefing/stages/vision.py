"""Stage 2, core vision: the product, the idea, the goal, the audience, the message, the tone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from briefing.stages.base import StageAnswer, StageSpec
from briefing.stages.checks import check_stage
from briefing.stages.fields import StageFields, Text
from briefing.stages.prompts import stage_prompt
from briefing.stages.readers import read_text
from briefing.stages.summaries import labelled_lines, labels_for


class VisionFields(StageFields):
    productName: Text = Field(
        default=None, description="The product or brand the project is about, as written"
    )
    coreIdea: Text = Field(default=None, description="The core idea in the client's words")
    goal: Text = Field(default=None, description="What the project should achieve")
    audience: Text = Field(default=None, description="Who should see the result")
    keyMessage: Text = Field(default=None, description="The one message viewers take away")
    brandTone: Text = Field(default=None, description="The tone of voice")


class VisionAnswer(VisionFields, StageAnswer):
    visionStatus: bool = False


# The product is asked first: once named it is locked for every later stage.
REQUIRED = ("productName", "coreIdea", "goal", "audience")
FIELDS = ("productName", "coreIdea", "goal", "audience", "keyMessage", "brandTone")

TITLES = {"ru": "Идея проекта", "uk": "Ідея проєкту", "en": "Core vision"}

QUESTIONS = {
    "ru": {
        "productName": "Как называется продукт или бренд, о котором будет проект?",
        "coreIdea": "В чём главная идея проекта? Опишите её в двух-трёх предложениях.",
        "goal": "Какую задачу должен решить проект: продажи, узнаваемость, найм или другое?",
        "audience": "Кто ваша целевая аудитория — кто должен увидеть результат?",
        "keyMessage": "Какую главную мысль зритель должен унести с собой?",
        "brandTone": "Каким должен быть тон: серьёзным, дружелюбным, ироничным?",
    },
    "uk": {
        "productName": "Як називається продукт або бренд, про який буде проєкт?",
        "coreIdea": "У чому головна ідея проєкту? Опишіть її двома-трьома реченнями.",
        "goal": "Яке завдання має розв’язати проєкт: продажі, впізнаваність, найм чи інше?",
        "audience": "Хто ваша цільова аудиторія — хто має побачити результат?",
        "keyMessage": "Яку головну думку глядач має винести з перегляду?",
        "brandTone": "Яким має бути тон: серйозним, дружнім, іронічним?",
    },
    "en": {
        "productName": "What is the name of the product or brand the project is about?",
        "coreIdea": "What is the core idea of the project, in two or three sentences?",
        "goal": "What should the project achieve: sales, awareness, hiring or something else?",
        "audience": "Who is your target audience — who should see the result?",
        "keyMessage": "What is the one message viewers should take away?",
        "brandTone": "What tone should it have: serious, friendly, playful?",
    },
}

REASKS = {
    "ru": {
        "productName": "Как называется то, что будем показывать: товар, услуга, событие?",
        "coreIdea": "Если в одной фразе: о чём должен быть ролик?",
        "goal": "Что должно произойти после просмотра: покупка, запись, узнаваемость?",
        "audience": "Для кого в первую очередь этот ролик?",
    },
    "uk": {
        "productName": "Як називається те, що будемо показувати: товар, послуга, подія?",
        "coreIdea": "Якщо однією фразою: про що має бути ролик?",
        "goal": "Що має статися після перегляду: покупка, запис, впізнаваність?",
        "audience": "Для кого насамперед цей ролик?",
    },
    "en": {
        "productName": "What do we call the thing we are showing: a product, a service, an event?",
        "coreIdea": "In one sentence, what should the video be about?",
        "goal": "What should viewers do after watching: buy, sign up, remember the brand?",
        "audience": "Who is this video mainly for?",
    },
}

OPENING = {
    "ru": "Спасибо! Теперь об идее проекта.",
    "uk": "Дякую! Тепер про ідею проєкту.",
    "en": "Thank you! Now about the idea of the project.",
}

LABELS = {
    "ru": {
        "productName": "Продукт",
        "coreIdea": "Идея",
        "goal": "Цель",
        "audience": "Аудитория",
        "keyMessage": "Главная мысль",
        "brandTone": "Тон",
    },
    "uk": {
        "productName": "Продукт",
        "coreIdea": "Ідея",
        "goal": "Мета",
        "audience": "Аудиторія",
        "keyMessage": "Головна думка",
        "brandTone": "Тон",
    },
    "en": {
        "productName": "Product",
        "coreIdea": "Idea",
        "goal": "Goal",
        "audience": "Audience",
        "keyMessage": "Key message",
        "brandTone": "Tone",
    },
}


def summary(fields: Mapping[str, Any], language: str) -> str:
    """One "Label: value" line per filled field, in the stage's field order."""
    return "\n".join(labelled_lines(fields, labels_for(LABELS, language), FIELDS))


STAGE = StageSpec(
    key="vision",
    title=TITLES["en"],
    answer_model=VisionAnswer,
    status_field="visionStatus",
    fields=FIELDS,
    required=REQUIRED,
    prompt=stage_prompt(
        stage="core vision",
        collect=(
            "the product or brand name, the core idea, the goal, the target audience, "
            "the key message and the brand's tone"
        ),
        status_field="visionStatus",
        required=REQUIRED,
        example="Who should see the video, and what should they do after watching it?",
    ),
    questions=QUESTIONS,
    reasks=REASKS,
    opening=OPENING,
    summary=summary,
    readers=dict.fromkeys(FIELDS, read_text),
    # Named in any message ("«Клюквенный Север»", "Цель — продажи"): the reader fills them.
    prefill={name: name for name in ("productName", "coreIdea", "goal", "audience", "brandTone")},
    # The entities DESIGN.md's lock layer names: once said, later stages must not rename them.
    locks={"productName": "product_name", "brandTone": "brand_tone"},
)
check_stage(STAGE)
