"""POST /api/v1/briefings/{id}/messages/ under a client's retries, a broker outage and a
flood: an Idempotency-Key stores a message once, a stored message is never a 500, and the
briefing's rate limit refuses with 429 and Retry-After, in the API's error shape."""

from __future__ import annotations

import logging

import pytest
from django.core.cache import cache

from briefing.models import Turn
from briefing.tasks import turns_sweep
from briefing.turn import limits

pytestmark = pytest.mark.django_db


@pytest.fixture
def planner(api):
    return api("briefings:read", "briefings:write")


def briefing(client, title: str = "Promo") -> int:
    return client.post("/api/v1/briefings/", {"title": title}, format="json").json()["id"]


def post(client, project_id: int, text: str, key: str | None = None):
    headers = {"Idempotency-Key": key} if key is not None else {}
    return client.post(
        f"/api/v1/briefings/{project_id}/messages/", {"text": text}, format="json", headers=headers
    )


def client_texts(project_id: int) -> list[str]:
    turns = Turn.objects.filter(project_id=project_id, role=Turn.Role.CLIENT).order_by("seq")
    return list(turns.values_list("text", flat=True))


def test_a_message_sent_twice_with_one_key_is_stored_once(planner):
    project = briefing(planner)
    first = post(planner, project, "Здравствуйте!", key="3f1c9a52-msg-1")
    again = post(planner, project, "Здравствуйте!", key="3f1c9a52-msg-1")
    assert (first.status_code, again.status_code) == (202, 202)
    assert again.json()["id"] == first.json()["id"]
    assert again.json().keys() == first.json().keys()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert client_texts(project) == ["Здравствуйте!"]


def test_without_a_key_each_post_is_a_new_message(planner):
    project = briefing(planner)
    post(planner, project, "Здравствуйте!")
    post(planner, project, "Здравствуйте!")
    assert client_texts(project) == ["Здравствуйте!", "Здравствуйте!"]


def test_a_key_reused_for_another_text_is_refused(planner):
    project = briefing(planner)
    post(planner, project, "Здравствуйте!", key="k-1")
    refused = post(planner, project, "Другой текст", key="k-1")
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert error["code"] == "idempotency_key_reused"
    assert "Idempotency-Key" in error["fields"]
    assert client_texts(project) == ["Здравствуйте!"]


def test_a_key_belongs_to_its_briefing(planner):
    one, two = briefing(planner, "One"), briefing(planner, "Two")
    assert post(planner, one, "Привет", key="shared").status_code == 202
    assert post(planner, two, "Привет", key="shared").status_code == 202
    assert (client_texts(one), client_texts(two)) == (["Привет"], ["Привет"])


@pytest.mark.parametrize("key", ["x" * 101, "with space", "ключ"])
def test_a_malformed_key_is_a_400_with_the_field(planner, key):
    project = briefing(planner)
    response = post(planner, project, "Привет", key=key)
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "Idempotency-Key": "1 to 100 visible ASCII characters"
    }
    assert client_texts(project) == []


def test_the_schema_documents_the_key_and_its_refusal(client):
    operation = client.get("/api/v1/schema/", {"format": "json"}).json()["paths"][
        "/api/v1/briefings/{id}/messages/"
    ]["post"]
    assert [p["name"] for p in operation["parameters"] if p["in"] == "header"] == [
        "Idempotency-Key"
    ]
    assert operation["responses"]["422"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"
    }


@pytest.mark.django_db(transaction=True)
def test_a_message_stored_while_the_broker_is_down_is_accepted_and_swept_later(
    planner, dead_broker, caplog
):
    project = briefing(planner)
    planner.raise_request_exception = False
    with caplog.at_level(logging.ERROR, logger="core.queueing"):
        accepted = post(planner, project, "Здравствуйте!", key="during-outage")
    assert accepted.status_code == 202
    assert accepted.json()["status"] == "received"
    assert "could not be queued" in caplog.text
    # The integration's retry of the same message stores nothing more.
    assert post(planner, project, "Здравствуйте!", key="during-outage").status_code == 202
    assert client_texts(project) == ["Здравствуйте!"]

    dead_broker()  # the broker is back: the periodic sweep queues the waiting turn
    assert turns_sweep() == 1
    turn = Turn.objects.get(project_id=project, role=Turn.Role.CLIENT)
    assert turn.status == Turn.Status.DONE
    assert turn.replies.filter(role=Turn.Role.AGENT).count() == 1


def test_messages_past_the_briefings_rate_are_429_and_stored_nowhere(
    planner, settings, monkeypatch
):
    settings.CLIENT_CHAT_RATE_PER_LINK = ["2/min"]
    monkeypatch.setattr(limits, "_now", lambda: 60 * 29_000_000 + 15.0)
    cache.clear()
    project = briefing(planner)
    codes = [post(planner, project, f"сообщение {n}").status_code for n in range(5)]
    assert codes == [202, 202, 429, 429, 429]
    limited = post(planner, project, "ещё")
    assert limited.headers["Retry-After"] == "45"
    error = limited.json()["error"]
    assert error["code"] == "throttled"
    assert "2/min" in error["message"]
    assert error["fields"] == {}
    assert client_texts(project) == ["сообщение 0", "сообщение 1"]
    events = planner.get(f"/api/v1/briefings/{project}/events/").json()["results"]
    limited_events = [e for e in events if e["kind"] == "client_rate_limited"]
    assert [(e["data"]["scope"], e["data"]["channel"]) for e in limited_events] == [("link", "api")]
    cache.clear()
