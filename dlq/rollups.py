"""Rollups of the structured calls: per local day and per hour, by schema, provider, pool and
outcome, folded in incrementally (a beat task, idempotently) and read instead of the raw
calls, so the quality figures cost the same at a million calls as at a thousand.

A call is folded once: the fold marks it `rolled_up` in the transaction that adds it to its
cells, under one lock. The reads add the few calls not folded yet, so figures are current.

Latencies are kept as a histogram: one bucket per millisecond below 128 ms, then 32 buckets
per doubling (each 2.2% wide), each bucket with its smallest and largest value. A percentile
is the nearest-rank bucket's geometric middle, held within the values that bucket saw: exact
below 128 ms and whenever the bucket saw one value, otherwise within 1.1% of the true
nearest-rank latency."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.db.models import QuerySet, Sum
from django.utils import timezone

from dlq.ledger import ONE_CHAIN, LedgerRow
from dlq.models import CallLatency, CallRollup, StructuredCall

EXACT_BELOW_MS = 128
BUCKETS_PER_DOUBLING = 32
FOLD_BATCH = 5000
HOUR_ROWS_KEPT_DAYS = 2
TURN_SOURCE = "briefing_turn"
# The schema or provider of CallLatency's cells that hold every schema's or provider's calls.
ANY = "*"
# pg_advisory_xact_lock key: folds run one at a time (a turn is "first seen" once).
_FOLD_LOCK = 0x6C7E_0001

# What a fold or a read needs of a call (never its prompts and answers).
CALL_FIELDS = (
    "id", "created_at", "schema_name", "provider", "providers", "pool", "outcome",
    "retry_used", "latency_ms", "prompt_tokens", "cached_tokens", "completion_tokens",
    "prompt_tokens_estimate", "cacheable_tokens_estimate", "cost", "cost_estimated",
    "source_kind", "source_id",
)  # fmt: skip
MEASURES = (
    "calls", "retried", "failovers", "latency_ms_sum", "prompt_tokens", "cached_tokens",
    "completion_tokens", "prompt_tokens_estimate", "cacheable_tokens_estimate",
    "cost_estimated", "turns",
)  # fmt: skip
DIMENSIONS = ("schema_name", "provider", "pool", "outcome")


def latency_bucket(latency_ms: int) -> int:
    """The histogram bucket of a latency (see the module's docstring)."""
    if latency_ms < EXACT_BELOW_MS:
        return max(latency_ms, 0)
    return EXACT_BELOW_MS + int(BUCKETS_PER_DOUBLING * math.log2(latency_ms / EXACT_BELOW_MS))


def _bucket_middle(bucket: int) -> float:
    if bucket < EXACT_BELOW_MS:
        return float(bucket)
    step = (bucket - EXACT_BELOW_MS) / BUCKETS_PER_DOUBLING
    return EXACT_BELOW_MS * 2 ** (step + 0.5 / BUCKETS_PER_DOUBLING)


def histogram_percentiles(histogram: dict[str, list[int]], *qs: float) -> list[int | None]:
    """The nearest-rank q-percentiles of the latencies a histogram holds, in one pass."""
    buckets = sorted((int(key), value) for key, value in histogram.items())
    total = sum(value[0] for _, value in buckets)
    if not total:
        return [None for _ in qs]
    found: list[int | None] = []
    for q in qs:
        rank, seen = max(math.ceil(q * total), 1), 0
        for bucket, (count, smallest, largest) in buckets:
            seen += count
            if seen >= rank:
                found.append(min(max(round(_bucket_middle(bucket)), smallest), largest))
                break
    return found


def histogram_percentile(histogram: dict[str, list[int]], q: float) -> int | None:
    """The nearest-rank q-percentile of the latencies a histogram holds."""
    return histogram_percentiles(histogram, q)[0]


def histogram_merge(into: dict[str, list[int]], other: dict[str, list[int]]) -> None:
    for key, (count, smallest, largest) in other.items():
        cell = into.get(key)
        if cell is None:
            into[key] = [count, smallest, largest]
        else:
            cell[0] += count
            cell[1] = min(cell[1], smallest)
            cell[2] = max(cell[2], largest)


@dataclass
class Tally:
    """The summed figures of some calls (a rollup cell, or several merged)."""

    calls: int = 0
    retried: int = 0
    failovers: int = 0
    latency_ms_sum: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    prompt_tokens_estimate: int = 0
    cacheable_tokens_estimate: int = 0
    cost_estimated: int = 0
    turns: int = 0
    cost: Decimal = Decimal(0)
    latency_histogram: dict[str, list[int]] = field(default_factory=dict)

    def add_call(self, call: dict[str, Any], *, first_of_turn: bool) -> None:
        self.calls += 1
        self.retried += bool(call["retry_used"])
        self.failovers += is_failover(call["provider"], call["providers"])
        self.latency_ms_sum += call["latency_ms"]
        self.prompt_tokens += call["prompt_tokens"]
        self.cached_tokens += call["cached_tokens"]
        self.completion_tokens += call["completion_tokens"]
        if call["prompt_tokens_estimate"] > 0:
            self.prompt_tokens_estimate += call["prompt_tokens_estimate"]
            self.cacheable_tokens_estimate += call["cacheable_tokens_estimate"]
        self.cost += call["cost"] or Decimal(0)
        self.cost_estimated += bool(call["cost_estimated"])
        self.turns += first_of_turn
        latency = call["latency_ms"]
        bucket = {str(latency_bucket(latency)): [1, latency, latency]}
        histogram_merge(self.latency_histogram, bucket)

    def merge(self, other: Tally) -> None:
        for name in MEASURES:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.cost += other.cost
        histogram_merge(self.latency_histogram, other.latency_histogram)

    @classmethod
    def of_row(cls, row: dict[str, Any]) -> Tally:
        """A tally from a grouped row of sums (no histogram: see CallLatency)."""
        return cls(**{name: row[name] or 0 for name in MEASURES}, cost=row["cost"] or Decimal(0))

    def percentile(self, q: float) -> int | None:
        return histogram_percentile(self.latency_histogram, q)

    def percentiles(self, *qs: float) -> list[int | None]:
        return histogram_percentiles(self.latency_histogram, *qs)


def is_failover(provider: str, providers: list[str] | None) -> bool:
    """More than one provider answered the call, or not the first one it tried."""
    providers = [p for p in (providers or []) if p]
    if not providers:
        return False
    return len(set(providers)) > 1 or provider != providers[0]


def local_day(moment: datetime) -> date:
    return timezone.localtime(moment).date()


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, datetime.min.time()))


def _hour_start(moment: datetime) -> datetime:
    return timezone.localtime(moment).replace(minute=0, second=0, microsecond=0)


# A cell: (grain, start, schema_name, provider, pool, outcome).
Cell = tuple[str, datetime, str, str, str, str]


def _turn_key(call: dict[str, Any]) -> tuple[str, str, date] | None:
    """What makes a client turn count once per day and pool in the ledger."""
    if call["source_kind"] != TURN_SOURCE or not call["provider"]:
        return None
    return (call["source_id"], call["pool"], local_day(call["created_at"]))


def _turns_already_counted(calls: list[dict[str, Any]]) -> set[tuple[str, str, date]]:
    """The (turn, pool, day) keys of `calls` that a folded call already counted."""
    keys = {key for call in calls if (key := _turn_key(call))}
    if not keys:
        return set()
    earliest = _day_start(min(day for _, _, day in keys))
    folded = StructuredCall.objects.filter(
        source_kind=TURN_SOURCE,
        source_id__in={source_id for source_id, _, _ in keys},
        rolled_up=True,
        created_at__gte=earliest,
    ).exclude(provider="")
    return {
        key
        for source_id, pool, created_at in folded.values_list("source_id", "pool", "created_at")
        if (key := (source_id, pool, local_day(created_at))) in keys
    }


def tallies_of_calls(
    calls: list[dict[str, Any]], *, grains: Iterable[str] = (CallRollup.Grain.DAY,)
) -> dict[Cell, Tally]:
    """The calls (dicts of CALL_FIELDS, oldest first) summed into their cells."""
    grains = tuple(grains)
    counted = _turns_already_counted(calls)
    cells: dict[Cell, Tally] = defaultdict(Tally)
    for call in calls:
        turn = _turn_key(call)
        first = turn is not None and turn not in counted
        if first:
            counted.add(turn)
        dims = (call["schema_name"], call["provider"], call["pool"], call["outcome"])
        for grain in grains:
            start = (
                _day_start(local_day(call["created_at"]))
                if grain == CallRollup.Grain.DAY
                else _hour_start(call["created_at"])
            )
            cells[(grain, start, *dims)].add_call(call, first_of_turn=first)
    return cells


def _lock_folds() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_FOLD_LOCK])


def _cells_write(cells: dict[Cell, Tally]) -> None:
    starts = {start for _, start, *_ in cells}
    existing = {
        (row.grain, row.start, row.schema_name, row.provider, row.pool, row.outcome): row
        for row in CallRollup.objects.filter(start__in=starts)
    }
    changed, created = [], []
    histograms: dict[tuple[str, datetime, str, str], dict[str, list[int]]] = defaultdict(dict)
    for cell, tally in cells.items():
        grain, start, schema_name, provider, _, _ = cell
        # Each latency in its cell and in the "any schema", "any provider" and "any" cells:
        # a range's percentiles read one row a day, whichever filters are set.
        for key in {(schema_name, provider), (schema_name, ANY), (ANY, provider), (ANY, ANY)}:
            histogram_merge(histograms[(grain, start, *key)], tally.latency_histogram)
        row = existing.get(cell)
        if row is None:
            row = CallRollup(
                grain=grain, start=start, **dict(zip(DIMENSIONS, cell[2:], strict=True))
            )
            created.append(row)
        else:
            changed.append(row)
        for name in MEASURES:
            setattr(row, name, getattr(row, name) + getattr(tally, name))
        row.cost += tally.cost
    now = timezone.now()
    for row in changed:
        row.updated_at = now
    CallRollup.objects.bulk_create(created)
    CallRollup.objects.bulk_update(changed, [*MEASURES, "cost", "updated_at"])

    latencies = {
        (row.grain, row.start, row.schema_name, row.provider): row
        for row in CallLatency.objects.filter(start__in=starts)
    }
    changed, created = [], []
    for key, histogram in histograms.items():
        row = latencies.get(key)
        if row is None:
            grain, start, schema_name, provider = key
            row = CallLatency(grain=grain, start=start, schema_name=schema_name, provider=provider)
            created.append(row)
        else:
            row.updated_at = now
            changed.append(row)
        merged = dict(row.histogram)
        histogram_merge(merged, histogram)
        row.histogram = merged
    CallLatency.objects.bulk_create(created)
    CallLatency.objects.bulk_update(changed, ["histogram", "updated_at"])


def call_rollups_fold(*, batch: int = FOLD_BATCH) -> int:
    """Fold every call not folded yet into its day and hour cells, a batch per transaction;
    returns how many were folded. Safe to run at any time and more than once at a time."""
    folded = 0
    # Hours matter for today (and yesterday, across midnight); days are kept.
    old_hours = timezone.now() - timedelta(days=HOUR_ROWS_KEPT_DAYS)
    while True:
        with transaction.atomic():
            _lock_folds()
            calls = list(
                StructuredCall.objects.filter(rolled_up=False)
                .order_by("created_at", "id")
                .values(*CALL_FIELDS)[:batch]
            )
            if not calls:
                break
            cells = tallies_of_calls(calls, grains=CallRollup.Grain.values)
            # An older call's hour cell would be deleted below: it is never written (a fold
            # of a backlog otherwise leaves the table mostly dead rows until a vacuum).
            hour = CallRollup.Grain.HOUR
            _cells_write({c: t for c, t in cells.items() if c[0] != hour or c[1] >= old_hours})
            StructuredCall.objects.filter(pk__in=[c["id"] for c in calls]).update(rolled_up=True)
            folded += len(calls)
        if len(calls) < batch:
            break
    for model in (CallRollup, CallLatency):
        model.objects.filter(grain=CallRollup.Grain.HOUR, start__lt=old_hours).delete()
    return folded


def structured_calls_prune(*, older_than_days: int, batch: int = 1000) -> int:
    """Delete folded calls older than `older_than_days` (0 keeps everything): the figures
    live on in the rollups. Calls a dead letter holds are kept with their letter."""
    if older_than_days <= 0:
        return 0
    cutoff = timezone.now() - timedelta(days=older_than_days)
    old = StructuredCall.objects.filter(
        created_at__lt=cutoff, rolled_up=True, dead_letter__isnull=True
    ).order_by("created_at", "id")
    deleted = 0
    while ids := list(old.values_list("pk", flat=True)[:batch]):
        deleted += (
            StructuredCall.objects.filter(pk__in=ids).delete()[1].get(StructuredCall._meta.label, 0)
        )
    return deleted


# --- reads ----------------------------------------------------------------------------------

_SUMS = {name: Sum(name) for name in (*MEASURES, "cost")}


class RollupRange:
    """The figures of [since, until) (whole local days), optionally of one schema and one
    provider: the day rollups, summed by PostgreSQL per the grouping asked for, plus the few
    calls not folded yet (read once). A grouping is one query over a small table."""

    def __init__(
        self,
        *,
        since: datetime,
        until: datetime,
        schema: str | None = None,
        provider: str | None = None,
    ) -> None:
        self.since, self.until = since, until
        narrow = {
            name: value
            for name, value in (("schema_name", schema), ("provider", provider))
            if value
        }
        day = CallRollup.Grain.DAY
        self.rows = CallRollup.objects.filter(
            grain=day, start__gte=since, start__lt=until, **narrow
        )
        self.latency_rows = CallLatency.objects.filter(
            grain=day, start__gte=since, start__lt=until, schema_name=schema or ANY,
            provider=provider or ANY,
        )  # fmt: skip
        calls = list(
            StructuredCall.objects.filter(
                rolled_up=False, created_at__gte=since, created_at__lt=until, **narrow
            )
            .order_by("created_at", "id")
            .values(*CALL_FIELDS)
        )
        self.pending = tallies_of_calls(calls)

    @staticmethod
    def _key(cell: Cell, by: tuple[str, ...]) -> tuple:
        values = dict(zip(("grain", "start", *DIMENSIONS), cell, strict=True))
        return tuple(values[name] for name in by)

    def group(self, *by: str, rows: QuerySet | None = None, pending=None) -> dict[tuple, Tally]:
        """Tallies per value of the fields `by` ("start" is the day's local midnight)."""
        groups: dict[tuple, Tally] = defaultdict(Tally)
        rows = self.rows if rows is None else rows
        if not by:
            groups[()].merge(Tally.of_row(rows.aggregate(**_SUMS)))
        for row in rows.order_by().values(*by).annotate(**_SUMS) if by else ():
            groups[tuple(row[name] for name in by)].merge(Tally.of_row(row))
        for cell, tally in (self.pending if pending is None else pending).items():
            # Sums only: latencies are read apart (`latencies`), pending ones included.
            groups[self._key(cell, by)].merge(replace(tally, latency_histogram={}))
        return groups

    def groups(self, *groupings: tuple[str, ...]) -> list[dict[tuple, Tally]]:
        """`group(*by)` for each of several groupings, in order. On PostgreSQL one scan of
        the rollups answers them all (GROUPING SETS) instead of one scan each."""
        if connection.vendor != "postgresql" or len(groupings) < 2:
            return [self.group(*by) for by in groupings]
        columns = sorted({name for by in groupings for name in by})
        measures = (*MEASURES, "cost")
        inner, params = self.rows.order_by().values(*columns, *measures).query.sql_with_params()
        quoted = {name: connection.ops.quote_name(name) for name in (*columns, *measures)}
        sets = ", ".join(f"({', '.join(quoted[c] for c in by)})" for by in groupings)
        sql = (
            f"SELECT {', '.join(quoted[c] for c in columns)}, "  # noqa: S608
            f"{', '.join(f'GROUPING({quoted[c]})' for c in columns)}, "
            f"{', '.join(f'SUM({quoted[m]})' for m in measures)} FROM ({inner}) cells "
            f"GROUP BY GROUPING SETS ({sets})"
        )
        # GROUPING(column) is 0 where the row is grouped by that column.
        which = {
            tuple(0 if c in by else 1 for c in columns): index for index, by in enumerate(groupings)
        }
        found: list[dict[tuple, Tally]] = [defaultdict(Tally) for _ in groupings]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            for row in cursor.fetchall():
                values = dict(zip(columns, row, strict=False))
                flags, sums = row[len(columns) : 2 * len(columns)], row[2 * len(columns) :]
                index = which[tuple(flags)]
                tally = Tally(
                    **{name: int(value or 0) for name, value in zip(MEASURES, sums, strict=False)},
                    cost=sums[-1] or Decimal(0),
                )
                found[index][tuple(values[name] for name in groupings[index])].merge(tally)
        for index, by in enumerate(groupings):
            for cell, tally in self.pending.items():
                found[index][self._key(cell, by)].merge(replace(tally, latency_histogram={}))
        return found

    def latencies(self, *, per_day: bool) -> dict[tuple, dict[str, list[int]]]:
        """Histograms per day (key (start,)) or for the whole range (key ())."""
        merged: dict[tuple, dict[str, list[int]]] = defaultdict(dict)
        for start, histogram in self._day_histograms():
            key = (start,) if per_day else ()
            if key in merged:
                histogram_merge(merged[key], histogram)
            else:  # the row's histogram was just read: it becomes the key's, not a copy
                merged[key] = histogram
        for cell, tally in self.pending.items():
            histogram_merge(merged[(cell[1],) if per_day else ()], tally.latency_histogram)
        return merged

    def _day_histograms(self) -> Iterable[tuple[datetime, dict[str, list[int]]]]:
        """Each day's histogram: one row a day (see ANY)."""
        return self.latency_rows.order_by().values_list("start", "histogram")


def rollup_values(field_name: str) -> list[str]:
    """The non-empty values a dimension has had (the quality filters' choices), from the
    latency cells (a few rows a day), whatever the number of calls."""
    values = set(
        CallLatency.objects.filter(grain=CallRollup.Grain.DAY)
        .exclude(**{field_name: ""})
        .exclude(**{field_name: ANY})
        .order_by()
        .values_list(field_name, flat=True)
        .distinct()
    )
    values |= set(
        StructuredCall.objects.filter(rolled_up=False)
        .exclude(**{field_name: ""})
        .order_by()
        .values_list(field_name, flat=True)
        .distinct()
    )
    return sorted(values)


def ledger_rows(
    *,
    since: datetime,
    until: datetime,
    schema: str | None = None,
    provider: str | None = None,
) -> list[LedgerRow]:
    """dlq.ledger.ledger_by_day_and_pool read from the rollups: money, tokens and turns per
    local day and pool, oldest day first. A turn counts for the day and pool of its first
    call (under a schema or provider filter: when that first call matches it)."""
    cells = RollupRange(since=since, until=until, schema=schema, provider=provider)
    priced = cells.rows.exclude(provider="")
    sums = cells.group(
        "start", "pool", rows=priced,
        pending={cell: t for cell, t in cells.pending.items() if cell[3]},
    )  # fmt: skip
    # The rules agent's answers count as turns served, not as calls.
    paid = cells.group(
        "start", "pool", rows=priced.exclude(provider="rules"),
        pending={cell: t for cell, t in cells.pending.items() if cell[3] not in ("", "rules")},
    )  # fmt: skip
    return [
        LedgerRow(
            local_day(start),
            pool or ONE_CHAIN,
            paid[(start, pool)].calls if (start, pool) in paid else 0,
            t.prompt_tokens,
            t.cached_tokens,
            t.completion_tokens,
            t.cost,
            t.turns,
        )
        for (start, pool), t in sorted(sums.items())
    ]
