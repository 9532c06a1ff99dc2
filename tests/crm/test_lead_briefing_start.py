"""Starting a briefing from a lead (issue 27, item 9): the card's budget and deadline fill
the stage that asks them, so the bot does not ask again; the manager picks the producer by
full name (themself by default); the client's page shows a title in the client's language,
never the back office's English "Event filming — Name"."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext

from briefing.models import Project, StageRun, Turn
from briefing.stages.budget import QUESTIONS
from crm.models import InboundMessage, Lead
from crm.selectors import lead_deadline
from crm.services import lead_start_briefing
from tests.briefing.conftest import say  # noqa: F401 (the client's messages, processed)
from tests.conftest import user_in_group

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
REQUEST = (
    "Здравствуйте! Нужна съёмка конференции, бюджет 450 000 рублей, нужно в течение двух "
    "недель. Меня зовут Светлана, +7 916 555-44-33"
)
# The client's answers to every question of the briefing but the budget stage's
# (tests/briefing/turn/test_orchestrator.py's orderly client).
ANSWERS_BUT_BUDGET = [
    "Здравствуйте! Хотим снять ролик.",
    "Анна Петрова, компания «Вкусно»",
    "+7 916 123-45-67",
    "Рекламный ролик для соцсетей",
    "Кофейня «Зерно»",
    "Показать утренний ритуал с нашим кофе",
    "Привлечь новых гостей в кофейню",
    "Горожане 25-40 лет",
    "Видеоролик",
    "Вертикальное видео 30 секунд",
    "Основной ролик и три коротких версии",
    "Референсы: https://youtu.be/abc",
]


def make_lead(**fields) -> Lead:
    fields = {
        "channel": InboundMessage.Channel.FORM,
        "client_intent": "new_project",
        "last_message_at": timezone.now(),
        **fields,
    }
    return Lead.objects.create(**fields)


def start(client, lead: Lead, **data) -> Project:
    response = client.post(reverse("crm:lead_start_briefing", args=[lead.pk]), data)
    assert response.status_code == 302, response.content.decode()[:500]
    return Project.objects.get(lead=lead)


def budget_stage(project: Project) -> StageRun:
    return project.stages.get(key="budget")


# --- budget and deadline ---------------------------------------------------------------------


def test_the_cards_budget_and_deadline_fill_the_budget_stage(manager_client, receive):
    message = receive(REQUEST)
    lead = message.lead
    assert (lead.budget_amount, lead.urgency_days) == (450_000, 14)
    project = start(manager_client, lead)
    stage = budget_stage(project)
    due = (timezone.localdate(message.received_at) + datetime.timedelta(days=14)).isoformat()
    assert stage.fields == {"budget": 450_000, "currency": "RUB", "deadline": due}
    # Both required fields are known: the stage is closed as the pre-parse closes one.
    assert (stage.status, stage.closed_by) == (StageRun.Status.CLOSED, StageRun.ClosedBy.PREFILL)
    filled = project.events.filter(kind="prefill_filled", stage_key="budget")
    assert {(e.data["field"], e.data["source"]) for e in filled} == {
        ("budget", "lead"), ("currency", "lead"), ("deadline", "lead"),
    }  # fmt: skip
    assert project.profile["budget"]["budget"] == 450_000


def test_the_bot_does_not_ask_the_budget_or_the_deadline_again(
    manager_client,
    receive,
    say,  # noqa: F811
):
    lead = receive(REQUEST).lead
    project = start(manager_client, lead)
    # The client answers every question but those of the budget stage.
    for text in ANSWERS_BUT_BUDGET:
        say(project, text)
    assert list(
        project.events.filter(kind="stage_skipped").values_list("stage_key", flat=True)
    ) == ["budget"]
    assert not project.turns.filter(role=Turn.Role.AGENT, stage_key="budget").exists()
    asked = " ".join(project.turns.filter(role=Turn.Role.AGENT).values_list("text", flat=True))
    for question in (QUESTIONS["ru"]["budget"], QUESTIONS["ru"]["deadline"]):
        assert question not in asked
    project.refresh_from_db()
    assert project.status == Project.Status.COMPLETED
    assert project.brief["budget"]["budget"] == 450_000


def test_only_the_budget_leaves_the_deadline_to_ask(manager_client):
    lead = make_lead(client_name="Олег", budget_amount=300_000, budget_currency="RUB")
    stage = budget_stage(start(manager_client, lead))
    assert stage.fields == {"budget": 300_000, "currency": "RUB"}
    assert stage.status == StageRun.Status.PENDING


def test_a_term_already_past_is_not_carried(manager):
    lead = make_lead(client_name="Олег", urgency_days=3)
    Lead.objects.filter(pk=lead.pk).update(created_at=timezone.now() - datetime.timedelta(days=30))
    lead.refresh_from_db()
    assert lead_deadline(lead, today=timezone.localdate()) is None
    project = lead_start_briefing(lead=lead, user=manager)
    assert "deadline" not in budget_stage(project).fields


def test_a_term_over_the_cards_cap_keeps_its_date(receive):
    message = receive("Нужен рекламный ролик к 1 декабря 2031 года, бюджет 2 млн рублей")
    lead = message.lead
    assert lead.urgency_days == 90  # the card's cap
    assert lead_deadline(lead, today=timezone.localdate()) == "2031-12-01"


# --- the producer --------------------------------------------------------------------------------


@pytest.fixture
def petrov(db):
    return user_in_group("petrov", "Producers", first_name="Пётр", last_name="Петров")


def test_the_lead_page_offers_the_producers_by_full_name_with_the_manager_chosen(
    manager_client, manager, petrov
):
    manager.first_name, manager.last_name = "Мария", "Сидорова"
    manager.save()
    lead = make_lead(client_name="Иван")
    for response in (
        manager_client.get(reverse("crm:lead_detail", args=[lead.pk])),
        manager_client.get(reverse("crm:lead_detail", args=[lead.pk]), **HTMX),
    ):
        html = response.content.decode()
        assert '<label for="lead-briefing-producer">' in html
        assert f'<option value="{petrov.pk}">Пётр Петров</option>' in html
        assert f'<option value="{manager.pk}" selected>Мария Сидорова</option>' in html
        assert ">petrov<" not in html


def test_the_chosen_producer_runs_the_briefing(manager_client, petrov):
    lead = make_lead(client_name="Иван")
    project = start(manager_client, lead, producer=petrov.pk)
    assert project.producer == petrov


def test_without_a_choice_the_manager_runs_it(manager_client, manager):
    project = start(manager_client, make_lead(client_name="Иван"))
    assert project.producer == manager


@pytest.mark.parametrize("chosen", ["stranger", "inactive", "garbage", "99999999999999999999"])
def test_a_producer_not_on_the_list_is_refused(manager_client, chosen):
    stranger = get_user_model().objects.create_user("stranger", password="pw")
    inactive = user_in_group("gone", "Producers", is_active=False)
    value = {"stranger": stranger.pk, "inactive": inactive.pk}.get(chosen, chosen)
    lead = make_lead(client_name="Иван")
    url = reverse("crm:lead_start_briefing", args=[lead.pk])
    response = manager_client.post(url, {"producer": value})
    assert response.status_code == 400
    assert "Choose a producer from the list." in response.content.decode()
    fragment = manager_client.post(url, {"producer": value}, **HTMX)
    assert fragment.status_code == 400
    assert 'id="lead-briefing"' in fragment.content.decode()
    assert "<html" not in fragment.content.decode()
    assert not Project.objects.exists()


# --- the client's title ----------------------------------------------------------------------


def test_the_client_page_shows_a_client_facing_title_in_the_clients_language(manager_client):
    lead = make_lead(
        client_name="Светлана Гурьева", product_class="event_filming", language="ru",
        lead_type="studio",
    )  # fmt: skip
    project = start(manager_client, lead)
    with translation.override("ru"):
        expected = gettext("Project brief — %(name)s") % {"name": "Светлана Гурьева"}
    assert project.title == expected
    page = manager_client.get(reverse("client_chat", args=[project.client_token]))
    html = page.content.decode()
    assert expected in html
    assert "Event filming" not in html
