"""The client's chat page: only the conversation, in the client's language; works with
JavaScript off (a plain form post, a redirect to the newest message's anchor and a reload),
and with htmx it polls for new messages and appends them."""

from __future__ import annotations

import math
import secrets

from django.db.models import Max
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from briefing.common.texts import text as code_text
from briefing.models import Project, RevokedClientLink, Turn
from briefing.services import MAX_CLIENT_TEXT, client_message_receive
from config.client_ip import client_ip
from core.errors import ApplicationError
from core.input import plain_int

# The client sees these roles only; fields, events, prompts and notes never reach the page.
VISIBLE_ROLES = (Turn.Role.CLIENT, Turn.Role.AGENT, Turn.Role.PRODUCER)
TEMPLATE = "briefing/client_chat.html"
CLIENT_TEXTS = (
    "chat_placeholder", "chat_send", "chat_typing", "chat_welcome", "chat_producer_will_answer",
    "chat_new_messages",
)  # fmt: skip
CLIENT_LANGUAGES = ("ru", "uk", "en")


def _author_name(turn: Turn) -> str:
    author = turn.author
    if author is None:
        return ""
    return author.get_full_name() or author.get_username()


def _state(project: Project) -> dict:
    """What the page says besides the messages, and the compact string the poll compares:
    the typing indicator only while a turn is being processed; "a producer will answer you"
    while the briefing is held by a person or a message waits for one."""
    last_client = (
        project.turns.filter(role=Turn.Role.CLIENT)
        .order_by("-seq")
        .values_list("status", flat=True)
    ).first()
    held = bool(project.taken_over_by_id) or project.status == Project.Status.PAUSED
    waits_for_person = last_client == Turn.Status.WAITING_PRODUCER
    typing = last_client == Turn.Status.PROCESSING and not held
    pending = last_client in (Turn.Status.RECEIVED, Turn.Status.PROCESSING)
    person = (held and last_client is not None) or waits_for_person
    return {
        "typing": typing,
        "pending": pending and not held,
        "producer_will_answer": person,
        "state": f"{'t' if typing else ''}{'p' if pending else ''}{'h' if person else ''}-",
    }


def _context(project, *, error: str = "", draft: str = "", after: int | None = None) -> dict:
    turns = list(
        project.turns.filter(role__in=VISIBLE_ROLES)
        .select_related("author")
        .order_by("seq")
        .only("project_id", "seq", "role", "text", "status", "author")
    )
    for turn in turns:
        turn.author_name = _author_name(turn) if turn.role == Turn.Role.PRODUCER else ""
    return {
        "project": project,
        "turns": turns,
        "new_turns": [t for t in turns if after is not None and t.seq > after],
        "last_seq": turns[-1].seq if turns else 0,
        "error": error,
        # The message comes back into the form when it was refused, so nothing typed is lost.
        "draft": draft,
        "form_key": secrets.token_urlsafe(16),
        "page_language": project.language,
        "texts": {name: code_text(name, project.language) for name in CLIENT_TEXTS},
        **_state(project),
    }


# The refusals that are not the client's text being wrong.
REFUSAL_STATUS = {"throttled": 429, "idempotency_key_reused": 409}


def _after(request: HttpRequest) -> int | None:
    """The last message the page shows (the poller's, sent with the form); None if unknown."""
    return plain_int(request.POST.get("after", "") or request.GET.get("after", ""))


def _gone(request: HttpRequest, token: str) -> HttpResponse:
    """A link that leads nowhere, said in the client's language: 410 for a link a producer
    rotated or revoked (the briefing's language), 404 for one that never existed (the
    browser's language). Rendered here, never Django's debug page."""
    revoked = (
        RevokedClientLink.objects.select_related("project").filter(token=token).first()
        if token
        else None
    )
    if revoked is not None:
        language, status, name = revoked.project.language, 410, "chat_link_revoked"
    else:
        language, status, name = _browser_language(request), 404, "chat_link_unknown"
    return render(
        request,
        "briefing/client_gone.html",
        {"message": code_text(name, language), "page_language": language},
        status=status,
    )


def _browser_language(request: HttpRequest) -> str:
    header = request.headers.get("Accept-Language", "")
    for part in header.split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in CLIENT_LANGUAGES:
            return code
    return "ru"


def _project(token: str) -> Project | None:
    return Project.objects.filter(client_token=token).first() if token else None


@require_http_methods(["GET", "POST"])
def client_chat(request: HttpRequest, token: str) -> HttpResponse:
    project = _project(token)
    if project is None:
        return _gone(request, token)
    if request.method == "POST":
        text = request.POST.get("text", "")
        try:
            receipt = client_message_receive(
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
            after = _after(request)
            context = _context(project, after=receipt.turn.seq - 1 if after is None else after)
            return render(request, f"{TEMPLATE}#update", {**context, "with_composer": True})
        # Without JavaScript: the page again, at the newest message.
        url = reverse("client_chat", kwargs={"token": token})
        return redirect(f"{url}#latest")
    return render(request, TEMPLATE, _context(project))


def _refused(request: HttpRequest, project, error: ApplicationError, *, draft: str) -> HttpResponse:
    """The conversation with the refusal in place, in the client's language, and the message
    back in a fresh form."""
    language = project.language
    if error.code == "throttled":
        minutes = math.ceil(error.extra["retry_after_s"] / 60)
        message = code_text("chat_rate_limited", language).format(minutes=minutes)
    elif error.code == "idempotency_key_reused":
        message = code_text("chat_form_used", language)
    elif error.extra.get("reason") == "too_long":
        message = code_text("chat_too_long", language).format(limit=MAX_CLIENT_TEXT)
    else:
        message = code_text("chat_empty", language)
    status = REFUSAL_STATUS.get(error.code, 400)
    if request.htmx:
        context = _context(project, error=message, draft=draft, after=_after(request))
        response = render(
            request, f"{TEMPLATE}#update", {**context, "with_composer": True}, status=status
        )
    else:
        response = render(
            request, TEMPLATE, _context(project, error=message, draft=draft), status=status
        )
    if "retry_after_s" in error.extra:
        response["Retry-After"] = str(error.extra["retry_after_s"])
    return response


def client_messages(request: HttpRequest, token: str) -> HttpResponse:
    """The poll: 204 (htmx swaps nothing) while no message was added since `after` and the
    page's `state` (typing, waiting for a person) still holds, so a waiting page costs two
    small queries a second; else the new messages to append and the state."""
    project = _project(token)
    if project is None:
        return _gone(request, token)
    after = plain_int(request.GET.get("after", ""))
    if after is not None:
        last = project.turns.filter(role__in=VISIBLE_ROLES).aggregate(last=Max("seq"))["last"]
        if after == (last or 0) and request.GET.get("state") == _state(project)["state"]:
            return HttpResponse(status=204)
    context = _context(project, after=after or 0)
    return render(request, f"{TEMPLATE}#update", context)
