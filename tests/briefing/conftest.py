"""Fixtures for the briefing tests: users, projects and a way to talk as the client."""

from __future__ import annotations

import pytest

from briefing.services import project_create, turn_receive
from tests.conftest import user_in_group


@pytest.fixture
def producer(db):
    return user_in_group("producer", "Producers")


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
