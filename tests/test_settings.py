"""Settings that are derived rather than set: the claim leases follow the model budgets, the
session store follows the cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
READ = (
    "from config import settings as s; "
    "print(s.LLM_CALL_BUDGET_S, s.BRIEFING_TURN_BUDGET_S, s.BRIEFING_TURN_LEASE_S, "
    "s.CRM_MESSAGE_LEASE_S)"
)


def _settings(tmp_path: Path, read: str = READ, **environ: str) -> subprocess.CompletedProcess:
    names = ("LLM_", "BRIEFING_", "CRM_", "CELERY_TASK_")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(names)}
    env = {**clean, "SECRET_KEY": "x", "VAR_DIR": str(tmp_path), **environ}
    return subprocess.run(
        [sys.executable, "-c", read], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


def test_the_leases_are_the_budgets_plus_the_margin(tmp_path):
    default = _settings(tmp_path)
    assert default.stdout.split() == ["100.0", "100.0", "130", "130"], default.stderr
    tuned = _settings(
        tmp_path, LLM_CALL_BUDGET_S="40", BRIEFING_TURN_BUDGET_S="70", LLM_LEASE_MARGIN_S="15"
    )
    assert tuned.stdout.split() == ["40.0", "70.0", "85", "55"], tuned.stderr


def test_a_lease_set_by_hand_or_one_a_task_cannot_hold_is_refused(tmp_path):
    by_hand = _settings(tmp_path, BRIEFING_TURN_LEASE_S="3")
    assert by_hand.returncode != 0
    assert "BRIEFING_TURN_LEASE_S is derived" in by_hand.stderr
    too_long = _settings(tmp_path, BRIEFING_TURN_BUDGET_S="300")
    assert too_long.returncode != 0
    assert "CELERY_TASK_SOFT_TIME_LIMIT (240 s) must exceed" in too_long.stderr


def test_a_bad_pool_setting_stops_the_start(tmp_path):
    good = _settings(tmp_path, LLM_POOLS="fast=openai-fast; strong=gigachat-max")
    assert good.returncode == 0, good.stderr
    for name, value, message in (
        ("LLM_POOLS", "fast=mistral", "unknown provider 'mistral'"),
        ("LLM_POOL_ROUTES", "complex=huge", "LLM_POOLS lacks"),
        ("LLM_TURN_CALL_CAPS", "simple=0", "simple must be at least 1"),
    ):
        environ = {"LLM_POOLS": "fast=openai-fast; strong=gigachat-max", name: value}
        bad = _settings(tmp_path, **environ)
        assert bad.returncode != 0
        assert message in bad.stderr


def test_sessions_are_cached_only_in_a_cache_every_process_shares(tmp_path):
    read = "from config import settings as s; print(s.SESSION_ENGINE)"
    for cache_url, engine in (("", "db"), ("redis://127.0.0.1:6379/1", "cached_db")):
        found = _settings(tmp_path, read=read, CACHE_URL=cache_url)
        assert found.stdout.strip() == f"django.contrib.sessions.backends.{engine}", found.stderr


@pytest.mark.django_db
def test_a_session_cached_in_redis_is_read_without_a_query_and_ends_everywhere(
    settings, redis_url, manager
):
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                    "LOCATION": redis_url}
    }  # fmt: skip
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    first, second = Client(), Client()
    first.force_login(manager)
    second.cookies = first.cookies  # the same session, as from another web process
    assert first.get("/").status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert second.get("/").status_code == 200
    assert not [q for q in queries.captured_queries if "django_session" in q["sql"]]
    first.post("/logout/")
    assert second.get("/").status_code == 302  # ended for every process sharing the cache
