"""Site-wide answers that belong to no app: /favicon.ico (browsers ask for it on every page,
whatever the page links), /api/ (the way to the API's docs) and the language switcher."""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET, require_POST
from django.views.i18n import set_language

from briefing.profiles import profile_language_set

FAVICON = settings.BASE_DIR / "static" / "favicon.ico"


@require_GET
@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    return FileResponse(FAVICON.open("rb"), content_type="image/x-icon")


@require_GET
def api_index(request: HttpRequest) -> HttpResponse:
    """/api/ is not an endpoint: it leads to the docs of the current version."""
    return redirect("api:docs")


@require_POST
def language_set(request: HttpRequest) -> HttpResponse:
    """The navigation's language switcher: Django's `set_language` (the cookie, back to the
    page), and for a logged-in user the choice kept on their profile for every device."""
    response = set_language(request)
    profile_language_set(request=request, language=request.POST.get("language", ""))
    return response
