"""Site-wide answers that belong to no app: /favicon.ico (browsers ask for it on every page,
whatever the page links) and /api/ (the way to the API's docs)."""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

FAVICON = settings.BASE_DIR / "static" / "favicon.ico"


@require_GET
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    return FileResponse(FAVICON.open("rb"), content_type="image/x-icon")


@require_GET
def api_index(request: HttpRequest) -> HttpResponse:
    """/api/ is not an endpoint: it leads to the docs of the current version."""
    return redirect("api:docs")
