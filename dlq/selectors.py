"""Reads over the recorded structured calls and dead letters: the parse-quality figures and
the open dead letters grouped by what went wrong. Measured from the records, never estimated."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Max, QuerySet
from django.db.models.functions import TruncDate
from django.utils import timezone

from dlq.ledger import ONE_CHAIN
from dlq.models import ClassifierDisagreement, DeadLetter, StructuredCall
from dlq.rollups import RollupRange, Tally, histogram_merge, local_day, rollup_values

OUTCOMES: list[str] = [outcome.value for outcome in StructuredCall.Outcome]
TREND_DAYS = 7
# How long the dead-letter filters' value lists are kept (while no newer letter exists).
CHOICES_CACHE_S = 3600
# The latency percentiles reported per day (nearest rank, from the rollups' histograms).
PERCENTILES = (50, 95, 99)


def local_day_start(day: date) -> datetime:
    """Midnight of `day` in the current time zone: days are counted as the office sees them."""
    return timezone.make_aware(datetime.combine(day, time.min))


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def _breakdown(tally: Tally, outcomes: dict[str, int]) -> dict[str, Any]:
    total = tally.calls
    # Parsed: every outcome but the dead letter, whichever stage of the pipeline got it.
    parsed = total - outcomes.get(StructuredCall.Outcome.FAILED.value, 0)
    return {
        "total": total,
        "outcomes": {
            o: {"count": outcomes.get(o, 0), "share": _share(outcomes.get(o, 0), total)}
            for o in OUTCOMES
        },
        "parsed_count": parsed,
        "parsed_share": _share(parsed, total),
        "retry_count": tally.retried,
        "retry_share": _share(tally.retried, total),
    }


def _local_days(since: datetime, until: datetime) -> list[date]:
    """Every local day that [since, until) touches, oldest first."""
    first_day = timezone.localtime(since).date()
    last_day = timezone.localtime(until - timedelta(microseconds=1)).date()
    return [first_day + timedelta(days=n) for n in range((last_day - first_day).days + 1)]


def _mean(total: int | None, count: int) -> float | None:
    return (total or 0) / count if count else None


class _Group:
    """Cells merged under one key (a day, a schema, a provider, the whole range), with the
    calls per outcome kept apart."""

    def __init__(self) -> None:
        self.tally = Tally()
        self.outcomes: dict[str, int] = defaultdict(int)

    def add(self, outcome: str, tally: Tally) -> None:
        self.tally.merge(tally)
        self.outcomes[outcome] += tally.calls

    def breakdown(self) -> dict[str, Any]:
        return _breakdown(self.tally, self.outcomes)

    def tokens(self) -> dict[str, float | None]:
        tally = self.tally
        return {
            "prompt_mean": _mean(tally.prompt_tokens, tally.calls),
            "completion_mean": _mean(tally.completion_tokens, tally.calls),
            "cacheable_prefix_share": (
                tally.cacheable_tokens_estimate / tally.prompt_tokens_estimate
                if tally.prompt_tokens_estimate
                else None
            ),
        }

    def failovers(self) -> dict[str, Any]:
        return {
            "count": self.tally.failovers,
            "share": _share(self.tally.failovers, self.tally.calls),
        }


def _day_figures(day: date, group: _Group) -> dict[str, Any]:
    """One day in the shape of the whole range: outcomes, tokens, latency and failovers."""
    return {
        "day": day.isoformat(),
        **group.breakdown(),
        "tokens": group.tokens(),
        "latency_ms": dict(
            zip(
                (f"p{q}" for q in PERCENTILES),
                group.tally.percentiles(*(q / 100 for q in PERCENTILES)),
                strict=True,
            )
        ),
        "failovers": group.failovers(),
    }


def parse_quality(
    *,
    since: datetime,
    until: datetime,
    schema: str | None = None,
    provider: str | None = None,
) -> dict[str, Any]:
    """The parse-quality figures of the calls made in [since, until) (whole local days),
    optionally of one schema and/or one provider: overall, per local day (`per_day` counts
    the outcomes, `per_day_figures` gives each day the whole range's shape plus tokens,
    latency p50/p95/p99 and failovers), per schema and per provider. Read from the day
    rollups plus the calls not folded yet (dlq.rollups): a few queries over a small table,
    however many calls and days; latency percentiles from the rollups' histograms."""
    figures = RollupRange(since=since, until=until, schema=schema, provider=provider)
    overall = _Group()
    by_day: dict[date, _Group] = defaultdict(_Group)
    per_start, per_schema, per_provider = figures.groups(
        ("start", "outcome"), ("schema_name", "outcome"), ("provider", "outcome")
    )
    for (start, outcome), tally in per_start.items():
        overall.add(outcome, tally)
        by_day[local_day(start)].add(outcome, tally)
    by_schema: dict[str, _Group] = defaultdict(_Group)
    for (schema_name, outcome), tally in per_schema.items():
        by_schema[schema_name].add(outcome, tally)
    by_provider: dict[str, _Group] = defaultdict(_Group)
    for (call_provider, outcome), tally in per_provider.items():
        by_provider[call_provider].add(outcome, tally)
    for (start,), histogram in figures.latencies(per_day=True).items():
        # The day's histogram is its own (merged once by `latencies`): kept, not copied.
        by_day[local_day(start)].tally.latency_histogram = histogram
        histogram_merge(overall.tally.latency_histogram, histogram)
    per_day_figures = [_day_figures(day, by_day[day]) for day in _local_days(since, until)]
    p50, p95, p99 = overall.tally.percentiles(0.5, 0.95, 0.99)
    return {
        "since": since.isoformat(),
        "until": until.isoformat(),
        "schema": schema,
        "provider": provider,
        **overall.breakdown(),
        # Each day's outcome counts alone (the shape monitoring read first).
        "per_day": [
            {"day": d["day"], **{o: d["outcomes"][o]["count"] for o in OUTCOMES}}
            for d in per_day_figures
        ],
        "per_schema": {name: by_schema[name].breakdown() for name in sorted(by_schema)},
        "per_provider": {name: by_provider[name].breakdown() for name in sorted(by_provider)},
        "tokens": overall.tokens(),
        "latency_ms": {"p50": p50, "p95": p95},
        # Apart from latency_ms, whose two keys monitoring already reads as they are.
        "latency_ms_p99": p99,
        "failovers": overall.failovers(),
        "per_day_figures": per_day_figures,
    }


def _filter_values(records: QuerySet, field: str) -> list[str]:
    """The values a filter on `field` can take: the non-empty ones the records have."""
    return list(
        records.order_by(field).values_list(field, flat=True).distinct().exclude(**{field: ""})
    )


def structured_call_choices(field: str) -> list[str]:
    """The values a filter of the parse-quality figures can take, from the rollups (a small
    table) and the calls not folded yet, never from a scan of every call."""
    return rollup_values(field)


def dead_letter_groups(
    *, status: str = DeadLetter.Status.OPEN, today: date | None = None
) -> list[dict[str, Any]]:
    """Dead letters of one status grouped by error signature, biggest group first, each with
    its schemas, providers, newest letter and a count per day over the last seven days."""
    letters = DeadLetter.objects.filter(status=status).order_by()
    groups = list(
        letters.values("error_signature")
        # COUNT(*), not COUNT(id): the open letters' groups are read from an index alone.
        .annotate(count=Count("*"), newest=Max("created_at"))
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
        .annotate(n=Count("*"))
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
    """The values a filter can take, from the letters there are. A letter's schema,
    provider and source never change, so the list is cached until a newer letter exists
    (one primary-key lookup), instead of a scan of every letter for each drop-down."""
    newest = DeadLetter.objects.order_by("-pk").values_list("pk", "created_at").first()
    key = f"dlq:dead_letter_choices:{field}:{newest[0]}:{newest[1].timestamp()}" if newest else ""
    if not key:
        return []
    return cache.get_or_set(
        key, lambda: _filter_values(DeadLetter.objects.all(), field), CHOICES_CACHE_S
    )


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


# --- the providers' caches ----------------------------------------------------------------------

# The models' own providers: the rules agent is no model and reports no tokens.
NOT_MODELS = ("", "rules")


def share_or_none(part: int, whole: int) -> float | None:
    """part / whole, or None when there is no whole."""
    return part / whole if whole else None


def cached_input_by_provider_and_pool(
    *,
    since: datetime,
    until: datetime,
    schema: str | None = None,
    provider: str | None = None,
) -> list[dict[str, Any]]:
    """Per provider and pool (the one chain's calls under ONE_CHAIN), the input tokens the
    providers reported and the part they served from their cache, from the rollups. A call
    without reported usage (`cost_estimated`: a stream closed before the counts came) is
    counted apart; it reported no tokens, so the share holds none of our estimates."""
    cells = RollupRange(since=since, until=until, schema=schema, provider=provider)
    groups = cells.group(
        "provider", "pool", rows=cells.rows.exclude(provider__in=NOT_MODELS),
        pending={cell: t for cell, t in cells.pending.items() if cell[3] not in NOT_MODELS},
    )  # fmt: skip
    return [
        {
            "provider": call_provider,
            "pool": pool or ONE_CHAIN,
            "calls": tally.calls,
            "calls_without_usage": tally.cost_estimated,
            "prompt_tokens": tally.prompt_tokens,
            "cached_tokens": tally.cached_tokens,
            "cached_share": share_or_none(tally.cached_tokens, tally.prompt_tokens),
        }
        for (call_provider, pool), tally in sorted(groups.items())
    ]
