"""The three events, emitted from the real flows that cause them (the rules agent for a
briefing and a lead, a scripted model for a dead letter) and received, signed, by a local
receiver."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from django.utils import timezone

from briefing.models import Project
from briefing.services import project_create, stage_force_close, turn_receive
from crm.models import Lead
from crm.services import Inbound, inbound_store
from dlq.models import DeadLetter
from dlq.services import llm_check_run
from tests.conftest import user_in_group
from webhooks.models import WebhookDelivery

pytestmark = pytest.mark.django_db

EXAMPLE = Path(__file__).resolve().parents[2] / "briefing" / "examples" / "ru_orderly.yaml"
ORDERLY = [step["client"] for step in yaml.safe_load(EXAMPLE.read_text("utf-8"))["turns"]]


def envelopes(receiver) -> list[dict]:
    assert all(r.verified for r in receiver.received)
    return [json.loads(r.body) for r in receiver.received]


def test_a_briefing_completed_by_the_agent_announces_brief_completed(hook, run_on_commit):
    _, receiver = hook(200, kinds=["brief.completed"])
    _, leads_only = hook(200, kinds=["lead.created"])
    project = project_create(title="Зерно", client_name="Анна", language="ru")
    for text in ORDERLY[:-1]:
        run_on_commit(turn_receive, project=project, text=text)
    assert receiver.received == []  # nothing until the last stage closes
    run_on_commit(turn_receive, project=project, text=ORDERLY[-1])
    project.refresh_from_db()
    assert project.status == Project.Status.COMPLETED
    [envelope] = envelopes(receiver)
    assert envelope["kind"] == "brief.completed"
    assert receiver.received[0].headers["x-webhook-event"] == "brief.completed"
    assert envelope["data"] == {
        "project_id": project.pk,
        "title": "Зерно",
        "client_name": "Анна",
        "language": "ru",
        "completed_at": envelope["data"]["completed_at"],
        "brief": project.brief,
        "summary_markdown": project.summary_markdown,
    }
    assert envelope["data"]["brief"]["intro"]["contact"] == "+79161234567"
    sent_at = envelope["data"]["completed_at"].replace("Z", "+00:00")
    # DjangoJSONEncoder writes datetimes to the millisecond (as JavaScript reads them).
    lag = project.completed_at - timezone.datetime.fromisoformat(sent_at)
    assert 0 <= lag.total_seconds() < 0.001
    assert leads_only.received == []
    # A message after completion completes nothing again.
    run_on_commit(turn_receive, project=project, text="Спасибо!")
    assert len(receiver.received) == 1


def test_a_producers_force_close_of_the_last_stage_announces_brief_completed(hook, run_on_commit):
    producer = user_in_group("producer", "Producers")
    _, receiver = hook(200, kinds=["brief.completed"])
    project = project_create(title="Force", language="ru", producer=producer)
    keys = list(project.stages.order_by("order").values_list("key", flat=True))
    for key in keys[:-1]:
        run_on_commit(
            stage_force_close, project=project, stage_key=key, user=producer, reason="by phone"
        )
    assert receiver.received == []
    run_on_commit(
        stage_force_close, project=project, stage_key=keys[-1], user=producer, reason="by phone"
    )
    project.refresh_from_db()
    assert project.status == Project.Status.COMPLETED
    [envelope] = envelopes(receiver)
    assert (envelope["kind"], envelope["data"]["project_id"]) == ("brief.completed", project.pk)
    assert envelope["data"]["brief"] == project.brief


def test_a_new_lead_announces_lead_created_and_a_known_clients_second_message_does_not(
    hook, run_on_commit
):
    _, receiver = hook(200, kinds=["lead.created"])
    _, briefs_only = hook(200, kinds=["brief.completed"])

    def receive(text):
        inbound = Inbound(channel="form", body_text=text, received_at=timezone.now())
        return run_on_commit(inbound_store, inbound)

    receive("Хочу заказать рекламный ролик за 500 тыс рублей, +7 916 123-45-67, Иван")
    lead = Lead.objects.get()
    [envelope] = envelopes(receiver)
    assert envelope["kind"] == "lead.created"
    assert envelope["data"] == {
        "lead_id": lead.pk,
        "client_intent": lead.client_intent,
        "client_name": lead.client_name,
        "product_class": lead.product_class,
        "budget_amount": 500_000,
        "budget_currency": "RUB",
        "urgency_days": lead.urgency_days,
        "needs_call_back": lead.needs_call_back,
        "phones": ["+79161234567"],
        "emails": [],
        "summary": lead.summary,
        "channel": "form",
    }
    assert (lead.client_intent, lead.product_class) == ("new_project", "video")
    receive("Ещё нужна фотосессия, телефон тот же: +7 916 123-45-67")
    assert Lead.objects.count() == 1  # the same client: the lead is extended, not created
    assert len(receiver.received) == 1
    assert briefs_only.received == []


def test_a_dead_letter_announces_dead_letter_created(hook, run_on_commit, scripted_model):
    _, receiver = hook(200, kinds=["dead_letter.created"])
    scripted_model.answers("I cannot answer in JSON, sorry.")
    result, call = run_on_commit(llm_check_run, source_id="webhook-test")
    assert not result.ok
    letter = DeadLetter.objects.get(call=call)
    [envelope] = envelopes(receiver)
    assert envelope["kind"] == "dead_letter.created"
    assert envelope["data"] == {
        "dead_letter_id": letter.pk,
        "schema_name": letter.schema_name,
        "error_signature": letter.error_signature,
        "source_kind": "llm_check",
        "source_id": "webhook-test",
        "provider": "openai",
    }
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.DELIVERED


def test_a_successful_model_call_announces_nothing(hook, run_on_commit):
    _, receiver = hook(200, kinds=["dead_letter.created"])
    result, _ = run_on_commit(llm_check_run, source_id="ok")  # the rules agent answers well
    assert result.ok
    assert not DeadLetter.objects.exists()
    assert receiver.received == []
