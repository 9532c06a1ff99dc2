"""The probes and the metrics. /healthz and /readyz need no login and answer before the
session, the language or the host check (ops.middleware); /metrics wants METRICS_TOKEN."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, generate_latest

from ops.health import readiness
from ops.metrics import metrics_registry


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness: the process answers. Nothing else is asked (a database outage must not
    get every web process restarted)."""
    return _no_store(JsonResponse({"status": "ok"}))


def readyz(request: HttpRequest) -> JsonResponse:
    ready, body = readiness()
    return _no_store(JsonResponse(body, status=200 if ready else 503))


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    token = settings.METRICS_TOKEN
    if not token:  # closed: as if there were no such page
        return JsonResponse({"error": "metrics are off: set METRICS_TOKEN"}, status=404)
    sent = request.headers.get("Authorization", "")
    if not hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
        response = JsonResponse({"error": "a valid bearer token is required"}, status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    # The classic text format (0.0.4): every Prometheus version and agent reads it.
    body = generate_latest(metrics_registry())
    return HttpResponse(body, content_type=CONTENT_TYPE_PLAIN_0_0_4)


def _no_store(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"
    return response
