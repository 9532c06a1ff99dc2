"""The parse-quality figures for managers: the same figures as JSON for monitoring, and the
weekly digest page."""

from __future__ import annotations

from datetime import date, timedelta

from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from dlq.digest import weekly_digest_build
from dlq.selectors import OUTCOMES, local_day_start, parse_quality

VIEW_CALLS = "dlq.view_structuredcall"
DEFAULT_DAYS = 7
MAX_DAYS = 366


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
