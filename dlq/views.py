"""Pages over the recorded calls and dead letters, for managers: the parse-quality figures as
JSON, the weekly digest, and the dead-letter review (groups, list, detail, discard)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required, permission_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from briefing.errors import ApplicationError
from briefing.models import Turn
from config.http import HtmxHttpRequest
from dlq.digest import weekly_digest_build
from dlq.models import DeadLetter
from dlq.selectors import (
    DEAD_LETTER_FILTERS,
    OUTCOMES,
    dead_letter_choices,
    dead_letter_groups,
    dead_letters_filtered,
    local_day_start,
    parse_quality,
)
from dlq.services import dead_letter_discard as dead_letter_discard_service
from dlq.services import dead_letter_fix_apply

VIEW_CALLS = "dlq.view_structuredcall"
VIEW_LETTERS = "dlq.view_deadletter"
CHANGE_LETTERS = "dlq.change_deadletter"
LIST_TEMPLATE = "dlq/dead_letters.html"
DETAIL_TEMPLATE = "dlq/dead_letter_detail.html"
PAGE_SIZE = 50
# The list's filters: query parameter -> model field, matched exactly.


DEFAULT_DAYS = 7
MAX_DAYS = 366


class ParamsError(Exception):
    def __init__(self, fields: dict[str, str]) -> None:
        super().__init__("invalid query parameters")
        self.fields = fields


def _date_param(request: HttpRequest, name: str, default: date, fields: dict[str, str]) -> date:
    raw = request.GET.get(name, "").strip()
    if not raw:
        return default
    try:
        return date.fromisoformat(raw)
    except ValueError:
        fields[name] = "expected an ISO date, YYYY-MM-DD"
        return default


def _error(code: str, message: str, fields: dict[str, str], status: int = 400) -> JsonResponse:
    return JsonResponse(
        {"error": {"code": code, "message": message, "fields": fields}}, status=status
    )


@login_required
@permission_required(VIEW_CALLS, raise_exception=True)
@require_GET
def quality_json(request: HttpRequest) -> JsonResponse:
    """`?since=&until=` are ISO dates, both inclusive (default: the last seven days);
    `?schema=` and `?provider=` narrow the calls."""
    fields: dict[str, str] = {}
    until = _date_param(request, "until", timezone.localdate(), fields)
    since = _date_param(request, "since", until - timedelta(days=DEFAULT_DAYS - 1), fields)
    if not fields and since > until:
        fields["since"] = "must not be after until"
    if not fields and (until - since).days >= MAX_DAYS:
        fields["since"] = f"the range may span at most {MAX_DAYS} days"
    if fields:
        return _error("invalid_params", "Invalid query parameters.", fields)
    figures = parse_quality(
        since=local_day_start(since),
        until=local_day_start(until + timedelta(days=1)),
        schema=request.GET.get("schema") or None,
        provider=request.GET.get("provider") or None,
    )
    return JsonResponse(figures)


@login_required
@permission_required(VIEW_CALLS, raise_exception=True)
@require_GET
def digest_page(request: HttpRequest) -> HttpResponse:
    """The weekly digest of the week ending `?week_ending=` (default: today)."""
    fields: dict[str, str] = {}
    week_ending = _date_param(request, "week_ending", timezone.localdate(), fields)
    digest = None if fields else weekly_digest_build(week_ending=week_ending)
    return render(
        request,
        "dlq/digest.html",
        {"digest": digest, "errors": fields, "outcomes": OUTCOMES},
        status=400 if fields else 200,
    )


# --- dead letters ----------------------------------------------------------------------------


def _get_dead_letter_for_user(request: HtmxHttpRequest, pk: int) -> DeadLetter:
    # The permission decorators already keep out whoever may not review dead letters.
    return get_object_or_404(DeadLetter.objects.select_related("resolved_by", "call"), pk=pk)


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
        context["groups"] = _with_trend_heights(dead_letter_groups(status=status))
    else:
        page = Paginator(dead_letters_filtered(params), PAGE_SIZE).get_page(request.GET.get("page"))
        kept = {"view": "list", **{k: v for k, v in params.items() if v}}
        context.update(
            page=page,
            page_query=urlencode(kept),
            schemas=dead_letter_choices("schema_name"),
            providers=dead_letter_choices("provider"),
            source_kinds=dead_letter_choices("source_kind"),
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


def _source_turn(letter: DeadLetter) -> Turn | None:
    if letter.source_kind != "briefing_turn" or not letter.source_id.isdigit():
        return None
    return Turn.objects.select_related("project").filter(pk=int(letter.source_id)).first()


def _detail_context(
    letter: DeadLetter,
    *,
    error: str = "",
    reason: str = "",
    fix: str | None = None,
    fix_errors: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    raw_responses = letter.raw_responses or []
    return {
        "letter": letter,
        "attempts": _attempts(letter),
        "turn": _source_turn(letter),
        "usage": letter.usage or {},
        "error": error,
        "reason": reason,
        # The editor starts from the model's last answer: most fixes are a field or two.
        "fix": fix if fix is not None else (raw_responses[-1] if raw_responses else "{}"),
        "fix_errors": fix_errors or [],
    }


@login_required
@permission_required(VIEW_LETTERS, raise_exception=True)
@require_GET
def dead_letter_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """One dead letter whole: the client's text, each attempt's prompt and answer, the errors
    and what was decided about it."""
    letter = _get_dead_letter_for_user(request, pk)
    return render(request, DETAIL_TEMPLATE, _detail_context(letter))


@login_required
@permission_required(CHANGE_LETTERS, raise_exception=True)
@require_POST
def dead_letter_discard(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Discard an open dead letter with a reason. Without htmx: back to the detail page, or the
    page again with the error and status 400. With htmx: the status part, error in place."""
    letter = _get_dead_letter_for_user(request, pk)
    reason = request.POST.get("reason", "")
    try:
        letter = dead_letter_discard_service(dead_letter=letter, user=request.user, reason=reason)
    except ApplicationError as error:
        letter.refresh_from_db()
        context = _detail_context(letter, error=error.message, reason=reason)
        template = f"{DETAIL_TEMPLATE}#status" if request.htmx else DETAIL_TEMPLATE
        return render(request, template, context, status=400)
    if not request.htmx:
        return redirect("dlq:dead_letter_detail", pk=letter.pk)
    return render(request, f"{DETAIL_TEMPLATE}#status", _detail_context(letter))


@login_required
@permission_required(CHANGE_LETTERS, raise_exception=True)
@require_POST
def dead_letter_fix(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Apply corrected JSON as the accepted answer. Invalid JSON: the errors at their fields,
    status 400, nothing changed. With htmx the status part is returned."""
    letter = _get_dead_letter_for_user(request, pk)
    fix = request.POST.get("data", "")
    try:
        letter = dead_letter_fix_apply(dead_letter=letter, data=fix, user=request.user)
    except ApplicationError as error:
        letter.refresh_from_db()
        context = _detail_context(
            letter, error=error.message, fix=fix, fix_errors=error.extra.get("fields")
        )
        template = f"{DETAIL_TEMPLATE}#status" if request.htmx else DETAIL_TEMPLATE
        return render(request, template, context, status=400)
    if not request.htmx:
        return redirect("dlq:dead_letter_detail", pk=letter.pk)
    return render(request, f"{DETAIL_TEMPLATE}#status", _detail_context(letter))
