"""Hostile bodies and query strings sent to the API: each is a 400 in the API's error shape
({"error": {"code", "message", "fields"}}), never an HTML 500, and nothing is written; the
valid neighbours of each still pass."""

from __future__ import annotations

import json

import pytest

from briefing.models import Project

pytestmark = pytest.mark.django_db

BRIEFINGS = "/api/v1/briefings/"


def _post(client, body: bytes | str):
    return client.post(BRIEFINGS, body, content_type="application/json")


def _error(response, status: int) -> dict:
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    assert set(error) == {"code", "message", "fields"}
    return error


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ('{"title": ' + "[" * 10_000 + "]" * 10_000 + "}", "deeper than 32 levels"),
        ("[" * 100_000, "deeper than 32 levels"),
        ('{"title": "x", "n": ' + "7" * 5000 + "}", "more than 50 digits"),
        ('{"title": "x", "n": NaN}', "NaN is not a JSON value"),
        ('{"title": "x", "n": 1e999}', "out of range"),
        ('{"title": "x"', "not JSON"),
    ],
)
def test_a_body_beyond_the_json_limits_is_a_parse_error_in_the_api_shape(api, body, words):
    error = _error(_post(api(), body), 400)
    assert error["code"] == "parse_error"
    assert words in error["message"]
    assert not Project.objects.exists()


def test_a_lone_surrogate_is_refused_at_its_field(api):
    error = _error(_post(api(), '{"title": "Сайт \\ud800", "client_name": "Анна"}'), 400)
    assert error["code"] == "invalid"
    assert "lone surrogate" in error["fields"]["title"]
    assert not Project.objects.exists()


def test_valid_bodies_next_to_the_limits_pass(api):
    deep = {"title": "Сайт 😀", "language": "ru"}
    inner: dict = deep
    for _ in range(30):  # 31 levels with the top: within INPUT_JSON_MAX_DEPTH (32)
        inner["x"] = {}
        inner = inner["x"]
    inner["n"] = int("9" * 50)
    created = _post(api(), json.dumps(deep))
    assert created.status_code == 201
    assert created.json()["title"] == "Сайт 😀"
    # A NUL in text is dropped, as the API always did; the rest is kept.
    cleaned = _post(api(), json.dumps({"title": "Сайт\x00 салона"}))
    assert (cleaned.status_code, cleaned.json()["title"]) == (201, "Сайт салона")


@pytest.mark.parametrize(
    "since", ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00", "soon"]
)
def test_a_date_out_of_range_in_the_query_is_a_field_error(api, since):
    error = _error(api().get("/api/v1/briefs/", {"since": since}), 400)
    assert error["code"] == "invalid"
    assert "since" in error["fields"]
