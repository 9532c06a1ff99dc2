"""A message whose reading keeps failing, or keeps being lost with its worker, becomes a dead
letter after CRM_MESSAGE_MAX_ATTEMPTS instead of failing on every sweep; a replay of that
letter reads it again. A date stored out of Python's range before the entry points refused
it is repaired by a migration."""

from __future__ import annotations

import datetime
import importlib

import pytest
from django.apps import apps
from django.conf import settings
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from crm.models import InboundMessage
from crm.services import Inbound, inbound_read, inbound_store, inbound_sweep_ids
from dlq.models import DeadLetter
from dlq.services import dead_letter_replay_run

pytestmark = pytest.mark.django_db

Status = InboundMessage.Status
PURCHASE = "Хочу купить седан, перезвоните: +7 916 123-45-67"


def _stored(text: str = PURCHASE) -> InboundMessage:
    """A message stored but not read yet (its task not run)."""
    message, _ = inbound_store(
        Inbound(channel=InboundMessage.Channel.FORM, body_text=text, received_at=timezone.now())
    )
    return message


def _claimed_by_a_dead_worker(message: InboundMessage, *, attempts: int) -> None:
    stale = timezone.now() - datetime.timedelta(seconds=settings.CRM_MESSAGE_LEASE_S + 5)
    InboundMessage.objects.filter(pk=message.pk).update(
        status=Status.PROCESSING, claimed_at=stale, attempts=attempts
    )


def test_a_claim_lost_below_the_limit_is_read_again(settings):
    settings.CRM_MESSAGE_MAX_ATTEMPTS = 3
    message = _stored()
    _claimed_by_a_dead_worker(message, attempts=2)
    assert message.pk in inbound_sweep_ids()
    inbound_read(message.pk)
    message.refresh_from_db()
    assert (message.status, message.attempts) == (Status.LEAD, 3)
    assert not DeadLetter.objects.exists()


def test_a_message_lost_with_its_worker_too_often_becomes_a_dead_letter_and_replays(
    settings, admin_client
):
    settings.CRM_MESSAGE_MAX_ATTEMPTS = 3
    message = _stored()
    _claimed_by_a_dead_worker(message, attempts=3)
    inbound_read(message.pk)  # the fourth claim reads nothing: it gives up
    message.refresh_from_db()
    assert (message.status, message.lead) == (Status.DEAD_LETTERED, None)
    letter = DeadLetter.objects.get()
    assert (letter.source_kind, letter.source_id) == ("inbound_message", str(message.pk))
    assert (letter.error_signature, letter.schema_name, letter.raw_input) == (
        "$: processing_failed",
        "LeadCard",
        PURCHASE,
    )
    assert "lost 3 times" in letter.errors[0]["message"]
    assert message.pk not in inbound_sweep_ids()
    # Reviewed like any other: on the dead-letter pages, linked from the message's page.
    page = admin_client.get(reverse("dlq:dead_letter_detail", args=[letter.pk]))
    assert page.status_code == 200
    assert "lost 3 times" in page.content.decode()
    on_message = admin_client.get(reverse("crm:message_detail", args=[message.pk]))
    assert reverse("dlq:dead_letter_detail", args=[letter.pk]) in on_message.content.decode()

    # A person's replay is a fresh start: read at once, counted from one.
    replayed = dead_letter_replay_run(dead_letter_id=letter.pk, user_id=None)
    message.refresh_from_db()
    assert (replayed.status, message.status, message.attempts) == ("replayed", Status.LEAD, 1)
    assert message.lead.phones == ["+79161234567"]


def _store_out_of_python_range(message: InboundMessage) -> None:
    """What the messenger webhook stored before it refused such dates: a time PostgreSQL
    holds (year 10000 in UTC) that Python cannot read back."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE crm_inboundmessage SET received_at = %s, created_at = %s WHERE id = %s",
            ["10000-01-01 09:59:59+00", timezone.now() - datetime.timedelta(minutes=5), message.pk],
        )


def _state(message: InboundMessage) -> tuple[str, int]:
    # The row cannot be loaded whole: only the columns Python can read.
    return InboundMessage.objects.filter(pk=message.pk).values_list("status", "attempts").get()


def test_a_stored_date_python_cannot_read_fails_a_few_times_then_is_a_dead_letter(
    postgres, settings
):
    settings.CRM_MESSAGE_MAX_ATTEMPTS = 3
    message = _stored()
    _store_out_of_python_range(message)
    for attempt in (1, 2):
        with pytest.raises(Exception, match="year"):
            inbound_read(message.pk)
        # Given back to the sweep, not stuck in its claim until the lease runs out.
        assert _state(message) == (Status.RECEIVED, attempt)
        assert message.pk in inbound_sweep_ids()
    assert inbound_read(message.pk) is None  # the third failure: no exception, a letter
    assert _state(message) == (Status.DEAD_LETTERED, 3)
    letter = DeadLetter.objects.get(source_kind="inbound_message", source_id=str(message.pk))
    assert letter.error_signature == "$: processing_failed"
    assert "failed 3 times" in letter.errors[0]["message"]
    assert letter.raw_input == PURCHASE
    assert message.pk not in inbound_sweep_ids()


def test_the_migration_gives_a_stored_date_out_of_range_its_arrival_time(
    postgres, client, manager, admin_client
):
    message = _stored()
    _store_out_of_python_range(message)
    migration = importlib.import_module("crm.migrations.0002_inbound_attempts")
    migration.dates_into_range(apps, None)
    message.refresh_from_db()
    assert message.received_at == message.created_at
    client.force_login(manager)
    assert client.get(reverse("crm:message_detail", args=[message.pk])).status_code == 200
    assert admin_client.get(reverse("admin:crm_inboundmessage_changelist")).status_code == 200
