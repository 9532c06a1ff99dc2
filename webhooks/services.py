"""Writes of the webhooks app: emitting an event to its subscriptions, sending one delivery
(claimed by a conditional update, so a task that runs twice sends once), retries with
exponential backoff, and a person's redelivery."""

from __future__ import annotations

import datetime
import json
import logging
import random
import time
import uuid
from typing import Any

import httpx
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from briefing.errors import ApplicationError
from webhooks.models import EVENT_KINDS, WebhookAttempt, WebhookDelivery, WebhookSubscription
from webhooks.signing import sign

logger = logging.getLogger(__name__)

Status = WebhookDelivery.Status
DUE = (Status.PENDING, Status.RETRYING)
# What a receiver answered, kept in the log (a page of HTML is not worth more).
ERROR_TEXT_CHARS = 500


def webhook_body(payload: Any) -> bytes:
    """The bytes a delivery sends: its stored payload in canonical JSON (sorted keys, no
    spaces, UTF-8). Canonical, so every attempt sends the same bytes whatever order the
    database (PostgreSQL's jsonb) gives the keys back in."""
    return json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def webhook_sending_lease() -> datetime.timedelta:
    """How long a worker's claim holds: past the task's hard time limit the worker is gone."""
    return datetime.timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 30)


def webhook_backoff_s(attempts: int) -> float:
    """Seconds to wait after the `attempts`-th failed attempt: doubling from the base, capped,
    plus up to 10 % jitter so that deliveries failing together do not retry together."""
    delay = min(
        settings.WEBHOOK_BACKOFF_BASE_S * 2 ** max(attempts - 1, 0), settings.WEBHOOK_BACKOFF_MAX_S
    )
    return delay + random.uniform(0, delay / 10)


def webhook_event_emit(
    *, kind: str, data: dict[str, Any], event_id: str | None = None
) -> list[WebhookDelivery]:
    """Record the event for every active subscription to `kind`, in the caller's transaction,
    and queue the sends for after its commit. Returns the deliveries this call created: an
    event id already delivered to a subscription makes no second delivery there."""
    if kind not in EVENT_KINDS:
        raise ApplicationError(f"unknown webhook event kind {kind!r}")
    subscriptions = [s for s in WebhookSubscription.objects.filter(active=True) if s.wants(kind)]
    if not subscriptions:
        return []
    event_id = event_id or str(uuid.uuid4())
    envelope = {"id": event_id, "kind": kind, "created_at": timezone.now(), "data": data}
    # Through the encoder once, so the stored payload is plain JSON (datetimes as ISO text).
    payload = json.loads(json.dumps(envelope, cls=DjangoJSONEncoder))
    known = set(
        WebhookDelivery.objects.filter(
            event_id=event_id, subscription__in=subscriptions
        ).values_list("subscription_id", flat=True)
    )
    created = []
    for subscription in subscriptions:
        if subscription.pk in known:
            continue
        delivery = WebhookDelivery(
            subscription=subscription, event_id=event_id, kind=kind, payload=payload
        )
        delivery.full_clean(validate_constraints=False)
        try:
            with transaction.atomic():  # a concurrent emit of the same event may win
                delivery.save()
        except IntegrityError:
            continue
        created.append(delivery)
    for delivery in created:
        _queue(delivery.pk)
    return created


def _queue(delivery_id: int, *, countdown: float | None = None) -> None:
    from webhooks.tasks import webhook_deliver

    if countdown is None:
        transaction.on_commit(lambda: webhook_deliver.delay(delivery_id))
    else:
        transaction.on_commit(
            lambda: webhook_deliver.apply_async((delivery_id,), countdown=countdown)
        )


def _claim(delivery_id: int, *, now: datetime.datetime) -> bool:
    """Take the delivery for sending: due and waiting, or held by a worker whose lease ran
    out. One conditional UPDATE, so of two workers (or a task run twice) one sends."""
    stale = now - webhook_sending_lease()
    return bool(
        WebhookDelivery.objects.filter(
            Q(status__in=DUE, next_attempt_at__lte=now)
            | Q(status=Status.SENDING, claimed_at__lt=stale),
            pk=delivery_id,
        ).update(status=Status.SENDING, claimed_at=now)
    )


def _post(delivery: WebhookDelivery) -> tuple[int | None, str, int]:
    """POST the delivery once, freshly signed: (status code or None, error, duration in ms)."""
    body = webhook_body(delivery.payload)
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "briefing-platform-webhooks/1",
        "X-Webhook-Id": delivery.event_id,
        "X-Webhook-Event": delivery.kind,
        "X-Webhook-Timestamp": str(timestamp),
        "X-Webhook-Signature": sign(delivery.subscription.secret, timestamp, body),
    }
    started = time.monotonic()
    try:
        response = httpx.post(
            delivery.subscription.url,
            content=body,
            headers=headers,
            timeout=settings.WEBHOOK_TIMEOUT_S,
            follow_redirects=False,
        )
    except httpx.HTTPError as error:
        duration_ms = round((time.monotonic() - started) * 1000)
        return None, f"{type(error).__name__}: {error}"[:ERROR_TEXT_CHARS], duration_ms
    duration_ms = round((time.monotonic() - started) * 1000)
    code = response.status_code
    if 200 <= code < 300:
        return code, "", duration_ms
    if response.is_redirect:
        where = response.headers.get("location", "")
        return code, f"redirect to {where!r} not followed"[:ERROR_TEXT_CHARS], duration_ms
    return code, f"HTTP {code}: {response.text[:ERROR_TEXT_CHARS]}".strip(), duration_ms


def webhook_deliver_run(delivery_id: int) -> WebhookDelivery | None:
    """Send one delivery if it is due, log the attempt, and settle it: delivered on 2xx;
    otherwise retried after a backoff, or failed once WEBHOOK_MAX_ATTEMPTS are spent.
    Returns None when there was nothing to send (not due, delivered, another worker's)."""
    now = timezone.now()
    if not _claim(delivery_id, now=now):
        return None
    delivery = WebhookDelivery.objects.select_related("subscription").get(pk=delivery_id)
    if not delivery.subscription.active:
        code, error, duration_ms = None, "the subscription is inactive: not sent", 0
    else:
        code, error, duration_ms = _post(delivery)
    finished = timezone.now()
    attempts = delivery.attempts + 1
    fields: dict[str, Any] = {
        "attempts": attempts, "last_status_code": code, "last_error": error, "claimed_at": None,
    }  # fmt: skip
    backoff_s = None
    if code is not None and 200 <= code < 300:
        fields |= {"status": Status.DELIVERED, "delivered_at": finished}
    elif attempts >= settings.WEBHOOK_MAX_ATTEMPTS or not delivery.subscription.active:
        fields |= {"status": Status.FAILED}
    else:
        backoff_s = webhook_backoff_s(attempts)
        fields |= {
            "status": Status.RETRYING,
            "next_attempt_at": finished + datetime.timedelta(seconds=backoff_s),
        }
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery, at=now, status_code=code, error=error, duration_ms=duration_ms
        )
        # Only while the claim is still ours: a worker that outlived its lease was replaced,
        # and the replacement's outcome stands.
        settled = WebhookDelivery.objects.filter(
            pk=delivery.pk, status=Status.SENDING, claimed_at=now
        ).update(**fields)
        if settled and backoff_s is not None:
            _queue(delivery.pk, countdown=backoff_s)
    if not settled:
        logger.warning("webhook delivery %s: claim lost while sending", delivery.pk)
        return None
    delivery.refresh_from_db()
    return delivery


def webhook_redeliver(*, delivery: WebhookDelivery, user: Any) -> WebhookDelivery:
    """Send a delivery again by hand, whatever its status, with a fresh round of attempts
    (its log keeps the earlier ones). Refused while a worker is sending it."""
    with transaction.atomic():
        locked = WebhookDelivery.objects.select_for_update().get(pk=delivery.pk)
        now = timezone.now()
        if locked.status == Status.SENDING and locked.claimed_at > now - webhook_sending_lease():
            raise ApplicationError("this delivery is being sent right now; try again shortly")
        if not locked.subscription.active:
            raise ApplicationError(f"the subscription {locked.subscription} is inactive")
        logger.info(
            "webhook delivery %s: redelivery asked by %s (was %s)",
            locked.pk, user.get_username(), locked.status,
        )  # fmt: skip
        locked.status, locked.attempts, locked.next_attempt_at = Status.PENDING, 0, now
        locked.delivered_at = locked.claimed_at = None
        locked.redelivered_by, locked.redelivered_at = user, now
        locked.full_clean(validate_constraints=False)
        locked.save()
        _queue(locked.pk)
    return locked


def webhooks_due_ids(*, now: datetime.datetime | None = None) -> list[int]:
    """Deliveries whose task seems lost: due for a minute and still waiting, or held by a
    worker past its lease."""
    now = now or timezone.now()
    grace = datetime.timedelta(seconds=60)
    return list(
        WebhookDelivery.objects.filter(
            Q(status__in=DUE, next_attempt_at__lte=now - grace)
            | Q(status=Status.SENDING, claimed_at__lt=now - webhook_sending_lease())
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:1000]
    )
