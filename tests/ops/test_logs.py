"""JSON log lines with the request id: taken from a sane X-Request-ID or made, answered back,
put on every line written while the request is served, and carried in a queued task's
headers; nothing the client wrote is logged at INFO."""

from __future__ import annotations

import io
import json
import logging

import pytest

from briefing.services import project_create
from config.logs import JsonFormatter, _ids_into_headers
from core.log_context import LogContextFilter, log_context_bind, log_context_reset, log_context_set


@pytest.fixture
def json_log():
    """The root logger's lines as the production handler writes them, read back as dicts."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(LogContextFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    previous = root.level
    root.setLevel(logging.INFO)
    yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    root.removeHandler(handler)
    root.setLevel(previous)


def test_a_sane_request_id_is_kept_and_answered(client, json_log):
    response = client.get("/login/", HTTP_X_REQUEST_ID="lb-4f1c2a9e")
    assert response["X-Request-ID"] == "lb-4f1c2a9e"
    access = [r for r in json_log() if r["logger"] == "briefing.access"]
    assert access[-1]["request_id"] == "lb-4f1c2a9e"
    assert access[-1]["view"] == "login"
    assert access[-1]["status"] == 200
    assert access[-1]["level"] == "INFO"


def test_a_request_id_that_is_not_a_token_is_replaced(client):
    response = client.get("/login/", HTTP_X_REQUEST_ID='x"; DROP\nINJECT')
    assert response["X-Request-ID"] != 'x"; DROP\nINJECT'
    assert len(response["X-Request-ID"]) == 32


@pytest.mark.django_db
def test_a_client_message_is_logged_by_ids_never_by_its_text(client, producer, json_log):
    project = project_create(title="Logs", language="ru", producer=producer)
    secret_text = "Мой пароль от почты ЗебраКоала77"
    response = client.post(
        f"/c/{project.client_token}/", {"text": secret_text}, HTTP_X_REQUEST_ID="req-00000042"
    )
    assert response.status_code == 302
    records = json_log()
    assert records, "nothing was logged"
    assert all("ЗебраКоала77" not in json.dumps(r, ensure_ascii=False) for r in records)
    # The access line names the view, not the path (the chat link is a secret).
    access = [r for r in records if r["logger"] == "briefing.access"]
    assert access[-1]["view"] == "client_chat"
    assert project.client_token not in json.dumps(records)


def test_the_ids_travel_in_a_queued_tasks_headers():
    token = log_context_set({"request_id": "req-00000043"})
    try:
        log_context_bind(briefing_id=7, turn_id=70)
        headers: dict = {}
        _ids_into_headers(headers=headers)
    finally:
        log_context_reset(token)
    assert headers == {"request_id": "req-00000043", "briefing_id": "7", "turn_id": "70"}


def test_a_json_line_carries_the_context_ids(json_log):
    token = log_context_set({"request_id": "req-00000044", "briefing_id": "9"})
    try:
        logging.getLogger("briefing.test").info("turn %s answered", 90)
    finally:
        log_context_reset(token)
    line = json_log()[-1]
    assert line["message"] == "turn 90 answered"
    assert line["request_id"] == "req-00000044"
    assert line["briefing_id"] == "9"
    assert "turn_id" not in line  # unset ids are left out, not written empty
