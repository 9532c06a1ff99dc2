"""A complete briefing driven only through the API, as a chat integration would: create it,
post the client's messages, poll the events, fetch the brief and check it against the
published JSON Schema. The rules agent answers; Celery runs in process."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
import yaml

pytestmark = pytest.mark.django_db

EXAMPLE = Path(__file__).resolve().parents[2] / "briefing" / "examples" / "ru_orderly.yaml"


def test_a_whole_briefing_through_the_api(api, django_capture_on_commit_callbacks):
    conversation = yaml.safe_load(EXAMPLE.read_text("utf-8"))
    client = api("briefings:read", "briefings:write", "briefs:read")
    created = client.post(
        "/api/v1/briefings/",
        {"title": conversation["title"], "client_name": "Анна", "language": "ru"},
        format="json",
    )
    assert created.status_code == 201
    project = created.json()["id"]
    after, kinds = 0, []
    for step in conversation["turns"]:
        with django_capture_on_commit_callbacks(execute=True):
            posted = client.post(
                f"/api/v1/briefings/{project}/messages/", {"text": step["client"]}, format="json"
            )
        assert posted.status_code == 202
        assert (posted.json()["role"], posted.json()["status"]) == ("client", "received")
        # Poll "everything since": each poll returns only what is new.
        while True:
            page = client.get(f"/api/v1/briefings/{project}/events/", {"after": after}).json()
            assert all(event["id"] > after for event in page["results"])
            kinds += [event["kind"] for event in page["results"]]
            after = page["next_after"]
            if not page["has_more"]:
                break
    assert kinds.count("turn_received") == len(conversation["turns"])
    assert "brief_completed" in kinds
    briefing = client.get(f"/api/v1/briefings/{project}/").json()
    assert briefing["status"] == "completed"
    stages = client.get(f"/api/v1/briefings/{project}/stages/").json()
    assert [s["status"] for s in stages] == ["closed"] * 5
    assert {s["key"]: s["closed_by"] for s in stages} == conversation["expect"]["closed_by"]
    transcript = client.get(f"/api/v1/briefings/{project}/messages/", {"page_size": 200}).json()
    roles = [turn["role"] for turn in transcript["results"]]
    assert roles.count("client") == len(conversation["turns"])
    assert roles.count("agent") >= len(conversation["turns"])

    listed = client.get("/api/v1/briefs/").json()["results"]
    assert [b["id"] for b in listed] == [project]
    since = client.get("/api/v1/briefs/", {"since": briefing["completed_at"]}).json()
    assert since["results"] == []  # nothing completed after it
    brief = client.get(f"/api/v1/briefs/{project}/").json()
    schema = client.get(brief["schema"]).json()
    jsonschema.validate(brief["brief"], schema)
    assert brief["brief"]["intro"]["clientName"] == "Анна Соколова"
    assert brief["brief"]["budget"]["budget"] == 800_000
    assert "Анна Соколова" in brief["summary_markdown"]


def test_a_brief_of_an_unfinished_briefing_is_404(api):
    client = api()
    created = client.post("/api/v1/briefings/", {"title": "Open"}, format="json").json()
    response = client.get(f"/api/v1/briefs/{created['id']}/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_the_docs_page_and_schema_are_served_without_a_cdn(client, db):
    schema = client.get("/api/v1/schema/", {"format": "json"})
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/v1/briefings/{id}/events/" in paths
    assert schema.json()["components"]["securitySchemes"]["apiToken"]["scheme"] == "bearer"
    docs = client.get("/api/v1/docs/").content.decode()
    assert "swagger-ui" in docs
    assert "cdn" not in docs.lower()
    assert "https://" not in docs
    assert "http://" not in docs
