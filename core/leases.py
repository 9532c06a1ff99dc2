"""Leases on work rows: a worker claims a row with one conditional UPDATE (status to its
working status, `claimed_at` to now), writes its outcome only while that claim is still
its own, and a claim older than the lease (the worker died) may be taken over. Used by
inbound messages and webhook deliveries; a turn's claim (briefing.turn.claims) pins the
claim it read instead, so that it can count the claims lost before it."""

from __future__ import annotations

import datetime
from typing import Any

from django.db.models import Q, QuerySet


def lease_lapsed(*, working: str, lease: datetime.timedelta, now: datetime.datetime) -> Q:
    """Rows held by a worker whose lease has run out: they may be claimed again."""
    return Q(status=working, claimed_at__lt=now - lease)


def lease_held(
    claimed_at: datetime.datetime | None, *, lease: datetime.timedelta, now: datetime.datetime
) -> bool:
    """Whether a claim made at `claimed_at` still holds at `now`."""
    return claimed_at is not None and claimed_at + lease > now


def lease_claim(
    rows: QuerySet,
    *,
    claimable: Q,
    working: str,
    lease: datetime.timedelta,
    now: datetime.datetime,
    **also: Any,
) -> bool:
    """Claim the rows of `rows` that are `claimable` or held past their lease: one UPDATE,
    so of two workers (or a task delivered twice) only one wins. `also` is written with the
    claim (an attempt counter). True when a row was claimed."""
    lapsed = lease_lapsed(working=working, lease=lease, now=now)
    return bool(rows.filter(claimable | lapsed).update(status=working, claimed_at=now, **also))


def lease_settle(rows: QuerySet, *, working: str, claim: datetime.datetime, **outcome: Any) -> bool:
    """Write `outcome` (which may release the claim: `claimed_at=None`) only while the claim
    made at `claim` is still the row's: a worker that outlived its lease was replaced, and
    the replacement's outcome stands."""
    return bool(rows.filter(status=working, claimed_at=claim).update(**outcome))
