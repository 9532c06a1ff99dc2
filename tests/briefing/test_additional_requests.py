"""A client's message after the brief is complete: appended to the brief and its markdown as
an additional request, flagged to the producer with an event, kept when the brief is
written again; and the brief's downloads keep Cyrillic as text."""

from __future__ import annotations

import datetime
import json

import pytest
from django.urls import reverse

from briefing.models import BriefingEvent, Project
from briefing.services import field_correct, stage_force_close

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english_back_office(settings):
    """The texts asserted here are the English back office's (Russian is the default)."""
    settings.LANGUAGE_CODE = "en"


Kind = BriefingEvent.Kind


@pytest.fixture
def completed(project, producer):
    for key in ("intro", "vision", "service", "budget", "extra"):
        stage_force_close(project=project, stage_key=key, user=producer, reason="by phone")
    project.refresh_from_db()
    assert project.status == Project.Status.COMPLETED
    return project


def test_a_message_after_completion_is_appended_to_the_brief_and_flagged(
    client, completed, producer, say
):
    client.force_login(producer)
    completed_at = completed.completed_at
    turn = say(completed, "А субтитры можно добавить? Пример: https://ex.com/a_b?x=1&y=2")
    completed.refresh_from_db()
    [request] = completed.brief["additionalRequests"]
    assert request["text"] == "А субтитры можно добавить? Пример: https://ex.com/a_b?x=1&y=2"
    received = datetime.datetime.fromisoformat(request["receivedAt"])
    assert abs((received - turn.created_at).total_seconds()) < 1
    assert "## Дополнительные запросы" in completed.summary_markdown
    assert "https://ex.com/a_b?x=1&y=2" in completed.summary_markdown
    assert completed.completed_at == completed_at
    assert turn.meta["additional_request"] is True
    event = BriefingEvent.objects.get(project=completed, kind=Kind.ADDITIONAL_REQUEST)
    assert event.turn_id == turn.pk
    assert event.data["text"].startswith("А субтитры")
    page = client.get(reverse("project_detail", args=[completed.pk])).content.decode()
    assert "the client asked for more after completion (added to the brief)" in page

    # A producer's change writes the brief again; the request stays, and the next is added.
    field_correct(project=completed, stage_key="budget", field="budget", value=700000)
    say(completed, "И ещё версию на 15 секунд")
    completed.refresh_from_db()
    texts = [r["text"] for r in completed.brief["additionalRequests"]]
    assert texts == [request["text"], "И ещё версию на 15 секунд"]
    assert completed.brief["budget"]["budget"] == 700000
    assert BriefingEvent.objects.filter(kind=Kind.ADDITIONAL_REQUEST).count() == 2


def test_messages_before_completion_are_not_additional_requests(project, say):
    say(project, "Здравствуйте, я Анна")
    project.refresh_from_db()
    assert not (project.brief or {}).get("additionalRequests")
    assert not BriefingEvent.objects.filter(kind=Kind.ADDITIONAL_REQUEST).exists()


def test_downloads_keep_cyrillic_as_utf8_text(client, producer, completed, say):
    field_correct(project=completed, stage_key="intro", field="clientName", value="Анна & Co")
    say(completed, "А субтитры?")
    client.force_login(producer)
    url = reverse("project_detail", args=[completed.pk])

    download = client.get(url, {"download": "json"})
    assert download["Content-Type"] == "application/json; charset=utf-8"
    assert "Анна & Co".encode() in download.content
    assert b"\\u04" not in download.content
    body = json.loads(download.content.decode("utf-8"))
    assert body["intro"]["clientName"] == "Анна & Co"
    assert body["additionalRequests"][0]["text"] == "А субтитры?"

    markdown = client.get(url, {"download": "md"}).content.decode("utf-8")
    assert "Анна & Co" in markdown
    assert "&amp;" not in markdown
    assert "А субтитры?" in markdown
