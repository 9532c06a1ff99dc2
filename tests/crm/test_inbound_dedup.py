"""Which inbound messages are one: the channel's own id where it gives one (a client who
writes "ok" twice has written twice); without an id, the same words only within a short
window (a double submit)."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from crm.models import InboundMessage
from crm.services import CONTENT_DUPLICATE_WINDOW

pytestmark = pytest.mark.django_db

FORM_TOKEN = "form-token-123"
SECRET = "messenger-secret"


@pytest.fixture
def client(settings):
    settings.CRM_FORM_TOKEN = FORM_TOKEN
    settings.CRM_MESSENGER_SECRET = SECRET
    return Client()


def messenger(client, external_id: str, text: str = "ok"):
    body = json.dumps(
        {"sender": "@ivan", "text": text, "channel": "telegram", "external_id": external_id}
    ).encode()
    signature = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    return client.post(
        reverse("crm:inbound_messenger"), body, content_type="application/json",
        headers={"X-Signature": f"sha256={signature}"},
    )  # fmt: skip


def form(client, **data):
    return client.post(reverse("crm:inbound_form"), {"token": FORM_TOKEN, **data})


def test_a_client_who_writes_ok_twice_in_a_messenger_has_two_messages(client):
    first, second = messenger(client, "101"), messenger(client, "102")
    assert (first.status_code, second.status_code) == (202, 202)
    assert second.json()["duplicate"] is False
    assert InboundMessage.objects.filter(body_text="ok").count() == 2
    again = messenger(client, "102", text="ok (edited)")  # the bridge delivers it again
    assert (again.status_code, again.json()["id"]) == (200, second.json()["id"])


def test_form_submissions_with_their_own_ids_are_kept_apart_even_with_the_same_words(client):
    answers = [
        form(client, message="Перезвоните", phone="+7 916 123-45-67", form_id="1"),
        form(client, message="Перезвоните", phone="+7 916 123-45-67", form_id="2"),
        form(client, message="Перезвоните", phone="+7 916 123-45-67", form="order", form_id="1"),
    ]
    assert [answer.status_code for answer in answers] == [202, 202, 202]
    assert InboundMessage.objects.count() == 3
    assert form(client, message="Перезвоните", form="order", form_id="1").status_code == 200


def test_without_an_id_the_same_words_are_one_message_only_within_the_window(client, monkeypatch):
    first = form(client, message="Перезвоните мне", phone="+7 916 123-45-67")
    double_submit = form(client, message="Перезвоните мне", phone="+7 916 123-45-67")
    assert double_submit.json() == {**first.json(), "duplicate": True}

    later_on = timezone.now() + CONTENT_DUPLICATE_WINDOW + datetime.timedelta(seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: later_on)
    later = form(client, message="Перезвоните мне", phone="+7 916 123-45-67")
    assert (later.status_code, later.json()["duplicate"]) == (202, False)
    assert InboundMessage.objects.count() == 2
