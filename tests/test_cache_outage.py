"""A Redis cache outage (CACHE_URL) refuses no client: a chat POST and an API POST are
stored and accepted while Redis is down, the per-link limit still holds in process, a
producer's session comes from the database, and the cache uses Redis again once it answers."""

from __future__ import annotations

import pytest
import redis
from rest_framework.test import APIClient

from api.models import ApiToken
from briefing.models import Project, Turn
from briefing.services import project_create
from config import cache as resilient

pytestmark = [pytest.mark.services, pytest.mark.django_db]


@pytest.fixture
def redis_cache(private_redis, settings, monkeypatch):
    """The settings that CACHE_URL=<a private Redis> gives, on a Redis the test can stop."""
    location = f"{private_redis.url}/1"
    settings.CACHES = {
        "default": {"BACKEND": "config.cache.ResilientRedisCache", "LOCATION": location},
        "sessions": {
            "BACKEND": "config.cache.ResilientRedisCache",
            "LOCATION": location,
            "OPTIONS": {"FALLBACK": "miss"},
        },
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    settings.SESSION_CACHE_ALIAS = "sessions"
    monkeypatch.setattr(resilient, "RETRY_AFTER_S", 0.0)
    return private_redis


def client_texts(project) -> list[str]:
    return list(project.turns.filter(role=Turn.Role.CLIENT).values_list("text", flat=True))


def test_chat_and_api_messages_are_stored_while_redis_is_down(redis_cache, client):
    token = ApiToken(name="planner", scopes=["briefings:read", "briefings:write"])
    secret = token.issue()
    token.save()
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    created = api.post("/api/v1/briefings/", {"title": "Outage"}, format="json").json()
    project = Project.objects.get(pk=created["id"])
    redis_cache.stop()

    page = client.post(f"/c/{project.client_token}/", {"text": "Здравствуйте, нужен ролик"})
    assert page.status_code == 302
    accepted = api.post(
        f"/api/v1/briefings/{project.pk}/messages/", {"text": "Бюджет 500к"}, format="json"
    )
    assert accepted.status_code == 202
    assert client_texts(project) == ["Здравствуйте, нужен ролик", "Бюджет 500к"]


def test_the_per_link_limit_still_holds_in_process_during_the_outage(
    redis_cache, client, producer, settings
):
    settings.CLIENT_CHAT_RATE_PER_LINK = ["3/min"]
    project = project_create(title="Flood", language="ru", producer=producer)
    redis_cache.stop()
    codes = [client.post(f"/c/{project.client_token}/", {"text": f"m{n}"}).status_code
             for n in range(5)]  # fmt: skip
    assert codes == [302, 302, 302, 429, 429]
    assert client_texts(project) == ["m0", "m1", "m2"]


def test_a_producer_stays_logged_in_during_the_outage(redis_cache, client, producer):
    client.force_login(producer)
    assert client.get("/").status_code == 200
    redis_cache.stop()
    assert client.get("/").status_code == 200


def test_the_cache_uses_redis_again_once_it_answers(redis_cache):
    from django.core.cache import cache

    redis_cache.stop()
    cache.set("while-down", "local")
    assert cache.get("while-down") == "local"  # the in-process fallback
    redis_cache.start()
    cache.set("after", "shared")

    shared = redis.Redis.from_url(f"{redis_cache.url}/1")
    assert any(b"after" in key for key in shared.scan_iter())
    assert cache.get("while-down") is None  # Redis again, not the fallback
