"""The admin is no way around the audited services: every audited row of ours is shown
read-only there, with a link to the back-office page that changes it through its service;
configuration (prices, catalogues, subscriptions, tokens) stays editable; and a staff
producer sees only their own briefings, as on the back office."""

from __future__ import annotations

import json

import pytest
from django import forms
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from api.models import ApiToken, TokenProject
from briefing.models import (
    BriefingEvent,
    BriefingNote,
    CannedReply,
    CannedReplyChange,
    LockedEntity,
    Project,
    RevokedClientLink,
    StaffProfile,
    StageRun,
    Turn,
)
from briefing.services import project_create, turn_receive
from crm.models import (
    InboundMessage,
    Lead,
    LeadContact,
    LeadIntent,
    LeadProduct,
    LeadType,
    MailboxAttempt,
    MailboxPoll,
)
from crm.services import Inbound, inbound_store
from dlq.models import (
    CallLatency,
    CallRollup,
    ClassifierDisagreement,
    DeadLetter,
    DeadLetterAction,
    ModelPrice,
    StructuredCall,
)
from dlq.services import dead_letter_create, llm_check_run
from llmkit.parse import FieldError
from studio.models import (
    CalendarPeriod,
    ClientSnapshot,
    MemoryItem,
    PortfolioItem,
    RateCardItem,
    StudioChange,
)
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookSubscription

pytestmark = pytest.mark.django_db

OUR_APPS = {"api", "briefing", "crm", "dlq", "webhooks", "studio"}
OURS = [m for m in admin.site._registry if m._meta.app_label in OUR_APPS]

# Written by the services (each change validated and, where a person makes it, recorded as
# an event or action), or derived from what they wrote: shown here, never added or edited.
AUDITED = {
    Project, StageRun, LockedEntity, Turn, BriefingEvent, RevokedClientLink,
    DeadLetter, DeadLetterAction, StructuredCall, ClassifierDisagreement, CallRollup,
    CallLatency,
    Lead, LeadContact, InboundMessage, MailboxPoll, MailboxAttempt,
    WebhookDelivery, WebhookAttempt,
    MemoryItem, StudioChange,
    BriefingNote, CannedReply, CannedReplyChange,
}  # fmt: skip
# Configuration an administrator sets up here (a client snapshot's correction goes through
# studio.memory.snapshot_correct from its admin).
CONFIGURATION = {
    StaffProfile, ModelPrice, LeadType, LeadIntent, LeadProduct, WebhookSubscription,
    ApiToken, TokenProject, RateCardItem, PortfolioItem, CalendarPeriod, ClientSnapshot,
}  # fmt: skip

BOGUS_FIELDS = {"clientName": 12345, "bogus": [1]}


def _url(model, view: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def _stored(row) -> dict:
    return type(row).objects.filter(pk=row.pk).values().get()


@pytest.fixture
def rows(admin_user, producer, django_capture_on_commit_callbacks):
    """At least one row of each audited model of the briefing, the dead letters, the CRM
    and the webhooks."""
    project = project_create(title="Admin audit", language="ru", producer=producer)
    turn_receive(project=project, text="Здравствуйте!")  # queued, not run
    LockedEntity.objects.create(project=project, key="clientName", value="Анна", source="client")
    RevokedClientLink.objects.create(token="rotated-away", project=project)
    letter = dead_letter_create(
        source_kind="briefing_turn", source_id="1", schema_name="intro", raw_input="Привет",
        errors=[FieldError("$", "processing_failed", "a test")],
    )  # fmt: skip
    DeadLetterAction.objects.create(dead_letter=letter, kind="replay_requested", note="a test")
    llm_check_run(source_id="admin")
    with django_capture_on_commit_callbacks(execute=True):
        inbound_store(
            Inbound(
                channel="form", body_text="Хочу купить седан за 500 тыс рублей, +7 916 123-45-67",
                received_at=timezone.now(),
            )
        )  # fmt: skip
    subscription = WebhookSubscription.objects.create(
        name="planner", url="https://planner.example/hook", event_kinds=["lead.created"]
    )
    delivery = WebhookDelivery.objects.create(
        subscription=subscription, event_id="e1", kind="lead.created", payload={}
    )
    WebhookAttempt.objects.create(delivery=delivery, status_code=500)
    MemoryItem.objects.create(key="company:ромашка", text="Ромашка: ролик", source="project:1")
    MailboxPoll.objects.create(mailbox="inbox@studio.example")
    for model in (Project, StageRun, LockedEntity, DeadLetter, DeadLetterAction, Lead,
                  InboundMessage):  # fmt: skip
        assert model.objects.exists(), model
    return project


def _posted(page, **changes) -> dict:
    """The change page's form (and its inlines' forms) as a browser posts it back, with
    `changes` on top: what the form would save, were the page editable."""
    data = {}
    shown = [page.context["adminform"].form]
    for inline in page.context["inline_admin_formsets"]:
        management = inline.formset.management_form
        data.update({management[key].html_name: value for key, value in management.initial.items()})
        shown += inline.formset.forms
    for form in shown:
        for name, field in form.fields.items():
            bound, value = form[name], form[name].value()
            if isinstance(field.widget, forms.MultiWidget):
                for i, part in enumerate(field.widget.decompress(value)):
                    data[f"{bound.html_name}_{i}"] = "" if part is None else str(part)
            elif isinstance(field, forms.BooleanField):
                if value:
                    data[bound.html_name] = "on"
            elif isinstance(value, list | tuple):
                data[bound.html_name] = [str(v) for v in value]
            else:
                data[bound.html_name] = "" if value is None else str(value)
    return data | changes


def _text_changes(model) -> dict:
    """A change to every free-text field of the model."""
    return {
        field.name: "changed in the admin"
        for field in model._meta.concrete_fields
        if field.editable and not field.choices and not field.unique
        and field.get_internal_type() in ("CharField", "TextField")
    }  # fmt: skip


def test_every_admin_change_form_refuses_a_save_of_an_audited_row(admin_client, admin_user, rows):
    request = RequestFactory().get("/admin/")
    request.user = admin_user
    problems = []
    for model in OURS:
        name = model.__name__
        model_admin = admin.site._registry[model]
        row = model.objects.first()
        if model in CONFIGURATION:
            if not model_admin.has_change_permission(request, row):
                problems.append(f"{name}: configuration, yet not editable")
            continue
        if model not in AUDITED:
            problems.append(f"{name}: neither audited nor configuration: decide")
            continue
        if model_admin.has_add_permission(request):
            problems.append(f"{name}: can be added in the admin")
        if model_admin.has_change_permission(request, row):
            problems.append(f"{name}: can be changed in the admin")
        if admin_client.post(_url(model, "add"), {}).status_code != 403:
            problems.append(f"{name}: the add form takes a post")
        if row is None:
            continue
        page = admin_client.get(_url(model, "change", row.pk))
        if page.status_code != 200 or 'name="_save"' in page.content.decode():
            problems.append(f"{name}: the change page offers to save")
        for inline in page.context["inline_admin_formsets"]:
            if inline.has_add_permission or inline.has_change_permission:
                problems.append(f"{name}: the inline {inline.opts.__class__.__name__} is editable")
        before = _stored(row)
        response = admin_client.post(
            _url(model, "change", row.pk), _posted(page, **_text_changes(model))
        )
        if response.status_code != 403:
            problems.append(f"{name}: a posted change answered {response.status_code}")
        if _stored(row) != before:
            problems.append(f"{name}: a posted change was applied")
    assert problems == []


def test_the_audited_change_pages_link_to_the_back_office_page_that_changes_them(
    admin_client, rows
):
    project = rows
    letter = DeadLetter.objects.first()
    lead = Lead.objects.first()
    message = InboundMessage.objects.first()
    links = {
        (Project, project.pk): reverse("project_detail", args=[project.pk]),
        (StageRun, project.stages.first().pk): reverse("project_detail", args=[project.pk]),
        (LockedEntity, project.locks.get().pk): reverse("project_detail", args=[project.pk]),
        (DeadLetter, letter.pk): reverse("dlq:dead_letter_detail", args=[letter.pk]),
        (DeadLetterAction, letter.actions.get().pk): reverse(
            "dlq:dead_letter_detail", args=[letter.pk]
        ),
        (Lead, lead.pk): reverse("crm:lead_detail", args=[lead.pk]),
        (InboundMessage, message.pk): reverse("crm:message_detail", args=[message.pk]),
    }
    missing = [
        f"{model.__name__} → {link}"
        for (model, pk), link in links.items()
        if f'href="{link}"' not in admin_client.get(_url(model, "change", pk)).content.decode()
    ]
    assert missing == []


@pytest.fixture
def staff_producer_client(client, producer):
    producer.is_staff = True
    producer.save()
    client.force_login(producer)
    return client


def test_a_staff_producer_sees_only_their_own_briefings_in_the_admin(
    staff_producer_client, producer, outsider
):
    own = project_create(title="Своя съёмка", language="ru", producer=producer)
    other = project_create(title="Чужая съёмка", language="ru", producer=outsider)
    LockedEntity.objects.create(project=other, key="clientName", value="Борис", source="client")

    listed = staff_producer_client.get(_url(Project, "changelist"))
    assert listed.status_code == 200
    assert [p.pk for p in listed.context["cl"].result_list] == [own.pk]
    stages = staff_producer_client.get(_url(StageRun, "changelist")).context["cl"].result_list
    assert {stage.project_id for stage in stages} == {own.pk}
    locks = staff_producer_client.get(_url(LockedEntity, "changelist")).context["cl"]
    assert locks.result_count == 0
    # Another producer's briefing is not found (the admin sends them back to its index).
    assert staff_producer_client.get(_url(Project, "change", other.pk)).status_code == 302
    assert staff_producer_client.get(_url(Project, "change", own.pk)).status_code == 200


@pytest.mark.parametrize("who", ["superuser", "staff producer"])
def test_a_stage_posted_with_bogus_fields_changes_nothing(
    who, admin_client, staff_producer_client, producer
):
    browser = admin_client if who == "superuser" else staff_producer_client
    project = project_create(title="Ролик", language="ru", producer=producer)
    stage = project.stages.get(key="intro")
    before, events = _stored(stage), BriefingEvent.objects.filter(project=project).count()
    now = timezone.localtime()
    response = browser.post(
        _url(StageRun, "change", stage.pk),
        {
            "project": project.pk, "key": stage.key, "order": stage.order, "status": "closed",
            "fields": json.dumps(BOGUS_FIELDS), "producer_fields": "[]", "summary": "",
            "closed_by": "producer", "closed_at_0": now.strftime("%Y-%m-%d"),
            "closed_at_1": now.strftime("%H:%M:%S"), "dialogue": "{}",
        },
    )  # fmt: skip
    assert response.status_code == 403
    assert _stored(stage) == before
    assert BriefingEvent.objects.filter(project=project).count() == events


def test_a_dead_letter_is_not_discarded_in_the_admin(admin_client, rows):
    project = rows
    letter = DeadLetter.objects.get(status=DeadLetter.Status.OPEN, source_id="1")
    actions, open_letters = letter.actions.count(), project.open_dead_letters
    url = _url(DeadLetter, "change", letter.pk)
    now = timezone.localtime()
    response = admin_client.post(
        url,
        _posted(
            admin_client.get(url), status="discarded", resolution_note="from the admin",
            resolved_at_0=now.strftime("%Y-%m-%d"), resolved_at_1=now.strftime("%H:%M:%S"),
        ),
    )  # fmt: skip
    assert response.status_code == 403
    letter.refresh_from_db()
    assert letter.status == DeadLetter.Status.OPEN
    assert letter.actions.count() == actions
    project.refresh_from_db()
    assert project.open_dead_letters == open_letters


def test_a_completed_brief_is_not_edited_in_the_admin(admin_client, rows):
    project = rows
    Project.objects.filter(pk=project.pk).update(
        status=Project.Status.COMPLETED, brief={"budget": {"budget": 1200000}}
    )
    before = _stored(project)
    url = _url(Project, "change", project.pk)
    response = admin_client.post(
        url, _posted(admin_client.get(url), brief='{"budget": {"budget": 1}}')
    )
    assert response.status_code == 403
    assert _stored(project) == before
