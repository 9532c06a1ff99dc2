"""Answers the load balancer's probes first: no session, language, host or CSRF work, so
they stay cheap and answer whatever Host header the prober sends."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from ops.views import healthz, readyz

PROBES = {"/healthz": healthz, "/readyz": readyz}


class ProbeMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        probe = PROBES.get(request.path_info.rstrip("/"))
        if probe is None:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            return JsonResponse({"error": "GET only"}, status=405, headers={"Allow": "GET"})
        return probe(request)
