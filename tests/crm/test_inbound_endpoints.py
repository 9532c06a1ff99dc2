"""The web form and the messenger webhook: authenticated by a token or a signature instead
of CSRF, stored once, clear errors for bad input."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest
from django.test import Client
from django.urls import reverse

from crm.models import InboundMessage, Lead

pytestmark = pytest.mark.django_db

FORM_TOKEN = "form-token-123"
SECRET = "messenger-secret"


@pytest.fixture
def csrf_client(settings):
    settings.CRM_FORM_TOKEN = FORM_TOKEN
    settings.CRM_MESSENGER_SECRET = SECRET
    # CSRF is enforced as in production: the endpoints must not need it.
    return Client(enforce_csrf_checks=True)


def _post_form(client, capture, **data):
    with capture(execute=True):
        return client.post(reverse("crm:inbound_form"), data)


def test_a_form_submission_is_stored_and_read_into_a_lead(
    csrf_client, django_capture_on_commit_callbacks
):
    response = _post_form(
        csrf_client, django_capture_on_commit_callbacks, token=FORM_TOKEN,
        message="Хочу купить седан, перезвоните", name="Ольга", phone="8 916 765 43 21",
        email="olga@example.ru", form_id="site-77",
    )  # fmt: skip
    assert response.status_code == 202
    body = response.json()
    assert body["duplicate"] is False
    message = InboundMessage.objects.get(pk=body["id"])
    assert (message.channel, message.external_id, message.sender) == (
        "form",
        "site-77",
        "olga@example.ru",
    )
    assert "Phone: 8 916 765 43 21" in message.body_text
    lead = message.lead
    assert (lead.client_name, lead.phones, lead.needs_call_back) == (
        "Ольга",
        ["+79167654321"],
        True,
    )
    again = _post_form(
        csrf_client, django_capture_on_commit_callbacks, token=FORM_TOKEN,
        message="Хочу купить седан, перезвоните", form_id="site-77",
    )  # fmt: skip
    assert (again.status_code, again.json()["duplicate"]) == (200, True)
    assert InboundMessage.objects.count() == 1


@pytest.mark.parametrize(
    ("data", "status", "field"),
    [
        ({"message": "hi"}, 403, None),
        ({"message": "hi", "token": "wrong"}, 403, None),
        ({"message": "", "token": FORM_TOKEN}, 400, "message"),
        ({"message": "x" * 100_001, "token": FORM_TOKEN}, 400, "message"),
        ({"message": "hi", "phone": "1" * 300, "token": FORM_TOKEN}, 400, "phone"),
    ],
)
def test_a_bad_form_submission_gets_a_clear_error_and_stores_nothing(
    csrf_client, data, status, field
):
    response = csrf_client.post(reverse("crm:inbound_form"), data)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["message"]
    if field:
        assert field in error["fields"]
    assert not InboundMessage.objects.exists()


def test_the_form_is_closed_without_a_configured_token(settings, client):
    settings.CRM_FORM_TOKEN = ""
    response = client.post(reverse("crm:inbound_form"), {"message": "hi", "token": ""})
    assert (response.status_code, response.json()["error"]["code"]) == (403, "closed")


def _signed(body: bytes, secret: str = SECRET) -> dict[str, str]:
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return {"X-Signature": f"sha256={digest}"}


def _webhook(client, body: bytes, headers: dict[str, str]):
    return client.post(
        reverse("crm:inbound_messenger"), body, content_type="application/json", headers=headers
    )


def test_a_signed_messenger_message_is_stored_once(csrf_client, django_capture_on_commit_callbacks):
    payload = {
        "sender": "@ivan_petrov",
        "sender_name": "Иван",
        "text": "Сколько стоит съёмка подкаста? +7 916 123-45-67",
        "channel": "telegram",
        "external_id": "9912",
    }
    body = json.dumps(payload, ensure_ascii=False).encode()
    with django_capture_on_commit_callbacks(execute=True):
        response = _webhook(csrf_client, body, _signed(body))
    assert response.status_code == 202
    message = InboundMessage.objects.get()
    assert (message.channel, message.source, message.external_id) == (
        "messenger",
        "telegram",
        "telegram:9912",
    )
    assert (message.lead.client_intent, message.lead.product_class) == ("quote_request", "podcast")
    again = _webhook(csrf_client, body, _signed(body))
    assert (again.status_code, again.json()["duplicate"]) == (200, True)
    # The same id on another messenger is another message.
    other = json.dumps({**payload, "channel": "whatsapp"}).encode()
    with django_capture_on_commit_callbacks(execute=True):
        assert _webhook(csrf_client, other, _signed(other)).status_code == 202
    assert InboundMessage.objects.count() == 2
    assert Lead.objects.count() == 1  # one client: the same phone


@pytest.mark.parametrize(
    ("body", "sign_with", "status", "field"),
    [
        (b'{"sender": "a", "text": "b", "channel": "c", "external_id": "d"}', "other", 403, None),
        (b'{"sender": "a", "text": "b", "channel": "c", "external_id": "d"}', None, 403, None),
        (b"{not json", SECRET, 400, "$"),
        (b"\xff\xfe\x00binary", SECRET, 400, "$"),
        (b"[1, 2]", SECRET, 400, "$"),
        (b'{"sender": "a", "text": 5, "channel": "c", "external_id": "d"}', SECRET, 400, "text"),
        (b'{"sender": "a", "text": "b", "channel": "c", "external_id": " "}', SECRET, 400,
         "external_id"),
        (b'{"sender": "a", "text": "b", "channel": "c", "external_id": "d", "sent_at": "soon"}',
         SECRET, 400, "sent_at"),
    ],
)  # fmt: skip
def test_a_bad_webhook_call_gets_a_clear_error_and_stores_nothing(
    csrf_client, body, sign_with, status, field
):
    headers = _signed(body, sign_with) if sign_with else {}
    response = _webhook(csrf_client, body, headers)
    assert response.status_code == status
    if field:
        assert field in response.json()["error"]["fields"]
    assert not InboundMessage.objects.exists()


def test_hostile_text_is_stored_as_it_came(csrf_client, django_capture_on_commit_callbacks):
    text = '<script>alert(1)</script> Нужна анимация <img src=x onerror="x()">'
    response = _post_form(
        csrf_client, django_capture_on_commit_callbacks, token=FORM_TOKEN, message=text
    )
    message = InboundMessage.objects.get(pk=response.json()["id"])
    assert message.body_text == text
    assert message.lead.product_class == "animation"


def test_a_body_over_the_upload_limit_gets_a_clear_error(csrf_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    big = {"token": FORM_TOKEN, "message": "x" * 20_000}
    form = csrf_client.post(reverse("crm:inbound_form"), big)
    assert form.status_code == 413
    assert form.json()["error"] == {
        "code": "too_large", "message": "The body is over 10000 bytes.", "fields": {},
    }  # fmt: skip
    body = json.dumps(
        {"sender": "a", "text": "x" * 20_000, "channel": "telegram", "external_id": "1"}
    ).encode()
    webhook = _webhook(csrf_client, body, _signed(body))
    assert (webhook.status_code, webhook.json()["error"]["code"]) == (413, "too_large")
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    fields = {f"f{n}": "1" for n in range(10)}
    many = csrf_client.post(reverse("crm:inbound_form"), {"token": FORM_TOKEN, **fields})
    assert many.status_code == 413
    assert "over 5 fields" in many.json()["error"]["message"]
    assert not InboundMessage.objects.exists()


# --- hostile input: a clear 400 in the error shape, never a 500, nothing stored ----------

_VALID = {"sender": "@ivan", "text": "Куплю седан", "channel": "telegram", "external_id": "77"}


def _json(**changes) -> bytes:
    return json.dumps({**_VALID, **changes}).encode()


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        (_json(sent_at="9999-12-31T23:59:59-14:00"), "sent_at", "out of range"),
        (_json(sent_at="0001-01-01T00:00:00+14:00"), "sent_at", "out of range"),
        (_json(sent_at="1969-12-31T23:59:59+00:00"), "sent_at", "before 1970"),
        (b"[" * 10_000 + b"]" * 10_000, "$", "deeper than 32"),
        (b'{"sender": "a", "text": "b", "channel": "c", "external_id": ' + b"9" * 5000 + b"}",
         "$", "more than 50 digits"),
        (_json(text="hi \ud800 there"), "text", "lone surrogate"),
        (_json(sender="\udfff"), "sender", "lone surrogate"),
        (_json(channel="tele\udc00gram"), "channel", "lone surrogate"),
        (_json(sender="@iv\x00an"), "sender", "NUL"),
        (_json(external_id="77\x00"), "external_id", "NUL"),
        (_json(sender_name="Ив\x00ан"), "sender_name", "NUL"),
        (b'{"sender": "a", "text": "b", "channel": "c", "external_id": "d", "x": NaN}',
         "$", "NaN"),
    ],
)  # fmt: skip
def test_hostile_messenger_input_is_refused_with_the_error_shape(csrf_client, body, field, words):
    response = _webhook(csrf_client, body, _signed(body))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert words in error["fields"][field]
    assert not InboundMessage.objects.exists()


def test_a_nul_in_the_messenger_text_is_dropped_and_the_rest_kept(
    csrf_client, django_capture_on_commit_callbacks
):
    body = _json(text="Куплю\x00 седан", sent_at="2025-06-03T10:15:00+03:00")
    with django_capture_on_commit_callbacks(execute=True):
        response = _webhook(csrf_client, body, _signed(body))
    assert response.status_code == 202
    message = InboundMessage.objects.get()
    assert message.body_text == "Куплю седан"
    assert message.received_at.isoformat() == "2025-06-03T07:15:00+00:00"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"message": "hi", "name": "Ол\x00ьга"}, "name"),
        ({"message": "hi", "phone": "+7 916\x00"}, "phone"),
        ({"message": "hi", "email": "olga\x00@example.ru"}, "email"),
        ({"message": "hi", "form_id": "site\x00-1"}, "form_id"),
        ({"message": "hi", "form": "\x00"}, "form"),
    ],
)
def test_a_nul_in_a_form_field_is_refused_with_the_error_shape(csrf_client, data, field):
    response = csrf_client.post(reverse("crm:inbound_form"), {**data, "token": FORM_TOKEN})
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["fields"][field]) == ("invalid", "must not contain NUL characters")
    assert not InboundMessage.objects.exists()


def test_a_nul_in_the_form_message_is_dropped_and_the_rest_kept(
    csrf_client, django_capture_on_commit_callbacks
):
    response = _post_form(
        csrf_client, django_capture_on_commit_callbacks, token=FORM_TOKEN,
        message="Куплю\x00 седан", name="Ольга",
    )  # fmt: skip
    assert response.status_code == 202
    message = InboundMessage.objects.get()
    assert (message.body_text, message.sender_name) == ("Куплю седан\n\nName: Ольга", "Ольга")
