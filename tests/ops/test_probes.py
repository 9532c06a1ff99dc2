"""/healthz, /readyz and /metrics in process: what each says when a part is missing, that
they need no login and answer any Host header, and that /metrics speaks Prometheus' format
with figures read from the rows."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from briefing.models import Turn
from briefing.services import project_create, turn_receive
from ops.models import ProcessHeartbeat


def _beat(kind: str, seconds_ago: float, name: str = "w1@host") -> None:
    ProcessHeartbeat.objects.update_or_create(
        kind=kind, name=name, defaults={"seen_at": timezone.now() - timedelta(seconds=seconds_ago)}
    )


def test_healthz_answers_without_login_or_a_known_host(client):
    response = client.get("/healthz", HTTP_HOST="10.9.8.7")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_readyz_names_what_is_missing_without_heartbeats(client):
    response = client.get("/readyz", HTTP_HOST="10.9.8.7")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert sorted(body["missing"]) == ["beat", "worker"]
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["migrations"]["ok"] is True
    assert body["checks"]["broker"] == {"ok": True, "transport": "filesystem"}


@pytest.mark.django_db
def test_readyz_is_ok_with_a_live_worker_and_a_recent_beat(client):
    _beat("worker", 5)
    _beat("beat", 20, name="beat")
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert "missing" not in body
    assert body["checks"]["worker"]["live"] == 1
    assert body["checks"]["beat"]["period_s"] == 60.0


@pytest.mark.django_db
def test_readyz_refuses_a_stale_worker_and_a_beat_past_its_period(client, settings):
    settings.OPS_WORKER_HEARTBEAT_S = 10
    _beat("worker", 31)
    _beat("beat", 61, name="beat")
    body = client.get("/readyz").json()
    assert sorted(body["missing"]) == ["beat", "worker"]
    assert body["checks"]["beat"]["error"] == "the beat has not run within its period"


@pytest.mark.django_db
def test_readyz_says_the_broker_is_missing_without_its_address(client, settings):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    from celery import current_app

    url = f"redis://secret-user:secret-pw@127.0.0.1:{port}/0"
    settings.CELERY_BROKER_URL = url
    saved = current_app.conf.broker_url
    current_app.conf.broker_url = url
    try:
        response = client.get("/readyz")
    finally:
        current_app.conf.broker_url = saved
    assert response.status_code == 503
    assert "broker" in response.json()["missing"]
    assert "secret" not in response.content.decode()


def test_probes_take_get_only(client):
    assert client.post("/readyz").status_code == 405


@pytest.mark.django_db
def test_metrics_are_closed_without_a_token(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404


@pytest.mark.django_db
def test_metrics_want_the_right_bearer_token(client, settings):
    settings.METRICS_TOKEN = "right-token"
    wrong = client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong-token")
    assert wrong.status_code == 401
    assert wrong["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/metrics").status_code == 401


@pytest.mark.django_db
def test_metrics_count_the_turns_calls_and_waiting_work(
    client, settings, producer, django_capture_on_commit_callbacks
):
    settings.METRICS_TOKEN = "right-token"
    project = project_create(title="Metrics", language="ru", producer=producer)
    with django_capture_on_commit_callbacks(execute=True):  # processed in process (eager)
        turn_receive(project=project, text="Здравствуйте, нужен ролик")
    waiting = turn_receive(project=project, text="и ещё вопрос")  # queued, not processed
    Turn.objects.filter(pk=waiting.pk).update(created_at=timezone.now() - timedelta(seconds=90))

    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer right-token")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    families = {f.name: f for f in text_string_to_metric_families(response.content.decode())}
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in families.values()
        for s in family.samples
    }
    assert families["briefing_turns_processed"].type == "counter"
    assert samples[("briefing_turns_processed_total", (("status", "done"),))] == 1
    assert families["briefing_turn_latency_seconds"].type == "histogram"
    assert samples[("briefing_turn_latency_seconds_count", ())] == 1
    assert samples[("briefing_turn_latency_seconds_bucket", (("le", "+Inf"),))] == 1
    assert samples[("briefing_turns_waiting", ())] == 1
    assert samples[("briefing_turn_oldest_waiting_seconds", ())] >= 90
    rules = [v for (n, labels), v in samples.items()
             if n == "llm_calls_total" and ("provider", "rules") in labels]  # fmt: skip
    assert sum(rules) >= 1
    assert samples[("llm_rules_agent_share", ())] == 1.0
    assert samples[("dlq_dead_letters_open", ())] == 0
    assert samples[("webhook_deliveries_failing", (("state", "failed"),))] == 0
    # The embedded filesystem queue holds the waiting turn's task.
    assert samples[("celery_queue_depth", (("queue", "celery"),))] >= 0
