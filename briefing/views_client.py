"""The client's chat page: only the conversation, in the client's language; works with
JavaScript off (a plain form post and a reload), and with htmx it polls for the reply."""

from __future__ import annotations

import math
import secrets

from django.db.models import Max
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from briefing.access import project_for_client
from briefing.errors import ApplicationError
from briefing.models import Turn
from briefing.services import client_message_receive
from briefing.texts import text as code_text
from config.client_ip import client_ip

# The client sees these roles only; fields, events, prompts and notes never reach the page.
VISIBLE_ROLES = (Turn.Role.CLIENT, Turn.Role.AGENT, Turn.Role.PRODUCER)


def _context(project, *, error: str = "", draft: str = "") -> dict:
    turns = list(
        project.turns.filter(role__in=VISIBLE_ROLES)
        .order_by("seq")
        .only("project_id", "seq", "role", "text", "status")
    )
    pending = any(
        t.role == Turn.Role.CLIENT and t.status in (Turn.Status.RECEIVED, Turn.Status.PROCESSING)
        for t in turns
    )
    return {
        "project": project,
        "turns": turns,
        "pending": pending,
        "last_seq": turns[-1].seq if turns else 0,
        "error": error,
        # The message comes back into the form when it was refused, so nothing typed is lost.
        "draft": draft,
        "form_key": secrets.token_urlsafe(16),
        "page_language": project.language,
        "texts": {name: code_text(name, project.language) for name in CLIENT_TEXTS},
    }


CLIENT_TEXTS = ("chat_placeholder", "chat_send", "chat_typing", "chat_welcome")


# The refusals that are not the client's text being wrong.
REFUSAL_STATUS = {"throttled": 429, "idempotency_key_reused": 409}


@require_http_methods(["GET", "POST"])
def client_chat(request: HttpRequest, token: str) -> HttpResponse:
    project = project_for_client(token)
    if request.method == "POST":
        text = request.POST.get("text", "")
        try:
            client_message_receive(
                project=project,
                text=text,
                idempotency_key=request.POST.get("idempotency_key"),
                # Behind LOGIN_TRUSTED_PROXIES proxies, the address the outermost one saw.
                sender_address=client_ip(request),
                channel="page",
            )
        except ApplicationError as error:
            return _refused(request, project, error, draft=text)
        # A repeated form (its key already stored) gets the same answer as the first.
        if request.htmx:
            return render(request, "briefing/client_chat.html#posted", _context(project))
        return redirect("client_chat", token=token)
    return render(request, "briefing/client_chat.html", _context(project))


def _refused(request: HttpRequest, project, error: ApplicationError, *, draft: str) -> HttpResponse:
    """The conversation with the refusal in place, in the client's language where the
    client can act on it, and the message back in a fresh form."""
    message = error.message
    if error.code == "throttled":
        minutes = math.ceil(error.extra["retry_after_s"] / 60)
        message = code_text("chat_rate_limited", project.language).format(minutes=minutes)
    elif error.code == "idempotency_key_reused":
        message = code_text("chat_form_used", project.language)
    template = "briefing/client_chat.html" + ("#posted" if request.htmx else "")
    response = render(
        request,
        template,
        _context(project, error=message, draft=draft),
        status=REFUSAL_STATUS.get(error.code, 400),
    )
    if "retry_after_s" in error.extra:
        response["Retry-After"] = str(error.extra["retry_after_s"])
    return response


def client_messages(request: HttpRequest, token: str) -> HttpResponse:
    """The conversation fragment for polling; 204 (htmx swaps nothing) while nothing is new
    since `after`, so a waiting page costs one small query a second."""
    project = project_for_client(token)
    after = request.GET.get("after", "")
    if after.isdigit():
        last = project.turns.filter(role__in=VISIBLE_ROLES).aggregate(last=Max("seq"))["last"]
        if int(after) == (last or 0):
            return HttpResponse(status=204)
    return render(request, "briefing/client_chat.html#conversation", _context(project))
