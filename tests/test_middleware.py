"""config.middleware.RequestTextMiddleware: a NUL in a URL, or a form body in a charset other
than UTF-8, is a 400 before any view, the CSRF check or the database sees it (a 500 before),
in the error shape on the JSON endpoints and as Django's 400 page elsewhere; requests without
one are served as before. And numbers in query strings: too long, or not ASCII, is no 500."""

from __future__ import annotations

import pytest
from django.test import Client

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


def _form_post(client: Client, path: str, charset: str):
    client.get(path)  # the CSRF cookie, as a browser has it
    token = client.cookies["csrftoken"].value
    body = f"text=hi&username=a&password=b&csrfmiddlewaretoken={token}".encode()
    return client.generic(
        "POST", path, body, content_type=f"application/x-www-form-urlencoded; charset={charset}"
    )


@pytest.mark.parametrize("charset", ["utf-16", "latin-1", "made-up", "x" * 500, "utf8"])
@pytest.mark.parametrize("page", ["/login/", "/admin/login/", "chat"])
def test_a_form_in_another_charset_is_a_400_on_every_page(page, charset):
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    if page == "chat":
        project = project_create(
            title="Promo", language="ru", producer=user_in_group("p", "Producers")
        )
        page = f"/c/{project.client_token}/"
    response = _form_post(client, page, charset)
    assert response.status_code == 400
    assert project.turns.count() == 0 if page.startswith("/c/") else True


@pytest.mark.parametrize("charset", ["utf-8", "UTF-8"])
def test_a_form_declared_as_utf8_is_read(charset):
    project = project_create(title="Promo", language="ru", producer=user_in_group("p", "Producers"))
    client = Client(enforce_csrf_checks=True)
    response = _form_post(client, f"/c/{project.client_token}/", charset)
    assert response.status_code == 302
    assert project.turns.get().text == "hi"


@pytest.mark.parametrize("value", ["9" * 5000, "²", "١٢", "-1", "1e9"])
def test_a_number_in_a_query_string_that_is_no_plain_number_is_ignored_not_a_500(client, value):
    producer = user_in_group("p", "Producers")
    project = project_create(title="Promo", language="ru", producer=producer)
    assert client.get(f"/c/{project.client_token}/messages/?after={value}").status_code == 200
    client.force_login(producer)
    htmx = {"HX-Request": "true"}
    detail = client.get(f"/briefings/{project.pk}/?after={value}&open={value}", headers=htmx)
    assert detail.status_code == 200
    assert client.get(f"/results/?after={value}").status_code == 200
