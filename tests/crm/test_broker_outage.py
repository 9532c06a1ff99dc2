"""A message that reaches the web form or the messenger while the broker is down is stored and
answered as usual (never a 500 that invites the sender to send it again); the sweep reads it
once the broker is back."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import logging

import pytest
from django.test import Client
from django.urls import reverse

from crm.models import InboundMessage
from crm.tasks import inbound_sweep

# The queueing happens after a real commit.
pytestmark = pytest.mark.django_db(transaction=True)

FORM_TOKEN = "form-token-123"
SECRET = "messenger-secret"


@pytest.fixture
def endpoints(settings):
    settings.CRM_FORM_TOKEN = FORM_TOKEN
    settings.CRM_MESSENGER_SECRET = SECRET
    return Client(raise_request_exception=False)


def _post_form(client: Client):
    return client.post(
        reverse("crm:inbound_form"),
        {"token": FORM_TOKEN, "message": "Нужен ролик к запуску, перезвоните",
         "name": "Ольга", "phone": "8 916 765 43 21", "form_id": "site-outage"},
    )  # fmt: skip


def _post_messenger(client: Client):
    body = json.dumps(
        {"channel": "telegram", "sender": "telegram:501", "sender_name": "Oksana",
         "external_id": "m-outage", "text": "Потрібне відео для кав'ярні"}
    ).encode()  # fmt: skip
    signature = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    return client.post(
        reverse("crm:inbound_messenger"),
        body,
        content_type="application/json",
        headers={"X-Signature": f"sha256={signature}"},
    )


@pytest.mark.parametrize("post", [_post_form, _post_messenger], ids=["form", "messenger"])
def test_a_message_stored_while_the_broker_is_down_is_answered_and_swept_later(
    endpoints, dead_broker, caplog, post
):
    with caplog.at_level(logging.ERROR, logger="core.queueing"):
        response = post(endpoints)

    assert response.status_code in {200, 202}, response.content
    assert "could not be queued" in caplog.text
    message = InboundMessage.objects.get()
    assert message.status == InboundMessage.Status.RECEIVED

    dead_broker()  # the broker is back; the sweep finds what was never read
    InboundMessage.objects.update(created_at=message.created_at - datetime.timedelta(minutes=5))
    assert inbound_sweep() == 1
    message.refresh_from_db()
    assert message.status != InboundMessage.Status.RECEIVED
