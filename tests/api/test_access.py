"""Every endpoint needs its scope; a token sees the briefings it created; one error shape."""

from __future__ import annotations

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from api.models import SCOPES, ApiToken
from api.throttling import PerCallerThrottle
from briefing.services import project_create
from crm.services import Inbound, inbound_store
from dlq.models import DeadLetter
from tests.conftest import user_in_group

pytestmark = pytest.mark.django_db


@pytest.fixture
def objects(django_capture_on_commit_callbacks):
    project = project_create(title="Seeded", language="ru")
    with django_capture_on_commit_callbacks(execute=True):
        message, _ = inbound_store(
            Inbound(channel="form", body_text="Куплю седан, +7 916 123-45-67",
                    received_at=timezone.now())
        )  # fmt: skip
    message.refresh_from_db()
    assert message.lead_id is not None
    letter = DeadLetter.objects.create(schema_name="LeadCard", error_signature="$: no_json")
    return {"project": project.pk, "lead": message.lead_id, "letter": letter.pk}


# (method, path, scope it needs); {project}, {lead}, {letter} are filled from `objects`.
ENDPOINTS = [
    ("get", "/api/v1/briefings/", "briefings:read"),
    ("post", "/api/v1/briefings/", "briefings:write"),
    ("get", "/api/v1/briefings/{project}/", "briefings:read"),
    ("get", "/api/v1/briefings/{project}/messages/", "briefings:read"),
    ("post", "/api/v1/briefings/{project}/messages/", "briefings:write"),
    ("get", "/api/v1/briefings/{project}/stages/", "briefings:read"),
    ("get", "/api/v1/briefings/{project}/events/", "briefings:read"),
    ("get", "/api/v1/briefs/", "briefs:read"),
    ("get", "/api/v1/briefs/{project}/", "briefs:read"),
    ("get", "/api/v1/leads/", "leads:read"),
    ("get", "/api/v1/leads/{lead}/", "leads:read"),
    ("get", "/api/v1/dead-letters/", "dlq:read"),
    ("get", "/api/v1/dead-letters/{letter}/", "dlq:read"),
]


@pytest.mark.parametrize(("method", "path", "scope"), ENDPOINTS)
def test_a_token_without_the_scope_is_refused(api, objects, method, path, scope):
    url = path.format(**objects)
    others = [s for s in SCOPES if s != scope]
    response = getattr(api(*others), method)(url, {}, format="json")
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "permission_denied"
    assert scope in error["message"]


@pytest.mark.parametrize(("method", "path", "scope"), ENDPOINTS)
def test_a_token_with_the_scope_gets_past_the_scope_check(api, objects, method, path, scope):
    url = path.format(**objects)
    response = getattr(api(scope), method)(url, {}, format="json")
    # Past the scope: found, or "not yours" (404), or the body's own 400; never a 403.
    assert response.status_code in {200, 400, 404}, response.content


@pytest.mark.parametrize(("method", "path", "scope"), ENDPOINTS)
def test_no_token_or_a_bad_one_is_401(objects, method, path, scope):
    url = path.format(**objects)
    assert getattr(APIClient(), method)(url).status_code == 401
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Bearer bp_not-a-real-token")
    response = getattr(bad, method)(url)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


def test_a_revoked_token_is_refused(api, make_token):
    token, secret = make_token("briefings:read")
    token.revoked_at = timezone.now()
    token.save()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert client.get("/api/v1/briefings/").status_code == 401


def test_a_token_sees_only_the_briefings_it_created(api):
    mine, theirs = api(name="telegram bot"), api(name="site widget")
    created = mine.post("/api/v1/briefings/", {"title": "Promo"}, format="json").json()
    assert theirs.get(f"/api/v1/briefings/{created['id']}/").status_code == 404
    posted = theirs.post(
        f"/api/v1/briefings/{created['id']}/messages/", {"text": "hi"}, format="json"
    )
    assert posted.status_code == 404
    assert theirs.get("/api/v1/briefings/").json()["results"] == []
    assert [b["id"] for b in mine.get("/api/v1/briefings/").json()["results"]] == [created["id"]]


def test_a_person_in_the_browsable_api_sees_what_the_back_office_shows(client):
    alice = user_in_group("alice", "Producers")
    bob = user_in_group("bob", "Producers")
    own = project_create(title="Alice's", language="ru", producer=alice)
    other = project_create(title="Bob's", language="ru", producer=bob)
    client.force_login(alice)
    assert client.get(f"/api/v1/briefings/{own.pk}/").status_code == 200
    assert client.get(f"/api/v1/briefings/{other.pk}/").status_code == 404
    assert client.get("/api/v1/leads/").status_code == 403  # a producer has no lead scope
    page = client.get("/api/v1/briefings/", headers={"Accept": "text/html"})
    assert b"Alice&#x27;s" in page.content or b"Alice's" in page.content


def test_errors_have_one_shape_with_fields(api):
    client = api()
    response = client.post("/api/v1/briefings/", {"language": "xx"}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert set(error["fields"]) == {"title", "language"}
    created = client.post("/api/v1/briefings/", {"title": "T"}, format="json").json()
    empty = client.post(
        f"/api/v1/briefings/{created['id']}/messages/", {"text": "  "}, format="json"
    )
    assert empty.status_code == 400
    assert empty.json()["error"]["fields"] == {"text": "must not be blank"}
    bad_after = client.get(f"/api/v1/briefings/{created['id']}/events/", {"after": "x"})
    assert bad_after.json()["error"]["fields"] == {"after": "a whole number"}
    assert client.get("/api/v1/briefs/", {"since": "yesterday"}).status_code == 400


def test_a_form_body_is_refused_json_is_expected(api):
    response = api().post("/api/v1/briefings/", {"title": "T"})  # multipart
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"


def test_requests_over_the_rate_are_429_per_token(api, monkeypatch):
    from django.core.cache import cache

    cache.clear()
    monkeypatch.setattr(PerCallerThrottle, "THROTTLE_RATES", {"api": "3/min"})
    first, second = api("briefings:read", name="a"), api("briefings:read", name="b")
    codes = [first.get("/api/v1/briefings/").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    limited = first.get("/api/v1/briefings/")
    assert limited.json()["error"]["code"] == "throttled"
    assert "Retry-After" in limited.headers
    assert second.get("/api/v1/briefings/").status_code == 200  # its own budget
    cache.clear()


def test_the_token_secret_is_stored_only_as_a_hash(make_token):
    token, secret = make_token("briefs:read")
    stored = ApiToken.objects.get(pk=token.pk)
    assert secret.startswith("bp_")
    assert secret not in (stored.key_hash, stored.prefix)
    assert secret.startswith(stored.prefix)


def test_unknown_scopes_are_refused(db):
    from django.core.exceptions import ValidationError

    token = ApiToken(name="x", scopes=["briefs:read", "everything"])
    token.issue()
    with pytest.raises(ValidationError, match="everything"):
        token.full_clean()


def test_a_body_over_the_upload_limit_is_413_in_the_error_shape(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    response = api().post("/api/v1/briefings/", {"title": "x" * 20_000}, format="json")
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"
