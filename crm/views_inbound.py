"""The inbound endpoints: a site's web form and a messenger webhook. Neither has a session,
so CSRF is exempted for them alone, and each authenticates its caller instead: the form by
a shared token, the webhook by an HMAC-SHA256 signature of the body. Every accepted message
is stored before the answer; reading it into a lead happens on a worker."""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from core.input import InputError, datetime_problem, json_parse, text_problem
from crm.models import InboundMessage
from crm.services import Inbound, inbound_store

MAX_TEXT_CHARS = 100_000
MAX_FIELD_CHARS = 254
FORM_FIELDS = {"name": "Name", "phone": "Phone", "email": "E-mail"}
FORM_IDS = ("form", "form_id")


def _error(code: str, message: str, fields: dict[str, str] | None = None, status: int = 400):
    return JsonResponse(
        {"error": {"code": code, "message": message, "fields": fields or {}}}, status=status
    )


def _within_limits(view: Callable[[HttpRequest], JsonResponse]):
    """A body over Django's upload limits (DATA_UPLOAD_MAX_MEMORY_SIZE, _NUMBER_FIELDS)
    gets this API's error shape, saying what was too big, not Django's bare 400 page."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest) -> JsonResponse:
        try:
            request.body  # noqa: B018 (read now: the limit is checked on the first read)
            if request.content_type != "application/json":
                request.POST  # noqa: B018
        except RequestDataTooBig:
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            return _error("too_large", f"The body is over {limit} bytes.", status=413)
        except TooManyFieldsSent:
            limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
            return _error("too_large", f"The form has over {limit} fields.", status=413)
        return view(request)

    return wrapped


def _stored(message: InboundMessage, created: bool) -> JsonResponse:
    return JsonResponse(
        {"id": message.pk, "duplicate": not created, "status": message.status},
        status=202 if created else 200,
    )


def _same(expected: str, given: str) -> bool:
    return bool(expected) and hmac.compare_digest(expected.encode(), given.encode())


@csrf_exempt
@require_POST
@_within_limits
def form_submit(request: HttpRequest) -> JsonResponse:
    """A web form's submission: `message`, optional `name`, `phone`, `email`, `form` (which
    form), `form_id` (the form's own id of the submission, so a double submit is stored
    once, while two submissions with the same words are two messages), and the shared
    `token` (or an X-Form-Token header). Without a `form_id`, the same words from the same
    sender within crm.services.CONTENT_DUPLICATE_WINDOW are taken as a double submit."""
    token = request.POST.get("token") or request.headers.get("X-Form-Token", "")
    if not settings.CRM_FORM_TOKEN:
        return _error("closed", "The web form endpoint is not configured.", status=403)
    if not _same(settings.CRM_FORM_TOKEN, token):
        return _error("forbidden", "The form token is missing or wrong.", status=403)
    fields: dict[str, str] = {}
    # A NUL in the message is dropped, as in every text column; in a name, a contact or an
    # id it is refused (dropped, it could make two ids one).
    text = request.POST.get("message", "").replace("\x00", "").strip()
    if len(text) > MAX_TEXT_CHARS:
        fields["message"] = f"at most {MAX_TEXT_CHARS} characters"
    values = {name: request.POST.get(name, "").strip() for name in FORM_FIELDS}
    for name, value in values.items():
        if len(value) > MAX_FIELD_CHARS:
            fields[name] = f"at most {MAX_FIELD_CHARS} characters"
    given = {"message": text, **values, **{n: request.POST.get(n, "") for n in FORM_IDS}}
    for name, value in given.items():
        problem = text_problem(value)
        if problem:
            fields[name] = problem
    if not fields and not text and not values["phone"] and not values["email"]:
        fields["message"] = "write a message or leave a phone or an e-mail"
    if fields:
        return _error("invalid", "The form is not valid.", fields)
    # The contact fields go into the text too: the card is read from the text alone.
    contact_lines = [
        f"{label}: {values[name]}" for name, label in FORM_FIELDS.items() if values[name]
    ]
    body = "\n\n".join(part for part in [text, "\n".join(contact_lines)] if part)
    form, form_id = request.POST.get("form", "")[:100], request.POST.get("form_id", "")
    message, created = inbound_store(
        Inbound(
            channel=InboundMessage.Channel.FORM,
            source=form,
            # One id space per named form: two forms may both number their submissions.
            external_id=(f"{form}:{form_id}" if form and form_id else form_id)[:255],
            sender=values["email"],
            sender_name=values["name"][:200],
            body_text=body,
            extra={"fields": values},
            received_at=timezone.now(),
        )
    )
    return _stored(message, created)


def _signature_ok(request: HttpRequest) -> bool:
    given = request.headers.get("X-Signature", "")
    given = given.removeprefix("sha256=")
    secret = settings.CRM_MESSENGER_SECRET.encode()
    expected = hmac.new(secret, request.body, hashlib.sha256).hexdigest()
    return _same(expected, given)


def _messenger_payload(body: bytes) -> tuple[dict[str, Any], dict[str, str]]:
    try:
        payload = json_parse(
            body,
            max_depth=settings.INPUT_JSON_MAX_DEPTH,
            max_int_digits=settings.INPUT_JSON_MAX_INT_DIGITS,
        )
    except InputError as error:
        return {}, {error.path: error.message}
    if not isinstance(payload, dict):
        return {}, {"$": "expected a JSON object"}
    fields: dict[str, str] = {}
    for name in ("sender", "text", "channel", "external_id"):
        if not isinstance(payload.get(name), str):
            fields[name] = "required, a string"
    if not fields:
        # A NUL in the text is dropped, as in every text column; in a name or an id, where
        # dropping it could make two ids one, it is refused.
        payload["text"] = payload["text"].replace("\x00", "")
        for name in ("sender", "text", "channel", "external_id", "sender_name"):
            problem = text_problem(str(payload.get(name) or ""))
            if problem:
                fields[name] = problem
    if not fields:
        if not payload["external_id"].strip():
            fields["external_id"] = "must not be empty"
        if len(payload["text"]) > MAX_TEXT_CHARS:
            fields["text"] = f"at most {MAX_TEXT_CHARS} characters"
    sent_at = payload.get("sent_at")
    if sent_at is not None:
        payload["sent_at"], problem = _sent_at(sent_at)
        if problem:
            fields["sent_at"] = problem
    return payload, fields


def _sent_at(value: Any) -> tuple[datetime | None, str]:
    """The messenger's time of a message, or why it cannot be the message's time."""
    try:
        parsed = datetime.fromisoformat(str(value))
    except ValueError:
        return None, "an ISO 8601 date-time"
    if parsed.tzinfo is None:
        parsed = timezone.make_aware(parsed)
    problem = datetime_problem(parsed)
    return (None, f"an ISO 8601 date-time; this one is {problem}") if problem else (parsed, "")


@csrf_exempt
@require_POST
@_within_limits
def messenger_webhook(request: HttpRequest) -> JsonResponse:
    """A messenger bridge's message: JSON `{"sender", "text", "channel", "external_id"}`
    (optional `sender_name`, `sent_at`), signed with `X-Signature: sha256=<hex HMAC-SHA256
    of the raw body>`. The same external id on the same messenger is stored once."""
    if not settings.CRM_MESSENGER_SECRET:
        return _error("closed", "The messenger webhook is not configured.", status=403)
    if not _signature_ok(request):
        return _error("forbidden", "The signature is missing or wrong.", status=403)
    payload, fields = _messenger_payload(request.body)
    if fields:
        return _error("invalid", "The message is not valid.", fields)
    messenger = payload["channel"].strip()[:100]
    message, created = inbound_store(
        Inbound(
            channel=InboundMessage.Channel.MESSENGER,
            source=messenger,
            # One id space per messenger: the same number on two messengers is two messages.
            external_id=f"{messenger}:{payload['external_id'].strip()}"[:255],
            sender=payload["sender"].strip()[:254],
            sender_name=str(payload.get("sender_name") or "")[:200],
            body_text=payload["text"],
            received_at=payload.get("sent_at") or timezone.now(),
        )
    )
    return _stored(message, created)
