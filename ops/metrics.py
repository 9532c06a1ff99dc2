"""The figures /metrics exposes, read from the database (and the broker's queue) when
Prometheus asks: every web and worker process on every host counts in them, with no
per-process state to gather. Counters are totals over the rows kept (a call pruned by
DLQ_CALL_RETENTION_DAYS leaves them, which Prometheus reads as a counter reset)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db.models import Count, DurationField, ExpressionWrapper, F, Q, Sum
from django.utils import timezone
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)
from prometheus_client.registry import Collector, CollectorRegistry

from briefing.models import Turn
from dlq.models import DeadLetter, StructuredCall
from webhooks.models import WebhookDelivery

# Seconds from a client's message to its processed answer.
TURN_LATENCY_BUCKETS_S = (0.5, 1, 2, 5, 10, 30, 60, 120, 300)
# The rules agent's share is of the calls of this last stretch.
RULES_SHARE_WINDOW = timedelta(hours=1)
WAITING = (Turn.Status.RECEIVED, Turn.Status.PROCESSING)


def _turn_families() -> list:
    client = Turn.objects.filter(role=Turn.Role.CLIENT)
    processed = CounterMetricFamily(
        "briefing_turns_processed",
        "Client turns processed, by how their processing ended",
        labels=["status"],
    )
    for row in client.exclude(status__in=WAITING).values("status").annotate(n=Count("id")):
        processed.add_metric([row["status"]], row["n"])

    latency = ExpressionWrapper(F("processed_at") - F("created_at"), output_field=DurationField())
    done = client.filter(processed_at__isnull=False).annotate(latency=latency)
    aggregates = {
        f"le_{i}": Count("id", filter=Q(latency__lte=timedelta(seconds=bound)))
        for i, bound in enumerate(TURN_LATENCY_BUCKETS_S)
    }
    figures = done.aggregate(n=Count("id"), total=Sum("latency"), **aggregates)
    buckets = [
        (str(float(bound)), figures[f"le_{i}"]) for i, bound in enumerate(TURN_LATENCY_BUCKETS_S)
    ]
    buckets.append(("+Inf", figures["n"]))
    total = figures["total"]
    histogram = HistogramMetricFamily(
        "briefing_turn_latency_seconds",
        "Seconds from a client's message to its processed answer",
        buckets=buckets,
        sum_value=total.total_seconds() if total else 0.0,
    )

    waiting = client.filter(status__in=WAITING)
    waiting_gauge = GaugeMetricFamily(
        "briefing_turns_waiting", "Client turns received and not yet answered"
    )
    waiting_gauge.add_metric([], waiting.count())
    oldest = waiting.order_by("created_at").values_list("created_at", flat=True).first()
    oldest_gauge = GaugeMetricFamily(
        "briefing_turn_oldest_waiting_seconds", "Age of the oldest unanswered client turn"
    )
    oldest_gauge.add_metric([], (timezone.now() - oldest).total_seconds() if oldest else 0.0)
    return [processed, histogram, waiting_gauge, oldest_gauge]


def _call_families() -> list:
    calls = CounterMetricFamily(
        "llm_calls",
        "Structured model calls, by the provider that answered and the outcome",
        labels=["provider", "outcome"],
    )
    retries = CounterMetricFamily(
        "llm_call_retries", "Structured calls that used their one retry", labels=["provider"]
    )
    rows = StructuredCall.objects.values("provider", "outcome").annotate(
        n=Count("id"), retried=Count("id", filter=Q(retry_used=True))
    )
    retried_by_provider: dict[str, int] = {}
    for row in rows:
        calls.add_metric([row["provider"] or "none", row["outcome"]], row["n"])
        provider = row["provider"] or "none"
        retried_by_provider[provider] = retried_by_provider.get(provider, 0) + row["retried"]
    for provider, n in sorted(retried_by_provider.items()):
        retries.add_metric([provider], n)

    recent = StructuredCall.objects.filter(created_at__gte=timezone.now() - RULES_SHARE_WINDOW)
    share = recent.aggregate(n=Count("id"), rules=Count("id", filter=Q(provider="rules")))
    rules_share = GaugeMetricFamily(
        "llm_rules_agent_share",
        "Share of the last hour's structured calls answered by the rules agent (no model)",
    )
    rules_share.add_metric([], share["rules"] / share["n"] if share["n"] else 0.0)
    return [calls, retries, rules_share]


def _queue_families() -> list:
    dead_letters = GaugeMetricFamily("dlq_dead_letters_open", "Dead letters waiting for review")
    dead_letters.add_metric([], DeadLetter.objects.filter(status="open").count())
    failing = GaugeMetricFamily(
        "webhook_deliveries_failing",
        "Webhook deliveries given up (failed) or waiting to be tried again after a failure",
        labels=["state"],
    )
    failing.add_metric(["failed"], WebhookDelivery.objects.filter(status="failed").count())
    failing.add_metric(
        ["retrying"],
        WebhookDelivery.objects.filter(status="pending", attempts__gt=0).count(),
    )
    depth = GaugeMetricFamily(
        "celery_queue_depth", "Tasks waiting in the broker's queue", labels=["queue"]
    )
    queued = queue_depth()
    if queued is not None:
        depth.add_metric(["celery"], queued)
    return [dead_letters, failing, depth]


def queue_depth() -> int | None:
    """Messages waiting in Celery's default queue; None when the broker cannot say."""
    url = settings.CELERY_BROKER_URL
    if url.startswith("filesystem://"):
        folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
        return sum(1 for _ in folder.glob("*.msg")) if folder.is_dir() else None
    from kombu.exceptions import ChannelError

    from config.celery import app

    try:
        with app.connection_for_write(connect_timeout=settings.OPS_PROBE_TIMEOUT_S) as conn:
            conn.ensure_connection(max_retries=0)
            try:
                return conn.default_channel.queue_declare("celery", passive=True).message_count
            except ChannelError:  # Redis keeps no key for an empty queue
                return 0
    except Exception:  # a broker that did not answer
        return None


class PlatformCollector(Collector):
    def collect(self):
        yield from _turn_families()
        yield from _call_families()
        yield from _queue_families()


def metrics_registry() -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(PlatformCollector())
    return registry
