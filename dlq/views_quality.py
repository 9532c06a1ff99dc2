"""The parse-quality figures for managers: the dashboard, the same figures as JSON for
monitoring, and the weekly digest page."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET

from config.http import HtmxHttpRequest
from dlq.digest import weekly_digest_build
from dlq.figures import turn_figures
from dlq.ledger import ONE_CHAIN, LedgerRow, ledger_by_pool, turn_shares
from dlq.models import StructuredCall
from dlq.rollups import ledger_rows
from dlq.selectors import (
    OUTCOMES,
    cached_input_by_provider_and_pool,
    classifier_disagreements,
    local_day_start,
    parse_quality,
    structured_call_choices,
)

VIEW_CALLS = "dlq.view_structuredcall"
DEFAULT_DAYS = 7
MAX_DAYS = 366
DASHBOARD_TEMPLATE = "dlq/quality.html"
NO_VALUE = "–"


@dataclass(frozen=True)
class QualityFilters:
    """What the figures are narrowed to: a range of local days, both inclusive, and
    optionally one schema and one provider ("" for any)."""

    since: date
    until: date
    schema: str = ""
    provider: str = ""

    def query(self) -> str:
        """The filters as a query string (the JSON link, the form's values)."""
        params = {"since": self.since.isoformat(), "until": self.until.isoformat()}
        params |= {name: value for name in ("schema", "provider") if (value := getattr(self, name))}
        return urlencode(params)


def _date_param(request: HttpRequest, name: str, default: date, fields: dict[str, str]) -> date:
    raw = request.GET.get(name, "").strip()
    if not raw:
        return default
    try:
        return date.fromisoformat(raw)
    except ValueError:
        fields[name] = "expected an ISO date, YYYY-MM-DD"
        return default


def _quality_filters(request: HttpRequest) -> tuple[QualityFilters, dict[str, str]]:
    """The filters of the JSON endpoint and the dashboard, with an error per bad parameter.
    `?since=&until=` are ISO dates, both inclusive (default: the last seven days)."""
    fields: dict[str, str] = {}
    until = _date_param(request, "until", timezone.localdate(), fields)
    since = _date_param(request, "since", until - timedelta(days=DEFAULT_DAYS - 1), fields)
    if not fields and since > until:
        fields["since"] = "must not be after until"
    if not fields and (until - since).days >= MAX_DAYS:
        fields["since"] = f"the range may span at most {MAX_DAYS} days"
    filters = QualityFilters(
        since=since,
        until=until,
        schema=request.GET.get("schema") or "",
        provider=request.GET.get("provider") or "",
    )
    return filters, fields


def _quality_figures(filters: QualityFilters) -> dict[str, Any]:
    return parse_quality(**_range(filters))


def _range(filters: QualityFilters) -> dict[str, Any]:
    return {
        "since": local_day_start(filters.since),
        "until": local_day_start(filters.until + timedelta(days=1)),
        "schema": filters.schema or None,
        "provider": filters.provider or None,
    }


def _turn_and_cache_figures(filters: QualityFilters) -> dict[str, Any]:
    """The client turns' model calls and tools (by date only: a turn has no one schema or
    provider) and the cached input tokens per provider and pool (filtered like the rest)."""
    narrowed = _range(filters)
    return {
        "turns": turn_figures(since=narrowed["since"], until=narrowed["until"]),
        "cached_input": cached_input_by_provider_and_pool(**narrowed),
    }


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
    filters, fields = _quality_filters(request)
    if fields:
        return _error("invalid_params", "Invalid query parameters.", fields)
    return JsonResponse({**_quality_figures(filters), **_turn_and_cache_figures(filters)})


# --- the dashboard ---------------------------------------------------------------------------


def _percent(share: float | None) -> float | None:
    return None if share is None else round(share * 100, 1)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _text(value: float | None, unit: str) -> str:
    """A figure as the page writes it; the same text in the headline and the tables."""
    if value is None:
        return NO_VALUE
    if unit == "%":
        return f"{value:.1f}%"
    if unit == "ms":
        return f"{value} ms"
    if unit == "tokens":
        return f"{value:.1f}"
    if unit == "money":
        return f"{value:.4f}"
    return str(value)


@dataclass(frozen=True)
class Series:
    label: str
    values: list[Any]


@dataclass(frozen=True)
class Chart:
    """One chart of the dashboard: drawn by static/dlq/quality.js from `as_json()`, and
    written out as a table from `rows()` for whoever does not see the canvas."""

    key: str
    title: str
    kind: str  # a Chart.js type: "bar" or "line"
    unit: str  # "%", "ms", "tokens" or "calls"
    axis: str  # what the labels are: day, schema, provider
    labels: list[str]
    series: list[Series]
    stacked: bool = False
    # Calls behind each label, so that a 100% of one call reads as what it is.
    counts: list[int] | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "kind": self.kind,
            "unit": self.unit,
            "stacked": self.stacked,
            "labels": self.labels,
            "counts": self.counts,
            "series": [{"label": s.label, "values": s.values} for s in self.series],
        }

    def columns(self) -> list[str]:
        calls = [_("calls")] if self.counts is not None else []
        return [str(AXIS_LABELS.get(self.axis, self.axis)), *calls, *self.headers()]

    def headers(self) -> list[str]:
        return [s.label for s in self.series]

    def rows(self) -> list[list[str]]:
        return [
            [
                label,
                *([str(self.counts[i])] if self.counts is not None else []),
                *(_text(s.values[i], self.unit) for s in self.series),
            ]
            for i, label in enumerate(self.labels)
        ]


OUTCOME_LABELS = dict(StructuredCall.Outcome.choices)
# The column a chart's labels are shown under, in the reader's language.
AXIS_LABELS = {
    "day": gettext_lazy("day"),
    "schema": gettext_lazy("schema"),
    "provider": gettext_lazy("provider"),
    "pool": gettext_lazy("pool"),
}


def _outcome_shares(rows: list[dict[str, Any]]) -> list[Series]:
    return [
        Series(str(OUTCOME_LABELS[o]), [_percent(row["outcomes"][o]["share"]) for row in rows])
        for o in OUTCOMES
    ]


def _outcome_chart(key: str, title: str, axis: str, rows: dict[str, dict[str, Any]]) -> Chart:
    return Chart(
        key=key,
        title=title,
        kind="bar",
        unit="%",
        axis=axis,
        labels=[name or NO_VALUE for name in rows],
        series=_outcome_shares(list(rows.values())),
        stacked=True,
        counts=[row["total"] for row in rows.values()],
    )


def _charts(figures: dict[str, Any]) -> list[Chart]:
    days = figures["per_day_figures"]
    labels = [day["day"] for day in days]
    counts = [day["total"] for day in days]
    return [
        _outcome_chart(
            "outcomes-per-day",
            _("Share of calls by outcome per day"),
            "day",
            {day["day"]: day for day in days},
        ),
        _outcome_chart(
            "outcomes-per-schema",
            _("Share of calls by outcome per schema"),
            "schema",
            figures["per_schema"],
        ),
        _outcome_chart(
            "outcomes-per-provider",
            _("Share of calls by outcome per provider"),
            "provider",
            figures["per_provider"],
        ),
        Chart(
            key="tokens-per-day",
            title=_("Tokens per call per day (mean)"),
            kind="bar",
            unit="tokens",
            axis="day",
            labels=labels,
            counts=counts,
            series=[
                Series(_("prompt"), [_rounded(d["tokens"]["prompt_mean"]) for d in days]),
                Series(_("completion"), [_rounded(d["tokens"]["completion_mean"]) for d in days]),
            ],
        ),
        Chart(
            key="cacheable-per-day",
            title=_("Share of the prompt in the cacheable prefix per day"),
            kind="line",
            unit="%",
            axis="day",
            labels=labels,
            series=[
                Series(
                    _("cacheable prefix"),
                    [_percent(d["tokens"]["cacheable_prefix_share"]) for d in days],
                )
            ],
        ),
        Chart(
            key="latency-per-day",
            title=_("Latency per day"),
            kind="line",
            unit="ms",
            axis="day",
            labels=labels,
            counts=counts,
            series=[Series(p, [d["latency_ms"][p] for d in days]) for p in ("p50", "p95")],
        ),
        Chart(
            key="failovers-per-day",
            title=_("Failovers per day"),
            kind="bar",
            unit="calls",
            axis="day",
            labels=labels,
            counts=counts,
            series=[Series(_("failovers"), [d["failovers"]["count"] for d in days])],
        ),
    ]


def _ledger(filters: QualityFilters) -> list[LedgerRow]:
    return ledger_rows(
        since=local_day_start(filters.since),
        until=local_day_start(filters.until + timedelta(days=1)),
        schema=filters.schema or None,
        provider=filters.provider or None,
    )


def _ledger_charts(rows: list[LedgerRow], days: list[str]) -> list[Chart]:
    """The cost ledger: money and the measured cached-token share per day and pool, and
    each pool's share of the turns."""
    pools = sorted({row.pool for row in rows})
    cell = {(row.day.isoformat(), row.pool): row for row in rows}

    def per_day(value) -> list[Series]:
        return [
            Series(_pool_label(pool), [value(cell.get((day, pool))) for day in days])
            for pool in pools
        ]

    per_pool = ledger_by_pool(rows)
    shares = turn_shares(per_pool)
    return [
        Chart(
            key="cost-per-day",
            title=_("Model cost per day and pool"),
            kind="bar",
            unit="money",
            axis="day",
            labels=days,
            series=per_day(lambda row: float(row.cost) if row else 0.0),
            stacked=True,
        ),
        Chart(
            key="cached-share-per-day",
            title=_("Cached prompt tokens per day and pool (as the providers reported them)"),
            kind="line",
            unit="%",
            axis="day",
            labels=days,
            series=per_day(lambda row: _percent(row.cached_share) if row else None),
        ),
        Chart(
            key="ledger-per-pool",
            title=_("Turns, cost and cached share per pool"),
            kind="bar",
            unit="%",
            axis="pool",
            labels=[_pool_label(row.pool) for row in per_pool],
            counts=[row.calls for row in per_pool],
            series=[
                Series(_("share of turns"), [_percent(shares.get(r.pool)) for r in per_pool]),
                Series(_("cached share"), [_percent(r.cached_share) for r in per_pool]),
            ],
        ),
    ]


def _pool_label(pool: str) -> str:
    """A pool by its name; the calls made with no pools under words, not "(one chain)"."""
    return _("one chain") if pool == ONE_CHAIN else pool


def _ledger_headline(rows: list[LedgerRow]) -> list[tuple[str, str, str]]:
    cost = sum((row.cost for row in rows), Decimal(0))
    prompt = sum(row.prompt_tokens for row in rows)
    cached = sum(row.cached_tokens for row in rows)
    return [
        ("cost", _("Model cost"), _text(float(cost), "money")),
        (
            "cached_share",
            _("Cached prompt tokens"),
            _text(_percent(cached / prompt if prompt else None), "%"),
        ),
    ]


def _part_of(share: float | None, part: int, whole: int) -> str:
    if share is None:
        return NO_VALUE
    return _("%(share)s (%(part)s of %(whole)s)") % {
        "share": _text(_percent(share), "%"),
        "part": part,
        "whole": whole,
    }


def _turn_items(turns: dict[str, Any]) -> list[dict[str, str]]:
    """The client turns' figures in words a manager reads."""
    median = turns["calls_median"]
    items = [
        (
            "turn_calls_median",
            _("Model calls per client message (median)"),
            NO_VALUE if median is None else f"{median:g}",
        ),
        (
            "turns_without_tools",
            _("Messages answered without looking up studio data"),
            _part_of(turns["without_tools_share"], turns["without_tools"], turns["turns"]),
        ),
        (
            "tool_cache_hits",
            _("Studio data lookups answered from the cache (a repeat within one message)"),
            _part_of(turns["tool_cache_hit_share"], turns["tool_cache_hits"], turns["tool_calls"]),
        ),
    ]
    return [{"key": key, "label": label, "text": text} for key, label, text in items]


def _cached_input_rows(rows: list[dict[str, Any]]) -> list[list[str]]:
    return [
        [
            row["provider"],
            _pool_label(row["pool"]),
            str(row["calls"]),
            str(row["calls_without_usage"]),
            str(row["prompt_tokens"]),
            str(row["cached_tokens"]),
            _text(_percent(row["cached_share"]), "%"),
        ]
        for row in rows
    ]


def _cached_input_columns() -> list[str]:
    return [
        str(AXIS_LABELS["provider"]),
        str(AXIS_LABELS["pool"]),
        _("calls"),
        _("calls without reported usage"),
        _("input tokens"),
        _("cached input tokens"),
        _("cached share"),
    ]


def _headline(figures: dict[str, Any]) -> list[dict[str, str]]:
    """The range's figures written out by the server, readable without the charts."""
    latency = figures["latency_ms"]
    tokens = figures["tokens"]
    failovers = figures["failovers"]
    items = [
        ("total", _("Calls"), str(figures["total"])),
        ("parsed_share", _("Parsed"), _text(_percent(figures["parsed_share"]), "%")),
        (
            "dead_lettered_share",
            _("Dead-lettered"),
            _text(_percent(figures["outcomes"]["failed"]["share"]), "%"),
        ),
        ("retry_share", _("Retried"), _text(_percent(figures["retry_share"]), "%")),
        ("latency_p50", _("Latency p50"), _text(latency["p50"], "ms")),
        ("latency_p95", _("Latency p95"), _text(latency["p95"], "ms")),
        ("latency_p99", _("Latency p99"), _text(figures["latency_ms_p99"], "ms")),
        (
            "failovers",
            _("Failovers"),
            f"{failovers['count']} ({_text(_percent(failovers['share']), '%')})",
        ),
        (
            "prompt_mean",
            _("Prompt tokens per call"),
            _text(_rounded(tokens["prompt_mean"]), "tokens"),
        ),
        (
            "completion_mean",
            _("Completion tokens per call"),
            _text(_rounded(tokens["completion_mean"]), "tokens"),
        ),
        (
            "cacheable_prefix_share",
            _("Cacheable prefix"),
            _text(_percent(tokens["cacheable_prefix_share"]), "%"),
        ),
    ]
    return [{"key": key, "label": label, "text": text} for key, label, text in items]


def _with_current(choices: list[str], current: str) -> list[str]:
    # A value typed into the address bar stays selected rather than silently shown as "any".
    return choices if not current or current in choices else [*choices, current]


@login_required
@permission_required(VIEW_CALLS, raise_exception=True)
@require_GET
def quality_dashboard(request: HtmxHttpRequest) -> HttpResponse:
    """The parse-quality figures as headline numbers and charts, filtered like
    `quality_json`. Bad filters: the page again with the errors at the fields and status
    400. For htmx only the figures are returned."""
    filters, errors = _quality_filters(request)
    context: dict[str, Any] = {"errors": errors}
    if errors:
        context["values"] = {
            name: request.GET.get(name, "") for name in ("since", "until", "schema", "provider")
        }
    else:
        figures = _quality_figures(filters)
        ledger = _ledger(filters)
        days = [day["day"] for day in figures["per_day_figures"]]
        charts = [*_charts(figures), *_ledger_charts(ledger, days)]
        headline = _headline(figures) + [
            {"key": key, "label": label, "text": text}
            for key, label, text in _ledger_headline(ledger)
        ]
        more = _turn_and_cache_figures(filters)
        context.update(
            turn_items=_turn_items(more["turns"]),
            cached_input_columns=_cached_input_columns(),
            cached_input_rows=_cached_input_rows(more["cached_input"]),
            values={
                "since": filters.since.isoformat(),
                "until": filters.until.isoformat(),
                "schema": filters.schema,
                "provider": filters.provider,
            },
            figures=figures,
            headline=headline,
            disagreements=classifier_disagreements(
                since=local_day_start(filters.since),
                until=local_day_start(filters.until + timedelta(days=1)),
            ),
            charts=charts,
            chart_data=[chart.as_json() for chart in charts],
            query=filters.query(),
        )
    if request.htmx:
        template = f"{DASHBOARD_TEMPLATE}#figures"
    else:
        template = DASHBOARD_TEMPLATE
        context["schemas"] = _with_current(
            structured_call_choices("schema_name"), context["values"]["schema"]
        )
        context["providers"] = _with_current(
            structured_call_choices("provider"), context["values"]["provider"]
        )
    return render(request, template, context, status=400 if errors else 200)


# --- the weekly digest -----------------------------------------------------------------------


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
