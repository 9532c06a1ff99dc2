"""Fixtures for the webhook tests: subscriptions with a live local receiver behind them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from tests.webhooks.receiver import Receiver
from webhooks.models import WebhookSubscription


@pytest.fixture
def hook(db) -> Iterator:
    """`hook(500, 200, kinds=[...])`: a running receiver answering with those codes, and an
    active subscription to it whose (generated) secret the receiver verifies with."""
    with ExitStack() as stack:

        def make(*codes: int, kinds=("lead.created",), active=True, name="CRM sync"):
            receiver = stack.enter_context(Receiver(*codes))
            subscription = WebhookSubscription(
                name=name, url=receiver.url(), event_kinds=list(kinds), active=active
            )
            subscription.full_clean()
            subscription.save()
            receiver.secret = subscription.secret
            return subscription, receiver

        yield make


@pytest.fixture
def run_on_commit(django_capture_on_commit_callbacks):
    """Run a write and then what it queued after commit (eager Celery: the sends happen)."""

    def run(write, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return write(*args, **kwargs)

    return run
