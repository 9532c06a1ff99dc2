"""Fixtures for the briefing tests: users, projects, a way to talk as the client, and a
turn whose model answer was dead-lettered (with the answer that fixes it)."""

from __future__ import annotations

import pytest

from briefing.models import Turn
from briefing.services import project_create, turn_receive
from dlq.models import DeadLetter


@pytest.fixture
def project(producer):
    return project_create(title="Promo", language="ru", producer=producer)


@pytest.fixture
def say(django_capture_on_commit_callbacks):
    """Send a client message and let the queued turn processing run (eager Celery)."""

    def send(project, text):
        with django_capture_on_commit_callbacks(execute=True):
            turn = turn_receive(project=project, text=text)
        project.refresh_from_db()
        turn.refresh_from_db()
        return turn

    return send


# A valid intro-stage answer for the client of `dead_lettered_turn`.
FIXED_INTRO = {
    "message": "Спасибо, Анна!",
    "clientName": "Анна",
    "contact": "+79161234567",
    "projectType": "ролик",
    "introStatus": True,
}


@pytest.fixture
def dead_lettered_turn(project, say, scripted_model):
    """A client turn the scripted model answered with prose twice: (turn, its dead letter)."""
    scripted_model.answers("I am not sure what you mean.")
    turn = say(project, "Анна, +7 916 123-45-67, нужен ролик")
    assert turn.status == Turn.Status.FAILED
    return turn, DeadLetter.objects.get(source_id=str(turn.pk))
