"""The lease on an inbound message being read: a worker (or a person's card) claims it with
one conditional UPDATE, and writes its outcome only while that claim still holds; a reading
that keeps failing gives the claim back, then up (a dead letter)."""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from core.leases import lease_claim, lease_settle
from crm.card import LeadCard
from crm.models import InboundMessage
from crm.selectors import SOURCE_KIND
from dlq.models import DeadLetter
from llmkit.parse import FieldError
from webhooks.events import dead_letter_created_emit


def message_lease() -> datetime.timedelta:
    """How long a worker's claim on a message holds (its call budget and a margin)."""
    return datetime.timedelta(seconds=settings.CRM_MESSAGE_LEASE_S)


def message_claim_row(
    message_id: int, *, statuses: list[str], restart: bool = False
) -> datetime.datetime | None:
    """Claim a message for reading with one conditional UPDATE: read by one worker even if
    the task runs twice. A claim older than the lease (a worker that died) is taken over.
    Returns the claim's time (what the outcome is written under), None when not claimed.
    Each claim counts an attempt; `restart` (a person's replay) counts from one again."""
    now = timezone.now()
    claimed = lease_claim(
        InboundMessage.objects.filter(pk=message_id),
        claimable=Q(status__in=statuses),
        working=InboundMessage.Status.PROCESSING,
        lease=message_lease(),
        now=now,
        attempts=1 if restart else F("attempts") + 1,
    )
    return now if claimed else None


def message_claim(
    message_id: int, *, statuses: list[str], restart: bool = False
) -> InboundMessage | None:
    if message_claim_row(message_id, statuses=statuses, restart=restart) is None:
        return None
    return InboundMessage.objects.get(pk=message_id)


def message_claim_locked(message: InboundMessage) -> None:
    """Claim a message already locked by this transaction (a person's card for it)."""
    message.status, message.claimed_at = InboundMessage.Status.PROCESSING, timezone.now()
    message.save(update_fields=["status", "claimed_at"])


class ClaimLost(Exception):
    pass


def message_finish(message: InboundMessage, **fields: Any) -> None:
    """Write the message's outcome if it is still this worker's claim (raises otherwise)."""
    done = lease_settle(
        InboundMessage.objects.filter(pk=message.pk),
        working=InboundMessage.Status.PROCESSING,
        claim=message.claimed_at,
        processed_at=timezone.now(),
        **fields,
    )
    if not done:
        raise ClaimLost
    for name, value in fields.items():
        setattr(message, name, value)


def message_reading_failed(
    message_id: int, *, claimed_at: datetime.datetime, error: Exception
) -> bool:
    """After a reading that raised: on its last attempt the message becomes a dead letter
    (True); before, the claim is given back so that the sweep queues it again (False)."""
    mine = InboundMessage.objects.filter(
        pk=message_id, status=InboundMessage.Status.PROCESSING, claimed_at=claimed_at
    )
    attempts = mine.values_list("attempts", flat=True).first()
    if attempts is None:  # another worker has taken it over meanwhile
        return False
    if attempts < settings.CRM_MESSAGE_MAX_ATTEMPTS:
        mine.update(status=InboundMessage.Status.RECEIVED, claimed_at=None)
        return False
    reason = f"its reading failed {attempts} times; the last time: {type(error).__name__}: {error}"
    return message_give_up(message_id, claimed_at=claimed_at, reason=reason[:1000])


def message_give_up(message_id: int, *, claimed_at: datetime.datetime, reason: str) -> bool:
    """Dead-letter a message whose reading keeps failing, while the claim is still this
    worker's. Its row is not loaded whole: a broken value in it may be why it fails."""
    error = FieldError(path="$", kind="processing_failed", message=reason)
    with transaction.atomic():
        done = lease_settle(
            InboundMessage.objects.filter(pk=message_id),
            working=InboundMessage.Status.PROCESSING,
            claim=claimed_at,
            status=InboundMessage.Status.DEAD_LETTERED,
            processed_at=timezone.now(),
        )
        if not done:
            return False
        body = InboundMessage.objects.filter(pk=message_id).values_list("body_text", flat=True)
        letter = DeadLetter(
            source_kind=SOURCE_KIND,
            source_id=str(message_id),
            schema_name=LeadCard.__name__,  # every lead type's card is named LeadCard
            raw_input=body.first() or "",
            errors=[error.as_dict()],
            error_signature=error.signature,
        )
        letter.full_clean(exclude=["call"], validate_constraints=False)  # no model call
        letter.save()
        dead_letter_created_emit(letter)
    return True
