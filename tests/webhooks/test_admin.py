"""The webhooks admin: a subscription's secret shown once, the delivery log, "Deliver again"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookSubscription
from webhooks.services import webhook_event_emit

pytestmark = pytest.mark.django_db


def test_adding_a_subscription_with_a_blank_secret_generates_one_and_shows_it_once(
    admin_client,
):
    response = admin_client.post(
        reverse("admin:webhooks_webhooksubscription_add"),
        {"name": "Planner", "url": "https://planner.example/hooks", "secret": "",
         "event_kinds": ["brief.completed", "lead.created"], "active": "on"},
        follow=True,
    )  # fmt: skip
    assert response.status_code == 200
    subscription = WebhookSubscription.objects.get()
    assert subscription.event_kinds == ["brief.completed", "lead.created"]
    assert len(subscription.secret) >= 43
    assert subscription.secret in response.content.decode()  # shown on creation
    change = admin_client.get(
        reverse("admin:webhooks_webhooksubscription_change", args=[subscription.pk])
    )
    assert change.status_code == 200
    page = change.content.decode()
    assert subscription.secret not in page  # and never again
    assert f"…{subscription.secret[-4:]}" in page


@pytest.mark.parametrize(
    ("field", "value"),
    [("url", "ftp://planner.example/hooks"), ("event_kinds", [])],
)
def test_a_subscription_with_a_bad_url_or_no_event_kinds_is_refused(admin_client, field, value):
    data = {
        "name": "Planner", "url": "https://planner.example/hooks", "secret": "s3cret",
        "event_kinds": ["lead.created"], "active": "on", field: value,
    }  # fmt: skip
    response = admin_client.post(reverse("admin:webhooks_webhooksubscription_add"), data)
    assert response.status_code == 200  # the form again, with its error
    assert field in response.context["adminform"].form.errors
    assert not WebhookSubscription.objects.exists()


def test_delivery_pages_show_the_log_and_deliver_again_sends_it(
    admin_client, admin_user, hook, run_on_commit
):
    subscription, receiver = hook(500, 200)
    [delivery] = run_on_commit(webhook_event_emit, kind="lead.created", data={"lead_id": 1})
    changelist = reverse("admin:webhooks_webhookdelivery_changelist")
    listed = admin_client.get(changelist, {"status__exact": "retrying", "kind": "lead.created"})
    assert listed.status_code == 200
    assert delivery.event_id in listed.content.decode()
    assert (
        admin_client.get(changelist, {"status__exact": "delivered"}).context["cl"].result_count == 0
    )
    page = admin_client.get(reverse("admin:webhooks_webhookdelivery_change", args=[delivery.pk]))
    assert page.status_code == 200
    assert "HTTP 500" in page.content.decode()  # the attempt inline

    response = run_on_commit(
        admin_client.post,
        changelist,
        {"action": "deliver_again", "_selected_action": [delivery.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert "1 deliveries queued" in response.content.decode()
    delivery.refresh_from_db()
    assert (delivery.status, delivery.redelivered_by) == (
        WebhookDelivery.Status.DELIVERED,
        admin_user,
    )
    assert len(receiver.received) == 2
    assert subscription.deliveries.get() == delivery


def test_deliver_again_on_an_inactive_subscription_says_why_it_did_not(
    admin_client, hook, run_on_commit
):
    subscription, receiver = hook(200)
    [delivery] = run_on_commit(webhook_event_emit, kind="lead.created", data={"lead_id": 1})
    WebhookSubscription.objects.filter(pk=subscription.pk).update(active=False)
    response = run_on_commit(
        admin_client.post,
        reverse("admin:webhooks_webhookdelivery_changelist"),
        {"action": "deliver_again", "_selected_action": [delivery.pk]},
        follow=True,
    )
    assert "inactive" in response.content.decode()
    assert len(receiver.received) == 1


def test_the_attempt_log_opens(admin_client, hook, run_on_commit):
    hook(503)
    run_on_commit(webhook_event_emit, kind="lead.created", data={"lead_id": 1})
    attempt = WebhookAttempt.objects.get()
    changelist = reverse("admin:webhooks_webhookattempt_changelist")
    assert admin_client.get(changelist, {"q": "503"}).context["cl"].result_count == 1
    change = reverse("admin:webhooks_webhookattempt_change", args=[attempt.pk])
    assert admin_client.get(change).status_code == 200


@pytest.mark.parametrize(
    "url",
    ["http://169.254.169.254/latest/meta-data/", "http://localhost:8000/admin/", "http://[::1]/"],
)
def test_a_subscription_to_an_address_inside_the_network_is_refused_with_the_reason(
    admin_client, network, url
):
    data = {
        "name": "Metadata", "url": url, "secret": "",
        "event_kinds": ["lead.created"], "active": "on",
    }  # fmt: skip
    response = admin_client.post(reverse("admin:webhooks_webhooksubscription_add"), data)
    assert response.status_code == 200  # the form again, with its error
    [error] = response.context["adminform"].form.errors["url"]
    assert "address: webhooks are not sent into the platform's own network" in error
    assert "WEBHOOK_ALLOWED_INTERNAL_HOSTS" in error
    assert not WebhookSubscription.objects.exists()
    assert network.connections == []
