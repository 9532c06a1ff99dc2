"""The lead-card call keeps the engine's contract: 0.3, then 0.0 for the retry."""

from __future__ import annotations

import pytest

from crm.models import InboundMessage

pytestmark = pytest.mark.django_db

PURCHASE = "Нужен промо-ролик, бюджет 3 млн рублей. Перезвоните: +7 916 123-45-67. Иван"
CARD = {
    "client_intent": "new_project",
    "product_class": "video",
    "budget_amount": 3_000_000,
    "budget_currency": "RUB",
    "urgency_days": None,
    "needs_call_back": True,
    "phones": ["+79161234567"],
    "emails": [],
    "summary": "Wants a promo video for 3 mln",
}


def test_the_lead_card_retry_runs_at_a_lower_temperature_than_the_first_call(
    receive, scripted_model
):
    scripted_model.answers("Sure! The client wants a car.", CARD)
    message = receive(PURCHASE)
    assert message.status == InboundMessage.Status.LEAD
    assert [r["temperature"] for r in scripted_model.requests] == [0.3, 0.0]
