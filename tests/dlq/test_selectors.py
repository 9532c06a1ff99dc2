"""The parse-quality figures and the dead-letter groups, computed from recorded rows."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dlq.models import DeadLetter, StructuredCall
from dlq.selectors import dead_letter_groups, local_day_start, parse_quality

pytestmark = pytest.mark.django_db


def at(day: date, hour: int = 12) -> datetime:
    """A local moment of `day` (Europe/Moscow in the suite)."""
    return timezone.make_aware(datetime(day.year, day.month, day.day, hour))


def make_call(*, created_at: datetime, **fields) -> StructuredCall:
    fields = {
        "schema_name": "LeadCard",
        "provider": "rules",
        "providers": [fields.get("provider", "rules")],
        "outcome": "fast",
        **fields,
    }
    call = StructuredCall.objects.create(**fields)
    # created_at is auto_now_add: set the moment the test needs afterwards.
    StructuredCall.objects.filter(pk=call.pk).update(created_at=created_at)
    call.refresh_from_db()
    return call


def make_letter(*, created_at: datetime, **fields) -> DeadLetter:
    fields = {
        "schema_name": "LeadCard",
        "provider": "rules",
        "error_signature": "budget_rub: int_parsing",
        "errors": [
            {"path": "budget_rub", "kind": "int_parsing", "message": "not a number", "input": "x"}
        ],
        "raw_responses": ['{"budget_rub": "ask my wife"}'],
        **fields,
    }
    if fields.get("status", "open") != "open":
        fields.setdefault("resolved_at", created_at)
    letter = DeadLetter.objects.create(**fields)
    DeadLetter.objects.filter(pk=letter.pk).update(created_at=created_at)
    letter.refresh_from_db()
    return letter


MONDAY = date(2025, 3, 10)


@pytest.fixture
def week_of_calls():
    """Eight calls over two days plus one before and one after the range."""
    make_call(
        created_at=at(MONDAY, 9),
        outcome="fast",
        latency_ms=100,
        prompt_tokens=100,
        completion_tokens=10,
        prompt_tokens_estimate=100,
        cacheable_tokens_estimate=80,
    )
    make_call(
        created_at=at(MONDAY, 10),
        outcome="fast",
        latency_ms=200,
        prompt_tokens=200,
        completion_tokens=20,
        prompt_tokens_estimate=300,
        cacheable_tokens_estimate=120,
    )
    make_call(
        created_at=at(MONDAY, 11),
        outcome="extracted",
        latency_ms=300,
        prompt_tokens=300,
        completion_tokens=30,
    )
    make_call(
        created_at=at(MONDAY, 23),
        outcome="repaired",
        latency_ms=400,
        prompt_tokens=400,
        completion_tokens=40,
        schema_name="VisionAnswer",
        retry_used=True,
        attempts=2,
    )
    nxt = MONDAY + timedelta(days=1)
    make_call(
        created_at=at(nxt, 0),
        outcome="coerced",
        latency_ms=500,
        prompt_tokens=500,
        completion_tokens=50,
        schema_name="VisionAnswer",
        provider="gigachat",
        providers=["gigachat"],
    )
    make_call(
        created_at=at(nxt, 8),
        outcome="failed",
        latency_ms=600,
        prompt_tokens=600,
        completion_tokens=60,
        schema_name="VisionAnswer",
        provider="yandex",
        providers=["gigachat", "yandex"],
        retry_used=True,
        attempts=2,
    )
    make_call(
        created_at=at(nxt, 9),
        outcome="fast",
        latency_ms=700,
        prompt_tokens=700,
        completion_tokens=70,
        provider="local",
        providers=["gigachat"],
    )
    make_call(
        created_at=at(nxt, 10),
        outcome="fast",
        latency_ms=5000,
        prompt_tokens=800,
        completion_tokens=80,
    )
    # Outside [since, until): must not count.
    make_call(created_at=at(MONDAY - timedelta(days=1), 23), outcome="failed", latency_ms=9999)
    make_call(created_at=at(nxt + timedelta(days=1), 0), outcome="failed", latency_ms=9999)


def _range() -> dict:
    return {
        "since": local_day_start(MONDAY),
        "until": local_day_start(MONDAY + timedelta(days=2)),
    }


def test_quality_counts_outcomes_and_their_shares_inside_the_range_only(week_of_calls):
    figures = parse_quality(**_range())
    assert figures["total"] == 8
    assert {o: v["count"] for o, v in figures["outcomes"].items()} == {
        "fast": 4, "extracted": 1, "repaired": 1, "coerced": 1, "failed": 1,
    }  # fmt: skip
    assert figures["outcomes"]["fast"]["share"] == 0.5
    assert figures["outcomes"]["failed"]["share"] == 0.125
    assert (figures["retry_count"], figures["retry_share"]) == (2, 0.25)


def test_quality_counts_per_local_day(week_of_calls):
    per_day = parse_quality(**_range())["per_day"]
    assert per_day == [
        {"day": "2025-03-10", "fast": 2, "extracted": 1, "repaired": 1, "coerced": 0, "failed": 0},
        {"day": "2025-03-11", "fast": 2, "extracted": 0, "repaired": 0, "coerced": 1, "failed": 1},
    ]


def test_quality_lists_days_without_calls_with_zeros():
    since = local_day_start(MONDAY)
    figures = parse_quality(since=since, until=since + timedelta(days=3))
    assert [d["day"] for d in figures["per_day"]] == ["2025-03-10", "2025-03-11", "2025-03-12"]
    assert figures["total"] == 0
    assert figures["latency_ms"] == {"p50": None, "p95": None}
    assert figures["tokens"]["cacheable_prefix_share"] is None


def test_quality_breaks_down_per_schema_and_per_provider(week_of_calls):
    figures = parse_quality(**_range())
    vision = figures["per_schema"]["VisionAnswer"]
    assert vision["total"] == 3
    assert vision["retry_share"] == pytest.approx(2 / 3)
    assert vision["outcomes"]["failed"]["count"] == 1
    assert figures["per_schema"]["LeadCard"]["total"] == 5
    assert figures["per_schema"]["LeadCard"]["retry_count"] == 0
    assert {p: v["total"] for p, v in figures["per_provider"].items()} == {
        "gigachat": 1, "local": 1, "rules": 5, "yandex": 1,
    }  # fmt: skip
    assert figures["per_provider"]["yandex"]["retry_share"] == 1.0


def test_quality_tokens_latency_and_failovers(week_of_calls):
    figures = parse_quality(**_range())
    assert figures["tokens"]["prompt_mean"] == 450
    assert figures["tokens"]["completion_mean"] == 45
    # Only calls with an estimate: (80 + 120) / (100 + 300).
    assert figures["tokens"]["cacheable_prefix_share"] == 0.5
    assert figures["latency_ms"] == {"p50": 400, "p95": 5000}
    # Two providers in one call, and a call answered by another than the first listed.
    assert figures["failovers"] == {"count": 2, "share": 0.25}


def test_quality_narrows_to_one_schema_and_one_provider(week_of_calls):
    figures = parse_quality(**_range(), schema="VisionAnswer", provider="gigachat")
    assert figures["total"] == 1
    assert figures["outcomes"]["coerced"]["count"] == 1
    assert list(figures["per_schema"]) == ["VisionAnswer"]


def test_dead_letters_group_by_signature_biggest_first_with_a_seven_day_trend():
    today = MONDAY
    make_letter(created_at=at(today), schema_name="LeadCard", provider="gigachat")
    make_letter(created_at=at(today - timedelta(days=1)), schema_name="VisionAnswer")
    make_letter(created_at=at(today - timedelta(days=1), 8))
    make_letter(created_at=at(today - timedelta(days=10)))  # counted, outside the trend
    make_letter(created_at=at(today, 15), error_signature="phones.0: value_error",
                provider="yandex")  # fmt: skip
    make_letter(created_at=at(today, 16), status="fixed")  # not open
    groups = dead_letter_groups(today=today)
    assert [(g["error_signature"], g["count"]) for g in groups] == [
        ("budget_rub: int_parsing", 4),
        ("phones.0: value_error", 1),
    ]
    budget = groups[0]
    assert budget["schema_names"] == ["LeadCard", "VisionAnswer"]
    assert budget["providers"] == ["gigachat", "rules"]
    assert budget["newest"] == at(today)
    assert [t["count"] for t in budget["trend"]] == [0, 0, 0, 0, 0, 2, 1]
    assert budget["trend"][0]["day"] == "2025-03-04"
    assert budget["trend"][-1]["day"] == "2025-03-10"
    assert [t["count"] for t in groups[1]["trend"]] == [0, 0, 0, 0, 0, 0, 1]


def test_dead_letter_groups_of_another_status():
    make_letter(created_at=at(MONDAY), status="fixed")
    make_letter(created_at=at(MONDAY))
    groups = dead_letter_groups(status="fixed", today=MONDAY)
    assert [(g["error_signature"], g["count"]) for g in groups] == [("budget_rub: int_parsing", 1)]


def test_quality_parsed_share_counts_every_outcome_but_the_dead_letter(week_of_calls):
    figures = parse_quality(**_range())
    assert (figures["parsed_count"], figures["parsed_share"]) == (7, 0.875)
    assert figures["per_schema"]["VisionAnswer"]["parsed_count"] == 2


def test_quality_p99_is_the_nearest_rank_of_the_recorded_latencies():
    # 1..100 ms in a scrambled order: the nearest ranks are the values themselves.
    for latency_ms in ((i * 37) % 100 + 1 for i in range(100)):
        make_call(created_at=at(MONDAY), latency_ms=latency_ms)
    figures = parse_quality(**_range())
    assert figures["latency_ms"] == {"p50": 50, "p95": 95}
    assert figures["latency_ms_p99"] == 99
    assert figures["per_day_figures"][0]["latency_ms"] == {"p50": 50, "p95": 95, "p99": 99}


def test_quality_per_day_figures_are_each_days_own(week_of_calls):
    monday, tuesday = parse_quality(**_range())["per_day_figures"]
    assert monday["day"] == "2025-03-10"
    assert monday["total"] == 4
    assert monday["outcomes"]["fast"] == {"count": 2, "share": 0.5}
    assert (monday["parsed_share"], monday["retry_share"]) == (1.0, 0.25)
    # (100 + 200 + 300 + 400) / 4 and (10 + 20 + 30 + 40) / 4; cacheable (80 + 120) / (100 + 300).
    assert monday["tokens"] == {
        "prompt_mean": 250, "completion_mean": 25, "cacheable_prefix_share": 0.5,
    }  # fmt: skip
    assert monday["latency_ms"] == {"p50": 200, "p95": 400, "p99": 400}
    assert monday["failovers"] == {"count": 0, "share": 0.0}

    assert tuesday["day"] == "2025-03-11"
    assert tuesday["total"] == 4
    assert tuesday["outcomes"]["failed"] == {"count": 1, "share": 0.25}
    assert tuesday["parsed_share"] == 0.75
    # No call of that day has an estimate: no share rather than a zero.
    assert tuesday["tokens"] == {
        "prompt_mean": 650, "completion_mean": 65, "cacheable_prefix_share": None,
    }  # fmt: skip
    assert tuesday["latency_ms"] == {"p50": 600, "p95": 5000, "p99": 5000}
    assert tuesday["failovers"] == {"count": 2, "share": 0.5}


def test_quality_per_day_figures_of_a_day_without_calls(week_of_calls):
    since = local_day_start(MONDAY - timedelta(days=3))
    first = parse_quality(since=since, until=since + timedelta(days=1))["per_day_figures"]
    assert first == [
        {
            "day": "2025-03-07",
            "total": 0,
            "outcomes": {o: {"count": 0, "share": 0.0} for o in StructuredCall.Outcome.values},
            "parsed_count": 0,
            "parsed_share": 0.0,
            "retry_count": 0,
            "retry_share": 0.0,
            "tokens": {
                "prompt_mean": None,
                "completion_mean": None,
                "cacheable_prefix_share": None,
            },
            "latency_ms": {"p50": None, "p95": None, "p99": None},
            "failovers": {"count": 0, "share": 0.0},
        }
    ]


def test_quality_days_match_per_day_counts(week_of_calls):
    figures = parse_quality(**_range())
    assert [d["day"] for d in figures["per_day_figures"]] == [d["day"] for d in figures["per_day"]]
    for counts, day in zip(figures["per_day"], figures["per_day_figures"], strict=True):
        assert {o: counts[o] for o in StructuredCall.Outcome.values} == {
            o: day["outcomes"][o]["count"] for o in StructuredCall.Outcome.values
        }
    assert sum(d["failovers"]["count"] for d in figures["per_day_figures"]) == 2


def test_quality_takes_as_many_queries_for_a_year_as_for_a_day(week_of_calls):
    since = local_day_start(MONDAY)
    with CaptureQueriesContext(connection) as one_day:
        parse_quality(since=since, until=since + timedelta(days=1))
    with CaptureQueriesContext(connection) as a_year:
        figures = parse_quality(since=since - timedelta(days=360), until=since + timedelta(days=5))
    assert len(figures["per_day_figures"]) == 365
    assert len(a_year.captured_queries) == len(one_day.captured_queries) <= 8
