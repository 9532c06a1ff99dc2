"""Stage 1, intro: who the client is, how to reach them and what kind of project it is."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from briefing.stages.base import StageAnswer, StageSpec
from briefing.stages.checks import check_stage
from briefing.stages.fields import StageFields, Text
from briefing.stages.prompts import stage_prompt
from briefing.stages.readers import read_contact, read_name, read_text
from briefing.stages.summaries import labelled_lines, labels_for


class IntroFields(StageFields):
    clientName: Text = Field(
        default=None, description="The person or company the client speaks for, as written"
    )
    company: Text = Field(default=None, description="The client's company")
    contact: Text = Field(default=None, description="A phone number or an e-mail address")
    role: Text = Field(default=None, description="The client's role in the project")
    projectType: Text = Field(
        default=None, description='The kind of project, e.g. "promo video", "podcast"'
    )


class IntroAnswer(IntroFields, StageAnswer):
    introStatus: bool = False


REQUIRED = ("clientName", "contact", "projectType")

TITLES = {"ru": "Знакомство", "uk": "Знайомство", "en": "Introduction"}

QUESTIONS = {
    "ru": {
        "clientName": "Как вас зовут или от имени какой компании вы обращаетесь?",
        "company": "Какую компанию вы представляете?",
        "contact": "Как с вами удобнее связаться? Оставьте, пожалуйста, телефон или e-mail.",
        "role": "Какая у вас роль в проекте?",
        "projectType": "Какой проект вы задумали: промо-ролик, подкаст, клип или что-то другое?",
    },
    "uk": {
        "clientName": "Як вас звати або від імені якої компанії ви звертаєтеся?",
        "company": "Яку компанію ви представляєте?",
        "contact": "Як із вами зручніше зв’язатися? Залиште, будь ласка, телефон або e-mail.",
        "role": "Яка ваша роль у проєкті?",
        "projectType": "Який проєкт ви задумали: проморолик, подкаст, кліп чи щось інше?",
    },
    "en": {
        "clientName": "What is your name, or which company are you contacting us for?",
        "company": "Which company do you represent?",
        "contact": "How can we reach you? Please leave a phone number or an e-mail address.",
        "role": "What is your role in the project?",
        "projectType": (
            "What kind of project do you have in mind: a promo video, a podcast, "
            "a music video or something else?"
        ),
    },
}

REASKS = {
    "ru": {
        "clientName": "Подскажите, пожалуйста, как к вам обращаться — имя или название компании?",
        "contact": "По какому номеру или адресу продюсеру с вами связаться?",
        "projectType": "Уточню: что будем снимать — рекламу, имиджевый фильм, клип, подкаст?",
    },
    "uk": {
        "clientName": "Підкажіть, будь ласка, як до вас звертатися — ім’я або назва компанії?",
        "contact": "За яким номером чи адресою продюсеру з вами зв’язатися?",
        "projectType": "Уточню: що будемо знімати — рекламу, іміджевий фільм, кліп, подкаст?",
    },
    "en": {
        "clientName": "Sorry, how should we address you: your name or your company's?",
        "contact": "Which number or address should the producer use to reach you?",
        "projectType": "Just to be sure: what are we making, an ad, a brand film, a music video?",
    },
}

OPENING = {
    "ru": "Здравствуйте! Я помогу составить бриф для вашего видеопроекта. "
    "Для начала — пара вопросов о вас.",
    "uk": "Вітаю! Я допоможу скласти бриф для вашого відеопроєкту. "
    "Спершу — кілька запитань про вас.",
    "en": "Hello! I will help you put together a brief for your video project. "
    "First, a few questions about you.",
}

LABELS = {
    "ru": {
        "clientName": "Клиент",
        "company": "Компания",
        "role": "Роль",
        "contact": "Контакт",
        "projectType": "Проект",
    },
    "uk": {
        "clientName": "Клієнт",
        "company": "Компанія",
        "role": "Роль",
        "contact": "Контакт",
        "projectType": "Проєкт",
    },
    "en": {
        "clientName": "Client",
        "company": "Company",
        "role": "Role",
        "contact": "Contact",
        "projectType": "Project",
    },
}


def summary(fields: Mapping[str, Any], language: str) -> str:
    """ "Клиент: …", "Компания: …", "Роль: …", "Контакт: …", "Проект: …", one a line."""
    order = ("clientName", "company", "role", "contact", "projectType")
    return "\n".join(labelled_lines(fields, labels_for(LABELS, language), order))


STAGE = StageSpec(
    key="intro",
    title=TITLES["en"],
    answer_model=IntroAnswer,
    status_field="introStatus",
    fields=("clientName", "company", "contact", "role", "projectType"),
    required=REQUIRED,
    prompt=stage_prompt(
        stage="intro",
        collect=(
            "the client's name (or the company they speak for), company, role, "
            "a contact (phone or e-mail) and the project type (promo video, podcast, ...)"
        ),
        status_field="introStatus",
        required=REQUIRED,
        example="How can we reach you: a phone number or an e-mail?",
    ),
    questions=QUESTIONS,
    reasks=REASKS,
    opening=OPENING,
    summary=summary,
    readers={
        "clientName": read_name,
        "company": read_text,
        "contact": read_contact,
        "role": read_text,
        "projectType": read_text,
    },
    prefill={name: name for name in ("clientName", "company", "role", "contact", "projectType")},
    # The client's name must not drift between stages (DESIGN.md, the lock layer).
    locks={"clientName": "client_name"},
)
check_stage(STAGE)
