"""The studio's REST endpoints: scopes, the calendar push keyed by the tool's own id."""

from __future__ import annotations

import pytest

from studio.models import CalendarPeriod
from studio.services import studio_demo_load

pytestmark = pytest.mark.django_db


def test_reading_the_rate_card_needs_the_studio_scope(api, settings):
    import datetime

    studio_demo_load(today=datetime.date(2026, 12, 1))
    assert api("briefs:read").get("/api/v1/studio/rate-card/").status_code == 403
    rows = api("studio:read").get("/api/v1/studio/rate-card/").json()
    promo = next(row for row in rows if row["code"] == "promo-video")
    assert (promo["price_min"], promo["price_max"], promo["currency"]) == (350000, 1200000, "RUB")
    works = api("studio:read").get("/api/v1/studio/portfolio/").json()["results"]
    assert any(not work["may_be_shown"] for work in works)


def test_a_planning_tool_pushes_replaces_and_removes_a_period(api):
    planner = api("studio:read", "calendar:write", name="planner")
    body = {"external_id": "job-7", "starts_on": "2027-05-01", "ends_on": "2027-05-10",
            "status": "busy", "note": "Shoot"}  # fmt: skip
    assert planner.post("/api/v1/studio/calendar/", body, format="json").status_code == 201
    body["status"] = "tentative"
    assert planner.post("/api/v1/studio/calendar/", body, format="json").status_code == 200
    period = CalendarPeriod.objects.get()
    assert (period.source, period.status) == ("planner", "tentative")
    bad = {**body, "ends_on": "2027-04-01"}
    assert planner.post("/api/v1/studio/calendar/", bad, format="json").status_code == 400
    assert planner.delete("/api/v1/studio/calendar/job-7/").status_code == 204
    assert not CalendarPeriod.objects.exists()


def test_pushing_the_calendar_needs_the_write_scope(api):
    reader = api("studio:read")
    body = {"external_id": "x", "starts_on": "2027-05-01", "ends_on": "2027-05-02",
            "status": "busy"}  # fmt: skip
    assert reader.post("/api/v1/studio/calendar/", body, format="json").status_code == 403
    assert reader.get("/api/v1/studio/calendar/").status_code == 200


def test_the_demo_data_loads_once(capsys):
    from django.core.management import call_command

    call_command("studio_demo_data")
    counts = (CalendarPeriod.objects.count(),)
    call_command("studio_demo_data")
    assert (
        "0 rate card rows, 0 portfolio works, 0 calendar periods added" in capsys.readouterr().out
    )
    assert (CalendarPeriod.objects.count(),) == counts == (3,)
    call_command("studio_demo_data", "--if-empty")
    assert "already has data" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"ends_on": "9999-12-31"}, "ends_on", "between 1970-01-01 and 2100-12-31"),
        ({"starts_on": "0001-01-01"}, "starts_on", "between 1970-01-01 and 2100-12-31"),
        ({"external_id": "c\u00001"}, "external_id", "control characters"),
        ({"external_id": "c\n1"}, "external_id", "control characters"),
    ],
)
def test_a_period_no_calendar_can_hold_is_refused_at_its_field(api, change, field, words):
    planner = api("calendar:write", name="planner")
    first = {"external_id": "c1", "starts_on": "2027-05-01", "ends_on": "2027-05-10",
             "status": "busy"}  # fmt: skip
    assert planner.post("/api/v1/studio/calendar/", first, format="json").status_code == 201
    refused = planner.post("/api/v1/studio/calendar/", {**first, **change}, format="json")
    assert refused.status_code == 400
    assert words in str(refused.json()["error"]["fields"][field])
    period = CalendarPeriod.objects.get()  # nothing overwritten, nothing added
    assert (period.external_id, str(period.ends_on)) == ("c1", "2027-05-10")
