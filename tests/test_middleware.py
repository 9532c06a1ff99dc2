"""config.middleware.UrlTextMiddleware: a NUL in a URL is a 400 before any view or the
database sees it (a 500 on PostgreSQL before), in the error shape on the JSON endpoints and
as Django's 400 page elsewhere; URLs without one are served as before."""

from __future__ import annotations

import pytest

from briefing.services import project_create
from tests.conftest import user_in_group

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url", ["/c/abc%00def/", "/c/abc%00def/messages/", "/crm/leads/?intent=%00", "/?x%00=1"]
)
def test_a_nul_in_a_page_url_is_a_plain_400(client, url):
    client.force_login(user_in_group("boss", "Managers"))
    response = client.get(url)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/v1/briefs/?since=2025%00", "since"),
        ("/api/v1/briefings/1%00/", "$path"),
        ("/crm/inbound/messenger/?x=%00", "x"),
    ],
)
def test_a_nul_in_a_json_endpoint_url_is_a_400_in_the_error_shape(client, url, field):
    response = client.get(url)
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["fields"]) == (
        "invalid",
        {field: "must not contain NUL characters"},
    )


def test_urls_without_a_nul_are_served_as_before(client):
    project = project_create(title="Сайт", language="ru")
    assert client.get(f"/c/{project.client_token}/").status_code == 200
    assert client.get("/c/abc-def/").status_code == 404
