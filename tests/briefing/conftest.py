"""Fixtures for the briefing tests: users, projects, a way to talk as the client, and a
scripted model behind a local server that speaks the OpenAI wire format."""

from __future__ import annotations

import json

import pytest

from briefing.services import project_create, turn_receive
from dlq.services import llm_chain
from tests.conftest import user_in_group
from tests.llmkit.wire_servers import JsonReply, WireServer, openai_completion


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


class ScriptedModel:
    """A model that answers stage agents from a script, over HTTP in the OpenAI format."""

    def __init__(self, server: WireServer) -> None:
        self.server = server

    def answers(self, *objects) -> None:
        replies = [
            JsonReply(
                openai_completion(o if isinstance(o, str) else json.dumps(o, ensure_ascii=False))
            )
            for o in objects
        ]
        self.server.route("/v1/chat/completions", *replies)

    @property
    def requests(self):
        return [r.json() for r in self.server.requests_to("/v1/chat/completions")]


@pytest.fixture
def scripted_model(monkeypatch):
    with WireServer() as server:
        monkeypatch.setenv("LLM_PROVIDERS", "openai")
        monkeypatch.setenv("OPENAI_BASE_URL", server.url("/v1"))
        monkeypatch.setenv("OPENAI_MODEL", "scripted")
        monkeypatch.setenv("LLM_BREAKER_FAILURES", "1000")
        llm_chain.cache_clear()
        yield ScriptedModel(server)
    llm_chain.cache_clear()
