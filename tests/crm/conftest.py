"""Fixtures for the CRM tests: a manager, and a way to receive a message as a channel does."""

from __future__ import annotations

import pytest
from django.utils import timezone

from crm.models import InboundMessage
from crm.services import Inbound, inbound_store


@pytest.fixture
def dealer_leads(settings):
    """Cards read with the first seed's car-dealer catalogue (CRM_LEAD_TYPE=dealer), for the
    tests whose mails sell cars; the default is the production studio's."""
    settings.CRM_LEAD_TYPE = "dealer"


@pytest.fixture
def receive(django_capture_on_commit_callbacks):
    """Store a message and let its reading run (eager Celery), as a channel would."""

    def send(text: str, **fields) -> InboundMessage:
        fields.setdefault("channel", InboundMessage.Channel.FORM)
        fields.setdefault("received_at", timezone.now())
        with django_capture_on_commit_callbacks(execute=True):
            message, _ = inbound_store(Inbound(body_text=text, **fields))
        message.refresh_from_db()
        return message

    return send
