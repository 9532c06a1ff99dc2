"""The audit trail only "forget the client" can erase: the admin archives a briefing (an
event says who and when) and never deletes it or its rows; forgetting a client erases the
client's data wherever it lies (turns, events, locks, the brief, dead letters and their
calls) and leaves a record of the erasure that holds none of it."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from api.models import ApiToken
from briefing.models import (
    BriefingEvent,
    BriefingNote,
    LockedEntity,
    Project,
    RevokedClientLink,
    StageRun,
    Turn,
)
from briefing.services import field_correct, note_add, project_create, turn_receive
from briefing.turn.completion import project_complete_if_done
from dlq.models import DeadLetter, DeadLetterAction, StructuredCall
from dlq.services import dead_letter_create
from llmkit.parse import FieldError
from studio.memory import client_forget
from webhooks.models import WebhookDelivery, WebhookSubscription

pytestmark = pytest.mark.django_db

CONTACT = "+7 916 123-45-67"  # as the client wrote it in `dead_lettered_turn`
# What of the client's own words may never be left anywhere once they are forgotten.
PERSONAL = ("Анна", "+79161234567", "916 123-45-67", "нужен ролик")
AUDIT_ROWS = [
    Project, StageRun, Turn, LockedEntity, BriefingEvent, RevokedClientLink, DeadLetter,
    DeadLetterAction,
]  # fmt: skip


def _planner(*scopes: str) -> APIClient:
    token = ApiToken(name="planner", scopes=list(scopes))
    secret = token.issue()
    token.save()
    planner = APIClient()
    planner.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return planner


def _admin_url(model, view: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


@pytest.fixture
def audited(project):
    """A briefing with one row of each audited kind."""
    turn_receive(project=project, text="Здравствуйте!")  # queued, not run
    LockedEntity.objects.create(project=project, key="clientName", value="Анна", source="client")
    RevokedClientLink.objects.create(token="rotated-away", project=project)
    letter = dead_letter_create(
        source_kind="briefing_turn", source_id="1", schema_name="intro", raw_input="Привет",
        errors=[FieldError("$", "processing_failed", "a test")],
    )  # fmt: skip
    DeadLetterAction.objects.create(dead_letter=letter, kind="discarded", note="a test")
    return project


@pytest.mark.parametrize("model", AUDIT_ROWS, ids=[m.__name__ for m in AUDIT_ROWS])
def test_the_admin_has_no_delete_for_a_briefing_or_its_audit_rows(admin_client, audited, model):
    row = model.objects.first()
    changelist = admin_client.get(_admin_url(model, "changelist"))
    assert changelist.status_code == 200
    actions = changelist.context["cl"].model_admin.get_actions(changelist.wsgi_request)
    assert "delete_selected" not in actions
    assert admin_client.get(_admin_url(model, "delete", row.pk)).status_code == 403
    assert (
        admin_client.post(_admin_url(model, "delete", row.pk), {"post": "yes"}).status_code == 403
    )
    admin_client.post(
        _admin_url(model, "changelist"),
        {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"},
    )
    assert model.objects.filter(pk=row.pk).exists()
    assert Turn.objects.filter(project=audited).exists()
    assert BriefingEvent.objects.filter(project=audited).exists()


def test_the_admin_archives_the_selected_briefings_with_an_event(admin_client, admin_user, audited):
    changelist = _admin_url(Project, "changelist")
    for _ in range(2):  # archiving an archived briefing records nothing more
        response = admin_client.post(
            changelist, {"action": "project_archive", "_selected_action": [audited.pk]}
        )
        assert response.status_code == 302
    audited.refresh_from_db()
    assert audited.archived_at is not None
    event = BriefingEvent.objects.get(project=audited, kind=BriefingEvent.Kind.PROJECT_ARCHIVED)
    assert event.actor == admin_user
    assert Turn.objects.filter(project=audited).count() == 1  # archived, nothing deleted


def test_forgetting_a_client_clears_its_dead_letters_on_the_page_and_in_the_api(
    dead_lettered_turn, manager_client
):
    _, letter = dead_lettered_turn
    other = project_create(title="Другой", language="ru")
    other_turn = turn_receive(project=other, text="Борис, boris@example.com")
    others_letter = DeadLetter.objects.create(
        source_kind="briefing_turn", source_id=str(other_turn.pk), schema_name="IntroAnswer",
        raw_input=other_turn.text, errors=[], error_signature="$: no_json",
    )  # fmt: skip
    page_url = reverse("dlq:dead_letter_detail", args=[letter.pk])
    api_url = f"/api/v1/dead-letters/{letter.pk}/"
    planner = _planner("dlq:read")
    assert "Анна" in manager_client.get(page_url).content.decode()  # there before the erasure
    assert "Анна" in planner.get(api_url).json()["raw_input"]

    client_forget(contact=CONTACT)

    page = manager_client.get(page_url)
    assert page.status_code == 200
    body = planner.get(api_url).json()
    for text in PERSONAL:
        assert text not in page.content.decode(), text
        assert text not in json.dumps(body, ensure_ascii=False), text
    assert body["raw_input"]
    assert body["raw_responses"] == []
    letter.refresh_from_db()
    assert letter.status == DeadLetter.Status.DISCARDED  # nothing of theirs is left to fix
    assert letter.prompt_messages == []
    others_letter.refresh_from_db()
    assert others_letter.raw_input == "Борис, boris@example.com"
    assert others_letter.status == DeadLetter.Status.OPEN


def _everything_of(project: Project) -> str:
    """Every stored row of the briefing and of its model calls, as one text."""
    project.refresh_from_db()
    rows = [
        {k: v for k, v in vars(project).items() if not k.startswith("_")},
        *StageRun.objects.filter(project=project).values(),
        *Turn.objects.filter(project=project).values(),
        *BriefingEvent.objects.filter(project=project).values(),
        *LockedEntity.objects.filter(project=project).values(),
        *BriefingNote.objects.filter(project=project).values(),
        *StructuredCall.objects.filter(session=f"briefing:{project.pk}").values(),
    ]
    return json.dumps(rows, ensure_ascii=False, default=str)


def test_forgetting_a_client_erases_the_turns_events_locks_and_calls(
    dead_lettered_turn, project, producer
):
    project.client_name = "Анна"
    project.save()
    LockedEntity.objects.create(project=project, key="clientName", value="Анна", source="client")
    note_add(project=project, text="Анна просила перезвонить на 916 123-45-67", user=producer)
    turns, events = project.turns.count(), project.events.count()
    before = _everything_of(project)
    assert all(text in before for text in PERSONAL)

    client_forget(contact=CONTACT, actor=producer)

    after = _everything_of(project)
    for text in PERSONAL:
        assert text not in after, text
    # Erased, not deleted: the transcript's and the audit's rows are all still there.
    assert project.turns.count() == turns
    assert project.events.count() == events + 1
    assert project.archived_at is not None
    assert project.client_token is None  # the client's link opens nothing any more


def test_the_erasure_is_recorded_without_the_clients_data(dead_lettered_turn, project, manager):
    removed = client_forget(contact=CONTACT, actor=manager)

    assert removed["briefings_unlinked"] == 1
    record = BriefingEvent.objects.get(project=project, kind=BriefingEvent.Kind.CLIENT_FORGOTTEN)
    assert record.actor == manager
    assert record.data["turns"] == 2
    assert record.data["dead_letters"] == 1
    stored = json.dumps(record.data, ensure_ascii=False)
    for text in (*PERSONAL, CONTACT, "contact:"):
        assert text not in stored, text


def test_forgetting_a_client_by_company_erases_the_brief_its_export_and_its_webhook(
    producer, producer_client
):
    WebhookSubscription.objects.create(name="planner", url="https://planner.example/hook",
                                       event_kinds=["brief.completed"])  # fmt: skip
    done = project_create(title="Ромашка: ролик", client_name="Ромашка", producer=producer)
    for field, value in (("clientName", "Анна Петрова"), ("company", "Ромашка"),
                         ("contact", "+79161234567, anna@romashka.ru")):  # fmt: skip
        field_correct(project=done, stage_key="intro", field=field, value=value, user=producer)
    field_correct(project=done, stage_key="budget", field="budget", value=1200000, user=producer)
    done.brief = {"additionalRequests": [{"text": "Анна: а субтитры?", "receivedAt": "2026"}]}
    done.save()
    done.stages.update(status="closed", closed_at=timezone.now())
    assert project_complete_if_done(done)
    other = project_create(title="Василёк", client_name="Василёк", producer=producer)
    personal = ("Ромашка", "romashka", "Анна", "+79161234567", "субтитры")
    export = producer_client.get(reverse("results_export", args=["csv"]))
    exported = b"".join(export.streaming_content).decode("utf-8")
    assert all(text in exported for text in personal)

    client_forget(company="ООО «Ромашка»")

    done.refresh_from_db()
    export = producer_client.get(reverse("results_export", args=["csv"]))
    rows = list(csv.reader(io.StringIO(b"".join(export.streaming_content).decode("utf-8"))))
    stored = json.dumps(
        [done.title, done.brief, done.summary_markdown, done.profile,
         list(WebhookDelivery.objects.values_list("payload", flat=True))],
        ensure_ascii=False,
    )  # fmt: skip
    for text in personal:
        assert text not in stored, text
        assert all(text not in cell for row in rows for cell in row), text
    assert done.status == Project.Status.COMPLETED  # the brief's business facts stay
    assert done.brief["budget"]["budget"] == 1200000
    assert "ролик" in done.title
    assert any("Василёк" in cell for row in rows for cell in row)  # another client stays
    assert Project.objects.get(pk=other.pk).client_name == "Василёк"
