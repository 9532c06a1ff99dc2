"""The cost ledger: what a model call cost at the price table's rates, and the sums per turn,
briefing, day and pool (the reads the quality dashboard and the briefing page show).

One module for the sub-domain (the price lookup at write time and its sums), beside the
structured call records it prices."""

from __future__ import annotations

import dataclasses
import datetime
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, DecimalField, Q, Sum, Value
from django.db.models.functions import Coalesce, TruncDate
from django.utils import timezone

from dlq.models import ModelPrice, StructuredCall
from llmkit.prompt import estimate_tokens

MILLION = Decimal(1_000_000)
# How the ledger names the calls made with no pools (LLM_PROVIDERS' one chain).
ONE_CHAIN = "(one chain)"
ZERO = Decimal(0)


def price_for(*, provider: str, model: str) -> ModelPrice | None:
    """The row pricing this provider's model: its own, else the provider's any-model row."""
    rows = {
        row.model: row
        for row in ModelPrice.objects.filter(provider=provider, model__in=[model, ""])
    }
    return rows.get(model) or rows.get("")


def call_cost(
    *,
    price: ModelPrice | None,
    prompt_tokens: int,
    cached_tokens: int,
    completion_tokens: int,
) -> Decimal:
    """Money for one call: uncached prompt tokens, cached ones at their own rate, output."""
    if price is None:
        return ZERO
    cached = min(cached_tokens, prompt_tokens)
    cost = (
        (prompt_tokens - cached) * price.prompt_per_million
        + cached * price.cached_per_million
        + completion_tokens * price.completion_per_million
    ) / MILLION
    return cost.quantize(Decimal("0.000001"))


def call_price(call: StructuredCall) -> None:
    """Set the call's cost from what its provider reported. Where it reported nothing (the
    rules agent; a stream closed at the answer's last brace, before the usage event) our
    estimates stand in, the prompt's and the answers', and `cost_estimated` says so."""
    if call.provider in ("", "rules"):
        return
    price = price_for(provider=call.provider, model=call.model)
    prompt_tokens, completion_tokens = call.prompt_tokens, call.completion_tokens
    if prompt_tokens == 0 and call.prompt_tokens_estimate:
        prompt_tokens = call.prompt_tokens_estimate
        call.cost_estimated = price is not None
    if completion_tokens == 0 and call.raw_responses:
        completion_tokens = sum(estimate_tokens(raw) for raw in call.raw_responses)
        call.cost_estimated = price is not None
    call.cost = call_cost(
        price=price,
        prompt_tokens=prompt_tokens,
        cached_tokens=call.cached_tokens,
        completion_tokens=completion_tokens,
    )


# --- reads ----------------------------------------------------------------------------------


def briefing_session(project_id: int) -> str:
    """The ledger's (and GigaChat's cache session's) key for one briefing."""
    return f"briefing:{project_id}"


@dataclass(frozen=True)
class LedgerTotals:
    calls: int
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    cost: Decimal

    @property
    def cached_share(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0


def _totals(calls) -> LedgerTotals:
    money = DecimalField(max_digits=20, decimal_places=6)
    row = calls.aggregate(
        calls=Count("id"),
        prompt=Coalesce(Sum("prompt_tokens"), 0),
        cached=Coalesce(Sum("cached_tokens"), 0),
        completion=Coalesce(Sum("completion_tokens"), 0),
        cost=Coalesce(Sum("cost"), Value(ZERO), output_field=money),
    )
    return LedgerTotals(row["calls"], row["prompt"], row["cached"], row["completion"], row["cost"])


def ledger_for_briefing(*, project_id: int) -> LedgerTotals:
    return _totals(StructuredCall.objects.filter(session=briefing_session(project_id)))


def ledger_turn_costs(*, project_id: int) -> dict[str, Decimal]:
    """Turn id (as recorded) → money spent on it, for a briefing's transcript."""
    rows = (
        StructuredCall.objects.filter(session=briefing_session(project_id))
        .values("source_id")
        .annotate(total=Sum("cost"))
    )
    return {row["source_id"]: row["total"] or ZERO for row in rows}


@dataclass(frozen=True)
class LedgerRow:
    """One day × pool (or one pool over the period) of the dashboard's ledger table."""

    day: datetime.date
    pool: str
    calls: int
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    cost: Decimal
    turns: int  # client turns this pool served (a turn's stage calls count once)

    @property
    def cached_share(self) -> float | None:
        """Cached prompt tokens over prompt tokens, both as the providers reported them
        (measured, never our estimate); None when no provider reported a prompt."""
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else None


def ledger_by_day_and_pool(
    *,
    since: datetime.datetime,
    until: datetime.datetime,
    schema: str | None = None,
    provider: str | None = None,
) -> list[LedgerRow]:
    """Money, tokens, cached share and turns served per local day and pool in [since,
    until), oldest day first. The rules agent's answers cost nothing and report nothing, but
    a turn it served in a pool counts for that pool."""
    calls = StructuredCall.objects.filter(created_at__gte=since, created_at__lt=until)
    if schema:
        calls = calls.filter(schema_name=schema)
    if provider:
        calls = calls.filter(provider=provider)
    money = DecimalField(max_digits=20, decimal_places=6)
    rows = (
        calls.exclude(provider="")
        .annotate(day=TruncDate("created_at", tzinfo=timezone.get_current_timezone()))
        .values("day", "pool")
        .annotate(
            calls=Count("id", filter=~Q(provider="rules")),
            prompt=Coalesce(Sum("prompt_tokens"), 0),
            cached=Coalesce(Sum("cached_tokens"), 0),
            completion=Coalesce(Sum("completion_tokens"), 0),
            cost=Coalesce(Sum("cost"), Value(ZERO), output_field=money),
            turns=Count("source_id", filter=Q(source_kind="briefing_turn"), distinct=True),
        )
        .order_by("day", "pool")
    )
    return [
        LedgerRow(
            r["day"],
            r["pool"] or ONE_CHAIN,
            r["calls"],
            r["prompt"],
            r["cached"],
            r["completion"],
            r["cost"],
            r["turns"],
        )
        for r in rows
    ]


def ledger_by_pool(rows: list[LedgerRow]) -> list[LedgerRow]:
    """Day-and-pool rows summed per pool (`day` is the first day seen)."""
    merged: dict[str, LedgerRow] = {}
    for row in rows:
        old = merged.get(row.pool)
        if old is None:
            merged[row.pool] = row
            continue
        merged[row.pool] = dataclasses.replace(
            old,
            calls=old.calls + row.calls,
            prompt_tokens=old.prompt_tokens + row.prompt_tokens,
            cached_tokens=old.cached_tokens + row.cached_tokens,
            completion_tokens=old.completion_tokens + row.completion_tokens,
            cost=old.cost + row.cost,
            turns=old.turns + row.turns,
        )
    return sorted(merged.values(), key=lambda row: row.pool)


def turn_shares(rows: list[LedgerRow]) -> dict[str, float]:
    """Each pool's share of the turns in `rows`."""
    total = sum(row.turns for row in rows)
    return {row.pool: row.turns / total for row in rows} if total else {}
