"""The dlq pages: the quality JSON and the digest page, for managers only."""

from __future__ import annotations

from datetime import date

import pytest
from django.urls import reverse

from tests.dlq.test_selectors import at, make_call, make_letter

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.dlq.urls")]

DAY = date(2025, 3, 10)


@pytest.fixture
def calls():
    make_call(created_at=at(DAY), outcome="fast", latency_ms=100)
    make_call(created_at=at(DAY, 13), outcome="failed", retry_used=True, attempts=2,
              schema_name="BriefCard", provider="gigachat", providers=["gigachat"],
              latency_ms=300)  # fmt: skip
    make_call(created_at=at(date(2025, 3, 11)), outcome="repaired", latency_ms=200)
    make_call(created_at=at(date(2025, 3, 12)), outcome="fast")  # after until


def test_manager_gets_the_figures_of_the_inclusive_range(manager_client, calls):
    response = manager_client.get(
        reverse("dlq:quality_json"), {"since": "2025-03-10", "until": "2025-03-11"}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["total"] == 3
    assert body["outcomes"]["failed"] == {"count": 1, "share": pytest.approx(1 / 3)}
    assert body["retry_count"] == 1
    assert [d["day"] for d in body["per_day"]] == ["2025-03-10", "2025-03-11"]
    assert body["latency_ms"] == {"p50": 200, "p95": 300}


def test_quality_narrows_to_schema_and_provider(manager_client, calls):
    response = manager_client.get(
        reverse("dlq:quality_json"),
        {"since": "2025-03-10", "until": "2025-03-11", "schema": "BriefCard",
         "provider": "gigachat"},
    )  # fmt: skip
    body = response.json()
    assert body["total"] == 1
    assert body["outcomes"]["failed"]["count"] == 1
    assert (body["schema"], body["provider"]) == ("BriefCard", "gigachat")


def test_producer_is_forbidden(producer_client, calls):
    assert producer_client.get(reverse("dlq:quality_json")).status_code == 403
    assert producer_client.get(reverse("dlq:digest")).status_code == 403


def test_anonymous_is_sent_to_login(client):
    for name in ("dlq:quality_json", "dlq:digest"):
        response = client.get(reverse(name))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"since": "10.03.2025"}, "since"),
        ({"until": "2025-13-01"}, "until"),
        ({"since": "2025-03-12", "until": "2025-03-10"}, "since"),
        ({"since": "2020-01-01", "until": "2025-03-10"}, "since"),
    ],
)
def test_bad_params_are_a_400_with_a_json_error(manager_client, params, field):
    response = manager_client.get(reverse("dlq:quality_json"), params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_params"
    assert error["message"]
    assert list(error["fields"]) == [field]


def test_digest_page_shows_the_week(manager_client, calls):
    make_call(created_at=at(DAY, 14), schema_name="BriefCard", retry_used=True, attempts=2)
    make_letter(created_at=at(DAY), raw_responses=["<b>not json</b>"])
    response = manager_client.get(reverse("dlq:digest"), {"week_ending": "2025-03-16"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "2025-03-10 to 2025-03-16" in page
    assert "<strong>5</strong> structured calls" in page
    assert "budget_rub: int_parsing" in page
    assert "&lt;b&gt;not json&lt;/b&gt;" in page
    assert "BriefCard</strong>: 100% retried: rewrite the prompt rather than patch it" in page


def test_digest_page_rejects_a_bad_date(manager_client):
    response = manager_client.get(reverse("dlq:digest"), {"week_ending": "yesterday"})
    assert response.status_code == 400
    assert "expected an ISO date" in response.content.decode()
