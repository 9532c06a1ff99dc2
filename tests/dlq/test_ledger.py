"""The cost ledger: a call priced at the price table's rates when it is recorded, the sums
per briefing, day and pool, and the quality dashboard's cost charts."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.urls import reverse

from dlq.ledger import call_cost, ledger_by_day_and_pool, price_for
from dlq.models import ModelPrice, StructuredCall
from dlq.services import structured_call_record
from llmkit.structured import Attempt, StructuredResult
from llmkit.types import Completion, Usage
from tests.conftest import user_in_group
from tests.dlq.test_quality_dashboard import chart_data, figure, series
from tests.dlq.test_selectors import at, make_call

pytestmark = pytest.mark.django_db

MONDAY = date(2025, 3, 10)
TUESDAY = date(2025, 3, 11)


def price(provider: str, model: str = "", *, prompt=1000, cached=100, completion=3000):
    return ModelPrice.objects.create(
        provider=provider, model=model, prompt_per_million=prompt, cached_per_million=cached,
        completion_per_million=completion,
    )  # fmt: skip


def test_a_call_costs_uncached_cached_and_output_tokens_at_their_rates():
    row = price("gigachat-max")
    cost = call_cost(price=row, prompt_tokens=3000, cached_tokens=2000, completion_tokens=500)
    # 1000 uncached at 1000/M + 2000 cached at 100/M + 500 output at 3000/M
    assert cost == Decimal("1.000000") + Decimal("0.200000") + Decimal("1.500000")
    assert call_cost(price=None, prompt_tokens=10, cached_tokens=0, completion_tokens=10) == 0


def test_a_models_own_price_wins_over_its_providers_any_model_row():
    any_model = price("yandex")
    pro = price("yandex", "yandexgpt/latest", prompt=5)
    assert price_for(provider="yandex", model="yandexgpt/latest") == pro
    assert price_for(provider="yandex", model="yandexgpt-lite/latest") == any_model
    assert price_for(provider="gigachat", model="GigaChat") is None


def _result(provider: str, model: str, usage: Usage) -> StructuredResult:
    from llmkit.parse import parse

    completion = Completion('{"ok": true}', provider, model, usage)
    attempt = Attempt(temperature=0.3, completion=completion)
    attempt.outcome = parse(completion.text, {"type": "object"})
    return StructuredResult("Check", [], [attempt])


def test_a_recorded_call_is_priced_and_keeps_its_price_when_the_table_changes():
    row = price("openai-fast", prompt=100, cached=10, completion=300)
    usage = Usage(prompt_tokens=1000, cached_tokens=400, completion_tokens=100)
    call = structured_call_record(
        result=_result("openai-fast", "m", usage), pool="fast", session="briefing:1"
    )
    expected = Decimal(600 * 100 + 400 * 10 + 100 * 300) / Decimal(1_000_000)
    assert call.cost == expected
    assert not call.cost_estimated
    row.prompt_per_million = 999
    row.save()
    call.refresh_from_db()
    assert call.cost == expected


def test_a_provider_that_reported_no_prompt_is_priced_from_our_estimate():
    price("openai", prompt=1000, cached=0, completion=0)
    call = structured_call_record(result=_result("openai", "m", Usage()), prompt_estimate=(0, 2000))
    assert call.cost == Decimal("2.000000")
    assert call.cost_estimated


def test_an_answer_streamed_without_usage_is_priced_from_our_estimates():
    price("openai", prompt=0, cached=0, completion=1_000_000)
    call = structured_call_record(result=_result("openai", "m", Usage()))
    assert call.cost == 7  # '{"ok": true}' is 7 estimated tokens, at 1 a token
    assert call.cost_estimated


def test_the_rules_agent_costs_nothing():
    price("rules", prompt=1000)
    call = structured_call_record(result=_result("rules", "rules", Usage(5, 0, 5)))
    assert call.cost == 0


def ledger_calls():
    """Monday: two fast calls of one turn and one strong call; Tuesday: one fast call."""
    turn = {"source_kind": "briefing_turn"}
    make_call(
        created_at=at(MONDAY, 9), provider="openai-fast", pool="fast", cost=Decimal("0.5"),
        prompt_tokens=1000, cached_tokens=500, source_id="1", **turn,
    )  # fmt: skip
    make_call(
        created_at=at(MONDAY, 9), provider="openai-fast", pool="fast", cost=Decimal("0.25"),
        prompt_tokens=1000, cached_tokens=0, source_kind="level1", source_id="1",
    )  # fmt: skip
    make_call(
        created_at=at(MONDAY, 10), provider="openai-strong", pool="strong", cost=Decimal("2"),
        prompt_tokens=2000, cached_tokens=1000, source_id="2", **turn,
    )  # fmt: skip
    make_call(created_at=at(TUESDAY, 10), provider="rules", pool="fast", source_id="3", **turn)


def test_the_ledger_sums_per_local_day_and_pool():
    ledger_calls()
    rows = ledger_by_day_and_pool(since=at(MONDAY, 0), until=at(date(2025, 3, 12), 0))
    got = {(r.day.isoformat(), r.pool): (r.calls, r.cost, r.cached_share, r.turns) for r in rows}
    assert got == {
        ("2025-03-10", "fast"): (2, Decimal("0.75"), 0.25, 1),
        ("2025-03-10", "strong"): (1, Decimal("2"), 0.5, 1),
        ("2025-03-11", "fast"): (0, Decimal("0"), None, 1),
    }


def test_the_dashboard_shows_cost_cached_share_and_turn_share_per_pool(client):
    ledger_calls()
    client.force_login(user_in_group("manager", "Managers"))
    page = client.get(
        reverse("dlq:quality"), {"since": "2025-03-10", "until": "2025-03-11"}
    ).content.decode()
    assert figure(page, "cost") == "2.7500"
    assert figure(page, "cached_share") == "37.5%"
    charts = chart_data(page)
    assert series(charts["cost-per-day"]) == {"fast": [0.75, 0.0], "strong": [2.0, 0.0]}
    assert series(charts["cached-share-per-day"]) == {"fast": [25.0, None], "strong": [50.0, None]}
    per_pool = charts["ledger-per-pool"]
    assert per_pool["labels"] == ["fast", "strong"]
    assert series(per_pool)["share of turns"] == [pytest.approx(66.7), pytest.approx(33.3)]


def test_the_price_table_is_edited_in_the_admin(admin_client):
    url = reverse("admin:dlq_modelprice_add")
    response = admin_client.post(
        url,
        {"provider": "gigachat-max", "model": "", "currency": "RUB", "prompt_per_million": "1500",
         "cached_per_million": "150", "completion_per_million": "1500"},
    )  # fmt: skip
    assert response.status_code == 302
    assert ModelPrice.objects.get(provider="gigachat-max").prompt_per_million == 1500
    assert StructuredCall.objects.count() == 0


def test_the_dashboard_lists_level1_disagreements(client):
    from dlq.models import ClassifierDisagreement

    for text, fields in (("Хотим ролик", ["intent"]), ("Ну и?", ["intent", "complexity"])):
        row = ClassifierDisagreement.objects.create(
            text=text, fields=fields, source_kind="briefing_turn", source_id="1",
            model_verdict={"intent": "off_topic", "risk": "none", "complexity": "complex"},
            classifier_verdict={"intent": "answer", "risk": "none", "complexity": "simple"},
        )  # fmt: skip
        ClassifierDisagreement.objects.filter(pk=row.pk).update(created_at=at(MONDAY, 9))
    client.force_login(user_in_group("manager", "Managers"))
    page = client.get(
        reverse("dlq:quality"), {"since": "2025-03-10", "until": "2025-03-10"}
    ).content.decode()
    assert '<span id="figure-disagreements">2</span> messages: complexity 1 · intent 2' in page
    assert "Хотим ролик" in page
    assert "off_topic · none · complex" in page
    later = client.get(reverse("dlq:quality"), {"since": "2025-03-11", "until": "2025-03-11"})
    assert "figure-disagreements" not in later.content.decode()
