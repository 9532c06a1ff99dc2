"""Reads over the recorded structured calls and dead letters: the parse-quality figures and
the open dead letters grouped by what went wrong. Measured from the records, never estimated."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db.models import Aggregate, Avg, Count, Max, Q, QuerySet, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from dlq.models import ClassifierDisagreement, DeadLetter, StructuredCall

OUTCOMES: list[str] = [outcome.value for outcome in StructuredCall.Outcome]
TREND_DAYS = 7
# The latency percentiles reported per day (nearest rank).
PERCENTILES = (50, 95, 99)


def local_day_start(day: date) -> datetime:
    """Midnight of `day` in the current time zone: days are counted as the office sees them."""
    return timezone.make_aware(datetime.combine(day, time.min))


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def _counting_aggregates() -> dict[str, Count]:
    """One Count per outcome plus the total and the retried calls, for aggregate/annotate."""
    return {
        "total": Count("id"),
        "retried": Count("id", filter=Q(retry_used=True)),
        **{f"outcome_{o}": Count("id", filter=Q(outcome=o)) for o in OUTCOMES},
    }


def _breakdown(row: dict[str, Any]) -> dict[str, Any]:
    total = row["total"] or 0
    # Parsed: every outcome but the dead letter, whichever stage of the pipeline got it.
    parsed = total - row[f"outcome_{StructuredCall.Outcome.FAILED.value}"]
    return {
        "total": total,
        "outcomes": {
            o: {"count": row[f"outcome_{o}"], "share": _share(row[f"outcome_{o}"], total)}
            for o in OUTCOMES
        },
        "parsed_count": parsed,
        "parsed_share": _share(parsed, total),
        "retry_count": row["retried"],
        "retry_share": _share(row["retried"], total),
    }


def _grouped(calls: QuerySet[StructuredCall], field: str) -> dict[str, dict[str, Any]]:
    rows = calls.order_by().values(field).annotate(**_counting_aggregates()).order_by(field)
    return {row[field]: _breakdown(row) for row in rows}


def _percentile(sorted_values: list[int], q: float) -> int | None:
    """Nearest-rank percentile: a value that was actually observed."""
    if not sorted_values:
        return None
    rank = max(math.ceil(q * len(sorted_values)), 1)
    return sorted_values[rank - 1]


def _is_failover(provider: str, providers: list[str] | None) -> bool:
    providers = [p for p in (providers or []) if p]
    if not providers:
        return False
    return len(set(providers)) > 1 or provider != providers[0]


def _local_days(since: datetime, until: datetime) -> list[date]:
    """Every local day that [since, until) touches, oldest first."""
    first_day = timezone.localtime(since).date()
    last_day = timezone.localtime(until - timedelta(microseconds=1)).date()
    return [first_day + timedelta(days=n) for n in range((last_day - first_day).days + 1)]


def _day_aggregates() -> dict[str, Aggregate]:
    """The counts of `_counting_aggregates` plus the token sums a day's means are made of."""
    with_estimate = Q(prompt_tokens_estimate__gt=0)
    return {
        **_counting_aggregates(),
        "prompt_tokens": Sum("prompt_tokens"),
        "completion_tokens": Sum("completion_tokens"),
        "cacheable_estimate": Sum("cacheable_tokens_estimate", filter=with_estimate),
        "prompt_estimate": Sum("prompt_tokens_estimate", filter=with_estimate),
    }


def _mean(total: int | None, count: int) -> float | None:
    # Sum / count in Python, so SQLite and PostgreSQL give the same float.
    return (total or 0) / count if count else None


def _day_figures(
    day: date, row: dict[str, Any], latencies: list[int], failovers: int
) -> dict[str, Any]:
    """One day in the shape of the whole range: outcomes, tokens, latency and failovers."""
    breakdown = _breakdown(row)
    total = breakdown["total"]
    latencies = sorted(latencies)
    return {
        "day": day.isoformat(),
        **breakdown,
        "tokens": {
            "prompt_mean": _mean(row.get("prompt_tokens"), total),
            "completion_mean": _mean(row.get("completion_tokens"), total),
            "cacheable_prefix_share": (
                row["cacheable_estimate"] / row["prompt_estimate"]
                if row.get("prompt_estimate")
                else None
            ),
        },
        "latency_ms": {f"p{q}": _percentile(latencies, q / 100) for q in PERCENTILES},
        "failovers": {"count": failovers, "share": _share(failovers, total)},
    }


def parse_quality(
    *,
    since: datetime,
    until: datetime,
    schema: str | None = None,
    provider: str | None = None,
) -> dict[str, Any]:
    """The parse-quality figures of the calls made in [since, until), optionally of one
    schema and/or one provider: overall, per local day (`per_day` counts the outcomes,
    `per_day_figures` gives each day the whole range's shape plus tokens, latency p50/p95/p99
    and failovers), per schema and per provider. A bounded number of queries, however long
    the range."""
    calls = StructuredCall.objects.filter(created_at__gte=since, created_at__lt=until)
    if schema:
        calls = calls.filter(schema_name=schema)
    if provider:
        calls = calls.filter(provider=provider)

    overall = _breakdown(calls.aggregate(**_counting_aggregates()))

    # One grouped query for every day's counts and token sums, whatever the range's length.
    per_day_rows = (
        calls.order_by()
        .annotate(day=TruncDate("created_at"))
        .values("day")
        .annotate(**_day_aggregates())
        .order_by("day")
    )
    by_day = {row["day"]: row for row in per_day_rows}
    days = _local_days(since, until)
    empty_day = {"total": 0, "retried": 0, **{f"outcome_{o}": 0 for o in OUTCOMES}}

    tokens = calls.aggregate(
        prompt_mean=Avg("prompt_tokens"), completion_mean=Avg("completion_tokens")
    )
    estimates = calls.filter(prompt_tokens_estimate__gt=0).aggregate(
        cacheable=Sum("cacheable_tokens_estimate"), prompt=Sum("prompt_tokens_estimate")
    )
    cacheable_share = estimates["cacheable"] / estimates["prompt"] if estimates["prompt"] else None

    # Latency percentiles and failovers need every row: computed here so SQLite and
    # PostgreSQL give the same figures.
    latencies: list[int] = []
    latencies_by_day: dict[date, list[int]] = defaultdict(list)
    failovers_by_day: dict[date, int] = defaultdict(int)
    for day, latency_ms, call_provider, providers in (
        calls.order_by()
        .annotate(day=TruncDate("created_at"))
        .values_list("day", "latency_ms", "provider", "providers")
    ):
        latencies.append(latency_ms)
        latencies_by_day[day].append(latency_ms)
        failovers_by_day[day] += _is_failover(call_provider, providers)
    latencies.sort()
    failovers = sum(failovers_by_day.values())
    per_day_figures = [
        _day_figures(day, by_day.get(day, empty_day), latencies_by_day[day], failovers_by_day[day])
        for day in days
    ]

    return {
        "since": since.isoformat(),
        "until": until.isoformat(),
        "schema": schema,
        "provider": provider,
        **overall,
        # Each day's outcome counts alone (the shape monitoring read first).
        "per_day": [
            {"day": d["day"], **{o: d["outcomes"][o]["count"] for o in OUTCOMES}}
            for d in per_day_figures
        ],
        "per_schema": _grouped(calls, "schema_name"),
        "per_provider": _grouped(calls, "provider"),
        "tokens": {
            "prompt_mean": tokens["prompt_mean"],
            "completion_mean": tokens["completion_mean"],
            "cacheable_prefix_share": cacheable_share,
        },
        "latency_ms": {"p50": _percentile(latencies, 0.5), "p95": _percentile(latencies, 0.95)},
        # Apart from latency_ms, whose two keys monitoring already reads as they are.
        "latency_ms_p99": _percentile(latencies, 0.99),
        "failovers": {"count": failovers, "share": _share(failovers, overall["total"])},
        "per_day_figures": per_day_figures,
    }


def _filter_values(records: QuerySet, field: str) -> list[str]:
    """The values a filter on `field` can take: the non-empty ones the records have."""
    return list(
        records.order_by(field).values_list(field, flat=True).distinct().exclude(**{field: ""})
    )


def structured_call_choices(field: str) -> list[str]:
    """The values a filter of the parse-quality figures can take, from the calls there are."""
    return _filter_values(StructuredCall.objects.all(), field)


def dead_letter_groups(
    *, status: str = DeadLetter.Status.OPEN, today: date | None = None
) -> list[dict[str, Any]]:
    """Dead letters of one status grouped by error signature, biggest group first, each with
    its schemas, providers, newest letter and a count per day over the last seven days."""
    letters = DeadLetter.objects.filter(status=status).order_by()
    groups = list(
        letters.values("error_signature")
        .annotate(count=Count("id"), newest=Max("created_at"))
        .order_by("-count", "-newest", "error_signature")
    )
    schemas: dict[str, set[str]] = defaultdict(set)
    providers: dict[str, set[str]] = defaultdict(set)
    for signature, schema_name, letter_provider in letters.values_list(
        "error_signature", "schema_name", "provider"
    ).distinct():
        schemas[signature].add(schema_name)
        if letter_provider:
            providers[signature].add(letter_provider)

    today = today or timezone.localdate()
    days = [today - timedelta(days=offset) for offset in range(TREND_DAYS - 1, -1, -1)]
    per_day: dict[tuple[str, date], int] = {
        (row["error_signature"], row["day"]): row["n"]
        for row in letters.filter(
            created_at__gte=local_day_start(days[0]),
            created_at__lt=local_day_start(today + timedelta(days=1)),
        )
        .annotate(day=TruncDate("created_at"))
        .values("error_signature", "day")
        .annotate(n=Count("id"))
    }
    return [
        {
            "error_signature": group["error_signature"],
            "count": group["count"],
            "schema_names": sorted(schemas[group["error_signature"]]),
            "providers": sorted(providers[group["error_signature"]]),
            "newest": group["newest"],
            "trend": [
                {"day": day.isoformat(), "count": per_day.get((group["error_signature"], day), 0)}
                for day in days
            ],
        }
        for group in groups
    ]


# The list's filters: query parameter → DeadLetter field.
DEAD_LETTER_FILTERS = {
    "status": "status",
    "schema": "schema_name",
    "provider": "provider",
    "source_kind": "source_kind",
    "signature": "error_signature",
}


def dead_letters_filtered(params: dict[str, str]) -> QuerySet[DeadLetter]:
    """Every dead letter, newest first, filtered by `DEAD_LETTER_FILTERS` and searched in the
    client's text with `q`."""
    letters = DeadLetter.objects.order_by("-created_at", "-id")
    for name, field in DEAD_LETTER_FILTERS.items():
        if params.get(name):
            letters = letters.filter(**{field: params[name]})
    if params.get("q"):
        letters = letters.filter(raw_input__icontains=params["q"])
    return letters


def dead_letter_choices(field: str) -> list[str]:
    """The values a filter can take, from the letters there are."""
    return _filter_values(DeadLetter.objects.all(), field)


@dataclass(frozen=True)
class Disagreements:
    """Where level 1's model and the shipped classifier disagreed in a range: how often per
    contract field, and the latest messages (what to look at, and to retrain on)."""

    total: int
    per_field: dict[str, int]
    latest: list[ClassifierDisagreement]


def classifier_disagreements(
    *, since: datetime, until: datetime, latest: int = 10
) -> Disagreements:
    rows = ClassifierDisagreement.objects.filter(created_at__gte=since, created_at__lt=until)
    per_field: Counter[str] = Counter()
    for fields in rows.values_list("fields", flat=True):
        per_field.update(fields)
    return Disagreements(
        total=rows.count(),
        per_field=dict(sorted(per_field.items())),
        latest=list(rows.order_by("-created_at", "-id")[:latest]),
    )
