"""core.leases on a real table (webhook deliveries): one claim of two wins, a claim past its
lease is taken over, and only the claim still held may settle the row."""

from __future__ import annotations

import datetime

import pytest
from django.db.models import Q
from django.utils import timezone

from core.leases import lease_claim, lease_held, lease_lapsed, lease_settle
from webhooks.models import WebhookDelivery, WebhookSubscription

pytestmark = pytest.mark.django_db
LEASE = datetime.timedelta(seconds=60)
WAITING, WORKING = WebhookDelivery.Status.PENDING, WebhookDelivery.Status.SENDING


@pytest.fixture
def delivery():
    subscription = WebhookSubscription.objects.create(name="a", url="https://a.example/h")
    return WebhookDelivery.objects.create(
        subscription=subscription, event_id="e1", kind="lead.created", payload={}
    )


def claim(delivery, now) -> bool:
    return lease_claim(
        WebhookDelivery.objects.filter(pk=delivery.pk),
        claimable=Q(status=WAITING),
        working=WORKING,
        lease=LEASE,
        now=now,
    )


def test_of_two_claims_one_wins_until_the_lease_runs_out(delivery):
    start = timezone.now()
    assert claim(delivery, start)
    assert not claim(delivery, start + datetime.timedelta(seconds=1))
    assert lease_held(start, lease=LEASE, now=start + LEASE - datetime.timedelta(seconds=1))
    later = start + LEASE + datetime.timedelta(seconds=1)
    assert not lease_held(start, lease=LEASE, now=later)
    assert WebhookDelivery.objects.filter(lease_lapsed(working=WORKING, lease=LEASE, now=later))
    assert claim(delivery, later)  # the first worker died: taken over
    assert WebhookDelivery.objects.get(pk=delivery.pk).claimed_at == later


def test_only_the_claim_still_held_settles_the_row(delivery):
    start = timezone.now()
    claim(delivery, start)
    later = start + LEASE + datetime.timedelta(seconds=1)
    claim(delivery, later)
    rows = WebhookDelivery.objects.filter(pk=delivery.pk)
    stale = lease_settle(rows, working=WORKING, claim=start, status="failed", last_error="late")
    assert not stale
    assert lease_settle(rows, working=WORKING, claim=later, status="failed", claimed_at=None)
    settled = rows.get()
    assert (settled.status, settled.claimed_at, settled.last_error) == ("failed", None, "")


def test_a_row_never_claimed_holds_no_lease():
    assert not lease_held(None, lease=LEASE, now=timezone.now())
