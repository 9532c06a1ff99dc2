"""The API's error shape carries the domain error's stable code (core.errors.ErrorCode),
mapped to its HTTP status in one place: the DRF exception handler (api/errors.py)."""

from __future__ import annotations

import pytest

from api.errors import STATUS_BY_CODE, api_exception_handler
from core.errors import ApplicationError, ErrorCode


def test_every_code_has_one_status():
    assert set(STATUS_BY_CODE) == set(ErrorCode)


@pytest.mark.parametrize("code", list(ErrorCode))
def test_the_handler_answers_with_the_code_and_its_status(code):
    error = ApplicationError("refused", code=code, extra={"fields": {"text": "too long"}})
    response = api_exception_handler(error, {})
    assert response is not None
    assert response.status_code == STATUS_BY_CODE[code]
    assert response.data == {
        "error": {"code": code.value, "message": "refused", "fields": {"text": "too long"}}
    }


def test_a_code_that_is_not_an_error_code_is_a_programming_error():
    with pytest.raises(ValueError, match="not_a_code"):
        ApplicationError("refused", code="not_a_code")
    assert ApplicationError("refused").code == ErrorCode.INVALID


@pytest.mark.django_db
def test_a_refusal_raised_behind_an_endpoint_reaches_the_client_with_its_code(api, monkeypatch):
    client = api("briefings:read", "briefings:write")
    project = client.post("/api/v1/briefings/", {"title": "Promo"}, format="json").json()["id"]

    def refuse(**kwargs):
        raise ApplicationError("the briefing is closed", code=ErrorCode.CONFLICT)

    monkeypatch.setattr("api.views.client_message_receive", refuse)
    response = client.post(
        f"/api/v1/briefings/{project}/messages/", {"text": "Привет"}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"
    assert response.json()["error"]["message"] == "the briefing is closed"


@pytest.mark.django_db
def test_a_reused_idempotency_key_is_its_own_code(api):
    client = api("briefings:read", "briefings:write")
    project = client.post("/api/v1/briefings/", {"title": "Promo"}, format="json").json()["id"]
    url = f"/api/v1/briefings/{project}/messages/"
    client.post(url, {"text": "Привет"}, format="json", headers={"Idempotency-Key": "k-1"})
    refused = client.post(url, {"text": "Пока"}, format="json", headers={"Idempotency-Key": "k-1"})
    assert (refused.status_code, refused.json()["error"]["code"]) == (
        422,
        "idempotency_key_reused",
    )
