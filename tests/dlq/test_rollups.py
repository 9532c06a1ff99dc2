"""The quality rollups: folded once, read with the calls not folded yet, and giving the
figures computed from the raw calls (latency percentiles within the histogram's precision)."""

from __future__ import annotations

import dataclasses
import math
import random
from collections import defaultdict
from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dlq.ledger import ledger_by_day_and_pool
from dlq.models import CallLatency, CallRollup, DeadLetter, StructuredCall
from dlq.rollups import (
    call_rollups_fold,
    histogram_percentile,
    latency_bucket,
    ledger_rows,
    structured_calls_prune,
)
from dlq.selectors import local_day_start, parse_quality, structured_call_choices

pytestmark = pytest.mark.django_db

FIRST_DAY = date(2025, 3, 10)
DAYS = 3
SCHEMAS = ["VisionAnswer", "BudgetAnswer", "LeadCard"]
POOLS = ["", "fast", "strong"]
OUTCOMES = StructuredCall.Outcome.values


def _seed_calls(rng: random.Random, n: int) -> list[StructuredCall]:
    """`n` calls over three local days (late evening included, to test day edges): every
    schema, provider, pool and outcome, retries, failovers, several calls per turn."""
    calls = []
    for _ in range(n):
        provider = rng.choice(["gigachat", "openai", "rules", ""])
        tried = [provider]
        if provider and rng.random() < 0.2:
            tried = ["openai", provider] if provider != "openai" else ["gigachat", "openai"]
        turn = rng.randrange(n // 3)
        prompt_estimate = rng.choice([0, rng.randrange(50, 2000)])
        calls.append(
            StructuredCall(
                schema_name=rng.choice(SCHEMAS),
                provider=provider,
                providers=tried,
                pool=rng.choice(POOLS),
                outcome=rng.choice(OUTCOMES),
                retry_used=rng.random() < 0.3,
                attempts=1,
                # Short ones (exact buckets) and long ones, with repeats.
                latency_ms=rng.choice([rng.randrange(0, 128), rng.randrange(128, 60_000), 900]),
                prompt_tokens=rng.randrange(0, 3000),
                cached_tokens=rng.randrange(0, 500),
                completion_tokens=rng.randrange(0, 400),
                prompt_tokens_estimate=prompt_estimate,
                cacheable_tokens_estimate=rng.randrange(0, prompt_estimate + 1),
                cost=Decimal(rng.randrange(0, 10_000)) / Decimal(1_000_000),
                cost_estimated=rng.random() < 0.1,
                source_kind=rng.choice(["briefing_turn", "briefing_turn", "inbound_message"]),
                source_id=str(turn),
            )
        )
    created = StructuredCall.objects.bulk_create(calls)
    for call in created:
        day = FIRST_DAY + timedelta(days=rng.randrange(DAYS))
        moment = timezone.make_aware(
            datetime(day.year, day.month, day.day, rng.choice([0, 9, 13, 23]), rng.randrange(60))
        )
        StructuredCall.objects.filter(pk=call.pk).update(created_at=moment)
    return created


def _range() -> dict[str, datetime]:
    return {
        "since": local_day_start(FIRST_DAY),
        "until": local_day_start(FIRST_DAY + timedelta(days=DAYS)),
    }


def _nearest_rank(values: list[int], q: float) -> int | None:
    values = sorted(values)
    return values[max(math.ceil(q * len(values)), 1) - 1] if values else None


def _failover(call: StructuredCall) -> bool:
    tried = [p for p in call.providers if p]
    return bool(tried) and (len(set(tried)) > 1 or call.provider != tried[0])


def _raw_figures(calls: list[StructuredCall]) -> dict:
    """The figures computed straight from the raw calls, as the page showed them before."""
    per_day: dict[str, list[StructuredCall]] = defaultdict(list)
    for call in calls:
        per_day[timezone.localtime(call.created_at).date().isoformat()].append(call)

    def figures(group: list[StructuredCall]) -> dict:
        with_estimate = [c for c in group if c.prompt_tokens_estimate > 0]
        estimate = sum(c.prompt_tokens_estimate for c in with_estimate)
        return {
            "total": len(group),
            "outcomes": {o: sum(c.outcome == o for c in group) for o in OUTCOMES},
            "retry_count": sum(c.retry_used for c in group),
            "failovers": sum(_failover(c) for c in group),
            "prompt_mean": sum(c.prompt_tokens for c in group) / len(group),
            "completion_mean": sum(c.completion_tokens for c in group) / len(group),
            "cacheable_prefix_share": (
                sum(c.cacheable_tokens_estimate for c in with_estimate) / estimate
                if estimate
                else None
            ),
            "latencies": [c.latency_ms for c in group],
        }

    return {"all": figures(calls), **{day: figures(group) for day, group in per_day.items()}}


def _assert_percentile_close(got: int | None, values: list[int], q: float) -> None:
    expected = _nearest_rank(values, q)
    if expected is None or expected < 128:
        assert got == expected
    else:
        assert abs(got - expected) <= expected * 0.011 + 1, (q, got, expected)


def _assert_same(figures: dict, raw: dict) -> None:
    assert figures["total"] == raw["total"]
    assert {o: figures["outcomes"][o]["count"] for o in OUTCOMES} == raw["outcomes"]
    assert figures["retry_count"] == raw["retry_count"]
    assert figures["failovers"]["count"] == raw["failovers"]
    tokens = figures["tokens"]
    assert tokens["prompt_mean"] == pytest.approx(raw["prompt_mean"])
    assert tokens["completion_mean"] == pytest.approx(raw["completion_mean"])
    assert tokens["cacheable_prefix_share"] == pytest.approx(raw["cacheable_prefix_share"])


def _assert_quality_equals_raw() -> None:
    calls = list(StructuredCall.objects.all())
    raw = _raw_figures(calls)
    figures = parse_quality(**_range())
    _assert_same(figures, raw["all"])
    for q, key in ((0.5, "p50"), (0.95, "p95")):
        _assert_percentile_close(figures["latency_ms"][key], raw["all"]["latencies"], q)
    _assert_percentile_close(figures["latency_ms_p99"], raw["all"]["latencies"], 0.99)
    assert len(figures["per_day_figures"]) == DAYS
    for day in figures["per_day_figures"]:
        _assert_same(day, raw[day["day"]])
        for q in (50, 95, 99):
            _assert_percentile_close(
                day["latency_ms"][f"p{q}"], raw[day["day"]]["latencies"], q / 100
            )
    for schema in SCHEMAS:
        assert figures["per_schema"][schema]["total"] == sum(c.schema_name == schema for c in calls)
    for provider, row in figures["per_provider"].items():
        assert row["retry_count"] == sum(c.retry_used for c in calls if c.provider == provider)


def test_rollup_figures_equal_the_raw_calls_folded_half_and_half():
    rng = random.Random(15)
    _seed_calls(rng, 240)
    assert call_rollups_fold(batch=50) == 240
    # Recorded after the fold: read from the raw calls until the next one.
    _seed_calls(rng, 120)
    _assert_quality_equals_raw()
    # The cost ledger's sums (pool, money, cached tokens, turns) as dlq.ledger reads them raw.
    assert ledger_rows(**_range()) == ledger_by_day_and_pool(**_range())
    assert ledger_rows(**_range(), schema="LeadCard") != ledger_rows(**_range())

    call_rollups_fold()
    assert not StructuredCall.objects.filter(rolled_up=False).exists()
    _assert_quality_equals_raw()
    # Filtered, the percentiles come from the schema's, the provider's or both's cells.
    for narrow, keep in (
        ({"schema": "LeadCard"}, lambda c: c.schema_name == "LeadCard"),
        ({"provider": "openai"}, lambda c: c.provider == "openai"),
        ({"schema": "LeadCard", "provider": "openai"},
         lambda c: c.schema_name == "LeadCard" and c.provider == "openai"),
    ):  # fmt: skip
        latencies = [c.latency_ms for c in StructuredCall.objects.all() if keep(c)]
        figures = parse_quality(**_range(), **narrow)
        assert figures["total"] == len(latencies)
        _assert_percentile_close(figures["latency_ms"]["p95"], latencies, 0.95)
        _assert_percentile_close(figures["latency_ms"]["p50"], latencies, 0.5)
    assert ledger_rows(**_range()) == ledger_by_day_and_pool(**_range())

    # Filtered, a turn counts where its first call matches the filter: all else is equal.
    def without_turns(rows):
        return [dataclasses.replace(row, turns=0) for row in rows]

    assert without_turns(ledger_rows(**_range(), provider="openai")) == without_turns(
        ledger_by_day_and_pool(**_range(), provider="openai")
    )


def test_a_fold_counts_each_call_once():
    _seed_calls(random.Random(1), 60)
    call_rollups_fold()
    before = list(
        CallRollup.objects.order_by(
            "grain", "start", "schema_name", "provider", "pool", "outcome"
        ).values()
    )
    before_latencies = CallLatency.objects.count()
    assert call_rollups_fold() == 0
    after = list(
        CallRollup.objects.order_by(
            "grain", "start", "schema_name", "provider", "pool", "outcome"
        ).values()
    )
    assert [(r["id"], r["calls"], r["latency_ms_sum"]) for r in after] == [
        (r["id"], r["calls"], r["latency_ms_sum"]) for r in before
    ]
    assert CallLatency.objects.count() == before_latencies
    days = CallRollup.objects.filter(grain="day")
    assert sum(days.values_list("calls", flat=True)) == 60
    assert sum(CallRollup.objects.filter(grain="hour").values_list("calls", flat=True)) in (0, 60)


def test_hour_cells_of_today_sum_to_the_day():
    for minute in range(0, 60, 7):
        call = StructuredCall.objects.create(
            schema_name="LeadCard", provider="rules", outcome="fast", latency_ms=minute
        )
        moment = timezone.now().replace(minute=minute) - timedelta(hours=minute % 3)
        StructuredCall.objects.filter(pk=call.pk).update(created_at=moment)
    call_rollups_fold()
    hours = CallRollup.objects.filter(grain="hour")
    assert hours.count() >= 2
    assert sum(hours.values_list("calls", flat=True)) == 9
    assert all(row.start.minute == 0 for row in hours)


def test_pruned_raw_calls_leave_the_figures_unchanged():
    _seed_calls(random.Random(7), 150)
    letter_call = StructuredCall.objects.filter(outcome="failed").first()
    DeadLetter.objects.create(
        call=letter_call, schema_name=letter_call.schema_name, error_signature="$: x", errors=[]
    )
    call_rollups_fold()
    figures = parse_quality(**_range())
    ledger = ledger_rows(**_range())
    assert structured_calls_prune(older_than_days=1) == 149
    assert list(StructuredCall.objects.values_list("pk", flat=True)) == [letter_call.pk]
    assert parse_quality(**_range()) == figures
    assert ledger_rows(**_range()) == ledger
    assert structured_call_choices("schema_name") == sorted(SCHEMAS)


def test_a_call_not_folded_is_not_pruned():
    call = StructuredCall.objects.create(schema_name="LeadCard", outcome="fast")
    StructuredCall.objects.filter(pk=call.pk).update(
        created_at=timezone.now() - timedelta(days=400)
    )
    assert structured_calls_prune(older_than_days=30) == 0
    assert structured_calls_prune(older_than_days=0) == 0


def test_quality_reads_as_many_queries_at_any_volume():
    since = local_day_start(FIRST_DAY)
    _seed_calls(random.Random(2), 30)
    call_rollups_fold()
    with CaptureQueriesContext(connection) as small:
        parse_quality(**_range())
    _seed_calls(random.Random(3), 300)
    call_rollups_fold()
    with CaptureQueriesContext(connection) as large:
        parse_quality(since=since - timedelta(days=89), until=since + timedelta(days=DAYS))
    assert len(large.captured_queries) == len(small.captured_queries) <= 6
    sql = [query["sql"] for query in large.captured_queries]
    assert any("dlq_callrollup" in q for q in sql)
    assert any("dlq_calllatency" in q for q in sql)
    # The raw calls are read only where not folded yet.
    raw = [q for q in sql if 'FROM "dlq_structuredcall"' in q]
    assert raw
    assert all('NOT "dlq_structuredcall"."rolled_up"' in q for q in raw)


@pytest.mark.parametrize("latency", [0, 1, 127, 128, 129, 900, 1_234, 99_999, 3_600_000])
def test_a_lone_latency_is_its_own_percentile(latency):
    histogram = {str(latency_bucket(latency)): [1, latency, latency]}
    assert histogram_percentile(histogram, 0.5) == latency


def test_histogram_percentiles_are_within_their_stated_precision():
    rng = random.Random(5)
    values = [int(rng.lognormvariate(7, 1.5)) for _ in range(5000)]
    histogram: dict[str, list[int]] = {}
    for value in values:
        cell = histogram.setdefault(str(latency_bucket(value)), [0, value, value])
        cell[0] += 1
        cell[1], cell[2] = min(cell[1], value), max(cell[2], value)
    for q in (0.01, 0.5, 0.9, 0.95, 0.99, 0.999):
        expected = _nearest_rank(values, q)
        assert abs(histogram_percentile(histogram, q) - expected) <= expected * 0.011 + 1


def test_the_fold_runs_every_minute():
    entry = settings.CELERY_BEAT_SCHEDULE["dlq-call-rollups-fold"]
    assert (entry["task"], entry["schedule"]) == ("dlq.tasks.call_rollups_fold", 60.0)


def test_a_backlog_of_old_calls_writes_no_hour_cell_the_fold_would_delete():
    call = StructuredCall.objects.create(
        schema_name="LeadCard", provider="rules", outcome="fast", latency_ms=12
    )
    StructuredCall.objects.filter(pk=call.pk).update(created_at=timezone.now() - timedelta(days=9))
    with CaptureQueriesContext(connection) as queries:
        call_rollups_fold()
    written = [
        q["sql"] for q in queries.captured_queries
        if q["sql"].startswith(('INSERT INTO "dlq_callrollup"', 'INSERT INTO "dlq_calllatency"'))
    ]  # fmt: skip
    assert written
    assert not [sql for sql in written if "hour" in sql]  # the grain, as a literal or in an array
    assert CallRollup.objects.get(grain="day").calls == 1
