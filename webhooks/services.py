"""Writes of the webhooks app: emitting an event to its subscriptions, sending one delivery
(claimed by a conditional update, so a task that runs twice sends once), retries with
exponential backoff, and a person's redelivery."""

from __future__ import annotations

import datetime
import json
import logging
import random
import re
import time
import uuid
from dataclasses import dataclass
from functools import partial
from typing import Any

import httpcore
import httpx
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from core.errors import ApplicationError, ErrorCode
from core.leases import lease_claim, lease_held, lease_lapsed, lease_settle
from core.queueing import queue_after_commit
from webhooks.models import EVENT_KINDS, WebhookAttempt, WebhookDelivery, WebhookSubscription
from webhooks.signing import sign
from webhooks.targets import Target, TargetRefused, TargetUnresolved, target_check

logger = logging.getLogger(__name__)

Status = WebhookDelivery.Status
DUE = (Status.PENDING, Status.RETRYING)
# The longest error kept in the log.
ERROR_TEXT_CHARS = 500
# What a receiver answered is kept as its status code and this much of its body, cleaned:
# enough to recognise a receiver's own error, too little to copy a page of someone's data.
EXCERPT_CHARS = 120
# Bytes of a failed answer's body read at all (the rest is never downloaded).
_EXCERPT_READ_BYTES = 2048


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

    queue_after_commit(
        partial(webhook_deliver.apply_async, (delivery_id,), countdown=countdown),
        what=f"webhook delivery {delivery_id}",
    )


def _claim(delivery_id: int, *, now: datetime.datetime) -> bool:
    """Take the delivery for sending: due and waiting, or held by a worker whose lease ran
    out. One conditional UPDATE, so of two workers (or a task run twice) one sends."""
    return lease_claim(
        WebhookDelivery.objects.filter(pk=delivery_id),
        claimable=Q(status__in=DUE, next_attempt_at__lte=now),
        working=Status.SENDING,
        lease=webhook_sending_lease(),
        now=now,
    )


@dataclass(frozen=True)
class _Sent:
    """What one attempt came to."""

    status_code: int | None
    error: str
    duration_ms: int
    # Never sent: the target is inside the network. Retrying cannot help; a person can.
    refused: bool = False


def _post(delivery: WebhookDelivery) -> _Sent:
    """POST the delivery once, freshly signed, to the address its URL was checked at."""
    url = delivery.subscription.url
    try:
        target = target_check(url)
    except TargetRefused as error:
        return _Sent(None, f"not sent: {error.message}"[:ERROR_TEXT_CHARS], 0, refused=True)
    except (TargetUnresolved, ValueError) as error:  # DNS may answer later: retried
        return _Sent(None, f"not sent: {error}"[:ERROR_TEXT_CHARS], 0)
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
        # No environment proxies: the connection goes to the checked address, nowhere else.
        client = httpx.Client(
            transport=_PinnedTransport(target),
            timeout=settings.WEBHOOK_TIMEOUT_S,
            follow_redirects=False,
            trust_env=False,
        )
        with client, client.stream("POST", url, content=body, headers=headers) as response:
            code = response.status_code
            where = response.headers.get("location", "")
            head = b"" if 200 <= code < 300 or response.is_redirect else _head(response)
    except httpx.HTTPError as error:
        duration_ms = round((time.monotonic() - started) * 1000)
        return _Sent(None, f"{type(error).__name__}: {error}"[:ERROR_TEXT_CHARS], duration_ms)
    duration_ms = round((time.monotonic() - started) * 1000)
    if 200 <= code < 300:
        return _Sent(code, "", duration_ms)
    if response.is_redirect:
        error = f"HTTP {code}: redirect to {response_excerpt(where.encode())!r} not followed"
        return _Sent(code, error, duration_ms)
    return _Sent(code, f"HTTP {code}: {response_excerpt(head)}".strip(), duration_ms)


def _head(response: httpx.Response) -> bytes:
    """The first bytes of an answer's body; the rest is left unread."""
    head = b""
    for chunk in response.iter_raw():
        head += chunk
        if len(head) >= _EXCERPT_READ_BYTES:
            break
    return head[:_EXCERPT_READ_BYTES]


_TAG = re.compile(r"</?[A-Za-z!][^<>]{0,500}>")
# Values that look like credentials or tokens: a named secret, or a long run of key-like
# characters mixing letters and digits (API keys, session ids, hashes, JWTs).
_NAMED_SECRET = re.compile(
    r"(?i)(?<![a-z])(password|passwd|secret|token|api[_-]?key|access[_-]?key\w*"
    r"|authorization|cookie|session\w*)(\W{1,3})\S+"
)
_KEYLIKE = re.compile(r"(?=[\w+/=.-]*\d)(?=[\w+/=.-]*[A-Za-z])[\w+/=.-]{16,}")


def response_excerpt(raw: bytes) -> str:
    """A short, clean excerpt of what a receiver answered, for the delivery log: markup and
    control characters dropped, credentials and key-like strings masked, at most
    EXCERPT_CHARS characters."""
    text = raw[:_EXCERPT_READ_BYTES].decode("utf-8", "replace")
    text = _TAG.sub(" ", text)
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    text = " ".join(text.split())
    text = _NAMED_SECRET.sub(r"\1\2[hidden]", text)
    text = _KEYLIKE.sub("[hidden]", text)
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


class _PinnedBackend(httpcore.NetworkBackend):
    """Connects to the addresses a target was checked at, whatever host the request names:
    a second DNS answer (a rebinding) is never asked for."""

    def __init__(self, target: Target) -> None:
        self._target = target
        self._backend = httpcore.SyncBackend()

    def connect_tcp(
        self, host, port, timeout=None, local_address=None, socket_options=None
    ) -> httpcore.NetworkStream:
        failure: Exception = httpcore.ConnectError(f"{host} has no checked address")
        for address in self._target.addresses:
            try:
                return self._backend.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address,
                    socket_options=socket_options,
                )  # fmt: skip
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
        raise failure

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise httpcore.ConnectError("a webhook is never sent to a unix socket")

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class _PinnedTransport(httpx.HTTPTransport):
    """httpx's own transport (TLS checked against the URL's host name) over the pinned
    connections above."""

    def __init__(self, target: Target) -> None:
        super().__init__()
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(), network_backend=_PinnedBackend(target)
        )


def webhook_deliver_run(delivery_id: int) -> WebhookDelivery | None:
    """Send one delivery if it is due, log the attempt, and settle it: delivered on 2xx;
    otherwise retried after a backoff, or failed once WEBHOOK_MAX_ATTEMPTS are spent, or
    at once when it was not sent on purpose (a target inside the network, an inactive
    subscription): no retry changes that. Returns None when there was nothing to send (not
    due, delivered, another worker's)."""
    now = timezone.now()
    if not _claim(delivery_id, now=now):
        return None
    delivery = WebhookDelivery.objects.select_related("subscription").get(pk=delivery_id)
    if not delivery.subscription.active:
        sent = _Sent(None, "the subscription is inactive: not sent", 0, refused=True)
    else:
        sent = _post(delivery)
    code, error, duration_ms = sent.status_code, sent.error, sent.duration_ms
    finished = timezone.now()
    attempts = delivery.attempts + 1
    fields: dict[str, Any] = {
        "attempts": attempts, "last_status_code": code, "last_error": error, "claimed_at": None,
    }  # fmt: skip
    backoff_s = None
    if code is not None and 200 <= code < 300:
        fields |= {"status": Status.DELIVERED, "delivered_at": finished}
    elif sent.refused or attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
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
        settled = lease_settle(
            WebhookDelivery.objects.filter(pk=delivery.pk),
            working=Status.SENDING,
            claim=now,
            **fields,
        )
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
        sending = locked.status == Status.SENDING
        if sending and lease_held(locked.claimed_at, lease=webhook_sending_lease(), now=now):
            raise ApplicationError(
                "this delivery is being sent right now; try again shortly",
                code=ErrorCode.CONFLICT,
            )
        if not locked.subscription.active:
            raise ApplicationError(
                f"the subscription {locked.subscription} is inactive", code=ErrorCode.CONFLICT
            )
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
            | lease_lapsed(working=Status.SENDING, lease=webhook_sending_lease(), now=now)
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:1000]
    )
