"""A briefing started from a lead gets a short title (what and for whom), never the lead's
whole summary sentence."""

from __future__ import annotations

import pytest
from django.utils import timezone

from crm.models import InboundMessage, Lead
from crm.services import lead_briefing_title, lead_start_briefing

pytestmark = pytest.mark.django_db

SENTENCE = (
    "Клиент хочет снять рекламный ролик для новой линейки кофе к весне, "
    "бюджет около миллиона, просит перезвонить после обеда"
)


def make_lead(**fields) -> Lead:
    fields = {
        "channel": InboundMessage.Channel.FORM,
        "client_intent": "new_project",
        "last_message_at": timezone.now(),
        **fields,
    }
    return Lead.objects.create(**fields)


def titled(lead: Lead, product_label: str = "") -> str:
    lead.product_label = product_label
    return lead_briefing_title(lead)


def test_the_title_is_the_product_and_the_client():
    lead = make_lead(client_name="Иван", summary=SENTENCE)
    assert titled(lead, "Video production") == "Video production — Иван"
    assert titled(lead) == "Иван"
    assert titled(make_lead(summary=SENTENCE), "Video production") == "Video production"


def test_without_product_or_name_the_summary_is_cut_at_a_word():
    title = titled(make_lead(summary=SENTENCE))
    assert title == "Клиент хочет снять рекламный ролик для новой линейки кофе к…"
    assert len(title) <= 61
    assert titled(make_lead(summary="Нужен ролик")) == "Нужен ролик"
    lead = make_lead()
    assert titled(lead) == f"Lead {lead.pk}"


def test_starting_a_briefing_uses_the_short_title(manager):
    lead = make_lead(client_name="Анна", summary=SENTENCE, product_class="video")
    project = lead_start_briefing(lead=lead, user=manager)
    assert project.title.endswith(" — Анна")
    assert SENTENCE not in project.title
