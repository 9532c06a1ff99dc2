"""The dead-letter review for managers: the groups by error signature, the list, one letter's
detail, and the actions on it (fix, replay, discard)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from config.http import HtmxHttpRequest
from core.errors import ApplicationError
from dlq import services
from dlq.fix_form import (
    AnswerForm,
    answer_start,
    errors_by_field,
    errors_unplaced,
    fix_data_from_post,
    fix_fields,
)
from dlq.help_requests import (
    dead_letter_help_request,
    help_request_of,
    open_letters_with_help_requested,
)
from dlq.models import DeadLetter
from dlq.selectors import (
    DEAD_LETTER_FILTERS,
    dead_letter_choices,
    dead_letter_groups,
    dead_letters_filtered,
)
from dlq.sources import (
    dead_letter_answer_form,
    dead_letter_kind_label,
    dead_letter_links,
    dead_letter_readable_by,
    dead_letter_source,
    dead_letter_supports_actions,
)

VIEW_LETTERS = "dlq.view_deadletter"
CHANGE_LETTERS = "dlq.change_deadletter"
LIST_TEMPLATE = "dlq/dead_letters.html"
DETAIL_TEMPLATE = "dlq/dead_letter_detail.html"
PAGE_SIZE = 50


# --- dead letters ----------------------------------------------------------------------------


def _get_dead_letter_for_user(request: HtmxHttpRequest, pk: int) -> DeadLetter:
    # The permission decorators already keep out whoever may not review dead letters.
    return get_object_or_404(DeadLetter.objects.select_related("resolved_by", "call"), pk=pk)


def _letter_readable_without_review(request: HtmxHttpRequest, pk: int) -> DeadLetter:
    """A letter its source lets this user read without the review permission (a producer,
    the letters of their own briefings' turns); any other is a 404."""
    letter = get_object_or_404(DeadLetter.objects.select_related("resolved_by", "call"), pk=pk)
    if not dead_letter_readable_by(letter, request.user):
        raise Http404("No such dead letter")
    return letter


def _with_trend_heights(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each day of a group's trend gets a bar height in percent of that group's busiest day."""
    for group in groups:
        peak = max((day["count"] for day in group["trend"]), default=0)
        for day in group["trend"]:
            day["height"] = round(day["count"] * 100 / peak) if peak else 0
    return groups


@login_required
@permission_required(VIEW_LETTERS, raise_exception=True)
@require_GET
def dead_letters(request: HtmxHttpRequest) -> HttpResponse:
    """The open dead letters grouped by error signature, or with `?view=list` every dead letter,
    filtered by `status`, `schema`, `provider`, `source_kind`, `signature` and searched in the
    client's text with `q`. For htmx only the table is returned."""
    view = "list" if request.GET.get("view") == "list" else "groups"
    params = {name: request.GET.get(name, "").strip() for name in [*DEAD_LETTER_FILTERS, "q"]}
    context: dict[str, Any] = {"view": view, "params": params, "statuses": DeadLetter.Status}
    if view == "groups":
        status = params["status"] if params["status"] in DeadLetter.Status.values else "open"
        context["status"] = status
        context["can_replay"] = status == "open" and request.user.has_perm(CHANGE_LETTERS)
        context["groups"] = _with_trend_heights(dead_letter_groups(status=status))
        asked = list(open_letters_with_help_requested()[:PAGE_SIZE])
        links = dead_letter_links(asked)
        context["help_requested"] = [(letter, links.get(letter.pk)) for letter in asked]
    else:
        page = Paginator(dead_letters_filtered(params), PAGE_SIZE).get_page(request.GET.get("page"))
        # Each letter's source as people know it (a briefing's title, not "briefing_turn 48").
        page.object_list = list(page.object_list)
        links = dead_letter_links(page.object_list)
        for letter in page.object_list:
            letter.source_link = links.get(letter.pk)
        kept = {"view": "list", **{k: v for k, v in params.items() if v}}
        context.update(
            page=page,
            page_query=urlencode(kept),
            schemas=dead_letter_choices("schema_name"),
            providers=dead_letter_choices("provider"),
            source_kinds=[
                (kind, dead_letter_kind_label(kind)) for kind in dead_letter_choices("source_kind")
            ],
        )
    template = f"{LIST_TEMPLATE}#table" if request.htmx else LIST_TEMPLATE
    return render(request, template, context)


@dataclass(frozen=True)
class Segment:
    """A piece of a model answer; `marked` when it is an offending input the errors name."""

    text: str
    marked: bool = False


def _offending_values(errors: list[dict[str, Any]]) -> list[str]:
    """The inputs the errors name, as they would be written in the answer text."""
    values = []
    for error in errors:
        value = error.get("input") if isinstance(error, dict) else None
        if value is None:
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if text and text not in values:
            values.append(text)
    return values


def _highlight(text: str, needles: list[str]) -> list[Segment]:
    """Split `text` into plain and marked segments, marking every occurrence of any needle
    (the longest one first where two start at the same place). The template escapes each
    segment, so the answer is never trusted as HTML."""
    needles = sorted(needles, key=len, reverse=True)
    segments: list[Segment] = []
    start = plain_from = 0
    while start < len(text):
        match = next((n for n in needles if text.startswith(n, start)), None)
        if match is None:
            start += 1
            continue
        if plain_from < start:
            segments.append(Segment(text[plain_from:start]))
        segments.append(Segment(match, marked=True))
        start = plain_from = start + len(match)
    if plain_from < len(text):
        segments.append(Segment(text[plain_from:]))
    return segments


def _attempts(letter: DeadLetter) -> list[dict[str, Any]]:
    """Each attempt's prompt messages beside its raw answer, the offending inputs marked."""
    needles = _offending_values(letter.errors or [])
    prompts = letter.prompt_messages or []
    answers = letter.raw_responses or []
    return [
        {
            "number": index + 1,
            "messages": prompts[index] if index < len(prompts) else [],
            "answer": answers[index] if index < len(answers) else None,
            "segments": _highlight(str(answers[index]), needles) if index < len(answers) else [],
        }
        for index in range(max(len(prompts), len(answers)))
    ]


def _detail_context(
    letter: DeadLetter,
    *,
    error: str = "",
    reason: str = "",
    fix: str | None = None,
    fix_errors: list[dict[str, Any]] | None = None,
    fix_mode: str = "fields",
    typed: dict[str, str] | None = None,
) -> dict[str, Any]:
    raw_responses = letter.raw_responses or []
    actionable = dead_letter_supports_actions(letter)
    # The editor starts from the model's last answer: most fixes are a field or two.
    fix = fix if fix is not None else (raw_responses[-1] if raw_responses else "{}")
    form = dead_letter_answer_form(letter) if actionable else None
    field_errors = fix_errors or []
    return {
        "letter": letter,
        "attempts": _attempts(letter),
        "source": dead_letter_source(letter).link(letter) if actionable else None,
        "actionable": actionable,
        # As the service sees it: a replay lost with its worker stops blocking the page.
        "replay_running": services.dead_letter_replay_running(letter),
        "actions": letter.actions.select_related("user"),
        "replays": letter.replays.all(),
        "usage": letter.usage or {},
        "error": error,
        "reason": reason,
        "fix": fix,
        # The JSON view's errors by path; the form's at their inputs, the rest above them.
        "fix_errors": field_errors if fix_mode == "json" else [],
        "fix_mode": fix_mode if form else "json",
        "fix_fields": _fix_form_fields(form, fix, typed, field_errors, fix_mode),
        "fix_form_errors": errors_unplaced(form, field_errors)
        if form and fix_mode == "fields"
        else [],
        "help_request": help_request_of(letter),
    }


def _fix_form_fields(
    form: AnswerForm | None,
    fix: str,
    typed: dict[str, str] | None,
    errors: list[dict[str, Any]],
    mode: str,
) -> list[Any]:
    """The fix form's inputs: what the manager typed after a refused form, else the values of
    the JSON (the model's last answer, or the JSON the manager tried in the advanced view)."""
    if form is None:
        return []
    placed = errors_by_field(form, errors) if mode == "fields" else {}
    return fix_fields(form, values=answer_start(fix), typed=typed, errors=placed)


@login_required
@require_GET
def dead_letter_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """One dead letter whole: the client's text, each attempt's prompt and answer, the errors
    and what was decided about it. For htmx (the poll while a replay runs) only its status.
    A producer without the review permission may read, not act on, a letter of a turn of a
    briefing they can see (the inbox links it); any other letter is a 404 to them."""
    if request.user.has_perm(VIEW_LETTERS):
        letter = _get_dead_letter_for_user(request, pk)
    else:
        letter = _letter_readable_without_review(request, pk)
    template = f"{DETAIL_TEMPLATE}#status" if request.htmx else DETAIL_TEMPLATE
    return render(request, template, _detail_context(letter))


@login_required
@permission_required(CHANGE_LETTERS, raise_exception=True)
@require_POST
def dead_letter_discard(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Discard an open dead letter with a reason. Without htmx: back to the detail page, or the
    page again with the error and status 400. With htmx: the status part, error in place."""
    letter = _get_dead_letter_for_user(request, pk)
    reason = request.POST.get("reason", "")
    try:
        letter = services.dead_letter_discard(dead_letter=letter, user=request.user, reason=reason)
    except ApplicationError as error:
        letter.refresh_from_db()
        return _status_response(request, letter, error, reason=reason)
    return _status_response(request, letter)


@login_required
@permission_required(CHANGE_LETTERS, raise_exception=True)
@require_POST
def dead_letter_fix(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Apply a corrected answer as the accepted one: the form's fields, or the raw JSON of the
    advanced view (`data`). Invalid: the errors at their fields, what was typed kept, status
    400, nothing changed. With htmx the status part is returned."""
    letter = _get_dead_letter_for_user(request, pk)
    form = None if "data" in request.POST else dead_letter_answer_form(letter)
    if form is None:
        fix = request.POST.get("data", "")
        try:
            letter = services.dead_letter_fix_apply(dead_letter=letter, data=fix, user=request.user)
        except ApplicationError as error:
            letter.refresh_from_db()
            return _status_response(
                request, letter, error, fix=fix, fix_errors=error.extra.get("fields"),
                fix_mode="json",
            )  # fmt: skip
        return _status_response(request, letter)
    posted = fix_data_from_post(form, request.POST)
    fix = json.dumps(posted.data, ensure_ascii=False, indent=2)
    try:
        if posted.blank_required:
            raise ApplicationError(
                "required fields are blank",
                extra={
                    "fields": [
                        {"path": name, "message": _("This field is required.")}
                        for name in posted.blank_required
                    ]
                },
            )
        letter = services.dead_letter_fix_apply(
            dead_letter=letter, data=posted.data, user=request.user
        )
    except ApplicationError as error:
        letter.refresh_from_db()
        fields = error.extra.get("fields")
        if fields:
            # The service's words are for logs; the manager reads theirs beside each input.
            error = ApplicationError(_("Some fields are not right; see the notes beside them."))
        return _status_response(
            request, letter, error, fix=fix, fix_errors=fields, typed=posted.typed
        )
    return _status_response(request, letter)


def _status_response(
    request: HtmxHttpRequest, letter: DeadLetter, error: ApplicationError | None = None, **extra
) -> HttpResponse:
    """After an action: without htmx back to the page (or the page with the error, 400);
    with htmx the status part."""
    if error is None and not request.htmx:
        return redirect("dlq:dead_letter_detail", pk=letter.pk)
    context = _detail_context(letter, error=error.message if error else "", **extra)
    template = f"{DETAIL_TEMPLATE}#status" if request.htmx else DETAIL_TEMPLATE
    return render(request, template, context, status=400 if error else 200)


@login_required
@permission_required(CHANGE_LETTERS, raise_exception=True)
@require_POST
def dead_letter_replay(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Queue a replay; the status part then polls until the worker's outcome arrives."""
    letter = _get_dead_letter_for_user(request, pk)
    try:
        services.dead_letter_replay_request(dead_letter=letter, user=request.user)
    except ApplicationError as error:
        letter.refresh_from_db()
        return _status_response(request, letter, error)
    letter.refresh_from_db()  # an eager worker (tests, no broker) may have finished already
    return _status_response(request, letter)


@login_required
@require_POST
def dead_letter_help(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A producer asks the managers to fix a dead letter of their own briefing (they may read
    it, not act on it): recorded in its history and e-mailed to the managers."""
    letter = _letter_readable_without_review(request, pk)
    try:
        dead_letter_help_request(
            dead_letter=letter, user=request.user, note=request.POST.get("note", "")
        )
    except ApplicationError as error:
        letter.refresh_from_db()
        return _status_response(request, letter, error)
    return _status_response(request, letter)


@login_required
@permission_required(CHANGE_LETTERS, raise_exception=True)
@require_POST
def dead_letter_fix_check(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The fix editor's live check: the errors of the JSON as typed, at their fields; for the
    form (no `data`), the errors under the labels of their inputs."""
    letter = _get_dead_letter_for_user(request, pk)
    form = None if "data" in request.POST else dead_letter_answer_form(letter)
    data: Any = request.POST.get("data", "")
    if form is not None:
        data = fix_data_from_post(form, request.POST).data
    try:
        outcome = services.dead_letter_fix_check(dead_letter=letter, data=data)
    except ApplicationError as error:
        errors = [{"path": "", "message": error.message}]
    else:
        errors = [e.as_dict() for e in outcome.errors]
    if form is None:
        return render(request, f"{DETAIL_TEMPLATE}#fix-errors", {"fix_errors": errors})
    labels = {f.name: f.label for f in fix_fields(form)}
    for error in errors:
        error["label"] = labels.get(str(error.get("path", "")).split(".", 1)[0], "")
    return render(request, f"{DETAIL_TEMPLATE}#fix-form-check", {"fix_form_check": errors})


@login_required
@permission_required(CHANGE_LETTERS, raise_exception=True)
@require_POST
def dead_letters_replay_group(request: HtmxHttpRequest) -> HttpResponse:
    """Replay every open dead letter of one error signature."""
    signature = request.POST.get("signature", "").strip()
    if not signature:
        return HttpResponse("a signature is required", status=400, content_type="text/plain")
    queued, skipped = services.dead_letters_replay_group(signature=signature, user=request.user)
    context = {"signature": signature, "queued": queued, "skipped": skipped}
    if request.htmx:
        return render(request, f"{LIST_TEMPLATE}#replay-result", context)
    skipped_text = "; ".join(
        _("%(n)s skipped: %(reason)s") % {"n": n, "reason": reason} for reason, n in skipped.items()
    )
    queued_text = ngettext(
        "%(counter)s replay queued for", "%(counter)s replays queued for", queued
    ) % {"counter": queued}
    messages.info(
        request, f"{queued_text} {signature}" + (f" ({skipped_text})" if skipped_text else "")
    )
    return redirect("dlq:dead_letters")
