"""Site-wide answers: /favicon.ico and /api/ are served (they were 404s), and every back-office
page links the favicon and the API docs."""

from __future__ import annotations

import pytest

from tests.conftest import user_in_group


@pytest.fixture(autouse=True)
def english_back_office(settings):
    """The texts asserted here are the English back office's (Russian is the default)."""
    settings.LANGUAGE_CODE = "en"


def test_favicon_is_served_from_the_vendored_file(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    body = b"".join(response.streaming_content)
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO file's header
    assert "max-age=86400" in response["Cache-Control"]


@pytest.mark.parametrize("path", ["/api/", "/api"])
def test_api_root_leads_to_the_docs(client, db, path):
    response = client.get(path, follow=True)
    assert response.redirect_chain[-1][0] == "/api/v1/docs/"
    assert response.status_code == 200
    assert "swagger-ui" in response.content.decode()


def test_back_office_pages_link_the_favicon_and_the_api_docs(client, db):
    client.force_login(user_in_group("producer", "Producers"))
    page = client.get("/").content.decode()
    assert '<link rel="icon" href="/static/favicon.ico"' in page
    assert '<a href="/api/v1/docs/">API docs</a>' in page
    login = client.get("/login/").content.decode()
    assert 'rel="icon"' in login
