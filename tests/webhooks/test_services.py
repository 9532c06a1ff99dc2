"""Emitting events and delivering them to a live local receiver: signatures, retries with
backoff, no duplicates, failure after the last attempt, redelivery by hand.

Celery runs eagerly in these tests, and eager `apply_async` ignores `countdown`: a retry is
re-queued and runs at once. That early run must (and does) find the delivery not yet due and
send nothing. The backoff passing is then simulated by moving `next_attempt_at` to now and
running the task again, never by sleeping."""

from __future__ import annotations

import datetime
import json
import uuid
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from core.errors import ApplicationError
from tests.conftest import user_in_group
from tests.llmkit.wire_servers import free_port
from tests.webhooks.receiver import HANG
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookSubscription
from webhooks.services import (
    EXCERPT_CHARS,
    response_excerpt,
    webhook_body,
    webhook_event_emit,
    webhook_redeliver,
    webhook_sending_lease,
    webhooks_due_ids,
)
from webhooks.signing import verify
from webhooks.tasks import webhook_deliver, webhooks_sweep

pytestmark = pytest.mark.django_db

Status = WebhookDelivery.Status
LEAD = {"lead_id": 7, "client_name": "Анна", "phones": ["+79161234567"]}


def emit(run_on_commit, kind="lead.created", data=LEAD, **kwargs):
    return run_on_commit(webhook_event_emit, kind=kind, data=data, **kwargs)


def backoff_passed(delivery: WebhookDelivery) -> None:
    """Time moves on to the delivery's next attempt (see the module docstring)."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())


def deliver(run_on_commit, delivery: WebhookDelivery) -> str | None:
    result = run_on_commit(webhook_deliver.delay, delivery.pk).get()
    delivery.refresh_from_db()
    return result


def attempt_codes(delivery: WebhookDelivery) -> list[int | None]:
    return list(delivery.attempt_log.order_by("at", "id").values_list("status_code", flat=True))


def test_receiver_failing_twice_then_accepting_has_it_after_three_signed_attempts(
    hook, run_on_commit, settings
):
    settings.WEBHOOK_BACKOFF_BASE_S, settings.WEBHOOK_BACKOFF_MAX_S = 30, 3600
    subscription, receiver = hook(500, 503, 200)
    [delivery] = emit(run_on_commit)
    delivery.refresh_from_db()
    # The first attempt ran after commit; the re-queued retry came early and sent nothing.
    assert len(receiver.received) == 1
    assert delivery.subscription == subscription
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == (
        Status.RETRYING, 1, 500,
    )  # fmt: skip
    first_wait = (delivery.next_attempt_at - delivery.attempt_log.get().at).total_seconds()
    assert 30 <= first_wait <= 34  # 30 s, plus at most 10 % jitter

    assert deliver(run_on_commit, delivery) is None  # still not due: nothing sent
    assert len(receiver.received) == 1

    backoff_passed(delivery)
    assert deliver(run_on_commit, delivery) == Status.RETRYING
    assert (delivery.attempts, delivery.last_status_code) == (2, 503)
    second = delivery.attempt_log.order_by("-at", "-id").first()
    assert 60 <= (delivery.next_attempt_at - second.at).total_seconds() <= 67  # doubled

    backoff_passed(delivery)
    assert deliver(run_on_commit, delivery) == Status.DELIVERED
    assert (delivery.attempts, delivery.last_status_code, delivery.last_error) == (3, 200, "")
    assert delivery.delivered_at is not None
    assert attempt_codes(delivery) == [500, 503, 200]
    assert all(a.duration_ms >= 0 for a in delivery.attempt_log.all())
    assert "503" in delivery.attempt_log.get(status_code=503).error
    # Every attempt was signed afresh and the receiver accepted each signature.
    assert len(receiver.received) == 3
    assert all(r.verified for r in receiver.received)
    assert {r.headers["x-webhook-id"] for r in receiver.received} == {delivery.event_id}
    assert {r.headers["x-webhook-event"] for r in receiver.received} == {"lead.created"}
    assert {r.headers["content-type"] for r in receiver.received} == {"application/json"}


def test_running_the_task_again_on_a_delivered_delivery_sends_nothing(hook, run_on_commit):
    _, receiver = hook(200)
    [delivery] = emit(run_on_commit)
    delivery.refresh_from_db()
    assert delivery.status == Status.DELIVERED
    for _ in range(3):
        assert deliver(run_on_commit, delivery) is None
    backoff_passed(delivery)  # even with its time come again
    assert deliver(run_on_commit, delivery) is None
    assert len(receiver.received) == 1
    assert delivery.attempt_log.count() == 1
    assert delivery.status == Status.DELIVERED


def test_a_delivery_held_by_a_live_worker_is_not_sent_by_a_second_run(hook, run_on_commit):
    _, receiver = hook(200, active=True)
    # Queued but not yet run: the emit's on-commit callbacks are left out.
    [delivery] = webhook_event_emit(kind="lead.created", data=LEAD)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=Status.SENDING, claimed_at=timezone.now()
    )
    assert deliver(run_on_commit, delivery) is None
    assert receiver.received == []
    assert delivery.status == Status.SENDING


def test_a_worker_that_died_while_sending_is_taken_over_after_the_lease(hook, run_on_commit):
    _, receiver = hook(200)
    [delivery] = webhook_event_emit(kind="lead.created", data=LEAD)
    died_at = timezone.now() - webhook_sending_lease() - datetime.timedelta(seconds=1)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status=Status.SENDING, claimed_at=died_at)
    assert delivery.pk in webhooks_due_ids()
    assert deliver(run_on_commit, delivery) == Status.DELIVERED
    assert len(receiver.received) == 1
    assert delivery.claimed_at is None


def test_two_emits_of_one_event_id_make_one_delivery(hook, run_on_commit):
    subscription, receiver = hook(200)
    event_id = str(uuid.uuid4())
    first = emit(run_on_commit, event_id=event_id)
    second = emit(run_on_commit, event_id=event_id)
    assert [d.subscription for d in first] == [subscription]
    assert second == []
    assert WebhookDelivery.objects.filter(event_id=event_id).count() == 1
    assert len(receiver.received) == 1
    # Another event is another delivery.
    assert len(emit(run_on_commit)) == 1
    assert len(receiver.received) == 2


def test_one_event_id_reaches_each_of_two_subscriptions_once(hook, run_on_commit):
    _, first = hook(200, name="first")
    _, second = hook(200, name="second")
    event_id = str(uuid.uuid4())
    assert len(emit(run_on_commit, event_id=event_id)) == 2
    assert emit(run_on_commit, event_id=event_id) == []
    assert (len(first.received), len(second.received)) == (1, 1)


def test_inactive_subscriptions_and_other_kinds_get_nothing(hook, run_on_commit):
    wanted, wanted_receiver = hook(200, kinds=["lead.created", "brief.completed"])
    _, inactive_receiver = hook(200, kinds=["lead.created"], active=False)
    _, other_kind_receiver = hook(200, kinds=["dead_letter.created"])
    deliveries = emit(run_on_commit)
    assert [d.subscription for d in deliveries] == [wanted]
    assert len(wanted_receiver.received) == 1
    assert inactive_receiver.received == other_kind_receiver.received == []
    assert WebhookDelivery.objects.count() == 1


def test_nothing_is_recorded_without_a_subscription(db, run_on_commit):
    assert emit(run_on_commit) == []
    assert not WebhookDelivery.objects.exists()


def test_an_unknown_event_kind_is_refused(hook):
    hook(200)
    with pytest.raises(ApplicationError, match="unknown webhook event kind"):
        webhook_event_emit(kind="lead.deleted", data={})


def test_the_emit_belongs_to_the_callers_transaction(hook, run_on_commit):
    _, receiver = hook(200)

    def write_then_fail():
        with transaction.atomic():
            webhook_event_emit(kind="lead.created", data=LEAD)
            raise RuntimeError("the caller's write failed")

    with pytest.raises(RuntimeError):
        run_on_commit(write_then_fail)
    assert not WebhookDelivery.objects.exists()
    assert receiver.received == []


def test_the_body_sent_is_byte_identical_to_the_stored_payload(hook, run_on_commit):
    _, receiver = hook(200)
    created = datetime.datetime(2027, 3, 15, 10, 30, tzinfo=datetime.UTC)
    data = {"name": "Кофейни «Зерно»", "budget": Decimal("800000.50"), "at": created, "n": None}
    [delivery] = emit(run_on_commit, data=data)
    delivery.refresh_from_db()  # what the database gives back, not the object in memory
    [received] = receiver.received
    assert received.body == webhook_body(delivery.payload)
    assert json.loads(received.body) == delivery.payload
    assert delivery.payload == {
        "id": delivery.event_id,
        "kind": "lead.created",
        "created_at": delivery.payload["created_at"],
        "data": {
            "name": "Кофейни «Зерно»", "budget": "800000.50", "at": "2027-03-15T10:30:00Z",
            "n": None,
        },
    }  # fmt: skip
    assert datetime.datetime.fromisoformat(delivery.payload["created_at"])
    assert "Кофейни «Зерно»".encode() in received.body  # UTF-8, not \\u escapes
    timestamp = received.headers["x-webhook-timestamp"]
    signature = received.headers["x-webhook-signature"]
    assert verify(
        delivery.subscription.secret, timestamp, delivery_body := received.body, signature
    )
    assert not verify(delivery.subscription.secret, timestamp, delivery_body[:-1], signature)


def test_every_retry_sends_the_same_bytes(hook, run_on_commit):
    _, receiver = hook(500, 200)
    [delivery] = emit(run_on_commit)
    backoff_passed(delivery)
    assert deliver(run_on_commit, delivery) == Status.DELIVERED
    first, second = receiver.received
    assert first.body == second.body
    assert all(r.verified for r in receiver.received)


def test_a_receiver_that_never_answers_2xx_ends_failed_after_the_last_attempt(
    hook, run_on_commit, settings
):
    settings.WEBHOOK_MAX_ATTEMPTS = 4
    _, receiver = hook(500, 502, 404, 500)
    [delivery] = emit(run_on_commit)
    for _ in range(3):
        backoff_passed(delivery)
        deliver(run_on_commit, delivery)
    assert delivery.status == Status.FAILED
    assert (delivery.attempts, delivery.last_status_code) == (4, 500)
    assert attempt_codes(delivery) == [500, 502, 404, 500]
    backoff_passed(delivery)
    assert deliver(run_on_commit, delivery) is None  # given up: no fifth attempt
    assert len(receiver.received) == 4


def test_the_backoff_is_capped(hook, run_on_commit, settings):
    settings.WEBHOOK_BACKOFF_BASE_S, settings.WEBHOOK_BACKOFF_MAX_S = 30, 100
    _, receiver = hook(500)
    [delivery] = emit(run_on_commit)
    for _ in range(3):  # 30, 60, then 120 capped at 100
        backoff_passed(delivery)
        deliver(run_on_commit, delivery)
    last = delivery.attempt_log.order_by("-at", "-id").first()
    assert delivery.attempts == len(receiver.received) == 4
    assert 100 <= (delivery.next_attempt_at - last.at).total_seconds() <= 111


def test_a_redirect_counts_as_a_failure_and_is_not_followed(hook, run_on_commit):
    _, receiver = hook(302, 200)
    [delivery] = emit(run_on_commit)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.last_status_code) == (Status.RETRYING, 302)
    assert "redirect" in delivery.last_error
    assert "/elsewhere" in delivery.last_error
    assert [r.path for r in receiver.received] == ["/hooks"]  # /elsewhere never asked


INTERNAL_PAGE = (
    b"<html><head><title>500</title></head><body><h1>Internal Server Error</h1>\n<pre>"
    b"db password: hunter2 AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY "
    b"session=9f8e7d6c5b4a39281706f5e4d3c2b1a0\x00\x1b[31m</pre>"
    + b"customer row: Anna, +79161234567; " * 500
    + b"</body></html>"
)


def test_last_error_keeps_the_code_and_a_short_clean_excerpt_of_the_answer(hook, run_on_commit):
    hook(500, error_body=INTERNAL_PAGE)
    [delivery] = emit(run_on_commit)
    delivery.refresh_from_db()
    assert delivery.last_status_code == 500
    error = delivery.last_error
    assert error.startswith("HTTP 500: 500 Internal Server Error db password: [hidden]")
    assert len(error) <= len("HTTP 500: ") + EXCERPT_CHARS
    assert error.endswith("…")
    for leaked in ("hunter2", "wJalrXUtnFEMI", "9f8e7d6c5b4a", "<", "\x00", "\x1b"):
        assert leaked not in error
    assert error.count("+79161234567") <= 2  # not the page of rows
    assert delivery.attempt_log.get().error == error


@pytest.mark.parametrize(
    ("body", "excerpt"),
    [
        (b"", ""),
        (b"nope", "nope"),
        (
            b'{"error": "bad signature", "token": "abc"}',
            '{"error": "bad signature", "token": [hidden]',
        ),
        (b"a < b and c > d", "a < b and c > d"),
        ("Ошибка: неверная подпись".encode(), "Ошибка: неверная подпись"),
        (b"\xff\xfe broken utf-8", "\ufffd\ufffd broken utf-8"),
        (b"x" * 5000, "x" * (EXCERPT_CHARS - 1) + "…"),
        (
            b"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc123",
            "Authorization: [hidden] [hidden]",
        ),
    ],
)
def test_response_excerpt_is_short_and_clean(body, excerpt):
    assert response_excerpt(body) == excerpt


def test_a_receiver_that_does_not_answer_in_time_is_a_failed_attempt(hook, run_on_commit, settings):
    settings.WEBHOOK_TIMEOUT_S = 0.3
    _, receiver = hook(HANG, 200)
    [delivery] = emit(run_on_commit)
    delivery.refresh_from_db()
    assert delivery.status == Status.RETRYING
    assert delivery.last_status_code is None
    assert "Timeout" in delivery.last_error
    backoff_passed(delivery)
    assert deliver(run_on_commit, delivery) == Status.DELIVERED
    assert attempt_codes(delivery) == [None, 200]
    assert len(receiver.received) == 2  # the first one arrived; its answer never came


def test_a_receiver_that_is_down_is_a_failed_attempt(db, receivers_allowed, run_on_commit):
    subscription = WebhookSubscription.objects.create(
        name="down", url=f"http://127.0.0.1:{free_port()}/hooks", event_kinds=["lead.created"]
    )
    [delivery] = emit(run_on_commit)
    delivery.refresh_from_db()
    assert delivery.subscription == subscription
    assert (delivery.status, delivery.last_status_code) == (Status.RETRYING, None)
    assert "ConnectError" in delivery.last_error
    assert WebhookAttempt.objects.get(delivery=delivery).error == delivery.last_error


def test_a_subscription_deactivated_before_the_send_gets_nothing(hook, run_on_commit):
    subscription, receiver = hook(200)
    [delivery] = webhook_event_emit(kind="lead.created", data=LEAD)  # queued, not yet run
    WebhookSubscription.objects.filter(pk=subscription.pk).update(active=False)
    assert deliver(run_on_commit, delivery) == Status.FAILED
    assert "inactive" in delivery.last_error
    assert receiver.received == []


def test_redelivery_by_hand_sends_again_and_records_who(hook, run_on_commit):
    manager = user_in_group("boss", "Managers")
    _, receiver = hook(200)
    [delivery] = emit(run_on_commit)
    delivery.refresh_from_db()
    assert delivery.status == Status.DELIVERED
    run_on_commit(webhook_redeliver, delivery=delivery, user=manager)
    delivery.refresh_from_db()
    assert delivery.status == Status.DELIVERED
    assert (delivery.redelivered_by, delivery.attempts) == (manager, 1)  # a fresh round
    assert delivery.redelivered_at is not None
    assert delivery.attempt_log.count() == 2  # the log keeps the first delivery
    first, again = receiver.received
    assert again.body == first.body
    assert again.headers["x-webhook-id"] == first.headers["x-webhook-id"] == delivery.event_id
    assert again.verified


def test_a_failed_delivery_redelivered_by_hand_gets_a_new_round_of_attempts(
    hook, run_on_commit, settings
):
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    manager = user_in_group("boss", "Managers")
    _, receiver = hook(500, 500, 200)
    [delivery] = emit(run_on_commit)
    backoff_passed(delivery)
    assert deliver(run_on_commit, delivery) == Status.FAILED
    run_on_commit(webhook_redeliver, delivery=delivery, user=manager)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (Status.DELIVERED, 1)
    assert attempt_codes(delivery) == [500, 500, 200]
    assert len(receiver.received) == 3


def test_redelivery_is_refused_while_a_worker_is_sending(hook):
    manager = user_in_group("boss", "Managers")
    hook(200)
    [delivery] = webhook_event_emit(kind="lead.created", data=LEAD)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=Status.SENDING, claimed_at=timezone.now()
    )
    with pytest.raises(ApplicationError, match="being sent right now"):
        webhook_redeliver(delivery=delivery, user=manager)
    delivery.refresh_from_db()
    assert delivery.status == Status.SENDING


def test_the_sweep_queues_deliveries_whose_task_was_lost(hook, run_on_commit):
    _, receiver = hook(200)
    # Emitted, but the queued tasks never ran (the on-commit callbacks are dropped).
    lost, recent, delivered = (
        webhook_event_emit(kind="lead.created", data={"n": n})[0] for n in range(3)
    )
    an_hour_ago = timezone.now() - datetime.timedelta(hours=1)
    WebhookDelivery.objects.filter(pk=lost.pk).update(next_attempt_at=an_hour_ago)
    WebhookDelivery.objects.filter(pk=delivered.pk).update(
        status=Status.DELIVERED, delivered_at=an_hour_ago, next_attempt_at=an_hour_ago
    )
    assert webhooks_due_ids() == [lost.pk]
    assert run_on_commit(webhooks_sweep.delay).get() == 1
    lost.refresh_from_db()
    recent.refresh_from_db()
    assert lost.status == Status.DELIVERED
    assert recent.status == Status.PENDING  # its own task is still on its way
    assert [json.loads(r.body)["data"] for r in receiver.received] == [{"n": 0}]


@pytest.mark.parametrize("url", ["ftp://example.com/hook", "file:///etc/passwd", "not a url"])
def test_only_http_and_https_urls_are_accepted(db, url):
    with pytest.raises(ValidationError) as error:
        WebhookSubscription(name="x", url=url, event_kinds=["lead.created"]).full_clean()
    assert "url" in error.value.message_dict


@pytest.mark.parametrize("kinds", [[], ["lead.updated"], "lead.created", [1]])
def test_event_kinds_come_from_the_fixed_set(db, kinds):
    with pytest.raises(ValidationError) as error:
        WebhookSubscription(name="x", url="https://example.com/h", event_kinds=kinds).full_clean()
    assert "event_kinds" in error.value.message_dict


def test_a_subscription_gets_a_long_random_secret_of_its_own(db):
    first = WebhookSubscription.objects.create(name="a", url="https://a.example/h")
    second = WebhookSubscription.objects.create(name="b", url="https://b.example/h")
    assert len(first.secret) >= 43
    assert first.secret != second.secret


def test_the_body_is_canonical_json_whatever_order_the_keys_come_back_in():
    # PostgreSQL's jsonb gives keys back in its own order; every attempt must send the same bytes.
    assert webhook_body({"b": 1, "a": {"d": 2, "c": "ж"}}) == webhook_body(
        {"a": {"c": "ж", "d": 2}, "b": 1}
    )
    assert webhook_body({"b": 1, "a": "ж"}) == '{"a":"ж","b":1}'.encode()


def test_the_sends_are_queued_after_commit_one_per_delivery(
    hook, django_capture_on_commit_callbacks
):
    _, first = hook(200, name="first")
    _, second = hook(200, name="second")
    with django_capture_on_commit_callbacks() as callbacks:
        deliveries = webhook_event_emit(kind="lead.created", data=LEAD)
    assert len(callbacks) == len(deliveries) == 2
    assert first.received == second.received == []  # nothing is sent before the commit
    for callback in callbacks:
        callback()
    assert (len(first.received), len(second.received)) == (1, 1)
