"""Request middleware: refuses a request holding text no view can read, answered 400 before
any view, the CSRF check or the database sees it: a NUL character in the path or the query
string (no PostgreSQL text holds one), or a form body declared in a charset other than
UTF-8 (Django refuses to read such a form with BadRequest wherever it is first read, the
CSRF check included, and its 400 page then read it again: a 500); and picks the back
office's language."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.views.defaults import ERROR_PAGE_TEMPLATE

from core.input import text_problem

# Paths whose callers read JSON errors: the API and CRM's inbound endpoints.
JSON_PATH_PREFIXES = ("/api/", "/crm/inbound/")


FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _charset_problem(request: HttpRequest) -> str:
    """Why a form body cannot be read, or "": its declared charset must be UTF-8."""
    charset = request.content_params.get("charset") if request.content_params else None
    if request.content_type not in FORM_TYPES or not charset:
        return ""
    if charset.lower() == "utf-8":  # Django reads a form in no other spelling or charset
        return ""
    return f"is declared as {charset[:40]!r}; a form must be sent as UTF-8 (charset=utf-8)"


def _request_problem(request: HttpRequest) -> tuple[str, str]:
    """(where, why) of the first part of the request that cannot be used, or ("", "")."""
    problem = _charset_problem(request)
    if problem:
        return "$body", problem
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


class RequestTextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        where, problem = _request_problem(request)
        if not problem:
            return self.get_response(request)
        part = {"$path": "The URL is not valid: its path", "$body": "The body"}.get(
            where, f"The URL is not valid: {where}"
        )
        message = f"{part} {problem}."
        if request.path_info.startswith(JSON_PATH_PREFIXES):
            error = {"code": "invalid", "message": message, "fields": {where: problem}}
            return JsonResponse({"error": error}, status=400)
        # Django's page, not its view: the view's CSRF decorator would read the form again.
        page = ERROR_PAGE_TEMPLATE % {"title": "Bad Request (400)", "details": ""}
        return HttpResponseBadRequest(page)


# The session key holding the language a logged-in user chose (briefing.producer.profiles writes
# it at login and when they switch).
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
