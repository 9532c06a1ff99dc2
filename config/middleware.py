"""Request middleware: refuses a URL holding text no view can look a thing up by (a NUL
character in the path or the query string, which no PostgreSQL text holds), answered 400
before any view or the database sees it; and picks the back office's language."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.views.defaults import bad_request

from core.input import text_problem

# Paths whose callers read JSON errors: the API and CRM's inbound endpoints.
JSON_PATH_PREFIXES = ("/api/", "/crm/inbound/")


def _url_problem(request: HttpRequest) -> tuple[str, str]:
    """(where, why) of the first part of the URL that cannot be used, or ("", "")."""
    problem = text_problem(request.path_info)
    if problem:
        return "$path", problem
    for name, values in request.GET.lists():
        for text in (name, *values):
            problem = text_problem(text)
            if problem:
                return _quoted(name), problem
    return "", ""


def _quoted(name: str) -> str:
    """A parameter's name as an error may quote it."""
    return name.replace("\x00", "\\x00")


class UrlTextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        where, problem = _url_problem(request)
        if not problem:
            return self.get_response(request)
        message = f"The URL is not valid: {'its path' if where == '$path' else where} {problem}."
        if request.path_info.startswith(JSON_PATH_PREFIXES):
            error = {"code": "invalid", "message": message, "fields": {where: problem}}
            return JsonResponse({"error": error}, status=400)
        return bad_request(request, BadRequest(message))


# The session key holding the language a logged-in user chose (briefing.profiles writes it at
# login and when they switch).
SESSION_LANGUAGE = "staff_language"
# The languages the back office speaks (settings.LANGUAGES), as codes.
LANGUAGE_CODES = frozenset(code for code, _ in settings.LANGUAGES)


def _session_language(request: HttpRequest) -> str:
    session = getattr(request, "session", None)
    language = session.get(SESSION_LANGUAGE, "") if session is not None else ""
    return language if language in LANGUAGE_CODES else ""


class BackOfficeLocaleMiddleware(LocaleMiddleware):
    """The producer's language for every page: the one they chose (kept on their profile and
    copied into their session at login), else the switcher's cookie, else the browser's,
    else Russian. The API and the inbound endpoints answer machines, whose error texts stay
    English whatever the caller's Accept-Language says."""

    def process_request(self, request: HttpRequest) -> None:
        if request.path_info.startswith(JSON_PATH_PREFIXES):
            translation.activate("en")
            request.LANGUAGE_CODE = "en"
            return
        chosen = _session_language(request)
        if chosen:
            translation.activate(chosen)
            request.LANGUAGE_CODE = chosen
            return
        super().process_request(request)
