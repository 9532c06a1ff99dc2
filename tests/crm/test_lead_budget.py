"""A lead's budget in its own currency (issue 29, item 2): old rouble budgets migrate with
their currency, and the lead list compares budgets only through configured rates."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse
from django.utils import timezone

from crm.models import Lead
from crm.selectors import leads_filtered

PARAMS = dict.fromkeys(
    ("intent", "product", "urgency", "call_back", "channel", "status", "queue"), ""
)


def _migrate(target: tuple[str, str]):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


@pytest.mark.django_db(transaction=True)
def test_a_budget_in_roubles_migrates_as_an_amount_in_rub_and_suppliers_join_the_studio():
    old = _migrate(("crm", "0006_mailbox_poll"))
    try:
        OldLead = old.get_model("crm", "Lead")
        # A transactional test before this one may have flushed the seeded catalogue: the
        # studio type as an administrator might have it (no supplier yet), made here.
        studio, _ = old.get_model("crm", "LeadType").objects.get_or_create(
            code="studio", defaults={"name": "Studio", "business": "a studio"}
        )
        OldIntent = old.get_model("crm", "LeadIntent")
        OldIntent.objects.filter(lead_type=studio, code="supplier").delete()
        for position, code in enumerate(("complaint", "spam", "quote_request", "question")):
            OldIntent.objects.get_or_create(
                lead_type=studio, code=code, defaults={"label": code, "position": position}
            )
        now = timezone.now()
        rich = OldLead.objects.create(last_message_at=now, client_intent="x", budget_rub=450_000)
        unknown = OldLead.objects.create(last_message_at=now, client_intent="x")
        new = _migrate(("crm", "0007_budget_currency_supplier"))
        NewLead = new.get_model("crm", "Lead")
        assert (NewLead.objects.get(pk=rich.pk).budget_amount,
                NewLead.objects.get(pk=rich.pk).budget_currency) == (450_000, "RUB")  # fmt: skip
        assert (NewLead.objects.get(pk=unknown.pk).budget_amount,
                NewLead.objects.get(pk=unknown.pk).budget_currency) == (None, "")  # fmt: skip
        intents = new.get_model("crm", "LeadIntent").objects.filter(lead_type__code="studio")
        codes = list(intents.order_by("position").values_list("code", "is_request"))
        assert ("supplier", False) in codes
        assert ("spam", False) in codes
        assert codes.index(("supplier", False)) < [c for c, _ in codes].index("quote_request")
    finally:
        executor = MigrationExecutor(connection)
        latest = max(n for app, n in executor.loader.graph.leaf_nodes() if app == "crm")
        _migrate(("crm", latest))


def _lead(amount, currency):
    return Lead.objects.create(last_message_at=timezone.now(), client_intent="new_project",
                               budget_amount=amount, budget_currency=currency)  # fmt: skip


@pytest.mark.django_db
def test_budgets_are_compared_only_in_currencies_with_a_rate(settings):
    settings.CRM_STUDIO_CURRENCY = "RUB"
    settings.CRM_CURRENCY_RATES = {"USD": 90.0}
    roubles = _lead(500_000, "RUB")
    dollars = _lead(8_000, "USD")  # 720 000 in roubles
    hryvnias = _lead(300_000, "UAH")  # no rate: never guessed
    nothing = _lead(None, "")
    ordered = list(leads_filtered({**PARAMS, "sort": "budget"}))
    assert ordered[:2] == [dollars, roubles]
    assert set(ordered[2:]) == {hryvnias, nothing}
    at_least = set(leads_filtered({**PARAMS, "budget_min": "600000"}))
    assert at_least == {dollars}


@pytest.mark.django_db
def test_the_lead_list_shows_each_budget_with_its_currency_and_the_rated_ones(manager_client):
    _lead(8_000, "USD")
    html = manager_client.get(reverse("crm:leads"), {"sort": "budget"}).content.decode()
    assert "8000 USD" in html
    assert 'value="budget" selected' in html
