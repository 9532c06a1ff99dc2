"""The client's chat page: only the conversation, in the client's language; works with
JavaScript off (a plain form post and a reload), and with htmx it polls for the reply."""

from __future__ import annotations

from django.db.models import Max
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from briefing.access import project_for_client
from briefing.errors import ApplicationError
from briefing.models import Turn
from briefing.services import turn_receive
from briefing.texts import text as code_text

# The client sees these roles only; fields, events, prompts and notes never reach the page.
VISIBLE_ROLES = (Turn.Role.CLIENT, Turn.Role.AGENT, Turn.Role.PRODUCER)


def _context(project, *, error: str = "") -> dict:
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
        "page_language": project.language,
        "texts": {name: code_text(name, project.language) for name in CLIENT_TEXTS},
    }


CLIENT_TEXTS = ("chat_placeholder", "chat_send", "chat_typing", "chat_welcome")


@require_http_methods(["GET", "POST"])
def client_chat(request: HttpRequest, token: str) -> HttpResponse:
    project = project_for_client(token)
    if request.method == "POST":
        try:
            turn_receive(project=project, text=request.POST.get("text", ""))
        except ApplicationError as error:
            template = "briefing/client_chat.html" + ("#conversation" if request.htmx else "")
            return render(request, template, _context(project, error=error.message), status=400)
        if request.htmx:
            return render(request, "briefing/client_chat.html#conversation", _context(project))
        return redirect("client_chat", token=token)
    return render(request, "briefing/client_chat.html", _context(project))


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
