"""The long API lists page by a keyset cursor: every page costs the same and no COUNT(*)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from briefing.models import Project

pytestmark = pytest.mark.django_db


def _walk(client, url: str, **params) -> tuple[list[int], list[list[str]]]:
    """Every id of the list, following `next`; and the SQL of each page."""
    ids: list[int] = []
    queries: list[list[str]] = []
    response = None
    while True:
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url, params) if response is None else client.get(url)
        assert response.status_code == 200, response.content
        page = response.json()
        assert set(page) == {"next", "results"}
        ids += [row["id"] for row in page["results"]]
        queries.append([q["sql"] for q in captured.captured_queries])
        if page["next"] is None:
            return ids, queries
        url, params = page["next"], {}


def test_briefings_page_by_cursor_newest_first_without_a_count(api):
    client = api()
    created = [
        client.post("/api/v1/briefings/", {"title": f"B{n}"}, format="json").json()["id"]
        for n in range(7)
    ]
    # Two created at the same moment: the id orders them, neither is lost at a page edge.
    moment = timezone.now() - timedelta(hours=1)
    Project.objects.filter(pk__in=created[2:4]).update(created_at=moment)
    ids, queries = _walk(client, "/api/v1/briefings/", page_size=2)
    expected = list(
        Project.objects.filter(pk__in=created)
        .order_by("-created_at", "-id")
        .values_list("pk", flat=True)
    )
    assert ids == expected
    assert len(queries) == 4
    assert all("COUNT(" not in sql.upper() for page in queries for sql in page)
    assert len({len(page) for page in queries}) == 1  # as many queries on every page


def test_briefs_page_by_cursor_oldest_completion_first(api):
    client = api()
    ids = [
        client.post("/api/v1/briefings/", {"title": f"B{n}"}, format="json").json()["id"]
        for n in range(5)
    ]
    start = timezone.now() - timedelta(days=1)
    for offset, pk in enumerate(reversed(ids)):
        Project.objects.filter(pk=pk).update(
            status="completed", brief={}, completed_at=start + timedelta(minutes=offset)
        )
    listed, _ = _walk(client, "/api/v1/briefs/", page_size=2)
    assert listed == list(reversed(ids))
    since = (start + timedelta(minutes=2)).isoformat()
    later, _ = _walk(client, "/api/v1/briefs/", page_size=1, since=since)
    assert later == list(reversed(ids))[3:]


@pytest.mark.parametrize("cursor", ["x", "bm90IGpzb24", "WyJub3QgYSBkYXRlIiwgMV0"])
def test_a_cursor_not_made_by_the_list_is_a_404(api, cursor):
    response = api().get("/api/v1/briefings/", {"cursor": cursor})
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "Invalid cursor."


def test_a_page_size_out_of_range_is_a_400(api):
    assert api().get("/api/v1/briefs/", {"page_size": 0}).status_code == 400


def test_leads_and_dead_letters_page_by_cursor_newest_first(api):
    from crm.models import Lead
    from dlq.models import DeadLetter

    now = timezone.now()
    leads = [
        Lead.objects.create(last_message_at=now - timedelta(minutes=n // 2), channel="form",
                            client_intent="question").pk
        for n in range(5)
    ]  # fmt: skip
    letters = [
        DeadLetter.objects.create(schema_name="LeadCard", error_signature="$: x").pk
        for _ in range(5)
    ]
    client = api()
    listed, queries = _walk(client, "/api/v1/leads/", page_size=2)
    expected = Lead.objects.filter(pk__in=leads).order_by("-last_message_at", "-id")
    assert listed == list(expected.values_list("pk", flat=True))
    assert all("COUNT(" not in sql.upper() for page in queries for sql in page)
    listed, _ = _walk(client, "/api/v1/dead-letters/", page_size=3)
    assert listed == sorted(letters, reverse=True)
