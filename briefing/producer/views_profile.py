"""The back-office user's own settings: the navigation's language switcher."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from briefing.producer.profiles import profile_language_set


@require_POST
def language_set(request: HttpRequest) -> HttpResponse:
    """Django's `set_language` (the cookie, back to the page), and for a logged-in user the
    choice kept on their profile for every device."""
    response = set_language(request)
    profile_language_set(request=request, language=request.POST.get("language", ""))
    return response
