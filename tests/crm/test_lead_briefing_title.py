"""A briefing started from a lead gets a title its client may read: short, in the client's
language, never the lead's summary sentence nor the catalogue's (English) product label."""

from __future__ import annotations

import pytest
from django.utils import timezone, translation
from django.utils.translation import gettext

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


def in_language(language: str, text: str, **values) -> str:
    with translation.override(language):
        return gettext(text) % values if values else gettext(text)


def test_the_title_names_the_client_in_their_language():
    lead = make_lead(client_name="  Иван   Петров ", summary=SENTENCE, product_class="video")
    for language in ("ru", "uk", "en"):
        expected = in_language(language, "Project brief — %(name)s", name="Иван Петров")
        assert lead_briefing_title(lead, language=language) == expected
    assert lead_briefing_title(make_lead(), language="ru") == in_language("ru", "Project brief")


def test_the_title_holds_neither_the_summary_nor_the_product_label():
    lead = make_lead(summary=SENTENCE, product_class="event_filming")
    title = lead_briefing_title(lead, language="ru")
    assert "Клиент хочет" not in title
    assert "Event filming" not in title
    longest = Lead._meta.get_field("client_name").max_length
    title = lead_briefing_title(make_lead(client_name="Я" * longest), language="ru")
    assert len(title) <= 200


def test_starting_a_briefing_uses_the_client_facing_title(manager):
    lead = make_lead(client_name="Анна", summary=SENTENCE, product_class="video", language="uk")
    project = lead_start_briefing(lead=lead, user=manager)
    assert project.title == in_language("uk", "Project brief — %(name)s", name="Анна")
    assert SENTENCE not in project.title
