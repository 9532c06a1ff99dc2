"""The parse-quality dashboard: figures from the recorded calls, the htmx part, the filters'
errors, and who may see it."""

from __future__ import annotations

import json
import re
from datetime import date

import pytest
from django.urls import reverse

from tests.dlq.test_selectors import at, make_call

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.dlq.urls")]

HTMX = {"HTTP_HX_REQUEST": "true"}
MONDAY = date(2025, 3, 10)
TUESDAY = date(2025, 3, 11)
RANGE = {"since": "2025-03-10", "until": "2025-03-11"}


@pytest.fixture
def ten_calls():
    """Ten calls over two days: 6 fast, 1 extracted, 1 repaired, 2 dead-lettered; 3 retried;
    latencies 100..1000 ms; one failover; prompt 100..1000 and completion 10..100 tokens;
    two calls with an estimate, cacheable (300 + 300) / (400 + 600)."""
    outcomes = ["fast"] * 6 + ["extracted", "repaired", "failed", "failed"]
    for i, outcome in enumerate(outcomes, start=1):
        fields = {}
        if i in (8, 9, 10):
            fields.update(retry_used=True, attempts=2)
        if i == 9:
            fields.update(
                schema_name="BriefCard", provider="yandex", providers=["gigachat", "yandex"]
            )
        if i == 3:
            fields.update(prompt_tokens_estimate=400, cacheable_tokens_estimate=300)
        if i == 4:
            fields.update(prompt_tokens_estimate=600, cacheable_tokens_estimate=300)
        make_call(
            created_at=at(MONDAY if i <= 5 else TUESDAY, 8 + i),
            outcome=outcome,
            latency_ms=100 * i,
            prompt_tokens=100 * i,
            completion_tokens=10 * i,
            **fields,
        )
    # Outside the range: must not count.
    make_call(created_at=at(date(2025, 3, 12)), outcome="failed", latency_ms=99999)


def figure(page: str, key: str) -> str:
    match = re.search(rf'<dd id="figure-{key}">([^<]*)</dd>', page)
    assert match, f"no figure {key}"
    return match.group(1)


def chart_data(page: str) -> dict[str, dict]:
    match = re.search(
        r'<script id="quality-chart-data" type="application/json">(.*?)</script>', page, re.S
    )
    assert match, "no chart data in the page"
    return {chart["key"]: chart for chart in json.loads(match.group(1))}


def series(chart: dict) -> dict[str, list]:
    return {s["label"]: s["values"] for s in chart["series"]}


def test_manager_sees_the_figures_of_the_recorded_calls(manager_client, ten_calls):
    response = manager_client.get(reverse("dlq:quality"), RANGE)
    assert response.status_code == 200
    page = response.content.decode()
    assert "<html" in page
    assert {
        key: figure(page, key)
        for key in (
            "total", "parsed_share", "dead_lettered_share", "retry_share", "latency_p50",
            "latency_p95", "latency_p99", "failovers", "prompt_mean", "completion_mean",
            "cacheable_prefix_share",
        )
    } == {
        "total": "10",
        "parsed_share": "80.0%",
        "dead_lettered_share": "20.0%",
        "retry_share": "30.0%",
        "latency_p50": "500 ms",
        "latency_p95": "1000 ms",
        "latency_p99": "1000 ms",
        "failovers": "1 (10.0%)",
        "prompt_mean": "550.0",
        "completion_mean": "55.0",
        "cacheable_prefix_share": "60.0%",
    }  # fmt: skip


def test_the_charts_get_the_per_day_schema_and_provider_figures(manager_client, ten_calls):
    page = manager_client.get(reverse("dlq:quality"), RANGE).content.decode()
    charts = chart_data(page)
    assert set(charts) == {
        "outcomes-per-day", "outcomes-per-schema", "outcomes-per-provider", "tokens-per-day",
        "cacheable-per-day", "latency-per-day", "failovers-per-day", "cost-per-day",
        "cached-share-per-day", "ledger-per-pool",
    }  # fmt: skip
    per_day = charts["outcomes-per-day"]
    assert per_day["labels"] == ["2025-03-10", "2025-03-11"]
    assert per_day["counts"] == [5, 5]
    assert per_day["stacked"] is True
    assert series(per_day) == {
        "fast path": [100.0, 20.0],
        "after extraction": [0.0, 20.0],
        "after repair": [0.0, 20.0],
        "after coercion": [0.0, 0.0],
        "dead-lettered": [0.0, 40.0],
    }
    per_schema = charts["outcomes-per-schema"]
    assert per_schema["labels"] == ["BriefCard", "LeadCard"]
    assert series(per_schema)["dead-lettered"] == [100.0, pytest.approx(100 / 9, abs=0.05)]
    assert charts["outcomes-per-provider"]["labels"] == ["rules", "yandex"]
    assert series(charts["tokens-per-day"]) == {
        "prompt": [300.0, 800.0],
        "completion": [30.0, 80.0],
    }
    assert series(charts["cacheable-per-day"]) == {"cacheable prefix": [60.0, None]}
    assert series(charts["latency-per-day"]) == {"p50": [300, 800], "p95": [500, 1000]}
    assert series(charts["failovers-per-day"]) == {"failovers": [0, 1]}


def test_each_chart_has_its_figures_as_a_table(manager_client, ten_calls):
    page = manager_client.get(reverse("dlq:quality"), RANGE).content.decode()
    assert page.count("<canvas ") == 10
    assert page.count('<details class="chart-table" open>') == 10
    # The per-day outcome table of Tuesday and the latency table, as text.
    row = (
        '<tr><th scope="row">2025-03-11</th><td>5</td><td>20.0%</td><td>20.0%</td>'
        "<td>20.0%</td><td>0.0%</td><td>40.0%</td></tr>"
    )
    assert row in page
    assert '<tr><th scope="row">2025-03-10</th><td>5</td><td>300 ms</td><td>500 ms</td></tr>' in (
        page
    )


def test_the_page_loads_the_vendored_chart_library_and_links_the_digest(manager_client):
    page = manager_client.get(reverse("dlq:quality")).content.decode()
    assert '<script src="/static/vendor/chartjs/chart.umd.min.js" defer></script>' in page
    assert '<script src="/static/dlq/quality.js" defer></script>' in page
    assert not re.search(r'<script[^>]+src="(https?:)?//', page)
    assert f'href="{reverse("dlq:digest")}"' in page
    # The navigation's "Parse quality" leads here now.
    assert f'<a href="{reverse("dlq:quality")}">Parse quality</a>' in page


def test_the_filters_offer_the_schemas_and_providers_there_are(manager_client, ten_calls):
    page = manager_client.get(reverse("dlq:quality"), RANGE).content.decode()
    schemas = re.search(r'<select name="schema".*?</select>', page, re.S).group(0)
    providers = re.search(r'<select name="provider".*?</select>', page, re.S).group(0)
    assert re.findall(r'<option value="([^"]*)"', schemas) == ["", "BriefCard", "LeadCard"]
    assert re.findall(r'<option value="([^"]*)"', providers) == ["", "rules", "yandex"]
    assert 'name="since" value="2025-03-10"' in page
    assert 'name="until" value="2025-03-11"' in page


def test_the_filters_narrow_the_figures_and_stay_selected(manager_client, ten_calls):
    response = manager_client.get(reverse("dlq:quality"), {**RANGE, "schema": "BriefCard"})
    page = response.content.decode()
    assert figure(page, "total") == "1"
    assert figure(page, "dead_lettered_share") == "100.0%"
    assert '<option value="BriefCard" selected>' in page
    assert "quality.json?since=2025-03-10&amp;until=2025-03-11&amp;schema=BriefCard" in page


def test_an_unknown_schema_in_the_address_stays_shown(manager_client, ten_calls):
    page = manager_client.get(reverse("dlq:quality"), {**RANGE, "schema": "Gone"}).content.decode()
    assert '<option value="Gone" selected>' in page
    assert figure(page, "total") == "0"
    assert figure(page, "latency_p50") == "–"


def test_htmx_gets_only_the_figures(manager_client, ten_calls):
    response = manager_client.get(reverse("dlq:quality"), {**RANGE, "provider": "yandex"}, **HTMX)
    assert response.status_code == 200
    part = response.content.decode()
    assert "<html" not in part
    assert "<form" not in part
    assert part.strip().startswith('<section id="quality-figures">')
    assert figure(part, "total") == "1"
    assert figure(part, "failovers") == "1 (100.0%)"
    assert chart_data(part)["outcomes-per-provider"]["labels"] == ["yandex"]
    # The errors at the fields are cleared out of band.
    assert '<span class="error field-error" id="error-since" hx-swap-oob="true"></span>' in part


@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({"since": "10.03.2025"}, "since", "expected an ISO date, YYYY-MM-DD"),
        ({"until": "2025-13-01"}, "until", "expected an ISO date, YYYY-MM-DD"),
        ({"since": "2025-03-12", "until": "2025-03-10"}, "since", "must not be after until"),
        ({"since": "2020-01-01", "until": "2025-03-10"}, "since", "the range may span at most"),
    ],
)
def test_bad_filters_are_a_400_with_the_error_at_the_field(
    manager_client, ten_calls, params, field, message
):
    response = manager_client.get(reverse("dlq:quality"), params)
    assert response.status_code == 400
    page = response.content.decode()
    assert "<html" in page
    assert re.search(rf'<span class="error field-error" id="error-{field}">{message}', page)
    assert "No figures: correct the filters above." in page
    assert 'id="figure-total"' not in page
    # What was typed is kept in the form.
    for name, value in params.items():
        assert f'name="{name}" value="{value}"' in page


def test_bad_filters_with_htmx_are_a_400_with_the_error_out_of_band(manager_client):
    response = manager_client.get(reverse("dlq:quality"), {"since": "yesterday"}, **HTMX)
    assert response.status_code == 400
    part = response.content.decode()
    assert "<html" not in part
    assert (
        '<span class="error field-error" id="error-since" hx-swap-oob="true">'
        "expected an ISO date, YYYY-MM-DD</span>"
    ) in part
    assert 'id="quality-chart-data"' not in part


def test_the_json_endpoint_and_the_page_agree(manager_client, ten_calls):
    body = manager_client.get(reverse("dlq:quality_json"), RANGE).json()
    page = manager_client.get(reverse("dlq:quality"), RANGE).content.decode()
    assert figure(page, "total") == str(body["total"])
    assert figure(page, "parsed_share") == f"{body['parsed_share'] * 100:.1f}%"
    assert figure(page, "latency_p99") == f"{body['latency_ms_p99']} ms"
    assert body["latency_ms_p99"] == 1000
    charts = chart_data(page)
    assert series(charts["outcomes-per-day"])["dead-lettered"] == [
        round(day["outcomes"]["failed"]["share"] * 100, 1) for day in body["per_day_figures"]
    ]
    assert series(charts["latency-per-day"])["p95"] == [
        day["latency_ms"]["p95"] for day in body["per_day_figures"]
    ]


def test_names_from_the_records_are_never_code_in_the_page(manager_client):
    hostile = "</script><script>alert(1)</script>"
    make_call(created_at=at(MONDAY), schema_name=hostile)
    page = manager_client.get(reverse("dlq:quality"), RANGE).content.decode()
    assert hostile not in page
    assert "\\u003C/script\\u003E\\u003Cscript\\u003Ealert(1)" in page
    assert chart_data(page)["outcomes-per-schema"]["labels"] == [hostile]


def test_producer_is_forbidden(producer_client, ten_calls):
    assert producer_client.get(reverse("dlq:quality")).status_code == 403
    assert producer_client.get(reverse("dlq:quality"), **HTMX).status_code == 403


def test_anonymous_is_sent_to_login(client):
    response = client.get(reverse("dlq:quality"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_only_get_is_allowed(manager_client):
    assert manager_client.post(reverse("dlq:quality")).status_code == 405
