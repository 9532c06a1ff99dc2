"""Every page but the login and the client's chat requires login: walk every URL pattern and
check that an anonymous request is refused."""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

# Reachable without an account: the login page, the client's link-protected chat, the
# API's published description (its OpenAPI schema, docs page and the Brief JSON Schema), and
# the favicon every browser asks for.
ANONYMOUS_ALLOWED = {
    "login", "client_chat", "client_messages", "schema", "docs", "brief_schema", "favicon",
}  # fmt: skip


def _patterns(resolver=None, prefix=""):
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from _patterns(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def _example_path(route: str) -> str:
    """A concrete path for a route: converters get plausible values, regexes are cut."""
    path = route
    for converter, value in (("<int:", "1"), ("<str:", "x"), ("<path:", "x"), ("<slug:", "x")):
        while converter in path:
            start = path.index(converter)
            end = path.index(">", start)
            path = path[:start] + value + path[end + 1 :]
    for token in ("^", "$", "\\Z", "(?P<app_label>auth|briefing|dlq)", "(?P<url>.*)"):
        path = path.replace(token, "briefing" if "app_label" in token else "")
    return "/" + path


ROUTES = [(route, entry) for route, entry in _patterns() if entry.name not in ANONYMOUS_ALLOWED]


def test_the_walk_finds_the_pages():
    names = {entry.name for _, entry in _patterns()}
    assert {"dashboard", "project_detail", "project_action", "project_new"} <= names


@pytest.mark.django_db
@pytest.mark.parametrize(("route", "entry"), ROUTES, ids=[r for r, _ in ROUTES])
@pytest.mark.parametrize("method", ["get", "post"])
def test_anonymous_requests_are_refused(client, route, entry, method):
    path = _example_path(route)
    response = getattr(client, method)(path)
    # 401: the API's refusal of a request without a token.
    assert response.status_code in {301, 302, 401, 403, 404, 405}, (path, response.status_code)
    if response.status_code in {301, 302}:
        location = response.headers["Location"]
        # Admin's own login, ours, or the admin's trailing-slash redirect to a refused page.
        assert (
            "login" in location
            or location.rstrip("/") == path.rstrip("/")
            or location.endswith("/")
        ), (path, location)
