"""The back-office user's own settings: the language of the pages, chosen once and kept.

The choice is stored on the user's profile and copied into their session when they log in,
so every page finds it without a query; on a new device it wins over the browser's."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from briefing.models import StaffProfile
from config.middleware import LANGUAGE_CODES, SESSION_LANGUAGE


def profile_language_set(*, request: HttpRequest, language: str) -> None:
    """Remember `language` for the logged-in user (profile and session); a code the site
    does not offer, or an anonymous visitor, changes nothing here."""
    user = request.user
    if language not in LANGUAGE_CODES or not user.is_authenticated:
        return
    StaffProfile.objects.update_or_create(user=user, defaults={"language": language})
    request.session[SESSION_LANGUAGE] = language


def profile_language_restore(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """On login (the `user_logged_in` signal): the user's chosen language into the session."""
    language = (
        StaffProfile.objects.filter(user=user).values_list("language", flat=True).first() or ""
    )
    if language in LANGUAGE_CODES and request is not None:
        request.session[SESSION_LANGUAGE] = language
